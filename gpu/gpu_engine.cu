/* gpu_engine.cu — the GPU engine's life cycle and entry points
 * (gpu_engine.h).
 *
 * Engines.  An sm_gpu_t drives one engine per listed device (a device
 * listed twice gets two engines: tests use that to exercise the
 * scheduling on one GPU).  Each engine holds the whole reference on its
 * device for its lifetime as one byte per column (codes 0..4), every
 * contig preceded by a separator of `pad` columns coded CODE_PAD (scored as
 * ambiguous, never reported): pad >= n*match + 1 so no positive path
 * crosses it (the recurrence restarts at each contig), pad >= the halo so
 * every window's context exists, and pad is a multiple of the widest locus
 * bin so that device columns and global columns fall into the same bins.
 * A call goes to the engine with the fewest calls in flight and runs there
 * in one of its slots (a stream with its own workspace).
 *
 * A call, in steps (sm_gpu_scan_slot): the queries become groups of Q =
 * 32/B lanes, longest first (gpu_plan.c), per-group references are laid
 * out, each class's launches are planned, and the workspace is sized from
 * that plan; then the groups' rows are packed into pinned memory, go up in
 * one copy, the strip kernels run over ranges of the reference (one warp
 * per range and group), each query's per-range top-K lists are merged on
 * the device, and the final lists come back in one copy.  Kernels:
 * gpu_kernels.cu and sw_kernel.cuh; design: docs/gpu.md. */
#include "gpu/gpu_engine.h"

#include <cuda_runtime.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/cuda_check.h"
#include "gpu/gpu_copy.h"
#include "gpu/gpu_kernels.h"
#include "gpu/gpu_plan.h"
#include "gpu/gpu_profile.h"
#include "io/clock.h"
#include "io/log.h"
#include "io/trace.h"

/* Oldest architecture CUDA 13 builds for (sm_75). */
#define SM_GPU_MIN_ARCH 75
/* Devices a process may hold contexts on (context flags are set once each). */
#define SM_GPU_MAX_DEVICES 64
/* Each slot's workspace is reserved at creation for a call of this many
 * queries of up to SM_GPU_WS_HINT_LEN bases with per-group references of
 * SM_GPU_WS_HINT_COLS columns each (a seeded mapper's call is about this
 * size), so that a run's calls find it large enough; a larger call grows
 * it to the next power of two once. */
#define SM_GPU_WS_HINT_QUERIES 4096
#define SM_GPU_WS_HINT_LEN 256
#define SM_GPU_WS_HINT_COLS 1024
#define SM_GPU_WS_HINT_RANGE ((size_t)4 << 20)
/* Events of a slot: upload start, kernels start, download start, end. */
#define SM_GPU_EVENTS 4

/* ---- engines and slots -------------------------------------------------- */

/* What one call in flight owns: a stream, its events, and its workspace:
 * device and pinned host arenas laid out by sm_gpu_ws_layout (the same
 * offsets in both), and host scratch for the grouping. */
typedef struct {
	int busy;
	cudaStream_t stream;
	cudaEvent_t ev[SM_GPU_EVENTS];
	uint8_t *d_ws, *h_ws;
	size_t d_cap, h_cap;
	void *scratch;
	size_t scratch_cap;
} sm_gpu_slot_t;

/* One device's engine: the resident reference, the kernel parameters that
 * do not change between calls, and the slots. */
typedef struct {
	int index;                 /* in the run's list */
	int device;                /* CUDA device number */
	int sms;                   /* multiprocessors */
	const sm_gpu_arch_tune_t *arch;
	uint8_t *d_ref;
	int64_t *d_dev_start, *d_goff;
	int64_t *d_range_tab;      /* the contig ranges (g->range_tab), or NULL */
	smk::Params base;          /* scoring and reference fields of every launch */
	sm_gpu_slot_t slot[SM_GPU_SLOTS_MAX];
	int n_slots;
	/* guarded by sm_gpu_t.lock */
	int in_flight, failed;
	uint64_t calls_taken, calls;
	double kernel_s;
	cudaEvent_t ev_origin;     /* the device's clock at host time t_origin (traces) */
	double t_origin;
} sm_gpu_dev_t;

struct sm_gpu_s {
	char name[sizeof(((cudaDeviceProp *)0)->name) + 96];
	sm_gpu_tune_t tune;
	int bits;                  /* narrow width of the ladder in use */
	sm_score_t sc;
	int max_len;
	uint8_t *n_row;            /* max_len N codes: an empty lane's rows */
	int64_t pad;               /* separator columns before each contig */
	int32_t n_contig;
	int64_t *dev_start;        /* device column of each contig's first base */
	int64_t *offset;           /* global coordinate of each contig */
	int64_t dev_len;
	/* The columns whole-reference scans cover, [col0, col_end): the
	 * contigs and the separators between them.  The separators before the
	 * first and after the last hold only the zeros a range starts from. */
	int64_t col0, col_end;
	/* Whole-reference ranges that follow the contigs where separators
	 * would be most of the columns (sm_gpu_contig_ranges): n_range_tab
	 * triples, 0 and NULL otherwise. */
	int64_t n_range_tab, *range_tab;
	const sm_kclass_t *plain16; /* 16-bit plain class override (benchmarks) */
	int n_dev;
	sm_gpu_dev_t *dev[SM_GPU_MAX_ENGINES];

	/* lock guards the slots' busy flags, the engines' counters, the
	 * statistics and prof */
	pthread_mutex_t lock;
	pthread_cond_t slot_free;
	uint64_t cells, cells_w[3];
	uint64_t calls;
	double wait_s, call_s, kernel_s;   /* summed over calls */
	sm_gpu_profile_t prof;     /* of the last scan */
};

void sm_gpu_opt_init(sm_gpu_opt_t *o)
{
	memset(o, 0, sizeof *o);
	o->cells = SM_CELLS_AUTO;
	o->max_query_len = 1;
	sm_gpu_tune_init(&o->tune);
}

/* Makes `device` the thread's and creates its context, once per process
 * and device: sm_gpu_warm_up() in a thread per device while the reference
 * loads, else sm_gpu_create().  The wait modes that synchronise set the
 * context's scheduling flag, which must precede the context.  Devices'
 * contexts are created at once (each takes ~0.4 s on an H200 host, most of
 * a run's set-up); a second caller for the same device waits for the
 * first. */
