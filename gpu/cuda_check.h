/* cuda_check.h — SM_CUDA(call): logs a failed CUDA call (what, where, why)
 * and evaluates to -1, else 0; sm_stream_wait(), how the host waits for a
 * stream.  For gpu/ sources only. */
#ifndef SM_CUDA_CHECK_H
#define SM_CUDA_CHECK_H

#include <cuda_runtime.h>
#include <unistd.h>

#include "gpu/gpu_opt.h"
#include "io/log.h"

static inline int sm_cuda_check(cudaError_t e, const char *what, const char *file, int line)
{
	if (e == cudaSuccess)
		return 0;
	sm_log(SM_LOG_ERROR, "CUDA: %s failed (%s:%d): %s", what, file, line, cudaGetErrorString(e));
	return -1;
}
#define SM_CUDA(call) sm_cuda_check((call), #call, __FILE__, __LINE__)

/* Waits for stream s: with SM_GPU_WAIT_POLL, polls it every poll_us
 * microseconds and sleeps in between, leaving the core to the other
 * workers (a call lasts milliseconds, and cudaStreamSynchronize spins
 * with CUDA's default flags when there are fewer contexts than cores);
 * else cudaStreamSynchronize, whose behaviour the context's flags set
 * (gpu_engine.cu).  Returns the stream's error, as cudaStreamSynchronize
 * does. */
static inline cudaError_t sm_stream_wait(cudaStream_t s, sm_gpu_wait_t wait, int poll_us)
{
	cudaError_t e;

	if (wait != SM_GPU_WAIT_POLL)
		return cudaStreamSynchronize(s);
	while ((e = cudaStreamQuery(s)) == cudaErrorNotReady)
		usleep((useconds_t)poll_us);
	return e;
}

#endif
