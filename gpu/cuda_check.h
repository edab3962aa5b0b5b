/* cuda_check.h — SM_CUDA(call): logs a failed CUDA call (what, where, why)
 * and evaluates to -1, else 0.  For gpu/ sources only. */
#ifndef SM_CUDA_CHECK_H
#define SM_CUDA_CHECK_H

#include <cuda_runtime.h>

#include "mapper/log.h"

static inline int sm_cuda_check(cudaError_t e, const char *what, const char *file, int line)
{
	if (e == cudaSuccess)
		return 0;
	sm_log(SM_LOG_ERROR, "CUDA: %s failed (%s:%d): %s", what, file, line, cudaGetErrorString(e));
	return -1;
}
#define SM_CUDA(call) sm_cuda_check((call), #call, __FILE__, __LINE__)

#endif
