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
#include "mapper/scan.h"
#include "mapper/score.h"

typedef enum {
	SM_ENGINE_AUTO = 0,  /* GPU when one is usable, else CPU */
	SM_ENGINE_CPU,
	SM_ENGINE_GPU,
	SM_ENGINE_ORACLE,
} sm_engine_kind_t;

/* Cell width ladders (--cells). */
typedef enum {
	SM_CELLS_AUTO = 0,  /* the fastest ladder measured for this device */
	SM_CELLS_8,         /* the paper's ladder: 8-bit, 32-bit on overflow */
	SM_CELLS_16,        /* 16-bit first, 32-bit on overflow */
	SM_CELLS_32,        /* uniform 32-bit */
} sm_cells_t;

typedef struct {
	uint64_t cells;        /* cells computed (reference columns x read rows, halos included) */
	uint64_t cells_w[3];   /* of which in 8-, 16- and 32-bit lanes */
	uint64_t queries;
	double seconds;        /* wall time inside sm_engine_scan */
	/* The GPU's calls (both entry points), summed over calls: */
	uint64_t calls;
	double wait_s;         /* waiting for a free slot (gpu_engine.h: two run at once) */
	double call_s;         /* in a slot: packing, copies, kernels, unpacking */
	double kernel_s;       /* of which the kernels (CUDA events) */
} sm_engine_stats_t;

typedef struct sm_engine_s sm_engine_t;

/* Where a small reference's bases lie in the engine's whole reference
 * (sm_engine_scan_refs): contig c is the whole reference's
 * [start[c], start[c] + len[c]), read backwards when rev (then the small
 * reference has one contig).  The GPU engine copies them on the device from
 * the reference it keeps there, so the small reference's seq is not read. */
typedef struct {
	const int64_t *start;
	int rev;
} sm_ref_src_t;

typedef struct {
	sm_engine_kind_t kind;
	sm_cells_t cells;
	int device;            /* CUDA device ordinal */
	int max_query_len;     /* longest read the engine must accept */
	const char *cpu_isa;   /* NULL/"auto", or "scalar", "sse41", "avx2", "avx512" */
} sm_engine_opt_t;

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
