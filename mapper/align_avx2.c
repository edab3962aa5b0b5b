/* align_avx2.c — the traceback's band fill of align_sse41.c on 256-bit
 * AVX2 vectors: 16 cells of 16 bits per vector (so the band's lanes are a
 * multiple of 16), the same steps and the same values.  The one-lane
 * shifts cross the vector's two 128-bit halves, hence a permute before
 * each alignr.  Compiled for AVX2 whatever the global flags; called only
 * when the CPU has it.
 *
 * Step t holds the cells (i, k) with 2i + k = t and k of t's parity:
 * vector v, lane l is m = 8v + l, offset k = 2m + p (p = t & 1), row
 * i = t/2 - m.  Each cell needs
 *   the diagonal  (i - 1, k)      step t - 2, same lane;
 *   the left      (i, k - 1)      step t - 1, lane m - 1 if p = 0, else m;
 *   the upper     (i - 1, k + 1)  step t - 1, lane m if p = 0, else m + 1;
 * so a step is the textbook recurrence with at most a one-lane shift
 * (alignr, one cycle), and the lanes of a step are independent.  Along a
 * step the read runs backwards and the reference forwards, hence the
 * reversed read.  A lane that is not a band cell (row 0, offsets 0 and
 * stride - 1 and beyond, columns left of the window) is set to the boundary
 * before anything reads it; lanes right of the window or below row n are
 * left as computed: only cells like them depend on them. */
#pragma GCC target("avx2")
#include <immintrin.h>

#include "mapper/align_impl.h"

#define SM_INLINE static inline __attribute__((always_inline))

/* Constants of one fill. */
typedef struct {
	__m256i zero, neg, go, ge;
	__m128i match, mismatch, amb, three;   /* 8-bit, one per byte of 16 cells */
	__m256i m[SM_ALIGN_MAX_VECS];           /* lane numbers 8v + l */
	__m256i kin[2][SM_ALIGN_MAX_VECS];      /* offset k of parity p inside 1..stride-2 */
} consts_t;

/* Lane l of the result is lane l - 1 of a, lane 0 the last of prev. */
SM_INLINE __m256i up_one(__m256i a, __m256i prev)
{
	return _mm256_alignr_epi8(a, _mm256_permute2x128_si256(a, prev, 0x03), 14);
}

/* Lane l of the result is lane l + 1 of a, the last lane the first of next. */
SM_INLINE __m256i down_one(__m256i a, __m256i next)
{
	return _mm256_alignr_epi8(_mm256_permute2x128_si256(a, next, 0x21), a, 2);
}

/* Step t (parity p) from steps t - 1 (h1, e1, f1) and t - 2 (h2) into
 * h, e, f, and its store at H, E, F + t * lanes.  p, nv and the flags are
 * constants after inlining:
 *   edge   some lane may be row 0 or left of the window (the first steps):
 *          test each lane's row and column, not only its offset;
 *   has_n  the read or the window has an N (scored SM_SCORE_AMBIG). */
SM_INLINE void step(const sm_band_t *b, const consts_t *c, const uint8_t *qpad,
		    const uint8_t *rpad, int64_t t, const int p, const int nv, const int edge,
		    const int has_n, const __m256i *h1, const __m256i *e1, const __m256i *f1,
		    const __m256i *h2, __m256i *h, __m256i *e, __m256i *f,
		    int16_t *H, int16_t *E, int16_t *F)
{
	const int64_t half = t >> 1;
	const size_t lanes = (size_t)nv * SM_ALIGN_AVX2_CELLS;
	const uint8_t *qp = qpad + lanes + b->n - half, *rp = rpad + half + p;
	const size_t at = (size_t)t * lanes;
	__m256i vi = c->zero, vj = c->zero;

	if (edge) {
		vi = _mm256_set1_epi16((int16_t)half);
		vj = _mm256_set1_epi16((int16_t)(half + p + b->dlo - 1));
	}
	for (int v = 0; v < nv; v++) {
		__m256i eh, ee, fh, ff, s, in, hv;
		__m128i q8, r8, s8;

		if (p == 0) {   /* left: lane m - 1; upper: lane m */
			eh = up_one(h1[v], v ? h1[v - 1] : c->zero);
			ee = up_one(e1[v], v ? e1[v - 1] : c->neg);
			fh = h1[v];
			ff = f1[v];
		} else {        /* left: lane m; upper: lane m + 1 */
			eh = h1[v];
			ee = e1[v];
			fh = down_one(h1[v], v + 1 < nv ? h1[v + 1] : c->zero);
			ff = down_one(f1[v], v + 1 < nv ? f1[v + 1] : c->neg);
		}
		e[v] = _mm256_max_epi16(_mm256_subs_epi16(ee, c->ge), _mm256_subs_epi16(eh, c->go));
		f[v] = _mm256_max_epi16(_mm256_subs_epi16(ff, c->ge), _mm256_subs_epi16(fh, c->go));
		q8 = _mm_loadu_si128((const __m128i *)(qp + SM_ALIGN_AVX2_CELLS * v));
		r8 = _mm_loadu_si128((const __m128i *)(rp + SM_ALIGN_AVX2_CELLS * v));
		s8 = _mm_blendv_epi8(c->mismatch, c->match, _mm_cmpeq_epi8(q8, r8));
		if (has_n)
			s8 = _mm_blendv_epi8(s8, c->amb, _mm_cmpgt_epi8(_mm_max_epu8(q8, r8), c->three));
		s = _mm256_cvtepi8_epi16(s8);
		hv = _mm256_max_epi16(_mm256_adds_epi16(h2[v], s), _mm256_max_epi16(e[v], f[v]));
		hv = _mm256_max_epi16(hv, c->zero);
		in = c->kin[p][v];
		if (edge)
			in = _mm256_and_si256(in,
				_mm256_and_si256(_mm256_cmpgt_epi16(_mm256_sub_epi16(vi, c->m[v]), c->zero),
					      _mm256_cmpgt_epi16(_mm256_add_epi16(vj, c->m[v]), c->zero)));
		h[v] = _mm256_and_si256(hv, in);
		e[v] = _mm256_blendv_epi8(c->neg, e[v], in);
		f[v] = _mm256_blendv_epi8(c->neg, f[v], in);
		_mm256_storeu_si256((__m256i *)(H + at) + v, h[v]);
		_mm256_storeu_si256((__m256i *)(E + at) + v, e[v]);
		_mm256_storeu_si256((__m256i *)(F + at) + v, f[v]);
	}
}

