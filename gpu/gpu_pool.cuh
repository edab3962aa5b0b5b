/* gpu_pool.cuh — what the GPU's seeder and traceback engine share (CUDA
 * host code): buffers grown on demand, each device's pool of call states
 * (a call in flight owns one; the next call that finds it free reuses its
 * buffers), and the choice of device for a call. */
#ifndef SM_GPU_POOL_CUH
#define SM_GPU_POOL_CUH

#include <cuda_runtime.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "gpu/cuda_check.h"
#include "gpu/gpu_plan.h"
#include "io/clock.h"
#include "io/trace.h"

/* A buffer on the device or in pinned host memory. */
typedef struct {
	void *p;
	size_t cap;
	int async;      /* device memory from the stream-ordered allocator */
} sm_gpu_buf_t;

/* What a call state's first call sizes its buffers for, at least: reads
 * (seeding) and traceback jobs.  A run's first calls are the insert-size
 * sample's jobs, ~1/30 of a batch; buffers sized for those grew on the
 * next call, and every cudaFree, cudaMalloc and pinned allocation waits
 * for all the device's streams: 100-240 ms for each worker's first batch
 * with 32 workers (results/gpu-2026-11-28.md, X40). */
#define SM_GPU_FIRST_READS 4096
#define SM_GPU_FIRST_JOBS 1024

/* The items (*n) and bytes (*bytes) to size a call state's buffers for:
 * a fresh state's (fresh: no buffer made yet) for `first` items at least,
 * of the same mean size; else as asked. */
static inline void sm_gpu_first_size(int fresh, int64_t first, int64_t *n, int64_t *bytes)
{
	if (fresh && *n > 0 && *n < first) {
		*bytes = *bytes * first / *n;
		*n = first;
	}
}

/* Makes b hold at least `need` bytes (contents lost): device memory, or
 * pinned host memory when host.  0 or -1 (logged).  Device memory comes
 * from the stream-ordered allocator in the order of `stream`, the only
 * stream that uses it, so that growing does not wait for the device's
 * other streams (cudaMalloc where a device has no such allocator). */
static inline int sm_gpu_buf_grow(sm_gpu_buf_t *b, size_t need, int host, cudaStream_t stream)
{
	cudaError_t e;

	if (need <= b->cap)
		return 0;
	need = need < 2 * b->cap ? 2 * b->cap : need;
	if (host)
		cudaFreeHost(b->p);
	else if (b->async)
		cudaFreeAsync(b->p, stream);
	else
		cudaFree(b->p);
	b->p = NULL;
	b->cap = 0;
	b->async = 0;
	if (host) {
		e = cudaMallocHost(&b->p, need);
	} else if ((e = cudaMallocAsync(&b->p, need, stream)) == cudaSuccess) {
		b->async = 1;
	} else if (e == cudaErrorNotSupported) {
		(void)cudaGetLastError();
		e = cudaMalloc(&b->p, need);
	}
	if (SM_CUDA(e))
		return -1;
	b->cap = need;
	return 0;
}

/* Frees a call state's buffers, stream and events (those not made are
 * zero). */
static inline void sm_gpu_call_release(sm_gpu_buf_t *const *dev, size_t n_dev,
				       sm_gpu_buf_t *const *host, size_t n_host,
				       cudaStream_t stream, const cudaEvent_t *ev, int n_ev)
{
	for (size_t t = 0; t < n_dev; t++) {
		if (dev[t]->async)
			cudaFreeAsync(dev[t]->p, stream);
		else
			cudaFree(dev[t]->p);
	}
	for (size_t t = 0; t < n_host; t++)
		cudaFreeHost(host[t]->p);
	if (stream) {
		cudaStreamSynchronize(stream);
		cudaStreamDestroy(stream);
	}
	for (int k = 0; k < n_ev; k++)
		if (ev[k])
			cudaEventDestroy(ev[k]);
}

/* One device's call states (items[0..n_free) free, the rest in use) and
 * its load (gpu_plan.h's sm_gpu_pick_engine), under the owner's lock. */
typedef struct {
	void **items;
	int n, n_free;
	int in_flight, failed;
	uint64_t taken;         /* calls taken so far */
} sm_gpu_pool_t;

/* A free call state of p, or NULL: the caller then makes one and adds it
 * with sm_gpu_pool_add. */
