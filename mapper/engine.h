/* engine.h — scoring engines behind one entry point.
 *
 * An engine computes, for each query of a batch, the sm_scan_t that
 * scan.h defines against the whole reference.  Engines differ only in speed:
 * every one must return what sm_scan_oracle() returns.
 *
 *   SM_ENGINE_ORACLE  scan.h's scalar recurrence (tests only)
 *   SM_ENGINE_CPU     row-parallel scan on the CPU (SIMD where the CPU has it)
 *   SM_ENGINE_GPU     row-parallel scan on a CUDA GPU (gpu/gpu_engine.h)
 *
 * sm_engine_scan() may be called from several threads at once. */
#ifndef SM_ENGINE_H
#define SM_ENGINE_H

#include <stdint.h>

#include "io/ref.h"
#include "mapper/engine_types.h"
#include "mapper/scan.h"
#include "mapper/score.h"

typedef struct sm_engine_s sm_engine_t;

/* Creates an engine for ref (which must outlive it).  With kind AUTO, picks
 * the GPU if one is usable, else the CPU, logging one notice.  Returns NULL
 * after logging why (e.g. --engine gpu and no usable GPU). */
sm_engine_t *sm_engine_create(const sm_ref_t *ref, const sm_score_t *sc,
			      const sm_engine_opt_t *opt);

/* Scans n queries; out[k] receives query k's result.  Returns 0, or -1 after
 * logging an error. */
int sm_engine_scan(sm_engine_t *e, int n, const sm_query_t *q, sm_scan_t *out);

/* Scans query k against its own reference refs[k] (seeded mode's windows;
 * see wscan.h), for k in 0..n: out[k] = sm_scan_oracle(refs[k], sc, q[k]).
 * Consecutive queries with the same reference share the GPU's work.  For
 * the GPU and the oracle; CPU engines scan small references with a
 * per-thread sm_cpu_scan_t instead (cpu_scan.h), and this returns -1 for
 * them.  src (NULL, or one per query): where each reference's bases lie in
 * the engine's reference; the GPU then reads them there and refs[k]->seq
 * may be invalid (the oracle always reads refs[k]->seq).  Returns 0, or -1
 * after logging an error. */
int sm_engine_scan_refs(sm_engine_t *e, int n, const sm_query_t *q, const sm_ref_t *const *refs,
			const sm_ref_src_t *src, sm_scan_t *out);

sm_engine_kind_t sm_engine_kind(const sm_engine_t *e);
const char *sm_engine_name(const sm_engine_t *e);   /* e.g. "gpu:NVIDIA H100 (cells 16)" */
void sm_engine_stats(const sm_engine_t *e, sm_engine_stats_t *st);
void sm_engine_destroy(sm_engine_t *e);

#endif
