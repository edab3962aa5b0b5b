/* cpu_scan_simd.h — the one source of the SIMD kernels.  Not a public
 * header: cpu_scan_sse41.c, cpu_scan_avx2.c and cpu_scan_avx512.c each
 * define, under their own `#pragma GCC target`, the vector type V, its byte
 * width SM_VB, the primitives listed below, SM_DIAG_GROUP and
 * SM_KERNEL_NAME, then include this file once.  Every function here takes
 * the cell width w (8, 16 or 32) as a parameter and is always inlined with a
 * constant w, so each ISA gets three specialised row kernels (and three
 * anti-diagonal kernels for short contigs, at the end) from one text.
 *
 * Lane encoding.  At 8 and 16 bits a lane holds value - 2^(w-1) in signed
 * saturating arithmetic (adds/subs/max_epi8, _epi16): the lowest lane value
 * stands for score 0 and the highest for 2^w - 1, so the saturation at the
 * bottom is exactly the floor at 0 of local alignment, the substitution score
 * (signed) is added in one instruction whatever its sign, and the full
 * unsigned range stays usable.  At 32 bits lanes hold the plain value and
 * "saturating" subtraction is a subtraction followed by max with 0.
 *
 * Primitives (w = lane width in bits; subtrahends are plain numbers):
 *   v_load, v_store (aligned), v_set1(x, w), v_adds, v_subs, v_max,
 *   v_funnel(cur, prev, nb)  bytes [top nb bytes of prev, low bytes of cur]
 *                            (cur shifted up by nb bytes, prev filling in),
 *   v_all_eq(a, b)           1 if the vectors are bitwise equal,
 *   v_keep_zero(x, h, z, w)  x, except z in the lanes where h equals z,
 *   v_ge_mask(a, t, w)       one bit per byte, set for lanes with a >= t,
 *   v_hmax(a, w)             largest lane,
 *   v_widen(x, w, lo, hi)    the values of x's lanes in 2w-bit lanes,
 *   v_narrow(lo, hi, w)      the inverse (values must fit),
 *   v_loadp(p, w)            L/R signed profile bytes at p sign-extended,
 *   v_lut(t16), v_shuffle(lut, idx)   byte table look-up (pshufb),
 *   v_loadu, v_storeu        unaligned, v_xor (bitwise), v_rev8 (bytes reversed),
 *   v_sext(x, w)             the low L/R bytes of x sign-extended to w bits.
 *
 * The row recurrence (rows follow the read, columns the reference; layout in
 * cpu_scan_impl.h).  For read row i, with H of row i-1 and F of row i in
 * memory, every lane walks its segment left to right:
 *   step 1  H(j) = max(H(i-1,j-1) + S(j), F(j), E(j))   (floor 0; Eq. 5 and 8)
 *           x = H(j) - O - E, shared by
 *           E(j+1) = max(E(j) - E, x)        the horizontal gap, in a register
 *           F'(j)  = max(F(j) - E, x)        the vertical gap of row i+1
 *   step 2  the segments' outgoing E values are max-scanned across the lanes,
 *           x (+) y = max(x - W*E, y) (Eq. 6-7 at segment granularity, the
 *           localised scan of Fig. 4 with one segment per lane), the
 *           previous tile's value folded into segment 0 first, in log-step
 *           lane shifts;
 *   step 3  each segment's incoming E (its carry) is applied to its first
 *           columns, H = max(H, carry), decaying by E per column, lazily
 *           until it can no longer change anything.
 * Most of it is skipped (row_run): E is lazy, block by block, because it is
 * 0 wherever no H to its left exceeds O + E; F is skipped where a bound says
 * it is 0; the column maxima where H stays below the top list's floor.
 * The carry reaches at most the reach p = sm_reach() columns: beyond that it
 * has decayed to 0 (Eq. 11), which the saturating lanes do by themselves.
 * All values are >= 0, so saturation at the bottom is exact; overflow at
 * the top is prevented per row by the width choice (Eq. 9-10). */

#include <string.h>

#include "mapper/cpu_scan_impl.h"

#define SM_INLINE static inline __attribute__((always_inline))
/* Segments per tile: the 8-bit lanes of one vector. */
#define SM_SEGS SM_VB
/* At most 32/8 vectors per step. */
#define SM_MAX_R 4
/* Steps per block, the unit of the lazy horizontal gap (row_run). */
#define SM_BLOCK 32
/* Blocks per row of a tile, at most. */
#define SM_MAX_BLOCKS ((SM_CPU_TILE_COLS / SM_SEGS + SM_BLOCK - 1) / SM_BLOCK)

SM_INLINE uint32_t lane_max(int w)
{
	return w == 8 ? UINT8_MAX : w == 16 ? UINT16_MAX : (uint32_t)INT32_MAX;
}

/* What a lane stores is value ^ lane_flip(w) (value - 2^(w-1) for values in
 * 0 .. 2^w - 1). */
SM_INLINE uint32_t lane_flip(int w)
{
	return w == 8 ? 0x80u : w == 16 ? 0x8000u : 0;
}

/* Largest subtrahend of one saturating subtraction. */
SM_INLINE uint32_t lane_max_sub(int w)
{
	return w == 8 ? INT8_MAX : w == 16 ? INT16_MAX : (uint32_t)INT32_MAX;
}

/* A vector of score value x (0 <= x <= lane_max(w)) in every lane. */
SM_INLINE V v_val(uint32_t x, int w)
{
	return v_set1(x ^ lane_flip(w), w);
}

/* max(x - d, 0) for any d >= 0, also past one subtraction's reach. */
SM_INLINE V v_subs_any(V x, int64_t d, int w)
{
	if (d >= (int64_t)lane_max(w))
		return v_val(0, w);
	if (d > (int64_t)lane_max_sub(w))
		return v_subs(v_subs(x, v_set1(lane_max_sub(w), w), w),
			      v_set1((uint32_t)(d - lane_max_sub(w)), w), w);
	return v_subs(x, v_set1((uint32_t)d, w), w);
}

/* Score value of element idx of an array of w-bit lanes. */
SM_INLINE uint32_t lane_at(const uint8_t *base, size_t idx, int w)
{
	if (w == 8)
		return base[idx] ^ lane_flip(w);
	if (w == 16)
		return ((const uint16_t *)(const void *)base)[idx] ^ lane_flip(w);
	return ((const uint32_t *)(const void *)base)[idx];
}

/* Shifts the virtual vector of SM_SEGS lanes held in in[0..R-1] up by s lanes
 * (lane g of out = lane g-s of in), score 0 filling in, except that for s <
 * the lanes of one vector the top lanes of inj fill in (used with s = 1 to
 * bring in the value of the column before the tile). */
SM_INLINE void vshift_up(V *out, const V *in, V inj, int s, int w)
{
	const int R = w / 8, lanes = SM_SEGS / R;
	const int q = s / lanes, rr = s % lanes;
	const V fill = v_val(0, w);

	for (int k = 0; k < R; k++) {
		int src = k - q;
		V cur = src >= 0 ? in[src] : fill;
		if (rr == 0) {
			out[k] = cur;
			continue;
		}
		V prev = src - 1 >= 0 ? in[src - 1] : (q == 0 ? inj : fill);
		out[k] = v_funnel(cur, prev, rr * (w / 8));
	}
}

