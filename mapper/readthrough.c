/* readthrough.c — pairs that read through their insert (readthrough.h). */
#include "mapper/readthrough.h"

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