static cudaError_t gpu_context(int device, sm_gpu_wait_t wait)
{
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	static pthread_cond_t made = PTHREAD_COND_INITIALIZER;
	enum { NONE, MAKING, READY };
	static unsigned char state[SM_GPU_MAX_DEVICES];
	cudaError_t e = cudaSetDevice(device);

	if (e != cudaSuccess || device < 0 || device >= SM_GPU_MAX_DEVICES)
		return e;
	pthread_mutex_lock(&lock);
	while (state[device] == MAKING)
		pthread_cond_wait(&made, &lock);
	if (state[device] == READY) {
		pthread_mutex_unlock(&lock);
		return cudaSuccess;
	}
	state[device] = MAKING;
	pthread_mutex_unlock(&lock);
	switch (wait) {
	case SM_GPU_WAIT_SPIN:
		e = cudaSetDeviceFlags(cudaDeviceScheduleSpin);
		break;
	case SM_GPU_WAIT_YIELD:
		e = cudaSetDeviceFlags(cudaDeviceScheduleYield);
		break;
	case SM_GPU_WAIT_BLOCK:
		e = cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync);
		break;
	default:
		break;
	}
	if (e == cudaSuccess)
		e = cudaFree(0);
	if (e == cudaSuccess) {
		/* The call states' device buffers come from the stream-ordered
		 * pool (gpu_pool.cuh): it keeps what they free, rather than
		 * handing it back to the driver at each synchronization. */
		cudaMemPool_t pool;
		uint64_t keep = UINT64_MAX;

		if (cudaDeviceGetDefaultMemPool(&pool, device) == cudaSuccess)
			cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep);
		(void)cudaGetLastError();   /* no pools on this device: cudaMalloc then */
	}
	pthread_mutex_lock(&lock);
	state[device] = e == cudaSuccess ? READY : NONE;
	pthread_cond_broadcast(&made);
	pthread_mutex_unlock(&lock);
	return e;
}

/* The devices of `want` among those visible; -1 with the reason in msg. */
static int resolve_devices(const sm_gpu_list_t *want, sm_gpu_list_t *out, char *msg, int msg_len)
{
	static const sm_gpu_list_t all = { 0, { 0 } };
	int n = 0;
	cudaError_t e = cudaGetDeviceCount(&n);

	if (e == cudaErrorInsufficientDriver || e == cudaErrorNoDevice) {
		/* The usual case on a machine without a GPU: say it plainly. */
		snprintf(msg, (size_t)msg_len, "%s", e == cudaErrorNoDevice ? "no CUDA device found" :
			 "no NVIDIA driver (or one older than this build's CUDA runtime)");
		return -1;
	}
	if (e != cudaSuccess) {
		snprintf(msg, (size_t)msg_len, "no CUDA device (%s)", cudaGetErrorString(e));
		return -1;
	}
	return sm_gpu_list_resolve(want ? want : &all, n, out, msg, msg_len);
}

int sm_gpu_available(const sm_gpu_list_t *gpus, char *msg, int msg_len)
{
	sm_gpu_list_t l;
	int at = 0;

	if (resolve_devices(gpus, &l, msg, msg_len) < 0)
		return 0;
	for (int k = 0; k < l.n; k++) {
		cudaDeviceProp prop;
		cudaError_t e = cudaGetDeviceProperties(&prop, l.id[k]);

		if (e != cudaSuccess) {
			snprintf(msg, (size_t)msg_len, "GPU %d: %s", l.id[k], cudaGetErrorString(e));
			return 0;
		}
		if (prop.major * 10 + prop.minor < SM_GPU_MIN_ARCH) {
			snprintf(msg, (size_t)msg_len, "GPU %d (%s) is sm_%d%d; sm_%d or newer needed",
				 l.id[k], prop.name, prop.major, prop.minor, SM_GPU_MIN_ARCH);
			return 0;
		}
		if (at < msg_len)
			at += snprintf(msg + at, (size_t)(msg_len - at), "%s%s", k ? ", " : "", prop.name);
	}
	return 1;
}

/* sm_gpu_for_each_device's job of sm_gpu_warm_up: one device's context. */
typedef struct {
	int device;
	sm_gpu_wait_t wait;
} warm_job_t;

static void *warm_main(void *arg)
{
	const warm_job_t *j = (const warm_job_t *)arg;

	(void)gpu_context(j->device, j->wait);
	return NULL;
}

void sm_gpu_warm_up(const sm_gpu_opt_t *opt)
{
	sm_gpu_list_t l;
	warm_job_t job[SM_GPU_MAX_ENGINES];
	char msg[160];

	if (resolve_devices(&opt->gpus, &l, msg, (int)sizeof msg) < 0)
		return;   /* sm_gpu_create() meets and logs it */
	for (int k = 0; k < l.n; k++)
		job[k] = (warm_job_t){ l.id[k], opt->tune.wait };
	sm_gpu_for_each_device(l.n, warm_main, job, sizeof *job);
}

static int sm_cells_bits(sm_cells_t cells)
{
	switch (cells) {
	case SM_CELLS_8:
		return 8;
	case SM_CELLS_32:
		return 32;
	case SM_CELLS_16:
	case SM_CELLS_AUTO:
	default:
		/* AUTO: the 16-bit DPX ladder, the fastest measured on sm_90
		 * (docs/gpu.md); before sm_90 DPX is emulated but still correct. */
		return 16;
	}
}

/* Makes the slot's workspace hold `dev` device and `host` pinned bytes
 * (contents not kept), growing to the next power of two when short. */
static int slot_reserve(sm_gpu_slot_t *s, size_t dev, size_t host)
{
	size_t cap;

	if (dev > s->d_cap) {
		for (cap = 1 << 20; cap < dev; cap *= 2)
			;
		cudaFree(s->d_ws);
		s->d_ws = NULL;
		s->d_cap = 0;
		if (SM_CUDA(cudaMalloc((void **)&s->d_ws, cap)))
			return -1;
		s->d_cap = cap;
	}
	if (host > s->h_cap) {
		for (cap = 1 << 20; cap < host; cap *= 2)
			;
		cudaFreeHost(s->h_ws);
		s->h_ws = NULL;
		s->h_cap = 0;
		if (SM_CUDA(cudaMallocHost((void **)&s->h_ws, cap)))
			return -1;
		s->h_cap = cap;
	}
	return 0;
}

/* Makes the host scratch of the grouping hold `need` bytes, growing to
 * the next power of two when short; its contents are kept. */
static int slot_scratch(sm_gpu_slot_t *s, size_t need)
{
	size_t cap;
	void *m;

	if (need <= s->scratch_cap)
		return 0;
	for (cap = 1 << 16; cap < need; cap *= 2)
		;
	if (!(m = realloc(s->scratch, cap))) {
		sm_log(SM_LOG_ERROR, "GPU engine: out of memory (%zu bytes of call scratch)", cap);
		return -1;
	}
	s->scratch = m;
	s->scratch_cap = cap;
	return 0;
}

/* Rounds a scratch part to 16 bytes. */
static size_t part(size_t bytes) { return (bytes + 15) / 16 * 16; }

/* The host scratch of a call of n queries with Q lanes and nc contig
 * slots of per-group references: the grouping's own, the groups' arrays,
 * the reference tables last (so that the others stay put when nc grows
 * it).  Points gr's arrays, *tab and *gcontig into m (when not NULL);
 * returns the bytes. */