typedef struct {
	int W;                  /* steps per segment */
	uint8_t *hp, *f, *cm;   /* this width's buffers (f: F of the next row) */
	const uint8_t *p8;      /* profile row of this read base (8-bit) */
	uint32_t hin;           /* H(i-1, column before the tile) */
	uint32_t ein;           /* E(i, tile's first column) from the left */
	uint32_t hout, eout;    /* H(i, last column), E(i, next tile's first) */
	uint32_t cm_floor;      /* the column maxima need only H >= this */
	uint32_t *fmax;         /* [block] a bound on F(i, j) in the block, then on F(i+1, j) */
	uint8_t *hot;           /* [block] some H(i-1, j) > O + E in the block, then H(i, j) */
} row_args_t;

typedef struct {
	V e, o, oe;             /* E, O and O + E as subtrahends */
} row_consts_t;

SM_INLINE row_consts_t row_consts(const sm_cpu_score_t *sc, const int w)
{
	const row_consts_t k = {
		.e = v_set1((uint32_t)sc->gap_ext, w),
		.o = v_set1((uint32_t)sc->gap_open, w),
		.oe = v_set1((uint32_t)(sc->gap_open + sc->gap_ext), w),
	};
	return k;
}

/* H(i-1, j-1) of each segment's first column: the last column of the
 * segment below, the tile's left neighbour for segment 0. */
SM_INLINE void first_diag(const row_args_t *a, V *diag, const int w)
{
	const int R = w / 8;
	const V *hp = (const V *)(const void *)a->hp;

	vshift_up(diag, hp + (size_t)(a->W - 1) * R, v_val(a->hin, w), 1, w);
}

/* Vector r of step v of row i, the whole cell.  In: diag = H(i-1, j-1),
 * *e = E(i, j) and F(i, j) in memory.  Computes H(i, j) = max(H(i-1,j-1) + S,
 * E, F) (floor 0 by saturation), x = H - O - E, shared by E(i, j+1) =
 * max(E - E, x) (left in *e) and F(i+1, j) = max(F - E, x) (stored); updates
 * H, the column maxima and *acc.  Returns H(i-1, j), the next step's
 * diagonal. */
SM_INLINE V full_cell(const row_args_t *a, const row_consts_t *k, int v, int r, V diag,
		      V *e, V *acc, const int w)
{
	const int R = w / 8, lanes = SM_SEGS / R;
	size_t idx = (size_t)v * R + r;
	V *hp = (V *)(void *)a->hp, *f = (V *)(void *)a->f, *cm = (V *)(void *)a->cm;
	V up = v_load(hp + idx);
	V fv = v_load(f + idx);
	V p = v_loadp(a->p8 + (size_t)v * SM_SEGS + (size_t)r * lanes, w);
	V h = v_max(v_max(v_adds(diag, p, w), fv, w), *e, w);
	V x = v_subs(h, k->oe, w);
	*e = v_max(v_subs(*e, k->e, w), x, w);
	v_store(f + idx, v_max(v_subs(fv, k->e, w), x, w));
	v_store(hp + idx, h);
	v_store(cm + idx, v_max(v_load(cm + idx), h, w));
	*acc = v_max(*acc, h, w);
	return up;
}

/* full_cell over steps v0 .. v1-1. */
SM_INLINE void full_steps(const row_args_t *a, const row_consts_t *k, int v0, int v1,
			  V *diag, V *e, V *acc, const int w)
{
	const int R = w / 8;
	int v = v0;

	for (; v + 2 <= v1; v += 2)
		for (int r = 0; r < R; r++) {
			V up = full_cell(a, k, v, r, diag[r], &e[r], &acc[r], w);
			diag[r] = full_cell(a, k, v + 1, r, up, &e[r], &acc[r], w);
		}
	if (v < v1)
		for (int r = 0; r < R; r++)
			diag[r] = full_cell(a, k, v, r, diag[r], &e[r], &acc[r], w);
}

/* Vector r of step v of row i without the horizontal gap: H~(i, j) =
 * max(H(i-1,j-1) + S, F) (with_f) or H(i-1,j-1) + S (F known to be 0 in the
 * block), stored in place of H; with_f also stores F~(i+1, j) =
 * max(F - E, H~ - O - E).  Updates *acc, the block's maxima of H~, not the
 * column maxima.  Returns H(i-1, j), the next step's diagonal. */
SM_INLINE V lazy_cell(const row_args_t *a, const row_consts_t *k, int v, int r, V diag,
		      V *acc, const int w, const int with_f)
{
	const int R = w / 8, lanes = SM_SEGS / R;
	size_t idx = (size_t)v * R + r;
	V *hp = (V *)(void *)a->hp, *f = (V *)(void *)a->f;
	V up = v_load(hp + idx);
	V p = v_loadp(a->p8 + (size_t)v * SM_SEGS + (size_t)r * lanes, w);
	V h = v_adds(diag, p, w);
	if (with_f) {
		V fv = v_load(f + idx);
		h = v_max(h, fv, w);
		v_store(f + idx, v_max(v_subs(fv, k->e, w), v_subs(h, k->oe, w), w));
	} else if (w == 32) {
		h = v_max(h, v_val(0, w), w);   /* 32-bit adds do not saturate */
	}
	v_store(hp + idx, h);
	*acc = v_max(*acc, h, w);
	return up;
}

/* lazy_cell over steps v0 .. v1-1; two steps per iteration so that the
 * compiler alternates registers. */
SM_INLINE void lazy_steps(const row_args_t *a, const row_consts_t *k, int v0, int v1,
			  V *diag, V *acc, const int w, const int with_f)
{
	const int R = w / 8;
	int v = v0;

	for (; v + 4 <= v1; v += 4)
		for (int r = 0; r < R; r++) {
			V up = lazy_cell(a, k, v, r, diag[r], &acc[r], w, with_f);
			up = lazy_cell(a, k, v + 1, r, up, &acc[r], w, with_f);
			up = lazy_cell(a, k, v + 2, r, up, &acc[r], w, with_f);
			diag[r] = lazy_cell(a, k, v + 3, r, up, &acc[r], w, with_f);
		}
	for (; v + 2 <= v1; v += 2)
		for (int r = 0; r < R; r++) {
			V up = lazy_cell(a, k, v, r, diag[r], &acc[r], w, with_f);
			diag[r] = lazy_cell(a, k, v + 1, r, up, &acc[r], w, with_f);
		}
	if (v < v1)
		for (int r = 0; r < R; r++)
			diag[r] = lazy_cell(a, k, v, r, diag[r], &acc[r], w, with_f);
}

