/* gpu_trace.cu — a batch of tracebacks on the GPU (gpu_trace.h).
 *
 * One warp runs one job, row by row, as the scan kernels run a strip (the
 * paper's row-parallel scan, docs/gpu.md): lane l holds M consecutive band
 * offsets of the row in registers (the band's S - 2 cells over 32 lanes,
 * rounded up: sm_gpu_trace_lane_cells), computes their diagonal and F terms
 * at once, and the row's E recurrence E(k+1) = max(E(k) - ge, H(k) - go)
 * runs as a warp max-plus scan of each lane's carry function; then every
 * cell's value is the scalar fill's (mapper/trace_band.h, sm_tb_run) and so
 * are the decision bytes it stores.  Lane 0 walks them (sm_tb_walk).  One
 * kernel takes the classes up to M = 8, one each the wider ones; the host
 * sorts the jobs by band width, widest first, so that a kernel's jobs lie
 * together.  Jobs' decision
 * bytes are cut into chunks of at most TRACE_CHUNK_BYTES (a single job may
 * take more), run one after the other on the call's stream over the same
 * buffer.  Only the results and CIGARs come back. */
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
/* Decision bytes of one chunk (a single job may take more). */
#define TRACE_CHUNK_BYTES ((int64_t)256 << 20)

/* Buffers of one call in flight, reused by the next call that takes them. */
typedef struct {
	cudaStream_t stream;
	sm_gpu_buf_t jobs, res, ops, codes, off, order, doff, dir;                       /* device */
	sm_gpu_buf_t h_jobs, h_res, h_ops, h_codes, h_off, h_order, h_doff;             /* pinned host */
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
	int block;              /* threads per block: a job a warp */
	sm_gpu_pool_t *pools[SM_GPU_MAX_ENGINES];   /* each device's, for sm_gpu_pool_pick */
	pthread_mutex_t lock;
	int64_t chunk_bytes;
	double seconds;
	int64_t jobs;
};

/* ---- device ---- */

#define TRACE_FULL 0xffffffffu
/* A carry function's decay that cuts the chain (a cell outside the
 * window), and the most any decay is taken as: sums of two stay below
 * 2^31, and E - TRACE_CUT below any score. */
#define TRACE_CUT (1 << 30)

/* Decision bytes of a row: cell (i, k) at [(i - 1) * pitch + k], k up to
 * the last lane's 32 M. */
static __host__ __device__ int32_t trace_pitch(int M)
{
	return 32 * M + 1;
}

/* One job on one warp (jobs[kx], its decision bytes at d), lane l taking
 * band offsets 1 + lM .. lM + M.  tests/unit/test_trace_rows.c runs these
 * steps lane by lane on the host against sm_tb_run (no GPU needed): a change
 * here goes there too. */
