/* engine.c — picks an engine and drives it through its entry points
 * (engine.h, engine_ops.h); the oracle engine. */
#include "mapper/engine.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/gpu_engine.h"
#include "io/clock.h"
#include "io/log.h"
#include "mapper/cpu_scan.h"

struct sm_engine_s {
	sm_engine_kind_t kind;
	const sm_engine_ops_t *ops;
	void *self;              /* the engine's state (ops->create) */
	int seeding;             /* sm_engine_seed_start succeeded */
	pthread_mutex_t lock;    /* guards stats */
	sm_engine_stats_t stats; /* the whole-reference scans (sm_engine_scan) */
};

/* ---- the oracle: scan.h's recurrence behind the interface ---- */

typedef struct {
	const sm_ref_t *ref;
	sm_score_t sc;
} oracle_t;

static void *oracle_create(const sm_ref_t *ref, const sm_score_t *sc, const sm_engine_opt_t *opt)
{
	oracle_t *o = malloc(sizeof *o);

	if (!o) {
		sm_log(SM_LOG_ERROR, "out of memory creating the oracle engine");
		return NULL;
	}
	o->ref = ref;
	o->sc = *sc;
	return o;
}

static const char *oracle_name(const void *self) { return "oracle"; }

static int oracle_scan(void *self, int n, const sm_query_t *q, sm_scan_t *out,
		       sm_engine_stats_t *st)
{
	const oracle_t *o = self;

	for (int k = 0; k < n; k++) {
		uint64_t cells = sm_scan_oracle(o->ref, &o->sc, &q[k], &out[k]);

		st->cells += cells;
		st->cells_w[2] += cells;
	}
	st->queries += (uint64_t)n;
	return 0;
}

static int oracle_scan_refs(void *self, int n, const sm_query_t *q, const sm_ref_t *const *refs,
			    const sm_ref_src_t *src, sm_scan_t *out, sm_engine_stats_t *st)
{
	const oracle_t *o = self;

	for (int k = 0; k < n; k++)
		st->cells += sm_scan_oracle(refs[k], &o->sc, &q[k], &out[k]);
	st->queries += (uint64_t)n;
	return 0;
}

/* Batched tracebacks (trace_band.h's sm_tb_run, whose cells the GPU's
 * equal), on this thread:
 * so that the mapper's batched path (map.c's trace_batch) runs, and is
 * compared with the CPU engine's records, on machines without a GPU. */
static int oracle_trace(void *self, int n, const sm_tb_job_t *jobs, const uint8_t *const *q,
			const uint8_t *const *win, sm_tb_res_t *res, uint32_t *ops)
{
	const sm_tb_score_t ts = sm_tb_score(&((const oracle_t *)self)->sc);

	for (int k = 0; k < n; k++) {
		const size_t S = (size_t)sm_tb_stride(&jobs[k]);
		int32_t *row = malloc(2 * S * sizeof *row);
		uint8_t *dir = malloc((size_t)jobs[k].n * S);

		if (!row || !dir) {
			free(row);
			free(dir);
			sm_log(SM_LOG_ERROR, "out of memory tracing a read of %d bases", jobs[k].n);
			return -1;
		}
		sm_tb_run(&jobs[k], &ts, q[k], win[k], row, row + S, dir, S,
			  ops + (size_t)k * SM_TB_MAX_OPS, &res[k]);
		free(row);
		free(dir);
	}
	return 0;
}

static int oracle_traces(const void *self) { return 1; }

static void oracle_destroy(void *self) { free(self); }

static const sm_engine_ops_t oracle_ops = {
	.create = oracle_create,
	.name = oracle_name,
	.scan = oracle_scan,
	.scan_refs = oracle_scan_refs,
	.trace = oracle_trace,
	.traces = oracle_traces,
	.destroy = oracle_destroy,
};

/* ---- the front ---- */

