/* pipeline.c — reader thread, worker threads, ordered writer (see pipeline.h). */
#include "mapper/pipeline.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "io/fastq.h"
#include "io/ref.h"
#include "io/sam_out.h"
#include "mapper/align.h"
#include "mapper/engine.h"
#include "mapper/log.h"
#include "mapper/record.h"
#include "mapper/scan.h"

/* Batch limits: reads and cells (read length x 2 strands x reference
 * length) of one batch.  A CPU batch is a few seconds of one worker; a GPU
 * batch is larger, since the device wants many queries per call. */
#define SM_BATCH_READS_CPU 256
#define SM_BATCH_CELLS_CPU (1ull << 31)
#define SM_BATCH_READS_GPU SM_BATCH_MAX_READS
#define SM_BATCH_CELLS_GPU (1ull << 40)
#define SM_STRANDS 2
#define SM_GIGA 1e9
/* The writer wakes at least this often to print progress. */
#define SM_WRITER_WAKE_SECONDS 1

typedef struct batch_s {
	int64_t no;              /* batch number, from 0, in input order */
	int n, m;                /* reads used, slots allocated */
	sm_read_t *reads;        /* m slots, buffers reused */
	bam1_t **recs;           /* m records, reused */
	int n_mapped;
	struct batch_s *next;    /* free list or work queue link */
} batch_t;

typedef struct {
	const sm_opt_t *opt;
	const sm_ref_t *ref;
	sm_engine_t *engine;
	sm_fastq_t *fq;
	sm_sam_out_t *out;
	int batch_reads;         /* read limit of one batch */
	uint64_t batch_cells;    /* cell budget of one batch */

	pthread_mutex_t lock;
	pthread_cond_t cond;     /* any change below; waiters re-check */
	batch_t *free_list;
	batch_t *todo_head, *todo_tail;
	batch_t **done;          /* n_slots; a mapped batch waits at done[no % n_slots] */
	int n_slots;             /* batches in circulation */
	int64_t n_read;          /* batches the reader has queued */
	int reader_done;         /* the reader has queued its last batch */
	int failed;              /* someone failed (and logged): everyone stops */
} pipe_t;

/* Per-worker scratch, reused from batch to batch. */
typedef struct {
	sm_query_t *q;           /* 2 per read: forward, reverse complement */
	sm_scan_t *scan;
	uint8_t *codes;
	size_t m_q, m_codes;
	sm_align_ws_t *aws;
	sm_aln_t aln;
	sm_record_ws_t rws;
} worker_ws_t;

static double now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void set_failed(pipe_t *p)
{
	pthread_mutex_lock(&p->lock);
	p->failed = 1;
	pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(&p->lock);
}

/* ---- batches ---- */

static int batch_reserve(batch_t *b, int need)
{
	int m = b->m ? b->m : 1;
	sm_read_t *reads;
	bam1_t **recs;

	if (need <= b->m)
		return 0;
	while (m < need)
		m *= 2;
	if (m > SM_BATCH_MAX_READS)
		m = SM_BATCH_MAX_READS;
	reads = realloc(b->reads, (size_t)m * sizeof *reads);
	if (!reads)
		return -1;
	b->reads = reads;
	recs = realloc(b->recs, (size_t)m * sizeof *recs);
	if (!recs)
		return -1;
	b->recs = recs;
	for (int k = b->m; k < m; k++) {
		memset(&b->reads[k], 0, sizeof b->reads[k]);
		b->recs[k] = bam_init1();
		if (!b->recs[k]) {
			b->m = k;
			return -1;
		}
	}
	b->m = m;
	return 0;
}

static void batch_free(batch_t *b)
{
	for (int k = 0; k < b->m; k++) {
		sm_read_free(&b->reads[k]);
		bam_destroy1(b->recs[k]);
	}
	free(b->reads);
	free(b->recs);
	free(b);
}

/* ---- reader ---- */

/* Fills b from the FASTQ.  Returns 1 with reads, 0 at the end of input
 * (b->n may still be > 0), -1 after logging an error. */
static int fill_batch(pipe_t *p, batch_t *b)
{
	uint64_t cells = 0;
	uint64_t per_base = SM_STRANDS * (uint64_t)p->ref->total;

	b->n = 0;
	while (b->n < p->batch_reads && (b->n == 0 || cells < p->batch_cells)) {
		sm_read_t *r;
		int rc;

		if (batch_reserve(b, b->n + 1) < 0) {
			sm_log(SM_LOG_ERROR, "out of memory reading %s", p->opt->reads_path);
			return -1;
		}
		r = &b->reads[b->n];
		rc = sm_fastq_next(p->fq, r);
		if (rc <= 0)
			return rc;
		if (r->len > p->opt->max_read_len) {
			sm_log(SM_LOG_ERROR, "%s: read %lld '%s' is %d bases long, more than "
			       "--max-read-len %d", sm_fastq_path(p->fq), (long long)r->index + 1,
			       r->name, r->len, p->opt->max_read_len);
			return -1;
		}
		cells += per_base * (uint64_t)r->len;
		b->n++;
	}
	return 1;
}

