/* pipeline.c — reader thread, worker threads, ordered writer (see pipeline.h). */
#include "mapper/pipe_impl.h"
#include "mapper/split.h"

#include <errno.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

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
	res_t *res;

	if (need <= b->m)
		return 0;
	while (m < need)
		m *= 2;
	reads = realloc(b->reads, (size_t)m * sizeof *reads);
	if (!reads)
		return -1;
	b->reads = reads;
	res = realloc(b->res, (size_t)m * sizeof *res);
	if (!res)
		return -1;
	b->res = res;
	memset(b->reads + b->m, 0, (size_t)(m - b->m) * sizeof *reads);
	memset(b->res + b->m, 0, (size_t)(m - b->m) * sizeof *res);
	b->m = m;
	return 0;
}

/* The next record slot of b (allocated on first use), or NULL. */
bam1_t *sm_batch_rec(batch_t *b)
{
	if (b->n_rec == b->m_rec) {
		int m = b->m_rec ? 2 * b->m_rec : 64;
		bam1_t **recs = realloc(b->recs, (size_t)m * sizeof *recs);
		size_t *ends;

		if (!recs)
			return NULL;
		b->recs = recs;
		if (!(ends = realloc(b->sam_end, (size_t)m * sizeof *ends)))
			return NULL;
		b->sam_end = ends;
		for (int k = b->m_rec; k < m; k++)
			b->recs[k] = NULL;
		b->m_rec = m;
	}
	if (!b->recs[b->n_rec] && !(b->recs[b->n_rec] = bam_init1()))
		return NULL;
	return b->recs[b->n_rec++];
}