static size_t carve_scratch(char *m, int n, int Q, int64_t nc, sm_gpu_groups_t *gr,
			    int64_t **tab, int32_t **gcontig)
{
	const size_t nn = (size_t)(n > 0 ? n : 1);
	size_t at = part(sm_gpu_group_scratch_bytes(n));

	if (m)
		gr->lq = (int *)(m + at);
	at += part(sizeof(int) * nn * Q);
	if (m)
		gr->shift = (int32_t *)(m + at);
	at += part(sizeof(int32_t) * nn * Q);
	if (m)
		gr->glen = (int32_t *)(m + at);
	at += part(sizeof(int32_t) * nn);
	if (m)
		gr->qoff = (int64_t *)(m + at);
	at += part(sizeof(int64_t) * nn);
	if (m)
		*gcontig = (int32_t *)(m + at);
	at += part(sizeof(int32_t) * (nn + 1));
	if (m)
		*tab = (int64_t *)(m + at);
	return at + part(sizeof(int64_t) * (size_t)sm_gpu_ref_tab_len(n, nc));
}

static void slot_free(sm_gpu_slot_t *s)
{
	cudaFree(s->d_ws);
	cudaFreeHost(s->h_ws);
	free(s->scratch);
	for (int k = 0; k < SM_GPU_EVENTS; k++)
		if (s->ev[k])
			cudaEventDestroy(s->ev[k]);
	if (s->stream)
		cudaStreamDestroy(s->stream);
}

/* A slot's stream and events; with `reserve`, its workspace for a
 * typical call too (the others grow on their first call). */
static int slot_init(sm_gpu_slot_t *s, int Q, int reserve)
{
	sm_gpu_ws_shape_t shape;
	sm_gpu_ws_t ws;

	if (SM_CUDA(cudaStreamCreateWithFlags(&s->stream, cudaStreamNonBlocking)))
		return -1;
	for (int k = 0; k < SM_GPU_EVENTS; k++)
		if (SM_CUDA(cudaEventCreate(&s->ev[k])))
			return -1;
	if (!reserve)
		return 0;
	/* The size query for a typical call (SM_GPU_WS_HINT_*). */
	memset(&shape, 0, sizeof shape);
	shape.ngroups = SM_GPU_WS_HINT_QUERIES;
	shape.Q = Q;
	shape.rows_total = (int64_t)SM_GPU_WS_HINT_QUERIES * SM_GPU_WS_HINT_LEN * Q;
	shape.ref_tab = sm_gpu_ref_tab_len(SM_GPU_WS_HINT_QUERIES, SM_GPU_WS_HINT_QUERIES);
	shape.ref_cols = (int64_t)SM_GPU_WS_HINT_QUERIES * SM_GPU_WS_HINT_COLS;
	shape.range_bytes = SM_GPU_WS_HINT_RANGE;
	sm_gpu_ws_layout(&shape, &ws);
	return slot_reserve(s, ws.off[SM_GPU_WS_N], ws.off[SM_GPU_WS_CELLS + 1]) ||
	       slot_scratch(s, carve_scratch(NULL, SM_GPU_WS_HINT_QUERIES, Q, SM_GPU_WS_HINT_QUERIES,
					     NULL, NULL, NULL));
}

static void dev_destroy(sm_gpu_dev_t *d)
{
	if (!d)
		return;
	cudaSetDevice(d->device);
	cudaFree(d->d_ref);
	cudaFree(d->d_dev_start);
	cudaFree(d->d_goff);
	cudaFree(d->d_range_tab);
	for (int k = 0; k < SM_GPU_SLOTS_MAX; k++)
		slot_free(&d->slot[k]);
	if (d->ev_origin)
		cudaEventDestroy(d->ev_origin);
	free(d);
}

void sm_gpu_destroy(sm_gpu_t *g)
{
	if (!g)
		return;
	for (int k = 0; k < g->n_dev; k++) {
		const sm_gpu_dev_t *d = g->dev[k];

		if (d && g->n_dev > 1)
			sm_log(SM_LOG_DEBUG, "GPU engine %d (GPU %d): %llu calls, %.2f s in kernels",
			       k, d->device, (unsigned long long)d->calls, d->kernel_s);
		dev_destroy(g->dev[k]);
	}
	pthread_cond_destroy(&g->slot_free);
	pthread_mutex_destroy(&g->lock);
	free(g->dev_start);
	free(g->offset);
	free(g->range_tab);
	free(g->n_row);
	free(g);
}

/* The kernel parameters that every launch of an engine shares: its
 * reference and the scoring in kernel form (per read code, the bytes
 * s(q, A..T) signed, their positive and their negative parts). */
static void base_params(const sm_gpu_t *g, const sm_gpu_dev_t *d, smk::Params *P)
{
	memset(P, 0, sizeof *P);
	P->ref = d->d_ref;
	P->dev_start = d->d_dev_start;
	P->goff = d->d_goff;
	P->goff1 = d->d_goff;
	P->n_contig = g->n_contig;
	P->col0 = g->col0;
	P->dev_len = g->col_end;
	P->range_tab = d->d_range_tab;
	P->match = g->sc.match;
	P->oe = g->sc.gap_open + g->sc.gap_ext;
	P->ext = g->sc.gap_ext;
	P->clip5 = g->sc.clip5;
	P->clip3 = g->sc.clip3;
	/* Codes FIRST_CODE + c: a read's first base, with the 5' bonus. */
	static_assert(smk::FIRST_CODE == SM_GPU_FIRST_CODE, "one first-base code");
	for (int code = 0; code < 2 * smk::FIRST_CODE; code++) {
		uint32_t ps = 0, pp = 0, pn = 0;
		const int first = code >= smk::FIRST_CODE;
		const uint8_t qc = (uint8_t)(first ? code - smk::FIRST_CODE : code);

		for (int r = 0; r < 4; r++) {
			const int s = first ? sm_subst_first(&g->sc, (uint8_t)r, qc)
					    : sm_subst(&g->sc, (uint8_t)r, qc);

			ps |= (uint32_t)(uint8_t)(int8_t)s << (8 * r);
			pp |= (uint32_t)(s > 0 ? s : 0) << (8 * r);
			pn |= (uint32_t)(s < 0 ? -s : 0) << (8 * r);
		}
		P->prof_s[code] = ps;
		P->prof_pos[code] = pp;
		P->prof_neg[code] = pn;
	}
}

/* Creates the engine of list entry `index` on `device`: context, kernel
 * limits, the reference (alloc bytes, laid out as *lay says) and the
 * slots. */
