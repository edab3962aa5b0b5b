/* gpu_copy.cu — host-to-device copies through pinned staging (gpu_copy.h). */
#include "gpu/gpu_copy.h"

#include <cuda_runtime.h>
#include <pthread.h>
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

/* One copier: bytes [from, to) of the copy on the device `device`, through
 * two pinned buffers of `chunk` bytes that alternate with their copies. */
typedef struct {
	int device;
	uint8_t *dst;
	size_t from, to, chunk;
	sm_gpu_fill_fn *fill;
	const void *arg;
	int pageable;  /* pinned memory was refused */
	int rc;
} copier_t;

static void *copier_main(void *p)
{
	copier_t *c = (copier_t *)p;
	uint8_t *buf[2] = { NULL, NULL };
	cudaEvent_t done[2] = { NULL, NULL };
	cudaStream_t st = NULL;

	c->rc = -1;
	if (SM_CUDA(cudaSetDevice(c->device)))
		return NULL;
	if (cudaMallocHost((void **)&buf[0], c->chunk) != cudaSuccess ||
	    cudaMallocHost((void **)&buf[1], c->chunk) != cudaSuccess) {
		(void)cudaGetLastError();  /* not sticky: the caller goes on without pinning */
		cudaFreeHost(buf[0]);
		c->pageable = 1;
		return NULL;
	}
	if (SM_CUDA(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking)) ||
	    SM_CUDA(cudaEventCreateWithFlags(&done[0], cudaEventDisableTiming)) ||
	    SM_CUDA(cudaEventCreateWithFlags(&done[1], cudaEventDisableTiming)))
		goto out;
	for (size_t off = c->from, k = 0; off < c->to; off += c->chunk, k ^= 1) {
		const size_t len = c->to - off < c->chunk ? c->to - off : c->chunk;

		/* buffer k was last copied two chunks ago */
		if (off >= c->from + 2 * c->chunk && SM_CUDA(cudaEventSynchronize(done[k])))
			goto out;
		c->fill(c->arg, buf[k], off, len);
		if (SM_CUDA(cudaMemcpyAsync(c->dst + off, buf[k], len, cudaMemcpyHostToDevice, st)) ||
		    SM_CUDA(cudaEventRecord(done[k], st)))
			goto out;
	}
	c->rc = SM_CUDA(cudaStreamSynchronize(st));
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
	return NULL;
}

extern "C" int sm_gpu_copy_up(void *dst, size_t bytes, sm_gpu_fill_fn *fill, const void *arg,
			      size_t chunk)
{
	copier_t c[SM_GPU_COPY_THREADS];
	pthread_t th[SM_GPU_COPY_THREADS];
	int started[SM_GPU_COPY_THREADS];
	int device, n, rc = 0, pageable = 0;
	size_t per;

	if (bytes == 0)
		return 0;
	if (SM_CUDA(cudaGetDevice(&device)))
		return -1;
	if (chunk == 0)
		chunk = SM_GPU_STAGE_BYTES;
	if (chunk > bytes)
		chunk = bytes;
	/* Copiers of at least SM_GPU_COPY_MIN_CHUNKS chunks each, their
	 * slices whole chunks (the last one's less). */
	n = (int)((bytes / chunk) / SM_GPU_COPY_MIN_CHUNKS);
	n = n < 1 ? 1 : n > SM_GPU_COPY_THREADS ? SM_GPU_COPY_THREADS : n;
	per = ((bytes + chunk - 1) / chunk + (size_t)n - 1) / (size_t)n * chunk;
	for (int k = 0; k < n; k++) {
		const size_t from = (size_t)k * per < bytes ? (size_t)k * per : bytes;
		const size_t to = from + per < bytes ? from + per : bytes;

		c[k] = (copier_t){ device, (uint8_t *)dst, from, to, chunk, fill, arg, 0, 0 };
		started[k] = k > 0 && pthread_create(&th[k], NULL, copier_main, &c[k]) == 0;
		if (k > 0 && !started[k])
			copier_main(&c[k]);
	}
	copier_main(&c[0]);
	for (int k = 0; k < n; k++) {
		if (started[k])
			pthread_join(th[k], NULL);
		pageable |= c[k].pageable;
		if (!c[k].pageable && c[k].rc)
			rc = -1;
	}
	if (rc == 0 && pageable)
		rc = copy_pageable((uint8_t *)dst, bytes, fill, arg, chunk);
	return rc;
}
