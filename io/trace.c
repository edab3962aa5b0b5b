/* trace.c — the spans of trace.h: one list per thread, written at the end. */
#include "io/trace.h"

#include "io/clock.h"
#include "io/log.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
	const char *what;
	double t0, t1;
} span_t;

typedef struct thread_spans {
	char name[32];
	span_t *s;
	size_t n, m;
	struct thread_spans *next;
} thread_spans_t;

int sm_trace_on;
static const char *trace_path;
static double trace_t0;
static pthread_mutex_t trace_lock = PTHREAD_MUTEX_INITIALIZER;
static thread_spans_t *trace_threads;
static int trace_unnamed;
static __thread thread_spans_t *mine;

void sm_trace_start(const char *path)
{
	trace_path = path;
	sm_trace_on = trace_path && *trace_path;
	trace_t0 = sm_seconds();
}

/* The calling thread's list, made on first use. */
static thread_spans_t *my_spans(void)
{
	if (!mine && (mine = calloc(1, sizeof *mine))) {
		pthread_mutex_lock(&trace_lock);
		snprintf(mine->name, sizeof mine->name, "thread %d", trace_unnamed++);
		mine->next = trace_threads;
		trace_threads = mine;
		pthread_mutex_unlock(&trace_lock);
	}
	return mine;
}

void sm_trace_thread(const char *name)
{
	thread_spans_t *t;

	if (sm_trace_on && (t = my_spans()))
		snprintf(t->name, sizeof t->name, "%s", name);
}

void sm_trace_span(const char *what, double t0, double t1)
{
	thread_spans_t *t;

	if (!sm_trace_on || !(t = my_spans()))
		return;
	if (t->n == t->m) {
		size_t m = t->m ? 2 * t->m : 4096;
		span_t *s = realloc(t->s, m * sizeof *s);

		if (!s)
			return;  /* a benchmark aid: a short trace, not a failure */
		t->s = s;
		t->m = m;
	}
	t->s[t->n++] = (span_t){ what, t0 - trace_t0, t1 - trace_t0 };
}

void sm_trace_finish(void)
{
	FILE *f;

	if (!sm_trace_on)
		return;
	if (!(f = fopen(trace_path, "w")))
		sm_log(SM_LOG_WARNING, "cannot write the trace to %s", trace_path);
	while (trace_threads) {
		thread_spans_t *t = trace_threads;

		for (size_t k = 0; f && k < t->n; k++)
			fprintf(f, "%s\t%s\t%.6f\t%.6f\n", t->name, t->s[k].what, t->s[k].t0,
				t->s[k].t1);
		trace_threads = t->next;
		free(t->s);
		free(t);
	}
	if (f && fclose(f) != 0)
		sm_log(SM_LOG_WARNING, "cannot write the trace to %s", trace_path);
	mine = NULL;
	sm_trace_on = 0;
}
