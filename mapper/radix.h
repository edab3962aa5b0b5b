/* radix.h — sm_radix_sort_u64(): 64-bit keys in ascending order, by
 * least-significant-digit radix a byte at a time.  A header so that the
 * C library (seeding's hits) and the GPU engine's host code (its groups'
 * shape keys) share it. */
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

#endif