template <int M>
__device__ static void trace_job(const sm_tb_score_t &sc, int lane, int32_t kx,
				 const sm_tb_job_t *__restrict__ jobs, const uint8_t *__restrict__ codes,
				 const int64_t *__restrict__ off, uint8_t *d, sm_tb_res_t *res,
				 uint32_t *ops)
{
	const int32_t NEG = SM_TB_NEG, go = sc.go, ge = sc.ge;
	const sm_tb_job_t j = jobs[kx];
	const int32_t S = sm_tb_stride(&j), P = trace_pitch(M), k0 = 1 + lane * M;
	const uint8_t *q = codes + off[kx], *win = q + j.n;
	int32_t hp[M], fp[M], i_end = 0;
	uint32_t wr[M];   /* the window's codes at the lane's cells of row i */

#pragma unroll
	for (int x = 0; x < M; x++) {
		const int32_t col = j.dlo + k0 + x;   /* row 1's */

		hp[x] = 0;
		fp[x] = NEG;
		wr[x] = col >= 1 && col <= j.w ? win[col - 1] : SM_BASE_N;
	}
	for (int32_t i = 1; i <= j.n; i++) {
		const int32_t col0 = i + j.dlo + k0 - 1;
		const uint8_t qc = q[i - 1];
		const int32_t uh = __shfl_down_sync(TRACE_FULL, hp[0], 1);
		const int32_t uf = __shfl_down_sync(TRACE_FULL, fp[0], 1);
		int32_t ht[M], fv[M], dg[M], a = 0, b = NEG;
		uint32_t fo = 0, cut = 0;
		uint32_t dd[M];

		/* H without E (diagonal, F, 0) and F; each cell's step of the
		 * lane's E carry, composed into E_out = max(E_in - a, b). */
#pragma unroll
		for (int x = 0; x < M; x++) {
			const int32_t col = col0 + x;
			const int in = k0 + x <= S - 2 && col >= 1 && col <= j.w;
			/* The cell above: the next offset's, the boundary's past
			 * the last lane. */
			const int32_t hu = x + 1 < M ? hp[x + 1] : lane == TRACE_WARP - 1 ? 0 : uh;
			const int32_t fu = x + 1 < M ? fp[x + 1] : lane == TRACE_WARP - 1 ? NEG : uf;
			const int32_t diag = hp[x] + sm_tb_subst(&sc, wr[x], qc, i == 1);
			int32_t f = fu - ge, t;

			if (hu - go > f) {
				f = hu - go;
				fo |= 1u << x;
			}
			t = diag > f ? diag : f;
			t = t > 0 ? t : 0;
			if (!in) {
				t = 0;
				f = NEG;
				cut |= 1u << x;
				a = TRACE_CUT;
				b = -go;
			} else {
				a = a >= TRACE_CUT - ge ? TRACE_CUT : a + ge;
				b = b - ge > t - go ? b - ge : t - go;
			}
			ht[x] = t;
			fv[x] = f;
			dg[x] = diag;
		}
		/* Inclusive scan of the lanes' carry functions, lane 0 first. */
#pragma unroll
		for (int s = 1; s < TRACE_WARP; s <<= 1) {
			const int32_t pa = __shfl_up_sync(TRACE_FULL, a, s);
			const int32_t pb = __shfl_up_sync(TRACE_FULL, b, s);

			if (lane >= s) {
				b = pb - a > b ? pb - a : b;
				a = pa >= TRACE_CUT - a ? TRACE_CUT : pa + a;
			}
		}
		{
			/* E of the lane's first cell: lanes 0..l-1's carry applied
			 * to offset 1's (-go: the boundary's H 0 less go). */
			const int32_t ea = __shfl_up_sync(TRACE_FULL, a, 1);
			const int32_t eb = __shfl_up_sync(TRACE_FULL, b, 1);
			int32_t e = lane == 0 ? -go : (-go - ea > eb ? -go - ea : eb);
			int32_t open = 0, hl, el;   /* the next cell's bit 2; this cell's H and E */

#pragma unroll
			for (int x = 0; x < M; x++) {
				const int32_t ev = e;
				int32_t hv;

				if (cut >> x & 1) {
					hv = 0;
					el = NEG;
					dd[x] = 0;
				} else {
					hv = ht[x] > ev ? ht[x] : ev;
					el = ev;
					dd[x] = (hv == 0 ? 0 : hv == dg[x] ? 1 : hv == ev ? 2 : 3) |
						(open ? 4 : 0) | (fo >> x & 1 ? 8 : 0);
					if (col0 + x == j.w && !i_end &&
					    (i == j.n && hv > 0 ? hv + sc.clip3 : hv) == j.score)
						i_end = i;
				}
				hl = hv;
				open = hl - go > el - ge;
				e = el - ge > hl - go ? el - ge : hl - go;
				hp[x] = hv;
				fp[x] = fv[x];
			}
			/* Bit 2 of the lane's first cell, from the cell to its left
			 * (the boundary's H 0 and E minus infinity for lane 0). */
			hl = __shfl_up_sync(TRACE_FULL, hl, 1);
			el = __shfl_up_sync(TRACE_FULL, el, 1);
			if (!(cut & 1) && (lane == 0 || hl - go > el - ge))
				dd[0] |= 4;
		}
		{
			uint8_t *row = d + (size_t)(i - 1) * (size_t)P + k0;

#pragma unroll
			for (int x = 0; x < M; x++)
				row[x] = (uint8_t)dd[x];
		}
		/* The next row's window codes: one column on. */
#pragma unroll
		for (int x = 0; x + 1 < M; x++)
			wr[x] = wr[x + 1];
		{
			const int32_t col = col0 + M;   /* row i + 1's last cell */

			wr[M - 1] = col >= 1 && col <= j.w ? win[col - 1] : SM_BASE_N;
		}
	}
	/* The end: the first row whose column w cell has the score. */
#pragma unroll
	for (int s = TRACE_WARP / 2; s > 0; s >>= 1) {
		const int32_t o = __shfl_xor_sync(TRACE_FULL, i_end, s);

		if (o && (!i_end || o < i_end))
			i_end = o;
	}
	__syncwarp();
	if (lane == 0)
		sm_tb_walk(&j, i_end, d, (size_t)P, ops + (size_t)kx * SM_TB_MAX_OPS, &res[kx]);
}