static void *reader_main(void *arg)
{
	pipe_t *p = arg;

	for (;;) {
		batch_t *b;
		int rc;

		pthread_mutex_lock(&p->lock);
		while (!p->free_list && !p->failed)
			pthread_cond_wait(&p->cond, &p->lock);
		if (p->failed) {
			pthread_mutex_unlock(&p->lock);
			return NULL;
		}
		b = p->free_list;
		p->free_list = b->next;
		pthread_mutex_unlock(&p->lock);

		rc = fill_batch(p, b);

		pthread_mutex_lock(&p->lock);
		if (rc < 0 || b->n == 0) {
			b->next = p->free_list;
			p->free_list = b;
		} else {
			b->no = p->n_read++;
			b->next = NULL;
			if (p->todo_tail)
				p->todo_tail->next = b;
			else
				p->todo_head = b;
			p->todo_tail = b;
		}
		if (rc < 0)
			p->failed = 1;
		if (rc <= 0)
			p->reader_done = 1;
		pthread_cond_broadcast(&p->cond);
		pthread_mutex_unlock(&p->lock);
		if (rc <= 0)
			return NULL;
	}
}

/* ---- workers ---- */

static int ws_reserve(worker_ws_t *ws, size_t n_q, size_t n_codes)
{
	if (n_q > ws->m_q) {
		sm_query_t *q = realloc(ws->q, n_q * sizeof *q);
		sm_scan_t *s;

		if (!q)
			return -1;
		ws->q = q;
		s = realloc(ws->scan, n_q * sizeof *s);
		if (!s)
			return -1;
		ws->scan = s;
		ws->m_q = n_q;
	}
	if (n_codes > ws->m_codes) {
		uint8_t *c = realloc(ws->codes, n_codes);

		if (!c)
			return -1;
		ws->codes = c;
		ws->m_codes = n_codes;
	}
	return 0;
}

/* Base codes of the read (fwd) and of its reverse complement (rev). */
static void encode_read(const sm_read_t *r, uint8_t *fwd, uint8_t *rev)
{
	for (int32_t i = 0; i < r->len; i++) {
		uint8_t c = sm_nt4_table[(unsigned char)r->seq[i]];

		fwd[i] = c;
		rev[r->len - 1 - i] = c < SM_BASE_N ? (uint8_t)(SM_BASE_N - 1 - c) : c;
	}
}

static int map_batch(pipe_t *p, batch_t *b, worker_ws_t *ws)
{
	const sm_score_t *sc = &p->opt->score;
	size_t n_codes = 0, off = 0;

	for (int k = 0; k < b->n; k++)
		n_codes += SM_STRANDS * (size_t)b->reads[k].len;
	if (ws_reserve(ws, SM_STRANDS * (size_t)b->n, n_codes) < 0) {
		sm_log(SM_LOG_ERROR, "out of memory mapping a batch of %d reads", b->n);
		return -1;
	}
	for (int k = 0; k < b->n; k++) {
		const sm_read_t *r = &b->reads[k];
		sm_query_t *q = &ws->q[SM_STRANDS * k];

		q[0].seq = ws->codes + off;
		q[1].seq = ws->codes + off + r->len;
		q[0].len = q[1].len = r->len;
		encode_read(r, ws->codes + off, ws->codes + off + r->len);
		off += SM_STRANDS * (size_t)r->len;
	}
	if (sm_engine_scan(p->engine, SM_STRANDS * b->n, ws->q, ws->scan) < 0)
		return -1;

	b->n_mapped = 0;
	for (int k = 0; k < b->n; k++) {
		const sm_read_t *r = &b->reads[k];
		const sm_scan_t *s = &ws->scan[SM_STRANDS * k];
		sm_hit_t hit;

		sm_hit_choose(&s[0], &s[1], sm_locus_shift(sc, r->len), p->opt->min_score, &hit);
		if (hit.mapped) {
			const sm_query_t *q = &ws->q[SM_STRANDS * k + hit.is_rev];

			if (sm_align(ws->aws, p->ref, sc, q, hit.best.end, hit.best.score,
				     &ws->aln) < 0) {
				sm_log(SM_LOG_ERROR, "%s: read %lld '%s': traceback failed",
				       p->opt->reads_path, (long long)r->index + 1, r->name);
				return -1;
			}
			b->n_mapped++;
		}
		if (sm_record_build(b->recs[k], r, p->ref, sc, &hit, &ws->aln, p->opt->rg_id,
				    &ws->rws) < 0)
			return -1;
	}
	return 0;
}

