/* align_wave.h — the traceback's band fill (align_impl.h) in the wavefront
 * layout, written once for any vector width.  Included by one file per
 * instruction set (align_sse41.c: 8 cells per vector; align_avx2.c: 16;
 * align_avx512.c: 32), which first defines
 *   W, WC          the vector type and its 16-bit cells per vector;
 *   SM_FILL_NAME   the entry point this file defines;
 *   w_zero w_set1 w_lanes w_add w_sub w_adds w_subs w_max w_and w_cmpgt
 *   w_blend w_store          16-bit lane-wise operations (w_lanes: 0..WC-1;
 *                            w_blend(a, b, m): b where m is set, else a);
 *   w_up_one(a, prev)        lane l is a's lane l - 1, lane 0 prev's last;
 *   w_down_one(a, next)      lane l is a's lane l + 1, the last next's first;
 *   B              the vector type of WC bytes (codes, 8-bit scores);
 *   b_load(p)                the WC codes at p, one per byte;
 *   b_set1 b_eq b_gt b_maxu b_blend   8-bit lane-wise operations (b_gt
 *                            signed, b_maxu unsigned; b_blend as w_blend);
 *   w_widen(s8)              the WC bytes of s8, each widened to 16 bits.
 *
 * Step t holds the cells (i, k) with 2i + k = t and k of t's parity:
 * vector v, lane l is m = WC v + l, offset k = 2m + p (p = t & 1), row
 * i = t/2 - m.  Each cell needs
 *   the diagonal  (i - 1, k)      step t - 2, same lane;
 *   the left      (i, k - 1)      step t - 1, lane m - 1 if p = 0, else m;
 *   the upper     (i - 1, k + 1)  step t - 1, lane m if p = 0, else m + 1;
 * so a step is the textbook recurrence with at most a one-lane shift, and
 * the lanes of a step are independent.  Along a step the read runs
 * backwards and the reference forwards, hence the reversed read.  A lane
 * that is not a band cell (row 0, offsets 0 and stride - 1 and beyond,
 * columns left of the window) is set to the boundary before anything reads
 * it; lanes right of the window or below row n are left as computed: only
 * cells like them depend on them. */
#ifndef SM_ALIGN_WAVE_H
#define SM_ALIGN_WAVE_H

#include "mapper/align_impl.h"
#include "mapper/score.h"

/* Vectors of the widest step: SM_ALIGN_MAX_VECS SSE vectors' lanes.  The
 * step arrays are sized by it, not by SM_ALIGN_MAX_VECS, so that the wide
 * vectors' arrays stay small enough for gcc to keep them in registers. */
#define MAX_V (SM_ALIGN_MAX_VECS * SM_ALIGN_VEC_CELLS / WC)

/* `#pragma GCC unroll n` with n a macro (the pragma does not expand it). */
#define SM_PRAGMA(x) _Pragma(#x)
#define SM_UNROLL(n) SM_PRAGMA(GCC unroll n)

/* The 8-bit scores a substitution chooses from, one per byte. */
typedef struct {
	B match, mismatch, amb, three;   /* three: codes above it are N */
	B base_n;                        /* SM_BASE_N: codes below it are A/C/G/T */
} subst8_t;

/* Constants of one fill. */
typedef struct {
	W zero, neg, go, ge;
	W two, clip5;                     /* 2; the 5' bonus (score.h) */
	subst8_t sub;
	W m[MAX_V];                       /* lane numbers WC v + l */
	W kin[2][MAX_V];                  /* offset k of parity p inside 1..stride-2 */
} consts_t;

/* The 16-bit substitution scores of the WC read and reference codes at q
 * and r (sm_subst(): equal codes 0-3 match, an N scores c->amb). */
SM_INLINE W w_subst(const uint8_t *q, const uint8_t *r, const subst8_t *c, int has_n)
{
	B q8 = b_load(q), r8 = b_load(r);
	B s8 = b_blend(c->mismatch, c->match, b_eq(q8, r8));

	if (has_n)
		s8 = b_blend(s8, c->amb, b_gt(b_maxu(q8, r8), c->three));
	return w_widen(s8);
}

/* Step t (parity p) from steps t - 1 (h1, e1, f1) and t - 2 (h2) into
 * h, e, f, and its store at H, E, F + t * lanes.  p, nv and the flags are
 * constants after inlining:
 *   edge   some lane may be row 0 or left of the window (the first steps):
 *          test each lane's row and column, not only its offset;
 *   has_n  the read or the window has an N (scored SM_SCORE_AMBIG). */