/* Warp w of a launch runs the job at sorted position g0 + w (below n), its
 * decision bytes from doff[g]. */
#define TRACE_KERNEL_ARGS sm_tb_score_t sc, int n, int g0, const sm_tb_job_t *__restrict__ jobs, \
	const int32_t *__restrict__ order, const uint8_t *__restrict__ codes, \
	const int64_t *__restrict__ off, const int64_t *__restrict__ doff, uint8_t *dir, \
	sm_tb_res_t *res, uint32_t *ops
#define TRACE_WARP_JOB \
	const int lane = threadIdx.x % TRACE_WARP; \
	const int g = g0 + (int)((blockIdx.x * blockDim.x + threadIdx.x) / TRACE_WARP); \
	if (g >= n) \
		return; \
	const int32_t kx = order[g]; \
	uint8_t *d = dir + doff[g];

/* Bands of M <= 8 in one kernel, each warp its job's M (the kernel's
 * registers are M = 8's). */
__global__ static void __launch_bounds__(128) trace_small(TRACE_KERNEL_ARGS)
{
	TRACE_WARP_JOB
	switch (sm_gpu_trace_lane_cells(sm_tb_stride(&jobs[kx]))) {
	case 1: trace_job<1>(sc, lane, kx, jobs, codes, off, d, res, ops); break;
	case 2: trace_job<2>(sc, lane, kx, jobs, codes, off, d, res, ops); break;
	case 3: trace_job<3>(sc, lane, kx, jobs, codes, off, d, res, ops); break;
	case 4: trace_job<4>(sc, lane, kx, jobs, codes, off, d, res, ops); break;
	case 5: trace_job<5>(sc, lane, kx, jobs, codes, off, d, res, ops); break;
	case 6: trace_job<6>(sc, lane, kx, jobs, codes, off, d, res, ops); break;
	case 7: trace_job<7>(sc, lane, kx, jobs, codes, off, d, res, ops); break;
	default: trace_job<8>(sc, lane, kx, jobs, codes, off, d, res, ops); break;
	}
}

template <int M>
__global__ static void __launch_bounds__(128) trace_wide(TRACE_KERNEL_ARGS)
{
	TRACE_WARP_JOB
	trace_job<M>(sc, lane, kx, jobs, codes, off, d, res, ops);
}

typedef void (*trace_fn_t)(TRACE_KERNEL_ARGS);

/* The kernel of bands of M cells a lane. */
static trace_fn_t trace_kernel(int M)
{
	switch (M) {
	case 10: return trace_wide<10>;
	case 12: return trace_wide<12>;
	case 16: return trace_wide<16>;
	case 24: return trace_wide<24>;
	case 32: return trace_wide<32>;
	default: return trace_small;
	}
}

/* ---- host ---- */

#define D(b, T) ((T *)(c->b.p))

