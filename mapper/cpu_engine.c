/* cpu_engine.c — the CPU engine behind the engine interface (engine_ops.h):
 * whole-reference and window scans with cpu_scan.h, seeding with seed.h.
 *
 * The scoring is compiled once, at creation, and shared read-only by every
 * thread's workspace.  Each calling thread gets its own state (a scan
 * workspace, and a seeder once it seeds), created on its first call and
 * freed with the engine; no lock is taken after a thread's first call. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/log.h"
#include "mapper/cpu_scan.h"
#include "mapper/seed.h"

/* What one thread uses. */
typedef struct cpu_thread_s {
	sm_cpu_scan_t *ws;
	sm_seeder_t *seeder;        /* NULL until the thread seeds */
	sm_wref_t wref;             /* sm_seed_find's windows */
	struct cpu_thread_s *next;  /* every thread's, freed with the engine */
} cpu_thread_t;

typedef struct {
	const sm_ref_t *ref;
	sm_score_t sc;              /* the scheme (seeding's window margins) */
	sm_cpu_score_t *k;          /* sc in the kernels' form */
	sm_cpu_isa_t isa;           /* resolved: never AUTO */
	sm_cells_t cells;
	int max_query_len;
	const sm_index_t *idx;      /* set by seed_start */
	pthread_key_t key;          /* the calling thread's cpu_thread_t */
	pthread_mutex_t lock;       /* guards `all` (taken once per thread) */
	cpu_thread_t *all;
	char name[32];
} cpu_engine_t;

static void *cpu_create(const sm_ref_t *ref, const sm_score_t *sc, const sm_engine_opt_t *opt)
{
	cpu_engine_t *e;
	sm_cpu_isa_t isa;

	if (sm_cpu_isa_parse(opt->cpu_isa, &isa) < 0)
		return NULL;
	if (isa == SM_CPU_ISA_AUTO)
		isa = sm_cpu_isa_best();
	if (!sm_cpu_isa_supported(isa)) {
		sm_log(SM_LOG_ERROR, "this CPU does not support the '%s' instruction set",
		       sm_cpu_isa_name(isa));
		return NULL;
	}
	if (!(e = calloc(1, sizeof *e))) {
		sm_log(SM_LOG_ERROR, "out of memory for the CPU engine");
		return NULL;
	}
	e->ref = ref;
	e->sc = *sc;
	e->isa = isa;
	e->cells = opt->cells;
	e->max_query_len = opt->max_query_len;
	snprintf(e->name, sizeof e->name, "cpu:%s", sm_cpu_isa_name(isa));
	if (!(e->k = sm_cpu_score_create(sc))) {
		free(e);
		return NULL;
	}
	if (pthread_key_create(&e->key, NULL) != 0) {
		sm_log(SM_LOG_ERROR, "cannot create a thread key for the CPU engine");
		sm_cpu_score_destroy(e->k);
		free(e);
		return NULL;
	}
	if (pthread_mutex_init(&e->lock, NULL) != 0) {
		sm_log(SM_LOG_ERROR, "cannot create a mutex for the CPU engine");
		pthread_key_delete(e->key);
		sm_cpu_score_destroy(e->k);
		free(e);
		return NULL;
	}
	return e;
}

static void thread_free(cpu_thread_t *t)
{
	sm_cpu_scan_destroy(t->ws);
	sm_seeder_destroy(t->seeder);
	sm_wref_free(&t->wref);
	free(t);
}

/* The calling thread's state, created on its first call; NULL (logged)
 * when out of memory. */
static cpu_thread_t *thread_state(cpu_engine_t *e)
{
	cpu_thread_t *t = pthread_getspecific(e->key);

	if (t)
		return t;
	if (!(t = calloc(1, sizeof *t))) {
		sm_log(SM_LOG_ERROR, "out of memory for a CPU workspace");
		return NULL;
	}
	if (!(t->ws = sm_cpu_scan_create(e->isa, e->cells, e->k, e->max_query_len))) {
		free(t);
		return NULL;
	}
	if (pthread_setspecific(e->key, t) != 0) {
		sm_log(SM_LOG_ERROR, "cannot attach a CPU workspace to this thread");
		thread_free(t);
		return NULL;
	}
	pthread_mutex_lock(&e->lock);
	t->next = e->all;
	e->all = t;
	pthread_mutex_unlock(&e->lock);
	return t;
}

static const char *cpu_name(const void *self)
{
	return ((const cpu_engine_t *)self)->name;
}

static int cpu_scan(void *self, int n, const sm_query_t *q, sm_scan_t *out, sm_engine_stats_t *st)
{
	cpu_engine_t *e = self;
	cpu_thread_t *t = thread_state(e);

	if (!t)
		return -1;
	for (int k = 0; k < n; k++)
		if (sm_cpu_scan(t->ws, e->ref, &q[k], &out[k], st) != 0)
			return -1;
	return 0;
}

/* The small references' bases are read in place (src is never given: no
 * reads_src). */
static int cpu_scan_refs(void *self, int n, const sm_query_t *q, const sm_ref_t *const *refs,
			 const sm_ref_src_t *src, sm_scan_t *out, sm_engine_stats_t *st)
{
	cpu_thread_t *t = thread_state(self);

	if (!t)
		return -1;
	for (int k = 0; k < n; k++)
		if (sm_cpu_scan(t->ws, refs[k], &q[k], &out[k], st) != 0)
			return -1;
	return 0;
}

static int cpu_seed_start(void *self, const sm_index_t *idx)
{
	((cpu_engine_t *)self)->idx = idx;
	return 0;
}

/* Read by read with sm_seed_find, which derives each margin from the
 * engine's scoring as margin[] holds it. */
static int cpu_seed(void *self, const sm_seed_opt_t *opt, int n, const uint8_t *const *reads,
		    const int32_t *len, const int64_t *margin, sm_window_t *win, int32_t *n_win,
		    sm_seed_left_t *left, uint8_t *skip)
{
	cpu_engine_t *e = self;
	cpu_thread_t *t = thread_state(e);

	if (!t)
		return -1;
	if (!t->seeder && !(t->seeder = sm_seeder_create())) {
		sm_log(SM_LOG_ERROR, "out of memory for a seeder");
		return -1;
	}
	for (int k = 0; k < n; skip += len[k++]) {
		int nw = sm_seed_find(t->seeder, e->idx, e->ref, &e->sc, opt, reads[k], len[k],
				      &t->wref, &left[k], skip);

		if (nw < 0)
			return -1;
		if (nw > 0)   /* wref.win may be NULL when empty */
			memcpy(win + (int64_t)k * opt->max_windows, t->wref.win,
			       (size_t)nw * sizeof *win);
		n_win[k] = nw;
	}
	return 0;
}

static void cpu_destroy(void *self)
{
	cpu_engine_t *e = self;

	if (!e)
		return;
	pthread_key_delete(e->key);
	pthread_mutex_destroy(&e->lock);
	while (e->all) {
		cpu_thread_t *next = e->all->next;

		thread_free(e->all);
		e->all = next;
	}
	sm_cpu_score_destroy(e->k);
	free(e);
}

const sm_engine_ops_t sm_cpu_engine_ops = {
	.create = cpu_create,
	.name = cpu_name,
	.scan = cpu_scan,
	.scan_refs = cpu_scan_refs,
	.seed_start = cpu_seed_start,
	.seed = cpu_seed,
	.destroy = cpu_destroy,
};
