/* readthrough.c — pairs that read through their insert (readthrough.h). */
#include "mapper/readthrough.h"

/* Longest read looked at: read-through is a short-read library's trait. */
#define SM_RT_MAX_READ 1024
#define SM_RT_WORD_BASES 32
/* The low bit of every 2-bit base of a word. */
#define SM_RT_LOW_BITS 0x5555555555555555ull
/* A base letter's value: A C G T (either case) 1-4, so that complements
 * sum to 5; anything else 0. */
static const uint8_t rt_value[256] = {
	['A'] = 1, ['C'] = 2, ['G'] = 3, ['T'] = 4,
	['a'] = 1, ['c'] = 2, ['g'] = 3, ['t'] = 4,
};

static inline uint8_t rt_val(char c) { return rt_value[(uint8_t)c]; }

/* 1 if a is base b's complement, both unambiguous. */
static inline int rt_pairs(char a, char b)
{
	const uint8_t x = rt_val(a), y = rt_val(b);

	return x && y && x + y == 5;
}

/* The 2-bit code of a letter (A C G T 0-3; an ambiguous one as T). */
static inline uint64_t rt_code(char c) { return (uint64_t)(rt_val(c) - 1) & 3; }

/* Differences between the first 32 bases of two packed words. */
static inline int32_t rt_word_diffs(uint64_t x, uint64_t y)
{
	uint64_t d = x ^ y;

	return __builtin_popcountll((d | d >> 1) & SM_RT_LOW_BITS);
}

/* 1 if the two tails (read 1's and read 2's bases from `from` on, both
 * there) begin alike, as the two adapters of a library do (readthrough.h). */
static int tails_agree(const char *s1, int32_t n1, const char *s2, int32_t n2, int32_t from)
{
	int32_t n = n1 < n2 ? n1 : n2, diffs = 0;

	n = n - from < SM_RT_TAIL_CHECK ? n - from : SM_RT_TAIL_CHECK;
	for (int32_t i = from; i < from + n; i++)
		diffs += rt_val(s1[i]) != rt_val(s2[i]) || !rt_val(s1[i]);
	return diffs <= (n == SM_RT_TAIL_CHECK ? 1 : 0);
}

int32_t sm_read_through(const char *s1, int32_t n1, const char *s2, int32_t n2)
{
	/* The fragment of length I is s1[0..I) against s2[0..I) reverse-
	 * complemented.  First 32 bases of each, 2-bit packed (an ambiguous
	 * base as some base, so that packed bases can only miss differences),
	 * reject most lengths: pa holds s1's, x the reverse complement of
	 * s2[I - 32..I), slid one base a length. */
	const int32_t shorter = n1 < n2 ? n1 : n2, longer = n1 < n2 ? n2 : n1;
	uint64_t pa = 0, x = 0;
	int32_t found = 0;

	_Static_assert(SM_RT_MIN_FRAGMENT >= SM_RT_WORD_BASES, "the packed check needs 32 bases");
	if (longer > SM_RT_MAX_READ || shorter <= SM_RT_MIN_FRAGMENT)
		return 0;
	for (int32_t i = 0; i < SM_RT_WORD_BASES; i++) {
		pa |= rt_code(s1[i]) << 2 * i;
		x = x << 2 | (3 - rt_code(s2[i]));
	}
	for (int32_t len = SM_RT_WORD_BASES; len < shorter; len++) {
		const int32_t most = sm_rt_max_diffs(len);
		int32_t diffs = 0;

		if (len > SM_RT_WORD_BASES)
			x = x << 2 | (3 - rt_code(s2[len - 1]));
		if (len < SM_RT_MIN_FRAGMENT || rt_word_diffs(pa, x) > most)
			continue;
		for (int32_t i = 0; i < len && diffs <= most; i++)
			diffs += !rt_pairs(s1[i], s2[len - 1 - i]);
		if (diffs > most)
			continue;
		if (found)
			return 0;   /* a second length: a tandem repeat, not adapter */
		found = len;
	}
	return found && tails_agree(s1, n1, s2, n2, found) ? found : 0;
}
