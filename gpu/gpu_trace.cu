/* gpu_trace.cu — a batch of tracebacks on the GPU (gpu_trace.h).
 *
 * One CUDA thread runs one job's sm_tb_run (mapper/trace_band.h): the
 * scalar band fill, a byte of decisions per cell, and the walk.  Threads of
 * a warp interleave their buffers (cell k of thread l at k * 32 + l), so a
 * warp whose threads stand at the same cell stores and loads one segment;
 * the host sorts the jobs by band width first, so that a warp's jobs have
 * nearly the same loops.  A warp's decision bytes take 32 x (its longest
 * read) x (its widest band); warps are cut into chunks of at most
 * TRACE_CHUNK_BYTES of them, run one after the other on the call's stream
 * over the same buffer.  Only the results and CIGARs come back. */
#include "gpu/gpu_trace.h"

#include <cuda_runtime.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/cuda_check.h"
#include "gpu/gpu_plan.h"
#include "gpu/gpu_pool.cuh"
#include "io/clock.h"
#include "io/log.h"
#include "io/trace.h"

#define TRACE_WARP 32
/* Decision bytes of one chunk (a single warp may take more). */
#define TRACE_CHUNK_BYTES ((int64_t)256 << 20)

/* Per warp of the sorted jobs: where its decision bytes and scratch start
 * within its chunk, and its row pitch (the widest band of its jobs). */
typedef struct {
	int64_t dir, scratch;
	int32_t pitch, pad;
} warp_t;

/* Buffers of one call in flight, reused by the next call that takes them. */
typedef struct {
	cudaStream_t stream;
	sm_gpu_buf_t jobs, res, ops, codes, off, order, warps, dir, scratch;            /* device */
	sm_gpu_buf_t h_jobs, h_res, h_ops, h_codes, h_off, h_order, h_warps;            /* pinned host */
	cudaEvent_t ev[2];      /* the call's start and end on the device (traces) */
} call_t;

typedef struct {
	int device;
	int index;              /* in the run's list */
	sm_gpu_pool_t pool;     /* its calls' buffers (call_t) and load */
} trace_dev_t;

/* lock guards the devices' pools and counters and the statistics. */
struct sm_gpu_trace_s {
	sm_tb_score_t sc;
	int n_dev;
	trace_dev_t *dev[SM_GPU_MAX_ENGINES];
	sm_gpu_wait_t wait;
	int poll_us;
	int block;              /* threads per block */
	sm_gpu_pool_t *pools[SM_GPU_MAX_ENGINES];   /* each device's, for sm_gpu_pool_pick */
	pthread_mutex_t lock;
	int64_t chunk_bytes;
	double seconds;
	int64_t jobs;
};

/* ---- device ---- */

/* Thread x of a chunk launch runs the job at sorted position g = w0 * 32 +
 * x, for g below n (the chunk's end); 512 threads a block at most
 * (--gpu-tune trace-block). */
__global__ static void __launch_bounds__(512)
trace_kernel(sm_tb_score_t sc, int n, int w0, const sm_tb_job_t *jobs, const int32_t *order,
	     const uint8_t *codes, const int64_t *off, const warp_t *warps, uint8_t *dir,
	     int32_t *scratch, sm_tb_res_t *res, uint32_t *ops)
{
	const int g = w0 * TRACE_WARP + blockIdx.x * blockDim.x + threadIdx.x;
	const int lane = threadIdx.x % TRACE_WARP;
	const warp_t *wp;
	int32_t k;

	if (g >= n)
		return;
	k = order[g];
	wp = &warps[g / TRACE_WARP];
	{
		const sm_tb_job_t j = jobs[k];
		int32_t *hrow = scratch + wp->scratch + lane;

		sm_tb_run(&j, &sc, codes + off[k], codes + off[k] + j.n, hrow,
			  hrow + (size_t)TRACE_WARP * (size_t)wp->pitch, TRACE_WARP,
			  dir + wp->dir + lane, (size_t)wp->pitch, TRACE_WARP,
			  ops + (size_t)k * SM_TB_MAX_OPS, &res[k]);
	}
}

/* ---- host ---- */

#define D(b, T) ((T *)(c->b.p))

