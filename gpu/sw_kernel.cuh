/* sw_kernel.cuh — the kernels of the GPU engine (private to gpu/).
 *
 * Strip kernel.  A warp owns a range of reference columns for one group of
 * Q = 32 / B reads and sweeps it in strips of 32 lanes x C columns, all rows
 * of the group per strip, H, F, the column maxima and the score selectors
 * of its columns in registers.  Between strips it keeps, per row, the H and
 * the E carry of the strip's last column in shared memory: the next strip's
 * left edge.  Warps never wait for each other (no block barrier after the
 * group's rows are loaded).  A range starts `halo` >= sm_max_span(n) columns
 * before the columns it reports, from zeros, so these get the exact
 * whole-reference scores.  Rows follow the read (Yasui & Ino 2018,
 * Eq. 5-8); per row:
 *
 *   step 1  H~(j) = max(0, H(i-1,j-1) + s(i,j), F(i,j))        (Eq. 5)
 *   step 2  E by a max-scan with x (+) y = max(x - Ge, y)       (Eq. 6-7)
 *           kept biased by Gs = O + E so that each step is one fused add-max:
 *           K'(j) = max(K'(j-1) - E, H~(j))  and  H(j) = max(H~(j), K'(j-1) - O - E)
 *           (K' = E(j+1) + O + E; a carry K' <= O + E can never raise a cell)
 *   step 3  F(i+1,j) = max(F(i,j) - E, H(i,j) - O - E)         (Eq. 8)
 *
 * Packed lanes.  A 32-bit word holds the SAME reference column for Q
 * different reads of one group: lane q (bits q*B .. q*B+B-1) is read q.
 * So every operation is lane-wise and the scan runs along a lane's words;
 * the reads of a group are sorted by length and shorter ones are
 * front-padded with N rows (a row of N over zeros stays zero, so padding
 * changes nothing).  Widths:
 *   B = 32  one read, signed int32.
 *   B = 16  two reads, signed, Hopper DPX instructions (__viaddmax_s16x2_relu,
 *           __vimax3_s16x2_relu...; emulated but correct before sm_90).
 *   B = 8   four reads, unsigned saturating SIMD-in-word (__vaddus4,
 *           __vsubus4, __vmaxu4), scores split in a positive and a negative
 *           part so that diag + s needs no bias: max(0, (diag + pos) -sat neg).
 * Every decayed value is clamped at 0 (relu): a negative E or F never wins
 * against H~ >= 0, so clamping keeps results exact and lanes in range.
 *
 * Ladders (the paper's mixed word length, Eq. 9-10), decided per warp per
 * row on the GPU: a row is computed narrow (B bits) while the previous
 * row's maximum + match <= 2^B-1 (signed: 2^15-1) and the values entering
 * from the left strip fit; otherwise the warp unpacks H and F into Q words
 * of 32 bits per column and computes wide, and goes back to narrow once the
 * row maximum + match <= limit - T (T = 10).  The row maximum of H equals
 * that of H~ (E < max H~), and F(i+1) <= max H~(i), so the decision is taken
 * from H~ before the E scan and both stored rows fit the new width.  Column
 * maxima kept narrow are folded into a wide copy at each switch (max is
 * associative).  A group whose rows can never overflow (n * match <= limit)
 * runs a kernel without the wide path ("plain"), which needs fewer registers.
 *
 * Localized scan (Eq. 11): a K value decays by Ge per column and never
 * exceeds n * match, so it travels at most p = n*match/Ge columns.  The scan
 * is in-lane (C columns), then across lanes with only as many shuffle steps
 * as p needs; the strip's left carry is exact, so no gathered scan across
 * strips is needed.  The E scan is skipped for a row when no H~ of the warp
 * exceeds O + E and no carry above O + E enters (then E never raises a
 * cell): one warp vote per row.  F is updated lazily (rows where every F is
 * 0 and no H exceeds O + E leave it 0).
 *
 * Contig boundaries: on the device every contig of the whole reference is
 * preceded by a separator of >= n*match + 1 ambiguous columns (each costs
 * >= 1 on any path), so no positive path crosses it: the recurrence
 * restarts at each contig exactly as if the scan were segmented there, and
 * the kernel needs no per-column flags.  Separator columns are never
 * reported.
 *
 * Barriers (per-group references, GREF).  A read's windows are short
 * (~500 columns), so separators that long would be a quarter of the work;
 * theirs are 64 columns, which always hold one whole aligned lane of
 * separator columns, a barrier, and the scan is segmented there instead:
 * nothing passes a barrier lane.  Its E carry is dropped (the scan across
 * lanes takes no value from at or beyond a barrier; the strip's left carry
 * none past one), and its last column's H, the diagonal into the next
 * lane, is zeroed every row, which keeps that column's F at zero too.  So
 * the cells right of a barrier equal those of a scan starting there from
 * zeros, and the separator columns between it and the next contig score
 * <= -1 each from zero, so they stay zero: the next contig starts afresh.
 * kd, per lane and strip, is the distance to the nearest barrier at or
 * left of the lane (NO_BARRIER: none).
 *
 * Lane references (GREF, B = 16).  The two reads of a group may each have
 * their own reference: a tandem side each, or each a strand's windows.  A
 * per-group reference holds a code per lane (CODE_LANE_BITS each), so
 * that a column's selector picks each lane's score by its own base, at no
 * cost per cell.  The host lays the two references' j-th contigs side by
 * side (each at a column congruent to its own coordinate modulo 64, so
 * that locus bins hold), with the shorter one's tail and any head coded as
 * separators in its lane only, and the 64-column separator after the
 * longer one common to both: barriers stay whole lanes.  A lane's own
 * separator columns score -1 and are never reported, and each lane maps
 * columns to its reference's coordinates with its own table (goff1).
 *
 * Merge kernel: reduces each read's per-range top-K lists to its final one. */
#ifndef SM_SW_KERNEL_CUH
#define SM_SW_KERNEL_CUH

/* Blocks per multiprocessor the plain whole-reference strip kernels (16
 * columns a lane or fewer) are compiled for (register cap).  On sm_90, 4
 * blocks of 4 warps (at most 128 registers; ptxas spills 64 bytes of the
 * 16-bit kernel, which took 154) ran 7-8% faster on 1-4.6 Mbp and 9-13%
 * on a 9.7 kbp reference than ptxas's own choice of 3 blocks
 * (results/gpu-kernel.md); a cap of 3 equalled it.  The ladder kernels
 * and 32 columns a lane spilled 0.8-1.8 KB under it, so ptxas chooses
 * for them, as on the architectures not measured.  Blocks of fewer warps
 * ask for proportionally more blocks (the same registers). */
