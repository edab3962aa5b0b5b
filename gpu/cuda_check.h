/* cuda_check.h — SM_CUDA(call): logs a failed CUDA call (what, where, why)
 * and evaluates to -1, else 0; sm_stream_wait(), how the host waits for a
 * stream.  For gpu/ sources only. */
#ifndef SM_CUDA_CHECK_H
#define SM_CUDA_CHECK_H

#include <cuda_runtime.h>
#include <stdlib.h>
#include <unistd.h>

#include "io/log.h"

static inline int sm_cuda_check(cudaError_t e, const char *what, const char *file, int line)
{
	if (e == cudaSuccess)
		return 0;
	sm_log(SM_LOG_ERROR, "CUDA: %s failed (%s:%d): %s", what, file, line, cudaGetErrorString(e));
	return -1;
}
#define SM_CUDA(call) sm_cuda_check((call), #call, __FILE__, __LINE__)

/* Microseconds between polls of a stream the host waits on. */
#define SM_GPU_POLL_US 20

/* Waits for stream s: polls it every SM_GPU_POLL_US microseconds and
 * sleeps in between, leaving the core to the other workers; a call lasts
 * milliseconds.  cudaStreamSynchronize spins instead (CUDA's default with
 * fewer contexts than cores): with 16 workers on 16 cores, 1M chr20 pairs
 * took 3.02-3.10 s spinning and 2.81-2.88 s polling, with 15% less CPU
 * (H200; results/gpu-seeded-2026-11-21-s9.md).  SCANMAP_GPU_POLL_US=N
 * sets the interval for benchmarks, 0 synchronises.  Returns the
 * stream's error, as cudaStreamSynchronize does. */
static inline cudaError_t sm_stream_wait(cudaStream_t s)
{
	static int poll_us = -1;
	int us = __atomic_load_n(&poll_us, __ATOMIC_RELAXED);
	cudaError_t e;

	if (us < 0) {   /* first call: every thread reads the same value */
		const char *v = getenv("SCANMAP_GPU_POLL_US");
		us = !v ? SM_GPU_POLL_US : atoi(v) > 0 ? atoi(v) : 0;
		__atomic_store_n(&poll_us, us, __ATOMIC_RELAXED);
	}
	if (us == 0)
		return cudaStreamSynchronize(s);
	while ((e = cudaStreamQuery(s)) == cudaErrorNotReady)
		usleep((useconds_t)us);
	return e;
}

#endif
