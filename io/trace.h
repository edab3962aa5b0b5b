/* trace.h — a timeline of where each thread's time goes, for benchmarks.
 *
 * Started with a file name (the CLI passes SCANMAP_TRACE=FILE from the
 * environment), `scanmap map` records spans (what a thread did, from when to
 * when) and writes them to FILE when the run ends, one per line: thread,
 * what, start, end (seconds since the run began).
 * benchmarks/trace_summary.py says how many threads did what over time.
 * Not started, or started with NULL, every call here returns at once. */
#ifndef SM_TRACE_H
#define SM_TRACE_H

#ifdef __cplusplus
extern "C" {
#endif

extern int sm_trace_on;  /* set by sm_trace_start */

/* Starts recording for a trace to be written to `path` (NULL or "": no
 * trace; the string must live until sm_trace_finish).  Call once, before any
 * other thread starts. */
void sm_trace_start(const char *path);
/* Names the calling thread in the trace ("worker 3"). */
void sm_trace_thread(const char *name);
/* Records that the calling thread did `what` (a string literal) from t0 to
 * t1 (sm_seconds). */
void sm_trace_span(const char *what, double t0, double t1);
/* Writes the file and frees the spans; call after every thread ended. */
void sm_trace_finish(void);

#ifdef __cplusplus
}
#endif

#endif