static sm_gpu_dev_t *dev_create(sm_gpu_t *g, int index, int device,
				const sm_gpu_ref_image_t *lay, size_t alloc)
{
	sm_gpu_dev_t *d = (sm_gpu_dev_t *)calloc(1, sizeof *d);
	cudaDeviceProp prop;
	const size_t tab = sizeof(int64_t) * (size_t)g->n_contig;
	const int Q = 32 / g->bits;

	if (!d) {
		sm_log(SM_LOG_ERROR, "GPU engine: out of memory");
		return NULL;
	}
	d->index = index;
	d->device = device;
	if (SM_CUDA(gpu_context(device, g->tune.wait)) ||
	    SM_CUDA(cudaGetDeviceProperties(&prop, device)))
		goto fail;
	if (index == 0)
		snprintf(g->name, sizeof g->name, "%s (cells %d)", prop.name, g->bits);
	d->sms = prop.multiProcessorCount;
	d->arch = sm_gpu_arch_tune(prop.major * 10 + prop.minor);
	d->n_slots = g->tune.slots ? g->tune.slots : d->arch->slots;
	/* Each warp keeps two edge words per row (and a group's rows) in
	 * shared memory: allow what the longest read needs. */
	for (int b = 8; b <= 32; b *= 2)
		for (int l = 0; l < 2; l++) {
			const sm_kclass_t *kc = sm_kclass(b, l);
			const size_t need = kc->smem(g->max_len);

			if (need > prop.sharedMemPerBlockOptin) {
				sm_log(SM_LOG_ERROR,
				       "GPU engine: reads of %d bases need %zu bytes of shared memory per block, more than the %zu of GPU %d (%s)",
				       g->max_len, need, (size_t)prop.sharedMemPerBlockOptin, device, prop.name);
				goto fail;
			}
			if (SM_CUDA(kc->set_smem(need)) || SM_CUDA(kc->set_smem_gref(kc->smem_gref(g->max_len))))
				goto fail;
		}
	if (SM_CUDA(sm_kclass_one16()->set_smem(sm_kclass_one16()->smem(g->max_len))))
		goto fail;
	if (SM_CUDA(cudaMalloc((void **)&d->d_ref, alloc)) ||
	    sm_gpu_copy_up(d->d_ref, alloc, sm_gpu_fill_ref, lay, 0) ||
	    SM_CUDA(cudaMalloc((void **)&d->d_dev_start, tab)) ||
	    SM_CUDA(cudaMalloc((void **)&d->d_goff, tab)) ||
	    SM_CUDA(cudaMemcpy(d->d_dev_start, g->dev_start, tab, cudaMemcpyHostToDevice)) ||
	    SM_CUDA(cudaMemcpy(d->d_goff, g->offset, tab, cudaMemcpyHostToDevice)))
		goto fail;
	if (g->n_range_tab) {
		const size_t bytes = sizeof(int64_t) * 3 * (size_t)g->n_range_tab;

		if (SM_CUDA(cudaMalloc((void **)&d->d_range_tab, bytes)) ||
		    SM_CUDA(cudaMemcpy(d->d_range_tab, g->range_tab, bytes, cudaMemcpyHostToDevice)))
			goto fail;
	}
	for (int k = 0; k < SM_GPU_SLOTS_MAX; k++)
		if (slot_init(&d->slot[k], Q, k < d->n_slots))
			goto fail;
	if (SM_CUDA(cudaEventCreate(&d->ev_origin)) || SM_CUDA(cudaEventRecord(d->ev_origin, 0)) ||
	    SM_CUDA(cudaEventSynchronize(d->ev_origin)))
		goto fail;
	d->t_origin = sm_seconds();
	base_params(g, d, &d->base);
	return d;
fail:
	sm_log(SM_LOG_ERROR, "GPU engine: could not set up GPU %d", device);
	dev_destroy(d);
	return NULL;
}

/* dev_create() in a thread of its own. */
typedef struct {
	sm_gpu_t *g;
	int index, device;
	const sm_gpu_ref_image_t *lay;
	size_t alloc;
	sm_gpu_dev_t *d;
} dev_job_t;

static void *dev_create_main(void *arg)
{
	dev_job_t *j = (dev_job_t *)arg;

	j->d = dev_create(j->g, j->index, j->device, j->lay, j->alloc);
	return NULL;
}

sm_gpu_t *sm_gpu_create(const sm_ref_t *ref, const sm_score_t *sc, const sm_gpu_opt_t *opt)
{
	sm_gpu_t *g;
	sm_gpu_list_t l;
	sm_gpu_ref_image_t lay;
	char msg[160];
	size_t alloc;

	if (opt->max_query_len < 1) {
		sm_log(SM_LOG_ERROR, "GPU engine: max query length %d must be >= 1", opt->max_query_len);
		return NULL;
	}
	if (resolve_devices(&opt->gpus, &l, msg, (int)sizeof msg) < 0) {
		sm_log(SM_LOG_ERROR, "GPU engine: %s", msg);
		return NULL;
	}
	g = (sm_gpu_t *)calloc(1, sizeof *g);
	if (!g) {
		sm_log(SM_LOG_ERROR, "GPU engine: out of memory");
		return NULL;
	}
	pthread_mutex_init(&g->lock, NULL);
	pthread_cond_init(&g->slot_free, NULL);
	g->tune = opt->tune;
	g->sc = *sc;
	g->max_len = opt->max_query_len;
	g->bits = sm_cells_bits(opt->cells);
	if (!(g->n_row = (uint8_t *)malloc((size_t)g->max_len))) {
		sm_log(SM_LOG_ERROR, "GPU engine: out of memory");
		goto fail;
	}
	memset(g->n_row, SM_BASE_N, (size_t)g->max_len);
	g->pad = sm_gpu_sep_len(sc, g->max_len);
	g->n_contig = ref->n_contig;
	g->dev_start = (int64_t *)malloc(sizeof(int64_t) * (size_t)(ref->n_contig + 1));
	g->offset = (int64_t *)malloc(sizeof(int64_t) * (size_t)(ref->n_contig + 1));
	if (!g->dev_start || !g->offset) {
		sm_log(SM_LOG_ERROR, "GPU engine: out of memory");
		goto fail;
	}
	for (int32_t c = 0; c < ref->n_contig; c++)
		g->offset[c] = ref->offset[c];
	g->dev_len = sm_gpu_place_contigs(ref, g->pad, g->dev_start);
	g->col0 = g->pad;
	g->col_end = g->dev_len - g->pad;
	if (sm_gpu_use_contig_ranges(ref->len, ref->n_contig, g->pad)) {
		const int64_t halo = sm_gpu_halo(sc, g->max_len);

		g->n_range_tab = sm_gpu_contig_ranges(g->dev_start, ref->len, ref->n_contig, halo, NULL);
		g->range_tab = (int64_t *)malloc(sizeof(int64_t) * 3 * (size_t)g->n_range_tab);
		if (!g->range_tab || g->n_range_tab > INT32_MAX) {
			sm_log(SM_LOG_ERROR, "GPU engine: out of memory");
			goto fail;
		}
		sm_gpu_contig_ranges(g->dev_start, ref->len, ref->n_contig, halo, g->range_tab);
	}
	if (ref->total >= (int64_t)UINT32_MAX || g->dev_len >= ((int64_t)1 << 40)) {
		sm_log(SM_LOG_ERROR, "GPU engine: reference of %lld bases too long (32-bit columns)",
		       (long long)ref->total);
		goto fail;
	}
	/* The device layout, once for every engine; room past the end for the
	 * last strip of the last range. */
	alloc = (size_t)g->dev_len + SM_GPU_REF_TAIL;
	lay = (sm_gpu_ref_image_t){ ref, g->dev_start, smk::CODE_PAD };
	/* The engines in parallel, a thread each: the reference's upload and
	 * the slots' workspaces are per device. */
	{
		dev_job_t job[SM_GPU_MAX_ENGINES];
		int ok = 1;

		for (int k = 0; k < l.n; k++)
			job[k] = (dev_job_t){ g, k, l.id[k], &lay, alloc, NULL };
		sm_gpu_for_each_device(l.n, dev_create_main, job, sizeof *job);
		for (int k = 0; k < l.n; k++) {
			g->dev[k] = job[k].d;
			ok &= job[k].d != NULL;
		}
		g->n_dev = l.n;
		if (!ok)
			goto fail;
	}
	if (g->n_dev > 1) {
		char ids[4 * SM_GPU_MAX_ENGINES];
		const size_t at = strlen(g->name);

		sm_gpu_list_format(&l, ids, (int)sizeof ids);
		snprintf(g->name + at, sizeof g->name - at, " x %d (GPUs %s)", g->n_dev, ids);
	}
	return g;
fail:
	sm_gpu_destroy(g);
	return NULL;
}