sm_engine_t *sm_engine_create(const sm_ref_t *ref, const sm_score_t *sc,
			      const sm_engine_opt_t *opt)
{
	sm_engine_t *e = calloc(1, sizeof *e);
	sm_engine_opt_t o = *opt;
	char msg[128];

	if (!e) {
		sm_log(SM_LOG_ERROR, "out of memory creating the engine");
		return NULL;
	}
	pthread_mutex_init(&e->lock, NULL);
	if (o.kind == SM_ENGINE_AUTO || o.kind == SM_ENGINE_GPU) {
		if (sm_gpu_available(&o.gpus, msg, sizeof msg)) {
			o.kind = SM_ENGINE_GPU;
		} else if (o.kind == SM_ENGINE_GPU || o.gpus.n > 0) {
			sm_log(SM_LOG_ERROR, "%s: %s", o.kind == SM_ENGINE_GPU ? "--engine gpu" : "--gpu(s)",
			       msg);
			goto fail;
		} else {
			sm_log(SM_LOG_INFO, "no usable GPU (%s): using the CPU engine", msg);
			o.kind = SM_ENGINE_CPU;
		}
	}
	e->kind = o.kind;
	e->ops = o.kind == SM_ENGINE_GPU ? &sm_gpu_engine_ops :
		 o.kind == SM_ENGINE_CPU ? &sm_cpu_engine_ops : &oracle_ops;
	if (!(e->self = e->ops->create(ref, sc, &o)))
		goto fail;
	return e;
fail:
	pthread_mutex_destroy(&e->lock);
	free(e);
	return NULL;
}

int sm_engine_scan(sm_engine_t *e, int n, const sm_query_t *q, sm_scan_t *out)
{
	double t0 = sm_seconds();
	sm_engine_stats_t st = { 0 };
	int rc = e->ops->scan(e->self, n, q, out, &st);

	pthread_mutex_lock(&e->lock);
	e->stats.cells += st.cells;
	for (int w = 0; w < 3; w++)
		e->stats.cells_w[w] += st.cells_w[w];
	e->stats.queries += st.queries;
	e->stats.seconds += sm_seconds() - t0;
	pthread_mutex_unlock(&e->lock);
	return rc;
}

int sm_engine_scan_refs(sm_engine_t *e, int n, const sm_query_t *q, const sm_ref_t *const *refs,
			const sm_ref_src_t *src, sm_scan_t *out, sm_engine_stats_t *st)
{
	if (src && !e->ops->reads_src) {
		sm_log(SM_LOG_ERROR, "internal: the %s engine has no copy of the reference to read "
		       "spans from (a list of spans needs the GPU engine)", sm_engine_name(e));
		return -1;
	}
	return e->ops->scan_refs(e->self, n, q, refs, src, out, st);
}

int sm_engine_reads_src(const sm_engine_t *e) { return e->ops->reads_src; }

int sm_engine_seed_start(sm_engine_t *e, const sm_index_t *idx)
{
	if (!e->ops->seed_start)
		return 1;
	if (e->ops->seed_start(e->self, idx) < 0)
		return -1;
	e->seeding = 1;
	return 0;
}

int sm_engine_seed(sm_engine_t *e, const sm_seed_opt_t *opt, int n, const uint8_t *const *reads,
		   const int32_t *len, const int64_t *margin, sm_window_t *win, int32_t *n_win,
		   sm_seed_left_t *left, uint8_t *skip)
{
	if (!e->seeding) {
		sm_log(SM_LOG_ERROR, "internal: the %s engine was not given an index to seed with",
		       sm_engine_name(e));
		return -1;
	}
	return e->ops->seed(e->self, opt, n, reads, len, margin, win, n_win, left, skip);
}

int sm_engine_traces(const sm_engine_t *e)
{
	return e->ops->trace && e->ops->traces(e->self);
}

int sm_engine_trace(sm_engine_t *e, int n, const sm_tb_job_t *jobs, const uint8_t *const *q,
		    const uint8_t *const *win, sm_tb_res_t *res, uint32_t *ops)
{
	if (!sm_engine_traces(e)) {
		sm_log(SM_LOG_ERROR, "internal: the %s engine runs no tracebacks", sm_engine_name(e));
		return -1;
	}
	return e->ops->trace(e->self, n, jobs, q, win, res, ops);
}

sm_engine_kind_t sm_engine_kind(const sm_engine_t *e) { return e->kind; }
const char *sm_engine_name(const sm_engine_t *e) { return e->ops->name(e->self); }

void sm_engine_stats(const sm_engine_t *e, sm_engine_stats_t *st)
{
	pthread_mutex_lock((pthread_mutex_t *)&e->lock);
	*st = e->stats;
	pthread_mutex_unlock((pthread_mutex_t *)&e->lock);
	if (e->ops->stats)
		e->ops->stats(e->self, st);
}

void sm_engine_destroy(sm_engine_t *e)
{
	if (!e)
		return;
	e->ops->destroy(e->self);
	pthread_mutex_destroy(&e->lock);
	free(e);
}
