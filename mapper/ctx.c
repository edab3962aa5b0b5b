/* ctx.c — options, the context and the SAM header of scanmap.h. */
#include "mapper/map_impl.h"

#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpu/gpu_engine.h"
#include "io/sam_out.h"
#include "io/thread.h"

/* Room for sm_gpu_available()'s one-line reason. */
#define SM_GPU_MSG_LEN 256

void sm_set_verbosity(int level)
{
	sm_log_set_level((enum sm_log_level)level);
}

void sm_mapopt_init(sm_mapopt_t *o)
{
	memset(o, 0, sizeof *o);
	o->score.match = SM_DEFAULT_MATCH;
	o->score.mismatch = SM_DEFAULT_MISMATCH;
	o->score.gap_open = SM_DEFAULT_GAP_OPEN;
	o->score.gap_ext = SM_DEFAULT_GAP_EXTEND;
	o->score.clip5 = o->score.clip3 = SM_DEFAULT_CLIP;
	o->min_score = SM_DEFAULT_MIN_SCORE;
	o->engine = SM_ENGINE_AUTO;
	o->cells = SM_CELLS_AUTO;
	o->cpu_isa = "auto";
	o->max_read_len = SM_DEFAULT_MAX_READ_LEN;
	o->mode = SM_MODE_AUTO;
	o->seed_k = SM_INDEX_DEFAULT_K;
	o->seed_w = SM_INDEX_DEFAULT_W;
	o->max_occ = SM_SEED_DEFAULT_MAX_OCC;
	o->max_windows = SM_SEED_DEFAULT_MAX_WINDOWS;
	o->max_hits = SM_SEED_MAX_HITS;
	o->completion = SM_COMPLETE_ALL;
	o->read_through = SM_READ_THROUGH_CLIP;
	o->pen_unpaired = SM_DEFAULT_PEN_UNPAIRED;
	o->xa_max = SM_DEFAULT_XA_MAX;
	o->xa_max_alt = SM_DEFAULT_XA_MAX_ALT;
}

static int check_range(const char *opt, long v, long lo, long hi)
{
	if (v >= lo && v <= hi)
		return 0;
	sm_log(SM_LOG_ERROR, "%s must be between %ld and %ld (got %ld)", opt, lo, hi, v);
	return -1;
}

/* Long reads: the traceback (mapper/align.h) fills three matrices of 32-bit
 * cells over the band an alignment scoring at least -T can span, at most
 * n + 1 rows of n + (n*A - T - O)/E + 1 columns: memory quadratic in the
 * read length.  --max-read-len is refused up front when that worst case
 * passes SM_MAX_TRACE_BYTES per worker thread, rather than when a worker
 * asks for the memory mid-run. */
#define SM_TRACE_CELL_BYTES (3.0 * sizeof(int32_t))
#define SM_MAX_TRACE_BYTES ((double)(1ull << 32))
#define SM_GIB (1024.0 * 1024.0 * 1024.0)

static double trace_bytes(int64_t n, const sm_mapopt_t *o)
{
	double span = (double)n * o->score.match - o->min_score - o->score.gap_open;
	double cols = (double)n + (span > 0 ? span / o->score.gap_ext : 0) + 1;

	return (double)(n + 1) * cols * SM_TRACE_CELL_BYTES;
}

/* Refuses a --max-read-len whose traceback may pass SM_MAX_TRACE_BYTES,
 * naming the longest length that fits.  Returns 0 or -1. */
static int check_trace_memory(const sm_mapopt_t *o)
{
	int64_t lo = 1, hi = o->max_read_len;

	if (trace_bytes(o->max_read_len, o) <= SM_MAX_TRACE_BYTES)
		return 0;
	while (lo < hi) {
		int64_t mid = (lo + hi + 1) / 2;

		if (trace_bytes(mid, o) <= SM_MAX_TRACE_BYTES)
			lo = mid;
		else
			hi = mid - 1;
	}
	sm_log(SM_LOG_ERROR, "--max-read-len %d: the traceback of a read that long may need "
	       "%.0f GiB (it grows with the square of the read length at these scores); the "
	       "limit is %.0f GiB per thread, which allows reads up to %lld bases",
	       o->max_read_len, trace_bytes(o->max_read_len, o) / SM_GIB,
	       SM_MAX_TRACE_BYTES / SM_GIB, (long long)lo);
	return -1;
}