/* Vector r of step v: completes a cell that lazy_cell left.  H = max(H~, E),
 * x = H - O - E, E(i, j+1) = max(E - E, x), F(i+1, j) = max(F~(i+1, j), x)
 * (equal to max(F - E, x), since F~ = max(F - E, H~ - O - E) and H >= H~);
 * updates H, F, the column maxima and *acc. */
SM_INLINE void fix_cell(const row_args_t *a, const row_consts_t *k, int v, int r, V *e,
			V *acc, const int w)
{
	size_t idx = (size_t)v * (w / 8) + r;
	V *hp = (V *)(void *)a->hp, *f = (V *)(void *)a->f, *cm = (V *)(void *)a->cm;
	V h = v_max(v_load(hp + idx), *e, w);
	V x = v_subs(h, k->oe, w);
	*e = v_max(v_subs(*e, k->e, w), x, w);
	v_store(f + idx, v_max(v_load(f + idx), x, w));
	v_store(hp + idx, h);
	v_store(cm + idx, v_max(v_load(cm + idx), h, w));
	*acc = v_max(*acc, h, w);
}

/* Steps 2 and 3 of a row whose cells are done inside the segments: e holds
 * what each segment passes on to the next one's first column from its own
 * cells.  Carries E across the segments, raises H, the column maxima and
 * rmax with it, and sets a->eout and a->hout. */
SM_INLINE void row_across(row_args_t *a, const row_consts_t *k, const sm_cpu_score_t *sc,
			  V *e, V *rmax, const int w)
{
	const int R = w / 8, lanes = SM_SEGS / R, W = a->W;
	V *hp = (V *)(void *)a->hp, *cm = (V *)(void *)a->cm;
	V c[SM_MAX_R], tmp[SM_MAX_R];

	/* The max-scan x (+) y = max(x - W*E, y) over the segments, with
	 * log-step lane shifts, adds what comes from further left: after it
	 * e[l] is the complete E at the first column right of segment l.  The
	 * E entering the tile is folded into segment 0 first, so that every
	 * step of the scan carries it on (injected only at the distance-1 step,
	 * it would miss lanes 1, 3, 7, ...: those a gap reaches after crossing
	 * 2, 4, 8, ... whole segments). */
	const int64_t seg_decay = (int64_t)W * sc->gap_ext;
	if (a->ein > 0) {
		for (int r = 0; r < R; r++)
			tmp[r] = v_val(0, w);
		vshift_up(c, tmp, v_subs_any(v_val(a->ein, w), seg_decay, w), 1, w);
		for (int r = 0; r < R; r++)
			e[r] = v_max(e[r], c[r], w);
	}
	for (int s = 1; s < SM_SEGS; s *= 2) {
		vshift_up(tmp, e, v_val(0, w), s, w);
		for (int r = 0; r < R; r++)
			e[r] = v_max(e[r], v_subs_any(tmp[r], seg_decay * s, w), w);
	}
	{
		uint8_t last[SM_VB] __attribute__((aligned(SM_CPU_ALIGN)));
		v_store((V *)(void *)last, e[R - 1]);
		a->eout = lane_at(last, (size_t)lanes - 1, w);
	}
	/* Each segment's carry: the complete E at its first column. */
	vshift_up(c, e, v_val(a->ein, w), 1, w);
	/* Apply the carries, decaying by E per column: H = max(H, carry).  A
	 * raised H cannot raise E further on (H - O - E is below the carry's own
	 * next value), nor need it raise F(i+1): a vertical gap opened right
	 * after a horizontal one scores the same as the vertical gap opened
	 * where the horizontal one was, followed by the horizontal gap along the
	 * lower row, which that row's own carry brings in.  Stop at the first
	 * column where, in every lane, carry <= max(H - O, 0): then either it is
	 * 0, or the segment's own E at the next column, >= H - O - E, is >= the
	 * decayed carry, and stays so: the carry changes nothing any more. */
	for (int v = 0; v < W; v++) {
		V h[SM_MAX_R];
		int dead = 1;
		for (int r = 0; r < R; r++) {
			if (v > 0)
				c[r] = v_subs(c[r], k->e, w);
			h[r] = v_load(hp + (size_t)v * R + r);
			V m = v_subs(h[r], k->o, w);
			dead &= v_all_eq(v_max(c[r], m, w), m);
		}
		if (dead)
			break;
		for (int r = 0; r < R; r++) {
			size_t idx = (size_t)v * R + r;
			h[r] = v_max(h[r], c[r], w);
			v_store(hp + idx, h[r]);
			v_store(cm + idx, v_max(v_load(cm + idx), h[r], w));
			rmax[r] = v_max(rmax[r], h[r], w);
		}
	}
	a->hout = lane_at(a->hp, (size_t)W * SM_SEGS - 1, w);
}

/* Folds H of steps v0 .. v1-1 into the column maxima. */
SM_INLINE void colmax_steps(const row_args_t *a, int v0, int v1, const int w)
{
	const int R = w / 8;
	const V *hp = (const V *)(const void *)a->hp;
	V *cm = (V *)(void *)a->cm;

	for (size_t i = (size_t)v0 * R; i < (size_t)v1 * R; i++)
		v_store(cm + i, v_max(v_load(cm + i), v_load(hp + i), w));
}

/* Largest lane of acc[0..R-1], as a score (acc[0] is overwritten). */
SM_INLINE uint32_t acc_max(V *acc, const int w)
{
	for (int r = 1; r < w / 8; r++)
		acc[0] = v_max(acc[0], acc[r], w);
	return v_hmax(acc[0], w) ^ lane_flip(w);
}

/* One read row of the tile at width w; returns a bound on max_j H(i, j)
 * (exact where it matters: when it reaches O + E + 1 or the cm floor).
 *
 * The horizontal gap is lazy.  H~ = max(H(i-1,j-1) + S, F) needs no E, and E
 * can raise a cell only where some H to its left, in the segment or from
 * the tile on the left, exceeds O + E; on most blocks of most rows none
 * does.  The row runs block by block (SM_BLOCK steps, all segments), left
 * to right, with e the E entering the block in each lane:
 *   - where e may be nonzero, or where the block's previous row had some
 *     H > O + E (a->hot: likely again), every cell is done whole;
 *   - elsewhere step 1 runs without E (lazy_cell), and without F too where
 *     a->fmax says F(i) is 0 in the block.  If some H~ > O + E, the block is
 *     completed at once (fix_cell, from e = 0); otherwise E stays 0, H = H~,
 *     F~ = F(i+1), and the block needs only the column maxima, and only if
 *     it reaches the floor.
 * Steps 2 and 3 run only where some E crosses a segment end. */
