/* gpu_engine.h — the CUDA scoring engine, behind a C interface.
 *
 * Built from the gpu/ CUDA sources when the Makefile finds nvcc; otherwise
 * gpu_stub.c provides these functions and sm_gpu_available() reports no
 * device.  One sm_gpu_t drives every GPU it was given (sm_gpu_opt_t.gpus):
 * one engine per listed device, each with the reference resident, and each
 * call goes to the engine with the fewest calls in flight.  Results do not
 * depend on which device scored them.  sm_gpu_engine_ops (below) puts it
 * behind the mapper's engine interface.  All pointers are host memory; the
 * engine owns its device and pinned buffers. */
#ifndef SM_GPU_ENGINE_H
#define SM_GPU_ENGINE_H

#include <stdint.h>

#include "gpu/gpu_opt.h"
#include "io/ref.h"
#include "mapper/engine_ops.h"
#include "mapper/engine_types.h"
#include "mapper/scan.h"
#include "mapper/score.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sm_gpu_s sm_gpu_t;

/* What sm_gpu_create() takes; sm_gpu_opt_init() gives every default
 * (every visible device, the default ladder and tuning). */
typedef struct {
	sm_gpu_list_t gpus;    /* devices, one engine each (n == 0: every visible one) */
	sm_cells_t cells;      /* cell width ladder */
	int max_query_len;     /* longest query a call may hold (>= 1) */
	sm_gpu_tune_t tune;
} sm_gpu_opt_t;

void sm_gpu_opt_init(sm_gpu_opt_t *o);

/* 1 if every device of gpus (NULL or n == 0: every visible one, at least
 * one) is a usable CUDA device (driver present, sm_75 or newer), else 0;
 * writes the device names, or why not, to msg. */
int sm_gpu_available(const sm_gpu_list_t *gpus, char *msg, int msg_len);

/* Creates the CUDA context of every device of opt->gpus (the first CUDA
 * call's cost, a few tenths of a second each), for a thread to do while
 * the reference loads.  Silent: sm_gpu_create() with the same options
 * meets and logs any error. */
void sm_gpu_warm_up(const sm_gpu_opt_t *opt);

/* Uploads the reference to every device of opt->gpus.  ref must outlive
 * the engine.  Returns NULL after logging an error (naming the device). */
sm_gpu_t *sm_gpu_create(const sm_ref_t *ref, const sm_score_t *sc, const sm_gpu_opt_t *opt);

/* Scans n queries against the whole reference (both engines' contract:
 * scan.h).  Thread-safe: each engine runs up to its slots' number of
 * calls at once, each on its own stream, so one call's packing and
 * copies overlap another's kernels.  Returns 0, or -1 after logging a
 * CUDA error with the device it happened on; a device that failed takes
 * no more calls. */
int sm_gpu_scan(sm_gpu_t *g, int n, const sm_query_t *q, sm_scan_t *out);

/* Scans query k against its own reference refs[k] instead (seeded mode:
 * a read's candidate windows as the contigs of a small reference), with
 * the same contract: out[k] equals sm_scan_oracle(refs[k], ..., q[k]).
 * Consecutive queries with the same reference share the device work (pass
 * a read's two strands together).  src NULL: the bases are uploaded from
 * refs[k]->seq; else src[k] says where they lie in the engine's reference
 * (engine.h) and they are copied there on the device (refs[k]->seq is not
 * read).  Returns 0 or -1 after logging. */
int sm_gpu_scan_refs(sm_gpu_t *g, int n, const sm_query_t *q, const sm_ref_t *const *refs,
		     const sm_ref_src_t *src, sm_scan_t *out);

/* Adds the engines' counters to st. */
void sm_gpu_stats(const sm_gpu_t *g, sm_engine_stats_t *st);
/* "NAME (cells B)", with " x N (GPUs ID,ID)" when it drives several. */
const char *sm_gpu_name(const sm_gpu_t *g);
/* Engines (devices listed) it drives. */
int sm_gpu_engines(const sm_gpu_t *g);
/* Logs each engine's calls at debug level, frees everything. */
void sm_gpu_destroy(sm_gpu_t *g);

/* The engine interface (mapper/engine_ops.h) over the functions above and
 * the seeder of gpu_seed.h (gpu_ops.c; sm_engine_create() picks it for
 * SM_ENGINE_GPU). */
extern const sm_engine_ops_t sm_gpu_engine_ops;

#ifdef __cplusplus
}
#endif
#endif