/* Frees a call state (void *: the pool's release). */
static void call_free(void *p)
{
	call_t *c = (call_t *)p;
	sm_gpu_buf_t *dev[] = { &c->jobs, &c->res, &c->ops, &c->codes, &c->off, &c->order, &c->warps,
			 &c->dir, &c->scratch };
	sm_gpu_buf_t *host[] = { &c->h_jobs, &c->h_res, &c->h_ops, &c->h_codes, &c->h_off, &c->h_order,
			  &c->h_warps };

	sm_gpu_call_release(dev, sizeof dev / sizeof *dev, host, sizeof host / sizeof *host,
			    c->stream, c->ev, 2);
	free(c);
}


/* Sorts the jobs by band width, widest first (a counting sort: strides are
 * at most SM_TB_MAX_STRIDE), into order[0..n). */
static void sort_jobs(int n, const sm_tb_job_t *jobs, int32_t *order)
{
	int32_t count[SM_TB_MAX_STRIDE + 2];

	memset(count, 0, sizeof count);
	for (int k = 0; k < n; k++)
		count[SM_TB_MAX_STRIDE + 1 - sm_tb_stride(&jobs[k])]++;
	for (int s = 0, sum = 0; s <= SM_TB_MAX_STRIDE + 1; s++) {
		int c = count[s];

		count[s] = sum;
		sum += c;
	}
	for (int k = 0; k < n; k++)
		order[count[SM_TB_MAX_STRIDE + 1 - sm_tb_stride(&jobs[k])]++] = k;
}