int sm_mapopt_check(const sm_mapopt_t *o)
{
	sm_cpu_isa_t isa;
	sm_gpu_tune_t tune;

	if (check_range("-A (match score)", o->score.match, 1, SM_MAX_MATCH) < 0 ||
	    check_range("-B (mismatch penalty)", o->score.mismatch, 1, SM_MAX_PENALTY) < 0 ||
	    check_range("-O (gap open penalty)", o->score.gap_open, 0, SM_MAX_PENALTY) < 0 ||
	    check_range("-E (gap extension penalty)", o->score.gap_ext, 1, SM_MAX_PENALTY) < 0 ||
	    check_range("-L (clipping penalty, 5' end)", o->score.clip5, 0,
			SM_MAX_SUBST - o->score.match) < 0 ||
	    check_range("-L (clipping penalty, 3' end)", o->score.clip3, 0,
			SM_MAX_SUBST - o->score.match) < 0 ||
	    check_range("-T (minimum score)", o->min_score, 1, INT32_MAX) < 0 ||
	    check_range("-U (unpaired penalty)", o->pen_unpaired, 0, SM_MAX_PEN_UNPAIRED) < 0 ||
	    check_range("-h (XA hits)", o->xa_max, 0, INT_MAX) < 0 ||
	    check_range("-h (XA hits, second value)", o->xa_max_alt, 0, INT_MAX) < 0 ||
	    check_range("--max-read-len", o->max_read_len, 1, SM_MAX_READ_LEN_LIMIT) < 0 ||
	    check_range("-k (minimizer length)", o->seed_k, SM_INDEX_MIN_K, SM_INDEX_MAX_K) < 0 ||
	    check_range("-w (minimizer window)", o->seed_w, 1, SM_INDEX_MAX_W) < 0 ||
	    check_range("--max-occ", o->max_occ, 1, INT_MAX) < 0 ||
	    check_range("--max-windows", o->max_windows, 1, SM_MAX_WINDOWS_LIMIT) < 0 ||
	    check_range("--max-hits", o->max_hits, 1, INT_MAX) < 0 ||
	    check_range("-N (secondary alignments)", o->n_secondary, 0, SM_MAX_SECONDARY) < 0 ||
	    check_range("--engine", o->engine, SM_ENGINE_AUTO, SM_ENGINE_ORACLE) < 0 ||
	    check_range("--cells", o->cells, SM_CELLS_AUTO, SM_CELLS_32) < 0 ||
	    check_range("--mode", o->mode, SM_MODE_AUTO, SM_MODE_SEEDED) < 0 ||
	    check_range("--completion", o->completion, SM_COMPLETE_WEAK, SM_COMPLETE_OFF) < 0 ||
	    check_range("--read-through", o->read_through, SM_READ_THROUGH_CLIP,
			SM_READ_THROUGH_WHOLE) < 0 ||
	    sm_cpu_isa_parse(o->cpu_isa, &isa) < 0 || check_trace_memory(o) < 0 ||
	    (o->gpu_tune && sm_gpu_tune_parse(&tune, o->gpu_tune) < 0))
		return -1;
	return 0;
}

/* Seeded mode's index and the reference from REF.smi, when it exists and
 * seeded mode may run: the file holds both, so the FASTA is not parsed
 * (mapper/index.h).  Returns 1 with *idx and *ref set, 0 when there is no
 * usable file (none, or not the -k/-w asked for: the caller reads the
 * FASTA and builds the index in memory), or -1 after logging. */
