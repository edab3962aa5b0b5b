/* readthrough.c — reads that read through their insert (readthrough.h). */
#include "mapper/readthrough.h"

#include <pthread.h>

#include "io/base.h"

/* Longest read looked at: read-through is a short-read library's trait. */
#define SM_RT_MAX_READ 1024

/* A letter's base code (io/base.h: A C G T 0-3, either case; anything
 * else SM_BASE_N). */
static inline uint8_t rt_code(char c) { return sm_nt4_table[(uint8_t)c]; }

/* 1 if the two reads' copies of a fragment of length len agree: read 1's
 * base i is the complement of read 2's base len - 1 - i, both unambiguous,
 * for all but sm_rt_max_diffs(len) of i < len. */
static int copies_agree(const char *s1, const char *s2, int32_t len)
{
	const int32_t most = sm_rt_max_diffs(len);
	int32_t diffs = 0;

	/* Complementary codes sum to 3, which no pair with SM_BASE_N does. */
	for (int32_t i = 0; i < len && diffs <= most; i++)
		diffs += rt_code(s1[i]) + rt_code(s2[len - 1 - i]) != 3;
	return diffs <= most;
}

int32_t sm_read_through(const char *s1, int32_t n1, const char *s2, int32_t n2)
{
	/* The tails' test first, for every length at once: differ[i] says
	 * whether the reads' bases i differ (same orientation: the adapters
	 * both start at I), and a window of SM_RT_TAIL_CHECK of them slides
	 * from the end; it rejects nearly every length, so that the copies
	 * are compared for a few. */
	uint8_t differ[SM_RT_MAX_READ];
	const int32_t shorter = n1 < n2 ? n1 : n2, longer = n1 < n2 ? n2 : n1;
	int32_t found = 0, in_window = 0;

	if (longer > SM_RT_MAX_READ || shorter <= SM_RT_MIN_FRAGMENT)
		return 0;
	for (int32_t i = SM_RT_MIN_FRAGMENT; i < shorter; i++) {
		const uint8_t x = rt_code(s1[i]);

		differ[i] = x == SM_BASE_N || x != rt_code(s2[i]);
	}
	for (int32_t len = shorter - 1; len >= SM_RT_MIN_FRAGMENT; len--) {
		const int32_t tail = shorter - len < SM_RT_TAIL_CHECK ? shorter - len : SM_RT_TAIL_CHECK;

		in_window += differ[len];
		if (tail == SM_RT_TAIL_CHECK && len + tail < shorter)
			in_window -= differ[len + tail];
		if (tail < SM_RT_MIN_TAIL || in_window > (tail == SM_RT_TAIL_CHECK ? 1 : 0) ||
		    !copies_agree(s1, s2, len))
			continue;
		if (found)
			return 0;   /* a second length: a repeat, not adapter */
		found = len;
	}
	return found;
}

/* What follows the insert in read 1 or read 2 of each kit (its first
 * bases: the rest holds the sample's index).  TruSeq's two adapters and
 * Nextera's two start alike; MGI's differ after AAGTCGGA. */
#define ADAPTER(s) { s, (int32_t)sizeof s - 1 }
static const struct {
	const char *seq;
	int32_t len;
} SM_RT_ADAPTERS[] = {
	ADAPTER("AGATCGGAAGAGC"),           /* Illumina TruSeq, both reads */
	ADAPTER("CTGTCTCTTATACACATCT"),     /* Illumina Nextera / Tn5, both reads */
	ADAPTER("TGGAATTCTCGGGTGCCAAGG"),   /* Illumina small RNA, 3' */
	ADAPTER("AAGTCGGAGGCCAAGCGGTC"),    /* MGI, read 1 */
	ADAPTER("AAGTCGGATCGTAGCCATGTC"),   /* MGI, read 2 */
};
#define SM_RT_N_ADAPTERS ((int)(sizeof SM_RT_ADAPTERS / sizeof *SM_RT_ADAPTERS))

/* 1 if the read s[at..) holds adapter a's first bases as readthrough.h
 * asks (n: the read's length). */
static int adapter_at(const char *s, int32_t n, int32_t at, int a)
{
	const char *ad = SM_RT_ADAPTERS[a].seq;
	/* the adapter's bases the read holds from at */
	const int32_t m = SM_RT_ADAPTERS[a].len < n - at ? SM_RT_ADAPTERS[a].len : n - at;
	const int32_t most = m >= SM_RT_AD_ONE_DIFF ? 1 : 0;
	int32_t diffs = 0;

	if (m < SM_RT_AD_MIN)
		return 0;
	for (int32_t i = 0; i < m && diffs <= most; i++)
		diffs += rt_code(s[at + i]) != rt_code(ad[i]);   /* an N (SM_BASE_N) equals none */
	return diffs <= most;
}

/* The adapters are found through their first two 6-mers: one difference
 * in 13 bases or more leaves one of them exact, and 10-12 bases must match
 * exactly (SM_RT_AD_MIN, SM_RT_AD_ONE_DIFF).  seed_of[code] has bit
 * 2a + h set where the 6-mer code is adapter a's h-th (h 0: its first
 * bases, 1: the next six), so each of a read's 6-mers costs one look-up,
 * and only where one matches is the adapter compared base by base.  (Every
 * single read of a run is searched: comparing each 6-mer with every seed
 * took a quarter of an exhaustive run's workers.) */
#define AD_SEED 6
_Static_assert(2 * SM_RT_N_ADAPTERS <= 16, "seed_of holds a bit per adapter and seed");

static uint16_t seed_of[1 << 2 * AD_SEED];
static pthread_once_t seed_once = PTHREAD_ONCE_INIT;

static void seed_init(void)
{
	for (int a = 0; a < SM_RT_N_ADAPTERS; a++)
		for (int h = 0; h < 2; h++) {
			uint32_t code = 0;

			for (int i = 0; i < AD_SEED; i++)
				code = code << 2 | rt_code(SM_RT_ADAPTERS[a].seq[h * AD_SEED + i]);
			seed_of[code] |= (uint16_t)(1u << (2 * a + h));
		}
}

int32_t sm_adapter_start(const char *s, int32_t n)
{
	uint32_t code = 0;
	int32_t best = 0, run = 0;

	if (n > SM_RT_MAX_READ)
		return 0;
	pthread_once(&seed_once, seed_init);
	for (int32_t i = 0; i < n; i++) {
		const uint8_t c = rt_code(s[i]);
		uint32_t hits;

		/* no later 6-mer starts an adapter before best (h 1 reaches furthest back) */
		if (best > 0 && i + 1 - 2 * AD_SEED >= best)
			break;
		run = c == SM_BASE_N ? 0 : run + 1;
		code = (code << 2 | (c & 3)) & ((1u << 2 * AD_SEED) - 1);
		if (run < AD_SEED || !(hits = seed_of[code]))
			continue;
		/* the adapter would start at i + 1 - AD_SEED (h 0) or AD_SEED before (h 1) */
		for (; hits; hits &= hits - 1) {
			const int b = __builtin_ctz(hits), a = b >> 1, h = b & 1;
			const int32_t at = i + 1 - AD_SEED * (h + 1);

			if (at >= SM_RT_MIN_FRAGMENT && (best == 0 || at < best) && adapter_at(s, n, at, a))
				best = at;
		}
	}
	return best;
}