/* ---- one call, in steps -------------------------------------------------- */

/* Everything a call works out on the host before its first copy. */
typedef struct {
	const sm_query_t *q;
	const sm_ref_t *const *refs;   /* NULL: the whole reference */
	const sm_ref_src_t *src;
	int n;
	sm_gpu_groups_t gr;
	sm_gpu_ref_layout_t rl;        /* per-group references */
	int64_t *tab;                  /* rl's tables (scratch) */
	int32_t *gcontig;
	sm_gpu_launch_in_t lin;
	const sm_kclass_t *kc[2];      /* [plain, ladder] */
	sm_gpu_ws_t ws;
} sm_call_t;

/* Step 1: every query fits the engine. */
static int check_queries(const sm_gpu_t *g, int n, const sm_query_t *q)
{
	for (int k = 0; k < n; k++)
		if (q[k].len < 1 || q[k].len > g->max_len) {
			sm_log(SM_LOG_ERROR, "GPU engine: query %d has length %d (engine built for 1..%d)",
			       k, q[k].len, g->max_len);
			return -1;
		}
	return 0;
}

/* Step 2: groups, lanes and per-group reference layout, in s's scratch. */
static int plan_groups(const sm_gpu_t *g, sm_gpu_slot_t *s, sm_call_t *c)
{
	const int n = c->n, Q = 32 / g->bits;
	int64_t nc;

	if (slot_scratch(s, carve_scratch(NULL, n, Q, 0, NULL, NULL, NULL)))
		return -1;
	carve_scratch((char *)s->scratch, n, Q, 0, &c->gr, &c->tab, &c->gcontig);
	sm_gpu_make_groups(n, c->q, c->refs, Q, Q == 2 && !g->tune.no_lane_pairs, g->bits, &g->sc,
			   s->scratch, &c->gr);
	if (!c->refs)
		return 0;
	nc = sm_gpu_ref_slots(&c->gr, c->refs);
	if (slot_scratch(s, carve_scratch(NULL, n, Q, nc, NULL, NULL, NULL)))
		return -1;
	carve_scratch((char *)s->scratch, n, Q, nc, &c->gr, &c->tab, &c->gcontig);
	{
		const sm_gpu_ref_map_t map = { g->offset, g->dev_start, g->n_contig };

		sm_gpu_layout_refs(&c->gr, c->refs, c->src, &map, nc, c->tab, c->gcontig, &c->rl);
	}
	return 0;
}

/* The class of groups [0, nladder) (cls 1) or the others (cls 0). */
static void class_range(const sm_call_t *c, int cls, int *g_begin, int *g_end)
{
	*g_begin = cls ? 0 : c->gr.nladder;
	*g_end = cls ? c->gr.nladder : c->gr.ngroups;
}

static int class_cols(const sm_call_t *c, int cls)
{
	return c->refs ? c->kc[cls]->cols_gref : c->kc[cls]->cols;
}

/* Step 3: the launches' plan and the workspace it needs (the size query),
 * reserved in slot s. */
static int plan_workspace(const sm_gpu_t *g, const sm_gpu_dev_t *d, sm_gpu_slot_t *s, sm_call_t *c)
{
	sm_gpu_ws_shape_t shape;

	c->kc[1] = sm_kclass(g->bits, 1);
	c->kc[0] = sm_kclass(g->bits, 0);
	if (g->bits == 16 && g->plain16 && !c->refs)
		c->kc[0] = g->plain16;
	memset(&c->lin, 0, sizeof c->lin);
	c->lin.sms = d->sms;
	c->lin.arch = d->arch;
	c->lin.range_halos = g->tune.range_halos;
	c->lin.warps_per_sm = g->tune.warps_per_sm;
	c->lin.gref_halos = g->tune.gref_halos == SM_GPU_GREF_NO_SPLIT ? 0 :
			    g->tune.gref_halos ? g->tune.gref_halos : SM_GPU_GREF_HALOS_DEFAULT;
	c->lin.gref = c->refs != NULL;
	c->lin.dev_len = c->refs ? c->rl.max_dev_len : g->col_end;
	c->lin.col_begin = c->refs ? 0 : g->col0;
	c->lin.n_tab = c->refs ? 0 : g->n_range_tab;
	c->lin.total_len = c->refs ? c->rl.total : 0;
	c->lin.Q = c->gr.Q;
	c->lin.sc = &g->sc;
	memset(&shape, 0, sizeof shape);
	shape.ngroups = c->gr.ngroups;
	shape.Q = c->gr.Q;
	shape.rows_total = c->gr.rows_total;
	if (c->refs) {
		shape.ref_tab = sm_gpu_ref_tab_len(c->gr.ngroups, c->rl.nc);
		shape.ref_cols = c->rl.total;
	}
	/* A short whole reference: the plain groups one range each, when that
	 * holds the device less (sm_gpu_whole_one_range). */
	if (!c->refs && g->bits == 16 && !g->plain16) {
		int gs, g_end;
		sm_gpu_launch_t split;

		class_range(c, 0, &gs, &g_end);
		if (gs < g_end) {
			sm_gpu_plan_launch(&c->lin, c->gr.glen, gs, g_end, class_cols(c, 0),
					   c->kc[0]->warps, &split);
			if (sm_gpu_whole_one_range(&c->lin, g_end - gs, class_cols(c, 0), c->kc[0]->warps,
						   &split))
				c->kc[0] = sm_kclass_one16();
		}
	}
	for (int cls = 1; cls >= 0; cls--) {
		int gs, g_end;

		class_range(c, cls, &gs, &g_end);
		while (gs < g_end) {
			sm_gpu_launch_t la;

			sm_gpu_plan_launch(&c->lin, c->gr.glen, gs, g_end, class_cols(c, cls),
					   c->refs ? c->kc[cls]->warps_gref : c->kc[cls]->warps, &la);
			if (la.range_bytes > shape.range_bytes)
				shape.range_bytes = la.range_bytes;
			gs += la.chunk;
		}
	}
	sm_gpu_ws_layout(&shape, &c->ws);
	return slot_reserve(s, c->ws.off[SM_GPU_WS_N], c->ws.off[SM_GPU_WS_CELLS + 1]);
}