static int load_index(const char *ref_path, const sm_mapopt_t *o, sm_index_t **idx,
		      sm_ref_t **ref)
{
	sm_index_load_opt_t lo;
	char *path;
	double t0 = sm_seconds();

	*idx = NULL;
	*ref = NULL;
	if (o->mode == SM_MODE_EXHAUSTIVE)
		return 0;
	if (!(path = sm_index_path(ref_path)))
		return -1;
	if (access(path, F_OK) != 0) {
		free(path);
		return 0;
	}
	sm_index_load_opt_init(&lo);
	lo.fasta_path = ref_path;
	lo.n_threads = o->n_threads > 0 ? o->n_threads : 1;
	*idx = sm_index_load(path, &lo, ref);
	if (!*idx) {
		free(path);
		return -1;
	}
	if (o->seed_kw_set && ((*idx)->k != o->seed_k || (*idx)->w != o->seed_w)) {
		sm_log(SM_LOG_WARNING, "%s has k=%d w=%d, not the -k %d -w %d asked for: "
		       "building the index in memory", path, (*idx)->k, (*idx)->w, o->seed_k,
		       o->seed_w);
		sm_ref_destroy(*ref);
		sm_index_destroy(*idx);
		*idx = NULL;
		*ref = NULL;
		free(path);
		return 0;
	}
	sm_log(SM_LOG_INFO, "loaded index %s (k=%d w=%d) and its reference in %.2f s", path,
	       (*idx)->k, (*idx)->w, sm_seconds() - t0);
	free(path);
	return 1;
}

/* Seeded mode's index built in memory (no usable REF.smi). */
static sm_index_t *get_index(const sm_mapopt_t *o, const sm_ref_t *ref)
{
	double t0 = sm_seconds();
	sm_index_t *idx = sm_index_build(ref, o->seed_k, o->seed_w,
					 o->n_threads > 0 ? o->n_threads : 1, 0);

	if (idx)
		sm_log(SM_LOG_INFO, "built the index in memory (k=%d w=%d) in %.2f s; "
		       "'scanmap index' saves it for later runs", o->seed_k, o->seed_w,
		       sm_seconds() - t0);
	return idx;
}

/* Set-up work that runs beside the reference load and the engine's
 * creation (each a few tenths of a second on chr20): the GPU's context,
 * and seeded mode's index. */
typedef struct {
	const sm_mapopt_t *o;
	const sm_ref_t *ref;
	sm_index_t *idx;
} index_job_t;

static void *warm_up_main(void *arg)
{
	sm_thread_name("sm-gpu-warm");
	sm_gpu_warm_up((const sm_gpu_opt_t *)arg);
	return NULL;
}

static void *index_main(void *arg)
{
	index_job_t *j = arg;

	sm_thread_name("sm-index-load");
	j->idx = get_index(j->o, j->ref);
	return NULL;
}

/* ctx->engine_name: the engine, and in seeded mode what it scans (the
 * windows, and the reads that fall back to the whole reference). */
static void name_engines(sm_ctx_t *ctx)
{
	const char *name = sm_engine_name(ctx->engine);
	char *s = ctx->engine_name;
	size_t n = sizeof ctx->engine_name;

	if (!ctx->seeded)
		snprintf(s, n, "%s", name);
	else if (ctx->engine != ctx->cpu)
		snprintf(s, n, "%s (windows%s)", name, ctx->fallback ? " and fallback" : "");
	else if (ctx->fallback)
		snprintf(s, n, "%s (windows), %s (fallback)", name, name);
	else
		snprintf(s, n, "%s (windows)", name);
}

