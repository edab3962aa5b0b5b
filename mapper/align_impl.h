/* align_impl.h — internals shared by align.c and the SIMD band fills of
 * align_sse41.c, align_avx2.c and align_avx512.c.  Not a public header.
 *
 * The band.  Cell (i, k) is read row i (0..n) on diagonal k of the band:
 * window column j = i + dlo + k - 1.  Band cells are k = 1 .. stride - 2
 * with j in 1..w; every other cell that a band cell reads is boundary
 * (H = 0, E = F = minus infinity): row 0, offsets 0 and stride - 1, and
 * columns left of the window.  The left, upper and diagonal neighbours of
 * (i, k) are (i, k - 1), (i - 1, k + 1) and (i - 1, k).
 *
 * Two layouts hold the cells (sm_band_at):
 *   rows       (scalar fill) cell (i, k) at i * stride + k;
 *   wavefront  (SIMD fill) cells of step t = 2i + k, whose dependencies all
 *              lie in steps t - 1 and t - 2, at t * lanes + k / 2; a step
 *              holds the offsets k of one parity (that of t), so the
 *              left and upper neighbours, of the other parity, are one
 *              lane away at most.  lanes = pitch / 2 (pitch >= stride, a
 *              multiple of 16), steps t = 0 .. 2n + pitch - 1. */
#ifndef SM_ALIGN_IMPL_H
#define SM_ALIGN_IMPL_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
	int n;          /* rows: the read's length */
	int64_t w;      /* window columns */
	int64_t dlo;    /* the band's first diagonal (column - row) */
	size_t stride;  /* band cells of a row plus its two boundary offsets */
	size_t lanes;   /* wavefront layout: cells per step (0: rows) */
} sm_band_t;

/* Cell (i, k) in band b's layout. */
static inline size_t sm_band_at(const sm_band_t *b, int64_t i, int64_t k)
{
	if (!b->lanes)
		return (size_t)i * b->stride + (size_t)k;
	return (size_t)(2 * i + k) * b->lanes + (size_t)(k >> 1);
}

/* 16-bit cells per SSE vector; the wavefront's lanes are a multiple. */
#define SM_ALIGN_VEC_CELLS 8
/* 16-bit cells per AVX2 vector: bands wider than one SSE vector's two
 * offsets per lane take lanes of this multiple and the AVX2 fill. */
#define SM_ALIGN_AVX2_CELLS 16
/* 16-bit cells per AVX-512 vector: the bands wide enough to fill them
 * (align.c's wave_vec) take lanes of this multiple and the AVX-512 fill. */
#define SM_ALIGN_AVX512_CELLS 32
/* Widest wavefront step, in SSE vectors (bands up to 16 * this diagonals:
 * the wide ones of mate rescue and pair reseeding included); it bounds the
 * vectors of the wider fills too. */
#define SM_ALIGN_MAX_VECS 32
/* Steps of up to this many vectors are compiled each for its width (kept
 * in registers); wider ones share one loop over a run-time width. */
#define SM_ALIGN_UNROLLED_VECS 8
/* Boundary value of the 16-bit matrices. */
#define SM_ALIGN_NEG16 INT16_MIN

/* Fills H, E, F (16-bit cells, (2n + 2 * lanes) * lanes each, 16-byte
 * aligned) of band b in the wavefront layout with SSE4.1.
 * qpad[x + lanes] = the code of read base n - 1 - x for x = 1 - lanes ..
 * n + lanes - 1 (reversed; any code outside the read);
 * rpad[y - dlo + 2] = the code of window column y + 1 for y = dlo - 2 ..
 * n + 2 * lanes + dlo - 3 (any code outside the window); sub[0..3] = the
 * match score, minus the mismatch penalty, the score against an N, and
 * the 5' bonus that row 1 adds against a reference A/C/G/T (score.h);
 * has_n: 0 if neither the read nor the window has an N (the pads may);
 * go = gap open + extension, ge = extension.  Limits, checked by the caller:
 * lanes <= 8 * SM_ALIGN_MAX_VECS, n * match + clip5 below 32,767 less the largest
 * substitution, n + 2 * lanes + |dlo| below 16,384.
 * Every band cell equals the scalar fill's (E and F of a band cell are at
 * least -go, so nothing saturates); boundary E and F are SM_ALIGN_NEG16.
 * Cells right of the window or below row n hold values nothing reads. */
void sm_align_fill_wave_sse41(const sm_band_t *b, const uint8_t *qpad, const uint8_t *rpad,
			      const int16_t sub[4], int has_n, int go, int ge,
			      int16_t *H, int16_t *E, int16_t *F);

/* The same fill on AVX2 vectors (b->lanes a multiple of SM_ALIGN_AVX2_CELLS). */
void sm_align_fill_wave_avx2(const sm_band_t *b, const uint8_t *qpad, const uint8_t *rpad,
			     const int16_t sub[4], int has_n, int go, int ge,
			     int16_t *H, int16_t *E, int16_t *F);

/* The same fill on AVX-512BW vectors (b->lanes a multiple of SM_ALIGN_AVX512_CELLS). */
void sm_align_fill_wave_avx512(const sm_band_t *b, const uint8_t *qpad, const uint8_t *rpad,
			       const int16_t sub[4], int has_n, int go, int ge,
			       int16_t *H, int16_t *E, int16_t *F);

#endif
