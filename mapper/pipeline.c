/* pipeline.c — `scanmap map`: a reader thread, -t worker threads and an
 * ordered writer over the mapper's API (scanmap.h), in the manner of bwa's
 * kt_pipeline (see pipeline.h).
 *
 * Who owns what: the reader owns the FASTQ files (reader_t); the queue
 * (queue_t, under its one lock) owns the jobs between the threads; each
 * worker owns its sm_tbuf_t; the writer (the calling thread) owns the
 * output and the counts.  The context is read-only while batches are
 * mapped; the insert-size model is set by one worker while no other maps. */
#include "mapper/pipeline.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "io/clock.h"
#include "io/fastq.h"
#include "io/log.h"
#include "io/sam_out.h"
#include "io/thread.h"
#include "io/trace.h"
#include "mapper/map_impl.h"

/* Batch limits: reads and cells (read length x 2 strands x reference
 * length) of one batch.  A CPU batch is a few seconds of one worker; a GPU
 * batch is larger, since the device wants many queries per call. */
#define SM_BATCH_READS_CPU 256
#define SM_BATCH_CELLS_CPU (1ull << 31)
#define SM_BATCH_READS_GPU SM_BATCH_MAX_READS
#define SM_BATCH_CELLS_GPU (1ull << 40)
#define SM_GIGA 1e9
/* The writer wakes at least this often to print progress. */
#define SM_WRITER_WAKE_SECONDS 1

#include "io/outfile.h"

static const char *const list_name[LIST_N] = { "windows", "second pass", "tandem" };

/* CPU seconds of the calling thread (CLOCK_THREAD_CPUTIME_ID) or of the
 * whole process (CLOCK_PROCESS_CPUTIME_ID): the reader and the writer share
 * two cores with the workers on a small machine, where their wall seconds
 * say little. */
