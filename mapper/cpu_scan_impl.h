/* cpu_scan_impl.h — internals shared by cpu_scan.c and the per-ISA kernels
 * (cpu_scan_sse41.c, cpu_scan_avx2.c, cpu_scan_avx512.c, each instantiating
 * cpu_scan_simd.h).  Not a public header.
 *
 * The reference is processed tile by tile, each tile being at most
 * SM_CPU_TILE_COLS columns of one contig.  A tile's columns are cut into L
 * segments of W consecutive columns, L = the number of 8-bit lanes of one
 * vector (16, 32 or 64), W = ceil(columns / L).  Column c of the tile
 * (0-based) is segment c / W, step c % W.  At cell width w (8, 16, 32 bits)
 * one step holds L cells in R = w / 8 vectors: vector r of step v holds
 * segments r*(L/R) .. r*(L/R)+L/R-1, lane k being segment r*(L/R)+k.  So a
 * whole row of the tile is W*R consecutive vectors, and one lane walks one
 * segment from left to right: the horizontal recurrence runs down the lanes
 * with no shuffle; only the segment boundaries need lane shifts, once per
 * row (the localised scan of Yasui & Ino, Fig. 4, with segments = lanes).
 * Row buffers: hp holds H of the previous row, f the vertical gap F of the
 * row being computed, cm the column maxima of the rows run at that width.
 *
 * Tiles of one contig pass their right boundary to the next tile: per read
 * row i, H(i, last column) and the horizontal gap E(i, next column).  So no
 * halo is recomputed and every tile is exact. */
#ifndef SM_CPU_SCAN_IMPL_H
#define SM_CPU_SCAN_IMPL_H

#include <stdint.h>

#include "mapper/cpu_scan.h"

/* Columns per tile: a multiple of the widest vector's byte count (64).  At
 * 8-bit cells one row of a tile's H, F and column maxima plus the profile
 * row is 4 * 4 KiB, which stays in L1. */
#define SM_CPU_TILE_COLS 4096
/* Alignment of every workspace buffer: one AVX-512 vector. */
#define SM_CPU_ALIGN 64
/* Gap left after every workspace buffer so that no two buffers start at
 * the same offset modulo 4 KiB: a load from one buffer would otherwise be
 * taken as depending on the store just made to another (4K aliasing). */
#define SM_CPU_STAGGER (7 * SM_CPU_ALIGN)
/* Number of cell widths: 8, 16 and 32 bits (index 0, 1, 2). */
#define SM_CPU_N_WIDTHS 3
/* Hysteresis of the switch back to a narrower width (the paper's T, Eq. 10). */
#define SM_CPU_NARROW_MARGIN 10
/* Codes of the profile: the four bases and SM_BASE_N. */
#define SM_CPU_N_CODES 5
/* Profile rows: one per code, and row 1's (the read's first base with the
 * 5' bonus of score.h), built only when that bonus is not 0. */
#define SM_CPU_FIRST_ROW SM_CPU_N_CODES
#define SM_CPU_N_PROF (SM_CPU_N_CODES + 1)
/* With SM_CPU_KERNEL_AUTO, contigs of at most SM_CPU_DIAG_COLS columns
 * (<= SM_CPU_TILE_COLS) of a reference of at most SM_CPU_DIAG_REF columns go
 * to the anti-diagonal kernel (cpu_scan_simd.h, "Short contigs") if its
 * cells are 8-bit, or 16-bit with vectors of at least SM_CPU_DIAG_VB16
 * bytes.  A read scanned against so small a reference (seeded windows, a
 * mate's rescue window, the tandem check) is expected to align in it, and
 * where it does the anti-diagonal kernel is 1.5x (AVX2) to 2x (AVX-512)
 * faster at 8 bits (1.3x at 16 bits on AVX-512, slower on AVX2); in a whole
 * genome most contigs do not hold the read, and there the lazy tiles are up
 * to 2.7x faster (docs/cpu-engine.md, "Short contigs"). */
#define SM_CPU_DIAG_COLS 2048
#define SM_CPU_DIAG_REF 32768
#define SM_CPU_DIAG_VB16 64
/* The anti-diagonal kernel's score of read code q against reference code r
 * is xtab[x(q) ^ r], x(q) = q for the four bases and SM_CPU_XOR_N for N: so
 * 0 is a match, 1-3 a mismatch, 4-7 a reference N, 8-12 a read N. */
#define SM_CPU_XOR_N 8
/* Elements around a contig in the anti-diagonal kernel's buffers: the
 * reversed contig reaches L - 1 columns either side plus one vector, the
 * boundary rows take C + 4 L elements (cpu_scan_simd.h); L <= SM_CPU_ALIGN. */
