/* gpu_copy.cu — host-to-device copies through pinned staging (gpu_copy.h). */
#include "gpu/gpu_copy.h"

#include <cuda_runtime.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/cuda_check.h"
#include "io/log.h"

void sm_gpu_fill_array(const void *arg, uint8_t *buf, size_t off, size_t len)
{
	memcpy(buf, (const uint8_t *)arg + off, len);
}

void sm_gpu_fill_ref(const void *arg, uint8_t *buf, size_t off, size_t len)
{
	const sm_gpu_ref_image_t *l = (const sm_gpu_ref_image_t *)arg;
	const sm_ref_t *r = l->ref;
	const int64_t lo = (int64_t)off, hi = (int64_t)(off + len);
	int32_t a = 0, b = r->n_contig;

	memset(buf, l->pad, len);
	/* the first contig ending past lo (dstart increases, so do the ends) */
	while (a < b) {
		const int32_t m = a + (b - a) / 2;

		if (l->dstart[m] + r->len[m] <= lo)
			a = m + 1;
		else
			b = m;
	}
	for (int32_t c = a; c < r->n_contig && l->dstart[c] < hi; c++) {
		const int64_t s = l->dstart[c] > lo ? l->dstart[c] : lo;
		const int64_t e = l->dstart[c] + r->len[c] < hi ? l->dstart[c] + r->len[c] : hi;

		memcpy(buf + (s - lo), r->seq + r->offset[c] + (s - l->dstart[c]), (size_t)(e - s));
	}
}

/* The path without pinned memory: one buffer, each chunk copied before
 * the next is filled. */
static int copy_pageable(uint8_t *dst, size_t bytes, sm_gpu_fill_fn *fill, const void *arg,
			 size_t chunk)
{
	uint8_t *buf = (uint8_t *)malloc(chunk);
	int rc = 0;

	if (!buf) {
		sm_log(SM_LOG_ERROR, "GPU: out of memory for a staging buffer of %zu bytes", chunk);
		return -1;
	}
	for (size_t off = 0; off < bytes && rc == 0; off += chunk) {
		const size_t len = bytes - off < chunk ? bytes - off : chunk;

		fill(arg, buf, off, len);
		rc = SM_CUDA(cudaMemcpy(dst + off, buf, len, cudaMemcpyHostToDevice));
	}
	free(buf);
	return rc;
}

extern "C" int sm_gpu_copy_up(void *dst, size_t bytes, sm_gpu_fill_fn *fill, const void *arg,
			      size_t chunk)
{
	uint8_t *buf[2] = { NULL, NULL };
	cudaEvent_t done[2] = { NULL, NULL };
	cudaStream_t st = NULL;
	int rc = -1;

	if (bytes == 0)
		return 0;
	if (chunk == 0)
		chunk = SM_GPU_STAGE_BYTES;
	if (chunk > bytes)
		chunk = bytes;
	if (cudaMallocHost((void **)&buf[0], chunk) != cudaSuccess ||
	    cudaMallocHost((void **)&buf[1], chunk) != cudaSuccess) {
		(void)cudaGetLastError();  /* not sticky: the pageable path goes on */
		cudaFreeHost(buf[0]);
		return copy_pageable((uint8_t *)dst, bytes, fill, arg, chunk);
	}
	if (SM_CUDA(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking)) ||
	    SM_CUDA(cudaEventCreateWithFlags(&done[0], cudaEventDisableTiming)) ||
	    SM_CUDA(cudaEventCreateWithFlags(&done[1], cudaEventDisableTiming)))
		goto out;
	for (size_t off = 0, k = 0; off < bytes; off += chunk, k ^= 1) {
		const size_t len = bytes - off < chunk ? bytes - off : chunk;

		/* buffer k was last copied two chunks ago */
		if (off >= 2 * chunk && SM_CUDA(cudaEventSynchronize(done[k])))
			goto out;
		fill(arg, buf[k], off, len);
		if (SM_CUDA(cudaMemcpyAsync((uint8_t *)dst + off, buf[k], len, cudaMemcpyHostToDevice,
					    st)) ||
		    SM_CUDA(cudaEventRecord(done[k], st)))
			goto out;
	}
	rc = SM_CUDA(cudaStreamSynchronize(st));
out:
	if (st)
		(void)cudaStreamSynchronize(st);  /* no copy may outlive its buffer */
	for (int k = 0; k < 2; k++) {
		if (done[k])
			cudaEventDestroy(done[k]);
		cudaFreeHost(buf[k]);
	}
	if (st)
		cudaStreamDestroy(st);
	return rc;
}
