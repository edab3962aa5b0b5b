/* gpu_engine.cu — host side of the CUDA engine (gpu_engine.h).
 *
 * Device data.  The reference lives on the device for the engine's
 * lifetime as one byte per column (codes 0..4), every contig preceded by a
 * separator of `pad` columns coded CODE_PAD (scored as ambiguous, never
 * reported): pad >= n*match + 1 so no positive path crosses it (the
 * recurrence restarts at each contig), pad >= the halo so every window's
 * context exists, and pad is a multiple of the widest locus bin so that
 * device columns and global columns fall into the same bins.
 *
 * A scan call sorts its queries by length (longest first), packs them into
 * groups of Q = 32/B (one query per lane of a word), uploads all groups'
 * rows in one copy, launches one strip kernel per (kernel class, chunk of
 * groups) over ranges of the reference (one warp per range and group),
 * reduces each query's per-range top-K lists on the device and copies the
 * final lists back in one copy.  Kernels: sw_kernel.cuh; design and
 * measurements: docs/gpu.md. */
#include "gpu/gpu_engine.h"

#include <cuda_runtime.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpu/cuda_check.h"
#include "gpu/gpu_profile.h"
#include "gpu/sw_kernel.cuh"
#include "io/clock.h"
#include "io/log.h"
#include "io/trace.h"
#include "mapper/radix.h"

/* Device memory for the per-range lists of one launch (grown on demand up to
 * this; launches are chunked to fit). */
#define SM_GPU_RANGE_BUF_MAX ((size_t)256 << 20)
/* Separators are a multiple of this, so that a lane's (aligned) columns
 * stay in one 64-column block, hence in one locus bin. */
#define SM_GPU_PAD_ALIGN 64
/* Separator columns between the contigs of a per-group reference: one
 * 64-column block, which always holds a whole aligned lane of up to 32
 * columns, which the kernel makes a barrier (sw_kernel.cuh: Barriers), and
 * keeps device and global columns in the same locus bins.  None before the
 * first contig (a group's first range starts there, from zeros) or after
 * the last (the columns a strip computes past the group's end are never
 * reported): a tandem side of 449 columns is then one strip of 512, not
 * two. */
#define SM_GPU_GREF_SEP SM_GPU_PAD_ALIGN
/* Bytes of separator after the last contig: more than any strip (32 lanes
 * x at most 32 columns) runs past a range's end. */
#define SM_GPU_REF_TAIL 4096
/* Warps per multiprocessor the range split aims for: several waves of the
 * ~8-12 resident warps, so that the last wave leaves little idle. */
#define SM_GPU_WARPS_PER_SM 96
/* A range is at least this many halos long (context <= 1/this). */
#define SM_GPU_MIN_RANGE_HALOS 8
/* Per-group references (seeded windows) are split into ranges too, so that
 * a group with long windows does not hold up its launch: ranges of about
 * the launch's columns over the warps the device holds at once
 * (SM_GPU_GREF_WARPS_PER_SM per multiprocessor), and at least this many
 * halos long (SCANMAP_GPU_GREF_HALOS, for benchmarks; 0: one range per
 * group, as before). */
#define SM_GPU_GREF_MIN_RANGE_HALOS 8
#define SM_GPU_GREF_WARPS_PER_SM 32
/* Oldest architecture CUDA 13 builds for (sm_75). */
#define SM_GPU_MIN_ARCH 75
#define SM_GPU_HALO_ALIGN 64
#define SM_GPU_MAX_GRID_Y 65535
/* Calls in flight at once, each on its own stream with its own buffers:
 * one call's packing and copies overlap another's kernels.  The
 * environment variable SCANMAP_GPU_SLOTS (1..SM_GPU_SLOTS) sets how many
 * are used, for benchmarks; the default is SM_GPU_SLOTS_DEFAULT (seeded
 * chr20 pairs, 16 threads, H100: 2 slots 107k pairs/s with threads
 * waiting for a slot most of the time, 4 122k, 8 127k). */
#define SM_GPU_SLOTS 16
#define SM_GPU_SLOTS_DEFAULT 8


/* ---- kernel classes ----------------------------------------------------- */

typedef void (*sm_launch_fn)(dim3 grid, size_t smem, cudaStream_t s, const smk::Params &p);
typedef cudaError_t (*sm_attr_fn)(size_t smem);
typedef size_t (*sm_smem_fn)(int rows);

typedef struct {
	int bits;       /* narrow lane width */
	int ladder;     /* has the 32-bit wide path */
	int cols;       /* columns per lane (C) */
	int cols_gref;  /* the same for per-group references */
	int warps;      /* per block, each on its own range */
	int warps_gref; /* the same for per-group references */
	sm_launch_fn launch, launch_gref;  /* whole reference; per-group ones (or NULL) */
	sm_attr_fn set_smem, set_smem_gref;
	sm_smem_fn smem, smem_gref;
} sm_kclass_t;

template <int B, bool LAD, int C, int NW, bool GREF>
static void sm_launch_strip(dim3 grid, size_t smem, cudaStream_t s, const smk::Params &p)
{
	/* A per-group separator always holds a whole aligned lane: a barrier. */
	static_assert(!GREF || 2 * C - 1 <= SM_GPU_GREF_SEP, "lanes too wide for the separators");
	smk::strip_kernel<B, LAD, C, NW, GREF><<<grid, NW * smk::WARP, smem, s>>>(p);
}