SM_INLINE uint32_t row_run(row_args_t *a, const sm_cpu_score_t *sc, const int w)
{
	const int R = w / 8, W = a->W, nb = (W + SM_BLOCK - 1) / SM_BLOCK;
	const row_consts_t k = row_consts(sc, w);
	const uint32_t oe = (uint32_t)(sc->gap_open + sc->gap_ext), ge = (uint32_t)sc->gap_ext;
	/* Blocks whose every H~ is below thr need no second look. */
	const uint32_t thr = a->cm_floor < oe + 1 ? a->cm_floor : oe + 1;
	const int test = thr <= lane_max(w);
	const V vthr = v_val(test ? thr : 0, w);
	const V zero = v_val(0, w);
	const uint32_t below = test ? thr - 1 : lane_max(w);
	uint32_t rowmax = 0;
	V diag[SM_MAX_R], e[SM_MAX_R], acc[SM_MAX_R];
	int live = 0;

	first_diag(a, diag, w);
	for (int r = 0; r < R; r++)
		e[r] = zero;
	for (int b = 0; b < nb; b++) {
		int v0 = b * SM_BLOCK, v1 = v0 + SM_BLOCK < W ? v0 + SM_BLOCK : W;
		uint32_t m;
		int whole = 0;
		for (int r = 0; r < R; r++)
			acc[r] = zero;
		if (live || a->hot[b]) {
			full_steps(a, &k, v0, v1, diag, e, acc, w);
			m = acc_max(acc, w);
			whole = 1;
		} else {
			if (a->fmax[b] == 0)
				lazy_steps(a, &k, v0, v1, diag, acc, w, 0);
			else
				lazy_steps(a, &k, v0, v1, diag, acc, w, 1);
			for (int r = 1; r < R; r++)
				acc[0] = v_max(acc[0], acc[r], w);
			if (!test || !v_ge_mask(acc[0], vthr, w)) {
				m = below;
			} else if ((m = acc_max(acc, w)) > oe) {
				for (int r = 0; r < R; r++)
					acc[r] = zero;
				for (int v = v0; v < v1; v++)
					for (int r = 0; r < R; r++)
						fix_cell(a, &k, v, r, &e[r], &acc[r], w);
				m = acc_max(acc, w);
				whole = 1;
			} else if (m >= a->cm_floor) {
				colmax_steps(a, v0, v1, w);
			}
		}
		if (whole) {
			live = 0;
			for (int r = 0; r < R; r++)
				live |= !v_all_eq(e[r], zero);
		}
		a->hot[b] = m > oe;
		/* F(i+1) = max(F(i) - E, H - O - E) in the block. */
		uint32_t fm = a->fmax[b] > ge ? a->fmax[b] - ge : 0;
		a->fmax[b] = m > oe && m - oe > fm ? m - oe : fm;
		if (m > rowmax)
			rowmax = m;
	}
	/* e is nonzero only after a block done whole, where live says so. */
	if (live || a->ein > 0) {
		for (int r = 0; r < R; r++)
			acc[r] = zero;
		row_across(a, &k, sc, e, acc, w);
		uint32_t m = acc_max(acc, w);
		if (m > rowmax)
			rowmax = m;
	} else {
		a->eout = 0;
		a->hout = lane_at(a->hp, (size_t)W * SM_SEGS - 1, w);
	}
	return rowmax;
}

/* Sets n8 columns of a buffer of width 8 << k to score 0. */
static void fill_zero(uint8_t *buf, size_t n8, int k)
{
	const V z = v_val(0, 8 << k);
	size_t nvec = (n8 << k) / SM_VB;

	for (size_t i = 0; i < nvec; i++)
		v_store((V *)(void *)buf + i, z);
}

/* Converts n8 columns of a buffer from width 8 << k to the next wider. */
SM_INLINE void widen_buf(uint8_t *dst, const uint8_t *src, size_t n8, int k)
{
	const int w = 8 << k;
	size_t nvec = (n8 << k) / SM_VB;
	const V *s = (const V *)(const void *)src;
	V *d = (V *)(void *)dst;

	for (size_t i = 0; i < nvec; i++)
		v_widen(v_load(s + i), w, d + 2 * i, d + 2 * i + 1);
}

/* Converts n8 columns from width 8 << (k + 1) to 8 << k (values fit). */
SM_INLINE void narrow_buf(uint8_t *dst, const uint8_t *src, size_t n8, int k)
{
	const int w = 8 << k;
	size_t nvec = (n8 << k) / SM_VB;
	const V *s = (const V *)(const void *)src;
	V *d = (V *)(void *)dst;

	for (size_t i = 0; i < nvec; i++)
		v_store(d + i, v_narrow(v_load(s + 2 * i), v_load(s + 2 * i + 1), w));
}

/* Moves the tile's H and F rows from width index k to nk. */
static void convert_rows(sm_cpu_scan_t *ws, size_t n8, int k, int nk)
{
	for (; k < nk; k++) {
		widen_buf(ws->hp[k + 1], ws->hp[k], n8, k);
		widen_buf(ws->f[k + 1], ws->f[k], n8, k);
	}
	for (; k > nk; k--) {
		narrow_buf(ws->hp[k - 1], ws->hp[k], n8, k - 1);
		narrow_buf(ws->f[k - 1], ws->f[k], n8, k - 1);
	}
}

/* Folds the column maxima of width index k into width k + 1. */
static void merge_colmax(sm_cpu_scan_t *ws, size_t n8, int k, int dst_used)
{
	const int w = 8 << k;
	size_t nvec = (n8 << k) / SM_VB;
	const V *s = (const V *)(const void *)ws->cm[k];
	V *d = (V *)(void *)ws->cm[k + 1];

	for (size_t i = 0; i < nvec; i++) {
		V lo, hi;
		v_widen(v_load(s + i), w, &lo, &hi);
		if (dst_used) {
			lo = v_max(lo, v_load(d + 2 * i), 2 * w);
			hi = v_max(hi, v_load(d + 2 * i + 1), 2 * w);
		}
		v_store(d + 2 * i, lo);
		v_store(d + 2 * i + 1, hi);
	}
}

/* Locus bins one tile can touch: bins are at least 2^SM_LOCUS_MIN_SHIFT
 * columns wide and a tile need not start on a bin boundary. */
#define SM_TILE_BINS ((SM_CPU_TILE_COLS >> SM_LOCUS_MIN_SHIFT) + 1)

/* Offers the tile's columns that may change out (cpu_scan_impl.h).  Each
 * bin's best column (its highest score, the leftmost column reaching it) is
 * found first and only it is offered: the top list depends on nothing else
 * (scan.h: it is exactly mergeable), and a tile of short windows would
 * otherwise offer most of its columns one by one. */