SM_INLINE void step(const sm_band_t *b, const consts_t *c, const uint8_t *qpad,
		    const uint8_t *rpad, int64_t t, const int p, const int nv, const int edge,
		    const int has_n, const W *h1, const W *e1, const W *f1,
		    const W *h2, W *h, W *e, W *f, int16_t *H, int16_t *E, int16_t *F)
{
	const int64_t half = t >> 1;
	const size_t lanes = (size_t)nv * WC;
	const uint8_t *qp = qpad + lanes + b->n - half, *rp = rpad + half + p;
	const size_t at = (size_t)t * lanes;
	W vi = c->zero, vj = c->zero;

	if (edge) {
		vi = w_set1((int16_t)half);
		vj = w_set1((int16_t)(half + p + b->dlo - 1));
	}
	/* Unrolled, so that the step arrays stay in registers (gcc does not
	 * unroll a body this long by itself: the arrays then live on the
	 * stack, and a fill takes up to twice as long). */
	SM_UNROLL(SM_ALIGN_UNROLLED_VECS)
	for (int v = 0; v < nv; v++) {
		W eh, ee, fh, ff, in, hv;

		if (p == 0) {   /* left: lane m - 1; upper: lane m */
			eh = w_up_one(h1[v], v ? h1[v - 1] : c->zero);
			ee = w_up_one(e1[v], v ? e1[v - 1] : c->neg);
			fh = h1[v];
			ff = f1[v];
		} else {        /* left: lane m; upper: lane m + 1 */
			eh = h1[v];
			ee = e1[v];
			fh = w_down_one(h1[v], v + 1 < nv ? h1[v + 1] : c->zero);
			ff = w_down_one(f1[v], v + 1 < nv ? f1[v + 1] : c->neg);
		}
		e[v] = w_max(w_subs(ee, c->ge), w_subs(eh, c->go));
		f[v] = w_max(w_subs(ff, c->ge), w_subs(fh, c->go));
		W sv = w_subst(qp + WC * v, rp + WC * v, &c->sub, has_n);
		if (edge) {
			/* Row 1 (i - m = 1) against a reference base A/C/G/T gains
			 * the 5' bonus; row 1 lies in the edge steps only. */
			W r = w_sub(vi, c->m[v]);
			B base8 = b_gt(c->sub.base_n, b_load(rp + WC * v));
			W one = w_and(w_cmpgt(r, c->zero), w_cmpgt(c->two, r));
			sv = w_add(sv, w_and(w_and(one, w_widen(base8)), c->clip5));
		}
		hv = w_adds(h2[v], sv);
		hv = w_max(hv, w_max(e[v], f[v]));
		hv = w_max(hv, c->zero);
		in = c->kin[p][v];
		if (edge)
			in = w_and(in, w_and(w_cmpgt(w_sub(vi, c->m[v]), c->zero),
					     w_cmpgt(w_add(vj, c->m[v]), c->zero)));
		h[v] = w_and(hv, in);
		e[v] = w_blend(c->neg, e[v], in);
		f[v] = w_blend(c->neg, f[v], in);
		w_store(H + at + WC * v, h[v]);
		w_store(E + at + WC * v, e[v]);
		w_store(F + at + WC * v, f[v]);
	}
}

/* Steps t0 .. t1 - 1 (t0 even, t1 even), two at a time (one of each
 * parity), carrying steps t - 2 and t - 1 in h2, h1, e1, f1. */
SM_INLINE void steps(const sm_band_t *b, const consts_t *c, const uint8_t *qpad,
		     const uint8_t *rpad, int64_t t0, int64_t t1, const int nv, const int edge,
		     const int has_n, W *h2, W *h1, W *e1, W *f1,
		     int16_t *H, int16_t *E, int16_t *F)
{
	for (int64_t t = t0; t < t1; t += 2) {
		W h[MAX_V], e[MAX_V], f[MAX_V];

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
	W h2[MAX_V], h1[MAX_V];
	W e1[MAX_V], f1[MAX_V];

	if (inner < 4 - 2 * b->dlo)
		inner = 4 - 2 * b->dlo;
	/* Row 1's last lane (m = lanes - 1) is in step 2 lanes + 1. */
	if (inner < 2 * (int64_t)b->lanes + 2)
		inner = 2 * (int64_t)b->lanes + 2;
	inner = inner < n_steps ? inner : n_steps;   /* both bounds are even */
	for (int v = 0; v < nv; v++) {   /* steps -2 and -1: boundary */
		h2[v] = h1[v] = c->zero;
		e1[v] = f1[v] = c->neg;
	}
	steps(b, c, qpad, rpad, 0, inner, nv, 1, has_n, h2, h1, e1, f1, H, E, F);
	steps(b, c, qpad, rpad, inner, n_steps, nv, 0, has_n, h2, h1, e1, f1, H, E, F);
}

void SM_FILL_NAME(const sm_band_t *b, const uint8_t *qpad, const uint8_t *rpad,
		  const int16_t sub[4], int has_n, int go, int ge,
		  int16_t *H, int16_t *E, int16_t *F)
{
	const int nv = (int)(b->lanes / WC);
	consts_t c;

	c.zero = w_zero();
	c.neg = w_set1(SM_ALIGN_NEG16);
	c.go = w_set1((int16_t)go);
	c.ge = w_set1((int16_t)ge);
	c.two = w_set1(2);
	c.clip5 = w_set1(sub[3]);
	c.sub.match = b_set1((int8_t)sub[0]);
	c.sub.mismatch = b_set1((int8_t)sub[1]);
	c.sub.amb = b_set1((int8_t)sub[2]);
	c.sub.three = b_set1(3);
	c.sub.base_n = b_set1(SM_BASE_N);
	for (int v = 0; v < nv; v++) {
		c.m[v] = w_add(w_lanes(), w_set1((int16_t)(WC * v)));
		for (int p = 0; p < 2; p++) {
			W k = w_add(w_add(c.m[v], c.m[v]), w_set1((int16_t)p));

			c.kin[p][v] = w_and(w_cmpgt(k, c.zero),
					    w_cmpgt(w_set1((int16_t)(b->stride - 1)), k));
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

#endif
