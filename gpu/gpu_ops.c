/* gpu_ops.c — the GPU engine and seeder behind the engine interface
 * (mapper/engine_ops.h): sm_gpu_engine_ops.  Plain C over gpu_engine.h and
 * gpu_seed.h, built with or without CUDA (without it, create fails as
 * sm_gpu_create does).  The scoring is compiled into the kernels' launch
 * parameters once per device, by sm_gpu_create. */
#include <stdio.h>
#include <stdlib.h>

#include "gpu/gpu_engine.h"
#include "gpu/gpu_seed.h"
#include "gpu/gpu_trace.h"
#include "io/log.h"

typedef struct {
	sm_gpu_t *g;
	sm_gpu_seed_t *seed;   /* NULL until seed_start */
	sm_gpu_trace_t *trace;
	sm_gpu_opt_t opt;      /* the devices and knobs, for the seeder too */
	const sm_ref_t *ref;
	char name[160];
} gpu_ops_t;

static void *gpu_ops_create(const sm_ref_t *ref, const sm_score_t *sc, const sm_engine_opt_t *opt)
{
	gpu_ops_t *e = calloc(1, sizeof *e);

	if (!e) {
		sm_log(SM_LOG_ERROR, "out of memory creating the GPU engine");
		return NULL;
	}
	sm_gpu_opt_init(&e->opt);
	e->opt.gpus = opt->gpus;
	e->opt.cells = opt->cells;
	e->opt.max_query_len = opt->max_query_len;
	e->opt.tune = opt->gpu_tune;
	e->ref = ref;
	if (!(e->g = sm_gpu_create(ref, sc, &e->opt))) {
		free(e);
		return NULL;
	}
	/* Tracebacks on the GPU: level with the host's or ahead at 8, 16 and
	 * 32 workers a GPU, in both modes (docs/gpu.md). */
	if (!e->opt.tune.host_traces) {
		sm_tb_score_t ts = sm_tb_score(sc);

		if (!(e->trace = sm_gpu_trace_create(&ts, &e->opt))) {
			sm_gpu_destroy(e->g);
			free(e);
			return NULL;
		}
	}
	snprintf(e->name, sizeof e->name, "gpu:%s", sm_gpu_name(e->g));
	return e;
}

static const char *gpu_ops_name(const void *self)
{
	return ((const gpu_ops_t *)self)->name;
}

/* The engine counts the cells of its whole-reference scans itself
 * (sm_gpu_stats). */
static int gpu_ops_scan(void *self, int n, const sm_query_t *q, sm_scan_t *out,
			sm_engine_stats_t *st)
{
	st->queries += (uint64_t)n;
	return sm_gpu_scan(((gpu_ops_t *)self)->g, n, q, out);
}

/* A window scan's cells are counted as query length times reference
 * length, its own counters aside. */
static int gpu_ops_scan_refs(void *self, int n, const sm_query_t *q, const sm_ref_t *const *refs,
			     const sm_ref_src_t *src, sm_scan_t *out, sm_engine_stats_t *st)
{
	if (sm_gpu_scan_refs(((gpu_ops_t *)self)->g, n, q, refs, src, out) < 0)
		return -1;
	for (int k = 0; k < n; k++)
		st->cells += (uint64_t)q[k].len * (uint64_t)refs[k]->total;
	st->queries += (uint64_t)n;
	return 0;
}

static int gpu_ops_seed_start(void *self, const sm_index_t *idx)
{
	gpu_ops_t *e = self;

	if (!e->seed)
		e->seed = sm_gpu_seed_create(idx, e->ref, &e->opt);
	return e->seed ? 0 : -1;
}

static int gpu_ops_seed(void *self, const sm_seed_opt_t *opt, int n, const uint8_t *const *reads,
			const int32_t *len, const int64_t *margin, sm_window_t *win, int32_t *n_win,
			sm_seed_left_t *left, uint8_t *skip)
{
	return sm_gpu_seed_find(((gpu_ops_t *)self)->seed, opt, n, reads, len, margin, win, n_win,
				left, skip);
}

static int gpu_ops_trace(void *self, int n, const sm_tb_job_t *jobs, const uint8_t *const *q,
			 const uint8_t *const *win, sm_tb_res_t *res, uint32_t *ops)
{
	return sm_gpu_trace_run(((gpu_ops_t *)self)->trace, n, jobs, q, win, res, ops);
}

static int gpu_ops_traces(const void *self)
{
	return ((const gpu_ops_t *)self)->trace != NULL;
}

static void gpu_ops_stats(const void *self, sm_engine_stats_t *st)
{
	const gpu_ops_t *e = self;

	sm_gpu_stats(e->g, st);
	if (e->seed)
		sm_gpu_seed_stats(e->seed, &st->seed_s, &st->seed_reads);
	if (e->trace)
		sm_gpu_trace_stats(e->trace, &st->trace_s, &st->trace_jobs);
}

static void gpu_ops_destroy(void *self)
{
	gpu_ops_t *e = self;

	sm_gpu_seed_destroy(e->seed);
	sm_gpu_trace_destroy(e->trace);
	sm_gpu_destroy(e->g);
	free(e);
}

const sm_engine_ops_t sm_gpu_engine_ops = {
	.create = gpu_ops_create,
	.name = gpu_ops_name,
	.scan = gpu_ops_scan,
	.scan_refs = gpu_ops_scan_refs,
	.seed_start = gpu_ops_seed_start,
	.seed = gpu_ops_seed,
	.trace = gpu_ops_trace,
	.traces = gpu_ops_traces,
	.stats = gpu_ops_stats,
	.destroy = gpu_ops_destroy,
	.reads_src = 1,
};
