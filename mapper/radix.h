/* radix.h — sm_radix_sort_u64(): 64-bit keys in ascending order, by
 * least-significant-digit radix a byte at a time; sm_radix_sort_bits():
 * stably by one field of theirs only.  A header so that the C library
 * (seeding's hits, the completion's hits, the index build's buckets) and
 * the GPU engine's host code (its groups' shape keys) share them. */
#ifndef SM_RADIX_H
#define SM_RADIX_H

#include <stdint.h>
#include <string.h>

#define SM_RADIX_BITS 8
#define SM_RADIX_DIGITS ((int)(sizeof(uint64_t) * 8 / SM_RADIX_BITS))

/* Sorts key[0..n) ascending (tmp: room for n keys).  A byte that every key
 * has alike is skipped: packed keys (a flag bit, a bias, small fields)
 * vary in only some of their eight. */
static inline void sm_radix_sort_u64(uint64_t *key, uint64_t *tmp, int64_t n)
{
	const int radix = 1 << SM_RADIX_BITS;
	int64_t count[SM_RADIX_DIGITS][1 << SM_RADIX_BITS];
	uint64_t *src = key, *dst = tmp, *swap;

	if (n < 2)
		return;
	memset(count, 0, sizeof count);
	for (int64_t t = 0; t < n; t++)
		for (int d = 0; d < SM_RADIX_DIGITS; d++)
			count[d][(key[t] >> (d * SM_RADIX_BITS)) & (radix - 1)]++;
	for (int d = 0; d < SM_RADIX_DIGITS; d++) {
		int shift = d * SM_RADIX_BITS;
		int64_t at = 0;

		if (count[d][(key[0] >> shift) & (radix - 1)] == n)
			continue;   /* every key has this byte */
		for (int v = 0; v < radix; v++) {
			int64_t c = count[d][v];

			count[d][v] = at;
			at += c;
		}
		for (int64_t t = 0; t < n; t++)
			dst[count[d][(src[t] >> shift) & (radix - 1)]++] = src[t];
		swap = src, src = dst, dst = swap;
	}
	if (src != key)
		memcpy(key, src, (size_t)n * sizeof *key);
}

/* Digits of sm_radix_sort_bits' passes have at most this many bits. */
#define SM_RADIX_FIELD_MAX_DIGIT 11

/* Sorts key[0..n) stably by their bits [lo, lo + bits) alone (tmp: room
 * for n keys), least-significant digit first, in as few passes of equal
 * width as digits of at most max_digit (<= SM_RADIX_FIELD_MAX_DIGIT) bits
 * allow.  Returns 0 when the sorted keys are in key, 1 when in tmp. */
static inline int sm_radix_sort_bits(uint64_t *key, uint64_t *tmp, int64_t n, int lo, int bits,
				     int max_digit)
{
	int64_t count[1 << SM_RADIX_FIELD_MAX_DIGIT];
	uint64_t *src = key, *dst = tmp, *swap;
	const int passes = (bits + max_digit - 1) / max_digit;
	const int width = passes ? (bits + passes - 1) / passes : 0;

	for (int p = 0; p < passes; p++) {
		const int shift = lo + p * width;
		const int w = bits - p * width < width ? bits - p * width : width;  /* the last: the rest */
		const uint64_t mask = ((uint64_t)1 << w) - 1;
		int64_t at = 0;

		memset(count, 0, ((size_t)1 << w) * sizeof *count);
		for (int64_t t = 0; t < n; t++)
			count[src[t] >> shift & mask]++;
		for (uint64_t v = 0; v <= mask; v++) {
			int64_t c = count[v];

			count[v] = at;
			at += c;
		}
		for (int64_t t = 0; t < n; t++)
			dst[count[src[t] >> shift & mask]++] = src[t];
		swap = src, src = dst, dst = swap;
	}
	return src != key;
}

#endif