#define SM_CPU_DIAG_MARGIN (4 * SM_CPU_ALIGN)

struct sm_cpu_scan_s {
	sm_cpu_isa_t isa;
	const sm_cpu_score_t *sc;  /* the scoring in kernel form (the creator's) */
	const int8_t *lut1;     /* the query's row-1 table: sc->lut1[its first base] */
	int allowed;            /* bit k set: width 8 << k may be used (ISA, ladder, scoring) */
	int32_t cap_rows;       /* rows the boundary arrays hold */
	int32_t *hb;            /* [cap_rows + 1] H(i, last column of previous tile) */
	int32_t *eb;            /* [cap_rows + 1] E(i, first column of this tile) */
	uint8_t *mem;           /* one aligned block holding the buffers below */
	uint8_t *sref;          /* [TILE] striped reference codes */
	uint8_t *prof;          /* [N_PROF][TILE] striped substitution scores (int8) */
	uint8_t *hp[SM_CPU_N_WIDTHS];   /* [TILE << k] H of the previous row */
	uint8_t *f[SM_CPU_N_WIDTHS];    /* [TILE << k] vertical gap F of the next row */
	uint8_t *cm[SM_CPU_N_WIDTHS];   /* [TILE << k] column maxima of rows at this width */
	/* The anti-diagonal kernel (short contigs): */
	sm_cpu_kernel_t kernel; /* which contigs use it */
	uint8_t *dq;            /* [cap_rows + 2 ALIGN] the read's codes (x(q)), padded on top */
	uint8_t *drev;          /* [TILE + MARGIN] the contig's codes, reversed */
	uint8_t *dbuf[2][3];    /* [(TILE + MARGIN) * 4] per group parity: H, G and the
				 * column maxima of the last row of a group of stripes */
};

/* The scoring scheme in the kernels' form (sm_cpu_score_create), the same
 * for every query: only the query's first base picks one of the row-1
 * tables, and its length the locus shift. */
struct sm_cpu_score_s {
	sm_score_t score;       /* the scheme it was compiled from */
	int32_t match, gap_open, gap_ext;
	int32_t clip5, clip3;   /* the end bonuses (score.h) */
	int allowed;            /* bit k: the scoring fits cells of 8 << k bits (8-bit
				 * lanes subtract O + E in one saturating instruction) */
	int n_prof;             /* profile rows to build: SM_CPU_N_PROF if clip5, else CODES */
	int8_t lut[SM_CPU_N_CODES][16];   /* [read code][ref code] substitution score */
	/* [read's first base][ref code]: row 1's scores, with the 5' bonus
	 * (sm_subst_first()); profile row SM_CPU_FIRST_ROW */
	int8_t lut1[SM_CPU_N_CODES][16];
	int8_t xtab[16];        /* [x(q) ^ r] the same scores (SM_CPU_XOR_N) */
	int8_t xtab5[16];       /* [x(q) ^ r] the 5' bonus row 1 adds to xtab's */
	int xtab_ok;            /* 1 if xtab gives every entry of lut */
};

/* Per-ISA entry points: one query against the whole reference, with the
 * workspace's scoring (ws->sc).  Same contract as sm_cpu_scan(). */
typedef int (*sm_cpu_kernel_fn)(sm_cpu_scan_t *ws, const sm_ref_t *ref, const sm_query_t *q,
				sm_scan_t *out, sm_engine_stats_t *st);

int sm_cpu_kernel_sse41(sm_cpu_scan_t *ws, const sm_ref_t *ref, const sm_query_t *q,
			sm_scan_t *out, sm_engine_stats_t *st);
int sm_cpu_kernel_avx2(sm_cpu_scan_t *ws, const sm_ref_t *ref, const sm_query_t *q,
		       sm_scan_t *out, sm_engine_stats_t *st);
int sm_cpu_kernel_avx512(sm_cpu_scan_t *ws, const sm_ref_t *ref, const sm_query_t *q,
			 sm_scan_t *out, sm_engine_stats_t *st);

/* Offers column `col` (global) with score s to out if it can change it: a
 * column scoring below the last of a full list can never enter it nor move
 * an entry's end, so skipping it keeps the result identical. */
static inline void sm_cpu_offer(sm_scan_t *out, int shift, int32_t s, int64_t col)
{
	if (s > 0 && (out->n < SM_TOPK || s >= out->top[out->n - 1].score))
		sm_scan_offer(out, shift, s, col);
}

/* Threshold below which no column can change out (see sm_cpu_offer). */
static inline int32_t sm_cpu_offer_floor(const sm_scan_t *out)
{
	return out->n < SM_TOPK ? 1 : out->top[out->n - 1].score;
}

#endif
