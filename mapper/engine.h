/* engine.h — scoring engines behind one interface.
 *
 * An engine does the three jobs of engine_ops.h for the mapper: scans of
 * queries against the whole reference, scans of queries against small
 * references of their own (seeded windows, tandem sides, rescue windows),
 * and seeding.  Engines differ only in speed: every scan returns what
 * sm_scan_oracle() returns, every seeding what sm_seed_find() finds.
 *
 *   SM_ENGINE_ORACLE  scan.h's scalar recurrence (tests only; no seeder)
 *   SM_ENGINE_CPU     row-parallel scan on the CPU (SIMD where the CPU has
 *                     it; cpu_scan.h), seeding with seed.h
 *   SM_ENGINE_GPU     row-parallel scan and seeding on CUDA GPUs
 *                     (gpu/gpu_engine.h, gpu/gpu_seed.h)
 *
 * The scoring is compiled into each engine's kernel form once, at
 * creation.  Every call but create and destroy may be made from several
 * threads at once. */
#ifndef SM_ENGINE_H
#define SM_ENGINE_H

#include <stdint.h>

#include "io/ref.h"
#include "mapper/engine_types.h"
#include "mapper/trace_band.h"
#include "mapper/index.h"
#include "mapper/scan.h"
#include "mapper/score.h"
#include "mapper/seed.h"

typedef struct sm_engine_s sm_engine_t;

/* Creates an engine for ref (which must outlive it).  With kind AUTO, picks
 * the GPU if one is usable, else the CPU, logging one notice.  Returns NULL
 * after logging why (e.g. --engine gpu and no usable GPU). */
sm_engine_t *sm_engine_create(const sm_ref_t *ref, const sm_score_t *sc,
			      const sm_engine_opt_t *opt);

/* Scans n queries against the whole reference; out[k] receives query k's
 * result.  Counted in the engine's statistics (sm_engine_stats).  Returns
 * 0, or -1 after logging an error. */
int sm_engine_scan(sm_engine_t *e, int n, const sm_query_t *q, sm_scan_t *out);

/* Scans query k against its own reference refs[k], for k in 0..n:
 * out[k] = sm_scan_oracle(refs[k], sc, q[k]).  Consecutive queries with the
 * same reference may share the engine's work (the GPU's).  src: NULL, or,
 * for an engine that sm_engine_reads_src(), one per query: where each
 * reference's bases lie in the engine's reference; refs[k]->seq is then not
 * read and may be invalid.  Adds the queries and their cells to *st (the
 * caller's, e.g. per thread).  Returns 0, or -1 after logging an error. */
int sm_engine_scan_refs(sm_engine_t *e, int n, const sm_query_t *q, const sm_ref_t *const *refs,
			const sm_ref_src_t *src, sm_scan_t *out, sm_engine_stats_t *st);

/* 1 if sm_engine_scan_refs takes src (the engine keeps a copy of the
 * reference: the GPU), else 0. */
int sm_engine_reads_src(const sm_engine_t *e);

/* Readies the engine to seed with idx (an index of the engine's reference;
 * it must outlive the engine).  Returns 0; 1 when the engine has no seeder
 * (the oracle); -1 after logging why it cannot seed with idx (an index that
 * does not fit on the GPU).  Either way but 0, seed with a CPU engine. */
int sm_engine_seed_start(sm_engine_t *e, const sm_index_t *idx);

/* Windows of reads[0..n) (base codes, forward strand, lengths len[]) with
 * limits opt, after sm_engine_seed_start: read k's windows, those of
 * sm_seed_find(), go to win[k * opt->max_windows ..], their number to
 * n_win[k], what they leave out to left[k] and skip[] (read k's flags from
 * len[0] + ... + len[k - 1]; sm_seed_find's left and skip).  margin[k] is
 * read k's window margin, sm_reach(sc, len[k]) + opt->band (sm_seed_find's).
 * Returns 0, or -1 after logging an error. */
int sm_engine_seed(sm_engine_t *e, const sm_seed_opt_t *opt, int n, const uint8_t *const *reads,
		   const int32_t *len, const int64_t *margin, sm_window_t *win, int32_t *n_win,
		   sm_seed_left_t *left, uint8_t *skip);

/* 1 if the engine runs tracebacks itself (sm_engine_trace). */
int sm_engine_traces(const sm_engine_t *e);

/* Band fills and walks of jobs[0..n) (engine_ops.h's trace), for an
 * engine that sm_engine_traces().  Returns 0, or -1 after logging an error. */
int sm_engine_trace(sm_engine_t *e, int n, const sm_tb_job_t *jobs, const uint8_t *const *q,
		    const uint8_t *const *win, sm_tb_res_t *res, uint32_t *ops);

sm_engine_kind_t sm_engine_kind(const sm_engine_t *e);
const char *sm_engine_name(const sm_engine_t *e);   /* e.g. "gpu:NVIDIA H100 (cells 16)" */
/* The whole-reference scans' counters, and the engine's own (the GPU's
 * calls and seeding). */
void sm_engine_stats(const sm_engine_t *e, sm_engine_stats_t *st);
void sm_engine_destroy(sm_engine_t *e);

#endif
