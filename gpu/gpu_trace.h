/* gpu_trace.h — tracebacks on the GPU: a batch of band fills and walks
 * (mapper/trace_band.h's fill, by rows, and walk), one warp each.  The host ships
 * each job's read and window bases; the device keeps the fill's decision
 * bytes and returns only the walk (end and start, CIGAR).  Exhaustive
 * mapping against a small reference spends most of its host time in these
 * fills otherwise (benchmarks/results/small-ref.md).
 *
 * Built from gpu_trace.cu with CUDA; gpu_stub.c otherwise (create fails). */
#ifndef SM_GPU_TRACE_H
#define SM_GPU_TRACE_H

#include <stdint.h>

#include "gpu/gpu_engine.h"
#include "mapper/trace_band.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sm_gpu_trace_s sm_gpu_trace_t;

/* Threads per block of the traceback kernel, a job a warp (--gpu-tune
 * trace-block). */
#define SM_GPU_TRACE_BLOCK 128

/* Cells a lane of the job's warp takes (M) for a band of S >= 3 offsets:
 * the lanes' share of its S - 2 cells, rounded up to 1..8 (one kernel) or
 * 10, 12, 16, 24, 32 (a kernel each).  tests/unit/test_trace_rows.c fills
 * by rows with the same M. */
SM_TB_FN int sm_gpu_trace_lane_cells(int32_t S)
{
	const int32_t m = (S - 2 + 31) / 32;

	return m <= 8 ? m : m <= 10 ? 10 : m <= 12 ? 12 : m <= 16 ? 16 : m <= 24 ? 24 : 32;
}

/* Tracebacks with scoring sc on every device of opt->gpus (each call to
 * the one with the fewest calls in flight).  NULL after logging. */
sm_gpu_trace_t *sm_gpu_trace_create(const sm_tb_score_t *sc, const sm_gpu_opt_t *opt);

/* Runs jobs[0..n): job k's read codes at q[k] (jobs[k].n of them), its
 * window's at win[k] (jobs[k].w); its result in res[k], its CIGAR words in
 * ops[k * SM_TB_MAX_OPS ..] (trace_band.h).  Thread-safe: concurrent calls
 * run on streams of their own.  Returns 0, or -1 after logging an error
 * (with the device, which then takes no more calls). */
int sm_gpu_trace_run(sm_gpu_trace_t *g, int n, const sm_tb_job_t *jobs,
		     const uint8_t *const *q, const uint8_t *const *win, sm_tb_res_t *res,
		     uint32_t *ops);

/* Decision bytes one chunk of a call may hold (0: the default, 256 MiB);
 * tests set small ones to cut calls into many chunks.  Call before any
 * tracebacks. */
void sm_gpu_trace_set_chunk(sm_gpu_trace_t *g, int64_t bytes);

/* Seconds spent inside sm_gpu_trace_run (summed over threads) and jobs run. */
void sm_gpu_trace_stats(const sm_gpu_trace_t *g, double *seconds, int64_t *jobs);

void sm_gpu_trace_destroy(sm_gpu_trace_t *g);

#ifdef __cplusplus
}
#endif
#endif
