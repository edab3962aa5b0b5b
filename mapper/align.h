/* align.h — the traceback: from an engine's (score, end column) to the
 * alignment itself.
 *
 * The read is re-aligned by a full Smith-Waterman matrix against the window
 * of reference that an alignment scoring `score` and ending at `end` can
 * span (n + (n*match - score - gap_open) / gap_ext columns, clipped at the
 * contig start), and within it only the diagonal band such an alignment can
 * occupy.  Since `score` is the maximum of column `end`, every cell of that
 * column reaching it does so within the band, so the end cell, the score and
 * the traceback are those of the whole reference.
 *
 * Tie-breaks (documented in docs/design.md):
 *   end cell    column `end`, the smallest read row whose score equals `score`;
 *   each step   diagonal first, then a deletion (gap in the read, consumes
 *               reference), then an insertion (gap in the reference);
 *   a gap run   is extended rather than opened when both score the same;
 *   start       the trace stops at the first cell reached by a diagonal
 *               step from a zero (the alignment starts there). */
#ifndef SM_ALIGN_H
#define SM_ALIGN_H

#include <stdint.h>

#include "io/ref.h"
#include "mapper/cpu_scan.h"
#include "mapper/scan.h"
#include "mapper/score.h"
#include "mapper/trace_band.h"

typedef struct {
	int32_t score;
	int64_t ref_start;   /* global coordinate of the first aligned ref base */
	int64_t ref_end;     /* global coordinate one past the last */
	int32_t q_start;     /* first aligned query base (query orientation) */
	int32_t q_end;       /* one past the last */
	int32_t n_cigar;
	uint32_t *cigar;     /* BAM encoding (len << 4 | op), ops M/I/D only;
	                        owned by the caller's sm_aln_t, free with sm_aln_free */
	int32_t m_cigar;     /* capacity */
} sm_aln_t;

/* Workspace for sm_align(), reused between calls by one thread.  isa: the
 * widest instruction set the band fill may use (AUTO: the CPU's best; the
 * fill has a scalar and SSE4.1, AVX2 and AVX-512 versions, which give
 * identical results).
 * Any but SCALAR also traces an alignment whose score leaves no room for a
 * gap (over n * match - gap_open - gap_ext) without a fill, from the
 * diagonals alone; SCALAR always fills, as the oracle of the others.  Returns NULL when out of memory. */
typedef struct sm_align_ws_s sm_align_ws_t;
sm_align_ws_t *sm_align_ws_create(sm_cpu_isa_t isa);
void sm_align_ws_destroy(sm_align_ws_t *ws);

/* Instruction sets a band fill can run on (sm_cpu_isa_t, AUTO unused). */
#define SM_ALIGN_N_ISA (SM_CPU_ISA_AVX512 + 1)

/* What the workspace's sm_align() calls computed so far: calls, band cells,
 * calls whose band is 1-3 diagonals wide, calls that needed no fill
 * (ungapped by their score), and fills by the instruction set that ran
 * them (SCALAR: the 32-bit fill); logged at -v 4. */
typedef struct {
	int64_t calls, cells, narrow, ungapped;
	int64_t fills[SM_ALIGN_N_ISA];
	int64_t batched;   /* fills handed to an engine (sm_align_prepare) */
} sm_align_stats_t;
sm_align_stats_t sm_align_ws_stats(const sm_align_ws_t *ws);

/* Aligns q so that the alignment ends at global column `end` with score
 * `score` (as an engine reported it).  Returns 0, or -1 if no cell of column
 * `end` has that score (an engine/oracle disagreement: a bug, logged). */
int sm_align(sm_align_ws_t *ws, const sm_ref_t *ref, const sm_score_t *sc,
	     const sm_query_t *q, int64_t end, int32_t score, sm_aln_t *out);

void sm_aln_free(sm_aln_t *a);

/* sm_align() in two halves around a band fill that an engine runs in a
 * batch (engine_ops.h's trace, trace_band.h's sm_tb_run), with the same
 * result.  sm_align_prepare() chooses the window, from global column
 * *start, and traces what needs no fill itself; the return values: */
enum {
	SM_ALIGN_JOB = 0,    /* *job is set: fill it, then sm_align_finish() */
	SM_ALIGN_DONE = 1,   /* traced into out */
	SM_ALIGN_SELF = 2,   /* too large for a batched fill: call sm_align() */
};
int sm_align_prepare(sm_align_ws_t *ws, const sm_ref_t *ref, const sm_score_t *sc,
		     const sm_query_t *q, int64_t end, int32_t score, sm_aln_t *out,
		     sm_tb_job_t *job, int64_t *start);

/* Completes out from job's result (res, its ops), counted in ws's
 * statistics as sm_align() counts its calls.  Returns SM_ALIGN_DONE,
 * SM_ALIGN_SELF when the fill could not hold it (call sm_align()), or -1
 * (logged) when no cell had the score, as sm_align() fails. */
int sm_align_finish(sm_align_ws_t *ws, const sm_ref_t *ref, const sm_score_t *sc,
		    const sm_query_t *q, int64_t start, const sm_tb_job_t *job,
		    const sm_tb_res_t *res, const uint32_t *ops, sm_aln_t *out);

#endif