static void batch_free(batch_t *b)
{
	for (int k = 0; k < b->m; k++) {
		sm_read_free(&b->reads[k]);
		for (int c = 0; c < SM_MAX_CAND; c++)
			sm_aln_free(&b->res[k].cand[c].aln);
		free(b->res[k].win);
	}
	for (int k = 0; k < b->m_rec; k++)
		if (b->recs[k])
			bam_destroy1(b->recs[k]);
	free(b->reads);
	free(b->res);
	free(b->recs);
	free(b->sam_end);
	free(b->sam.s);
	free(b);
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
static int read_unit(pipe_t *p, sm_read_t *r)
{
	sm_fastq_t *f2 = p->fq2 ? p->fq2 : p->fq;
	int rc1, rc2;

	rc1 = sm_fastq_next(p->fq, &r[0]);
	if (rc1 < 0 || !p->paired)
		return rc1;
	rc2 = rc1 == 0 && p->fq2 ? sm_fastq_next(f2, &r[1]) : rc1 == 0 ? 0 : sm_fastq_next(f2, &r[1]);
	if (rc2 < 0)
		return -1;
	if (rc1 != rc2) {
		if (p->fq2)
			sm_log(SM_LOG_ERROR, "%s has %s reads than %s: read pairs out of sync at "
			       "record %lld", rc1 ? sm_fastq_path(p->fq2) : sm_fastq_path(p->fq),
			       "fewer", rc1 ? sm_fastq_path(p->fq) : sm_fastq_path(p->fq2),
			       (long long)(rc1 ? r[0].index : r[1].index) + 1);
		else
			sm_log(SM_LOG_ERROR, "%s: odd number of reads in an interleaved (-p) file: "
			       "read %lld '%s' has no mate", sm_fastq_path(p->fq),
			       (long long)r[0].index + 1, r[0].name);
		return -1;
	}
	if (rc1 == 0)
		return 0;
	strip_mate_suffix(&r[0]);
	strip_mate_suffix(&r[1]);
	if (strcmp(r[0].name, r[1].name) != 0) {
		sm_log(SM_LOG_ERROR, "read pairs out of sync: %s record %lld '%s' and %s record "
		       "%lld '%s' have different names", sm_fastq_path(p->fq),
		       (long long)r[0].index + 1, r[0].name, sm_fastq_path(f2),
		       (long long)r[1].index + 1, r[1].name);
		return -1;
	}
	return 1;
}

static int read_max_len_check(pipe_t *p, const sm_read_t *r, int n)
{
	for (int k = 0; k < n; k++)
		if (r[k].len > p->opt->max_read_len) {
			sm_log(SM_LOG_ERROR, "%s: read %lld '%s' is %d bases long, more than "
			       "--max-read-len %d", k ? sm_fastq_path(p->fq2 ? p->fq2 : p->fq) :
			       sm_fastq_path(p->fq), (long long)r[k].index + 1, r[k].name,
			       r[k].len, p->opt->max_read_len);
			return -1;
		}
	return 0;
}

/* Fills b from the FASTQ (after the reads taken ahead for the insert
 * sizes).  Returns 1 with reads, 0 at the end of input (b->n may still be
 * > 0), -1 after logging an error. */
static int fill_batch(pipe_t *p, batch_t *b)
{
	uint64_t cells = 0;
	uint64_t per_base = p->seeded ? 0 : SM_STRANDS * (uint64_t)p->ref->total;
	int unit = p->paired ? SM_STRANDS : 1;

	b->n = 0;
	/* A batch holds reads taken ahead (mapped already) or new reads, not both. */
	b->premapped = p->sample_used < p->n_sample;
	while (b->n + unit <= p->batch_reads && (b->n == 0 || cells < p->batch_cells) &&
	       b->premapped == (p->sample_used < p->n_sample)) {
		sm_read_t *r;
		int rc;

		if (batch_reserve(b, b->n + unit) < 0) {
			sm_log(SM_LOG_ERROR, "out of memory reading %s", p->opt->reads_path);
			return -1;
		}
		r = &b->reads[b->n];
		if (p->sample_used < p->n_sample) {
			for (int k = 0; k < unit; k++) {   /* hand the sample's reads over */
				sm_read_t t = r[k];
				res_t u = b->res[b->n + k];

				r[k] = p->sample[p->sample_used + k];
				p->sample[p->sample_used + k] = t;
				b->res[b->n + k] = p->sample_res[p->sample_used + k];
				p->sample_res[p->sample_used + k] = u;
			}
			p->sample_used += unit;
			rc = 1;
		} else {
			rc = read_unit(p, r);
			if (rc <= 0)
				return rc;
			if (read_max_len_check(p, r, unit) < 0)
				return -1;
		}
		for (int k = 0; k < unit; k++)
			cells += per_base * (uint64_t)r[k].len;
		b->n += unit;
	}
	return 1;
}

static void *reader_main(void *arg)
{
	pipe_t *p = arg;

	sm_trace_thread("reader");
	for (;;) {
		batch_t *b;
		int rc;
		double t = sm_seconds(), c;

		pthread_mutex_lock(&p->lock);
		while (!p->free_list && !p->failed)
			pthread_cond_wait(&p->cond, &p->lock);
		p->read_idle += sm_seconds() - t;
		if (sm_trace_on)
			sm_trace_span("no free batch", t, sm_seconds());
		if (p->failed) {
			pthread_mutex_unlock(&p->lock);
			return NULL;
		}
		b = p->free_list;
		p->free_list = b->next;
		pthread_mutex_unlock(&p->lock);

		t = sm_seconds();
		c = thread_cpu_seconds();
		rc = fill_batch(p, b);
		p->read_s += sm_seconds() - t;  /* the reader's own fields */
		if (sm_trace_on)
			sm_trace_span("read batch", t, sm_seconds());
		p->read_cpu += thread_cpu_seconds() - c;

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

/* ---- records ---- */

static int emit(pipe_t *p, worker_ws_t *ws, batch_t *b, const sm_read_t *r, const cand_t *c,
		const sm_rec_extra_t *x)
{
	bam1_t *rec = sm_batch_rec(b);
	sm_hit_t hit;

	if (!rec) {
		sm_log(SM_LOG_ERROR, "out of memory building records");
		return -1;
	}
	memset(&hit, 0, sizeof hit);
	if (c) {
		hit.mapped = 1;
		hit.is_rev = c->is_rev;
		hit.best.score = c->score;
		hit.best.end = c->end;
		hit.xs = c->xs;
	}
	return sm_record_build(rec, r, p->ref, &p->opt->score, &hit, c ? &c->aln : NULL, x,
			       p->opt->rg_id, &ws->rws);
}

/* 1 if candidate c overlaps one of cs[0..n) on the same strand. */
static int overlaps(const cand_t *c, const cand_t *const *cs, int n)
{
	for (int k = 0; k < n; k++)
		if (cs[k]->is_rev == c->is_rev && c->aln.ref_start < cs[k]->aln.ref_end &&
		    cs[k]->aln.ref_start < c->aln.ref_end)
			return 1;
	return 0;
}

/* The primary record of read e of a unit (n_unit 1 or 2), then its -N
 * secondaries. */
static int emit_read(pipe_t *p, worker_ws_t *ws, batch_t *b, const sm_read_t *r,
		     const sm_query_t *q, res_t *res, int e, int n_unit)
{
	res_t *me = &res[e];
	const res_t *mate = n_unit > 1 ? &res[!e] : NULL;
	const cand_t *c = me->prim >= 0 ? &me->cand[me->prim] : NULL;
	const cand_t *mc = mate && mate->prim >= 0 ? &mate->cand[mate->prim] : NULL;
	const cand_t *done[SM_MAX_CAND];
	sm_rec_extra_t x;
	int n_done = 0, n_secondary = p->opt->all_hits ? SM_MAX_CAND - 1 : p->opt->n_secondary;

	memset(&x, 0, sizeof x);
	x.mapq = me->mapq;
	x.mate_tid = -1;
	x.mate_pos = -1;
	if (mate) {
		x.flag = BAM_FPAIRED | (e ? BAM_FREAD2 : BAM_FREAD1);
		if (me->proper && mate->proper)
			x.flag |= BAM_FPROPER_PAIR;
		if (!mc)
			x.flag |= BAM_FMUNMAP;
		else if (mc->is_rev)
			x.flag |= BAM_FMREVERSE;
		if (mc) {
			x.mate_tid = sm_ref_contig_of(p->ref, mc->aln.ref_start);
			x.mate_pos = mc->aln.ref_start - p->ref->offset[x.mate_tid];
		} else if (c) {   /* an unmapped mate sits at this read's place */
			x.mate_tid = sm_ref_contig_of(p->ref, c->aln.ref_start);
			x.mate_pos = c->aln.ref_start - p->ref->offset[x.mate_tid];
		}
		if (c && mc && sm_ref_contig_of(p->ref, c->aln.ref_start) == x.mate_tid)
			x.tlen = sm_pair_five_prime(mc) - sm_pair_five_prime(c);
	}
	if (emit(p, ws, b, &r[e], c, &x) < 0 ||
	    sm_split_tags(p, ws, b->recs[b->n_rec - 1], r, q, res, e, n_unit, 1) < 0)
		return -1;
	if (!c)
		return 0;
	if (sm_split_emit(p, ws, b, (int)(r - b->reads) + e, b->recs[b->n_rec - 1], r, q, res, e,
			  n_unit, &x) < 0)
		return -1;
	done[n_done++] = c;
	x.flag |= BAM_FSECONDARY;
	x.flag &= (uint16_t)~BAM_FPROPER_PAIR;
	x.mapq = 0;
	x.tlen = 0;
	for (int k = 0; k < me->n_cand && n_done <= n_secondary; k++) {
		cand_t *s = &me->cand[k];

		if (s == c)
			continue;
		if (sm_map_ensure_traced(p, ws, me, &r[e], &q[SM_STRANDS * e], s) < 0)
			return -1;
		if (overlaps(s, done, n_done) ||
		    sm_split_is_part(ws, (int)(r - b->reads) + e, s->is_rev, &s->aln))
			continue;
		if (emit(p, ws, b, &r[e], s, &x) < 0 ||
		    sm_split_tags(p, ws, b->recs[b->n_rec - 1], r, q, res, e, n_unit, 0) < 0)
			return -1;
		done[n_done++] = s;
	}
	return 0;
}

/* SAM output: the batch's records as text in b->sam, so that the writer
 * only copies bytes.  Returns 0 or -1 (logged). */
static int format_batch(pipe_t *p, batch_t *b)
{
	kstring_t line = KS_INITIALIZE;
	int rc = 0;

	b->sam.l = 0;
	for (int k = 0; k < b->n_rec && rc == 0; k++) {
		rc = sm_sam_out_format(p->out, b->recs[k], &b->sam, &line);
		b->sam_end[k] = b->sam.l;
	}
	free(line.s);
	return rc;
}

static int map_batch(pipe_t *p, batch_t *b, worker_ws_t *ws)
{
	int unit = p->paired ? SM_STRANDS : 1;
	int64_t cells0 = (int64_t)ws->seed_st.cells;
	size_t n_codes;
	double t;

	if (b->premapped ? sm_map_encode(ws, b->reads, b->n, &n_codes) < 0 :
	    sm_map_reads(p, ws, b->reads, b->n, b->res) < 0)
		return -1;
	t = sm_seconds();
	b->n_mapped = b->n_proper = 0;
	b->n_rec = 0;
	for (int k = 0; p->paired && k < b->n; k += unit)
		if (sm_pair_resolve(p, ws, &b->reads[k], &ws->q[SM_STRANDS * k], &b->res[k]) < 0)
			return -1;
	if (sm_split_batch(p, ws, b->reads, b->n, b->res) < 0)
		return -1;
	for (int k = 0; k < b->n; k += unit) {
		for (int e = 0; e < unit; e++) {
			if (emit_read(p, ws, b, &b->reads[k], &ws->q[SM_STRANDS * k], &b->res[k], e,
				      unit) < 0)
				return -1;
			b->n_mapped += b->res[k + e].prim >= 0;
			b->n_proper += b->res[k + e].proper;
		}
	}
	b->seed_cells = ws->seed_st.cells - (uint64_t)cells0;
	sm_ph_add(ws, PH_EMIT, &t);
	if (p->sam_text) {
		if (format_batch(p, b) < 0)
			return -1;
		sm_ph_add(ws, PH_FORMAT, &t);
	}
	return 0;
}

static void *worker_main(void *arg)
{
	pipe_t *p = arg;
	worker_ws_t ws;
	double idle = 0;

	if (sm_trace_on) {
		static int named;
		char name[32];

		snprintf(name, sizeof name, "worker %d", __atomic_fetch_add(&named, 1, __ATOMIC_RELAXED));
		sm_trace_thread(name);
	}
	if (sm_ws_init(p, &ws) < 0) {
		sm_log(SM_LOG_ERROR, "cannot create a worker's workspace");
		sm_ws_free(&ws);
		set_failed(p);
		return NULL;
	}
	for (;;) {
		batch_t *b;
		int rc;
		double t = sm_seconds();

		pthread_mutex_lock(&p->lock);
		while (!p->todo_head && !p->reader_done && !p->failed)
			pthread_cond_wait(&p->cond, &p->lock);
		idle += sm_seconds() - t;
		if (sm_trace_on)
			sm_trace_span("no batch", t, sm_seconds());
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
	pthread_mutex_lock(&p->lock);
	for (int k = 0; k < PH_N; k++)
		p->ph[k] += ws.ph[k];
	p->work_idle += idle;
	for (int k = 0; k < LIST_N; k++) {
		p->list_n[k] += ws.list_n[k];
		p->list_jobs[k] += ws.list_jobs[k];
		p->list_cols[k] += ws.list_cols[k];
	}
	if (ws.aws) {
		sm_align_stats_t a = sm_align_ws_stats(ws.aws);

		p->aln.calls += a.calls;
		p->aln.cells += a.cells;
		p->aln.narrow += a.narrow;
		p->aln.ungapped += a.ungapped;
	}
	p->work_cpu += thread_cpu_seconds();
	pthread_mutex_unlock(&p->lock);
	sm_ws_free(&ws);
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

/* Writes batches in order until every batch is written or someone fails.
 * Returns 0 or -1. */
static int writer_loop(pipe_t *p, counts_t *c)
{
	for (int64_t next = 0; ; next++) {
		batch_t *b;
		int slot = (int)(next % p->n_slots), k, failed, release;
		double t, cpu;

		pthread_mutex_lock(&p->lock);
		for (;;) {
			struct timespec ts;

			if (sm_seconds() - c->last_progress >= SM_PROGRESS_SECONDS) {
				c->last_progress = sm_seconds();
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

		t = sm_seconds();
		cpu = thread_cpu_seconds();
		if (p->sam_text) {
			/* One write per record, as sam_write1() does: a failure
			 * names the same record. */
			for (k = 0; k < b->n_rec; k++) {
				size_t from = k ? b->sam_end[k - 1] : 0;

				if (sm_sam_out_write_text(p->out, b->sam.s + from, b->sam_end[k] - from,
							  b->recs[k]) < 0)
					break;
			}
		} else {
			for (k = 0; k < b->n_rec; k++)
				if (sm_sam_out_write(p->out, b->recs[k]) < 0)
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

		/* Once the reader is done, a written batch is not needed again:
		 * freeing it here, while the workers map the last batches,
		 * spares the set-down its millions of small blocks (0.2 s for
		 * 5M chr20 pairs). */
		failed = k < b->n_rec;
		pthread_mutex_lock(&p->lock);
		release = p->reader_done && !failed;
		if (!release) {
			b->next = p->free_list;
			p->free_list = b;
		}
		if (failed)
			p->failed = 1;
		pthread_cond_broadcast(&p->cond);
		pthread_mutex_unlock(&p->lock);
		if (release)
			batch_free(b);
		if (failed)
			return -1;
	}
}

static void summary(const pipe_t *p, const counts_t *c)
{
	sm_engine_stats_t st;
	double dt = sm_seconds() - c->t0;
	sm_cpu_isa_t isa = p->isa == SM_CPU_ISA_AUTO ? sm_cpu_isa_best() : p->isa;
	char engine[200];

	memset(&st, 0, sizeof st);
	if (p->engine)
		sm_engine_stats(p->engine, &st);
	if (dt <= 0)
		dt = 1e-9;

	/* Seeded runs scan their windows on the GPU (or the oracle) when that
	 * is the engine, else on each worker's CPU scan; the engine, when there
	 * is one, also serves the reads that fall back. */
	if (!p->seeded)
		snprintf(engine, sizeof engine, "%s", sm_engine_name(p->engine));
	else if (p->wengine)
		snprintf(engine, sizeof engine, "%s (windows%s)", sm_engine_name(p->engine),
			 p->fallback ? " and fallback" : "");
	else if (p->engine)
		snprintf(engine, sizeof engine, "cpu:%s (windows), %s (fallback)",
			 sm_cpu_isa_name(isa), sm_engine_name(p->engine));
	else
		snprintf(engine, sizeof engine, "cpu:%s (windows)", sm_cpu_isa_name(isa));
	sm_log(SM_LOG_INFO, "%lld reads, %lld mapped (%.2f%%), %.2f s, %.1f reads/s, "
	       "mode %s, engine %s, %.3f Gcells/s",
	       (long long)c->reads, (long long)c->mapped,
	       c->reads ? 100.0 * (double)c->mapped / (double)c->reads : 0.0, dt,
	       (double)c->reads / dt, p->seeded ? "seeded" : "exhaustive", engine,
	       (double)(st.cells + c->seed_cells) / dt / SM_GIGA);
	if (p->paired)
		sm_log(SM_LOG_INFO, "%lld reads in proper pairs (%.2f%%)", (long long)c->proper,
		       c->reads ? 100.0 * (double)c->proper / (double)c->reads : 0.0);
	if (sm_log_get_level() >= SM_LOG_DEBUG) {
		char line[512];
		int at = 0;

		for (int k = 0; k < PH_N && at < (int)sizeof line; k++)
			at += snprintf(line + at, sizeof line - (size_t)at, "%s%s %.2f", k ? ", " : "",
				       sm_ph_name[k], p->ph[k]);
		sm_log(SM_LOG_DEBUG, "seconds: workers (summed) %s; reader %.2f (CPU %.2f); "
		       "writer %.2f (CPU %.2f); wall %.2f", line, p->read_s, p->read_cpu,
		       c->write_s, c->write_cpu, dt);
		sm_log(SM_LOG_DEBUG, "threads: workers' CPU %.2f s, waiting for a batch %.2f s "
		       "(summed); reader waiting for a free batch %.2f s; process CPU %.2f s",
		       p->work_cpu, p->work_idle, p->read_idle,
		       cpu_seconds(CLOCK_PROCESS_CPUTIME_ID));
		at = 0;
		for (int k = 0; k < LIST_N && at < (int)sizeof line; k++)
			at += snprintf(line + at, sizeof line - (size_t)at, "%s%s %lld, %lld, %.0f",
				       k ? "; " : "", list_name[k], (long long)p->list_n[k],
				       (long long)p->list_jobs[k], p->list_jobs[k] ?
				       (double)p->list_cols[k] / (double)p->list_jobs[k] : 0.0);
		if (p->seeded)
			sm_log(SM_LOG_DEBUG, "scan lists (runs, jobs, reference columns per job): %s",
			       line);
		if (p->aln.calls) {
			int64_t fills = p->aln.calls - p->aln.ungapped;

			sm_log(SM_LOG_DEBUG, "tracebacks: %lld, %.1f%% without a fill (no room for "
			       "a gap); fills %.0f band cells each, %.1f%% with a band of 1-3 "
			       "diagonals", (long long)p->aln.calls,
			       100.0 * (double)p->aln.ungapped / (double)p->aln.calls,
			       fills ? (double)p->aln.cells / (double)fills : 0.0,
			       fills ? 100.0 * (double)p->aln.narrow / (double)fills : 0.0);
		}
		if (p->engine && sm_engine_kind(p->engine) == SM_ENGINE_GPU) {
			double seed_s = 0;
			int64_t seed_reads = 0;

			if (p->gseed)
				sm_gpu_seed_stats(p->gseed, &seed_s, &seed_reads);
			sm_log(SM_LOG_DEBUG, "GPU (summed over calls): scans %llu calls, %.2f s waiting "
			       "for a slot, %.2f s in one (kernels %.2f); seeding %lld reads, %.2f s",
			       (unsigned long long)st.calls, st.wait_s, st.call_s, st.kernel_s,
			       (long long)seed_reads, seed_s);
		}
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
			set_failed(p);
			break;
		}
	sm_trace_thread("writer");
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

/* ---- insert sizes ---- */

typedef struct {
	pipe_t *p;
	const sm_read_t *reads;
	res_t *res;
	int n, rc;
} sample_job_t;

static void *sample_main(void *arg)
{
	sample_job_t *j = arg;
	worker_ws_t ws;

	j->rc = -1;
	if (sm_ws_init(j->p, &ws) == 0)
		j->rc = sm_map_reads(j->p, &ws, j->reads, j->n, j->res);
	else
		sm_log(SM_LOG_ERROR, "cannot create a worker's workspace");
	sm_ws_free(&ws);
	return NULL;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* The distribution of inserts[0..n) (sorted in place) into *ins. */
static void insert_stats(int64_t *ins, int n, insert_t *out)
{
	double q1, q3, lo, hi, sum = 0, sum2 = 0;
	int m = 0;

	memset(out, 0, sizeof *out);
	if (n < SM_INSERT_MIN_PAIRS)
		return;
	qsort(ins, (size_t)n, sizeof *ins, cmp_i64);
	q1 = (double)ins[n / SM_QUARTILE];
	q3 = (double)ins[n - 1 - n / SM_QUARTILE];
	lo = q1 - SM_INSERT_IQR_FENCE * (q3 - q1);
	hi = q3 + SM_INSERT_IQR_FENCE * (q3 - q1);
	for (int k = 0; k < n; k++)
		if ((double)ins[k] >= lo && (double)ins[k] <= hi) {
			sum += (double)ins[k];
			sum2 += (double)ins[k] * (double)ins[k];
			m++;
		}
	if (m < SM_INSERT_MIN_PAIRS)
		return;
	out->ok = 1;
	out->n = m;
	out->mean = sum / m;
	out->sd = m > 1 ? sqrt((sum2 - sum * sum / m) / (m - 1)) : 0.0;
	out->lo = (int64_t)floor(out->mean - SM_INSERT_SD_RANGE * out->sd);
	out->hi = (int64_t)ceil(out->mean + SM_INSERT_SD_RANGE * out->sd);
	if (out->lo < 1)
		out->lo = 1;
}

/* The shortest decimal form of v that reads back as v (at most 17 digits). */
static void fmt_exact(char *buf, size_t size, double v)
{
	for (int prec = 1; prec <= DBL_DECIMAL_DIG; prec++) {
		snprintf(buf, size, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			return;
	}
}

/* Logs the model as the -I value that sets exactly this model, so that a
 * run over part of the reads (a shard) can use the one the whole run
 * estimates (workflow/Snakefile reads this line). */
static void log_insert_model(const insert_t *ins)
{
	char mean[32], sd[32];

	fmt_exact(mean, sizeof mean, ins->mean);
	fmt_exact(sd, sizeof sd, ins->sd);
	sm_log(SM_LOG_INFO, "insert size model: -I %s,%s,%lld,%lld", mean, sd,
	       (long long)ins->hi, (long long)ins->lo);
}

/* The model -I gives (cli.h), in place of an estimate. */
static void insert_from_opt(pipe_t *p)
{
	const sm_insert_opt_t *o = &p->opt->insert;

	memset(&p->ins, 0, sizeof p->ins);
	p->ins.ok = 1;
	p->ins.mean = o->mean;
	p->ins.sd = o->sd;
	p->ins.lo = o->min;
	p->ins.hi = o->max;
	sm_log(SM_LOG_INFO, "insert size from -I: mean %g, sd %g; proper pairs %lld..%lld",
	       o->mean, o->sd, (long long)o->min, (long long)o->max);
}

/* Reads the first SM_INSERT_SAMPLE_PAIRS pairs (kept in p->sample for the
 * reader), maps them read by read on -t threads and estimates the insert
 * size distribution from the uniquely mapped ones: the same pairs whatever
 * -t and the batch size, so the same distribution. */
static int estimate_inserts(pipe_t *p)
{
	int n_threads = p->opt->n_threads, rc = 0, n_ins = 0, cap = SM_STRANDS * SM_INSERT_SAMPLE_PAIRS;
	sample_job_t *jobs = NULL;
	pthread_t *th = NULL;
	res_t *res = NULL;
	int64_t *ins = NULL;

	p->sample = calloc((size_t)cap, sizeof *p->sample);
	if (!p->sample)
		goto oom;
	while (p->n_sample < cap) {
		int r = read_unit(p, &p->sample[p->n_sample]);

		if (r < 0 || (r > 0 && read_max_len_check(p, &p->sample[p->n_sample], SM_STRANDS) < 0)) {
			/* the unit read in part (pairs out of step) is not counted */
			for (int s = 0; s < SM_STRANDS; s++)
				sm_read_free(&p->sample[p->n_sample + s]);
			return -1;
		}
		if (r == 0)
			break;
		p->n_sample += SM_STRANDS;
	}
	res = calloc((size_t)p->n_sample + 1, sizeof *res);
	ins = malloc(((size_t)p->n_sample / SM_STRANDS + 1) * sizeof *ins);
	jobs = calloc((size_t)n_threads, sizeof *jobs);
	th = calloc((size_t)n_threads, sizeof *th);
	if (!res || !ins || !jobs || !th)
		goto oom;
	{
		int per = (p->n_sample / SM_STRANDS + n_threads - 1) / n_threads * SM_STRANDS;
		int started = 0;

		for (int t = 0; t < n_threads; t++) {
			int from = t * per, to = from + per > p->n_sample ? p->n_sample : from + per;

			jobs[t] = (sample_job_t){ p, p->sample + from, res + from, to > from ? to - from : 0, 0 };
			if (pthread_create(&th[t], NULL, sample_main, &jobs[t]) != 0) {
				sm_log(SM_LOG_ERROR, "cannot start a thread");
				rc = -1;
				break;
			}
			started++;
		}
		for (int t = 0; t < started; t++) {
			pthread_join(th[t], NULL);
			if (jobs[t].rc < 0)
				rc = -1;
		}
	}
	for (int k = 0; rc == 0 && k < p->n_sample; k += SM_STRANDS) {
		const res_t *a = &res[k], *b = &res[k + 1];
		int64_t x;

		if (a->prim < 0 || b->prim < 0 ||
		    sm_pair_read_mapq(p, &a->cand[0], p->sample[k].len) < SM_INSERT_MIN_MAPQ ||
		    sm_pair_read_mapq(p, &b->cand[0], p->sample[k + 1].len) < SM_INSERT_MIN_MAPQ)
			continue;
		x = sm_pair_insert(p, &a->cand[0], &b->cand[0]);
		if (x > 0)
			ins[n_ins++] = x;
	}
	if (rc == 0) {
		insert_stats(ins, n_ins, &p->ins);
		if (p->ins.ok) {
			sm_log(SM_LOG_INFO, "insert size from %d of the first %d pairs: mean %.1f, "
			       "sd %.1f; proper pairs %lld..%lld", p->ins.n, p->n_sample / SM_STRANDS,
			       p->ins.mean, p->ins.sd, (long long)p->ins.lo, (long long)p->ins.hi);
			log_insert_model(&p->ins);
		} else if (p->n_sample > 0)
			sm_log(SM_LOG_WARNING, "insert size: only %d uniquely mapped pairs among the "
			       "first %d (%d needed): no pair is proper, no mate is rescued", n_ins,
			       p->n_sample / SM_STRANDS, SM_INSERT_MIN_PAIRS);
	}
	p->sample_res = res;   /* handed over to the batches with the reads */
	free(ins);
	free(jobs);
	free(th);
	return rc;
oom:
	sm_log(SM_LOG_ERROR, "out of memory estimating insert sizes");
	free(res);
	free(ins);
	free(jobs);
	free(th);
	return -1;
}

/* ---- setup ---- */

/* Refuses an output that is one of the inputs: reference, reads, mates or
 * the index REF.smi that seeded mode would load (io/outfile.h). */
static int check_output_path(const sm_opt_t *o)
{
	size_t l = strlen(o->ref_path);
	char *index = malloc(l + sizeof SM_INDEX_SUFFIX);
	const char *inputs[] = { o->ref_path, o->reads_path, o->mates_path, index };
	int rc;

	if (!index) {
		sm_log(SM_LOG_ERROR, "out of memory");
		return -1;
	}
	memcpy(index, o->ref_path, l);
	memcpy(index + l, SM_INDEX_SUFFIX, sizeof SM_INDEX_SUFFIX);
	rc = sm_outfile_check_inputs("-o", o->out_path, inputs, (int)(sizeof inputs / sizeof *inputs));
	free(index);
	return rc;
}

/* The index of seeded mode: REF.smi when it exists (and matches -k/-w when
 * they were given), else built in memory. */
static sm_index_t *get_index(const sm_opt_t *o, const sm_ref_t *ref)
{
	size_t l = strlen(o->ref_path);
	char *path = malloc(l + sizeof SM_INDEX_SUFFIX);
	sm_index_t *idx = NULL;
	double t0 = sm_seconds();

	if (!path) {
		sm_log(SM_LOG_ERROR, "out of memory");
		return NULL;
	}
	memcpy(path, o->ref_path, l);
	memcpy(path + l, SM_INDEX_SUFFIX, sizeof SM_INDEX_SUFFIX);
	if (access(path, F_OK) == 0) {
		idx = sm_index_load(path, ref);
		if (idx && o->seed_kw_set && (idx->k != o->seed_k || idx->w != o->seed_w)) {
			sm_log(SM_LOG_WARNING, "%s has k=%d w=%d, not the -k %d -w %d asked for: "
			       "building the index in memory", path, idx->k, idx->w, o->seed_k, o->seed_w);
			sm_index_destroy(idx);
			idx = sm_index_build(ref, o->seed_k, o->seed_w);
		} else if (idx) {
			sm_log(SM_LOG_INFO, "loaded index %s (k=%d w=%d) in %.2f s", path, idx->k,
			       idx->w, sm_seconds() - t0);
		}
	} else {
		idx = sm_index_build(ref, o->seed_k, o->seed_w);
		if (idx)
			sm_log(SM_LOG_INFO, "built the index in memory (k=%d w=%d) in %.2f s; "
			       "'scanmap index' saves it for later runs", o->seed_k, o->seed_w,
			       sm_seconds() - t0);
	}
	free(path);
	return idx;
}

/* Set-up work that runs beside the reference load and the engine's
 * creation (each a few tenths of a second on chr20): the GPU's context,
 * and seeded mode's index. */
typedef struct {
	const sm_opt_t *o;
	const sm_ref_t *ref;
	sm_index_t *idx;
} index_job_t;

static void *warm_up_main(void *arg)
{
	sm_gpu_warm_up(*(const int *)arg);
	return NULL;
}

static void *index_main(void *arg)
{
	index_job_t *j = arg;

	j->idx = get_index(j->o, j->ref);
	return NULL;
}

int sm_map_run(const sm_opt_t *o)
{
	pipe_t p;
	sm_ref_t *ref = NULL;
	sm_index_t *idx = NULL;
	index_job_t ij = { o, NULL, NULL };
	pthread_t warm_th, index_th;
	int warming = 0, indexing = 0, device = 0;
	double t_batches, t_engine;   /* set-down's clock */
	sm_engine_opt_t eo;
	int64_t bound;
	int gpu;
	char gpu_msg[SM_GPU_MSG_LEN];
	sm_sam_out_opt_t so;
	counts_t c;
	double t;
	int rc = -1;

	memset(&p, 0, sizeof p);
	memset(&c, 0, sizeof c);
	sm_trace_start(o->trace_path);
	c.t0 = c.last_progress = sm_seconds();
	p.opt = o;
	if (check_output_path(o) < 0)
		return -1;
	/* Open the reads first: an unreadable file fails before the (long)
	 * reference load. */
	p.fq = sm_fastq_open(o->reads_path);
	if (!p.fq)
		return -1;
	p.paired = o->mates_path || o->interleaved;
	if (o->mates_path && !(p.fq2 = sm_fastq_open(o->mates_path)))
		goto out;
	if (sm_cpu_isa_parse(o->cpu_isa, &p.isa) < 0)
		goto out;
	if (o->engine == SM_ENGINE_GPU || o->engine == SM_ENGINE_AUTO)
		warming = pthread_create(&warm_th, NULL, warm_up_main, &device) == 0;
	t = sm_seconds();
	if (sm_ref_load(o->ref_path, &ref) < 0)
		goto out;
	p.ref = ref;
	sm_log(SM_LOG_DEBUG, "set-up: reference loaded in %.2f s", sm_seconds() - t);

	/* The auto bound depends on the engine that would run exhaustive mode:
	 * the GPU's when --engine gpu, or auto with a usable GPU. */
	memset(&eo, 0, sizeof eo);
	eo.device = device;
	eo.kind = o->engine;
	eo.cells = o->cells;
	eo.max_query_len = o->max_read_len;
	eo.cpu_isa = o->cpu_isa;
	gpu = o->engine == SM_ENGINE_GPU ||
	      (o->engine == SM_ENGINE_AUTO && sm_gpu_available(eo.device, gpu_msg, (int)sizeof gpu_msg));
	bound = gpu ? SM_AUTO_MAX_REF_GPU : SM_AUTO_MAX_REF_CPU;
	p.seeded = o->mode == SM_MODE_SEEDED || (o->mode == SM_MODE_AUTO && ref->total > bound);
	p.fallback = p.seeded && ref->total <= bound;
	sm_log(SM_LOG_INFO, "%s mode (reference %lld bases, exhaustive bound %lld with this engine)%s",
	       p.seeded ? "seeded" : "exhaustive", (long long)ref->total, (long long)bound,
	       p.fallback ? "; reads without a seeded hit are aligned exhaustively" : "");
	if (p.seeded) {
		sm_seed_opt_init(&p.seed_opt);
		p.seed_opt.max_occ = o->max_occ;
		p.seed_opt.max_windows = o->max_windows;
		p.retry_opt = p.seed_opt;
		p.retry_opt.max_occ = o->max_occ > INT_MAX / SM_SEED_RETRY_OCC ? INT_MAX :
				      o->max_occ * SM_SEED_RETRY_OCC;
		p.retry_opt.max_windows = o->max_windows * SM_SEED_RETRY_WINDOWS;
		ij.ref = ref;
		indexing = pthread_create(&index_th, NULL, index_main, &ij) == 0;
		if (!indexing)
			index_main(&ij);
	}
	if (warming) {
		pthread_join(warm_th, NULL);
		warming = 0;
	}
	/* The GPU (and the oracle, for tests), when asked for, runs the window
	 * scans too; otherwise each worker scans windows with its own CPU scan. */
	t = sm_seconds();
	if (!p.seeded || p.fallback || gpu || o->engine == SM_ENGINE_ORACLE) {
		p.engine = sm_engine_create(ref, &o->score, &eo);
		if (!p.engine)
			goto out;
	}
	sm_log(SM_LOG_DEBUG, "set-up: engine created in %.2f s", sm_seconds() - t);
	if (indexing) {
		pthread_join(index_th, NULL);
		indexing = 0;
	}
	if (p.seeded && !(idx = ij.idx))
		goto out;
	p.index = idx;
	if (p.engine && sm_engine_kind(p.engine) != SM_ENGINE_CPU)
		p.wengine = p.engine;
	if (p.engine && sm_engine_kind(p.engine) == SM_ENGINE_GPU) {
		p.batch_reads = SM_BATCH_READS_GPU;
		p.batch_cells = SM_BATCH_CELLS_GPU;
		/* The GPU seeds too (the same windows as the CPU: gpu_seed.h);
		 * if the index does not fit on it, the workers seed. */
		t = sm_seconds();
		if (p.seeded && !(p.gseed = sm_gpu_seed_create(idx, ref, eo.device)))
			sm_log(SM_LOG_WARNING, "seeding on the CPU: the index could not be put on the GPU");
		if (p.gseed)
			sm_log(SM_LOG_DEBUG, "set-up: index put on the GPU in %.2f s", sm_seconds() - t);
	} else {
		p.batch_reads = SM_BATCH_READS_CPU;
		p.batch_cells = SM_BATCH_CELLS_CPU;
	}

	memset(&so, 0, sizeof so);
	so.path = o->out_path;
	so.rg_line = o->rg_line;
	so.hdr_lines = o->hdr_lines;
	so.version = SM_VERSION;
	so.cmdline = o->cmdline;
	so.threads = o->n_threads;
	t = sm_seconds();
	if (p.paired && o->insert.set)
		insert_from_opt(&p);
	else if (p.paired && estimate_inserts(&p) < 0)
		goto out;
	if (p.paired && sm_pair_insert_table(&p) < 0)
		goto out;
	if (p.paired)
		sm_log(SM_LOG_DEBUG, "set-up: insert sizes estimated in %.2f s", sm_seconds() - t);
	p.batch_reads -= p.batch_reads % SM_STRANDS;
	p.out = sm_sam_out_open(&so, ref);
	if (!p.out)
		goto out;
	p.sam_text = sm_sam_out_is_text(p.out);
	if (pipe_init(&p) < 0) {
		sm_log(SM_LOG_ERROR, "out of memory setting up the pipeline");
		sm_sam_out_abort(p.out);
		goto out;
	}
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
	if (warming)
		pthread_join(warm_th, NULL);
	if (indexing) {
		pthread_join(index_th, NULL);
		idx = ij.idx;
	}
	if (p.n_slots)
		pipe_destroy(&p);
	t_batches = sm_seconds();
	sm_gpu_seed_destroy(p.gseed);
	if (p.engine)
		sm_engine_destroy(p.engine);
	t_engine = sm_seconds();
	sm_index_destroy(idx);
	for (int k = 0; k < p.n_sample; k++) {
		sm_read_free(&p.sample[k]);
		for (int c = 0; p.sample_res && c < SM_MAX_CAND; c++)
			sm_aln_free(&p.sample_res[k].cand[c].aln);
		if (p.sample_res)
			free(p.sample_res[k].win);
	}
	free(p.sample);
	free(p.sample_res);
	free(p.ins.score);
	sm_ref_destroy(ref);
	sm_fastq_close(p.fq);
	if (p.fq2)
		sm_fastq_close(p.fq2);
	sm_log(SM_LOG_DEBUG, "set-down: %.2f s (batches %.2f, engines %.2f, index and "
	       "reference %.2f)", sm_seconds() - t, t_batches - t, t_engine - t_batches,
	       sm_seconds() - t_engine);
	sm_trace_finish();
	return rc;
}
