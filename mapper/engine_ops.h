/* engine_ops.h — the interface every scoring engine implements: the table
 * of entry points that engine.c (sm_engine_t) drives.  A leaf of the engine
 * contract (docs/design.md, "Layers"): gpu/ implements it (gpu_ops.c), so it
 * includes nothing above the contract.
 *
 * Three jobs, the same for every engine, each with one contract:
 *
 *   scan       whole-reference scan: out[k] = sm_scan_oracle(ref, sc, q[k]),
 *              ref and sc being the ones the engine was created with;
 *   scan_refs  window scan: query k against its own small reference
 *              refs[k] (seeded windows, tandem sides, rescue windows):
 *              out[k] = sm_scan_oracle(refs[k], sc, q[k]);
 *   seed       a batch of reads' candidate windows: read k's windows equal
 *              those sm_seed_find() (seed.h) gives it;
 *   trace      a batch of tracebacks' band fills and walks: job k's result
 *              equals sm_tb_run()'s (trace_band.h).
 *
 * The scoring is compiled into the engine's kernel form once, by create;
 * what depends on a query (its profile) is built per query.  Every entry
 * but create and destroy may be called from several threads at once, each
 * with its own arguments; an engine keeps whatever per-thread state it
 * needs.  Pointers are host memory.  Entry points return 0, or -1 after
 * logging an error. */
#ifndef SM_ENGINE_OPS_H
#define SM_ENGINE_OPS_H

#include <stdint.h>

#include "io/ref.h"
#include "mapper/engine_types.h"
#include "mapper/index.h"
#include "mapper/scan.h"
#include "mapper/score.h"
#include "mapper/seed.h"
#include "mapper/trace_band.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
	/* An engine over ref with scoring sc (both must outlive it) and the
	 * options that concern it (opt->kind is already this engine's).
	 * Returns its state, or NULL after logging why. */
	void *(*create)(const sm_ref_t *ref, const sm_score_t *sc, const sm_engine_opt_t *opt);

	/* "cpu:avx2", "gpu:NAME (cells 16)", ...; valid until destroy. */
	const char *(*name)(const void *self);

	/* Whole-reference scan of q[0..n) into out[0..n).  Adds to *st the
	 * queries and the cells it computed and does not count itself
	 * (stats below reports those). */
	int (*scan)(void *self, int n, const sm_query_t *q, sm_scan_t *out,
		    sm_engine_stats_t *st);

	/* Window scan: q[k] against refs[k] into out[k], for k in 0..n.
	 * Consecutive queries with the same reference may share work (pass a
	 * read's two strands together).  src is NULL, or (only for an engine
	 * with reads_src) where each reference's contigs lie in the engine's
	 * reference (sm_ref_src_t): the engine reads them there and refs[k]->seq
	 * is not read.  Adds the queries and the cells to *st (each counted
	 * once: here or in stats, never both). */
	int (*scan_refs)(void *self, int n, const sm_query_t *q, const sm_ref_t *const *refs,
			 const sm_ref_src_t *src, sm_scan_t *out, sm_engine_stats_t *st);

	/* Seeding, NULL for an engine without a seeder of its own (the mapper
	 * then seeds with the CPU engine).  seed_start gives the engine the
	 * index (it must outlive the engine; its reference is the engine's) and
	 * may fail, logged, where the engine cannot hold it (a GPU's memory):
	 * the mapper then seeds with the CPU engine too.  seed finds the
	 * windows of reads[0..n) (base codes, forward strand, lengths len[])
	 * with limits opt: read k's at win[k * opt->max_windows ..], their
	 * number in n_win[k], what they leave out in left[k] and skip[] (read
	 * k's flags from len[0] + ... + len[k - 1]: sm_seed_find's left and
	 * skip); margin[k] is read k's window margin, sm_reach(sc, len[k]) +
	 * opt->band (an engine may derive it itself). */
	int (*seed_start)(void *self, const sm_index_t *idx);
	int (*seed)(void *self, const sm_seed_opt_t *opt, int n, const uint8_t *const *reads,
		    const int32_t *len, const int64_t *margin, sm_window_t *win, int32_t *n_win,
		    sm_seed_left_t *left, uint8_t *skip);

	/* Tracebacks, NULL for an engine without its own (the mapper then
	 * calls sm_align()): job k's read codes at q[k], its window's at
	 * win[k], its result in res[k] and its CIGAR in ops[k * SM_TB_MAX_OPS
	 * ..], scored as sm_tb_score() makes the engine's scoring. */
	int (*trace)(void *self, int n, const sm_tb_job_t *jobs, const uint8_t *const *q,
		     const uint8_t *const *win, sm_tb_res_t *res, uint32_t *ops);
	/* 1 if this engine runs trace (it may be set up without: the GPU's
	 * --gpu-tune traces=0). */
	int (*traces)(const void *self);

	/* Adds the counters the engine keeps itself to *st (NULL: none). */
	void (*stats)(const void *self, sm_engine_stats_t *st);

	/* Frees the engine and every thread's state.  No call may be running. */
	void (*destroy)(void *self);

	/* 1 if scan_refs takes src (the engine keeps its own copy of the
	 * reference: a window list then needs no bases on the host). */
	int reads_src;
} sm_engine_ops_t;

#ifdef __cplusplus
}
#endif
#endif