static int trace_call(const sm_gpu_trace_t *g, call_t *c, int n, const sm_tb_job_t *jobs,
		      const uint8_t *const *q, const uint8_t *const *win, sm_tb_res_t *res,
		      uint32_t *ops)
{
	const int n_warps = (n + TRACE_WARP - 1) / TRACE_WARP;
	int64_t bases = 0, dir_max = 0, scratch_max = 0;
	int32_t *order;
	int64_t *off;
	warp_t *wp;
	uint8_t *hc;

	for (int k = 0; k < n; k++) {
		if (jobs[k].n < 1 || jobs[k].w < 1 || sm_tb_stride(&jobs[k]) < 3 ||
		    sm_tb_stride(&jobs[k]) > SM_TB_MAX_STRIDE) {
			sm_log(SM_LOG_ERROR, "GPU traceback: job %d out of range (n %d, w %d, band %d..%d)",
			       k, jobs[k].n, jobs[k].w, jobs[k].dlo, jobs[k].dhi);
			return -1;
		}
		bases += (int64_t)jobs[k].n + jobs[k].w;
	}
	if (sm_gpu_buf_grow(&c->h_jobs, (size_t)n * sizeof *jobs, 1) || sm_gpu_buf_grow(&c->jobs, (size_t)n * sizeof *jobs, 0) ||
	    sm_gpu_buf_grow(&c->h_order, (size_t)n * sizeof(int32_t), 1) ||
	    sm_gpu_buf_grow(&c->order, (size_t)n * sizeof(int32_t), 0) ||
	    sm_gpu_buf_grow(&c->h_off, (size_t)n * sizeof(int64_t), 1) ||
	    sm_gpu_buf_grow(&c->off, (size_t)n * sizeof(int64_t), 0) ||
	    sm_gpu_buf_grow(&c->h_codes, (size_t)bases, 1) || sm_gpu_buf_grow(&c->codes, (size_t)bases, 0) ||
	    sm_gpu_buf_grow(&c->h_warps, (size_t)n_warps * sizeof(warp_t), 1) ||
	    sm_gpu_buf_grow(&c->warps, (size_t)n_warps * sizeof(warp_t), 0) ||
	    sm_gpu_buf_grow(&c->h_res, (size_t)n * sizeof *res, 1) || sm_gpu_buf_grow(&c->res, (size_t)n * sizeof *res, 0) ||
	    sm_gpu_buf_grow(&c->h_ops, (size_t)n * SM_TB_MAX_OPS * sizeof *ops, 1) ||
	    sm_gpu_buf_grow(&c->ops, (size_t)n * SM_TB_MAX_OPS * sizeof *ops, 0))
		return -1;
	order = D(h_order, int32_t);
	off = D(h_off, int64_t);
	wp = D(h_warps, warp_t);
	hc = D(h_codes, uint8_t);
	memcpy(c->h_jobs.p, jobs, (size_t)n * sizeof *jobs);
	bases = 0;
	for (int k = 0; k < n; k++) {
		off[k] = bases;
		memcpy(hc + bases, q[k], (size_t)jobs[k].n);
		memcpy(hc + bases + jobs[k].n, win[k], (size_t)jobs[k].w);
		bases += (int64_t)jobs[k].n + jobs[k].w;
	}
	sort_jobs(n, jobs, order);
	/* Each warp's buffers, placed from its chunk's start. */
	{
		int64_t dir = 0, scratch = 0;

		for (int w = 0; w < n_warps; w++) {
			int32_t rows = 0, pitch = 0;
			int64_t bytes;

			for (int t = w * TRACE_WARP; t < n && t < (w + 1) * TRACE_WARP; t++) {
				const sm_tb_job_t *j = &jobs[order[t]];

				rows = j->n > rows ? j->n : rows;
				pitch = sm_tb_stride(j) > pitch ? sm_tb_stride(j) : pitch;
			}
			bytes = (int64_t)TRACE_WARP * rows * pitch;
			if (dir > 0 && dir + bytes > g->chunk_bytes)
				dir = scratch = 0;   /* a new chunk */
			wp[w].dir = dir;
			wp[w].scratch = scratch;
			wp[w].pitch = pitch;
			wp[w].pad = 0;
			dir += bytes;
			scratch += 2 * (int64_t)TRACE_WARP * pitch;
			dir_max = dir > dir_max ? dir : dir_max;
			scratch_max = scratch > scratch_max ? scratch : scratch_max;
		}
	}
	if (sm_gpu_buf_grow(&c->dir, (size_t)dir_max, 0) ||
	    sm_gpu_buf_grow(&c->scratch, (size_t)scratch_max * sizeof(int32_t), 0))
		return -1;
	if (sm_gpu_span_begin(c->ev, c->stream))
		return -1;
	if (SM_CUDA(cudaMemcpyAsync(c->jobs.p, c->h_jobs.p, (size_t)n * sizeof *jobs,
				    cudaMemcpyHostToDevice, c->stream)) ||
	    SM_CUDA(cudaMemcpyAsync(c->order.p, order, (size_t)n * sizeof *order,
				    cudaMemcpyHostToDevice, c->stream)) ||
	    SM_CUDA(cudaMemcpyAsync(c->off.p, off, (size_t)n * sizeof *off, cudaMemcpyHostToDevice,
				    c->stream)) ||
	    SM_CUDA(cudaMemcpyAsync(c->codes.p, hc, (size_t)bases, cudaMemcpyHostToDevice,
				    c->stream)) ||
	    SM_CUDA(cudaMemcpyAsync(c->warps.p, wp, (size_t)n_warps * sizeof *wp,
				    cudaMemcpyHostToDevice, c->stream)))
		return -1;
	/* One launch per chunk: the warps from w0 up to the next whose
	 * buffers start again at 0. */
	for (int w0 = 0; w0 < n_warps;) {
		int w1 = w0 + 1, threads;

		while (w1 < n_warps && wp[w1].dir > 0)
			w1++;
		threads = (w1 * TRACE_WARP < n ? w1 * TRACE_WARP : n) - w0 * TRACE_WARP;
		trace_kernel<<<(threads + g->block - 1) / g->block, g->block, 0, c->stream>>>(g->sc, w0 * TRACE_WARP + threads, w0, D(jobs, sm_tb_job_t),
					    D(order, int32_t), D(codes, uint8_t), D(off, int64_t),
					    D(warps, warp_t), D(dir, uint8_t), D(scratch, int32_t),
					    D(res, sm_tb_res_t), D(ops, uint32_t));
		if (SM_CUDA(cudaGetLastError()))
			return -1;
		w0 = w1;
	}
	if (SM_CUDA(cudaMemcpyAsync(c->h_res.p, c->res.p, (size_t)n * sizeof *res,
				    cudaMemcpyDeviceToHost, c->stream)) ||
	    SM_CUDA(cudaMemcpyAsync(c->h_ops.p, c->ops.p, (size_t)n * SM_TB_MAX_OPS * sizeof *ops,
				    cudaMemcpyDeviceToHost, c->stream)) ||
	    SM_CUDA(sm_stream_wait(c->stream, g->wait, g->poll_us)))
		return -1;
	memcpy(res, c->h_res.p, (size_t)n * sizeof *res);
	for (int k = 0; k < n; k++)
		memcpy(ops + (size_t)k * SM_TB_MAX_OPS, D(h_ops, uint32_t) + (size_t)k * SM_TB_MAX_OPS,
		       (size_t)res[k].n_ops * sizeof *ops);
	if (sm_gpu_span_end(c->ev, c->stream, "device: tracebacks"))
		return -1;
	return 0;
}

