/* base.c — the base code tables of base.h, and reversing codes. */
#include "io/base.h"

#include <string.h>

#define X4 4, 4, 4, 4
#define X16 X4, X4, X4, X4
const uint8_t sm_nt4_table[256] = {
	X16, X16, X16, X16,                                /* 0..63 */
	4, 0, 4, 1, 4, 4, 4, 2, 4, 4, 4, 4, 4, 4, 4, 4,   /* @ABCDEFGHIJKLMNO */
	4, 4, 4, 4, 3, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4,   /* PQRSTUVWXYZ[\]^_ */
	4, 0, 4, 1, 4, 4, 4, 2, 4, 4, 4, 4, 4, 4, 4, 4,   /* `abcdefghijklmno */
	4, 4, 4, 4, 3, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4,   /* pqrstuvwxyz{|}~  */
	X16, X16, X16, X16, X16, X16, X16, X16,           /* 128..255 */
};
const char sm_nt4_char[5] = { 'A', 'C', 'G', 'T', 'N' };

_Static_assert(SM_BASE_N == 4, "SM_NOT_ACGT_BITS and sm_codes_reverse's complement assume codes 0-4");

void sm_codes_of_letters(uint8_t *restrict dst, const char *restrict src, int64_t n)
{
	int64_t i = 0;

	for (; i + 8 <= n; i += 8) {
		uint64_t text, code;

		memcpy(&text, src + i, sizeof text);
		if (sm_codes8(text, &code)) {
			memcpy(dst + i, &code, sizeof code);
			continue;
		}
		for (int64_t j = i; j < i + 8; j++)
			dst[j] = sm_nt4_table[(unsigned char)src[j]];
	}
	for (; i < n; i++)
		dst[i] = sm_nt4_table[(unsigned char)src[i]];
}

void sm_codes_reverse(uint8_t *restrict dst, const uint8_t *restrict src, int64_t n, int complement)
{
	int64_t i = 0;

	/* A byte-swapped word reverses eight codes; codes 0-3 (bit 2 clear)
	 * complement as c ^ 3. */
	for (; i + 8 <= n; i += 8) {
		uint64_t x;

		memcpy(&x, src + n - 8 - i, sizeof x);
		x = __builtin_bswap64(x);
		if (complement)
			x ^= (~x >> 2 & SM_BYTES_OF(1)) * 3;
		memcpy(dst + i, &x, sizeof x);
	}
	for (; i < n; i++) {
		uint8_t c = src[n - 1 - i];

		dst[i] = complement && c < SM_BASE_N ? (uint8_t)(SM_BASE_N - 1 - c) : c;
	}
}