SM_INLINE void offer_tile(const uint8_t *cmb, int W, int cols, int64_t t0,
			  sm_scan_t *out, int shift, const int w)
{
	const int R = w / 8, lanes = SM_SEGS / R, bytes = w / 8;
	/* One bit per lane: the lowest bit of each lane's bytes. */
	const uint64_t lane_bits = w == 8 ? ~(uint64_t)0 :
		w == 16 ? UINT64_C(0x5555555555555555) : UINT64_C(0x1111111111111111);
	int32_t floor = sm_cpu_offer_floor(out);
	const V *cm = (const V *)(const void *)cmb;
	const int64_t b0 = t0 >> shift;
	const int n_bins = (int)(((t0 + cols - 1) >> shift) - b0 + 1);
	int32_t best[SM_TILE_BINS], at[SM_TILE_BINS];

	if ((uint32_t)floor > lane_max(w))
		return;
	for (int b = 0; b < n_bins; b++)
		best[b] = 0;
	V t = v_val((uint32_t)floor, w);
	for (int v = 0; v < W; v++) {
		for (int r = 0; r < R; r++) {
			size_t idx = (size_t)v * R + r;
			uint64_t m = v_ge_mask(v_load(cm + idx), t, w) & lane_bits;
			while (m) {
				int lane = __builtin_ctzll(m) / bytes;
				m &= m - 1;
				int col = (r * lanes + lane) * W + v;
				if (col >= cols)
					continue;
				int32_t sc = (int32_t)lane_at(cmb, idx * lanes + lane, w);
				int b = (int)(((t0 + col) >> shift) - b0);
				if (sc > best[b] || (sc == best[b] && col < at[b])) {
					best[b] = sc;
					at[b] = col;
				}
			}
		}
	}
	for (int b = 0; b < n_bins; b++)
		if (best[b] > 0)
			sm_cpu_offer(out, shift, best[b], t0 + at[b]);
}

/* Side of the byte blocks that stripe_full transposes. */
#define SM_TR 16

/* Striped reference codes of a full tile (W = SM_CPU_TILE_COLS / SM_SEGS, a
 * multiple of SM_TR): sref[v * SM_SEGS + l] = seq[l * W + v], by 16 x 16
 * byte transposes (SSE2, which every ISA here has).  One round of
 * unpacklo/hi_epi8 of rows i and i + 8 into rows 2i and 2i + 1 rotates the
 * 8-bit (row, column) address of every byte left by one bit; four rounds
 * swap row and column. */
static void stripe_full(uint8_t *restrict sref, const uint8_t *seq, int W)
{
	for (int l0 = 0; l0 < SM_SEGS; l0 += SM_TR)
		for (int v0 = 0; v0 < W; v0 += SM_TR) {
			__m128i x[SM_TR], y[SM_TR];
			/* Unrolled, so that x and y stay in registers. */
#pragma GCC unroll 16
			for (int t = 0; t < SM_TR; t++)
				x[t] = _mm_loadu_si128((const __m128i *)(const void *)
						       (seq + (size_t)(l0 + t) * W + v0));
#pragma GCC unroll 4
			for (int round = 0; round < 4; round++) {
#pragma GCC unroll 8
				for (int t = 0; t < SM_TR / 2; t++) {
					y[2 * t] = _mm_unpacklo_epi8(x[t], x[t + SM_TR / 2]);
					y[2 * t + 1] = _mm_unpackhi_epi8(x[t], x[t + SM_TR / 2]);
				}
#pragma GCC unroll 16
				for (int t = 0; t < SM_TR; t++)
					x[t] = y[t];
			}
#pragma GCC unroll 16
			for (int t = 0; t < SM_TR; t++)
				_mm_store_si128((__m128i *)(void *)(sref + (size_t)(v0 + t) * SM_SEGS + l0),
						x[t]);
		}
}

/* Striped reference codes and the profile rows of the tile (one per read
 * code, and row 1's with the 5' bonus when there is one). */
static void build_profile(sm_cpu_scan_t *ws, const uint8_t *seq, int cols, int W,
			  const sm_cpu_score_t *sc)
{
	uint8_t *restrict sref = ws->sref;
	if (cols == SM_CPU_TILE_COLS)
		stripe_full(sref, seq, W);
	else for (int l = 0; l < SM_SEGS; l++) {
		const uint8_t *restrict src = seq + (size_t)l * W;
		int n = cols - l * W;
		n = n < 0 ? 0 : n > W ? W : n;
		for (int v = 0; v < n; v++)
			sref[(size_t)v * SM_SEGS + l] = src[v];
		for (int v = n; v < W; v++)
			sref[(size_t)v * SM_SEGS + l] = SM_BASE_N;
	}
	for (int code = 0; code < sc->n_prof; code++) {
		V lut = v_lut(code == SM_CPU_FIRST_ROW ? ws->lut1 : sc->lut[code]);
		uint8_t *dst = ws->prof + (size_t)code * SM_CPU_TILE_COLS;
		for (int v = 0; v < W; v++) {
			V idx = v_load((const V *)(const void *)(ws->sref + (size_t)v * SM_SEGS));
			v_store((V *)(void *)(dst + (size_t)v * SM_SEGS), v_shuffle(lut, idx));
		}
	}
}

/* Width index to use for a row whose inputs are <= `need` - match:
 * widen when a lane could overflow (Eq. 9), narrow back when a narrower
 * allowed width has SM_CPU_NARROW_MARGIN to spare (Eq. 10). */
static int pick_width(int k, int64_t need, int allowed)
{
	if (need > (int64_t)lane_max(8 << k)) {
		for (int nk = k + 1; nk < SM_CPU_N_WIDTHS; nk++)
			if ((allowed >> nk & 1) && need <= (int64_t)lane_max(8 << nk))
				return nk;
		return SM_CPU_N_WIDTHS - 1;
	}
	for (int nk = 0; nk < k; nk++)
		if ((allowed >> nk & 1) &&
		    need + SM_CPU_NARROW_MARGIN <= (int64_t)lane_max(8 << nk))
			return nk;
	return k;
}

/* The 3' bonus (scan.h) at width w: cm = max(cm, H(n) + clip3) where
 * H(n) > 0, hp holding H(n); every value fits (the caller's width). */
SM_INLINE void fold_clip3(uint8_t *cmb, const uint8_t *hpb, size_t n8, uint32_t clip3, const int w)
{
	const size_t nvec = (n8 * (size_t)(w / 8)) / SM_VB;
	V *cm = (V *)(void *)cmb;
	const V *hp = (const V *)(const void *)hpb;
	const V c = v_set1(clip3, w), z = v_val(0, w);

	for (size_t i = 0; i < nvec; i++) {
		V h = v_load(hp + i);
		v_store(cm + i, v_max(v_load(cm + i), v_keep_zero(v_adds(h, c, w), h, z, w), w));
	}
}