static inline void *sm_gpu_pool_take(sm_gpu_pool_t *p, pthread_mutex_t *lock)
{
	void *c = NULL;

	pthread_mutex_lock(lock);
	if (p->n_free > 0)
		c = p->items[--p->n_free];
	pthread_mutex_unlock(lock);
	return c;
}

/* Adds c, in use, to p.  0 or -1 (out of memory: c stays the caller's). */
static inline int sm_gpu_pool_add(sm_gpu_pool_t *p, pthread_mutex_t *lock, void *c)
{
	void **m;

	pthread_mutex_lock(lock);
	m = (void **)realloc(p->items, (size_t)(p->n + 1) * sizeof *m);
	if (m) {
		p->items = m;
		p->items[p->n++] = c;
	}
	pthread_mutex_unlock(lock);
	return m ? 0 : -1;
}

/* A free call state of p, or a new one: `size` zeroed bytes with a
 * non-blocking stream made at byte `stream_at` (the device is the
 * thread's).  release frees a state.  NULL when that failed. */
static inline void *sm_gpu_pool_get(sm_gpu_pool_t *p, pthread_mutex_t *lock, size_t size,
				    size_t stream_at, void (*release)(void *))
{
	void *c = sm_gpu_pool_take(p, lock);

	if (c)
		return c;
	if (!(c = calloc(1, size)))
		return NULL;
	if (SM_CUDA(cudaStreamCreateWithFlags((cudaStream_t *)((char *)c + stream_at),
					      cudaStreamNonBlocking)) ||
	    sm_gpu_pool_add(p, lock, c) < 0) {
		release(c);
		return NULL;
	}
	return c;
}

/* Gives c back to p's free ones. */
static inline void sm_gpu_pool_give(sm_gpu_pool_t *p, pthread_mutex_t *lock, void *c)
{
	pthread_mutex_lock(lock);
	for (int t = p->n_free; t < p->n; t++)
		if (p->items[t] == c) {
			p->items[t] = p->items[p->n_free];
			p->items[p->n_free++] = c;
			break;
		}
	pthread_mutex_unlock(lock);
}

/* The index of the pool (device) with the fewest calls in flight among
 * pools[0..n) (sm_gpu_pick_engine), counted busy; -1 when every one has
 * failed. */
static inline int sm_gpu_pool_pick(sm_gpu_pool_t *const *pools, int n, pthread_mutex_t *lock)
{
	int in_flight[SM_GPU_MAX_ENGINES], failed[SM_GPU_MAX_ENGINES], e;
	uint64_t taken[SM_GPU_MAX_ENGINES];

	pthread_mutex_lock(lock);
	for (int k = 0; k < n; k++) {
		in_flight[k] = pools[k]->in_flight;
		taken[k] = pools[k]->taken;
		failed[k] = pools[k]->failed;
	}
	e = sm_gpu_pick_engine(in_flight, taken, failed, n);
	if (e >= 0) {
		pools[e]->in_flight++;
		pools[e]->taken++;
	}
	pthread_mutex_unlock(lock);
	return e;
}

/* The end of a call on pool p: no longer in flight; failed for good if
 * the call failed. */
static inline void sm_gpu_pool_done(sm_gpu_pool_t *p, int failed)
{
	p->in_flight--;
	p->failed |= failed;
}

/* With a span trace on (io/trace.h): marks a call's start on its stream
 * (ev[0], ev[1] made on first use).  0 or -1 (logged). */
static inline int sm_gpu_span_begin(cudaEvent_t ev[2], cudaStream_t stream)
{
	if (!sm_trace_on)
		return 0;
	if (!ev[0] && (SM_CUDA(cudaEventCreate(&ev[0])) || SM_CUDA(cudaEventCreate(&ev[1]))))
		return -1;
	return SM_CUDA(cudaEventRecord(ev[0], stream)) ? -1 : 0;
}

/* ...and, once the host has waited for the stream, records the call's
 * span on the device as `what`: the stream is idle, so the end event
 * completes at once and the host clock now is the device's at the end. */
static inline int sm_gpu_span_end(cudaEvent_t ev[2], cudaStream_t stream, const char *what)
{
	float ms;
	double end;

	if (!sm_trace_on)
		return 0;
	if (SM_CUDA(cudaEventRecord(ev[1], stream)) || SM_CUDA(cudaEventSynchronize(ev[1])) ||
	    SM_CUDA(cudaEventElapsedTime(&ms, ev[0], ev[1])))
		return -1;
	end = sm_seconds();
	sm_trace_span(what, end - 1e-3 * ms, end);
	return 0;
}

#endif