#ifndef SM_STRIP_MIN_BLOCKS
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define SM_STRIP_MIN_BLOCKS 4
#else
#define SM_STRIP_MIN_BLOCKS 1
#endif
#endif
/* The same for the per-group (GREF) 16-bit plain kernel, the seeded
 * mapper's: single-warp blocks over a read's windows, where the number of
 * resident warps rules.  20 holds it (8 columns per lane,
 * gpu_kernels.cu's SM_GPU_COLS16_GREF, and a code per lane: Lane
 * references) at 96 registers without spills, so that 21 warps share a
 * multiprocessor (docs/gpu.md). */
#ifndef SM_STRIP_GREF_MIN_BLOCKS
#define SM_STRIP_GREF_MIN_BLOCKS 20
#endif

#include <cstdint>

#include "gpu/sw_params.cuh"
#include "mapper/scan.h"

namespace smk {

/* Keys order loci as scan.h does: score in the high half, the complement
 * of the device column in the low half, so a larger key is a higher score,
 * then a lower column (hence a lower bin). */
__device__ __forceinline__ uint32_t key_col(uint64_t k) { return 0xffffffffu - (uint32_t)k; }

__device__ __forceinline__ uint32_t prmt(uint32_t a, uint32_t b, uint32_t sel)
{
	uint32_t d;
	asm("prmt.b32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(sel));
	return d;
}

/* ---- lane arithmetic, one struct per width ------------------------------ */

template <int B> struct Ops;

template <> struct Ops<32> {
	static constexpr int LANES = 1;
	static constexpr int LIMIT = 0x3fffffff;
	static constexpr int WIDX = 2;
	typedef uint32_t score_t;
	__device__ static uint32_t dec(int64_t d) { return (uint32_t)(d > LIMIT ? LIMIT : d); }
	__device__ static uint32_t decay(uint32_t x, uint32_t dc, uint32_t y)
	{
		return (uint32_t)max(max((int)x - (int)dc, (int)y), 0);
	}
	__device__ static uint32_t ht(uint32_t diag, score_t s, uint32_t f)
	{
		return (uint32_t)max(max((int)diag + (int)s, (int)f), 0);
	}
	__device__ static uint32_t max2(uint32_t a, uint32_t b) { return (uint32_t)max((int)a, (int)b); }
	__device__ static uint32_t max3(uint32_t a, uint32_t b, uint32_t c)
	{
		return (uint32_t)max(max((int)a, (int)b), (int)c);
	}
	__device__ static bool any_gt(uint32_t x, int thr) { return (int)x > thr; }
	__device__ static uint32_t kstep(uint32_t k, uint32_t dc, uint32_t h)
	{
		return (uint32_t)max((int)k - (int)dc, (int)h);
	}
	__device__ static bool or_any_gt(uint32_t x, int thr) { return (int)x > thr; }
	__device__ static int get(uint32_t w, int) { return (int)w; }
	__device__ static uint32_t put(uint32_t, int, int v) { return (uint32_t)v; }
};

template <> struct Ops<16> {
	static constexpr int LANES = 2;
	static constexpr int LIMIT = 32767;
	static constexpr int WIDX = 1;
	typedef uint32_t score_t;
	__device__ static uint32_t splat(int v) { return ((uint32_t)v & 0xffffu) * 0x10001u; }
	__device__ static uint32_t dec(int64_t d) { return splat(-(int)(d > LIMIT ? LIMIT : d)); }
	__device__ static uint32_t decay(uint32_t x, uint32_t dc, uint32_t y)
	{
		return __viaddmax_s16x2_relu(x, dc, y);
	}
	__device__ static uint32_t ht(uint32_t diag, score_t s, uint32_t f)
	{
		return __viaddmax_s16x2_relu(diag, s, f);
	}
	__device__ static uint32_t max2(uint32_t a, uint32_t b) { return __vimax_s16x2_relu(a, b); }
	__device__ static uint32_t max3(uint32_t a, uint32_t b, uint32_t c)
	{
		return __vimax3_s16x2_relu(a, b, c);
	}
	__device__ static bool any_gt(uint32_t x, int thr)
	{
		return __viaddmax_s16x2_relu(x, splat(-thr), 0u) != 0u;
	}
	__device__ static uint32_t kstep(uint32_t k, uint32_t dc, uint32_t h)
	{
		return __viaddmax_s16x2(k, dc, h);
	}
	/* For lanes >= 0 and thr = 2^k - 1: some lane > thr iff a bit above
	 * the k low ones is set (one AND). */
	__device__ static bool or_any_gt(uint32_t x, int thr) { return (x & ~splat(thr)) != 0u; }
	__device__ static int get(uint32_t w, int l) { return (int)(int16_t)(w >> (16 * l)); }
	__device__ static uint32_t put(uint32_t w, int l, int v)
	{
		return (w & ~(0xffffu << (16 * l))) | (((uint32_t)v & 0xffffu) << (16 * l));
	}
};

struct PosNeg {
	uint32_t pos, neg;
};

template <> struct Ops<8> {
	static constexpr int LANES = 4;
	static constexpr int LIMIT = 255;
	static constexpr int WIDX = 0;
	typedef PosNeg score_t;
	__device__ static uint32_t dec(int64_t d) { return (uint32_t)(d > LIMIT ? LIMIT : d) * 0x01010101u; }
	__device__ static uint32_t decay(uint32_t x, uint32_t dc, uint32_t y)
	{
		return __vmaxu4(__vsubus4(x, dc), y);
	}
	__device__ static uint32_t ht(uint32_t diag, score_t s, uint32_t f)
	{
		return __vmaxu4(__vsubus4(__vaddus4(diag, s.pos), s.neg), f);
	}
	__device__ static uint32_t max2(uint32_t a, uint32_t b) { return __vmaxu4(a, b); }
	__device__ static uint32_t max3(uint32_t a, uint32_t b, uint32_t c)
	{
		return __vmaxu4(__vmaxu4(a, b), c);
	}
	__device__ static bool any_gt(uint32_t x, int thr)
	{
		return __vsubus4(x, (uint32_t)thr * 0x01010101u) != 0u;
	}
	__device__ static uint32_t kstep(uint32_t k, uint32_t dc, uint32_t h)
	{
		return __vmaxu4(__vsubus4(k, dc), h);
	}
	__device__ static bool or_any_gt(uint32_t x, int thr) { return any_gt(x, thr); }
	__device__ static int get(uint32_t w, int l) { return (int)((w >> (8 * l)) & 0xffu); }
	__device__ static uint32_t put(uint32_t w, int l, int v)
	{
		return (w & ~(0xffu << (8 * l))) | (((uint32_t)v & 0xffu) << (8 * l));
	}
};

/* ---- substitution scores for one row ------------------------------------
 * Selector bits 0..15 (per column, built once per window), r the code of
 * even lanes, r1 that of odd lanes (they differ only in a group of two
 * reads with their own references, B = 16: Lane references):
 *   B = 32: nibbles r, r|8, r|8, r|8 over (profile, 0xffffffff): byte r of the
 *           query's signed profile, sign-extended; r = 4 picks 0xff = -1.
 *   B = 16: nibbles r, r|8, 4+r1, (4+r1)|8 over (profile q0, profile q1); an
 *           ambiguous column is OR-ed to 0xffff in its lane (-1).
 *   B = 8:  nibbles r, 4+r, r, 4+r over (q0, q1) and (q2, q3), merged. */
template <int B> __device__ __forceinline__ uint32_t make_sel(uint32_t r, uint32_t r1)
{
	const uint32_t rc = r > CODE_AMB ? CODE_AMB : r, rc1 = r1 > CODE_AMB ? CODE_AMB : r1;
	const uint32_t sel = (rc << SEL_CODE_SHIFT) | (rc1 << SEL_CODE1_SHIFT) |
			     (r >= CODE_AMB ? SEL_AMB : 0u) | (r1 >= CODE_AMB ? SEL_AMB1 : 0u) |
			     (r == CODE_PAD ? SEL_PAD : 0u) | (r1 == CODE_PAD ? SEL_PAD1 : 0u);
	const uint32_t b = rc & 3u, b1 = rc1 & 3u;
	if (B == 32)
		return sel | rc | ((rc | 8u) * 0x1110u);
	if (B == 16)
		return sel | b | ((b | 8u) << 4) | ((4u + b1) << 8) | (((4u + b1) | 8u) << 12);
	return sel | b | ((4u + b) << 4) | (b << 8) | ((4u + b) << 12);
}

/* The 32-bit selector of wide word k (query k): its lane's code. */
__device__ __forceinline__ uint32_t sel_wide(uint32_t sel, int k)
{
	const uint32_t rc = (sel >> ((k & 1) ? SEL_CODE1_SHIFT : SEL_CODE_SHIFT)) & 7u;
	return rc | ((rc | 8u) * 0x1110u);
}

/* 0xffff in each 16-bit half whose lane's column is ambiguous (the sign
 * bits of selector bytes 2 and 3 spread by one permute); every bit when
 * both are (B = 8 groups share one reference). */
__device__ __forceinline__ uint32_t amb_mask(uint32_t sel)
{
	return prmt(sel, sel, 0xbbaau);
}

/* The separator bit of query q's lane. */
__device__ __forceinline__ uint32_t sel_pad(int q) { return (q & 1) ? SEL_PAD1 : SEL_PAD; }

/* Row scores in the narrow layout of width B: words() makes a row's PW
 * words from its codes once per block (into shared memory), and each row
 * loads them from there. */
template <int B> struct Prof;

template <> struct Prof<32> {
	static constexpr int PW = 1;  /* words per row (words(), kept in shared memory) */
	uint32_t p;
	__device__ explicit Prof(const uint32_t *w) : p(w[0]) {}
	__device__ static void words(const Params &P, const uint8_t *codes, uint32_t *w)
	{
		w[0] = P.prof_s[codes[0]];
	}
	template <bool AMB> __device__ uint32_t score(uint32_t sel, int) const
	{
		return prmt(p, FULL, sel);
	}
};

template <> struct Prof<16> {
	static constexpr int PW = 2;
	uint32_t x, y;
	__device__ explicit Prof(const uint32_t *w) : x(w[0]), y(w[1]) {}
	__device__ static void words(const Params &P, const uint8_t *codes, uint32_t *w)
	{
		w[0] = P.prof_s[codes[0]];
		w[1] = P.prof_s[codes[1]];
	}
	template <bool AMB> __device__ uint32_t score(uint32_t sel, int) const
	{
		uint32_t s = prmt(x, y, sel);
		return AMB ? s | amb_mask(sel) : s;
	}
};

template <> struct Prof<8> {
	static constexpr int PW = 8;
	uint32_t p0, p1, p2, p3, n0, n1, n2, n3;
	__device__ explicit Prof(const uint32_t *w)
		: p0(w[0]), p1(w[1]), p2(w[2]), p3(w[3]), n0(w[4]), n1(w[5]), n2(w[6]), n3(w[7]) {}
	__device__ static void words(const Params &P, const uint8_t *codes, uint32_t *w)
	{
		for (int q = 0; q < 4; q++) {
			w[q] = P.prof_pos[codes[q]];
			w[4 + q] = P.prof_neg[codes[q]];
		}
	}
	template <bool AMB> __device__ PosNeg score(uint32_t sel, int) const
	{
		const uint32_t merge = 0x7610u;  /* bytes 0,1 of a; 2,3 of b */
		PosNeg s;
		s.pos = prmt(prmt(p0, p1, sel), prmt(p2, p3, sel), merge);
		s.neg = prmt(prmt(n0, n1, sel), prmt(n2, n3, sel), merge);
		if (AMB) {
			uint32_t m = amb_mask(sel);
			s.pos &= ~m;
			s.neg = (s.neg & ~m) | (m & 0x01010101u);
		}
		return s;
	}
};

/* Wide rows: Q separate 32-bit words per column, word k = query k. */
template <int Q> struct ProfWide {
	uint32_t p[Q];
	__device__ ProfWide(const Params &P, const uint8_t *codes)
	{
#pragma unroll
		for (int q = 0; q < Q; q++)
			p[q] = P.prof_s[codes[q]];
	}
	template <bool AMB> __device__ uint32_t score(uint32_t sel, int k) const
	{
		return prmt(p[k], FULL, sel_wide(sel, k));
	}
};

/* ---- top-K lists of keys with distinct bins (scan.h semantics) --------- */

struct TopList {
	uint64_t k[TOPK];
	uint32_t b[TOPK];
	int n;
	__device__ void clear()
	{
#pragma unroll
		for (int j = 0; j < TOPK; j++) {
			k[j] = 0;
			b[j] = 0;
		}
		n = 0;
	}
	__device__ void bubble()
	{
#pragma unroll
		for (int j = TOPK - 1; j > 0; j--) {
			if (k[j] > k[j - 1]) {
				uint64_t tk = k[j];
				uint32_t tb = b[j];
				k[j] = k[j - 1];
				b[j] = b[j - 1];
				k[j - 1] = tk;
				b[j - 1] = tb;
			}
		}
	}
	__device__ void offer(uint64_t key, int shift)
	{
		if (key == 0)
			return;
		uint32_t bin = key_col(key) >> shift;
		bool same = false;
#pragma unroll
		for (int j = 0; j < TOPK; j++) {
			if (j < n && b[j] == bin) {
				same = true;
				if (key > k[j])
					k[j] = key;
			}
		}
		if (!same) {
			if (n < TOPK) {
#pragma unroll
				for (int j = 0; j < TOPK; j++) {
					if (j == n) {
						k[j] = key;
						b[j] = bin;
					}
				}
				n++;
			} else if (key > k[TOPK - 1]) {
				k[TOPK - 1] = key;
				b[TOPK - 1] = bin;
			} else {
				return;
			}
		}
		bubble();
	}
	__device__ void remove_bin(uint32_t bin)
	{
		bool found = false;
#pragma unroll
		for (int j = 0; j < TOPK; j++) {
			if (!found && j < n && b[j] == bin)
				found = true;
			if (found) {
				if (j < TOPK - 1) {
					k[j] = k[j + 1];
					b[j] = b[j + 1];
				} else {
					k[j] = 0;
					b[j] = 0;
				}
			}
		}
		if (found)
			n--;
	}
};

/* Merges the lists of a warp's lanes into the warp's top K (every lane gets
 * the result in out[]; missing entries are 0). */
__device__ __forceinline__ void warp_merge(TopList &l, int shift, uint64_t out[TOPK])
{
#pragma unroll
	for (int r = 0; r < TOPK; r++) {
		uint64_t best = l.n > 0 ? l.k[0] : 0;
#pragma unroll
		for (int d = WARP / 2; d > 0; d >>= 1) {
			uint64_t o = __shfl_xor_sync(FULL, best, d);
			best = o > best ? o : best;
		}
		out[r] = best;
		if (best != 0)
			l.remove_bin(key_col(best) >> shift);
	}
}

/* ---- the strip kernel --------------------------------------------------- */

/* How a row updates the column maxima.  Ladder kernels fold every row;
 * plain kernels fold rows in pairs with one 3-input max on the odd row,
 * taking the even row's H as it is replaced (rows whose E scan changed H
 * fold it again after the scan, and an unpaired last row after the loop). */
enum MaxMode { MAX_EVERY, MAX_SKIP, MAX_PAIR };

template <int B, bool LADDER, int C> struct Strip {
	typedef Ops<B> N;
	typedef Ops<32> W;
	static constexpr int Q = 32 / B;
	static constexpr int S = WARP * C;               /* columns per strip */
	static constexpr int NWORDS = LADDER ? C * Q : C;
	static constexpr int NMW = LADDER ? C * Q : 1;
	/* Left edge of a strip, per row: H and K of the previous strip's last
	 * column.  Ladder kernels keep one int32 per query (either width reads
	 * it); plain kernels the packed word. */
	static constexpr int EW = LADDER ? Q : 1;
	static constexpr int MAX_STEPS = 5;  /* log2(WARP) */

	/* Registers of one lane: the words of its C columns. */
	struct State {
		uint32_t H[NWORDS], F[NWORDS], Mn[C], Mw[NMW], sel[C];
	};

	/* Decay words: per column (E), opening (O + E), and the lane span
	 * E*C from which the E scan's per-step decays are made when a row
	 * needs them (registers are the kernel's scarce resource). */
	struct Decays {
		uint32_t e, oe;
		int ext_c;
	};

	template <class O> __device__ static void make_decays(Decays &d, const Params &P)
	{
		d.e = O::dec(P.ext);
		d.oe = O::dec(P.oe);
		d.ext_c = P.ext * C;
	}

	template <class O, int WPC>
	__device__ static void load_edge(const uint32_t *src, uint32_t (&v)[WPC])
	{
		if constexpr (!LADDER) {
			v[0] = src[0];
		} else if constexpr (WPC == 1) {
			uint32_t w = 0;
#pragma unroll
			for (int q = 0; q < Q; q++)
				w = O::put(w, q, (int)src[q]);
			v[0] = w;
		} else {
#pragma unroll
			for (int k = 0; k < WPC; k++)
				v[k] = src[k];
		}
	}

	template <class O, int WPC>
	__device__ static void store_edge(uint32_t *dst, const uint32_t (&v)[WPC])
	{
		if constexpr (!LADDER) {
			dst[0] = v[0];
		} else if constexpr (WPC == 1) {
#pragma unroll
			for (int q = 0; q < Q; q++)
				dst[q] = (uint32_t)O::get(v[0], q);
		} else {
#pragma unroll
			for (int k = 0; k < WPC; k++)
				dst[k] = v[k];
		}
	}

	/* One row of one strip, layout (O, WPC): WPC words per column, word k
	 * holding lanes k*LANES.. of the group.  dprev: the diagonal entering
	 * column 0 (H(i-1, a-1)); ek: the E carry entering it (K(i, a-1)), both
	 * read from this row's edge before the call; erow is then overwritten
	 * with this strip's right edge.  kd: this lane's distance to the
	 * nearest barrier lane at or left of it (see Barriers), NO_BARRIER if
	 * none.  Returns whether the next row must be wide (ladders). */
	template <class O, int WPC, bool WIDE, bool AMB, bool VOTE_OR, MaxMode MM, class PF>
	__device__ static bool row(State &st, uint32_t *erow, const PF &pf, const Decays &dc,
				   int lane, int nsteps, int kd, int oe, int ovf_thr,
				   const uint32_t (&dprev)[WPC], const uint32_t (&ek)[WPC], bool &f_alive)
	{
		uint32_t dl[WPC];

#pragma unroll
		for (int k = 0; k < WPC; k++) {
			const uint32_t v = __shfl_up_sync(FULL, st.H[(C - 1) * WPC + k], 1);
			dl[k] = lane == 0 ? dprev[k] : v;
		}

		/* Step 1 (Eq. 5), right to left so that H(i-1, j-1) is still there.
		 * Plain kernels only need "some H~ > O+E": when O+E = 2^k - 1 an OR
		 * of the words answers it exactly and more cheaply than a maximum
		 * (all <= O+E iff no bit above the k low ones is set). */
		uint32_t r0 = 0, r1 = 0;
#pragma unroll
		for (int c = C - 1; c >= 0; c--) {
#pragma unroll
			for (int k = 0; k < WPC; k++) {
				const int w = c * WPC + k;
				const uint32_t diag = c > 0 ? st.H[w - WPC] : dl[k];
				const uint32_t above = st.H[w];
				st.H[w] = O::ht(diag, pf.template score<AMB>(st.sel[c], k), st.F[w]);
				if constexpr (MM == MAX_PAIR)
					st.Mn[c] = O::max3(st.Mn[c], above, st.H[w]);
				if constexpr (VOTE_OR) {
					r0 |= st.H[w];
				} else {
					if (c & 1)
						r1 = O::max2(r1, st.H[w]);
					else
						r0 = O::max2(r0, st.H[w]);
				}
			}
		}
		/* The carry is biased (K' = K + O + E): it matters only above O+E.
		 * It is the same in every lane; testing it inside the vote keeps
		 * `need` a vote result, which the compiler knows to be uniform. */
		bool kin = false;
#pragma unroll
		for (int k = 0; k < WPC; k++)
			kin |= O::any_gt(ek[k], oe);
		bool need, ovf = false;
		if constexpr (LADDER) {
			const uint32_t rmax = O::max2(r0, r1);
			need = __any_sync(FULL, O::any_gt(rmax, oe) || kin);
			ovf = __any_sync(FULL, O::any_gt(rmax, ovf_thr));
		} else if constexpr (VOTE_OR) {
			need = __any_sync(FULL, O::or_any_gt(r0, oe) || kin);
		} else {
			need = __any_sync(FULL, O::any_gt(O::max2(r0, r1), oe) || kin);
		}

		/* Step 2 (Eq. 6-7): local scans from zero, the lanes within reach,
		 * then the strip's left carry and a final pass. */
		uint32_t kout[WPC];
#pragma unroll
		for (int k = 0; k < WPC; k++)
			kout[k] = 0;
		if (need) {
			uint32_t incl[WPC];
#pragma unroll
			for (int k = 0; k < WPC; k++) {
				uint32_t K = 0;
#pragma unroll
				for (int c = 0; c < C; c++)
					K = O::kstep(K, dc.e, st.H[c * WPC + k]);
				incl[k] = K;
			}
#pragma unroll
			for (int s = 0; s < MAX_STEPS; s++) {
				if (s < nsteps) {
#pragma unroll
					for (int k = 0; k < WPC; k++) {
						const uint32_t v = __shfl_up_sync(FULL, incl[k], 1 << s);
						if (lane >= (1 << s) && kd > (1 << s))
							incl[k] = O::decay(v, O::dec((int64_t)dc.ext_c << s), incl[k]);
					}
				}
			}
#pragma unroll
			for (int k = 0; k < WPC; k++) {
				const uint32_t v = __shfl_up_sync(FULL, incl[k], 1);
				uint32_t K = O::decay(kd <= lane ? 0u : ek[k], O::dec((int64_t)dc.ext_c * lane),
						      lane == 0 || kd <= 1 ? 0u : v);
#pragma unroll
				for (int c = 0; c < C; c++) {
					const int w = c * WPC + k;
					const uint32_t ht = st.H[w];
					st.H[w] = O::kstep(K, dc.oe, ht);
					K = O::kstep(K, dc.e, ht);
				}
				kout[k] = K;
			}
			if constexpr (MM != MAX_EVERY) {
#pragma unroll
				for (int c = 0; c < C; c++)
					st.Mn[c] = O::max2(st.Mn[c], st.H[c]);
			}
		}
		if (kd == 0) {   /* a barrier: nothing leaves it */
#pragma unroll
			for (int k = 0; k < WPC; k++) {
				st.H[(C - 1) * WPC + k] = 0;
				kout[k] = 0;
			}
		}
		__syncwarp();
		if (lane == WARP - 1) {
			uint32_t hl[WPC];
#pragma unroll
			for (int k = 0; k < WPC; k++)
				hl[k] = st.H[(C - 1) * WPC + k];
			store_edge<O, WPC>(erow, hl);
			store_edge<O, WPC>(erow + EW, kout);
		}

		/* The column maxima. */
#pragma unroll
		for (int c = 0; c < (MM == MAX_EVERY ? C : 0); c++) {
#pragma unroll
			for (int k = 0; k < WPC; k++) {
				const int w = c * WPC + k;
				if constexpr (WIDE)
					st.Mw[w] = O::max2(st.Mw[w], st.H[w]);
				else
					st.Mn[c] = O::max2(st.Mn[c], st.H[w]);
			}
		}
		/* Step 3 (Eq. 8), lazily: F(i+1) = max(F - E, H - O - E, 0) is all
		 * zero when every F is zero and no H exceeds O + E (an H above it
		 * needs an H~ above it or an E carry, i.e. `need`), so such rows
		 * skip it (Farrar's lazy F, per warp). */
		if (need || f_alive) {
			uint32_t fo = 0;
#pragma unroll
			for (int w = 0; w < C * WPC; w++) {
				st.F[w] = O::decay(st.H[w], dc.oe, O::decay(st.F[w], dc.e, 0u));
				fo |= st.F[w];
			}
			f_alive = __any_sync(FULL, fo != 0);
		}
		return ovf;
	}

	/* Narrow -> wide: word c's lanes become words c*Q+q (back to front, in
	 * place); narrow column maxima fold into the wide ones. */
	__device__ static void to_wide(State &st)
	{
#pragma unroll
		for (int c = C - 1; c >= 0; c--) {
			const uint32_t h = st.H[c], f = st.F[c];
#pragma unroll
			for (int q = Q - 1; q >= 0; q--) {
				st.H[c * Q + q] = (uint32_t)N::get(h, q);
				st.F[c * Q + q] = (uint32_t)N::get(f, q);
			}
		}
		fold_max(st);
	}

	__device__ static void fold_max(State &st)
	{
#pragma unroll
		for (int c = 0; c < C; c++) {
#pragma unroll
			for (int q = 0; q < Q; q++)
				st.Mw[c * Q + q] = W::max2(st.Mw[c * Q + q], (uint32_t)N::get(st.Mn[c], q));
			st.Mn[c] = 0;
		}
	}

	/* Wide -> narrow (front to back, in place): every H and F <= the row
	 * maximum, which fits (Eq. 10). */
	__device__ static void to_narrow(State &st)
	{
#pragma unroll
		for (int c = 0; c < C; c++) {
			uint32_t h = 0, f = 0;
#pragma unroll
			for (int q = 0; q < Q; q++) {
				h = N::put(h, q, (int)st.H[c * Q + q]);
				f = N::put(f, q, (int)st.F[c * Q + q]);
			}
			st.H[c] = h;
			st.F[c] = f;
		}
	}

	/* Row i of a plain strip: loads row i+1's inputs (prof and edge have
	 * a spare row L, so no bound check), computes row i, then shifts the
	 * pipeline (pf, eh, ek: row i's on entry, i+1's on exit). */
	template <bool AMB, bool VOTE_OR, MaxMode MM>
	__device__ static void plain_row(State &st, uint32_t *edge, const Params &P, const uint32_t *prof,
					 int i, Prof<B> &pf, uint32_t (&eh)[1], uint32_t (&ek)[1],
					 uint32_t (&dprev)[1], const Decays &dn, int lane, int nsteps,
					 int kd, int up_thr, bool &f_alive)
	{
		const Prof<B> pf_n(prof + (size_t)(i + 1) * Prof<B>::PW);
		uint32_t eh_n[1], ek_n[1];
		load_edge<N, 1>(edge + (size_t)(i + 1) * 2 * EW, eh_n);
		load_edge<N, 1>(edge + (size_t)(i + 1) * 2 * EW + EW, ek_n);
		row<N, 1, false, AMB, VOTE_OR, MM>(st, edge + (size_t)i * 2 * EW, pf, dn, lane, nsteps,
						   kd, P.oe, up_thr, dprev, ek, f_alive);
		dprev[0] = eh[0];
		eh[0] = eh_n[0];
		ek[0] = ek_n[0];
		pf = pf_n;
	}

	/* All rows of one strip.  Counts rows done narrow and wide. */
	template <bool AMB, bool VOTE_OR>
	__device__ static void run(State &st, uint32_t *edge, const Params &P, const uint8_t *rows,
				   const uint32_t *prof, int L, int lane, int nsteps, int kd,
				   int &n_narrow, int &n_wide)
	{
		Decays dn, dw;
		make_decays<N>(dn, P);
		make_decays<W>(dw, P);
		const int up_thr = N::LIMIT - P.match - P.clip5;
		const int down_thr = N::LIMIT - NARROW_BACK_MARGIN - P.match - P.clip5;
		uint32_t dprev[LADDER ? Q : 1];
		bool wide = false, vote_wide = false, f_alive = false;

#pragma unroll
		for (int q = 0; q < (LADDER ? Q : 1); q++)
			dprev[q] = 0;
		(void)wide;
		(void)vote_wide;
		(void)down_thr;
		if constexpr (LADDER) {
			for (int i = 0; i < L; i++) {
				const uint8_t *codes = rows + i * Q;
				uint32_t *erow = edge + (size_t)i * 2 * EW;
				/* Eq. 9/10 for this row: the vote of the row above, and
				 * the values entering from the left strip (the diagonal
				 * and the E carry), which must fit narrow lanes too.
				 * dprev is kept as one int32 per query here. */
				int emax = 0;
				uint32_t next_d[Q];
#pragma unroll
				for (int q = 0; q < Q; q++) {
					next_d[q] = erow[q];
					emax = max(emax, max((int)dprev[q], (int)erow[EW + q]));
				}
				const bool want = vote_wide || emax > up_thr;
				if (want && !wide)
					to_wide(st);
				else if (!want && wide)
					to_narrow(st);
				wide = want;
				if (wide) {
					ProfWide<Q> pf(P, codes);
					uint32_t ek[Q];
					load_edge<W, Q>(erow + EW, ek);
					vote_wide = row<W, Q, true, AMB, false, MAX_EVERY>(st, erow, pf, dw, lane, nsteps,
									 kd, P.oe, down_thr, dprev, ek, f_alive);
					n_wide++;
				} else {
					Prof<B> pf(prof + (size_t)i * Prof<B>::PW);
					uint32_t d1[1] = { 0 }, ek[1];
#pragma unroll
					for (int q = 0; q < Q; q++)
						d1[0] = N::put(d1[0], q, (int)dprev[q]);
					load_edge<N, 1>(erow + EW, ek);
					vote_wide = row<N, 1, false, AMB, false, MAX_EVERY>(st, erow, pf, dn, lane, nsteps,
									  kd, P.oe, up_thr, d1, ek, f_alive);
					n_narrow++;
				}
				/* The next row's diagonal, as read before this row
				 * overwrote the edge (a narrow load may not hold it). */
#pragma unroll
				for (int q = 0; q < Q; q++)
					dprev[q] = next_d[q];
			}
		} else {
			/* Plain rows, software-pipelined: the next row's scores and
			 * left edge are loaded while this row computes; rows go in
			 * pairs for the column maxima. */
			Prof<B> pf(prof);
			uint32_t eh[1], ek[1];
			load_edge<N, 1>(edge, eh);
			load_edge<N, 1>(edge + EW, ek);
			/* 8-bit lanes have no 3-input max instruction, so they fold
			 * every row, one row per iteration: their emulated
			 * instructions make a row's code large, and two rows per
			 * iteration halved the 8-bit kernel's speed.  16-bit lanes
			 * go in pairs for the column maxima.  (Four rows per
			 * iteration, to let the compiler swap H register sets
			 * rather than copy the pair's second row back, spills.) */
			if constexpr (B == 8) {
				for (int i = 0; i < L; i++)
					plain_row<AMB, VOTE_OR, MAX_EVERY>(st, edge, P, prof, i, pf, eh, ek, dprev,
									   dn, lane, nsteps, kd, up_thr, f_alive);
			} else {
				for (int i = 0; i < L; i += 2) {
					plain_row<AMB, VOTE_OR, MAX_SKIP>(st, edge, P, prof, i, pf, eh, ek, dprev,
									  dn, lane, nsteps, kd, up_thr, f_alive);
					if (i + 1 < L)
						plain_row<AMB, VOTE_OR, MAX_PAIR>(st, edge, P, prof, i + 1, pf, eh,
										  ek, dprev, dn, lane, nsteps, kd,
										  up_thr, f_alive);
				}
				if (L & 1) {
#pragma unroll
					for (int c = 0; c < C; c++)
						st.Mn[c] = N::max2(st.Mn[c], st.H[c]);
				}
			}
			n_narrow += L;
		}
		if constexpr (LADDER) {
			/* The next strip starts narrow: its edge is format-neutral. */
			fold_max(st);
			/* The 3' bonus: H holds the last row, in its width. */
			if (P.clip3) {
#pragma unroll
				for (int c = 0; c < C; c++) {
#pragma unroll
					for (int q = 0; q < Q; q++) {
						const int h = wide ? (int)st.H[c * Q + q] : N::get(st.H[c], q);
						if (h > 0 && h + P.clip3 > (int)st.Mw[c * Q + q])
							st.Mw[c * Q + q] = (uint32_t)(h + P.clip3);
					}
				}
			}
		}
	}
};

/* Dynamic shared memory of a strip kernel block: the group's rows, the
 * rows' score words (Prof<B>::words, plus a spare zero row L), then each
 * warp's edge (2 * EW words per row, rows 0..L). */
__host__ __device__ constexpr size_t rows_bytes(int L, int Q) { return ((size_t)L * Q + 15) / 16 * 16; }

template <int B>
__host__ __device__ constexpr size_t prof_bytes(int L)
{
	return (size_t)(L + 1) * Prof<B>::PW * sizeof(uint32_t);
}

template <int B, bool LADDER, int C, int NW>
__host__ __device__ constexpr size_t strip_smem(int L)
{
	return rows_bytes(L, 32 / B) + prof_bytes<B>(L) +
	       (size_t)NW * (L + 1) * 2 * Strip<B, LADDER, C>::EW * sizeof(uint32_t);
}

/* GREF: every group scans its own reference (Params.gref); a separate
 * instantiation, so that the whole-reference kernel keeps its registers. */
template <int B, bool LADDER, int C, int NW, bool GREF>
__global__ void __launch_bounds__(NW * WARP, GREF && B == 16 && !LADDER ? SM_STRIP_GREF_MIN_BLOCKS
					     : !GREF && !LADDER && C <= 16 ? SM_STRIP_MIN_BLOCKS * 4 / NW : 1)
strip_kernel(Params P)
{
	typedef Strip<B, LADDER, C> SK;
	constexpr int Q = SK::Q;
	constexpr int S = SK::S;
	extern __shared__ uint4 s_dyn[];
	const int lane = threadIdx.x & (WARP - 1), warp = threadIdx.x / WARP;
	const int grp = blockIdx.y;
	const int range = blockIdx.x * NW + warp;
	const int L = P.glen[grp];
	constexpr int PW = Prof<B>::PW;
	uint8_t *s_rows = (uint8_t *)s_dyn;
	uint32_t *s_prof = (uint32_t *)((uint8_t *)s_dyn + rows_bytes(L, Q));
	uint32_t *edge = (uint32_t *)((uint8_t *)s_prof + prof_bytes<B>(L)) +
			 (size_t)warp * (L + 1) * 2 * SK::EW;
	const uint8_t *rows = P.qry + P.qoff[grp];

	if constexpr (GREF) {
		/* Every range of the block lies past this group's reference
		 * (the launch's ranges fit its longest group): empty lists. */
		if ((int64_t)blockIdx.x * NW * P.range_len >= P.gdev_len[grp]) {
			for (int x = threadIdx.x; x < NW * Q * TOPK; x += NW * WARP) {
				const int r = blockIdx.x * NW + x / (Q * TOPK), q = x % (Q * TOPK) / TOPK;

				if (r < P.nranges)
					P.range_out[((size_t)(grp * Q + q) * P.nranges + r) * TOPK +
						    x % TOPK] = 0;
			}
			return;
		}
	}
	for (int x = threadIdx.x; x < L * Q; x += NW * WARP)
		s_rows[x] = rows[x];
	for (int x = threadIdx.x; x < L; x += NW * WARP)
		Prof<B>::words(P, rows + (size_t)x * Q, s_prof + (size_t)x * PW);
	if (threadIdx.x < PW)
		s_prof[(size_t)L * PW + threadIdx.x] = 0;
	/* The group's own reference (GREF), kept in shared memory.  (As
	 * volatile, to keep them out of registers, the whole-reference
	 * instantiation spilled 68 bytes.) */
	__shared__ const uint8_t *s_ref;
	__shared__ const int64_t *s_dev_start;
	__shared__ const int64_t *s_goff, *s_goff1;
	__shared__ int64_t s_dev_len;
	__shared__ int s_n_contig;
	if (GREF && threadIdx.x == 0) {
		s_ref = P.ref + P.gref[grp];
		s_dev_len = P.gdev_len[grp];
		s_dev_start = P.dev_start + P.gcontig[grp];
		s_goff = P.goff + P.gcontig[grp];
		s_goff1 = P.goff1 + P.gcontig[grp];
		s_n_contig = P.gcontig[grp + 1] - P.gcontig[grp];
	}
	__syncthreads();
	if (range >= P.nranges)
		return;
	const int64_t dev_len = GREF ? s_dev_len : P.dev_len;
	if constexpr (GREF) {
		if ((int64_t)range * P.range_len >= dev_len) {
			/* This group's reference ends before the range: empty lists. */
			if (lane < Q * TOPK)
				P.range_out[((size_t)(grp * Q + lane / TOPK) * P.nranges + range) * TOPK +
					    lane % TOPK] = 0;
			return;
		}
	}
	for (int x = lane; x < (L + 1) * 2 * SK::EW; x += WARP)
		edge[x] = 0;
	__syncwarp();

	/* Reach in lanes (Eq. 11): K <= L*match + clip5 decays by E per
	 * column, so lanes further than dmax to the left cannot matter. */
	const int64_t smax = (int64_t)L * P.match + P.clip5;
	const int64_t lane_cols = (int64_t)P.ext * C;
	const int64_t dmax = (smax + lane_cols - 1) / lane_cols;
	int nsteps = 0;
	while (nsteps < SK::MAX_STEPS && ((1 << nsteps) - 1) < dmax)
		nsteps++;

	const int64_t col0 = GREF ? 0 : P.col0;
	int64_t u0 = col0 + (int64_t)range * P.range_len;
	int64_t u1 = u0 + P.range_len < dev_len ? u0 + P.range_len : dev_len;
	int64_t x0 = u0 - P.halo;
	if (x0 < col0)
		x0 = col0;
	if (!GREF && P.range_tab) {   /* ranges of contigs, separators skipped */
		u0 = P.range_tab[3 * range];
		u1 = P.range_tab[3 * range + 1];
		x0 = P.range_tab[3 * range + 2];
	}
	/* Each lane's running top-K lists live in shared memory: they change
	 * once per strip, and registers are the kernel's scarce resource. */
	__shared__ TopList s_tl[NW * WARP][Q];
	TopList (&tl)[Q] = s_tl[threadIdx.x];
	int shift[Q];
#pragma unroll
	for (int q = 0; q < Q; q++) {
		shift[q] = P.shift[grp * Q + q];
		tl[q].clear();
	}
	int n_narrow = 0, n_wide = 0;

	for (int64_t x = x0; x < u1; x += S) {
		const int64_t c0 = x + (int64_t)lane * C;
		typename SK::State st;
		bool amb = false, all_pad = true;
#pragma unroll
		for (int c = 0; c < C; c++) {
			uint32_t r = (GREF ? s_ref : P.ref)[c0 + c], r1 = r;
			if constexpr (GREF) {   /* a code per lane pair */
				r1 = r >> CODE_LANE_BITS;
				r &= (1u << CODE_LANE_BITS) - 1;
			}
			st.sel[c] = make_sel<B>(r, r1);
			amb |= r >= CODE_AMB || r1 >= CODE_AMB;
			all_pad &= r == CODE_PAD && r1 == CODE_PAD;
			st.Mn[c] = 0;
		}
		int kd = NO_BARRIER;
		if constexpr (GREF) {   /* Barriers: lanes of separator columns only */
			const unsigned upto = __ballot_sync(FULL, all_pad) & (FULL >> (WARP - 1 - lane));
			if (upto)
				kd = lane - (WARP - 1 - __clz(upto));
		}
#pragma unroll
		for (int w = 0; w < SK::NWORDS; w++)
			st.H[w] = st.F[w] = 0;
#pragma unroll
		for (int w = 0; w < SK::NMW; w++)
			st.Mw[w] = 0;
		const bool vote_or = !LADDER && (P.oe & (P.oe + 1)) == 0;
		if (__any_sync(FULL, amb)) {
			if (vote_or)
				SK::template run<true, true>(st, edge, P, s_rows, s_prof, L, lane, nsteps, kd, n_narrow, n_wide);
			else
				SK::template run<true, false>(st, edge, P, s_rows, s_prof, L, lane, nsteps, kd, n_narrow, n_wide);
		} else {
			if (vote_or)
				SK::template run<false, true>(st, edge, P, s_rows, s_prof, L, lane, nsteps, kd, n_narrow, n_wide);
			else
				SK::template run<false, false>(st, edge, P, s_rows, s_prof, L, lane, nsteps, kd, n_narrow, n_wide);
		}

		/* This lane's columns lie in one contig (separators are wider
		 * than a lane) and in one locus bin: its best per query.  Odd
		 * lanes map their columns with goff1 (Lane references). */
		const int64_t *dev_start = GREF ? s_dev_start : P.dev_start;
		const int64_t *goff = GREF ? s_goff : P.goff;
		const int64_t *goff1 = GREF ? s_goff1 : P.goff;
		int32_t lo = 0, hi = (GREF ? s_n_contig : P.n_contig) - 1;
		const int64_t last = c0 + C - 1;
		while (lo < hi) {
			const int32_t mid = lo + (hi - lo + 1) / 2;
			if (dev_start[mid] <= last)
				lo = mid;
			else
				hi = mid - 1;
		}
#pragma unroll
		for (int q = 0; q < Q; q++) {
			const int64_t to_global = ((q & 1) ? goff1 : goff)[lo] - dev_start[lo];
			uint64_t best = 0;
#pragma unroll
			for (int c = 0; c < C; c++) {
				const int64_t col = c0 + c;
				const bool ok = col >= u0 && col < u1 && !(st.sel[c] & sel_pad(q));
				int s;
				if constexpr (LADDER) {
					s = (int)st.Mw[c * Q + q];
				} else {
					/* The 3' bonus (the ladders fold it in run()). */
					const int h = Ops<B>::get(st.H[c], q);
					s = Ops<B>::get(st.Mn[c], q);
					if (h > 0 && h + P.clip3 > s)
						s = h + P.clip3;
				}
				const uint64_t key = ((uint64_t)(uint32_t)s << 32) |
						     (0xffffffffu - (uint32_t)(col + to_global));
				if (ok && s > 0 && key > best)
					best = key;
			}
			tl[q].offer(best, shift[q]);
		}
	}

	if (lane == 0) {
		const unsigned long long per_row = (unsigned long long)S * Q;
		atomicAdd(&P.cells_w[Ops<B>::WIDX], per_row * (unsigned long long)n_narrow);
		if (n_wide)
			atomicAdd(&P.cells_w[Ops<32>::WIDX], per_row * (unsigned long long)n_wide);
	}
#pragma unroll
	for (int q = 0; q < Q; q++) {
		uint64_t out[TOPK];
		TopList l = tl[q];
		warp_merge(l, shift[q], out);
		if (lane == 0) {
			uint64_t *dst = P.range_out + ((size_t)(grp * Q + q) * P.nranges + range) * TOPK;
#pragma unroll
			for (int r = 0; r < TOPK; r++)
				dst[r] = out[r];
		}
	}
}

/* Reduces each slot's per-range lists to its final top K. */
constexpr int MERGE_THREADS = 256;

__global__ void __launch_bounds__(MERGE_THREADS)
merge_kernel(const uint64_t *range_out, int nranges, const int32_t *shift, uint64_t *res)
{
	constexpr int NW = MERGE_THREADS / WARP;
	__shared__ uint64_t s_part[NW * TOPK];
	const int slot = blockIdx.x;
	const int lane = threadIdx.x & (WARP - 1), warp = threadIdx.x / WARP;
	const int sh = shift[slot];
	const uint64_t *src = range_out + (size_t)slot * nranges * TOPK;
	const int total = nranges * TOPK;
	TopList tl;
	uint64_t out[TOPK];

	tl.clear();
	for (int x = threadIdx.x; x < total; x += MERGE_THREADS)
		tl.offer(src[x], sh);
	warp_merge(tl, sh, out);
	if (lane == 0) {
#pragma unroll
		for (int r = 0; r < TOPK; r++)
			s_part[warp * TOPK + r] = out[r];
	}
	__syncthreads();
	if (warp == 0) {
		tl.clear();
		for (int x = lane; x < NW * TOPK; x += WARP)
			tl.offer(s_part[x], sh);
		warp_merge(tl, sh, out);
		if (lane == 0) {
#pragma unroll
			for (int r = 0; r < TOPK; r++)
				res[(size_t)slot * TOPK + r] = out[r];
		}
	}
}

}  /* namespace smk */

#endif