/* Writes lane l (0, 1; 2: both) of reference r's bases (codes above N as
 * N) into a per-group layout dst, contig c at ld[c]. */
static void copy_lane(const sm_ref_t *r, const int64_t *ld, int l, uint8_t *dst)
{
	for (int32_t c = 0; c < r->n_contig; c++) {
		const uint8_t *src = r->seq + r->offset[c];
		uint8_t *o = dst + ld[c];

		for (int64_t x = 0; x < r->len[c]; x++) {
			const uint8_t b = src[x] < SM_BASE_N ? src[x] : SM_BASE_N;
			const uint8_t even = o[x] & ((1u << smk::CODE_LANE_BITS) - 1),
				      odd = o[x] >> smk::CODE_LANE_BITS;

			o[x] = smk::code_pair(l == 1 ? even : b, l == 0 ? odd : b);
		}
	}
}

#define WS(c, s, r, T) ((T *)((s)->h_ws + (c)->ws.off[r]))
#define DWS(c, s, r, T) ((T *)((s)->d_ws + (c)->ws.off[r]))

/* Step 4: the tables, the rows and (bases from the host) the per-group
 * references into the pinned workspace.  Returns the bytes to upload. */
static size_t pack_call(const sm_gpu_t *g, sm_gpu_slot_t *s, const sm_call_t *c)
{
	const int ng = c->gr.ngroups, Q = c->gr.Q;

	memcpy(WS(c, s, SM_GPU_WS_QOFF, int64_t), c->gr.qoff, sizeof(int64_t) * ng);
	memcpy(WS(c, s, SM_GPU_WS_GLEN, int32_t), c->gr.glen, sizeof(int32_t) * ng);
	memcpy(WS(c, s, SM_GPU_WS_SHIFT, int32_t), c->gr.shift, sizeof(int32_t) * ng * Q);
	sm_gpu_pack_rows(&c->gr, c->q, g->n_row, g->sc.clip5 != 0, WS(c, s, SM_GPU_WS_ROWS, uint8_t));
	if (!c->refs)
		return c->ws.off[SM_GPU_WS_ROWS] + (size_t)c->gr.rows_total;
	memcpy(WS(c, s, SM_GPU_WS_GCONTIG, int32_t), c->gcontig, sizeof(int32_t) * (ng + 1));
	memcpy(WS(c, s, SM_GPU_WS_GTAB, int64_t), c->tab,
	       sizeof(int64_t) * (size_t)sm_gpu_ref_tab_len(ng, c->rl.nc));
	if (c->src)
		return c->ws.off[SM_GPU_WS_ROWS] + (size_t)c->gr.rows_total;
	{
		uint8_t *gseq = WS(c, s, SM_GPU_WS_GSEQ, uint8_t);
		const int64_t nc = c->rl.nc;

		memset(gseq, smk::CODE_PAD_PAIR, (size_t)c->rl.total + SM_GPU_REF_TAIL);
		for (int gi = 0; gi < ng; gi++) {
			const int k0 = c->gr.lq[gi * Q], k1 = sm_gpu_odd_lane(c->gr.lq, gi, Q);
			const int32_t c0 = c->gcontig[gi];
			uint8_t *dst = gseq + c->rl.gref[gi];

			if (c->refs[k1] == c->refs[k0]) {
				copy_lane(c->refs[k0], c->rl.lt + c0, 2, dst);
			} else {
				copy_lane(c->refs[k0], c->rl.lt + c0, 0, dst);
				copy_lane(c->refs[k1], c->rl.lt + 4 * nc + c0, 1, dst);
			}
		}
	}
	return c->ws.off[SM_GPU_WS_GSEQ] + (size_t)c->rl.total + SM_GPU_REF_TAIL;
}

/* Step 5: one copy up; the cell counters cleared; per-group references
 * whose bases lie in the resident reference gathered on the device. */
static int upload_call(const sm_gpu_dev_t *d, sm_gpu_slot_t *s, const sm_call_t *c, size_t bytes)
{
	if (SM_CUDA(cudaEventRecord(s->ev[0], s->stream)) ||
	    SM_CUDA(cudaMemcpyAsync(s->d_ws, s->h_ws, bytes, cudaMemcpyHostToDevice, s->stream)) ||
	    SM_CUDA(cudaMemsetAsync(DWS(c, s, SM_GPU_WS_CELLS, uint64_t), 0, 3 * sizeof(uint64_t),
				    s->stream)))
		return -1;
	if (c->refs && c->src) {
		const int ng = c->gr.ngroups;
		const int64_t nc = c->rl.nc, *t = DWS(c, s, SM_GPU_WS_GTAB, int64_t);
		uint8_t *gseq = DWS(c, s, SM_GPU_WS_GSEQ, uint8_t);

		if (SM_CUDA(sm_launch_gather(s->stream, ng, d->d_ref, t, t + ng, t + 2 * ng,
					     DWS(c, s, SM_GPU_WS_GCONTIG, int32_t), t + 2 * ng + 3 * nc,
					     nc, gseq)) ||
		    SM_CUDA(cudaMemsetAsync(gseq + c->rl.total, smk::CODE_PAD_PAIR, SM_GPU_REF_TAIL,
					    s->stream)))
			return -1;
	}
	return SM_CUDA(cudaEventRecord(s->ev[1], s->stream));
}

/* Step 6: the strip kernels and merges, class by class (ladder first),
 * launch by launch as sm_gpu_plan_launch cut them. */