extern "C" int sm_gpu_trace_run(sm_gpu_trace_t *g, int n, const sm_tb_job_t *jobs,
				const uint8_t *const *q, const uint8_t *const *win,
				sm_tb_res_t *res, uint32_t *ops)
{
	double t0 = sm_seconds();
	trace_dev_t *d;
	call_t *c;
	int rc = -1, e;

	if (n == 0)
		return 0;
	if ((e = sm_gpu_pool_pick(g->pools, g->n_dev, &g->lock)) < 0) {
		sm_log(SM_LOG_ERROR, "GPU tracebacks: every GPU has failed");
		return -1;
	}
	d = g->dev[e];
	if (SM_CUDA(cudaSetDevice(d->device)) ||
	    !(c = (call_t *)sm_gpu_pool_get(&d->pool, &g->lock, sizeof(call_t),
					    offsetof(call_t, stream), call_free))) {
		sm_log(SM_LOG_ERROR, "GPU tracebacks: cannot set up a call on GPU %d", d->device);
	} else {
		rc = trace_call(g, c, n, jobs, q, win, res, ops);
		sm_gpu_pool_give(&d->pool, &g->lock, c);
	}
	if (rc)
		sm_log(SM_LOG_ERROR, "GPU %d (traceback engine %d of %d) failed a call; it takes no more calls",
		       d->device, d->index + 1, g->n_dev);
	if (sm_trace_on)
		sm_trace_span("GPU traceback call", t0, sm_seconds());
	pthread_mutex_lock(&g->lock);
	sm_gpu_pool_done(&d->pool, rc != 0);
	g->seconds += sm_seconds() - t0;
	g->jobs += n;
	pthread_mutex_unlock(&g->lock);
	return rc;
}

static void dev_destroy(trace_dev_t *d)
{
	if (!d)
		return;
	cudaSetDevice(d->device);
	for (int t = 0; t < d->pool.n; t++)
		call_free((call_t *)d->pool.items[t]);
	free(d->pool.items);
	free(d);
}

extern "C" sm_gpu_trace_t *sm_gpu_trace_create(const sm_tb_score_t *sc, const sm_gpu_opt_t *opt)
{
	sm_gpu_trace_t *g;
	sm_gpu_list_t l;
	char msg[160];
	int n = 0;

	if (SM_CUDA(cudaGetDeviceCount(&n)))
		return NULL;
	if (sm_gpu_list_resolve(&opt->gpus, n, &l, msg, (int)sizeof msg) < 0) {
		sm_log(SM_LOG_ERROR, "GPU tracebacks: %s", msg);
		return NULL;
	}
	g = (sm_gpu_trace_t *)calloc(1, sizeof *g);
	if (!g) {
		sm_log(SM_LOG_ERROR, "GPU tracebacks: out of memory");
		return NULL;
	}
	g->sc = *sc;
	g->chunk_bytes = TRACE_CHUNK_BYTES;
	g->wait = opt->tune.wait;
	g->poll_us = opt->tune.poll_us ? opt->tune.poll_us : SM_GPU_POLL_US_DEFAULT;
	g->block = opt->tune.trace_block ? opt->tune.trace_block : SM_GPU_TRACE_BLOCK;
	pthread_mutex_init(&g->lock, NULL);
	for (int k = 0; k < l.n; k++) {
		if (!(g->dev[k] = (trace_dev_t *)calloc(1, sizeof(trace_dev_t)))) {
			sm_log(SM_LOG_ERROR, "GPU tracebacks: out of memory");
			g->n_dev = k;
			sm_gpu_trace_destroy(g);
			return NULL;
		}
		g->dev[k]->device = l.id[k];
		g->dev[k]->index = k;
		g->pools[k] = &g->dev[k]->pool;
	}
	g->n_dev = l.n;
	return g;
}

extern "C" void sm_gpu_trace_set_chunk(sm_gpu_trace_t *g, int64_t bytes)
{
	g->chunk_bytes = bytes > 0 ? bytes : TRACE_CHUNK_BYTES;
}

extern "C" void sm_gpu_trace_stats(const sm_gpu_trace_t *g, double *seconds, int64_t *jobs)
{
	*seconds = g->seconds;
	*jobs = g->jobs;
}

extern "C" void sm_gpu_trace_destroy(sm_gpu_trace_t *g)
{
	if (!g)
		return;
	for (int k = 0; k < g->n_dev; k++)
		dev_destroy(g->dev[k]);
	pthread_mutex_destroy(&g->lock);
	free(g);
}
