/* trace_band.h — one traceback's band fill and walk: what sm_align()
 * (align.h) does once it has chosen its window and band, for an engine
 * that takes tracebacks in batches (engine_ops.h's trace).  sm_tb_run is
 * the fill and walk on one thread (the oracle engine); the GPU engine fills
 * the same band a warp a traceback, by rows (gpu/gpu_trace.cu), and walks
 * with sm_tb_walk.  A leaf of the engine contract: C and CUDA.
 *
 * The fill is align.c's scalar recurrence (fill32, 32-bit cells) over the
 * same band, but it keeps one row of H and F (scratch) and stores per cell
 * only the decisions the walk takes there, in one byte:
 *   bits 0-1  where H came from, in the walk's order of preference: 0 it is
 *             0 (the alignment starts after this cell), 1 the diagonal,
 *             2 E (a deletion), 3 F (an insertion);
 *   bit 2     E was opened here (H of the left cell - gap open and extend
 *             beats E of the left cell - extend): a deletion run starts;
 *   bit 3     F was opened here (the same from the cell above).
 * The walk reads these bytes as sm_align()'s walk reads the three
 * matrices, so the end cell, the CIGAR and the start are the same. */
#ifndef SM_TRACE_BAND_H
#define SM_TRACE_BAND_H

#include <stddef.h>
#include <stdint.h>

#include "mapper/score.h"

/* Minus infinity of the fill's E and F (less gap penalties, no overflow). */
#define SM_TB_NEG (-(1 << 29))

#ifdef __CUDACC__
#define SM_TB_FN __host__ __device__ static inline
#else
#define SM_TB_FN static inline
#endif

/* CIGAR operations a batched traceback may return; a longer CIGAR is
 * SM_TB_OPS and traced again by sm_align(). */
#define SM_TB_MAX_OPS 32

/* Band offsets a batched traceback takes at most (sm_align() takes wider
 * bands itself). */
#define SM_TB_MAX_STRIDE 1024
/* Band cells ((n + 1) x stride) a batched traceback takes at most. */
#define SM_TB_MAX_CELLS (1 << 19)

/* One traceback: the read (n bases) against window columns 1..w, the
 * alignment ending at column w with objective `score`, within diagonals
 * dlo..dhi (column - row, align.c's align_band). */
typedef struct {
	int32_t n, w;
	int32_t dlo, dhi;
	int32_t score;
} sm_tb_job_t;

/* The scoring as the fill uses it (score.h): go = gap open + extend. */
typedef struct {
	int32_t match, mismatch, ambig;   /* mismatch: the penalty, > 0; ambig: an N's score */
	int32_t go, ge;
	int32_t clip5, clip3;
} sm_tb_score_t;

enum {
	SM_TB_OK = 0,
	SM_TB_NO_CELL,   /* no cell of column w has `score` (an engine disagreement) */
	SM_TB_OPS,       /* more than the ops buffer holds: trace it with sm_align() */
	SM_TB_WIDE,      /* the band is wider than SM_TB_MAX_STRIDE: sm_align() */
};

typedef struct {
	int32_t status;
	int32_t i_end;          /* the end row (the alignment's last read base, 1-based) */
	int32_t i_start;        /* the read bases before the alignment */
	int32_t j_start;        /* the window columns before it */
	int32_t n_ops;          /* CIGAR words (BAM encoding, ops M/I/D), last op first */
} sm_tb_res_t;

/* sc as the fill takes it. */
static inline sm_tb_score_t sm_tb_score(const sm_score_t *sc)
{
	sm_tb_score_t t = { sc->match, sc->mismatch, SM_SCORE_AMBIG, sc->gap_open + sc->gap_ext,
			    sc->gap_ext, sc->clip5, sc->clip3 };

	return t;
}

/* Band offsets of a job: its diagonals and a boundary offset each side. */
SM_TB_FN int32_t sm_tb_stride(const sm_tb_job_t *j)
{
	return j->dhi - j->dlo + 3;
}

/* Substitution score of reference code r against read code q, row 1's
 * with the 5' bonus when first (score.h's sm_subst and sm_subst_first). */
SM_TB_FN int32_t sm_tb_subst(const sm_tb_score_t *s, uint8_t r, uint8_t q, int first)
{
	int32_t v = (r >= SM_BASE_N || q >= SM_BASE_N) ? s->ambig
		    : r == q ? s->match : -s->mismatch;

	return first && r < SM_BASE_N ? v + s->clip5 : v;
}

/* Walks a fill's decision bytes (cell (i, k) at [(i - 1) * pitch + k]) back
 * from row i_end of column w (0: no cell had the score). */
