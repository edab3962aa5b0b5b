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

/* dst[0..n) = src[n - 1], ..., src[0] (dst and src apart), each base
 * complemented (code c < SM_BASE_N to 3 - c; an N stays) when complement
 * is set, which takes codes 0..SM_BASE_N only.  Eight codes at a time. */
void sm_codes_reverse(uint8_t *dst, const uint8_t *src, int64_t n, int complement);

#ifdef __cplusplus
}
#endif
#endif
