/* engine.c — picks and drives a scoring engine (see engine.h). */
#include "mapper/engine.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpu/gpu_engine.h"
#include "io/clock.h"
#include "io/log.h"
#include "mapper/cpu_scan.h"

struct sm_engine_s {
	sm_engine_kind_t kind;
	const sm_ref_t *ref;
	sm_score_t score;
	sm_gpu_t *gpu;
	sm_cpu_engine_t *cpu;
	char name[160];
	pthread_mutex_t lock;    /* guards stats */
	sm_engine_stats_t stats;
};

sm_engine_t *sm_engine_create(const sm_ref_t *ref, const sm_score_t *sc,
			      const sm_engine_opt_t *opt)
{
	sm_engine_t *e = calloc(1, sizeof *e);
	char msg[128];
	sm_engine_kind_t kind = opt->kind;

	if (!e) {
		sm_log(SM_LOG_ERROR, "out of memory creating the engine");
		return NULL;
	}
	e->ref = ref;
	e->score = *sc;
	pthread_mutex_init(&e->lock, NULL);

	if (kind == SM_ENGINE_AUTO || kind == SM_ENGINE_GPU) {
		if (sm_gpu_available(&opt->gpus, msg, sizeof msg)) {
			kind = SM_ENGINE_GPU;
		} else if (kind == SM_ENGINE_GPU || opt->gpus.n > 0) {
			sm_log(SM_LOG_ERROR, "%s: %s", kind == SM_ENGINE_GPU ? "--engine gpu" : "--gpu(s)",
			       msg);
			goto fail;
		} else {
			sm_log(SM_LOG_INFO, "no usable GPU (%s): using the CPU engine", msg);
			kind = SM_ENGINE_CPU;
		}
	}
	e->kind = kind;
	switch (kind) {
	case SM_ENGINE_GPU:
	{
		sm_gpu_opt_t go;

		sm_gpu_opt_init(&go);
		go.gpus = opt->gpus;
		go.cells = opt->cells;
		go.max_query_len = opt->max_query_len;
		go.tune = opt->gpu_tune;
		e->gpu = sm_gpu_create(ref, sc, &go);
		if (!e->gpu)
			goto fail;
	}
		snprintf(e->name, sizeof e->name, "gpu:%s", sm_gpu_name(e->gpu));
		break;
	case SM_ENGINE_CPU: {
		sm_cpu_isa_t isa;

		if (sm_cpu_isa_parse(opt->cpu_isa, &isa) < 0)
			goto fail;
		e->cpu = sm_cpu_engine_create(ref, sc, isa, opt->cells, opt->max_query_len);
		if (!e->cpu)
			goto fail;
		snprintf(e->name, sizeof e->name, "cpu:%s", sm_cpu_isa_name(sm_cpu_engine_isa(e->cpu)));
		break;
	}
	default:
		snprintf(e->name, sizeof e->name, "oracle");
		break;
	}
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
	int rc = 0;

	switch (e->kind) {
	case SM_ENGINE_GPU:
		rc = sm_gpu_scan(e->gpu, n, q, out);  /* counts its own cells */
		st.queries = (uint64_t)n;
		break;
	case SM_ENGINE_CPU:
		rc = sm_cpu_engine_scan(e->cpu, n, q, out, &st);
		break;
	default:
		for (int k = 0; k < n; k++)
			st.cells += sm_scan_oracle(e->ref, &e->score, &q[k], &out[k]);
		st.cells_w[2] = st.cells;
		st.queries = (uint64_t)n;
		break;
	}
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
			const sm_ref_src_t *src, sm_scan_t *out)
{
	switch (e->kind) {
	case SM_ENGINE_GPU:
		return sm_gpu_scan_refs(e->gpu, n, q, refs, src, out);
	case SM_ENGINE_ORACLE:
		for (int k = 0; k < n; k++)
			sm_scan_oracle(refs[k], &e->score, &q[k], &out[k]);
		return 0;
	default:
		sm_log(SM_LOG_ERROR, "the %s engine scans own references per thread (sm_cpu_scan)",
		       e->name);
		return -1;
	}
}

sm_engine_kind_t sm_engine_kind(const sm_engine_t *e) { return e->kind; }
const char *sm_engine_name(const sm_engine_t *e) { return e->name; }

void sm_engine_stats(const sm_engine_t *e, sm_engine_stats_t *st)
{
	pthread_mutex_lock((pthread_mutex_t *)&e->lock);
	*st = e->stats;
	pthread_mutex_unlock((pthread_mutex_t *)&e->lock);
	if (e->gpu)
		sm_gpu_stats(e->gpu, st);
}

void sm_engine_destroy(sm_engine_t *e)
{
	if (!e)
		return;
	sm_gpu_destroy(e->gpu);
	sm_cpu_engine_destroy(e->cpu);
	pthread_mutex_destroy(&e->lock);
	free(e);
}
