/* base.h — how bases are coded in memory, shared by the readers, every
 * engine and the records.
 *
 * Bases are coded A=0 C=1 G=2 T=3; anything else (N and the other IUPAC
 * codes) is SM_BASE_N = 4.  Lowercase is accepted.  How a coded base scores
 * is mapper/score.h's business. */
#ifndef SM_BASE_H
#define SM_BASE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SM_BASE_N 4

/* The letters a read or reference may hold (IUPAC DNA codes, accepted in
 * either case).  U is not one: samtools would store it as T while the
 * scorer treats it as ambiguous. */
#define SM_IUPAC_LETTERS "ACGTRYSWKMBDHVN"

/* ASCII -> base code (0..4); every byte maps (non-letters to 4: callers
 * validate the alphabet separately). */
extern const uint8_t sm_nt4_table[256];
/* Base code -> uppercase letter "ACGTN". */
extern const char sm_nt4_char[5];

/* Eight bytes at a time (a word, one a byte, little or big end alike):
 * the bytewise value b. */
#define SM_BYTES_OF(b) ((b) * 0x0101010101010101ull)

/* The bits that only codes above 3 (N and beyond) have, in each byte of a
 * word of codes: a word of A/C/G/T codes has none of them. */
#define SM_NOT_ACGT_BITS SM_BYTES_OF(0xFC)

/* The uppercase letters of eight codes 0..3: code c has the letter
 * 'A' + 2c + 2*(c >= 2) + 11*(c == 3) (A C G T = 0x41 0x43 0x47 0x54),
 * worked out bytewise (no byte exceeds 0x54, so none carries). */
static inline uint64_t sm_letters8(uint64_t code)
{
	uint64_t b0 = code & SM_BYTES_OF(1), b1 = (code >> 1) & SM_BYTES_OF(1);

	return SM_BYTES_OF('A') + (code << 1) + (b1 << 1) + (b0 & b1) * 11;
}

/* The codes of eight letters into *code when all are A, C, G or T in
 * either case: returns 1, else 0 (*code undefined).  Bits 1-2 of those
 * letters are 0 1 3 2, so code = x ^ (x >> 1) of them; the letters are
 * the codes' exactly when they were all four (a byte & 0xDF is A, C, G or
 * T only for those letters). */
static inline int sm_codes8(uint64_t text, uint64_t *code)
{
	uint64_t x = (text >> 1) & SM_BYTES_OF(3);

	*code = x ^ ((x >> 1) & SM_BYTES_OF(1));
	return sm_letters8(*code) == (text & SM_BYTES_OF(0xDF));
}

/* dst[0..n) = the codes of letters src[0..n) (sm_nt4_table), eight at a
 * time where they are all A/C/G/T. */
void sm_codes_of_letters(uint8_t *dst, const char *src, int64_t n);

/* dst[0..n) = src[n - 1], ..., src[0] (dst and src apart), each base
 * complemented (code c < SM_BASE_N to 3 - c; an N stays) when complement
 * is set, which takes codes 0..SM_BASE_N only.  Eight codes at a time. */
void sm_codes_reverse(uint8_t *dst, const uint8_t *src, int64_t n, int complement);

#ifdef __cplusplus
}
#endif
#endif