static int launch_call(const sm_gpu_dev_t *d, sm_gpu_slot_t *s, const sm_call_t *c)
{
	const int ng = c->gr.ngroups, Q = c->gr.Q;
	smk::Params P = d->base;

	P.qry = DWS(c, s, SM_GPU_WS_ROWS, uint8_t);
	P.cells_w = DWS(c, s, SM_GPU_WS_CELLS, unsigned long long);
	P.range_out = DWS(c, s, SM_GPU_WS_RANGE, uint64_t);
	if (c->refs) {
		const int64_t nc = c->rl.nc, *t = DWS(c, s, SM_GPU_WS_GTAB, int64_t);

		P.ref = DWS(c, s, SM_GPU_WS_GSEQ, uint8_t);
		P.dev_start = t + 2 * ng;
		P.goff = t + 2 * ng + nc;
		P.goff1 = t + 2 * ng + 2 * nc;
	}
	for (int cls = 1; cls >= 0; cls--) {
		const sm_kclass_t *kc = c->kc[cls];
		const int nw = c->refs ? kc->warps_gref : kc->warps;
		int gs, g_end;

		class_range(c, cls, &gs, &g_end);
		while (gs < g_end) {
			sm_gpu_launch_t la;
			const int L = c->gr.glen[gs];

			sm_gpu_plan_launch(&c->lin, c->gr.glen, gs, g_end, class_cols(c, cls), nw, &la);
			P.qoff = DWS(c, s, SM_GPU_WS_QOFF, int64_t) + gs;
			P.glen = DWS(c, s, SM_GPU_WS_GLEN, int32_t) + gs;
			P.shift = DWS(c, s, SM_GPU_WS_SHIFT, int32_t) + (size_t)gs * Q;
			if (c->refs) {
				const int64_t *t = DWS(c, s, SM_GPU_WS_GTAB, int64_t);

				P.gref = t + gs;
				P.gdev_len = t + ng + gs;
				P.gcontig = DWS(c, s, SM_GPU_WS_GCONTIG, int32_t) + gs;
			}
			P.nranges = la.nranges;
			P.range_len = la.range_len;
			P.halo = (int)la.halo;
			(c->refs ? kc->launch_gref : kc->launch)(
				dim3((unsigned)((la.nranges + nw - 1) / nw), (unsigned)la.chunk),
				c->refs ? kc->smem_gref(L) : kc->smem(L), s->stream, P);
			if (SM_CUDA(cudaGetLastError()) ||
			    SM_CUDA(sm_launch_merge(s->stream, la.chunk * Q, P.range_out, la.nranges,
						    P.shift, DWS(c, s, SM_GPU_WS_RES, uint64_t) +
								 (size_t)gs * Q * SM_TOPK)))
				return -1;
			gs += la.chunk;
		}
	}
	return 0;
}

/* Step 7: the results and cell counters back in one copy; waits. */
static int download_call(const sm_gpu_t *g, sm_gpu_slot_t *s, const sm_call_t *c)
{
	const size_t from = c->ws.off[SM_GPU_WS_RES], to = c->ws.off[SM_GPU_WS_CELLS + 1];

	return SM_CUDA(cudaEventRecord(s->ev[2], s->stream)) ||
	       SM_CUDA(cudaMemcpyAsync(s->h_ws + from, s->d_ws + from, to - from,
				       cudaMemcpyDeviceToHost, s->stream)) ||
	       SM_CUDA(cudaEventRecord(s->ev[3], s->stream)) ||
	       SM_CUDA(sm_stream_wait(s->stream, g->tune.wait,
				      g->tune.poll_us ? g->tune.poll_us : SM_GPU_POLL_US_DEFAULT))
		       ? -1 : 0;
}

/* Step 8: each query's top list from its lane's keys (score << 32 |
 * ~column); the call's cells. */
static void unpack_call(sm_gpu_slot_t *s, const sm_call_t *c, sm_scan_t *out, sm_gpu_profile_t *pr)
{
	const uint64_t *res = WS(c, s, SM_GPU_WS_RES, uint64_t);
	const uint64_t *cells = WS(c, s, SM_GPU_WS_CELLS, uint64_t);

	for (int k = 0; k < c->gr.ngroups * c->gr.Q; k++) {
		sm_scan_t *o;

		if (c->gr.lq[k] < 0)
			continue;
		o = &out[c->gr.lq[k]];
		memset(o, 0, sizeof *o);
		for (int r = 0; r < SM_TOPK; r++) {
			const uint64_t key = res[(size_t)k * SM_TOPK + r];

			if (key == 0)
				break;
			o->top[o->n].score = (int32_t)(key >> 32);
			o->top[o->n].end = (int64_t)(0xffffffffu - (uint32_t)key);
			o->n++;
		}
	}
	for (int w = 0; w < 3; w++)
		pr->cells_w[w] = cells[w];
}

/* Records a scan call in the trace (io/trace.h): its host work, and
 * its copies and kernels on the device's clock (events against
 * ev_origin). */
static void trace_call(const sm_gpu_dev_t *d, sm_gpu_slot_t *s, double t_start, double t_prep,
		       double t_post)
{
	static const char *const what[3] = { "device: upload", "device: kernels",
					     "device: download" };
	float ms[SM_GPU_EVENTS];

	sm_trace_span("GPU scan: host prep", t_start, t_prep);
	sm_trace_span("GPU scan: on the device", t_prep, t_post);
	for (int k = 0; k < SM_GPU_EVENTS; k++)
		if (cudaEventElapsedTime(&ms[k], d->ev_origin, s->ev[k]) != cudaSuccess)
			return;
	for (int k = 0; k < 3; k++)
		sm_trace_span(what[k], d->t_origin + 1e-3 * ms[k], d->t_origin + 1e-3 * ms[k + 1]);
}

/* A call on engine d's slot s (owned by this call, g->lock not held); its
 * profile goes to *pr.  refs: NULL for the whole reference, else query
 * k's own reference. */
static int sm_gpu_scan_slot(const sm_gpu_t *g, const sm_gpu_dev_t *d, sm_gpu_slot_t *s, int n,
			    const sm_query_t *q, const sm_ref_t *const *refs,
			    const sm_ref_src_t *src, sm_scan_t *out, sm_gpu_profile_t *pr)
{
	const double t_start = sm_seconds();
	sm_call_t c;
	size_t up;
	double t_post;
	float ms[3];

	memset(&c, 0, sizeof c);
	c.q = q;
	c.refs = refs;
	c.src = src;
	c.n = n;
	if (check_queries(g, n, q) || plan_groups(g, s, &c) || plan_workspace(g, d, s, &c))
		return -1;
	pr->groups = c.gr.ngroups;
	pr->lane_pairs = c.gr.lane_pairs;
	pr->one_range = c.kc[0] == sm_kclass_one16() ? c.gr.ngroups - c.gr.nladder : 0;
	pr->contig_ranges = c.lin.n_tab;
	up = pack_call(g, s, &c);
	pr->host_prep_s = sm_seconds() - t_start;
	if (upload_call(d, s, &c, up) || launch_call(d, s, &c) || download_call(g, s, &c))
		return -1;
	for (int k = 0; k < 3; k++)
		if (SM_CUDA(cudaEventElapsedTime(&ms[k], s->ev[k], s->ev[k + 1])))
			return -1;
	pr->upload_s = 1e-3 * ms[0];
	pr->kernel_s = 1e-3 * ms[1];
	pr->download_s = 1e-3 * ms[2];
	t_post = sm_seconds();
	if (sm_trace_on)
		trace_call(d, s, t_start, t_start + pr->host_prep_s, t_post);
	unpack_call(s, &c, out, pr);
	pr->host_post_s = sm_seconds() - t_post;
	pr->total_s = sm_seconds() - t_start;
	if (sm_trace_on)
		sm_trace_span("GPU scan: results", t_post, t_start + pr->total_s);
	return 0;
}