static void *worker_main(void *arg)
{
	pipe_t *p = arg;
	worker_ws_t ws;

	memset(&ws, 0, sizeof ws);
	ws.aws = sm_align_ws_create();
	if (!ws.aws) {
		sm_log(SM_LOG_ERROR, "out of memory creating a worker");
		set_failed(p);
		return NULL;
	}
	for (;;) {
		batch_t *b;
		int rc;

		pthread_mutex_lock(&p->lock);
		while (!p->todo_head && !p->reader_done && !p->failed)
			pthread_cond_wait(&p->cond, &p->lock);
		if (p->failed || !p->todo_head) {
			pthread_mutex_unlock(&p->lock);
			break;
		}
		b = p->todo_head;
		p->todo_head = b->next;
		if (!p->todo_head)
			p->todo_tail = NULL;
		pthread_mutex_unlock(&p->lock);

		rc = map_batch(p, b, &ws);

		pthread_mutex_lock(&p->lock);
		if (rc < 0) {
			p->failed = 1;
			b->next = p->free_list;
			p->free_list = b;
		} else {
			p->done[b->no % p->n_slots] = b;
		}
		pthread_cond_broadcast(&p->cond);
		pthread_mutex_unlock(&p->lock);
		if (rc < 0)
			break;
	}
	free(ws.q);
	free(ws.scan);
	free(ws.codes);
	sm_align_ws_destroy(ws.aws);
	sm_aln_free(&ws.aln);
	sm_record_ws_free(&ws.rws);
	return NULL;
}

/* ---- writer (the calling thread) ---- */

typedef struct {
	int64_t reads, mapped;
	double t0, last_progress;
} counts_t;

static void progress(const counts_t *c, double now)
{
	double dt = now - c->t0;

	sm_log(SM_LOG_INFO, "%lld reads done, %.1f reads/s", (long long)c->reads,
	       dt > 0 ? (double)c->reads / dt : 0.0);
}

/* Writes batches in order until every batch is written or someone fails.
 * Returns 0 or -1. */
static int writer_loop(pipe_t *p, counts_t *c)
{
	for (int64_t next = 0; ; next++) {
		batch_t *b;
		int slot = (int)(next % p->n_slots), k;

		pthread_mutex_lock(&p->lock);
		for (;;) {
			struct timespec ts;

			if (now_seconds() - c->last_progress >= SM_PROGRESS_SECONDS) {
				c->last_progress = now_seconds();
				progress(c, c->last_progress);
			}
			if (p->failed || (p->reader_done && next == p->n_read) ||
			    (p->done[slot] && p->done[slot]->no == next))
				break;
			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_sec += SM_WRITER_WAKE_SECONDS;
			pthread_cond_timedwait(&p->cond, &p->lock, &ts);
		}
		if (p->failed || !p->done[slot] || p->done[slot]->no != next) {
			int failed = p->failed;

			pthread_mutex_unlock(&p->lock);
			return failed ? -1 : 0;
		}
		b = p->done[slot];
		p->done[slot] = NULL;
		pthread_mutex_unlock(&p->lock);

		for (k = 0; k < b->n; k++)
			if (sm_sam_out_write(p->out, b->recs[k]) < 0)
				break;
		c->reads += b->n;
		c->mapped += b->n_mapped;

		pthread_mutex_lock(&p->lock);
		b->next = p->free_list;
		p->free_list = b;
		if (k < b->n)
			p->failed = 1;
		pthread_cond_broadcast(&p->cond);
		pthread_mutex_unlock(&p->lock);
		if (k < b->n)
			return -1;
	}
}