sm_ctx_t *sm_ctx_create(const char *ref_path, const sm_mapopt_t *o)
{
	sm_ctx_t *ctx = calloc(1, sizeof *ctx);
	index_job_t ij = { NULL, NULL, NULL };
	pthread_t warm_th, index_th;
	int warming = 0, indexing = 0, gpu, ok = 0;
	char gpu_msg[SM_GPU_MSG_LEN];
	sm_gpu_opt_t gopt;   /* the GPU's devices and knobs (warm-up, engine options) */
	sm_engine_opt_t eo;
	int64_t bound;
	double t;

	if (!ctx) {
		sm_log(SM_LOG_ERROR, "out of memory creating the mapping context");
		return NULL;
	}
	ctx->opt = *o;
	ij.o = &ctx->opt;
	ctx->paired = o->paired;
	ctx->pairing = o->paired && !o->no_pairing;
	if (sm_cpu_isa_parse(o->cpu_isa, &ctx->isa) < 0)
		goto out;
	sm_gpu_opt_init(&gopt);
	gopt.gpus = o->gpus;
	gopt.cells = o->cells;
	gopt.max_query_len = o->max_read_len;
	if (o->gpu_tune && sm_gpu_tune_parse(&gopt.tune, o->gpu_tune) < 0)
		goto out;
	if (o->engine == SM_ENGINE_GPU || o->engine == SM_ENGINE_AUTO)
		warming = pthread_create(&warm_th, NULL, warm_up_main, &gopt) == 0;
	t = sm_seconds();
	switch (load_index(ref_path, o, &ctx->index_file, &ctx->ref)) {
	case 0:
		if (sm_ref_load(ref_path, &ctx->ref) < 0)
			goto out;
		break;
	case 1:
		break;
	default:
		goto out;
	}
	sm_log(SM_LOG_DEBUG, "set-up: reference loaded in %.2f s", sm_seconds() - t);

	/* The auto bound depends on the engine that would run exhaustive mode:
	 * the GPU's when --engine gpu, or auto with a usable GPU. */
	memset(&eo, 0, sizeof eo);
	eo.gpus = gopt.gpus;
	eo.gpu_tune = gopt.tune;
	eo.kind = o->engine;
	eo.cells = o->cells;
	eo.max_query_len = o->max_read_len;
	eo.cpu_isa = o->cpu_isa;
	eo.threads = o->n_threads > 0 ? o->n_threads : 1;
	gpu = o->engine == SM_ENGINE_GPU ||
	      (o->engine == SM_ENGINE_AUTO && sm_gpu_available(&eo.gpus, gpu_msg, (int)sizeof gpu_msg));
	if (!gpu && o->engine == SM_ENGINE_AUTO && o->gpus.n > 0) {
		/* Devices named by the caller must be there. */
		sm_log(SM_LOG_ERROR, "--gpu(s): %s", gpu_msg);
		goto out;
	}
	bound = gpu ? SM_AUTO_MAX_REF_GPU : SM_AUTO_MAX_REF_CPU;
	ctx->seeded = o->mode == SM_MODE_SEEDED || (o->mode == SM_MODE_AUTO && ctx->ref->total > bound);
	ctx->fallback = ctx->seeded && ctx->ref->total <= bound;
	sm_log(SM_LOG_INFO, "%s mode (reference %lld bases, exhaustive bound %lld with this engine)%s",
	       ctx->seeded ? "seeded" : "exhaustive", (long long)ctx->ref->total, (long long)bound,
	       ctx->fallback ? "; reads without a seeded hit are aligned exhaustively" : "");
	if (ctx->seeded) {
		sm_seed_opt_init(&ctx->seed_opt);
		ctx->seed_opt.max_occ = o->max_occ;
		ctx->seed_opt.max_windows = o->max_windows;
		ctx->seed_opt.max_hits = o->max_hits;
		ctx->retry_opt = ctx->seed_opt;
		ctx->retry_opt.max_occ = o->max_occ > INT_MAX / SM_SEED_RETRY_OCC ? INT_MAX :
					 o->max_occ * SM_SEED_RETRY_OCC;
		ctx->retry_opt.max_windows = o->max_windows * SM_SEED_RETRY_WINDOWS;
		ij.ref = ctx->ref;
		ij.idx = ctx->index_file;
		if (!ij.idx) {
			indexing = pthread_create(&index_th, NULL, index_main, &ij) == 0;
			if (!indexing)
				index_main(&ij);
		}
	}
	if (warming) {
		/* The CUDA driver's start and the devices' contexts, made beside
		 * the loads above: what the set-up still waits for is theirs
		 * (the driver's start grows with the GPUs it sees: docs/gpu.md). */
		t = sm_seconds();
		pthread_join(warm_th, NULL);
		warming = 0;
		sm_log(SM_LOG_DEBUG, "set-up: waited %.2f s more for the GPUs' contexts",
		       sm_seconds() - t);
	}
	/* The engine runs every scan of the batches.  Pairing's single-window
	 * scans run on a CPU engine: the engine itself, or one beside it with
	 * the default ladder (--cells is then the GPU's). */
	t = sm_seconds();
	if (!(ctx->engine = sm_engine_create(ctx->ref, &o->score, &eo)))
		goto out;
	if (sm_engine_kind(ctx->engine) == SM_ENGINE_CPU) {
		ctx->cpu = ctx->engine;
	} else {
		sm_engine_opt_t co = eo;

		co.kind = SM_ENGINE_CPU;
		co.cells = SM_CELLS_AUTO;
		if (!(ctx->cpu = sm_engine_create(ctx->ref, &o->score, &co)))
			goto out;
	}
	sm_log(SM_LOG_DEBUG, "set-up: engine created in %.2f s", sm_seconds() - t);
	if (indexing) {
		pthread_join(index_th, NULL);
		indexing = 0;
	}
	if (ctx->seeded && !(ctx->index = ij.idx))
		goto out;
	/* The engine seeds when it has a seeder of its own (the GPU: the same
	 * windows as the CPU, gpu_seed.h); if the index does not fit on it, or
	 * it has none, the CPU engine seeds on the workers' threads. */
	if (ctx->seeded) {
		int rc;

		t = sm_seconds();
		ctx->seeder = ctx->engine;
		if ((rc = sm_engine_seed_start(ctx->engine, ctx->index)) < 0)
			sm_log(SM_LOG_WARNING, "seeding on the CPU: the index could not be put on the GPU");
		else if (rc == 0 && ctx->engine != ctx->cpu)
			sm_log(SM_LOG_DEBUG, "set-up: index put on the GPU in %.2f s", sm_seconds() - t);
		if (rc != 0) {
			ctx->seeder = ctx->cpu;
			if (sm_engine_seed_start(ctx->cpu, ctx->index) != 0)
				goto out;
		}
	}
	name_engines(ctx);
	/* No pair is proper until sm_ctx_estimate_inserts gives the model. */
	if (sm_pair_insert_table(ctx) < 0)
		goto out;
	ok = 1;
out:
	if (warming)
		pthread_join(warm_th, NULL);
	if (indexing) {
		pthread_join(index_th, NULL);
		if (!ctx->index)
			ctx->index = ij.idx;
	}
	if (!ok) {
		sm_ctx_destroy(ctx);
		return NULL;
	}
	return ctx;
}