/* ---- scheduling --------------------------------------------------------- */

/* Takes a free slot on the engine with the fewest calls in flight,
 * waiting while every engine's slots are busy.  *inject: this call is the
 * test hook's failure.  NULL when every engine has failed. */
static sm_gpu_slot_t *take_slot(sm_gpu_t *g, sm_gpu_dev_t **dp, int *inject)
{
	int in_flight[SM_GPU_MAX_ENGINES], failed[SM_GPU_MAX_ENGINES];
	uint64_t taken[SM_GPU_MAX_ENGINES];
	sm_gpu_slot_t *s = NULL;
	sm_gpu_dev_t *d;
	int e;

	pthread_mutex_lock(&g->lock);
	while (1) {
		for (int k = 0; k < g->n_dev; k++) {
			in_flight[k] = g->dev[k]->in_flight;
			taken[k] = g->dev[k]->calls_taken;
			failed[k] = g->dev[k]->failed;
		}
		e = sm_gpu_pick_engine(in_flight, taken, failed, g->n_dev);
		if (e < 0 || g->dev[e]->in_flight < g->dev[e]->n_slots)
			break;
		pthread_cond_wait(&g->slot_free, &g->lock);
	}
	if (e >= 0) {
		d = g->dev[e];
		for (int k = 0; k < d->n_slots && !s; k++)
			if (!d->slot[k].busy)
				s = &d->slot[k];
		s->busy = 1;
		d->in_flight++;
		d->calls_taken++;
		*inject = g->tune.fail_call > 0 && g->tune.fail_engine == e &&
			  d->calls_taken == (uint64_t)g->tune.fail_call;
		*dp = d;
	}
	pthread_mutex_unlock(&g->lock);
	return s;
}

static int sm_gpu_run(sm_gpu_t *g, int n, const sm_query_t *q, const sm_ref_t *const *refs,
		      const sm_ref_src_t *src, sm_scan_t *out)
{
	const double t0 = sm_seconds();
	sm_gpu_dev_t *d = NULL;
	sm_gpu_slot_t *s;
	sm_gpu_profile_t pr;
	int rc, inject = 0;
	double wait;

	if (n <= 0)
		return 0;
	memset(&pr, 0, sizeof pr);
	if (!(s = take_slot(g, &d, &inject))) {
		sm_log(SM_LOG_ERROR, "GPU engine: every GPU has failed");
		return -1;
	}
	wait = sm_seconds() - t0;
	if (sm_trace_on)
		sm_trace_span("GPU scan: wait for a slot", t0, t0 + wait);
	if (inject) {
		sm_log(SM_LOG_ERROR, "CUDA: failure injected by the test hook (--gpu-tune fail=%d:%d)",
		       g->tune.fail_engine, g->tune.fail_call);
		rc = -1;
	} else {
		rc = SM_CUDA(cudaSetDevice(d->device));
		if (rc == 0)
			rc = sm_gpu_scan_slot(g, d, s, n, q, refs, src, out, &pr);
	}
	if (rc)
		sm_log(SM_LOG_ERROR, "GPU %d (engine %d of %d) failed a call; it takes no more calls",
		       d->device, d->index + 1, g->n_dev);

	pthread_mutex_lock(&g->lock);
	if (rc == 0) {
		for (int w = 0; w < 3; w++) {
			g->cells_w[w] += pr.cells_w[w];
			g->cells += pr.cells_w[w];
		}
		g->prof = pr;
		g->calls++;
		g->wait_s += wait;
		g->call_s += pr.total_s;
		g->kernel_s += pr.kernel_s;
		d->calls++;
		d->kernel_s += pr.kernel_s;
	} else {
		d->failed = 1;
	}
	s->busy = 0;
	d->in_flight--;
	pthread_cond_broadcast(&g->slot_free);
	pthread_mutex_unlock(&g->lock);
	return rc;
}

int sm_gpu_scan(sm_gpu_t *g, int n, const sm_query_t *q, sm_scan_t *out)
{
	return sm_gpu_run(g, n, q, NULL, NULL, out);
}

int sm_gpu_scan_refs(sm_gpu_t *g, int n, const sm_query_t *q, const sm_ref_t *const *refs,
		     const sm_ref_src_t *src, sm_scan_t *out)
{
	return sm_gpu_run(g, n, q, refs, src, out);
}

/* ---- statistics and benchmark hooks -------------------------------------- */

void sm_gpu_stats(const sm_gpu_t *g, sm_engine_stats_t *st)
{
	pthread_mutex_lock((pthread_mutex_t *)&g->lock);
	st->cells += g->cells;
	for (int w = 0; w < 3; w++)
		st->cells_w[w] += g->cells_w[w];
	st->calls += g->calls;
	st->wait_s += g->wait_s;
	st->call_s += g->call_s;
	st->kernel_s += g->kernel_s;
	pthread_mutex_unlock((pthread_mutex_t *)&g->lock);
}

const char *sm_gpu_name(const sm_gpu_t *g) { return g->name; }

int sm_gpu_engines(const sm_gpu_t *g) { return g->n_dev; }

int sm_gpu_set_slots(sm_gpu_t *g, int n)
{
	if (n < 1 || n > SM_GPU_SLOTS_MAX) {
		sm_log(SM_LOG_ERROR, "GPU engine: %d calls in flight asked, 1..%d possible", n,
		       SM_GPU_SLOTS_MAX);
		return -1;
	}
	pthread_mutex_lock(&g->lock);
	for (int k = 0; k < g->n_dev; k++)
		g->dev[k]->n_slots = n;
	pthread_mutex_unlock(&g->lock);
	return 0;
}

int sm_gpu_set_cols(sm_gpu_t *g, int cols, int warps)
{
	const sm_kclass_t *kc = sm_kclass_plain16(cols, warps);

	if (!kc) {
		sm_log(SM_LOG_ERROR, "GPU engine: no 16-bit kernel with %d columns per lane and %d "
		       "warps a block", cols, warps);
		return -1;
	}
	for (int k = 0; k < g->n_dev; k++)
		if (SM_CUDA(cudaSetDevice(g->dev[k]->device)) ||
		    SM_CUDA(kc->set_smem(kc->smem(g->max_len))))
			return -1;
	g->plain16 = kc;
	return 0;
}

int sm_gpu_profile(const sm_gpu_t *g, sm_gpu_profile_t *p)
{
	pthread_mutex_lock((pthread_mutex_t *)&g->lock);
	*p = g->prof;
	pthread_mutex_unlock((pthread_mutex_t *)&g->lock);
	return 0;
}