/* Frees a call state (void *: the pool's release). */
static void call_free(void *p)
{
	call_t *c = (call_t *)p;
	sm_gpu_buf_t *dev[] = { &c->jobs, &c->res, &c->ops, &c->codes, &c->off, &c->order, &c->doff,
			 &c->dir };
	sm_gpu_buf_t *host[] = { &c->h_jobs, &c->h_res, &c->h_ops, &c->h_codes, &c->h_off, &c->h_order,
			  &c->h_doff };

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

/* Decision bytes of a job. */
static int64_t job_bytes(const sm_tb_job_t *j)
{
	return (int64_t)j->n * trace_pitch(sm_gpu_trace_lane_cells(sm_tb_stride(j)));
}

static int trace_call(const sm_gpu_trace_t *g, call_t *c, int n, const sm_tb_job_t *jobs,
		      const uint8_t *const *q, const uint8_t *const *win, sm_tb_res_t *res,
		      uint32_t *ops)
{
	int64_t bases = 0, dir_max = 0, n_size = n, b_size;
	int32_t *order;
	int64_t *off, *doff;
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
	b_size = bases;
	sm_gpu_first_size(c->jobs.cap == 0, SM_GPU_FIRST_JOBS, &n_size, &b_size);
	if (sm_gpu_buf_grow(&c->h_jobs, (size_t)n_size * sizeof *jobs, 1, c->stream) || sm_gpu_buf_grow(&c->jobs, (size_t)n_size * sizeof *jobs, 0, c->stream) ||
	    sm_gpu_buf_grow(&c->h_order, (size_t)n_size * sizeof(int32_t), 1, c->stream) ||
	    sm_gpu_buf_grow(&c->order, (size_t)n_size * sizeof(int32_t), 0, c->stream) ||
	    sm_gpu_buf_grow(&c->h_off, (size_t)n_size * sizeof(int64_t), 1, c->stream) ||
	    sm_gpu_buf_grow(&c->off, (size_t)n_size * sizeof(int64_t), 0, c->stream) ||
	    sm_gpu_buf_grow(&c->h_doff, (size_t)n_size * sizeof(int64_t), 1, c->stream) ||
	    sm_gpu_buf_grow(&c->doff, (size_t)n_size * sizeof(int64_t), 0, c->stream) ||
	    sm_gpu_buf_grow(&c->h_codes, (size_t)b_size, 1, c->stream) || sm_gpu_buf_grow(&c->codes, (size_t)b_size, 0, c->stream) ||
	    sm_gpu_buf_grow(&c->h_res, (size_t)n_size * sizeof *res, 1, c->stream) || sm_gpu_buf_grow(&c->res, (size_t)n_size * sizeof *res, 0, c->stream) ||
	    sm_gpu_buf_grow(&c->h_ops, (size_t)n_size * SM_TB_MAX_OPS * sizeof *ops, 1, c->stream) ||
	    sm_gpu_buf_grow(&c->ops, (size_t)n_size * SM_TB_MAX_OPS * sizeof *ops, 0, c->stream))
		return -1;
	order = D(h_order, int32_t);
	off = D(h_off, int64_t);
	doff = D(h_doff, int64_t);
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
	/* Each job's decision bytes, placed from its chunk's start (a chunk
	 * starts where doff is 0). */
	for (int64_t t = 0, at = 0; t < n; t++) {
		const int64_t bytes = job_bytes(&jobs[order[t]]);

		if (at > 0 && at + bytes > g->chunk_bytes)
			at = 0;   /* a new chunk */
		doff[t] = at;
		at += bytes;
		dir_max = at > dir_max ? at : dir_max;
	}
	if (sm_gpu_buf_grow(&c->dir, (size_t)dir_max, 0, c->stream))
		return -1;
	if (sm_gpu_span_begin(c->ev, c->stream))
		return -1;
	if (SM_CUDA(cudaMemcpyAsync(c->jobs.p, c->h_jobs.p, (size_t)n * sizeof *jobs,
				    cudaMemcpyHostToDevice, c->stream)) ||
	    SM_CUDA(cudaMemcpyAsync(c->order.p, order, (size_t)n * sizeof *order,
				    cudaMemcpyHostToDevice, c->stream)) ||
	    SM_CUDA(cudaMemcpyAsync(c->off.p, off, (size_t)n * sizeof *off, cudaMemcpyHostToDevice,
				    c->stream)) ||
	    SM_CUDA(cudaMemcpyAsync(c->doff.p, doff, (size_t)n * sizeof *doff, cudaMemcpyHostToDevice,
				    c->stream)) ||
	    SM_CUDA(cudaMemcpyAsync(c->codes.p, hc, (size_t)bases, cudaMemcpyHostToDevice,
				    c->stream)))
		return -1;
	/* One launch per chunk and kernel: the jobs from g0 up to the next
	 * whose bytes start again at 0 or that takes another kernel. */
	for (int g0 = 0; g0 < n;) {
		const trace_fn_t kern = trace_kernel(sm_gpu_trace_lane_cells(sm_tb_stride(&jobs[order[g0]])));
		const int64_t threads_per_block = g->block;
		int g1 = g0 + 1;

		while (g1 < n && doff[g1] > 0 &&
		       trace_kernel(sm_gpu_trace_lane_cells(sm_tb_stride(&jobs[order[g1]]))) == kern)
			g1++;
		kern<<<(unsigned)(((int64_t)(g1 - g0) * TRACE_WARP + threads_per_block - 1) /
					    threads_per_block),
				 (unsigned)threads_per_block, 0, c->stream>>>(g->sc, g1, g0,
					D(jobs, sm_tb_job_t), D(order, int32_t), D(codes, uint8_t),
					D(off, int64_t), D(doff, int64_t), D(dir, uint8_t),
					D(res, sm_tb_res_t), D(ops, uint32_t));
		if (SM_CUDA(cudaGetLastError()))
			return -1;
		g0 = g1;
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