static double cpu_seconds(clockid_t which)
{
	struct timespec ts;

	if (clock_gettime(which, &ts) != 0)
		return 0.0;
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double thread_cpu_seconds(void) { return cpu_seconds(CLOCK_THREAD_CPUTIME_ID); }

/* A batch on its way through the pipeline. */
typedef struct job_s {
	int64_t no;              /* batch number, from 0, in input order */
	sm_batch_t *b;
	int sample;              /* holds pairs of the insert-size sample */
	kstring_t sam;           /* SAM output: the records as text, made by the worker */
	size_t *sam_end;         /* where record k's line ends in sam */
	int m_end;
	struct job_s *next;      /* free list or work queue link */
} job_t;

/* The reader's own state: only the reader thread touches it once the
 * threads run. */
typedef struct {
	sm_fastq_t *fq, *fq2;    /* fq2: R2 of a two-file pair run */
	int paired;
	int max_read_len;
	int batch_reads;         /* read limit of one batch */
	uint64_t batch_cells;    /* cell budget of one batch */
	int64_t batch_bases;     /* -K: bases of one batch at most (0: no limit) */
	uint64_t cells_per_base; /* cells a read base costs (exhaustive mode), else 0 */
	int sample_left;         /* pairs still to read into the insert-size sample */
	int sample_job_pairs;    /* pairs of one sample job */
	double read_s;           /* seconds filling batches */
	double read_cpu;         /* their CPU seconds (the thread's own clock) */
	double read_idle;        /* seconds waiting for a free batch */
} reader_t;

/* Jobs between the threads, and the insert-size sample's progress. */
typedef struct {
	pthread_mutex_t lock;
	/* Three waits, each woken for what it waits for: workers in `work` (a
	 * job queued wakes one of them), the reader in `room` (a job free), the
	 * writer in `out` (a job mapped); a change of state (the end of input,
	 * the insert model, a failure) wakes every one of them (wake_all).  One
	 * condition broadcast for every job queued, mapped or written would
	 * wake all the workers each time, to queue on the lock. */
	pthread_cond_t work, room, out;
	job_t *free_list;
	/* Jobs written once the input is done, not needed again: idle workers
	 * free them (tens of thousands of blocks a batch, ~10 ms on the
	 * writer's thread, where it would hold up the last records). */
	job_t *spent;
	int written;             /* the writer has written its last job (or stopped) */
	job_t *todo_head, *todo_tail;
	job_t **done;            /* n_slots; a mapped job waits at done[no % n_slots] */
	int n_slots;             /* jobs in circulation */
	int64_t n_read;          /* jobs the reader has queued */
	int reader_done;         /* the reader has queued its last job */
	int failed;              /* someone failed (and logged): everyone stops */
	/* Paired runs: the first jobs hold the sample; workers map their reads
	 * one by one, then one worker estimates the model from them, and only
	 * then is any pair resolved. */
	int ins_ready;           /* the model is known (always, unpaired) */
	int sample_final;        /* the reader has queued every sample job */
	int n_sample_jobs;       /* sample jobs queued */
	int n_sample_done;       /* of which mapped read by read, waiting in sample_list */
	int estimating;          /* a worker is estimating the model */
	job_t *sample_list;      /* the mapped sample jobs, in input order */
	/* Workers' totals, added at their exit. */
	sm_map_stats_t st;
	double work_cpu;         /* workers' CPU seconds */
	double work_idle;        /* workers' seconds waiting for a batch */
} queue_t;

typedef struct {
	sm_ctx_t *ctx;
	const sm_opt_t *opt;
	reader_t rd;
	queue_t q;
	sm_sam_out_t *out;
	int sam_text;            /* the workers format SAM (sm_sam_out_format) */
} pipe_t;

/* Wakes every waiting thread (under q->lock): the state changed. */
static void wake_all(queue_t *q)
{
	pthread_cond_broadcast(&q->work);
	pthread_cond_broadcast(&q->room);
	pthread_cond_broadcast(&q->out);
}

static void set_failed(queue_t *q)
{
	pthread_mutex_lock(&q->lock);
	q->failed = 1;
	wake_all(q);
	pthread_mutex_unlock(&q->lock);
}

static void job_free(job_t *j)
{
	sm_batch_destroy(j->b);
	free(j->sam.s);
	free(j->sam_end);
	free(j);
}

/* ---- reader ---- */

/* The name of a pair's read without a trailing "/1" or "/2" (cut in place). */
static void strip_mate_suffix(sm_read_t *r)
{
	size_t l = strlen(r->name);

	if (l > 2 && r->name[l - 2] == '/' && (r->name[l - 1] == '1' || r->name[l - 1] == '2'))
		r->name[l - 2] = '\0';
}

/* Reads one record (paired runs: one pair into r[0], r[1]).  Returns 1, 0
 * at the end of input, -1 after logging an error. */
static int read_unit(reader_t *rd, sm_read_t *r)
{
	sm_fastq_t *f2 = rd->fq2 ? rd->fq2 : rd->fq;
	int rc1, rc2;

	rc1 = sm_fastq_next(rd->fq, &r[0]);
	if (rc1 < 0 || !rd->paired)
		return rc1;
	rc2 = rc1 == 0 && rd->fq2 ? sm_fastq_next(f2, &r[1]) : rc1 == 0 ? 0 : sm_fastq_next(f2, &r[1]);
	if (rc2 < 0)
		return -1;
	if (rc1 != rc2) {
		if (rd->fq2)
			sm_log(SM_LOG_ERROR, "%s has %s reads than %s: read pairs out of sync at "
			       "record %lld", rc1 ? sm_fastq_path(rd->fq2) : sm_fastq_path(rd->fq),
			       "fewer", rc1 ? sm_fastq_path(rd->fq) : sm_fastq_path(rd->fq2),
			       (long long)(rc1 ? r[0].index : r[1].index) + 1);
		else
			sm_log(SM_LOG_ERROR, "%s: odd number of reads in an interleaved (-p) file: "
			       "read %lld '%s' has no mate", sm_fastq_path(rd->fq),
			       (long long)r[0].index + 1, r[0].name);
		return -1;
	}
	if (rc1 == 0)
		return 0;
	strip_mate_suffix(&r[0]);
	strip_mate_suffix(&r[1]);
	if (strcmp(r[0].name, r[1].name) != 0) {
		sm_log(SM_LOG_ERROR, "read pairs out of sync: %s record %lld '%s' and %s record "
		       "%lld '%s' have different names", sm_fastq_path(rd->fq),
		       (long long)r[0].index + 1, r[0].name, sm_fastq_path(f2),
		       (long long)r[1].index + 1, r[1].name);
		return -1;
	}
	return 1;
}

static int read_max_len_check(const reader_t *rd, const sm_read_t *r, int n)
{
	for (int k = 0; k < n; k++)
		if (r[k].len > rd->max_read_len) {
			sm_log(SM_LOG_ERROR, "%s: read %lld '%s' is %d bases long, more than "
			       "--max-read-len %d", k ? sm_fastq_path(rd->fq2 ? rd->fq2 : rd->fq) :
			       sm_fastq_path(rd->fq), (long long)r[k].index + 1, r[k].name,
			       r[k].len, rd->max_read_len);
			return -1;
		}
	return 0;
}

/* Fills job j's batch from the FASTQ: while the insert-size sample is
 * being read, up to sample_job_pairs of its pairs (j->sample set), else up
 * to the batch limits.  Returns 1 with reads, 0 at the end of input (the
 * batch may still hold reads), -1 after logging an error. */
static int fill_job(reader_t *rd, job_t *j)
{
	sm_batch_t *b = j->b;
	uint64_t cells = 0;
	int64_t bases = 0;
	int unit = rd->paired ? SM_STRANDS : 1, limit = rd->batch_reads;

	sm_batch_clear(b);
	j->sample = rd->sample_left > 0;
	if (j->sample)
		limit = SM_STRANDS * (rd->sample_left < rd->sample_job_pairs ? rd->sample_left :
				      rd->sample_job_pairs);
	while (b->n + unit <= limit && (j->sample || b->n == 0 ||
					(cells < rd->batch_cells &&
					 (!rd->batch_bases || bases < rd->batch_bases)))) {
		sm_read_t *r;
		int rc;

		if (sm_batch_reserve(b, b->n + unit) < 0) {
			sm_log(SM_LOG_ERROR, "out of memory reading %s", sm_fastq_path(rd->fq));
			return -1;
		}
		r = &b->reads[b->n];
		rc = read_unit(rd, r);
		if (rc <= 0)
			return rc;
		if (read_max_len_check(rd, r, unit) < 0)
			return -1;
		for (int k = 0; k < unit; k++) {
			cells += rd->cells_per_base * (uint64_t)r[k].len;
			bases += r[k].len;
		}
		b->n += unit;
		if (j->sample)
			rd->sample_left--;
	}
	return 1;
}

static void *reader_main(void *arg)
{
	pipe_t *p = arg;
	reader_t *rd = &p->rd;
	queue_t *q = &p->q;

	sm_thread_name("sm-reader");
	sm_trace_thread("reader");
	for (;;) {
		job_t *j;
		int rc, was_final;
		double t = sm_seconds(), c;

		pthread_mutex_lock(&q->lock);
		while (!q->free_list && !q->failed)
			pthread_cond_wait(&q->room, &q->lock);
		rd->read_idle += sm_seconds() - t;
		if (sm_trace_on)
			sm_trace_span("no free batch", t, sm_seconds());
		if (q->failed) {
			pthread_mutex_unlock(&q->lock);
			return NULL;
		}
		j = q->free_list;
		q->free_list = j->next;
		pthread_mutex_unlock(&q->lock);

		t = sm_seconds();
		c = thread_cpu_seconds();
		rc = fill_job(rd, j);
		rd->read_s += sm_seconds() - t;
		if (sm_trace_on)
			sm_trace_span("read batch", t, sm_seconds());
		rd->read_cpu += thread_cpu_seconds() - c;

		pthread_mutex_lock(&q->lock);
		if (rc < 0 || j->b->n == 0) {
			j->next = q->free_list;
			q->free_list = j;
		} else {
			j->no = q->n_read++;
			j->next = NULL;
			if (q->todo_tail)
				q->todo_tail->next = j;
			else
				q->todo_head = j;
			q->todo_tail = j;
			q->n_sample_jobs += j->sample;
		}
		was_final = q->sample_final;
		if (rd->sample_left == 0 || rc <= 0)
			q->sample_final = 1;
		if (rc < 0)
			q->failed = 1;
		if (rc <= 0)
			q->reader_done = 1;
		if (rc <= 0 || q->sample_final != was_final)
			wake_all(q);
		else
			pthread_cond_signal(&q->work);
		pthread_mutex_unlock(&q->lock);
		if (rc <= 0)
			return NULL;
	}
}

/* ---- workers ---- */

/* SAM output: the batch's records as text in j->sam, so that the writer
 * only copies bytes.  Returns 0 or -1 (logged). */
static int format_job(const pipe_t *p, job_t *j)
{
	kstring_t line = KS_INITIALIZE;
	int n = sm_batch_n_rec(j->b), rc = 0;

	if (n > j->m_end) {
		size_t *e = realloc(j->sam_end, (size_t)n * sizeof *e);

		if (!e) {
			sm_log(SM_LOG_ERROR, "out of memory formatting records");
			return -1;
		}
		j->sam_end = e;
		j->m_end = n;
	}
	j->sam.l = 0;
	for (int k = 0; k < n && rc == 0; k++) {
		rc = sm_sam_out_format(p->out, sm_batch_rec(j->b, k), &j->sam, &line);
		j->sam_end[k] = j->sam.l;
	}
	free(line.s);
	return rc;
}

/* Inserts mapped sample job j into q->sample_list, kept in input order. */
static void sample_list_add(queue_t *q, job_t *j)
{
	job_t **at = &q->sample_list;

	while (*at && (*at)->no < j->no)
		at = &(*at)->next;
	j->next = *at;
	*at = j;
}

/* Estimates the insert-size model from the sample jobs (every one mapped
 * read by read and no other mapping call running), then queues them again,
 * ahead of the rest, to be paired.  Returns 0 or -1 (logged). */
static int estimate_inserts(pipe_t *p)
{
	queue_t *q = &p->q;
	sm_batch_t **b = NULL;
	job_t *j, *last = NULL;
	int n = 0, rc;
	double t = sm_seconds();

	if (q->n_sample_jobs && !(b = malloc((size_t)q->n_sample_jobs * sizeof *b))) {
		sm_log(SM_LOG_ERROR, "out of memory estimating insert sizes");
		return -1;
	}
	for (j = q->sample_list; j; j = j->next)
		b[n++] = j->b;
	rc = sm_ctx_estimate_inserts(p->ctx, b, n);
	free(b);
	sm_log(SM_LOG_DEBUG, "insert sizes estimated in %.2f s", sm_seconds() - t);
	pthread_mutex_lock(&q->lock);
	for (j = q->sample_list; j; j = j->next)
		last = j;
	if (last) {
		last->next = q->todo_head;
		if (!q->todo_head)
			q->todo_tail = last;
		q->todo_head = q->sample_list;
		q->sample_list = NULL;
	}
	q->ins_ready = 1;
	q->estimating = 0;
	if (rc < 0)
		q->failed = 1;
	wake_all(q);
	pthread_mutex_unlock(&q->lock);
	return rc;
}

enum { TAKE_NONE, TAKE_SAMPLE, TAKE_BATCH, TAKE_ESTIMATE };

/* What a worker does next (under q->lock): a sample job to map read by
 * read; the model to estimate once every sample job is; or, once the
 * model is known, the next job.  TAKE_NONE: nothing yet (or ever, when
 * *j is NULL and the queue is done: see worker_main). */
static int take(queue_t *q, job_t **j)
{
	*j = q->todo_head;
	if (*j && (*j)->sample && !(*j)->b->premapped)
		return TAKE_SAMPLE;
	if (!q->ins_ready) {
		*j = NULL;
		if (q->sample_final && q->n_sample_done == q->n_sample_jobs && !q->estimating)
			return TAKE_ESTIMATE;
		return TAKE_NONE;
	}
	return *j ? TAKE_BATCH : TAKE_NONE;
}

static void *worker_main(void *arg)
{
	pipe_t *p = arg;
	queue_t *q = &p->q;
	sm_tbuf_t *buf;
	double idle = 0;

	sm_thread_name("sm-worker");
	if (sm_trace_on) {
		static int named;
		char name[32];

		snprintf(name, sizeof name, "worker %d", __atomic_fetch_add(&named, 1, __ATOMIC_RELAXED));
		sm_trace_thread(name);
	}
	if (!(buf = sm_tbuf_create(p->ctx))) {
		set_failed(q);
		return NULL;
	}
	for (;;) {
		job_t *j;
		int rc, what = TAKE_NONE;
		double t = sm_seconds();

		pthread_mutex_lock(&q->lock);
		while (!q->failed && (what = take(q, &j)) == TAKE_NONE && !q->spent &&
		       !(q->reader_done && !q->todo_head && q->ins_ready && q->written))
			pthread_cond_wait(&q->work, &q->lock);
		idle += sm_seconds() - t;
		if (sm_trace_on)
			sm_trace_span("no batch", t, sm_seconds());
		if (!q->failed && what == TAKE_NONE && q->spent) {
			j = q->spent;
			q->spent = j->next;
			pthread_mutex_unlock(&q->lock);
			t = sm_seconds();
			job_free(j);
			if (sm_trace_on)
				sm_trace_span("free batch", t, sm_seconds());
			continue;
		}
		if (q->failed || what == TAKE_NONE) {
			pthread_mutex_unlock(&q->lock);
			break;
		}
		if (what == TAKE_ESTIMATE) {
			q->estimating = 1;
			pthread_mutex_unlock(&q->lock);
			if (estimate_inserts(p) < 0)
				break;
			continue;
		}
		q->todo_head = j->next;
		if (!q->todo_head)
			q->todo_tail = NULL;
		pthread_mutex_unlock(&q->lock);

		if (what == TAKE_SAMPLE) {
			rc = sm_map_batch(p->ctx, buf, j->b, SM_MAP_READS_ONLY);
		} else {
			rc = sm_map_batch(p->ctx, buf, j->b, 0);
			if (rc == 0 && p->sam_text) {
				t = sm_seconds();   /* sm_map_batch timed its own phases */
				rc = format_job(p, j);
				sm_ph_add(buf, PH_FORMAT, &t);
			}
		}

		pthread_mutex_lock(&q->lock);
		if (rc < 0) {
			q->failed = 1;
			j->next = q->free_list;
			q->free_list = j;
		} else if (what == TAKE_SAMPLE) {
			sample_list_add(q, j);
			q->n_sample_done++;
		} else {
			q->done[j->no % q->n_slots] = j;
		}
		/* A sample job done may let a worker estimate the model. */
		if (rc < 0 || what == TAKE_SAMPLE)
			wake_all(q);
		else
			pthread_cond_signal(&q->out);
		pthread_mutex_unlock(&q->lock);
		if (rc < 0)
			break;
	}
	pthread_mutex_lock(&q->lock);
	sm_tbuf_stats_add(buf, &q->st);
	q->work_idle += idle;
	q->work_cpu += thread_cpu_seconds();
	pthread_mutex_unlock(&q->lock);
	sm_tbuf_destroy(buf);
	return NULL;
}

/* ---- writer (the calling thread) ---- */

typedef struct {
	int64_t reads, mapped, proper;
	uint64_t seed_cells;
	double t0, last_progress;
	double write_s;          /* the writer's seconds writing records */
	double write_cpu;        /* its CPU seconds */
} counts_t;

static void progress(const counts_t *c, double now)
{
	double dt = now - c->t0;

	sm_log(SM_LOG_INFO, "%lld reads done, %.1f reads/s", (long long)c->reads,
	       dt > 0 ? (double)c->reads / dt : 0.0);
}

/* Writes jobs in order until every job is written or someone fails.
 * Returns 0 or -1. */
static int writer_loop(pipe_t *p, counts_t *c)
{
	queue_t *q = &p->q;

	for (int64_t next = 0; ; next++) {
		job_t *j;
		const sm_batch_t *b;
		int slot = (int)(next % q->n_slots), k, n_rec, failed, release;
		double t, cpu;

		pthread_mutex_lock(&q->lock);
		for (;;) {
			struct timespec ts;

			if (sm_seconds() - c->last_progress >= SM_PROGRESS_SECONDS) {
				c->last_progress = sm_seconds();
				progress(c, c->last_progress);
			}
			if (q->failed || (q->reader_done && next == q->n_read) ||
			    (q->done[slot] && q->done[slot]->no == next))
				break;
			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_sec += SM_WRITER_WAKE_SECONDS;
			pthread_cond_timedwait(&q->out, &q->lock, &ts);
		}
		if (q->failed || !q->done[slot] || q->done[slot]->no != next) {
			int failed = q->failed;

			pthread_mutex_unlock(&q->lock);
			return failed ? -1 : 0;
		}
		j = q->done[slot];
		q->done[slot] = NULL;
		pthread_mutex_unlock(&q->lock);

		b = j->b;
		n_rec = sm_batch_n_rec(b);
		t = sm_seconds();
		cpu = thread_cpu_seconds();
		if (p->sam_text) {
			/* One write per record, as sam_write1() does: a failure
			 * names the same record. */
			for (k = 0; k < n_rec; k++) {
				size_t from = k ? j->sam_end[k - 1] : 0;

				if (sm_sam_out_write_text(p->out, j->sam.s + from, j->sam_end[k] - from,
							  sm_batch_rec(b, k)) < 0)
					break;
			}
		} else {
			for (k = 0; k < n_rec; k++)
				if (sm_sam_out_write(p->out, sm_batch_rec(b, k)) < 0)
					break;
		}
		c->write_s += sm_seconds() - t;
		if (sm_trace_on)
			sm_trace_span("write batch", t, sm_seconds());
		c->write_cpu += thread_cpu_seconds() - cpu;
		c->reads += b->n;
		c->mapped += b->n_mapped;
		c->proper += b->n_proper;
		c->seed_cells += b->seed_cells;

		/* Once the reader is done, a written job is not needed again:
		 * an idle worker frees it (q->spent), while the others map the
		 * last batches and the writer writes on; the set-down is spared
		 * its millions of small blocks.  A process that exits after the
		 * run frees none (exits_after): the exit reclaims them at once,
		 * where freeing them took the idle workers ~7% of a two-GPU
		 * run's CPU, blocks allocated by other threads. */
		failed = k < n_rec;
		pthread_mutex_lock(&q->lock);
		release = q->reader_done && !failed && !p->opt->exits_after;
		if (release) {
			j->next = q->spent;
			q->spent = j;
			pthread_cond_signal(&q->work);
		} else {
			j->next = q->free_list;
			q->free_list = j;
		}
		if (failed) {
			q->failed = 1;
			wake_all(q);
		} else {
			pthread_cond_signal(&q->room);
		}
		pthread_mutex_unlock(&q->lock);
		if (failed)
			return -1;
	}
}

static void summary(const pipe_t *p, const counts_t *c)
{
	const sm_ctx_t *ctx = p->ctx;
	const queue_t *q = &p->q;
	const sm_map_stats_t *st = &q->st;
	sm_engine_stats_t es;
	double dt = sm_seconds() - c->t0;

	sm_engine_stats(ctx->engine, &es);
	if (dt <= 0)
		dt = 1e-9;
	sm_log(SM_LOG_INFO, "%lld reads, %lld mapped (%.2f%%), %.2f s, %.1f reads/s, "
	       "mode %s, engine %s, %.3f Gcells/s, peak memory %.1f MiB",
	       (long long)c->reads, (long long)c->mapped,
	       c->reads ? 100.0 * (double)c->mapped / (double)c->reads : 0.0, dt,
	       (double)c->reads / dt, ctx->seeded ? "seeded" : "exhaustive",
	       sm_ctx_engine_name(ctx), (double)(es.cells + c->seed_cells) / dt / SM_GIGA,
	       sm_peak_mib());
	if (ctx->paired)
		sm_log(SM_LOG_INFO, "%lld reads in proper pairs (%.2f%%)", (long long)c->proper,
		       c->reads ? 100.0 * (double)c->proper / (double)c->reads : 0.0);
	if (sm_log_get_level() >= SM_LOG_DEBUG) {
		char line[512];
		int at = 0;

		for (int k = 0; k < PH_N && at < (int)sizeof line; k++)
			at += snprintf(line + at, sizeof line - (size_t)at, "%s%s %.2f", k ? ", " : "",
				       sm_ph_name[k], st->ph[k]);
		char parse[64];

		snprintf(parse, sizeof parse, p->rd.fq2 ? "%.2f + %.2f" : "%.2f",
			 sm_fastq_parse_cpu(p->rd.fq), p->rd.fq2 ? sm_fastq_parse_cpu(p->rd.fq2) : 0.0);
		sm_log(SM_LOG_DEBUG, "seconds: workers (summed) %s; reader %.2f (CPU %.2f; parsing "
		       "threads' CPU %s); writer %.2f (CPU %.2f); wall %.2f", line, p->rd.read_s,
		       p->rd.read_cpu, parse, c->write_s, c->write_cpu, dt);
		sm_log(SM_LOG_DEBUG, "threads: workers' CPU %.2f s, waiting for a batch %.2f s "
		       "(summed); reader waiting for a free batch %.2f s; process CPU %.2f s",
		       q->work_cpu, q->work_idle, p->rd.read_idle,
		       cpu_seconds(CLOCK_PROCESS_CPUTIME_ID));
		at = 0;
		for (int k = 0; k < LIST_N && at < (int)sizeof line; k++)
			at += snprintf(line + at, sizeof line - (size_t)at, "%s%s %lld, %lld, %.0f",
				       k ? "; " : "", list_name[k], (long long)st->list_n[k],
				       (long long)st->list_jobs[k], st->list_jobs[k] ?
				       (double)st->list_cols[k] / (double)st->list_jobs[k] : 0.0);
		if (ctx->seeded)
			sm_log(SM_LOG_DEBUG, "scan lists (runs, jobs, reference columns per job): %s",
			       line);
		if (st->completed)
			sm_log(SM_LOG_DEBUG, "completion pass: %lld reads, %lld of them without a "
			       "window to add (not scanned again); %lld later rounds; %lld hits "
			       "collected, %lld passes run again with every k-mer",
			       (long long)st->completed, (long long)st->completed_same,
			       (long long)st->completed_more, (long long)st->completed_hits,
			       (long long)st->completed_again);
		if (st->neighboured)
			sm_log(SM_LOG_DEBUG, "neighbour pass: %lld reads, %lld hits collected, %lld "
			       "reads with a better locus", (long long)st->neighboured,
			       (long long)st->neighbour_hits, (long long)st->neighbour_better);
		if (st->cut)
			sm_log(SM_LOG_DEBUG, "read-through: %lld reads cut to their fragment, %lld of them "
			       "mapped again whole", (long long)st->cut, (long long)st->uncut);
		if (st->mated)
			sm_log(SM_LOG_DEBUG, "mate pass: %lld reads scanned at their mate's locus, %lld "
			       "with a better best there", (long long)st->mated,
			       (long long)st->mate_better);
		if (st->refined)
			sm_log(SM_LOG_DEBUG, "refined completion: %lld reads, %lld of them settled",
			       (long long)st->refined, (long long)st->refined_sure);
		if (st->copied)
			sm_log(SM_LOG_DEBUG, "copies pass: %lld reads, %lld loci a few substitutions away "
			       "found, %lld reads with a better locus", (long long)st->copied,
			       (long long)st->copies_found, (long long)st->copy_better);
		if (st->tie_reads)
			sm_log(SM_LOG_DEBUG, "more ties: %lld reads with a strand's list full of ties, "
			       "%lld windows scanned alone, %lld tied loci added", (long long)st->tie_reads,
			       (long long)st->tie_scans, (long long)st->tie_added);
		if (st->aln.calls) {
			int64_t fills = st->aln.calls - st->aln.ungapped;

			sm_log(SM_LOG_DEBUG, "tracebacks: %lld, %.1f%% without a fill (no room for "
			       "a gap); fills %.0f band cells each, %.1f%% with a band of 1-3 "
			       "diagonals", (long long)st->aln.calls,
			       100.0 * (double)st->aln.ungapped / (double)st->aln.calls,
			       fills ? (double)st->aln.cells / (double)fills : 0.0,
			       fills ? 100.0 * (double)st->aln.narrow / (double)fills : 0.0);
			sm_log(SM_LOG_DEBUG, "band fills by instruction set: scalar %lld, sse41 %lld, "
			       "avx2 %lld, avx512 %lld; by the engine %lld",
			       (long long)st->aln.fills[SM_CPU_ISA_SCALAR],
			       (long long)st->aln.fills[SM_CPU_ISA_SSE41],
			       (long long)st->aln.fills[SM_CPU_ISA_AVX2],
			       (long long)st->aln.fills[SM_CPU_ISA_AVX512], (long long)st->aln.batched);
		}
		if (sm_engine_kind(ctx->engine) == SM_ENGINE_GPU)
			sm_log(SM_LOG_DEBUG, "GPU (summed over calls): scans %llu calls, %.2f s waiting "
			       "for a slot, %.2f s in one (kernels %.2f); seeding %lld reads, %.2f s; "
			       "tracebacks %lld, %.2f s", (unsigned long long)es.calls, es.wait_s,
			       es.call_s, es.kernel_s, (long long)es.seed_reads, es.seed_s,
			       (long long)es.trace_jobs, es.trace_s);
	}
}

/* Starts the reader and the workers, runs the writer, joins them all. */
static int run_threads(pipe_t *p, counts_t *c)
{
	int n_workers = p->opt->n_threads, started = 0, rc;
	pthread_t reader, *workers = calloc((size_t)n_workers, sizeof *workers);

	if (!workers) {
		sm_log(SM_LOG_ERROR, "out of memory starting threads");
		return -1;
	}
	if (pthread_create(&reader, NULL, reader_main, p) != 0) {
		sm_log(SM_LOG_ERROR, "cannot start the reader thread");
		free(workers);
		return -1;
	}
	for (; started < n_workers; started++)
		if (pthread_create(&workers[started], NULL, worker_main, p) != 0) {
			sm_log(SM_LOG_ERROR, "cannot start worker thread %d", started + 1);
			set_failed(&p->q);
			break;
		}
	sm_trace_thread("writer");
	rc = started == n_workers ? writer_loop(p, c) : -1;
	/* The workers free the last jobs written, then leave. */
	pthread_mutex_lock(&p->q.lock);
	p->q.written = 1;
	wake_all(&p->q);
	pthread_mutex_unlock(&p->q.lock);
	pthread_join(reader, NULL);
	for (int k = 0; k < started; k++)
		pthread_join(workers[k], NULL);
	free(workers);
	return rc < 0 || p->q.failed ? -1 : 0;
}

static int queue_init(queue_t *q, int n_threads, int sample)
{
	pthread_mutex_init(&q->lock, NULL);
	pthread_cond_init(&q->work, NULL);
	pthread_cond_init(&q->room, NULL);
	pthread_cond_init(&q->out, NULL);
	q->ins_ready = !sample;
	q->n_slots = SM_BATCHES_PER_WORKER * n_threads + SM_BATCHES_SPARE;
	q->done = calloc((size_t)q->n_slots, sizeof *q->done);
	if (!q->done)
		return -1;
	for (int k = 0; k < q->n_slots; k++) {
		job_t *j = calloc(1, sizeof *j);

		if (!j || !(j->b = sm_batch_create())) {
			free(j);
			return -1;
		}
		j->next = q->free_list;
		q->free_list = j;
	}
	return 0;
}

static void queue_destroy(queue_t *q)
{
	job_t *j, *next;
	job_t *lists[] = { q->free_list, q->spent, q->todo_head, q->sample_list };

	/* After the threads are joined, every job is on one of these lists. */
	for (int l = 0; l < (int)(sizeof lists / sizeof lists[0]); l++)
		for (j = lists[l]; j; j = next) {
			next = j->next;
			job_free(j);
		}
	for (int k = 0; q->done && k < q->n_slots; k++)
		if (q->done[k])
			job_free(q->done[k]);
	free(q->done);
	pthread_mutex_destroy(&q->lock);
	pthread_cond_destroy(&q->work);
	pthread_cond_destroy(&q->room);
	pthread_cond_destroy(&q->out);
}

/* ---- setup ---- */

/* Refuses an output that is one of the inputs: reference, reads, mates or
 * the index REF.smi that seeded mode would load (io/outfile.h). */
static int check_output_path(const sm_opt_t *o)
{
	char *index = sm_index_path(o->ref_path);
	const char *inputs[] = { o->ref_path, o->reads_path, o->mates_path, index };
	int rc;

	if (!index)
		return -1;
	rc = sm_outfile_check_inputs("-o", o->out_path, inputs, (int)(sizeof inputs / sizeof *inputs));
	free(index);
	return rc;
}

int sm_map_run(const sm_opt_t *o)
{
	pipe_t p;
	sm_mapopt_t mo;
	reader_t *rd = &p.rd;
	sm_sam_out_opt_t so;
	counts_t c;
	double t;
	int rc = -1, queued = 0;

	memset(&p, 0, sizeof p);
	memset(&c, 0, sizeof c);
	sm_trace_start(o->trace_path);
	c.t0 = c.last_progress = sm_seconds();
	p.opt = o;
	if (check_output_path(o) < 0)
		return -1;
	/* Open the reads first: an unreadable file fails before the (long)
	 * reference load. */
	rd->fq = sm_fastq_open(o->reads_path);
	if (!rd->fq)
		return -1;
	rd->paired = o->mates_path || o->interleaved;
	if (o->mates_path && !(rd->fq2 = sm_fastq_open(o->mates_path)))
		goto out;
	/* Each file parses on a thread of its own, from now on (during the
	 * set-up too): the reader thread then only fills batches, and one
	 * parser would limit a run with several GPUs. */
	if (sm_fastq_ahead(rd->fq) < 0 || (rd->fq2 && sm_fastq_ahead(rd->fq2) < 0))
		goto out;
	mo = o->map;
	mo.rg_id = o->rg_id;
	mo.paired = rd->paired;
	mo.n_threads = o->n_threads;
	if (!(p.ctx = sm_ctx_create(o->ref_path, &mo)))
		goto out;
	rd->max_read_len = mo.max_read_len;
	if (sm_engine_kind(p.ctx->engine) == SM_ENGINE_GPU) {
		rd->batch_reads = SM_BATCH_READS_GPU;
		rd->batch_cells = SM_BATCH_CELLS_GPU;
	} else {
		rd->batch_reads = SM_BATCH_READS_CPU;
		rd->batch_cells = SM_BATCH_CELLS_CPU;
	}
	rd->batch_reads -= rd->batch_reads % SM_STRANDS;
	rd->batch_bases = o->batch_bases;
	rd->cells_per_base = p.ctx->seeded ? 0 : SM_STRANDS * (uint64_t)p.ctx->ref->total;
	/* A fixed model (-I) needs no sample.  The sample is cut into one job
	 * per worker, so that all of them map it. */
	if (rd->paired && o->insert.set &&
	    sm_ctx_set_inserts(p.ctx, o->insert.mean, o->insert.sd, o->insert.min,
			       o->insert.max) < 0)
		goto out;
	if (p.ctx->pairing && !o->insert.set) {
		rd->sample_left = SM_INSERT_SAMPLE_PAIRS;
		rd->sample_job_pairs = (SM_INSERT_SAMPLE_PAIRS + o->n_threads - 1) / o->n_threads;
	}

	memset(&so, 0, sizeof so);
	so.path = o->out_path;
	so.rg_line = o->rg_line;
	so.hdr_lines = o->hdr_lines;
	so.version = SM_VERSION;
	so.cmdline = o->cmdline;
	so.threads = o->n_threads;
	so.level = o->out_level;
	p.out = sm_sam_out_open(&so, p.ctx->ref);
	if (!p.out)
		goto out;
	p.sam_text = sm_sam_out_is_text(p.out);
	queued = 1;
	if (queue_init(&p.q, o->n_threads, rd->sample_left > 0) < 0) {
		sm_log(SM_LOG_ERROR, "out of memory setting up the pipeline");
		sm_sam_out_abort(p.out);
		goto out;
	}
	sm_log(SM_LOG_INFO, "set-up: %.2f s (reference, index and engine ready)",
	       sm_seconds() - c.t0);
	if (sm_trace_on)
		sm_trace_span("set-up", c.t0, sm_seconds());
	if (run_threads(&p, &c) < 0) {
		sm_sam_out_abort(p.out);
		goto out;
	}
	if (sm_sam_out_close(p.out) < 0)
		goto out;
	summary(&p, &c);
	rc = 0;
out:
	t = sm_seconds();
	/* A successful run of a process that exits next leaves its jobs,
	 * engine and index to the exit (sm_opt_t.exits_after); the reads'
	 * files are closed (their threads joined) either way. */
	if (rc < 0 || !o->exits_after) {
		if (queued)
			queue_destroy(&p.q);
		sm_ctx_destroy(p.ctx);
	}
	sm_fastq_close(rd->fq);
	if (rd->fq2)
		sm_fastq_close(rd->fq2);
	sm_log(SM_LOG_DEBUG, "set-down: %.2f s", sm_seconds() - t);
	sm_trace_finish();
	return rc;
}