/* Steps t0 .. t1 - 1 (t0 even, t1 even), two at a time (one of each
 * parity), carrying steps t - 2 and t - 1 in h2, h1, e1, f1. */
SM_INLINE void steps(const sm_band_t *b, const consts_t *c, const uint8_t *qpad,
		     const uint8_t *rpad, int64_t t0, int64_t t1, const int nv, const int edge,
		     const int has_n, __m256i *h2, __m256i *h1, __m256i *e1, __m256i *f1,
		     int16_t *H, int16_t *E, int16_t *F)
{
	for (int64_t t = t0; t < t1; t += 2) {
		__m256i h[SM_ALIGN_MAX_VECS], e[SM_ALIGN_MAX_VECS], f[SM_ALIGN_MAX_VECS];

		step(b, c, qpad, rpad, t, 0, nv, edge, has_n, h1, e1, f1, h2, h, e, f, H, E, F);
		for (int v = 0; v < nv; v++)
			h2[v] = h[v];   /* step t: t + 1's t - 1, t + 2's t - 2 */
		step(b, c, qpad, rpad, t + 1, 1, nv, edge, has_n, h, e, f, h1, h1, e1, f1, H, E, F);
	}
}

/* The whole fill with nv vectors per step (a constant after inlining, so
 * the steps stay in registers).  Lanes are rows >= 1 inside the window from
 * step `inner` on (the even step where both the last lane's row and the
 * first lane's column reach 1). */
SM_INLINE void fill(const sm_band_t *b, const consts_t *c, const uint8_t *qpad,
		    const uint8_t *rpad, const int nv, const int has_n,
		    int16_t *H, int16_t *E, int16_t *F)
{
	const int64_t n_steps = 2 * (int64_t)b->n + 2 * (int64_t)b->lanes;
	int64_t inner = 2 * (int64_t)b->lanes;
	__m256i h2[SM_ALIGN_MAX_VECS], h1[SM_ALIGN_MAX_VECS];
	__m256i e1[SM_ALIGN_MAX_VECS], f1[SM_ALIGN_MAX_VECS];

	if (inner < 4 - 2 * b->dlo)
		inner = 4 - 2 * b->dlo;
	inner = inner < n_steps ? inner : n_steps;   /* both bounds are even */
	for (int v = 0; v < nv; v++) {   /* steps -2 and -1: boundary */
		h2[v] = h1[v] = c->zero;
		e1[v] = f1[v] = c->neg;
	}
	steps(b, c, qpad, rpad, 0, inner, nv, 1, has_n, h2, h1, e1, f1, H, E, F);
	steps(b, c, qpad, rpad, inner, n_steps, nv, 0, has_n, h2, h1, e1, f1, H, E, F);
}

void sm_align_fill_wave_avx2(const sm_band_t *b, const uint8_t *qpad, const uint8_t *rpad,
			      const int16_t sub[3], int has_n, int go, int ge,
			      int16_t *H, int16_t *E, int16_t *F)
{
	const int nv = (int)(b->lanes / SM_ALIGN_AVX2_CELLS);
	consts_t c;

	c.zero = _mm256_setzero_si256();
	c.neg = _mm256_set1_epi16(SM_ALIGN_NEG16);
	c.go = _mm256_set1_epi16((int16_t)go);
	c.ge = _mm256_set1_epi16((int16_t)ge);
	c.match = _mm_set1_epi8((int8_t)sub[0]);
	c.mismatch = _mm_set1_epi8((int8_t)sub[1]);
	c.amb = _mm_set1_epi8((int8_t)sub[2]);
	c.three = _mm_set1_epi8(3);   /* codes above it are N */
	for (int v = 0; v < nv; v++) {
		c.m[v] = _mm256_add_epi16(_mm256_setr_epi16(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
				       _mm256_set1_epi16((int16_t)(SM_ALIGN_AVX2_CELLS * v)));
		for (int p = 0; p < 2; p++) {
			__m256i k = _mm256_add_epi16(_mm256_add_epi16(c.m[v], c.m[v]), _mm256_set1_epi16((int16_t)p));

			c.kin[p][v] = _mm256_and_si256(_mm256_cmpgt_epi16(k, c.zero),
				_mm256_cmpgt_epi16(_mm256_set1_epi16((int16_t)(b->stride - 1)), k));
		}
	}
#define FILL(nv) (has_n ? fill(b, &c, qpad, rpad, (nv), 1, H, E, F) \
			: fill(b, &c, qpad, rpad, (nv), 0, H, E, F))
	switch (nv) {
	case 1: FILL(1); break;
	case 2: FILL(2); break;
	case 3: FILL(3); break;
	case 4: FILL(4); break;
	case 5: FILL(5); break;
	case 6: FILL(6); break;
	case 7: FILL(7); break;
	case SM_ALIGN_UNROLLED_VECS: FILL(SM_ALIGN_UNROLLED_VECS); break;
	default: FILL(nv); break;
	}
#undef FILL
}