void sm_ctx_destroy(sm_ctx_t *ctx)
{
	if (!ctx)
		return;
	if (ctx->cpu != ctx->engine)
		sm_engine_destroy(ctx->cpu);
	sm_engine_destroy(ctx->engine);
	free(ctx->ins.score);
	sm_ref_destroy(ctx->ref);   /* before the index file, which may hold its bases */
	if (ctx->index != ctx->index_file)
		sm_index_destroy(ctx->index);
	sm_index_destroy(ctx->index_file);
	free(ctx);
}

int sm_ctx_seeded(const sm_ctx_t *ctx) { return ctx->seeded; }
const char *sm_ctx_engine_name(const sm_ctx_t *ctx) { return ctx->engine_name; }

sam_hdr_t *sm_ctx_sam_header(const sm_ctx_t *ctx, const char *lines)
{
	kstring_t s = KS_INITIALIZE;
	sam_hdr_t *h = NULL;

	if (sm_sam_header_text(ctx->ref, lines, &s) == 0 && (h = sam_hdr_init()) &&
	    sam_hdr_add_lines(h, s.s, s.l) < 0) {
		sam_hdr_destroy(h);
		h = NULL;
	}
	if (!h)
		sm_log(SM_LOG_ERROR, "cannot make the SAM header (out of memory?)");
	free(s.s);
	return h;
}