/* One tile: cols columns of the reference from global column t0. */
static void scan_tile(sm_cpu_scan_t *ws, const uint8_t *seq, int64_t t0, int cols,
		      const sm_cpu_score_t *sc, const sm_query_t *q, sm_scan_t *out,
		      int shift, uint64_t cells_w[SM_CPU_N_WIDTHS])
{
	const int W = (cols + SM_SEGS - 1) / SM_SEGS;
	const size_t n8 = (size_t)W * SM_SEGS;
	const int k_min = __builtin_ctz((unsigned)ws->allowed);
	/* Columns below the floor of the top list at the start of the tile
	 * can never be offered (the floor only rises), so the column maxima
	 * need only the rows that reach it. */
	const uint32_t cm_floor = (uint32_t)sm_cpu_offer_floor(out);
	int k = k_min, used = 0;
	/* rowmax: max_j H(i-1, j) or a bound on it; fmax: row_run's F bounds. */
	uint32_t rowmax = 0, hin = 0, fmax[SM_MAX_BLOCKS] = { 0 };
	uint8_t hot[SM_MAX_BLOCKS] = { 0 };

	build_profile(ws, seq, cols, W, sc);
	fill_zero(ws->hp[k], n8, k);
	fill_zero(ws->f[k], n8, k);
	for (int32_t i = 1; i <= q->len; i++) {
		uint8_t code = q->seq[i - 1] < SM_BASE_N ? q->seq[i - 1] : SM_BASE_N;
		uint32_t in = rowmax;
		if (hin > in)
			in = hin;
		if ((uint32_t)ws->eb[i] > in)
			in = (uint32_t)ws->eb[i];
		/* Row 1's scores carry the 5' bonus (its own profile row). */
		if (i == 1 && sc->clip5) {
			code = SM_CPU_FIRST_ROW;
			in += (uint32_t)sc->clip5;
		}
		int nk = pick_width(k, (int64_t)in + sc->match, ws->allowed);
		if (nk != k) {
			convert_rows(ws, n8, k, nk);
			k = nk;
		}
		if (!(used >> k & 1)) {
			fill_zero(ws->cm[k], n8, k);
			used |= 1 << k;
		}
		row_args_t a = {
			.W = W, .hp = ws->hp[k], .f = ws->f[k], .cm = ws->cm[k],
			.p8 = ws->prof + (size_t)code * SM_CPU_TILE_COLS,
			.hin = hin, .ein = (uint32_t)ws->eb[i],
			.cm_floor = cm_floor, .fmax = fmax, .hot = hot,
		};
		switch (k) {
		case 0: rowmax = row_run(&a, sc, 8); break;
		case 1: rowmax = row_run(&a, sc, 16); break;
		default: rowmax = row_run(&a, sc, 32); break;
		}
		hin = (uint32_t)ws->hb[i];
		ws->hb[i] = (int32_t)a.hout;
		ws->eb[i] = (int32_t)a.eout;
		cells_w[k] += n8;
	}
	/* Column maxima of all widths used, gathered at the widest. */
	int top = 31 - __builtin_clz((unsigned)used);
	for (int j = 0; j < top; j++)
		if (used >> j & 1) {
			merge_colmax(ws, n8, j, used >> (j + 1) & 1);
			used |= 1 << (j + 1);
		}
	/* The 3' bonus, at a width that holds H(n) + clip3 (rowmax bounds
	 * H(n)); H(n) is in hp at the last row's width k. */
	if (sc->clip3) {
		int tw = top;
		while (tw < SM_CPU_N_WIDTHS - 1 &&
		       (int64_t)rowmax + sc->clip3 > (int64_t)lane_max(8 << tw))
			tw++;
		for (int j = top; j < tw; j++)
			merge_colmax(ws, n8, j, 0);
		for (int j = k; j < tw; j++)
			widen_buf(ws->hp[j + 1], ws->hp[j], n8, j);
		top = tw;
		switch (top) {
		case 0: fold_clip3(ws->cm[0], ws->hp[0], n8, (uint32_t)sc->clip3, 8); break;
		case 1: fold_clip3(ws->cm[1], ws->hp[1], n8, (uint32_t)sc->clip3, 16); break;
		default: fold_clip3(ws->cm[2], ws->hp[2], n8, (uint32_t)sc->clip3, 32); break;
		}
	}
	switch (top) {
	case 0: offer_tile(ws->cm[0], W, cols, t0, out, shift, 8); break;
	case 1: offer_tile(ws->cm[1], W, cols, t0, out, shift, 16); break;
	default: offer_tile(ws->cm[2], W, cols, t0, out, shift, 32); break;
	}
}

/* ---- Short contigs: the anti-diagonal kernel ----
 *
 * On a contig of a few hundred columns a tile row is a few steps, and the
 * read's own alignment, which a seeded window always holds, makes nearly
 * every block whole and E cross segments in nearly every row: the per-row
 * costs of row_run dominate.  Short contigs are therefore scanned along
 * anti-diagonals instead, where no value depends on another of the same
 * vector and nothing is lazy, scanned or branched on.
 *
 * Layout.  The read is padded on top to S = ceil(n / L) stripes of L rows
 * (L lanes of width w).  Lane i of a stripe is row i0 + i, and step d of the
 * stripe holds the cells (i0 + i, d - i), d = 0 .. C + L - 2.  Per step and
 * lane, with x = H - O - E:
 *   H(i, j) = max(H(i-1, j-1) + S, E(i, j), F(i, j))    (floor 0)
 *   E(i, j+1) = max(E(i, j) - E, x)                      same lane, next step
 *   G(i, j) = max(F(i, j) - E, x) = F(i+1, j)            lane above, next step
 *   CM(i, j) = max(CM(i-1, j), H(i, j))                  lane above, next step
 * and H(i, j) is the diagonal of lane i + 1 two steps on.  So F, CM and the
 * diagonal move up one lane per step (v_funnel), and lane 0 takes the value
 * of row i0 - 1 from the stripe above.  Up to SM_DIAG_GROUP stripes (as many
 * as the ISA's registers hold) run together, each L steps behind the one
 * above, so that this value is in a register (diag_group); between groups
 * it goes through boundary rows, one element per column.  The dependency
 * chain of a step (F, H, x, G: a lane shift and three operations) is long
 * enough that the independent stripes of a group are what keeps the vector
 * units busy.  Cells left of column 0 (and the padding rows, read code N)
 * stay exactly 0, which is what a contig start and the row above row 1
 * hold; cells right of the contig feed only cells right of it.  CM of the
 * last stripe's last lane is the column maximum.
 *
 * Boundary rows are kept reversed: column j at element Kb - j.  Then a step
 * stores its whole vector at Kb - d, lane i landing on column d - i: each
 * column is written by L steps and the last one, lane L - 1, stays.  A load
 * ending at column c puts c in the top lane, the one v_funnel shifts in.
 * The contig's codes are reversed the same way (rev[Kr - j]), so a step's
 * reference codes are one unaligned load, and its scores two instructions
 * (xtab, cpu_scan_impl.h).
 *
 * Width.  No H exceeds n * A, so the narrowest allowed width that holds it
 * is used for the whole contig: nothing can overflow, nothing is checked. */

typedef struct {
	int C;                  /* columns of the contig */
	int Kr;                 /* rev[Kr - j]: code of column j */
	int Kb;                 /* boundary rows: column j at element Kb - j */
	const uint8_t *rev;
	const uint8_t *hin, *gin, *cin;   /* H, G, CM of row i0 - 1 (w-bit elements) */
	uint8_t *hout, *gout, *cout;      /* the same of this stripe's last row */
	/* The end bonuses (score.h): stripe 0 adds xtab5[x(q) ^ r] in row 1's
	 * lane (b5m: 0x80, which looks up 0, in every other lane's byte); the
	 * last stripe's column maxima take H + b3 (clip3 in the last lane, row
	 * n, 0 elsewhere) where H > 0.  first, last: this group holds stripe 0,
	 * the last stripe. */
	int first, last, clip5, clip3;
	V b5m, b3;
} diag_args_t;

