/* gpu_engine.h — the CUDA scoring engine, behind a C interface.
 *
 * Built from the gpu/ CUDA sources when the Makefile finds nvcc; otherwise gpu_stub.c
 * provides these functions and sm_gpu_available() reports no device.
 * All pointers are host memory; the engine owns its device buffers (the
 * reference stays resident on the device for the engine's lifetime). */
#ifndef SM_GPU_ENGINE_H
#define SM_GPU_ENGINE_H

#include <stdint.h>

#include "io/ref.h"
#include "mapper/engine_types.h"
#include "mapper/scan.h"
#include "mapper/score.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sm_gpu_s sm_gpu_t;

/* 1 if a CUDA device is usable (driver present, device >= sm_70), else 0;
 * writes a one-line reason or the device name to msg. */
int sm_gpu_available(int device, char *msg, int msg_len);

/* Creates the CUDA context of `device` (the first CUDA call's cost, a few
 * tenths of a second), for a thread to do while the reference loads.
 * Silent: sm_gpu_create() on the same device meets and logs any error. */
void sm_gpu_warm_up(int device);

/* Uploads the reference.  Returns NULL after logging an error. */
sm_gpu_t *sm_gpu_create(const sm_ref_t *ref, const sm_score_t *sc, int device,
			sm_cells_t cells, int max_query_len);

/* Scans n queries against the whole reference (both engines' contract:
 * scan.h).  Thread-safe: up to two calls run at once, each on its own stream, so one call's packing and copies overlap another's kernels.  Returns 0 or
 * -1 after logging a CUDA error. */
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

/* Adds this engine's counters to st. */
void sm_gpu_stats(const sm_gpu_t *g, sm_engine_stats_t *st);
const char *sm_gpu_name(const sm_gpu_t *g);
void sm_gpu_destroy(sm_gpu_t *g);

#ifdef __cplusplus
}
#endif
#endif