template <int B, bool LAD, int C, int NW, bool GREF>
static cudaError_t sm_attr_strip(size_t smem)
{
	return cudaFuncSetAttribute(smk::strip_kernel<B, LAD, C, NW, GREF>,
				    cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
}

template <int B, bool LAD, int C, int NW>
static size_t sm_smem_strip(int rows)
{
	return smk::strip_smem<B, LAD, C, NW>(rows);
}

/* Warps per block: independent ranges that share the group's rows. */
#define SM_GPU_WARPS 4
/* A per-group reference (a read's windows, a few thousand columns) is one
 * range: one warp per block, or the block's other warps would sit idle
 * holding their registers (a quarter of the warps did work at 4). */
#define SM_GPU_WARPS_GREF 1

/* C columns per lane on the whole reference, CG on per-group ones. */
#define SM_KCLASS(B, LAD, C, CG, NW) \
	{ B, LAD, C, CG, NW, SM_GPU_WARPS_GREF, sm_launch_strip<B, LAD, C, NW, false>, \
	  sm_launch_strip<B, LAD, CG, SM_GPU_WARPS_GREF, true>, \
	  sm_attr_strip<B, LAD, C, NW, false>, sm_attr_strip<B, LAD, CG, SM_GPU_WARPS_GREF, true>, \
	  sm_smem_strip<B, LAD, C, NW>, sm_smem_strip<B, LAD, CG, SM_GPU_WARPS_GREF> }
/* Benchmark variants: whole reference only. */
#define SM_KCLASS_WHOLE(B, LAD, C, NW) \
	{ B, LAD, C, 0, NW, 0, sm_launch_strip<B, LAD, C, NW, false>, NULL, \
	  sm_attr_strip<B, LAD, C, NW, false>, NULL, sm_smem_strip<B, LAD, C, NW>, NULL }
/* Columns per lane of the 16-bit plain kernel (8, 16 or 32): 16 runs as
 * fast as 32 with bwa scoring and ~19% faster where rows need the E scan
 * more often (paper scoring), with 163 registers instead of 255. */
#ifndef SM_GPU_COLS16
#define SM_GPU_COLS16 16
#endif
/* The same on per-group references (the seeded mapper's windows): 8.
 * Strips of 256 columns waste less past a group's end, and 95 registers
 * let 21 single-warp blocks share a multiprocessor: the scan kernels of
 * 1M chr20 pairs took 3.0 s against 3.8 with 16 columns held at 128
 * registers (H200, results/gpu-seeded-2026-11-21-s9.md). */
#ifndef SM_GPU_COLS16_GREF
#define SM_GPU_COLS16_GREF 8
#endif

/* Plain classes run groups whose scores cannot overflow their lanes;
 * ladder classes the others (their wide rows hold Q words per column, so
 * they keep fewer columns per lane).  Indexed [bits class][ladder]. */
static const sm_kclass_t sm_kclasses[3][2] = {
	{ SM_KCLASS(8, false, 16, 16, SM_GPU_WARPS), SM_KCLASS(8, true, 8, 8, SM_GPU_WARPS) },
	{ SM_KCLASS(16, false, SM_GPU_COLS16, SM_GPU_COLS16_GREF, SM_GPU_WARPS),
	  SM_KCLASS(16, true, 16, 16, SM_GPU_WARPS) },
	{ SM_KCLASS(32, false, 16, 16, SM_GPU_WARPS), SM_KCLASS(32, false, 16, 16, SM_GPU_WARPS) },
};

/* Lane widths (columns per lane) of the 16-bit plain class that the
 * benchmark compares (sm_gpu_set_cols); index 0 is unused. */
static const sm_kclass_t sm_kvariants16[] = {
	SM_KCLASS_WHOLE(16, false, 8, SM_GPU_WARPS),
	SM_KCLASS_WHOLE(16, false, 16, SM_GPU_WARPS),
	SM_KCLASS_WHOLE(16, false, 32, SM_GPU_WARPS),
};

static int sm_bits_class(int bits) { return bits == 8 ? 0 : bits == 16 ? 1 : 2; }
static int sm_lane_limit(int bits) { return bits == 8 ? 255 : bits == 16 ? 32767 : 0x3fffffff; }

/* ---- the engine --------------------------------------------------------- */

/* What one call in flight owns: a stream, its events and grow-only
 * buffers (device, and pinned host memory for the two large copies). */
typedef struct {
	int busy;
	cudaStream_t stream;
	cudaEvent_t ev[4];         /* upload start, kernels start, download start, end */
	uint8_t *d_rows, *h_rows;
	size_t rows_cap, h_rows_cap;
	int64_t *d_qoff;
	int32_t *d_glen, *d_shift;
	size_t group_cap;          /* groups the three arrays above can hold */
	uint64_t *d_range;
	size_t range_cap;
	uint64_t *d_res, *h_res;
	size_t res_cap, h_res_cap;
	unsigned long long *d_cells, *h_cells;
	/* per-group references (sm_gpu_scan_refs) */
	uint8_t *d_gseq, *h_gseq;
	size_t gseq_cap, h_gseq_cap;
	int64_t *h_gtab;           /* the tables sm_upload_refs copies up (pinned) */
	int32_t *h_gcontig;
	size_t h_gtab_cap, h_gcontig_cap;
	int64_t *d_gtab;           /* gref, gdev_len, dev_start, goff */
	size_t gtab_cap;
	int32_t *d_gcontig;
	size_t gcontig_cap;
} sm_gpu_slot_t;

struct sm_gpu_s {
	int device;
	char name[sizeof(((cudaDeviceProp *)0)->name) + 32];
	int bits;                  /* narrow width of the ladder in use */
	sm_score_t sc;
	int max_len;
	uint8_t *n_row;            /* max_len N codes: an empty lane's rows */
	int64_t pad;               /* separator columns before each contig */
	int32_t n_contig;
	int64_t *dev_start;        /* host: device column of each contig's first base */
	int64_t *offset;           /* host: global coordinate of each contig */
	int64_t dev_len;
	uint8_t *d_ref;
	int64_t *d_dev_start, *d_goff;
	int sms;                   /* multiprocessors */
	const sm_kclass_t *plain16; /* 16-bit plain class override (benchmarks) */

	/* lock guards the slots' busy flags, the counters and prof */
	pthread_mutex_t lock;
	pthread_cond_t slot_free;
	sm_gpu_slot_t slot[SM_GPU_SLOTS];
	int n_slots;               /* slots in use (benchmarks may lower it) */
	int gref_halos;            /* per-group references: shortest range, in halos (0: no split) */
	int lane_pairs;            /* 16-bit lanes: pair queries with their own references */
	uint64_t cells, cells_w[3];
	uint64_t calls;
	double wait_s, call_s, kernel_s;   /* summed over calls */
	sm_gpu_profile_t prof;     /* of the last scan */
	cudaEvent_t ev_origin;     /* the device's clock at host time t_origin (traces) */
	double t_origin;
};

/* Makes `device` the thread's and creates its context, once per process
 * and device (the first CUDA call's cost, a few tenths of a second):
 * sm_gpu_warm_up() in a thread of its own while the reference loads, else
 * sm_gpu_create().  Benchmarks choose how a thread waits for its call
 * (SCANMAP_GPU_SYNC=spin, yield or block; CUDA's default spins when there
 * are fewer contexts than cores, i.e. here), a flag that must precede the
 * context. */
static cudaError_t gpu_context(int device)
{
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	static int ready = -1;   /* the device whose context exists */
	cudaError_t e = cudaSetDevice(device);

	pthread_mutex_lock(&lock);
	if (e == cudaSuccess && ready != device) {
		const char *v = getenv("SCANMAP_GPU_SYNC");

		if (v)
			e = cudaSetDeviceFlags(!strcmp(v, "spin") ? cudaDeviceScheduleSpin :
					       !strcmp(v, "yield") ? cudaDeviceScheduleYield :
					       cudaDeviceScheduleBlockingSync);
		if (e == cudaSuccess)
			e = cudaFree(0);
		if (e == cudaSuccess)
			ready = device;
	}
	pthread_mutex_unlock(&lock);
	return e;
}

void sm_gpu_warm_up(int device)
{
	(void)gpu_context(device);   /* errors: sm_gpu_create() meets and logs them */
}

int sm_gpu_available(int device, char *msg, int msg_len)
{
	int n = 0;
	cudaDeviceProp prop;
	cudaError_t e = cudaGetDeviceCount(&n);

	if (e == cudaErrorInsufficientDriver || e == cudaErrorNoDevice) {
		/* The usual case on a machine without a GPU: say it plainly. */
		snprintf(msg, (size_t)msg_len, "%s", e == cudaErrorNoDevice ? "no CUDA device found" :
			 "no NVIDIA driver (or one older than this build's CUDA runtime)");
		return 0;
	}
	if (e != cudaSuccess) {
		snprintf(msg, (size_t)msg_len, "no CUDA device (%s)", cudaGetErrorString(e));
		return 0;
	}
	if (device < 0 || device >= n) {
		snprintf(msg, (size_t)msg_len, "CUDA device %d not present (%d found)", device, n);
		return 0;
	}
	e = cudaGetDeviceProperties(&prop, device);
	if (e != cudaSuccess) {
		snprintf(msg, (size_t)msg_len, "CUDA device %d: %s", device, cudaGetErrorString(e));
		return 0;
	}
	if (prop.major * 10 + prop.minor < SM_GPU_MIN_ARCH) {
		snprintf(msg, (size_t)msg_len, "%s is sm_%d%d; sm_%d or newer needed", prop.name,
			 prop.major, prop.minor, SM_GPU_MIN_ARCH);
		return 0;
	}
	snprintf(msg, (size_t)msg_len, "%s", prop.name);
	return 1;
}

static int64_t sm_round_up(int64_t x, int64_t a) { return (x + a - 1) / a * a; }

/* Context columns a window needs before its reported columns. */
static int64_t sm_halo(const sm_score_t *sc, int n)
{
	return sm_round_up(sm_max_span(sc, n), SM_GPU_HALO_ALIGN);
}

/* Separator columns before each contig of the whole reference, for reads
 * of up to len bases: longer than any positive path can cross (each column
 * costs >= 1), a multiple of 64 so that a lane's (aligned) columns fall in
 * one global locus bin.  Per-group references need only SM_GPU_GREF_SEP:
 * their kernels treat a lane of separator columns as a barrier. */
static int64_t sm_sep_len(const sm_score_t *sc, int len)
{
	return sm_round_up(sm_best_possible(sc, len) + 1, SM_GPU_PAD_ALIGN);
}

/* Device layout of the whole reference r with separators of pad columns
 * before, between and after its contigs (per-group references:
 * sm_place_lanes): contig c starts at column dstart[c].  Returns the
 * columns the layout spans. */
static int64_t sm_place_contigs(const sm_ref_t *r, int64_t pad, int64_t *dstart)
{
	for (int32_t c = 0; c < r->n_contig; c++)
		dstart[c] = r->offset[c] + (int64_t)(c + 1) * pad;
	return r->total + (int64_t)(r->n_contig + 1) * pad;
}

/* Copies r's contigs to their places in dst (already all separators). */
static void sm_copy_contigs(const sm_ref_t *r, const int64_t *dstart, uint8_t *dst)
{
	for (int32_t c = 0; c < r->n_contig; c++)
		memcpy(dst + dstart[c], r->seq + r->offset[c], (size_t)r->len[c]);
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

static void sm_slot_free(sm_gpu_slot_t *s)
{
	cudaFree(s->d_rows);
	cudaFree(s->d_qoff);
	cudaFree(s->d_glen);
	cudaFree(s->d_shift);
	cudaFree(s->d_range);
	cudaFree(s->d_res);
	cudaFree(s->d_cells);
	cudaFreeHost(s->h_rows);
	cudaFreeHost(s->h_res);
	cudaFreeHost(s->h_cells);
	cudaFree(s->d_gseq);
	cudaFreeHost(s->h_gseq);
	cudaFreeHost(s->h_gtab);
	cudaFreeHost(s->h_gcontig);
	cudaFree(s->d_gtab);
	cudaFree(s->d_gcontig);
	for (int k = 0; k < 4; k++)
		if (s->ev[k])
			cudaEventDestroy(s->ev[k]);
	if (s->stream)
		cudaStreamDestroy(s->stream);
}

static int sm_slot_init(sm_gpu_slot_t *s)
{
	if (SM_CUDA(cudaStreamCreateWithFlags(&s->stream, cudaStreamNonBlocking)) ||
	    SM_CUDA(cudaMalloc((void **)&s->d_cells, 3 * sizeof(unsigned long long))) ||
	    SM_CUDA(cudaMallocHost((void **)&s->h_cells, 3 * sizeof(unsigned long long))))
		return -1;
	for (int k = 0; k < 4; k++)
		if (SM_CUDA(cudaEventCreate(&s->ev[k])))
			return -1;
	return 0;
}

void sm_gpu_destroy(sm_gpu_t *g)
{
	if (!g)
		return;
	cudaFree(g->d_ref);
	cudaFree(g->d_dev_start);
	cudaFree(g->d_goff);
	for (int k = 0; k < SM_GPU_SLOTS; k++)
		sm_slot_free(&g->slot[k]);
	if (g->ev_origin)
		cudaEventDestroy(g->ev_origin);
	pthread_cond_destroy(&g->slot_free);
	pthread_mutex_destroy(&g->lock);
	free(g->dev_start);
	free(g->offset);
	free(g->n_row);
	free(g);
}

sm_gpu_t *sm_gpu_create(const sm_ref_t *ref, const sm_score_t *sc, int device,
			sm_cells_t cells, int max_query_len)
{
	sm_gpu_t *g;
	cudaDeviceProp prop;
	uint8_t *h_ref = NULL;
	size_t alloc;

	if (max_query_len < 1) {
		sm_log(SM_LOG_ERROR, "GPU engine: max query length %d must be >= 1", max_query_len);
		return NULL;
	}
	g = (sm_gpu_t *)calloc(1, sizeof *g);
	if (!g) {
		sm_log(SM_LOG_ERROR, "GPU engine: out of memory");
		return NULL;
	}
	pthread_mutex_init(&g->lock, NULL);
	pthread_cond_init(&g->slot_free, NULL);
	g->n_slots = SM_GPU_SLOTS_DEFAULT;
	if (getenv("SCANMAP_GPU_SLOTS")) {
		int n = atoi(getenv("SCANMAP_GPU_SLOTS"));

		g->n_slots = n < 1 ? 1 : n > SM_GPU_SLOTS ? SM_GPU_SLOTS : n;
	}
	g->gref_halos = getenv("SCANMAP_GPU_GREF_HALOS") ? atoi(getenv("SCANMAP_GPU_GREF_HALOS"))
						       : SM_GPU_GREF_MIN_RANGE_HALOS;
	if (g->gref_halos < 0)
		g->gref_halos = 0;
	g->lane_pairs = !getenv("SCANMAP_GPU_LANE_PAIRS") || atoi(getenv("SCANMAP_GPU_LANE_PAIRS")) != 0;
	g->device = device;
	g->sc = *sc;
	g->max_len = max_query_len;
	g->bits = sm_cells_bits(cells);
	if (!(g->n_row = (uint8_t *)malloc((size_t)max_query_len))) {
		sm_log(SM_LOG_ERROR, "GPU engine: out of memory");
		goto fail;
	}
	memset(g->n_row, SM_BASE_N, (size_t)max_query_len);
	if (SM_CUDA(gpu_context(device)) || SM_CUDA(cudaGetDeviceProperties(&prop, device)))
		goto fail;
	snprintf(g->name, sizeof g->name, "%s (cells %d)", prop.name, g->bits);

	/* Each warp keeps two edge words per row (and a group's rows) in
	 * shared memory: allow what the longest read needs. */
	for (int b = 0; b < 3; b++)
		for (int l = 0; l < 2; l++) {
			const size_t need = sm_kclasses[b][l].smem(max_query_len);
			if (need > prop.sharedMemPerBlockOptin) {
				sm_log(SM_LOG_ERROR,
				       "GPU engine: reads of %d bases need %zu bytes of shared memory per block, more than the %zu of %s",
				       max_query_len, need, (size_t)prop.sharedMemPerBlockOptin, prop.name);
				goto fail;
			}
			if (SM_CUDA(sm_kclasses[b][l].set_smem(need)) ||
			    SM_CUDA(sm_kclasses[b][l].set_smem_gref(
				    sm_kclasses[b][l].smem_gref(max_query_len))))
				goto fail;
		}
	g->sms = prop.multiProcessorCount;
	g->pad = sm_sep_len(sc, max_query_len);

	g->n_contig = ref->n_contig;
	g->dev_start = (int64_t *)malloc(sizeof(int64_t) * (size_t)(ref->n_contig + 1));
	g->offset = (int64_t *)malloc(sizeof(int64_t) * (size_t)(ref->n_contig + 1));
	if (!g->dev_start || !g->offset) {
		sm_log(SM_LOG_ERROR, "GPU engine: out of memory");
		goto fail;
	}
	for (int32_t c = 0; c < ref->n_contig; c++)
		g->offset[c] = ref->offset[c];
	g->dev_len = sm_place_contigs(ref, g->pad, g->dev_start);
	if (ref->total >= (int64_t)UINT32_MAX || g->dev_len >= ((int64_t)1 << 40)) {
		sm_log(SM_LOG_ERROR, "GPU engine: reference of %lld bases too long (32-bit columns)",
		       (long long)ref->total);
		goto fail;
	}
	/* Room past the end for the last strip of the last range. */
	alloc = (size_t)g->dev_len + SM_GPU_REF_TAIL;
	h_ref = (uint8_t *)malloc(alloc);
	if (!h_ref) {
		sm_log(SM_LOG_ERROR, "GPU engine: out of memory for the reference (%zu bytes)", alloc);
		goto fail;
	}
	memset(h_ref, smk::CODE_PAD, alloc);
	sm_copy_contigs(ref, g->dev_start, h_ref);
	if (SM_CUDA(cudaMalloc((void **)&g->d_ref, alloc)) ||
	    SM_CUDA(cudaMemcpy(g->d_ref, h_ref, alloc, cudaMemcpyHostToDevice)) ||
	    SM_CUDA(cudaMalloc((void **)&g->d_dev_start, sizeof(int64_t) * (size_t)ref->n_contig)) ||
	    SM_CUDA(cudaMalloc((void **)&g->d_goff, sizeof(int64_t) * (size_t)ref->n_contig)) ||
	    SM_CUDA(cudaMemcpy(g->d_dev_start, g->dev_start, sizeof(int64_t) * (size_t)ref->n_contig,
			       cudaMemcpyHostToDevice)) ||
	    SM_CUDA(cudaMemcpy(g->d_goff, g->offset, sizeof(int64_t) * (size_t)ref->n_contig,
			       cudaMemcpyHostToDevice)))
		goto fail;
	for (int k = 0; k < SM_GPU_SLOTS; k++)
		if (sm_slot_init(&g->slot[k]))
			goto fail;
	if (SM_CUDA(cudaEventCreate(&g->ev_origin)) || SM_CUDA(cudaEventRecord(g->ev_origin, 0)) ||
	    SM_CUDA(cudaEventSynchronize(g->ev_origin)))
		goto fail;
	g->t_origin = sm_seconds();
	free(h_ref);
	return g;
fail:
	free(h_ref);
	sm_gpu_destroy(g);
	return NULL;
}

/* Grows a buffer to at least `need` bytes (contents not kept): device
 * memory, or pinned host memory (asynchronous copies need it). */
static int sm_grow_mem(void **p, size_t *cap, size_t need, int pinned)
{
	if (need <= *cap)
		return 0;
	if (pinned)
		cudaFreeHost(*p);
	else
		cudaFree(*p);
	*p = NULL;
	*cap = 0;
	if (SM_CUDA(pinned ? cudaMallocHost(p, need) : cudaMalloc(p, need)))
		return -1;
	*cap = need;
	return 0;
}

static int sm_grow(void **p, size_t *cap, size_t need) { return sm_grow_mem(p, cap, need, 0); }
static int sm_grow_host(void **p, size_t *cap, size_t need) { return sm_grow_mem(p, cap, need, 1); }

/* A group of queries in the making: `n` consecutive queries from `first`
 * (one per unit when they share the whole reference), or, with Lane
 * references, `first` and `second`, each with its own reference (else
 * second is -1); `len` the longest; `cols` the bases of its own reference
 * (0 for the whole reference; the longer one's for a lane pair). */
typedef struct {
	int len, first, n, second;
	int64_t cols;
} sm_group_t;

/* Longest query first (the ladder groups lead); then, among per-group
 * references, the longest reference first: blocks start in launch order,
 * so the longest work starts first and the short groups fill in behind it
 * (in input order a long group could start last and run alone: the
 * window launches averaged 6 of the 12 warps their registers allowed per
 * multiprocessor); equal ones keep input order. */
static int sm_by_len_desc(const void *a, const void *b)
{
	const sm_group_t *x = (const sm_group_t *)a, *y = (const sm_group_t *)b;

	if (x->len != y->len)
		return x->len > y->len ? -1 : 1;
	if (x->cols != y->cols)
		return x->cols > y->cols ? -1 : 1;
	return x->first < y->first ? -1 : x->first > y->first;
}

/* Lane references (sw_kernel.cuh): with 16-bit lanes, two queries whose
 * references differ (tandem sides, or a read's strands, each with its own
 * windows) share a group, each lane scoring against its own reference.
 * Queries alone in their group are paired, neighbours in the order of
 * sm_shape_key (query length, then contigs, then bases), so that the
 * paired references' contigs are alike and little of the longer one is
 * scanned beside separators.  SCANMAP_GPU_LANE_PAIRS=0 turns it off
 * (benchmarks). */
#define SM_SHAPE_GROUP_BITS 20

/* A group's place in sm_pair_lanes's order as one key: longer query,
 * fewer contigs, more bases first (each clamped to its field: the order is
 * a heuristic), its index in the low SM_SHAPE_GROUP_BITS. */
static uint64_t sm_shape_key(const sm_group_t *g, int32_t n_contig, int gi)
{
	const uint64_t len = g->len < 0xffff ? (uint64_t)g->len : 0xffff;
	const uint64_t nc = n_contig < 0xff ? (uint64_t)n_contig : 0xff;
	const uint64_t cols = g->cols < 0xfffff ? (uint64_t)g->cols : 0xfffff;

	return (0xffff - len) << 48 | nc << 40 | (0xfffff - cols) << SM_SHAPE_GROUP_BITS | (uint64_t)gi;
}

/* Pairs the groups of rg[0..ngroups) that hold one query each (refs:
 * each query's reference); returns the groups left, or -1 when out of
 * memory (logged). */
static int sm_pair_lanes(sm_group_t *rg, int ngroups, const sm_ref_t *const *refs)
{
	uint64_t *one = (uint64_t *)malloc(sizeof *one * 2 * (size_t)(ngroups + 1));
	int n_one = 0, m = 0;

	if (!one) {
		sm_log(SM_LOG_ERROR, "GPU engine: out of memory for %d groups", ngroups);
		return -1;
	}
	if (ngroups >= 1 << SM_SHAPE_GROUP_BITS) {   /* more than a call makes */
		free(one);
		return ngroups;
	}
	for (int gi = 0; gi < ngroups; gi++)
		if (rg[gi].n == 1)
			one[n_one++] = sm_shape_key(&rg[gi], refs[rg[gi].first]->n_contig, gi);
	/* Keys end in their group's index, so equal shapes keep input order. */
	sm_radix_sort_u64(one, one + n_one, n_one);
	for (int t = 0; t + 1 < n_one; t += 2) {
		const uint64_t mask = (1u << SM_SHAPE_GROUP_BITS) - 1;
		sm_group_t *a = &rg[one[t] & mask], *b = &rg[one[t + 1] & mask];

		a->second = b->first;
		a->n = 2;
		a->len = a->len > b->len ? a->len : b->len;
		a->cols = a->cols > b->cols ? a->cols : b->cols;
		b->n = 0;
	}
	free(one);
	for (int gi = 0; gi < ngroups; gi++)
		if (rg[gi].n > 0)
			rg[m++] = rg[gi];
	return m;
}

/* The query in odd lanes of group gi (lq: the groups' lanes), whose
 * reference may differ from that of lane 0 (Lane references); lane 0's
 * query when the group has a single reference. */
static int sm_odd_lane(const int *lq, int gi, int Q)
{
	return Q == 2 && lq[gi * Q + 1] >= 0 ? lq[gi * Q + 1] : lq[gi * Q];
}

/* Device layout of a group's references a (even lanes) and b (odd lanes;
 * b == a when they share it): their contigs j side by side from column
 * dstart[j], lane l's at ld[l][j], congruent to its own coordinate
 * modulo SM_GPU_PAD_ALIGN, so that a lane's aligned columns fall in one
 * locus bin of its reference, and SM_GPU_GREF_SEP separator columns after
 * the longer one.  A lane without a contig j gets an empty one at
 * dstart[j].  Returns the columns the layout spans. */
static int64_t sm_place_lanes(const sm_ref_t *a, const sm_ref_t *b, int64_t *dstart, int64_t *ld0,
			      int64_t *ld1)
{
	const sm_ref_t *lane[2] = { a, b };
	int64_t *ld[2] = { ld0, ld1 };
	const int32_t ns = a->n_contig > b->n_contig ? a->n_contig : b->n_contig;
	int64_t pos = 0, end = 0;

	for (int32_t j = 0; j < ns; j++) {
		int64_t first = -1;

		for (int l = 0; l < 2; l++) {
			ld[l][j] = -1;
			if (j < lane[l]->n_contig) {
				const int64_t off = lane[l]->offset[j];

				ld[l][j] = pos + ((off - pos) % SM_GPU_PAD_ALIGN + SM_GPU_PAD_ALIGN) %
						 SM_GPU_PAD_ALIGN;
				if (first < 0 || ld[l][j] < first)
					first = ld[l][j];
			}
		}
		dstart[j] = first;
		for (int l = 0; l < 2; l++) {
			const int64_t e = ld[l][j] < 0 ? first : ld[l][j] + lane[l]->len[j];

			if (ld[l][j] < 0)
				ld[l][j] = first;
			if (e > end)
				end = e;
		}
		pos = end + SM_GPU_GREF_SEP;
	}
	return end;
}

/* Per-group references whose bases lie in the whole reference
 * (sm_ref_src_t): block g writes group g's region of the layout that
 * sm_upload_refs makes, [gref[g], gref[g] + its length rounded up to 64).
 * Contig slot c starts at its group-relative dstart[c]; lane l's tables
 * are lt[(4l + 0..3) * nc]: its contig's start, length, source column in
 * the device reference and direction (read backwards when set).  A column
 * holds each lane's code (sw_kernel.cuh's code_pair): the base, or a
 * separator (CODE_PAD) outside the lane's contig. */
__global__ static void sm_gather_refs(const uint8_t *__restrict__ ref, const int64_t *gref,
				      const int64_t *gdev_len, const int64_t *dstart,
				      const int32_t *gcontig, const int64_t *lt, int64_t nc,
				      uint8_t *out)
{
	const int gi = blockIdx.x;
	const int64_t region = (gdev_len[gi] + SM_GPU_PAD_ALIGN - 1) / SM_GPU_PAD_ALIGN * SM_GPU_PAD_ALIGN;
	const int32_t c0 = gcontig[gi], c1 = gcontig[gi + 1];
	uint8_t *o = out + gref[gi];

	for (int64_t x = threadIdx.x; x < region; x += blockDim.x) {
		int32_t lo = c0, hi = c1 - 1;
		uint8_t v[2] = { smk::CODE_PAD, smk::CODE_PAD };

		while (lo < hi) {   /* the last slot starting at or before x */
			const int32_t mid = lo + (hi - lo + 1) / 2;

			if (dstart[mid] <= x)
				lo = mid;
			else
				hi = mid - 1;
		}
		for (int l = 0; lo < c1 && l < 2; l++) {
			const int64_t *t = lt + (int64_t)4 * l * nc + lo;
			const int64_t start = t[0], len = t[nc], src = t[2 * nc], rev = t[3 * nc];

			if (x >= start && x < start + len)
				v[l] = ref[src + (rev ? len - 1 - (x - start) : x - start)];
		}
		o[x] = smk::code_pair(v[0], v[1]);
	}
}

/* Writes reference r's bases (codes above N as N) into lane l (0, 1; 2:
 * both) of a per-group layout dst, contig c at ld[c]. */
static void sm_copy_lane(const sm_ref_t *r, const int64_t *ld, int l, uint8_t *dst)
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

/* Per-group references: lays out each group's reference(s) on the device
 * (sm_place_lanes; region rounded up to 64 columns), with bases copied
 * from the host (src NULL) or, on the device, from the whole reference
 * (src[k]: sm_ref_src_t of query k), uploads the tables, and points P at
 * them.  Group g's even lanes scan refs[lq[g*Q]], its odd lanes
 * refs[sm_odd_lane(lq, g, Q)]. */
static int sm_upload_refs(sm_gpu_t *g, sm_gpu_slot_t *s, int ngroups, int Q, const int *lq,
			  const sm_ref_t *const *refs, const sm_ref_src_t *src,
			  smk::Params *P, int64_t *max_dev_len, int64_t *total_len)
{
	int64_t total = 0, nc = 0, *tab, *gref, *gdev_len, *dstart, *goff, *goff1, *lt;
	int32_t *gcontig;
	size_t n_tab;

	for (int gi = 0; gi < ngroups; gi++) {
		const int32_t na = refs[lq[gi * Q]]->n_contig, nb = refs[sm_odd_lane(lq, gi, Q)]->n_contig;

		nc += na > nb ? na : nb;
	}
	/* gref, gdev_len per group; per contig slot dstart, goff, goff1 and
	 * the lanes' tables (sm_gather_refs) */
	n_tab = (size_t)(2 * ngroups + 11 * nc);
	/* Pinned and the slot's own, so that the copies stay asynchronous:
	 * the call goes on to its kernels without waiting for them. */
	if (sm_grow_host((void **)&s->h_gtab, &s->h_gtab_cap, sizeof(int64_t) * n_tab) ||
	    sm_grow_host((void **)&s->h_gcontig, &s->h_gcontig_cap,
			 sizeof(int32_t) * (size_t)(ngroups + 1)))
		return -1;
	tab = s->h_gtab;
	gcontig = s->h_gcontig;
	gref = tab;
	gdev_len = tab + ngroups;
	dstart = tab + 2 * ngroups;
	goff = dstart + nc;
	goff1 = goff + nc;
	lt = goff1 + nc;
	*max_dev_len = 0;
	gcontig[0] = 0;
	for (int gi = 0; gi < ngroups; gi++) {
		const int k[2] = { lq[gi * Q], sm_odd_lane(lq, gi, Q) };
		const sm_ref_t *r[2] = { refs[k[0]], refs[k[1]] };
		const int32_t c0 = gcontig[gi];
		const int32_t ns = r[0]->n_contig > r[1]->n_contig ? r[0]->n_contig : r[1]->n_contig;

		gref[gi] = total;
		gdev_len[gi] = sm_place_lanes(r[0], r[1], dstart + c0, lt + c0, lt + 4 * nc + c0);
		for (int l = 0; l < 2; l++) {
			int64_t *ld = lt + 4 * l * nc + c0, *go = l ? goff1 + c0 : goff + c0;

			for (int32_t c = 0; c < ns; c++) {
				const int has = c < r[l]->n_contig;

				go[c] = has ? r[l]->offset[c] - ld[c] + dstart[c0 + c] : 0;
				ld[nc + c] = has ? r[l]->len[c] : 0;   /* length */
				ld[2 * nc + c] = 0;                     /* source */
				ld[3 * nc + c] = 0;                     /* backwards */
				if (has && src) {
					const sm_ref_src_t *rs = &src[k[l]];
					const int64_t x = rs->start[c];
					const int32_t kc = sm_offset_find(g->offset, g->n_contig, x);

					ld[2 * nc + c] = g->dev_start[kc] + (x - g->offset[kc]);
					ld[3 * nc + c] = rs->rev;
				}
			}
		}
		gcontig[gi + 1] = c0 + ns;
		total += sm_round_up(gdev_len[gi], SM_GPU_PAD_ALIGN);
		if (gdev_len[gi] > *max_dev_len)
			*max_dev_len = gdev_len[gi];
	}
	if ((!src && sm_grow_host((void **)&s->h_gseq, &s->h_gseq_cap, (size_t)total + SM_GPU_REF_TAIL)) ||
	    sm_grow((void **)&s->d_gseq, &s->gseq_cap, (size_t)total + SM_GPU_REF_TAIL) ||
	    sm_grow((void **)&s->d_gtab, &s->gtab_cap, sizeof(int64_t) * n_tab) ||
	    sm_grow((void **)&s->d_gcontig, &s->gcontig_cap, sizeof(int32_t) * (size_t)(ngroups + 1)))
		return -1;
	if (!src) {
		memset(s->h_gseq, smk::CODE_PAD_PAIR, (size_t)total + SM_GPU_REF_TAIL);
		for (int gi = 0; gi < ngroups; gi++) {
			const int k0 = lq[gi * Q], k1 = sm_odd_lane(lq, gi, Q);
			const int32_t c0 = gcontig[gi];

			if (refs[k1] == refs[k0]) {
				sm_copy_lane(refs[k0], lt + c0, 2, s->h_gseq + gref[gi]);
			} else {
				sm_copy_lane(refs[k0], lt + c0, 0, s->h_gseq + gref[gi]);
				sm_copy_lane(refs[k1], lt + 4 * nc + c0, 1, s->h_gseq + gref[gi]);
			}
		}
		if (SM_CUDA(cudaMemcpyAsync(s->d_gseq, s->h_gseq, (size_t)total + SM_GPU_REF_TAIL,
					    cudaMemcpyHostToDevice, s->stream)))
			return -1;
	}
	if (SM_CUDA(cudaMemcpyAsync(s->d_gtab, tab, sizeof(int64_t) * n_tab,
				    cudaMemcpyHostToDevice, s->stream)) ||
	    SM_CUDA(cudaMemcpyAsync(s->d_gcontig, gcontig, sizeof(int32_t) * (size_t)(ngroups + 1),
				    cudaMemcpyHostToDevice, s->stream)))
		return -1;
	if (src) {
		const int64_t *d = s->d_gtab;

		sm_gather_refs<<<(unsigned)ngroups, 256, 0, s->stream>>>(
			g->d_ref, d, d + ngroups, d + 2 * ngroups, s->d_gcontig, d + 2 * ngroups + 3 * nc,
			nc, s->d_gseq);
		if (SM_CUDA(cudaGetLastError()) ||
		    SM_CUDA(cudaMemsetAsync(s->d_gseq + total, smk::CODE_PAD_PAIR, SM_GPU_REF_TAIL,
					    s->stream)))
			return -1;
	}
	P->ref = s->d_gseq;
	P->gref = s->d_gtab;
	P->gdev_len = s->d_gtab + ngroups;
	P->dev_start = s->d_gtab + 2 * ngroups;
	P->goff = s->d_gtab + 2 * ngroups + nc;
	P->goff1 = s->d_gtab + 2 * ngroups + 2 * nc;
	P->gcontig = s->d_gcontig;
	*total_len = total;
	return 0;
}

/* A group's rows when each of its Q lanes holds L codes (seq[l]): one
 * interleaving pass, codes above N clamped to N. */
template <int Q>
static void sm_pack_interleave(uint8_t *r, int L, const uint8_t *const *seq)
{
	for (int i = 0; i < L; i++)
		for (int l = 0; l < Q; l++) {
			const uint8_t c = seq[l][i];
			r[i * Q + l] = c < SM_BASE_N ? c : SM_BASE_N;
		}
}

static void sm_pack_full(uint8_t *r, int L, int Q, const uint8_t *const *seq)
{
	if (Q == 1)
		sm_pack_interleave<1>(r, L, seq);
	else if (Q == 2)
		sm_pack_interleave<2>(r, L, seq);
	else
		sm_pack_interleave<4>(r, L, seq);
}

/* One lane (every Q-th byte from r) of a group of L rows: L - len N rows,
 * then the query's len codes, clamped to N. */
static void sm_pack_lane(uint8_t *r, int L, int Q, int len, const uint8_t *seq)
{
	for (int i = 0; i < L - len; i++, r += Q)
		*r = SM_BASE_N;
	for (int i = 0; i < len; i++, r += Q)
		*r = seq[i] < SM_BASE_N ? seq[i] : SM_BASE_N;
}

/* Records a scan call in the trace (io/trace.h): its host work, and
 * its copies and kernels on the device's clock (events against
 * ev_origin).  The post-processing is recorded by the caller. */
static void sm_trace_call(sm_gpu_t *g, sm_gpu_slot_t *s, double t_start, double t_prep,
			  double t_post)
{
	static const char *const what[3] = { "device: upload", "device: kernels",
					     "device: download" };
	float ms[4];

	sm_trace_span("GPU scan: host prep", t_start, t_prep);
	sm_trace_span("GPU scan: on the device", t_prep, t_post);
	for (int k = 0; k < 4; k++)
		if (cudaEventElapsedTime(&ms[k], g->ev_origin, s->ev[k]) != cudaSuccess)
			return;
	for (int k = 0; k < 3; k++)
		sm_trace_span(what[k], g->t_origin + 1e-3 * ms[k], g->t_origin + 1e-3 * ms[k + 1]);
}

/* The body of sm_gpu_scan and sm_gpu_scan_refs, on slot s (owned by this
 * call, g->lock not held); the call's profile goes to *pr.  refs: NULL
 * for the whole reference, else query k's own reference. */
static int sm_gpu_scan_slot(sm_gpu_t *g, sm_gpu_slot_t *s, int n, const sm_query_t *q,
			    const sm_ref_t *const *refs, const sm_ref_src_t *src, sm_scan_t *out,
			    sm_gpu_profile_t *pr)
{
	const int bits = g->bits, Q = 32 / bits;
	const int limit = sm_lane_limit(bits);
	int ngroups = (n + Q - 1) / Q;
	int *glen = NULL, *shift = NULL, *lq = NULL;
	sm_group_t *rg = NULL;
	int64_t max_dev_len = 0, total_len = 0;
	int64_t *qoff = NULL, rows_total = 0;
	uint8_t *rows;
	uint64_t *res;
	int rc = -1, nladder = 0;
	const double t_start = sm_seconds();
	double t_post;

	for (int k = 0; k < n; k++) {
		if (q[k].len < 1 || q[k].len > g->max_len) {
			sm_log(SM_LOG_ERROR, "GPU engine: query %d has length %d (engine built for 1..%d)",
			       k, q[k].len, g->max_len);
			return -1;
		}
	}
	/* Groups, longest first; lq[g * Q + l] is the query in lane l of
	 * group g, or -1.  The whole reference: queries sorted by length, Q
	 * per group.  Own references: consecutive queries with the same one,
	 * up to Q (the mapper passes a read's two strands together). */
	rg = (sm_group_t *)malloc(sizeof *rg * (size_t)n);
	if (!rg) {
		sm_log(SM_LOG_ERROR, "GPU engine: out of memory for %d queries", n);
		goto done;
	}
	if (refs) {
		ngroups = 0;
		for (int k = 0; k < n; ngroups++) {
			sm_group_t *r = &rg[ngroups];
			r->first = k;
			r->second = -1;
			r->n = 0;
			r->len = 0;
			r->cols = refs[k]->total;
			for (; r->n < Q && k < n && (r->n == 0 || refs[k] == refs[k - 1]); r->n++, k++)
				if (q[k].len > r->len)
					r->len = q[k].len;
		}
		if (Q == 2 && g->lane_pairs && (ngroups = sm_pair_lanes(rg, ngroups, refs)) < 0)
			goto done;
		qsort(rg, (size_t)ngroups, sizeof *rg, sm_by_len_desc);
	} else {
		for (int k = 0; k < n; k++) {
			rg[k].len = q[k].len;
			rg[k].first = k;
			rg[k].n = 1;
			rg[k].second = -1;
			rg[k].cols = 0;
		}
		qsort(rg, (size_t)n, sizeof *rg, sm_by_len_desc);
	}
	lq = (int *)malloc(sizeof(int) * (size_t)ngroups * Q);
	glen = (int *)malloc(sizeof(int) * (size_t)ngroups);
	shift = (int *)malloc(sizeof(int) * (size_t)ngroups * Q);
	qoff = (int64_t *)malloc(sizeof(int64_t) * (size_t)ngroups);
	if (!lq || !glen || !shift || !qoff) {
		sm_log(SM_LOG_ERROR, "GPU engine: out of memory for %d queries", n);
		goto done;
	}
	for (int k = 0; k < ngroups * Q; k++)
		lq[k] = -1;
	if (refs) {
		for (int gi = 0; gi < ngroups; gi++) {
			glen[gi] = rg[gi].len;
			for (int l = 0; l < rg[gi].n; l++)
				lq[gi * Q + l] = rg[gi].second >= 0 && l == 1 ? rg[gi].second
									      : rg[gi].first + l;
			pr->lane_pairs += rg[gi].second >= 0;
		}
	} else {
		for (int k = 0; k < n; k++)
			lq[k] = rg[k].first;
		for (int gi = 0; gi < ngroups; gi++)
			glen[gi] = rg[gi * Q].len;
	}

	pr->groups = ngroups;
	for (int gi = 0; gi < ngroups; gi++) {
		qoff[gi] = rows_total;
		rows_total += (int64_t)glen[gi] * Q;
		if (bits < 32 && (int64_t)glen[gi] * g->sc.match + g->sc.clip5 > limit)
			nladder = gi + 1;
	}
	if (sm_grow_host((void **)&s->h_rows, &s->h_rows_cap, (size_t)rows_total) ||
	    sm_grow_host((void **)&s->h_res, &s->h_res_cap, sizeof(uint64_t) * ngroups * Q * SM_TOPK))
		goto done;
	rows = s->h_rows;
	res = s->h_res;
	/* Rows [i][lane]; a shorter query is front-padded with N rows, an
	 * empty lane is all N.  This runs for every lane of every call (a
	 * batch's calls pack about 3.7M bytes), so a lane's locus shift is
	 * recomputed only when its length changes, and a group whose lanes
	 * are all full (or empty) is interleaved in one pass. */
	for (int gi = 0, shift_len = -1, lane_shift = 0; gi < ngroups; gi++) {
		const int L = glen[gi];
		const uint8_t *seq[32 / 8];   /* Q <= 4 */
		int full = 1;

		for (int l = 0; l < Q; l++) {
			const int k = gi * Q + l;
			const sm_query_t *qq = lq[k] >= 0 ? &q[lq[k]] : NULL;
			const int len = qq ? qq->len : 1;

			if (len != shift_len) {
				shift_len = len;
				lane_shift = sm_locus_shift(&g->sc, len);
			}
			shift[k] = lane_shift;
			seq[l] = qq ? qq->seq : g->n_row;
			full &= !qq || qq->len == L;
		}
		if (full)
			sm_pack_full(rows + qoff[gi], L, Q, seq);
		else
			for (int l = 0; l < Q; l++) {
				const int k = gi * Q + l;
				sm_pack_lane(rows + qoff[gi] + l, L, Q, lq[k] >= 0 ? q[lq[k]].len : 0, seq[l]);
			}
		/* Each query's first base takes its bonus profile (sw_kernel.cuh,
		 * Clipping penalty). */
		if (g->sc.clip5)
			for (int l = 0; l < Q; l++)
				if (lq[gi * Q + l] >= 0)
					rows[qoff[gi] + (int64_t)(L - q[lq[gi * Q + l]].len) * Q + l] +=
						smk::FIRST_CODE;
	}
	if (sm_grow((void **)&s->d_rows, &s->rows_cap, (size_t)rows_total))
		goto done;
	if ((size_t)ngroups > s->group_cap) {
		size_t cap = 0;
		cudaFree(s->d_qoff);
		cudaFree(s->d_glen);
		cudaFree(s->d_shift);
		s->d_qoff = NULL;
		s->d_glen = s->d_shift = NULL;
		s->group_cap = 0;
		if (sm_grow((void **)&s->d_qoff, &cap, sizeof(int64_t) * ngroups))
			goto done;
		cap = 0;
		if (sm_grow((void **)&s->d_glen, &cap, sizeof(int32_t) * ngroups))
			goto done;
		cap = 0;
		if (sm_grow((void **)&s->d_shift, &cap, sizeof(int32_t) * ngroups * Q))
			goto done;
		s->group_cap = (size_t)ngroups;
	}
	if (sm_grow((void **)&s->d_res, &s->res_cap, sizeof(uint64_t) * ngroups * Q * SM_TOPK))
		goto done;
	pr->host_prep_s = sm_seconds() - t_start;
	if (SM_CUDA(cudaEventRecord(s->ev[0], s->stream)) ||
	    SM_CUDA(cudaMemcpyAsync(s->d_rows, rows, (size_t)rows_total, cudaMemcpyHostToDevice, s->stream)) ||
	    SM_CUDA(cudaMemcpyAsync(s->d_qoff, qoff, sizeof(int64_t) * ngroups, cudaMemcpyHostToDevice, s->stream)) ||
	    SM_CUDA(cudaMemcpyAsync(s->d_glen, glen, sizeof(int32_t) * ngroups, cudaMemcpyHostToDevice, s->stream)) ||
	    SM_CUDA(cudaMemcpyAsync(s->d_shift, shift, sizeof(int32_t) * ngroups * Q, cudaMemcpyHostToDevice, s->stream)) ||
	    SM_CUDA(cudaMemsetAsync(s->d_cells, 0, 3 * sizeof(unsigned long long), s->stream)))
		goto done;

	{
		smk::Params P;
		memset(&P, 0, sizeof P);
		P.ref = g->d_ref;
		P.dev_start = g->d_dev_start;
		P.goff = g->d_goff;
		P.goff1 = g->d_goff;
		if ((refs && sm_upload_refs(g, s, ngroups, Q, lq, refs, src, &P, &max_dev_len,
						&total_len)) ||
		    SM_CUDA(cudaEventRecord(s->ev[1], s->stream)))
			goto done;
		P.n_contig = g->n_contig;
		P.dev_len = g->dev_len;
		P.qry = s->d_rows;
		P.cells_w = s->d_cells;
		P.match = g->sc.match;
		P.oe = g->sc.gap_open + g->sc.gap_ext;
		P.ext = g->sc.gap_ext;
		P.clip5 = g->sc.clip5;
		P.clip3 = g->sc.clip3;
		/* Codes FIRST_CODE + c: a read's first base, with the 5' bonus. */
		for (int code = 0; code < 2 * smk::FIRST_CODE; code++) {
			uint32_t ps = 0, pp = 0, pn = 0;
			const int first = code >= smk::FIRST_CODE;
			const uint8_t qc = (uint8_t)(first ? code - smk::FIRST_CODE : code);
			for (int r = 0; r < 4; r++) {
				int s = first ? sm_subst_first(&g->sc, (uint8_t)r, qc)
					      : sm_subst(&g->sc, (uint8_t)r, qc);
				ps |= (uint32_t)(uint8_t)(int8_t)s << (8 * r);
				pp |= (uint32_t)(s > 0 ? s : 0) << (8 * r);
				pn |= (uint32_t)(s < 0 ? -s : 0) << (8 * r);
			}
			P.prof_s[code] = ps;
			P.prof_pos[code] = pp;
			P.prof_neg[code] = pn;
		}

		/* Class 1 (ladder) = groups [0, nladder), class 0 the rest. */
		for (int cls = 1; cls >= 0; cls--) {
			const int g_begin = cls ? 0 : nladder, g_end = cls ? nladder : ngroups;
			const sm_kclass_t *kc = &sm_kclasses[sm_bits_class(bits)][cls];
			if (bits == 16 && cls == 0 && g->plain16 && !refs)
				kc = g->plain16;
			const int64_t S = (int64_t)smk::WARP * (refs ? kc->cols_gref : kc->cols);
			int gs = g_begin;

			while (gs < g_end) {
				const int L = glen[gs];
				const int64_t halo = sm_halo(&g->sc, L);
				int64_t chunk = g_end - gs, nranges, range_len;
				size_t per_group;

				if (chunk > SM_GPU_MAX_GRID_Y)
					chunk = SM_GPU_MAX_GRID_Y;
				/* Ranges: enough warps to fill the device, each at
				 * least a few halos long so context stays cheap.
				 * Per-group references: ranges of the mean columns
				 * per warp the device holds, so that the longest
				 * group is split rather than run alone at the end;
				 * the groups' other ranges are empty. */
				const int64_t dev_len = refs ? max_dev_len : g->dev_len;
				if (refs) {
					const int64_t warps = (int64_t)g->sms * SM_GPU_GREF_WARPS_PER_SM;

					range_len = g->gref_halos ? (total_len + warps - 1) / warps : dev_len;
					if (range_len < g->gref_halos * halo)
						range_len = g->gref_halos * halo;
				} else {
					const int64_t target = ((int64_t)g->sms * SM_GPU_WARPS_PER_SM + chunk - 1) / chunk;

					range_len = (dev_len + target - 1) / target;
					if (range_len < SM_GPU_MIN_RANGE_HALOS * halo)
						range_len = SM_GPU_MIN_RANGE_HALOS * halo;
				}
				range_len = sm_round_up(range_len, S);
				nranges = (dev_len + range_len - 1) / range_len;
				per_group = (size_t)nranges * Q * SM_TOPK * sizeof(uint64_t);
				if ((size_t)chunk * per_group > SM_GPU_RANGE_BUF_MAX)
					chunk = (int64_t)(SM_GPU_RANGE_BUF_MAX / per_group) > 0
						? (int64_t)(SM_GPU_RANGE_BUF_MAX / per_group) : 1;
				if (sm_grow((void **)&s->d_range, &s->range_cap, per_group * (size_t)chunk))
					goto done;
				P.qoff = s->d_qoff + gs;
				P.glen = s->d_glen + gs;
				if (refs) {
					P.gref = s->d_gtab + gs;
					P.gdev_len = s->d_gtab + ngroups + gs;
					P.gcontig = s->d_gcontig + gs;
				}
				P.shift = s->d_shift + (size_t)gs * Q;
				P.range_out = s->d_range;
				P.nranges = (int)nranges;
				P.range_len = range_len;
				P.halo = (int)halo;
				const int nw = refs ? kc->warps_gref : kc->warps;

				(refs ? kc->launch_gref : kc->launch)(dim3((unsigned)((nranges + nw - 1) / nw), (unsigned)chunk),
					   refs ? kc->smem_gref(L) : kc->smem(L), s->stream, P);
				if (SM_CUDA(cudaGetLastError()))
					goto done;
				smk::merge_kernel<<<(unsigned)(chunk * Q), smk::MERGE_THREADS, 0, s->stream>>>(
					s->d_range, (int)nranges, s->d_shift + (size_t)gs * Q,
					s->d_res + (size_t)gs * Q * SM_TOPK);
				if (SM_CUDA(cudaGetLastError()))
					goto done;
				gs += (int)chunk;
			}
		}
	}
	if (SM_CUDA(cudaEventRecord(s->ev[2], s->stream)) ||
	    SM_CUDA(cudaMemcpyAsync(res, s->d_res, sizeof(uint64_t) * ngroups * Q * SM_TOPK,
				    cudaMemcpyDeviceToHost, s->stream)) ||
	    SM_CUDA(cudaMemcpyAsync(s->h_cells, s->d_cells, 3 * sizeof(unsigned long long),
				    cudaMemcpyDeviceToHost, s->stream)) ||
	    SM_CUDA(cudaEventRecord(s->ev[3], s->stream)) ||
	    SM_CUDA(sm_stream_wait(s->stream)))
		goto done;
	{
		float ms[3];
		for (int k = 0; k < 3; k++)
			if (SM_CUDA(cudaEventElapsedTime(&ms[k], s->ev[k], s->ev[k + 1])))
				goto done;
		pr->upload_s = 1e-3 * ms[0];
		pr->kernel_s = 1e-3 * ms[1];
		pr->download_s = 1e-3 * ms[2];
	}
	t_post = sm_seconds();
	if (sm_trace_on)
		sm_trace_call(g, s, t_start, t_start + pr->host_prep_s, t_post);

	for (int k = 0; k < ngroups * Q; k++) {
		if (lq[k] < 0)
			continue;
		sm_scan_t *o = &out[lq[k]];
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
		pr->cells_w[w] = s->h_cells[w];
	pr->host_post_s = sm_seconds() - t_post;
	pr->total_s = sm_seconds() - t_start;
	if (sm_trace_on)
		sm_trace_span("GPU scan: results", t_post, t_start + pr->total_s);
	rc = 0;
done:
	free(rg);
	free(lq);
	free(glen);
	free(shift);
	free(qoff);
	return rc;
}

static int sm_gpu_run(sm_gpu_t *g, int n, const sm_query_t *q, const sm_ref_t *const *refs,
		      const sm_ref_src_t *src, sm_scan_t *out)
{
	sm_gpu_slot_t *s = NULL;
	sm_gpu_profile_t pr;
	int rc;

	double t0 = sm_seconds(), wait;

	if (n <= 0)
		return 0;
	memset(&pr, 0, sizeof pr);
	pthread_mutex_lock(&g->lock);
	while (!s) {
		for (int k = 0; k < g->n_slots && !s; k++)
			if (!g->slot[k].busy)
				s = &g->slot[k];
		if (!s)
			pthread_cond_wait(&g->slot_free, &g->lock);
	}
	s->busy = 1;
	pthread_mutex_unlock(&g->lock);
	wait = sm_seconds() - t0;
	if (sm_trace_on)
		sm_trace_span("GPU scan: wait for a slot", t0, t0 + wait);

	rc = SM_CUDA(cudaSetDevice(g->device));
	if (rc == 0)
		rc = sm_gpu_scan_slot(g, s, n, q, refs, src, out, &pr);

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
	}
	s->busy = 0;
	pthread_cond_signal(&g->slot_free);
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

int sm_gpu_set_slots(sm_gpu_t *g, int n)
{
	if (n < 1 || n > SM_GPU_SLOTS) {
		sm_log(SM_LOG_ERROR, "GPU engine: %d calls in flight asked, 1..%d possible", n, SM_GPU_SLOTS);
		return -1;
	}
	pthread_mutex_lock(&g->lock);
	g->n_slots = n;
	pthread_mutex_unlock(&g->lock);
	return 0;
}

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

int sm_gpu_set_cols(sm_gpu_t *g, int cols)
{
	for (size_t k = 0; k < sizeof sm_kvariants16 / sizeof *sm_kvariants16; k++) {
		const sm_kclass_t *kc = &sm_kvariants16[k];
		if (kc->cols != cols)
			continue;
		if (SM_CUDA(kc->set_smem(kc->smem(g->max_len))))
			return -1;
		g->plain16 = kc;
		return 0;
	}
	sm_log(SM_LOG_ERROR, "GPU engine: no 16-bit kernel with %d columns per lane", cols);
	return -1;
}

int sm_gpu_profile(const sm_gpu_t *g, sm_gpu_profile_t *p)
{
	*p = g->prof;
	return 0;
}