/* Stripes 0 .. G-1 of a group (read codes from qx on), in step with each
 * other: stripe k runs k * L steps behind stripe 0, so that its lane 0 finds
 * what it needs in the last lane of stripe k - 1 from the step before (F,
 * CM, and the diagonal of its next step), in registers.  Stripe 0 takes
 * that from the boundary rows; the group's last stripe leaves its last row
 * there for the next group (keep) and its column maxima.  Stripes run from
 * last to first within a step, so that stripe k - 1 still holds the values
 * of the step before. */
SM_INLINE void diag_group(const diag_args_t *a, const sm_cpu_score_t *sc, const uint8_t *qx,
			  const int w, const int G, const int keep)
{
	const int B = w / 8, L = SM_VB / B, last = a->C + L - 2;
	const V ve = v_set1((uint32_t)sc->gap_ext, w);
	const V voe = v_set1((uint32_t)(sc->gap_open + sc->gap_ext), w);
	const V zero = v_val(0, w), tbl = v_lut(sc->xtab), tb5 = v_lut(sc->xtab5);
	/* Per stripe: its read codes, E entering the step, G and H of the step
	 * before, the column maxima, the diagonal of this step. */
	V qv[SM_DIAG_GROUP], e[SM_DIAG_GROUP], g[SM_DIAG_GROUP], h[SM_DIAG_GROUP];
	V cm[SM_DIAG_GROUP], hs[SM_DIAG_GROUP];
	/* The last stripe's column maxima leaving its last lane, newest in lane
	 * 0: lane m holds column d - m - L + 1, i.e. element Kb - d + L - 1 + m,
	 * so every L steps they go out in one aligned store. */
	V cx = zero;

	for (int k = 0; k < G; k++) {
		qv[k] = v_loadu(qx + (size_t)k * L);
		e[k] = g[k] = h[k] = cm[k] = hs[k] = zero;
	}
	for (int t = 0; t <= last + (G - 1) * L; t++) {
#pragma GCC unroll 8
		for (int k = G - 1; k >= 0; k--) {
			const int d = t - k * L;
			if (d < 0 || d > last)
				continue;
			V gi, ci, hi;
			if (k == 0) {
				/* Loads ending at column d. */
				const size_t in = (size_t)(a->Kb - d - L + 1) * B;
				gi = v_loadu(a->gin + in);
				ci = v_loadu(a->cin + in);
				hi = v_loadu(a->hin + in);
			} else {
				gi = g[k - 1];
				ci = cm[k - 1];
				hi = h[k - 1];
			}
			V idx = v_xor(v_loadu(a->rev + a->Kr - d), qv[k]);
			V s = v_sext(v_shuffle(tbl, idx), w);
			if (k == 0 && a->first && a->clip5)
				s = v_adds(s, v_sext(v_shuffle(tb5, v_xor(idx, a->b5m)), w), w);
			V f = v_funnel(g[k], gi, B);
			V hn = v_max(v_max(v_adds(hs[k], s, w), e[k], w), f, w);
			V x = v_subs(hn, voe, w);
			e[k] = v_max(v_subs(e[k], ve, w), x, w);
			g[k] = v_max(v_subs(f, ve, w), x, w);
			if (k == G - 1 && a->last && a->clip3)
				cm[k] = v_max(v_funnel(cm[k], ci, B),
					      v_keep_zero(v_adds(hn, a->b3, w), hn, zero, w), w);
			else
				cm[k] = v_max(v_funnel(cm[k], ci, B), hn, w);
			hs[k] = v_funnel(h[k], hi, B);
			h[k] = hn;
			if (k == G - 1) {
				if (keep) {
					const size_t o = (size_t)(a->Kb - d) * B;
					v_storeu(a->hout + o, hn);
					v_storeu(a->gout + o, g[k]);
				}
				cx = v_funnel(cx, cm[k], B);
				if ((d & (L - 1)) == L - 1 || d == last)
					v_storeu(a->cout + (size_t)(a->Kb - d + L - 1) * B, cx);
			}
		}
	}
}

/* diag_group for a G known only at run time (1 <= G <= SM_DIAG_GROUP). */
SM_INLINE void diag_group_any(const diag_args_t *a, const sm_cpu_score_t *sc, const uint8_t *qx,
			      const int w, int G, const int keep)
{
	switch (G) {
	case 1: diag_group(a, sc, qx, w, 1, keep); break;
#if SM_DIAG_GROUP >= 2
	case 2: diag_group(a, sc, qx, w, 2, keep); break;
#endif
#if SM_DIAG_GROUP >= 3
	case 3: diag_group(a, sc, qx, w, 3, keep); break;
#endif
#if SM_DIAG_GROUP >= 4
	default: diag_group(a, sc, qx, w, 4, keep); break;
#endif
	}
}

/* Sets n elements of width w from p on to score 0. */
SM_INLINE void diag_zero(uint8_t *p, size_t n, const int w)
{
	const V z = v_val(0, w);

	for (size_t k = 0; k < n * (w / 8); k += SM_VB)
		v_storeu(p + k, z);
}

/* Offers the best column of each locus bin of the contig (see offer_tile);
 * cm holds column j at element Kb - j.  A bin's columns are elements lo .. hi,
 * its leftmost best column the highest element holding its maximum; both are
 * found a vector at a time (the first or last vector overlapping the one
 * before where the count is not a multiple of L). */
SM_INLINE void diag_offer(const uint8_t *cm, int Kb, int C, int64_t g0, sm_scan_t *out,
			  int shift, const int w)
{
	const int B = w / 8, L = SM_VB / B;

	for (int j = 0; j < C;) {
		int64_t next = (((g0 + j) >> shift) + 1) << shift;
		int end = next - g0 < C ? (int)(next - g0) : C;
		int lo = Kb - end + 1, hi = Kb - j, at = -1;
		uint32_t best = 0;
		j = end;
		if (hi - lo + 1 < L) {
			for (int e = hi; e >= lo; e--)
				if (lane_at(cm, (size_t)e, w) > best) {
					best = lane_at(cm, (size_t)e, w);
					at = e;
				}
		} else {
			V m = v_loadu(cm + (size_t)(hi - L + 1) * B);
			for (int e = lo; e < hi - L + 1; e += L)
				m = v_max(m, v_loadu(cm + (size_t)e * B), w);
			best = v_hmax(m, w) ^ lane_flip(w);
			if (best == 0 || (int32_t)best < sm_cpu_offer_floor(out))
				continue;
			const V vb = v_val(best, w);
			for (int e = hi - L + 1; at < 0 && e >= lo; e = e > lo && e - L < lo ? lo : e - L) {
				uint64_t mk = v_ge_mask(v_loadu(cm + (size_t)e * B), vb, w);
				/* Lanes from the top; a byte of a lower lane may match too. */
				while (mk && at < 0) {
					int lane = (63 - __builtin_clzll(mk)) / B;
					if (lane_at(cm, (size_t)(e + lane), w) == best)
						at = e + lane;
					mk &= ~(~(uint64_t)0 << (lane * B));
				}
			}
		}
		if (best > 0)
			sm_cpu_offer(out, shift, (int32_t)best, g0 + (Kb - at));
	}
}