static void summary(const pipe_t *p, const counts_t *c)
{
	sm_engine_stats_t st;
	double dt = now_seconds() - c->t0;

	sm_engine_stats(p->engine, &st);
	if (dt <= 0)
		dt = 1e-9;
	sm_log(SM_LOG_INFO, "%lld reads, %lld mapped (%.2f%%), %.2f s, %.1f reads/s, "
	       "engine %s, %.3f Gcells/s",
	       (long long)c->reads, (long long)c->mapped,
	       c->reads ? 100.0 * (double)c->mapped / (double)c->reads : 0.0, dt,
	       (double)c->reads / dt, sm_engine_name(p->engine), (double)st.cells / dt / SM_GIGA);
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
			set_failed(p);
			break;
		}
	rc = started == n_workers ? writer_loop(p, c) : -1;
	pthread_join(reader, NULL);
	for (int k = 0; k < started; k++)
		pthread_join(workers[k], NULL);
	free(workers);
	return rc < 0 || p->failed ? -1 : 0;
}

static int pipe_init(pipe_t *p)
{
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->cond, NULL);
	p->n_slots = SM_BATCHES_PER_WORKER * p->opt->n_threads + SM_BATCHES_SPARE;
	p->done = calloc((size_t)p->n_slots, sizeof *p->done);
	if (!p->done)
		return -1;
	for (int k = 0; k < p->n_slots; k++) {
		batch_t *b = calloc(1, sizeof *b);

		if (!b)
			return -1;
		b->next = p->free_list;
		p->free_list = b;
	}
	return 0;
}

static void pipe_destroy(pipe_t *p)
{
	batch_t *b, *next;

	/* After the threads are joined, every batch is on one of these lists. */
	for (b = p->free_list; b; b = next) {
		next = b->next;
		batch_free(b);
	}
	for (b = p->todo_head; b; b = next) {
		next = b->next;
		batch_free(b);
	}
	for (int k = 0; p->done && k < p->n_slots; k++)
		if (p->done[k])
			batch_free(p->done[k]);
	free(p->done);
	pthread_mutex_destroy(&p->lock);
	pthread_cond_destroy(&p->cond);
}

/* 1 if path a names the same existing file as path b. */
static int same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
	       sa.st_ino == sb.st_ino;
}

/* Refuses an output that would truncate one of the inputs before it is read. */
static int check_output_path(const sm_opt_t *o)
{
	if (!o->out_path || strcmp(o->out_path, "-") == 0)
		return 0;
	if (same_file(o->out_path, o->reads_path) || same_file(o->out_path, o->ref_path)) {
		sm_log(SM_LOG_ERROR, "-o %s: the output would overwrite an input file", o->out_path);
		return -1;
	}
	return 0;
}

int sm_map_run(const sm_opt_t *o)
{
	pipe_t p;
	sm_ref_t *ref = NULL;
	sm_engine_opt_t eo;
	sm_sam_out_opt_t so;
	counts_t c;
	int rc = -1;

	memset(&p, 0, sizeof p);
	memset(&c, 0, sizeof c);
	c.t0 = c.last_progress = now_seconds();
	p.opt = o;
	if (check_output_path(o) < 0)
		return -1;
	/* Open the reads first: an unreadable file fails before the (long)
	 * reference load. */
	p.fq = sm_fastq_open(o->reads_path);
	if (!p.fq)
		return -1;
	if (sm_ref_load(o->ref_path, &ref) < 0)
		goto out;
	p.ref = ref;

	memset(&eo, 0, sizeof eo);
	eo.kind = o->engine;
	eo.cells = o->cells;
	eo.max_query_len = o->max_read_len;
	eo.cpu_isa = o->cpu_isa;
	p.engine = sm_engine_create(ref, &o->score, &eo);
	if (!p.engine)
		goto out;
	if (sm_engine_kind(p.engine) == SM_ENGINE_GPU) {
		p.batch_reads = SM_BATCH_READS_GPU;
		p.batch_cells = SM_BATCH_CELLS_GPU;
	} else {
		p.batch_reads = SM_BATCH_READS_CPU;
		p.batch_cells = SM_BATCH_CELLS_CPU;
	}

	memset(&so, 0, sizeof so);
	so.path = o->out_path;
	so.rg_line = o->rg_line;
	so.version = SM_VERSION;
	so.cmdline = o->cmdline;
	p.out = sm_sam_out_open(&so, ref);
	if (!p.out)
		goto out;
	if (pipe_init(&p) < 0) {
		sm_log(SM_LOG_ERROR, "out of memory setting up the pipeline");
		sm_sam_out_abort(p.out);
		goto out;
	}
	if (run_threads(&p, &c) < 0) {
		sm_sam_out_abort(p.out);
		goto out;
	}
	if (sm_sam_out_close(p.out) < 0)
		goto out;
	summary(&p, &c);
	rc = 0;
out:
	if (p.n_slots)
		pipe_destroy(&p);
	sm_engine_destroy(p.engine);
	sm_ref_destroy(ref);
	sm_fastq_close(p.fq);
	return rc;
}
