/* gpu_opt.h — the parsers of what a caller chooses about the GPU engine:
 * which devices (sm_gpu_list_t, --gpu/--gpus) and the tuning knobs that
 * benchmarks and tests turn (sm_gpu_tune_t, --gpu-tune).  The types are
 * part of the engine options (mapper/engine_types.h).  Plain C without
 * CUDA, built in every build (gpu_plan.c). */
#ifndef SM_GPU_OPT_H
#define SM_GPU_OPT_H

#include "mapper/engine_types.h"

#ifdef __cplusplus
extern "C" {
#endif

void sm_gpu_tune_init(sm_gpu_tune_t *t);

/* Parses "KEY=VALUE[,KEY=VALUE...]" into t.  Keys: slots=1..16,
 * wait=poll|spin|yield|block|sync, poll-us=N, gref-halos=N|none,
 * range-halos=N, warps=N (the whole reference's ranges: at least N halos
 * long; N warps per multiprocessor), lane-pairs=0|1, traces=0|1 (the
 * tracebacks on the host or the GPU; absent: the GPU),
 * trace-block=32..128 (threads per block of the traceback kernel, a
 * multiple of 32: a traceback a warp), fail=ENGINE:CALL.  Returns 0, or -1 after logging what is wrong. */
int sm_gpu_tune_parse(sm_gpu_tune_t *t, const char *spec);

/* Parses --gpus: "all" (n = 0), a count N (devices 0..N-1) or a list of
 * device numbers "ID,ID,..." (repeats allowed).  Returns 0, or -1 after
 * logging what is wrong. */
int sm_gpu_list_parse(sm_gpu_list_t *l, const char *spec);

/* Writes the list as "0,1" (or "all") into buf of len bytes. */
void sm_gpu_list_format(const sm_gpu_list_t *l, char *buf, int len);

#ifdef __cplusplus
}
#endif
#endif