/* One contig of C <= SM_CPU_TILE_COLS columns from global column g0. */
SM_INLINE uint64_t diag_contig(sm_cpu_scan_t *ws, const uint8_t *seq, int C, int64_t g0,
			       const sm_cpu_score_t *sc, const sm_query_t *q, sm_scan_t *out,
			       int shift, const int w)
{
	const int B = w / 8, L = SM_VB / B, n = q->len;
	const int S = (n + L - 1) / L, pad = S * L - n;
	const size_t n_el = (size_t)C + 4 * (size_t)L;
	/* Kb a multiple of L: diag_group's stores of collected column maxima
	 * are aligned. */
	diag_args_t a = { .C = C, .Kr = C + L - 2, .Kb = (C + 3 * L - 1) / L * L,
			  .rev = ws->drev, .clip5 = sc->clip5, .clip3 = sc->clip3 };
	uint8_t *qx = ws->dq;
	int par = 0;
	/* The bonus lanes: row 1 is lane pad of stripe 0, row n the last lane
	 * of the last stripe. */
	uint8_t lanes[SM_VB] __attribute__((aligned(SM_CPU_ALIGN)));
	memset(lanes, 0x80, sizeof lanes);
	lanes[pad] = 0;
	a.b5m = v_loadu(lanes);
	memset(lanes, 0, sizeof lanes);
	memcpy(lanes + (size_t)(L - 1) * B, &(uint32_t){ (uint32_t)sc->clip3 }, (size_t)B);
	a.b3 = v_loadu(lanes);

	/* x(q) of each row, SM_CPU_XOR_N on the padding rows above row 1. */
	memset(qx, SM_CPU_XOR_N, (size_t)pad);
	for (int i = 0; i < n; i++)
		qx[pad + i] = q->seq[i] < SM_BASE_N ? q->seq[i] : SM_CPU_XOR_N;
	memset(qx + S * L, SM_CPU_XOR_N, SM_VB);
	/* Reference codes are 0 .. SM_BASE_N (io/ref.h). */
	memset(ws->drev, SM_BASE_N, (size_t)a.Kr + SM_VB);
	int j = 0;
	for (; j + SM_VB <= C; j += SM_VB)
		v_storeu(ws->drev + a.Kr - j - SM_VB + 1, v_rev8(v_loadu(seq + j)));
	for (; j < C; j++)
		ws->drev[a.Kr - j] = seq[j];
	for (int b = 0; b < 3; b++)
		diag_zero(ws->dbuf[0][b], n_el, w);
	for (int s = 0; s < S; s += SM_DIAG_GROUP, par ^= 1) {
		const int G = S - s < SM_DIAG_GROUP ? S - s : SM_DIAG_GROUP;
		a.hin = ws->dbuf[par][0];
		a.gin = ws->dbuf[par][1];
		a.cin = ws->dbuf[par][2];
		a.hout = ws->dbuf[par ^ 1][0];
		a.gout = ws->dbuf[par ^ 1][1];
		a.cout = ws->dbuf[par ^ 1][2];
		a.first = s == 0;
		a.last = s + G == S;
		if (s + G < S)
			diag_group_any(&a, sc, qx + (size_t)s * L, w, G, 1);
		else
			diag_group_any(&a, sc, qx + (size_t)s * L, w, G, 0);
	}
	diag_offer(ws->dbuf[par][2], a.Kb, C, g0, out, shift, w);
	return (uint64_t)S * L * (uint64_t)(C + L - 1);
}

/* Width index for the anti-diagonal kernel: the narrowest allowed one
 * (bit k of `allowed`) that holds n * A + clip5 + clip3 (and O + E in one
 * subtraction); -1 if none. */
static int diag_width(const sm_cpu_score_t *sc, int allowed, int32_t n)
{
	const int64_t top = (int64_t)n * sc->match + sc->clip5 + sc->clip3;
	const int64_t oe = sc->gap_open + sc->gap_ext;

	for (int k = 0; k < SM_CPU_N_WIDTHS; k++)
		if ((allowed >> k & 1) && top <= (int64_t)lane_max(8 << k) &&
		    oe <= (int64_t)lane_max_sub(8 << k))
			return k;
	return -1;
}

int SM_KERNEL_NAME(sm_cpu_scan_t *ws, const sm_ref_t *ref, const sm_query_t *q, sm_scan_t *out,
		   sm_engine_stats_t *st)
{
	const sm_cpu_score_t *sc = ws->sc;
	const int shift = sm_locus_shift(&sc->score, q->len);
	uint64_t cells_w[SM_CPU_N_WIDTHS] = { 0 };

	const int dk = sc->xtab_ok ? diag_width(sc, ws->allowed, q->len) : -1;
	/* AUTO (cpu_scan_impl.h): the anti-diagonal kernel pays with 8-bit
	 * cells, and with 16-bit ones on 512-bit vectors (32 lanes a stripe). */
	const int auto_diag = ref->total <= SM_CPU_DIAG_REF &&
		(dk == 0 || (dk == 1 && SM_VB >= SM_CPU_DIAG_VB16));
	const int64_t diag_max = ws->kernel == SM_CPU_KERNEL_DIAG ? SM_CPU_TILE_COLS :
		ws->kernel == SM_CPU_KERNEL_AUTO && auto_diag ? SM_CPU_DIAG_COLS : 0;

	out->n = 0;
	for (int32_t c = 0; c < ref->n_contig; c++) {
		const uint8_t *seq = ref->seq + ref->offset[c];
		if (dk >= 0 && ref->len[c] <= diag_max) {
			const int C = (int)ref->len[c];
			switch (dk) {
			case 0: cells_w[0] += diag_contig(ws, seq, C, ref->offset[c], sc, q, out,
							  shift, 8); break;
			case 1: cells_w[1] += diag_contig(ws, seq, C, ref->offset[c], sc, q, out,
							  shift, 16); break;
			default: cells_w[2] += diag_contig(ws, seq, C, ref->offset[c], sc, q, out,
							   shift, 32); break;
			}
			continue;
		}
		memset(ws->hb, 0, sizeof(*ws->hb) * ((size_t)q->len + 1));
		memset(ws->eb, 0, sizeof(*ws->eb) * ((size_t)q->len + 1));
		for (int64_t off = 0; off < ref->len[c]; off += SM_CPU_TILE_COLS) {
			int64_t left = ref->len[c] - off;
			int cols = left < SM_CPU_TILE_COLS ? (int)left : SM_CPU_TILE_COLS;
			scan_tile(ws, seq + off, ref->offset[c] + off, cols, sc, q, out,
				  shift, cells_w);
		}
	}
	if (st) {
		for (int k = 0; k < SM_CPU_N_WIDTHS; k++) {
			st->cells_w[k] += cells_w[k];
			st->cells += cells_w[k];
		}
		st->queries++;
	}
	return 0;
}