SM_TB_FN void sm_tb_walk(const sm_tb_job_t *j, int32_t i_end, const uint8_t *dir, size_t pitch,
			 uint32_t *ops, sm_tb_res_t *res)
{
	int32_t i, jj, n_ops = 0;
	int state = 0;   /* 0 in H, 1 in E, 2 in F */

	res->n_ops = 0;
	res->i_end = res->i_start = res->j_start = 0;
	if (!i_end || j->score <= 0) {
		res->status = SM_TB_NO_CELL;
		return;
	}
	i = i_end;
	jj = j->w;
	for (;;) {
		const int32_t k = jj - i - j->dlo + 1;
		uint32_t op;
		uint8_t d;

		if (state == 0 && (i == 0 || jj < 1))
			break;   /* row 0 or left of the window: H is 0 */
		d = dir[(size_t)(i - 1) * pitch + (size_t)k];
		if (state == 0) {
			if ((d & 3) == 0)
				break;
			if ((d & 3) == 1) {
				op = 0;   /* BAM_CMATCH */
				i--;
				jj--;
			} else {
				state = (d & 3) == 2 ? 1 : 2;
				continue;
			}
		} else if (state == 1) {
			op = 2;   /* BAM_CDEL */
			if (d & 4)
				state = 0;
			jj--;
		} else {
			op = 1;   /* BAM_CINS */
			if (d & 8)
				state = 0;
			i--;
		}
		if (n_ops > 0 && (ops[n_ops - 1] & 0xf) == op) {
			ops[n_ops - 1] += 1u << 4;
		} else if (n_ops == SM_TB_MAX_OPS) {
			res->status = SM_TB_OPS;
			return;
		} else {
			ops[n_ops++] = (1u << 4) | op;
		}
	}
	res->status = SM_TB_OK;
	res->i_end = i_end;
	res->i_start = i;
	res->j_start = jj;
	res->n_ops = n_ops;
}

/* Fills job j's band and walks it back, on one thread (the oracle
 * engine's batched tracebacks, tests).  q: the read's codes; win: window
 * column x + 1's code at win[x].  hrow, frow: scratch, sm_tb_stride(j)
 * cells each.  dir: the decision bytes, cell (i, k) at [(i - 1) * pitch +
 * k] for rows 1..n (pitch at least the stride).  ops: SM_TB_MAX_OPS
 * words. */
SM_TB_FN void sm_tb_run(const sm_tb_job_t *j, const sm_tb_score_t *s, const uint8_t *q,
			const uint8_t *win, int32_t *hrow, int32_t *frow, uint8_t *dir, size_t pitch,
			uint32_t *ops, sm_tb_res_t *res)
{
	const int32_t S = sm_tb_stride(j);
	int32_t i_end = 0;

	if (S > SM_TB_MAX_STRIDE) {
		res->status = SM_TB_WIDE;
		res->n_ops = res->i_end = res->i_start = res->j_start = 0;
		return;
	}
	for (int32_t k = 0; k < S; k++) {   /* row 0 */
		hrow[k] = 0;
		frow[k] = SM_TB_NEG;
	}
	for (int32_t i = 1; i <= j->n; i++) {
		const uint8_t qc = q[i - 1];
		uint8_t *drow = dir + (size_t)(i - 1) * pitch;
		int32_t hl = 0, el = SM_TB_NEG;   /* the cell to the left's H and E */

		/* hrow[k] holds row i - 1's H until cell k of row i takes it:
		 * cell k's diagonal, cell k - 1's upper neighbour. */
		for (int32_t k = 1; k <= S - 2; k++) {
			const int32_t col = i + j->dlo + k - 1;
			uint8_t d = 0;

			if (col < 1 || col > j->w) {
				/* Boundary: H 0, E and F minus infinity. */
				hl = 0;
				el = SM_TB_NEG;
				frow[k] = SM_TB_NEG;
			} else {
				const int32_t diag = hrow[k] + sm_tb_subst(s, win[col - 1], qc, i == 1);
				int32_t ev = el - s->ge, fv = frow[k + 1] - s->ge, hv;

				if (hl - s->go > ev) {
					ev = hl - s->go;
					d |= 4;
				}
				if (hrow[k + 1] - s->go > fv) {
					fv = hrow[k + 1] - s->go;
					d |= 8;
				}
				hv = diag > ev ? diag : ev;
				hv = fv > hv ? fv : hv;
				hv = hv > 0 ? hv : 0;
				d |= hv == 0 ? 0 : hv == diag ? 1 : hv == ev ? 2 : 3;
				hl = hv;
				el = ev;
				frow[k] = fv;
				/* The end cell: column w's smallest row with the
				 * score (row n's with the 3' bonus). */
				if (col == j->w && !i_end &&
				    (i == j->n && hv > 0 ? hv + s->clip3 : hv) == j->score)
					i_end = i;
			}
			hrow[k] = hl;
			drow[k] = d;
		}
	}
	sm_tb_walk(j, i_end, dir, pitch, ops, res);
}

#endif
