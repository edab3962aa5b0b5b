/* sw_params.cuh — what the GPU engine's host code shares with its kernels
 * (private to gpu/): the reference codes on the device and the launch
 * parameters (smk::Params).  sw_kernel.cuh has the kernels. */
#ifndef SM_SW_PARAMS_CUH
#define SM_SW_PARAMS_CUH

#include <cstdint>

#include "mapper/scan.h"

namespace smk {

constexpr int WARP = 32;
constexpr unsigned FULL = 0xffffffffu;
constexpr int TOPK = SM_TOPK;
/* Eq. 10's hysteresis T: back to narrow cells once max + match <= limit - T. */
constexpr int NARROW_BACK_MARGIN = 10;

/* Clipping penalty (mapper/score.h).  A read's first base has the row
 * code FIRST_CODE + c (the host marks it), whose profile is sm_subst_first():
 * s + clip5 against A..T.  An ambiguous column (and so every separator)
 * scores -1 in every row, the bonus included, as the oracle has it.  Row
 * 1's scores can reach match + clip5, which the ladders' overflow
 * thresholds take as the largest score.  The 3' bonus is folded into the
 * column maxima after a strip's last row (H(n) + clip3 where H(n) > 0),
 * in 32-bit arithmetic. */
constexpr uint8_t FIRST_CODE = SM_BASE_N + 1;

/* Reference codes on the device: 0..3 bases, 4 ambiguous, 5 separator.
 * Per-group references hold a code per lane pair (Lane references):
 * bits 0..2 the code of even lanes, bits 3..5 that of odd lanes. */
constexpr uint8_t CODE_AMB = 4;
constexpr uint8_t CODE_PAD = 5;
constexpr int CODE_LANE_BITS = 3;
__host__ __device__ constexpr uint8_t code_pair(uint8_t even, uint8_t odd)
{
	return (uint8_t)(even | odd << CODE_LANE_BITS);
}
constexpr uint8_t CODE_PAD_PAIR = code_pair(CODE_PAD, CODE_PAD);
/* kd of a lane with no barrier at or left of it (Barriers): more than
 * any lane distance. */
constexpr int NO_BARRIER = 64;

/* Per-column selector word: bits 0..15 the narrow byte-permute selector;
 * the reference code clamped to 4 of even lanes in bits 16..18 and of odd
 * lanes in bits 24..26; ambiguous in bit 23 (even lanes) and 31 (odd), the
 * sign bits of bytes 2 and 3, so that one permute spreads them over the
 * lanes (amb_mask); separator in bit 20 (even) and 21 (odd). */
constexpr int SEL_CODE_SHIFT = 16;
constexpr int SEL_CODE1_SHIFT = 24;
constexpr uint32_t SEL_AMB = 1u << 23;
constexpr uint32_t SEL_AMB1 = 1u << 31;
constexpr uint32_t SEL_PAD = 1u << 20;
constexpr uint32_t SEL_PAD1 = 1u << 21;

/* Launch-wide parameters (by value). */
struct Params {
	const uint8_t *ref;        /* device reference codes, window-padded */
	const uint8_t *qry;        /* group rows: [row][Q] codes, per group at qoff */
	const int64_t *qoff;       /* per group: offset of its rows in qry */
	const int32_t *glen;       /* per group: rows (longest query) */
	const int32_t *shift;      /* per slot (group*Q + lane): locus shift */
	uint64_t *range_out;        /* [slot][range][TOPK] keys */
	unsigned long long *cells_w;  /* [3]: cells computed in 8-, 16-, 32-bit lanes */
	const int64_t *dev_start;  /* per contig: device column of its first base */
	const int64_t *goff;       /* per contig: global coordinate of its first base */
	const int64_t *goff1;      /* GREF: the same for odd lanes (Lane references) */
	int n_contig;
	int64_t col0, dev_len;     /* the whole reference's ranges: columns [col0, dev_len), its
				      contigs and the separators between them (GREF: col0 0) */
	int nranges;               /* ranges of the reference, one warp each */
	const int64_t *range_tab;  /* whole reference: NULL, or range r reports columns
				      [range_tab[3r], range_tab[3r + 1]) computed from
				      range_tab[3r + 2] (sm_gpu_contig_ranges) */
	int64_t range_len;         /* reported columns per range (multiple of a lane's C) */
	int halo;                  /* context columns before a range (multiple of C) */
	int match, oe, ext;        /* score bounds: match; O+E; E */
	int clip5, clip3;          /* the end bonuses (mapper/score.h) */
	/* Per read code (Clipping penalty above: codes FIRST_CODE + c for a
	 * read's first base c): bytes s(q, A..T), signed; max(s, 0);
	 * max(-s, 0). */
	uint32_t prof_s[2 * (SM_BASE_N + 1)];
	uint32_t prof_pos[2 * (SM_BASE_N + 1)];
	uint32_t prof_neg[2 * (SM_BASE_N + 1)];
	/* Per-group references (GREF kernels only; the others scan the
	 * whole reference above).  Group g's reference starts at device column gref[g] (a
	 * multiple of 64), spans gdev_len[g] columns, and its contigs are
	 * dev_start/goff/goff1[gcontig[g] .. gcontig[g+1]) relative to gref[g]
	 * (with Lane references, contig j is the lanes' j-th contigs side by
	 * side: dev_start where the first of them starts). */
	const int64_t *gref;
	const int64_t *gdev_len;
	const int32_t *gcontig;
};

}  /* namespace smk */

#endif
