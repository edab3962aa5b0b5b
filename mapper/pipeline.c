/* pipeline.c — reader thread, worker threads, ordered writer (see pipeline.h). */
#include "mapper/pipeline.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "gpu/gpu_engine.h"
#include "io/fastq.h"
#include "io/ref.h"
#include "io/sam_out.h"
#include "mapper/align.h"
#include "mapper/clock.h"
#include "mapper/cpu_scan.h"
#include "mapper/engine.h"
#include "mapper/index.h"
#include "mapper/log.h"
#include "mapper/record.h"
#include "mapper/scan.h"
#include "mapper/seed.h"
#include "mapper/wscan.h"

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
#define SM_GPU_MSG_LEN 256

/* Candidates of a read: its loci (both strands) with a score >= -T, in the
 * order of sm_hit_choose() (score descending, then end, then forward
 * first), plus room for placements found in pairing (pair_resolve): by mate
 * rescue (the mate's best hit and up to SM_MAX_RESCUE - 1 more loci tying
 * with it are rescued for), by seeding the pair again (the best locus of
 * each of the SM_RESEED_PAIRS best window pairs, among the SM_RESEED_SCAN
 * with the most votes) when it is placed below MAPQ SM_RESEED_MAPQ or not
 * as a proper pair, and copies of a placement that pair better (at most
 * SM_MAX_ADOPT per choice).  Whatever finds no room is dropped. */
#define SM_MAX_RESCUE 4
#define SM_RESEED_PAIRS 4
#define SM_RESEED_SCAN 32
#define SM_RESEED_MAPQ 20
#define SM_MAX_ADOPT 2
#define SM_MAX_CAND (SM_STRANDS * SM_TOPK + SM_MAX_RESCUE + SM_RESEED_PAIRS + SM_MAX_ADOPT)

/* Insert-size estimation (paired runs): the first SM_INSERT_SAMPLE_PAIRS
 * pairs are mapped read by read before the run starts; pairs whose two reads
 * map uniquely (MAPQ >= SM_INSERT_MIN_MAPQ) on one contig, facing each
 * other, give the distribution.  Inserts beyond SM_INSERT_IQR_FENCE
 * interquartile ranges outside the quartiles are outliers; the proper-pair
 * range is mean +- SM_INSERT_SD_RANGE standard deviations.  Fewer than
 * SM_INSERT_MIN_PAIRS usable pairs: no pair is proper and nothing is rescued. */
#define SM_INSERT_SAMPLE_PAIRS 2048
#define SM_INSERT_MIN_PAIRS 16
#define SM_INSERT_MIN_MAPQ 20
#define SM_INSERT_IQR_FENCE 2.0
#define SM_INSERT_SD_RANGE 4.0
#define SM_QUARTILE 4
/* Floor of the insert standard deviation in the pair score (insert_score),
 * for a sample whose inserts are all alike. */
#define SM_INSERT_MIN_SD 1.0

/* Pairing (as bwa mem): a proper pair is preferred to the two reads' best
 * hits unless those score more than SM_PAIR_PENALTY above it; a read of a
 * proper pair gets the pair's MAPQ, at most SM_PAIR_MAPQ_BOOST above its
 * own. */
#define SM_PAIR_PENALTY 17
/* A rescue window reaches this much beyond the proper-insert range, for
 * the span of an untraced candidate (read length before its end column). */
#define SM_RESCUE_SLACK 20
#define SM_PAIR_MAPQ_BOOST 40
/* Seeding limits can cost a read its locus: its seeds there may be
 * repetitive (more than --max-occ hits) or its cluster not among the
 * --max-windows best, which happens to divergent reads in repeat-rich
 * genomes.  A seeded read whose best hit scores under 1/SM_RETRY_BELOW of
 * a perfect match (or that has none) is seeded again with SM_RETRY_OCC times
 * the occurrence cap and SM_RETRY_WINDOWS times the windows, and keeps the
 * better of the two results. */
#define SM_RETRY_BELOW 2
#define SM_RETRY_OCC 10
#define SM_RETRY_WINDOWS 4

/* Where the workers' time goes (summed over workers; logged at -v 4). */
enum {
	PH_SEED,         /* minimizers, votes, windows */
	PH_WSCAN,        /* window scans */
	PH_CANDS,        /* candidates, best hits' tracebacks */
	PH_EXHAUSTIVE,   /* whole-reference scans */
	PH_TANDEM,       /* tandem checks (scans included) */
	PH_EMIT,         /* pairing, rescue, records */
	PH_N
};
static const char *const ph_name[PH_N] = { "seeding", "window scans", "candidates",
					    "exhaustive", "tandem", "pairing+records" };

/* A copy of a candidate beside it (tandem_xs): its score and its offset
 * from the candidate's alignment in reference columns (> 0: to the right;
 * less than a side window, sm_max_span() of the read). */
typedef struct {
	int32_t score;
	int32_t shift;
} copy_t;

/* The best SM_COPIES_PER_SIDE copies on each side of the alignment (a
 * cand_t is moved about whole: its size shows in the run time). */
#define SM_COPIES_PER_SIDE 2
#define SM_MAX_COPIES (2 * SM_COPIES_PER_SIDE)

typedef struct {
	int32_t score;
	int is_rev;
	int64_t end;         /* global end column (as the scan reported it) */
	int32_t xs;          /* best score of the read's other loci */
	int32_t near;        /* best score beside the alignment (tandem_xs) */
	int near_done;       /* near and copy[] are known */
	int n_copy;          /* copies beside the alignment (tandem_xs), for pairing */
	copy_t copy[SM_MAX_COPIES];
	int rescued;         /* found by mate rescue: the read's other loci are unknown */
	int32_t qlen;        /* the read's length */
	int traced;          /* aln holds the traceback (done lazily: see ensure_traced) */
	sm_aln_t aln;        /* traceback, global coordinates */
} cand_t;

/* What mapping found for one read. */
typedef struct {
	int n_cand;
	cand_t cand[SM_MAX_CAND];
	int prim;            /* the primary candidate, -1: unmapped */
	int mapq;
	int proper;
	int exhaustive;      /* seeded mode gave nothing: scan the whole reference */
	int from_windows;    /* candidates found in the windows win[0..n_win) */
	sm_window_t *win;    /* the read's seeded windows, for tracebacks after the scan */
	int32_t n_win;
	int32_t m_win;
} res_t;

typedef struct batch_s {
	int64_t no;              /* batch number, from 0, in input order */
	int n, m;                /* reads used, slots allocated (pairs: R1, R2, R1, ...) */
	sm_read_t *reads;        /* m slots, buffers reused */
	res_t *res;              /* m slots */
	bam1_t **recs;           /* records of the batch, in output order */
	int n_rec, m_rec;
	int n_mapped, n_proper;
	int premapped;           /* reads taken ahead: already mapped read by read */
	uint64_t seed_cells;     /* window scan cells of this batch */
	struct batch_s *next;    /* free list or work queue link */
} batch_t;

typedef struct {
	int ok;                  /* the distribution could be estimated */
	int n;                   /* pairs it was estimated from */
	double mean, sd;
	int64_t lo, hi;          /* proper-pair insert range */
} insert_t;

typedef struct {
	const sm_opt_t *opt;
	const sm_ref_t *ref;
	sm_engine_t *engine;     /* NULL when seeded mode runs on the CPU and never falls back */
	sm_engine_t *wengine;    /* engine, when it is the GPU or the oracle: it runs the window
				  * and tandem scans too; NULL: each worker's CPU scan does */
	const sm_index_t *index; /* NULL in exhaustive mode */
	sm_seed_opt_t seed_opt;
	sm_seed_opt_t retry_opt; /* the relaxed limits of the second seeding pass */
	sm_cpu_isa_t isa;        /* of the window scans */
	int seeded, fallback, paired;
	insert_t ins;
	sm_fastq_t *fq, *fq2;    /* fq2: R2 of a two-file pair run */
	sm_read_t *sample;       /* reads taken ahead for the insert sizes */
	res_t *sample_res;       /* what mapping them found (handed over with them) */
	int n_sample, sample_used;
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
	double ph[PH_N];         /* workers' seconds per phase, summed at their exit */
	double read_s;           /* the reader's seconds filling batches */
} pipe_t;

/* Where a tandem copy of a hit can lie: the reference [lo, hi) on one side
 * of it (tandem_sides). */
typedef struct {
	int64_t lo, hi;
	int job;                 /* its scan in a wscan list, -1: empty side */
} side_t;

/* Per-worker scratch, reused from batch to batch. */
typedef struct {
	sm_query_t *q;           /* 2 per read: forward, reverse complement */
	sm_scan_t *scan;
	uint8_t *codes;
	int *todo;               /* reads scanned exhaustively */
	size_t m_q, m_codes;
	sm_align_ws_t *aws;
	sm_record_ws_t rws;
	sm_seeder_t *seeder;
	sm_cpu_scan_t *cscan;    /* window scans when they run on the CPU */
	sm_wref_t wref;          /* scratch window reference (rescue, late tracebacks) */
	sm_wscan_t jobs;         /* the batch's window or tandem scans (wscan.h) */
	sm_wscan_t one;          /* one candidate's tandem scans (pairing) */
	sm_wref_t *wrefs;        /* each read's window reference (seeded mode) */
	int *first_job;          /* each read's first job in jobs, -1: none */
	side_t *sides;           /* two per read: where its tandem copies can lie */
	int m_reads;
	sm_engine_stats_t seed_st;
	double ph[PH_N];         /* seconds per phase */
} worker_ws_t;

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
static bam1_t *batch_rec(batch_t *b)
{
	if (b->n_rec == b->m_rec) {
		int m = b->m_rec ? 2 * b->m_rec : 64;
		bam1_t **recs = realloc(b->recs, (size_t)m * sizeof *recs);

		if (!recs)
			return NULL;
		b->recs = recs;
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

	for (;;) {
		batch_t *b;
		int rc;
		double t;

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

		t = sm_seconds();
		rc = fill_batch(p, b);
		p->read_s += sm_seconds() - t;  /* the reader's own field */

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
		int *todo;

		if (!q)
			return -1;
		ws->q = q;
		s = realloc(ws->scan, n_q * sizeof *s);
		if (!s)
			return -1;
		ws->scan = s;
		todo = realloc(ws->todo, n_q * sizeof *todo);
		if (!todo)
			return -1;
		ws->todo = todo;
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

static int ws_init(const pipe_t *p, worker_ws_t *ws)
{
	memset(ws, 0, sizeof *ws);
	ws->aws = sm_align_ws_create();
	if (!ws->aws)
		return -1;
	/* Window scans: seeded windows, mate rescue, tandem copies (XS). */
	ws->cscan = sm_cpu_scan_create(p->isa, SM_CELLS_AUTO, p->opt->max_read_len);
	if (!ws->cscan)
		return -1;
	if (p->seeded && !(ws->seeder = sm_seeder_create()))
		return -1;
	return 0;
}

static void ws_free(worker_ws_t *ws)
{
	free(ws->q);
	free(ws->scan);
	free(ws->codes);
	free(ws->todo);
	sm_align_ws_destroy(ws->aws);
	sm_record_ws_free(&ws->rws);
	sm_seeder_destroy(ws->seeder);
	sm_cpu_scan_destroy(ws->cscan);
	sm_wref_free(&ws->wref);
	sm_wscan_free(&ws->jobs);
	sm_wscan_free(&ws->one);
	for (int k = 0; k < ws->m_reads; k++)
		sm_wref_free(&ws->wrefs[k]);
	free(ws->wrefs);
	free(ws->first_job);
	free(ws->sides);
}

/* Adds the seconds since *t to phase ph and restarts *t. */
static void ph_add(worker_ws_t *ws, int ph, double *t)
{
	double now = sm_seconds();

	ws->ph[ph] += now - *t;
	*t = now;
}

/* Room for n reads' window references, jobs and sides. */
static int ws_reserve_reads(worker_ws_t *ws, int n)
{
	sm_wref_t *w;

	if (n <= ws->m_reads)
		return 0;
	w = realloc(ws->wrefs, (size_t)n * sizeof *w);
	if (!w)
		goto oom;
	ws->wrefs = w;
	memset(w + ws->m_reads, 0, (size_t)(n - ws->m_reads) * sizeof *w);
	ws->m_reads = n;
	if (!(ws->first_job = realloc(ws->first_job, (size_t)n * sizeof *ws->first_job)) ||
	    !(ws->sides = realloc(ws->sides, (size_t)n * SM_STRANDS * sizeof *ws->sides)))
		goto oom;
	return 0;
oom:
	sm_log(SM_LOG_ERROR, "out of memory mapping a batch of %d reads", n);
	return -1;
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

static int cand_before(const cand_t *a, const cand_t *b)
{
	if (a->score != b->score)
		return a->score > b->score;
	if (a->end != b->end)
		return a->end < b->end;
	return a->is_rev < b->is_rev;
}

/* Fills res's candidates from the two strands' lists (global coordinates):
 * the loci scoring at least -T, cand[0] being sm_hit_choose()'s hit. */
static void make_cands(const pipe_t *p, const sm_scan_t *s, int32_t n, res_t *res)
{
	int shift = sm_locus_shift(&p->opt->score, n);
	sm_hit_t hit;

	sm_hit_choose(&s[0], &s[1], shift, p->opt->min_score, &hit);
	res->n_cand = 0;
	res->prim = -1;
	res->proper = 0;
	res->mapq = 0;
	if (!hit.mapped)
		return;
	for (int st = 0; st < SM_STRANDS; st++)
		for (int k = 0; k < s[st].n; k++) {
			cand_t c = { .score = s[st].top[k].score, .is_rev = st, .end = s[st].top[k].end,
				     .near = 0, .near_done = 0, .rescued = 0, .qlen = n, .traced = 0 };
			int at;

			if (c.score < p->opt->min_score)
				continue;
			for (at = res->n_cand; at > 0 && cand_before(&c, &res->cand[at - 1]); at--) {
				sm_aln_t keep = res->cand[at].aln;

				res->cand[at] = res->cand[at - 1];
				res->cand[at - 1].aln = keep;
			}
			c.aln = res->cand[at].aln;
			c.aln.n_cigar = 0;
			res->cand[at] = c;
			res->n_cand++;
		}
	res->cand[0].xs = hit.xs;
	for (int k = 1; k < res->n_cand; k++)
		res->cand[k].xs = res->cand[0].score;
	res->prim = 0;
	res->mapq = sm_mapq(&p->opt->score, res->cand[0].score, res->cand[0].xs, n);
}

/* Traces candidate c of read query q (q[0] forward, q[1] reverse) against
 * tref: the whole reference (w NULL) or the window reference w. */
static int trace_cand(pipe_t *p, worker_ws_t *ws, const sm_ref_t *tref, const sm_wref_t *w,
		      const sm_query_t *q, cand_t *c, const sm_read_t *r)
{
	int64_t end = w ? sm_wref_from_global(w, c->end) : c->end;
	int64_t shift;

	if (end < 0 || sm_align(ws->aws, tref, &p->opt->score, &q[c->is_rev], end, c->score,
				&c->aln) < 0) {
		sm_log(SM_LOG_ERROR, "%s: read %lld '%s': traceback failed",
		       p->opt->reads_path, (long long)r->index + 1, r->name);
		return -1;
	}
	shift = w ? c->end - end : 0;
	c->aln.ref_start += shift;
	c->aln.ref_end += shift;
	c->traced = 1;
	return 0;
}

/* Traces candidate c of the read (res, r, queries q) unless it is traced:
 * within the read's windows when it was found there, else against the
 * whole reference.  Candidates are traced only when their alignment is
 * needed (the best one, the chosen ones, secondaries); pairing works on the
 * span that a candidate's end and the read length imply (cand_span). */
static int ensure_traced(pipe_t *p, worker_ws_t *ws, const res_t *res, const sm_read_t *r,
			 const sm_query_t *q, cand_t *c)
{
	if (c->traced)
		return 0;
	if (!res->from_windows)
		return trace_cand(p, ws, p->ref, NULL, q, c, r);
	if (sm_wref_set_windows(&ws->wref, p->ref, res->win, res->n_win) < 0)
		return -1;
	return trace_cand(p, ws, &ws->wref.ref, &ws->wref, q, c, r);
}

/* Keeps the windows of wr in res (for ensure_traced).  Returns 0 or -1
 * when out of memory (logged). */
static int keep_windows(const sm_wref_t *wr, res_t *res)
{
	if (wr->n_win > res->m_win) {
		sm_window_t *w = realloc(res->win, (size_t)wr->n_win * sizeof *w);

		if (!w) {
			sm_log(SM_LOG_ERROR, "out of memory keeping a read's windows");
			return -1;
		}
		res->win = w;
		res->m_win = wr->n_win;
	}
	memcpy(res->win, wr->win, (size_t)wr->n_win * sizeof *res->win);
	res->n_win = wr->n_win;
	res->from_windows = 1;
	return 0;
}

/* Seeded mode, after the window scans: candidates of read r (queries q)
 * from its scans local[0..1] over its window reference wr (local NULL: no
 * window), the best one traced.  Sets res->exhaustive when the read must be
 * scanned against the whole reference instead. */
static int seeded_cands(pipe_t *p, worker_ws_t *ws, const sm_read_t *r, const sm_query_t *q,
			const sm_wref_t *wr, const sm_scan_t *local, res_t *res)
{
	int shift = sm_locus_shift(&p->opt->score, r->len);
	sm_scan_t global[SM_STRANDS];

	res->exhaustive = 0;
	res->from_windows = 0;
	memset(global, 0, sizeof global);
	for (int st = 0; local && st < SM_STRANDS; st++)
		sm_wref_scan_to_global(wr, &local[st], shift, &global[st]);
	make_cands(p, global, r->len, res);
	if (res->prim < 0 && p->fallback) {
		res->exhaustive = 1;
		return 0;
	}
	if (keep_windows(wr, res) < 0)
		return -1;
	if (res->n_cand > 0 && trace_cand(p, ws, &wr->ref, wr, q, &res->cand[0], r) < 0)
		return -1;
	return 0;
}

/* Seeds read k (queries in ws->q) with limits opt into ws->wrefs[k] and
 * lists the scans of its two strands in ws->jobs (ws->first_job[k]: the
 * first, -1 when it has no window).  Returns 0 or -1 (logged). */
static int seed_read(pipe_t *p, worker_ws_t *ws, const sm_read_t *r, int k,
		     const sm_seed_opt_t *opt)
{
	const sm_query_t *q = &ws->q[SM_STRANDS * k];
	sm_wref_t *wr = &ws->wrefs[k];
	int n_win = sm_seed_windows(ws->seeder, p->index, p->ref, &p->opt->score, opt, q[0].seq,
				    r->len, wr);

	ws->first_job[k] = -1;
	if (n_win < 0)
		return -1;
	for (int st = 0; n_win > 0 && st < SM_STRANDS; st++) {
		int j = sm_wscan_add(&ws->jobs, &q[st], &wr->ref);

		if (j < 0)
			return -1;
		if (st == 0)
			ws->first_job[k] = j;
	}
	return 0;
}

/* 1 if read r's seeded result res may have lost its locus to the seeding
 * limits (see SM_RETRY_BELOW). */
static int needs_retry(const pipe_t *p, const sm_read_t *r, const res_t *res)
{
	if (res->exhaustive)
		return 0;
	return res->prim < 0 ||
	       (int64_t)SM_RETRY_BELOW * res->cand[0].score < (int64_t)r->len * p->opt->score.match;
}

/* Seeded mode for reads[0..n) (queries in ws->q): every read's windows,
 * then the scans of both strands against them for the whole batch at once
 * (one GPU call, or the worker's CPU scan), then each read's candidates;
 * then the same again, with relaxed limits, for the reads that needs_retry
 * picks, which keep the second result when it scores higher. */
static int seed_batch(pipe_t *p, worker_ws_t *ws, const sm_read_t *reads, int n, res_t *res)
{
	sm_wscan_t *jobs = &ws->jobs;
	double t = sm_seconds();

	if (ws_reserve_reads(ws, n) < 0)
		return -1;
	for (int pass = 0; pass < 2; pass++) {
		const sm_seed_opt_t *opt = pass ? &p->retry_opt : &p->seed_opt;

		sm_wscan_clear(jobs);
		for (int k = 0; k < n; k++) {
			ws->first_job[k] = -1;
			if ((pass == 0 || needs_retry(p, &reads[k], &res[k])) &&
			    seed_read(p, ws, &reads[k], k, opt) < 0)
				return -1;
		}
		ph_add(ws, PH_SEED, &t);
		if (sm_wscan_run(jobs, p->wengine, ws->cscan, &p->opt->score, &ws->seed_st) < 0)
			return -1;
		ph_add(ws, PH_WSCAN, &t);
		for (int k = 0; k < n; k++) {
			int j = ws->first_job[k];
			const sm_scan_t *local = j >= 0 ? &jobs->out[j] : NULL;

			if (pass == 1) {
				int32_t before = res[k].prim >= 0 ? res[k].cand[0].score : 0, best = 0;

				for (int st = 0; local && st < SM_STRANDS; st++)
					if (local[st].n > 0 && local[st].top[0].score > best)
						best = local[st].top[0].score;
				if (best <= before)
					continue;
			}
			if (seeded_cands(p, ws, &reads[k], &ws->q[SM_STRANDS * k], &ws->wrefs[k],
					 local, &res[k]) < 0)
				return -1;
		}
		ph_add(ws, PH_CANDS, &t);
	}
	return 0;
}

/* Tandem copies: a locus bin's neighbours are left out of XS (scan.h), and
 * a bin shows only its best column, so a copy of the hit a few hundred
 * bases away would not lower MAPQ.  The read is scanned (same strand)
 * against the reference right of the hit's start, up to as far as an
 * alignment reaches: there, a locus ending SM_TANDEM_SHIFT or more columns
 * away from the hit's end is a copy shifted right (what ends near the end is
 * the hit itself, realigned without its first bases).  Copies shifted left
 * are found the same way by the reversed read against the reversed
 * reference left of the hit's end (alignment scores do not change when both
 * sequences are reversed), where an "end" is a start.  The best copy's
 * score (c->near) raises the hit's XS; pairing weighs every copy found
 * (c->copy) by the insert it would make.  A copy that scores less than the
 * hit's own remnant in the same locus bin stays hidden. */
#define SM_TANDEM_SHIFT 20

/* Adds the best SM_COPIES_PER_SIDE loci of `scan` (bins over the window
 * [lo, hi) of the forward or reversed reference) whose column lies at least
 * SM_TANDEM_SHIFT from `avoid` (the hit's own end, or its start on the
 * reversed side) to c's copies, with their column's offset from `avoid` as
 * the copy's shift; returns the best such locus' score, 0 if none. */
static int32_t copies_away(const sm_scan_t *scan, int64_t lo, int64_t hi, int reversed,
			   int64_t avoid, cand_t *c)
{
	int32_t best = 0;
	int n = 0;

	for (int k = 0; k < scan->n; k++) {
		int64_t col = reversed ? hi - 1 - scan->top[k].end : lo + scan->top[k].end;

		if (col - avoid < SM_TANDEM_SHIFT && avoid - col < SM_TANDEM_SHIFT)
			continue;
		if (scan->top[k].score > best)
			best = scan->top[k].score;
		if (n++ < SM_COPIES_PER_SIDE)   /* the list is best first */
			c->copy[c->n_copy++] = (copy_t){ scan->top[k].score, (int32_t)(col - avoid) };
	}
	return best;
}

/* The two sides of hit c (read length len) where a copy can lie: right,
 * from one base after its start; left (scanned reversed), up to one base
 * before its end.  Each reaches as far as an alignment can, inside the
 * hit's contig. */
static void tandem_sides(const pipe_t *p, const cand_t *c, int32_t len, side_t side[2])
{
	int32_t contig = sm_ref_contig_of(p->ref, c->aln.ref_start);
	int64_t c_lo = p->ref->offset[contig], c_hi = c_lo + p->ref->len[contig];
	int64_t span = sm_max_span(&p->opt->score, len);

	side[0].lo = c->aln.ref_start + 1;
	side[0].hi = c->aln.ref_end + span > c_hi ? c_hi : c->aln.ref_end + span;
	side[1].lo = c->aln.ref_start - span < c_lo ? c_lo : c->aln.ref_start - span;
	side[1].hi = c->aln.ref_end - 1;
}

/* Lists the scans of c's sides (q: the read's two strands) in jobs. */
static int tandem_add(const pipe_t *p, sm_wscan_t *jobs, const sm_query_t *q, const cand_t *c,
		      side_t side[2])
{
	const sm_query_t *oq = &q[c->is_rev];

	tandem_sides(p, c, oq->len, side);
	for (int s = 0; s < 2; s++) {
		side[s].job = -1;
		if (side[s].lo < side[s].hi &&
		    (side[s].job = sm_wscan_add_part(jobs, oq, s, p->ref, side[s].lo, side[s].hi, s)) < 0)
			return -1;
	}
	return 0;
}

/* c's tandem copies from its sides' scans (out: the list's results). */
static void tandem_finish(cand_t *c, const side_t side[2], const sm_scan_t *out)
{
	c->near_done = 1;
	c->near = 0;
	c->n_copy = 0;
	for (int s = 0; s < 2; s++) {
		int32_t best;

		if (side[s].job < 0)
			continue;
		best = copies_away(&out[side[s].job], side[s].lo, side[s].hi, s,
				   s ? c->aln.ref_start : c->aln.ref_end - 1, c);
		c->near = best > c->near ? best : c->near;
	}
	if (c->near > c->xs)
		c->xs = c->near;
}

/* Tandem copies of one candidate c, scanned now on the CPU (pairing). */
static int tandem_xs(pipe_t *p, worker_ws_t *ws, const sm_query_t *q, cand_t *c)
{
	side_t side[2];

	sm_wscan_clear(&ws->one);
	if (tandem_add(p, &ws->one, q, c, side) < 0 ||
	    sm_wscan_run(&ws->one, NULL, ws->cscan, &p->opt->score, &ws->seed_st) < 0)
		return -1;
	tandem_finish(c, side, ws->one.out);
	return 0;
}

/* Tandem copies of every mapped read's best hit, scanned for the batch at
 * once (one GPU call, or the worker's CPU scan), and the reads' MAPQ. */
static int tandem_batch(pipe_t *p, worker_ws_t *ws, const sm_read_t *reads, int n, res_t *res)
{
	sm_wscan_t *jobs = &ws->jobs;
	double t = sm_seconds();

	if (ws_reserve_reads(ws, n) < 0)
		return -1;
	sm_wscan_clear(jobs);
	for (int k = 0; k < n; k++)
		if (res[k].prim >= 0 && tandem_add(p, jobs, &ws->q[SM_STRANDS * k], &res[k].cand[0],
						   &ws->sides[SM_STRANDS * k]) < 0)
			return -1;
	if (sm_wscan_run(jobs, p->wengine, ws->cscan, &p->opt->score, &ws->seed_st) < 0)
		return -1;
	for (int k = 0; k < n; k++) {
		res_t *rs = &res[k];

		if (rs->prim < 0)
			continue;
		tandem_finish(&rs->cand[0], &ws->sides[SM_STRANDS * k], jobs->out);
		rs->mapq = sm_mapq(&p->opt->score, rs->cand[0].score, rs->cand[0].xs, reads[k].len);
	}
	ph_add(ws, PH_TANDEM, &t);
	return 0;
}

static int map_exhaustive(pipe_t *p, worker_ws_t *ws, const sm_read_t *reads, int n,
			  size_t n_codes, int n_todo, res_t *res);

/* Maps reads[0..n) read by read (no pairing) into res[0..n). */
/* ws->q[2k], ws->q[2k + 1]: read k forward and reverse-complemented.
 * Sets *n_codes to the bases they hold; returns 0 or -1 (logged). */
static int encode_reads(worker_ws_t *ws, const sm_read_t *reads, int n, size_t *n_codes)
{
	size_t off = 0;

	*n_codes = 0;
	for (int k = 0; k < n; k++)
		*n_codes += SM_STRANDS * (size_t)reads[k].len;
	if (ws_reserve(ws, SM_STRANDS * (size_t)n, *n_codes) < 0) {
		sm_log(SM_LOG_ERROR, "out of memory mapping a batch of %d reads", n);
		return -1;
	}
	for (int k = 0; k < n; k++) {
		const sm_read_t *r = &reads[k];
		sm_query_t *q = &ws->q[SM_STRANDS * k];

		q[0].seq = ws->codes + off;
		q[1].seq = ws->codes + off + r->len;
		q[0].len = q[1].len = r->len;
		encode_read(r, ws->codes + off, ws->codes + off + r->len);
		off += SM_STRANDS * (size_t)r->len;
	}
	return 0;
}

static int map_reads(pipe_t *p, worker_ws_t *ws, const sm_read_t *reads, int n, res_t *res)
{
	size_t n_codes;
	int n_todo = 0;

	if (encode_reads(ws, reads, n, &n_codes) < 0)
		return -1;
	if (p->seeded && seed_batch(p, ws, reads, n, res) < 0)
		return -1;
	for (int k = 0; k < n; k++)
		if (!p->seeded || res[k].exhaustive)
			ws->todo[n_todo++] = k;
	if (n_todo > 0) {
		double t = sm_seconds();

		if (map_exhaustive(p, ws, reads, n, n_codes, n_todo, res) < 0)
			return -1;
		ph_add(ws, PH_EXHAUSTIVE, &t);
	}
	return tandem_batch(p, ws, reads, n, res);
}

/* The whole reference: the engine scans the reads ws->todo[0..n_todo) of
 * reads[0..n) (queries already in ws->q). */
static int map_exhaustive(pipe_t *p, worker_ws_t *ws, const sm_read_t *reads, int n,
			  size_t n_codes, int n_todo, res_t *res)
{
	sm_query_t *q;   /* compacted after the batch's own queries */

	if (ws_reserve(ws, SM_STRANDS * (size_t)(n + n_todo), n_codes) < 0) {
		sm_log(SM_LOG_ERROR, "out of memory mapping a batch of %d reads", n);
		return -1;
	}
	q = ws->q + SM_STRANDS * (size_t)n;
	for (int t = 0; t < n_todo; t++) {
		q[SM_STRANDS * t] = ws->q[SM_STRANDS * ws->todo[t]];
		q[SM_STRANDS * t + 1] = ws->q[SM_STRANDS * ws->todo[t] + 1];
	}
	if (sm_engine_scan(p->engine, SM_STRANDS * n_todo, q, ws->scan) < 0)
		return -1;
	for (int t = 0; t < n_todo; t++) {
		int k = ws->todo[t];
		res_t *rs = &res[k];

		make_cands(p, &ws->scan[SM_STRANDS * t], reads[k].len, rs);
		rs->exhaustive = 0;
		rs->from_windows = 0;
		if (rs->n_cand > 0 && trace_cand(p, ws, p->ref, NULL, &q[SM_STRANDS * t],
						 &rs->cand[0], &reads[k]) < 0)
			return -1;
	}
	return 0;
}

/* ---- pairs ---- */

/* Reference span [*s, *e) of the template part that candidate c stands
 * for, clipped to its contig: its alignment's when traced, extended over
 * the read's clipped ends (the fragment goes on there, whatever the
 * alignment), else the read length ending at its end column. */
static void cand_span(const pipe_t *p, const cand_t *c, int64_t *s, int64_t *e)
{
	int32_t contig = sm_ref_contig_of(p->ref, c->traced ? c->aln.ref_start : c->end);
	int64_t lo = p->ref->offset[contig], hi = lo + p->ref->len[contig];

	if (c->traced) {
		*s = c->aln.ref_start - c->aln.q_start;
		*e = c->aln.ref_end + (c->qlen - c->aln.q_end);
	} else {
		*e = c->end + 1;
		*s = *e - c->qlen;
	}
	*s = *s < lo ? lo : *s;
	*e = *e > hi ? hi : *e;
}

/* 5' end of an alignment (samtools' convention): its first base on the
 * forward strand, one past its last on the reverse. */
static int64_t five_prime(const cand_t *c)
{
	return c->is_rev ? c->aln.ref_end : c->aln.ref_start;
}

/* Insert size of candidates a and b, a moved by a_shift reference columns,
 * if they face each other on one contig (forward read left of the reverse
 * one), else -1. */
static int64_t insert_shifted(const pipe_t *p, const cand_t *a, int64_t a_shift, const cand_t *b)
{
	int64_t as, ae, bs, be, fs, re;

	if (a->is_rev == b->is_rev)
		return -1;
	cand_span(p, a, &as, &ae);
	cand_span(p, b, &bs, &be);
	as += a_shift;
	ae += a_shift;
	fs = a->is_rev ? bs : as;
	re = a->is_rev ? ae : be;
	if (sm_ref_contig_of(p->ref, as) != sm_ref_contig_of(p->ref, bs))
		return -1;
	return re > fs ? re - fs : -1;
}

static int64_t insert_of(const pipe_t *p, const cand_t *a, const cand_t *b)
{
	return insert_shifted(p, a, 0, b);
}

static int insert_proper(const pipe_t *p, int64_t ins)
{
	return p->ins.ok && ins >= p->ins.lo && ins <= p->ins.hi;
}

static int is_proper(const pipe_t *p, const cand_t *a, const cand_t *b)
{
	return insert_proper(p, insert_of(p, a, b));
}

/* 1 if candidates a and b of one read are the same placement: one strand,
 * spans (clips undone) starting less than SM_TANDEM_SHIFT apart (a seeded
 * candidate's partial alignment and its full one found by rescue, say). */
static int same_place(const pipe_t *p, const cand_t *a, const cand_t *b)
{
	int64_t as, ae, bs, be;

	if (a->is_rev != b->is_rev)
		return 0;
	cand_span(p, a, &as, &ae);
	cand_span(p, b, &bs, &be);
	return as - bs < SM_TANDEM_SHIFT && bs - as < SM_TANDEM_SHIFT;
}

/* What an insert adds to a pair's score: the Phred value of the chance of
 * an insert at least this far from the mean (two-sided, the distribution
 * taken as normal; bwa mem's pair score has the same term), in score units
 * at MAPQ's rate of SM_MAPQ_PER_MISMATCH per mismatch's worth (A + B), so
 * that a pair's MAPQ weighs the insert's likelihood as it weighs the
 * alignments': 0 at the mean, -2 at 1 sd, -10.5 at 4 sd (bwa scoring).  It
 * tells apart the copies of a tandem repeat, which a unique mate pairs with
 * at inserts as far apart as the copies are. */
static double insert_score(const pipe_t *p, int64_t ins)
{
	const sm_score_t *sc = &p->opt->score;
	double sd = p->ins.sd > SM_INSERT_MIN_SD ? p->ins.sd : SM_INSERT_MIN_SD;
	double z = fabs((double)ins - p->ins.mean) / sd;

	return 10.0 * log10(erfc(z * M_SQRT1_2)) * (sc->match + sc->mismatch) /
	       SM_MAPQ_PER_MISMATCH;
}

/* Score of the proper pair a, b: the two alignment scores plus the insert's. */
static double pair_score(const pipe_t *p, const cand_t *a, const cand_t *b)
{
	return a->score + b->score + insert_score(p, insert_of(p, a, b));
}

/* Mate rescue: aligns read r (queries q) within the window where a proper
 * mate of candidate a lies; of the loci there reaching -T, the one that
 * pairs best with a (pair_score) joins res, unless it is there already. */
static int rescue(pipe_t *p, worker_ws_t *ws, const cand_t *a, const sm_read_t *r,
		  const sm_query_t *q, res_t *res)
{
	const sm_score_t *sc = &p->opt->score;
	int64_t a_s, a_e, lo, hi, c_lo, c_hi;
	int st = !a->is_rev, shift = sm_locus_shift(sc, r->len), pick = -1;
	int32_t contig;
	double best = 0;
	sm_scan_t local, global;
	cand_t *c;

	cand_span(p, a, &a_s, &a_e);
	contig = sm_ref_contig_of(p->ref, a_s);
	c_lo = p->ref->offset[contig];
	c_hi = c_lo + p->ref->len[contig];
	if (a->is_rev) {
		lo = a_e - p->ins.hi - SM_RESCUE_SLACK;
		hi = a_e + SM_RESCUE_SLACK;
	} else {
		lo = a_s - SM_RESCUE_SLACK;
		hi = a_s + p->ins.hi + SM_RESCUE_SLACK;
	}
	lo = lo < c_lo ? c_lo : lo;
	hi = hi > c_hi ? c_hi : hi;
	if (lo >= hi)
		return 0;
	if (sm_wref_set_window(&ws->wref, p->ref, lo, hi) < 0 ||
	    sm_cpu_scan(ws->cscan, &ws->wref.ref, sc, &q[st], &local, &ws->seed_st) < 0)
		return -1;
	sm_wref_scan_to_global(&ws->wref, &local, shift, &global);
	for (int k = 0; k < global.n; k++) {
		cand_t t = { .score = global.top[k].score, .is_rev = st, .end = global.top[k].end,
			     .qlen = r->len };
		double s;

		if (t.score < p->opt->min_score || !is_proper(p, a, &t))
			continue;
		s = pair_score(p, a, &t);
		if (pick < 0 || s > best) {
			best = s;
			pick = k;
		}
	}
	if (pick < 0 || res->n_cand == SM_MAX_CAND)
		return 0;
	c = &res->cand[res->n_cand];
	*c = (cand_t){ .score = global.top[pick].score, .is_rev = st, .end = global.top[pick].end,
		       .qlen = r->len, .aln = c->aln };
	for (int k = 0; k < res->n_cand; k++)
		if (res->cand[k].score >= c->score && same_place(p, &res->cand[k], c))
			return 0;
	c->xs = res->n_cand > 0 ? res->cand[0].score : 0;
	c->rescued = 1;
	if (trace_cand(p, ws, &ws->wref.ref, &ws->wref, q, c, r) < 0)
		return -1;
	res->n_cand++;
	return 0;
}

/* The best score of res's candidates that make a proper pair with a, -1
 * if none does. */
static int32_t proper_mate_score(const pipe_t *p, const cand_t *a, const res_t *res)
{
	int32_t best = -1;

	for (int k = 0; k < res->n_cand; k++)
		if (res->cand[k].score > best && is_proper(p, a, &res->cand[k]))
			best = res->cand[k].score;
	return best;
}

/* A read's own MAPQ at candidate c: 0 for a rescued placement, whose
 * competitors elsewhere were never looked for. */
static int read_mapq(const pipe_t *p, const cand_t *c, int32_t len)
{
	return c->rescued ? 0 : sm_mapq(&p->opt->score, c->score, c->xs, len);
}

/* The proper pair of res[0], res[1] with the highest pair score: its
 * candidates pick[0], pick[1] (-1: none) and its score *best (ties keep the
 * first pair found); pick[2], pick[3] and *second: the same for the best
 * pair that places the reads elsewhere, one read at least (-1: none). */
static void best_pair(const pipe_t *p, const res_t *res, int pick[2 * SM_STRANDS],
		      double *best, double *second)
{
	for (int k = 0; k < 2 * SM_STRANDS; k++)
		pick[k] = -1;
	*best = *second = -1;
	for (int i = 0; i < res[0].n_cand; i++)
		for (int j = 0; j < res[1].n_cand; j++) {
			const cand_t *a = &res[0].cand[i], *b = &res[1].cand[j];
			double s;

			if (!is_proper(p, a, b))
				continue;
			s = pair_score(p, a, b);
			if (pick[0] < 0 || s > *best) {
				*best = s;
				pick[0] = i;
				pick[1] = j;
			}
		}
	for (int i = 0; pick[0] >= 0 && i < res[0].n_cand; i++)
		for (int j = 0; j < res[1].n_cand; j++) {
			const cand_t *a = &res[0].cand[i], *b = &res[1].cand[j];
			double s;

			if ((same_place(p, a, &res[0].cand[pick[0]]) &&
			     same_place(p, b, &res[1].cand[pick[1]])) || !is_proper(p, a, b))
				continue;
			s = pair_score(p, a, b);
			if (pick[2] < 0 || s > *second) {
				*second = s;
				pick[2] = i;
				pick[3] = j;
			}
		}
}

/* best_pair() on traced spans (clips undone), tracing no more than it
 * must: an untraced candidate's span, the read length up to its end
 * column, is off by whatever its alignment clips at that end, so the best
 * pair's candidates, and the second's unless its scores cannot reach
 * `floor` (the insert only lowers a pair's score), are traced and the
 * pairs chosen again until those are all traced. */
static int best_traced_pair(pipe_t *p, worker_ws_t *ws, const sm_read_t *r,
			    const sm_query_t *q, res_t *res, double floor,
			    int pick[2 * SM_STRANDS], double *best, double *second)
{
	for (;;) {
		int traced = 0;

		best_pair(p, res, pick, best, second);
		for (int k = 0; k < 2 * SM_STRANDS; k++) {
			int e = k % SM_STRANDS;
			cand_t *c = pick[k] >= 0 ? &res[e].cand[pick[k]] : NULL;

			if (!c || c->traced || (k >= SM_STRANDS &&
			    res[0].cand[pick[2]].score + res[1].cand[pick[3]].score <= floor))
				continue;
			if (ensure_traced(p, ws, &res[e], &r[e], &q[SM_STRANDS * e], c) < 0)
				return -1;
			traced = 1;
		}
		if (!traced)
			return 0;
	}
}

/* The best pair that a copy of candidate c (tandem_xs) makes with the
 * mate's candidate m, copy *k (-1: no copy makes a proper pair with m). */
static double best_copy_pair(const pipe_t *p, const cand_t *c, const cand_t *m, int *k)
{
	double best = -1;

	*k = -1;
	for (int t = 0; t < c->n_copy; t++) {
		int64_t ins = insert_shifted(p, c, c->copy[t].shift, m);
		double s;

		if (!insert_proper(p, ins))
			continue;
		s = c->copy[t].score + m->score + insert_score(p, ins);
		if (*k < 0 || s > best) {
			best = s;
			*k = t;
		}
	}
	return best;
}

/* Adds copy k of read r's candidate res->cand[ci] (traced, tandem_xs done)
 * to res: the read is aligned (scan and traceback, same strand) within the
 * copy's span widened by SM_TANDEM_SHIFT - 1 on each side, which leaves out
 * the whole of the candidate itself, and the best locus there at least
 * SM_TANDEM_SHIFT from the candidate's end is taken.  A copy has this to
 * do when it lies in a locus bin that another column of the read tops (in
 * the seeded windows or the rescue window), so it is not a candidate of its
 * own.  Returns 1 when a candidate was added, 0 when none was (no room, no
 * such locus, already there), -1 on error. */
static int adopt_copy(pipe_t *p, worker_ws_t *ws, const sm_read_t *r, const sm_query_t *q,
		      res_t *res, int ci, int k)
{
	const sm_score_t *sc = &p->opt->score;
	const cand_t *c = &res->cand[ci];
	int64_t shift = c->copy[k].shift, lo, hi, c_lo, c_hi, end = -1;
	int32_t contig = sm_ref_contig_of(p->ref, c->aln.ref_start), score = 0, xs = 0;
	sm_scan_t local, global;
	cand_t *n;

	if (res->n_cand == SM_MAX_CAND)
		return 0;
	c_lo = p->ref->offset[contig];
	c_hi = c_lo + p->ref->len[contig];
	lo = c->aln.ref_start + shift - (SM_TANDEM_SHIFT - 1);
	hi = c->aln.ref_end + shift + (SM_TANDEM_SHIFT - 1);
	lo = lo < c_lo ? c_lo : lo;
	hi = hi > c_hi ? c_hi : hi;
	if (lo >= hi)
		return 0;
	if (sm_wref_set_window(&ws->wref, p->ref, lo, hi) < 0 ||
	    sm_cpu_scan(ws->cscan, &ws->wref.ref, sc, &q[c->is_rev], &local, &ws->seed_st) < 0)
		return -1;
	sm_wref_scan_to_global(&ws->wref, &local, sm_locus_shift(sc, r->len), &global);
	for (int t = 0; t < global.n && end < 0; t++)
		if (global.top[t].end - c->end >= SM_TANDEM_SHIFT ||
		    c->end - global.top[t].end >= SM_TANDEM_SHIFT) {
			score = global.top[t].score;
			end = global.top[t].end;
		}
	if (end < 0 || score < p->opt->min_score)
		return 0;
	n = &res->cand[res->n_cand];
	*n = (cand_t){ .score = score, .is_rev = c->is_rev, .end = end, .qlen = r->len,
		       .aln = n->aln };
	for (int t = 0; t < res->n_cand; t++) {
		if (res->cand[t].score >= score && same_place(p, &res->cand[t], n))
			return 0;
		xs = res->cand[t].score > xs ? res->cand[t].score : xs;
	}
	n->xs = xs;          /* the read's other loci, the candidate among them */
	if (trace_cand(p, ws, &ws->wref.ref, &ws->wref, q, n, r) < 0)
		return -1;
	res->n_cand++;
	return 1;
}

/* The read's own best placement: its best candidate not found by rescue
 * (the first of equals), -1 if none. */
static int own_best(const res_t *res)
{
	int best = -1;

	for (int k = 0; k < res->n_cand; k++)
		if (!res->cand[k].rescued && (best < 0 || res->cand[k].score > res->cand[best].score))
			best = k;
	return best;
}

/* The best locus of read r (queries q, strand st) in window w of the
 * reference, as an untraced candidate *c (left in ws->wref).  Returns 1,
 * 0 when none reaches -T, -1 on error. */
static int window_best(pipe_t *p, worker_ws_t *ws, const sm_read_t *r, const sm_query_t *q,
		       int st, const sm_window_t *w, cand_t *c)
{
	const sm_score_t *sc = &p->opt->score;
	sm_scan_t local, global;

	if (sm_wref_set_window(&ws->wref, p->ref, w->start, w->end) < 0 ||
	    sm_cpu_scan(ws->cscan, &ws->wref.ref, sc, &q[st], &local, &ws->seed_st) < 0)
		return -1;
	sm_wref_scan_to_global(&ws->wref, &local, sm_locus_shift(sc, r->len), &global);
	if (global.n == 0 || global.top[0].score < p->opt->min_score)
		return 0;
	*c = (cand_t){ .score = global.top[0].score, .is_rev = st, .end = global.top[0].end,
		       .qlen = r->len, .aln = c->aln };
	return 1;
}

/* Adds the best locus of read r in window w (window_best) to res as a
 * seeded candidate, unless it is there already: its XS is the best of the
 * read's other candidates, and it becomes theirs when it is better.
 * Returns 0 or -1 on error. */
static int add_window_cand(pipe_t *p, worker_ws_t *ws, const sm_read_t *r, const sm_query_t *q,
			   int st, const sm_window_t *w, res_t *res)
{
	cand_t *n = &res->cand[res->n_cand];
	int rc;

	if (res->n_cand == SM_MAX_CAND)
		return 0;
	rc = window_best(p, ws, r, q, st, w, n);
	if (rc <= 0)
		return rc;
	for (int k = 0; k < res->n_cand; k++)
		if (res->cand[k].score >= n->score && same_place(p, &res->cand[k], n))
			return 0;
	if (trace_cand(p, ws, &ws->wref.ref, &ws->wref, q, n, r) < 0)
		return -1;
	for (int k = 0; k < res->n_cand; k++) {
		cand_t *c = &res->cand[k];

		if (same_place(p, c, n))
			continue;
		n->xs = c->score > n->xs ? c->score : n->xs;
		c->xs = n->score > c->xs ? n->score : c->xs;
	}
	res->n_cand++;
	return 0;
}

/* 1 if window w lies within one of the read's seeded windows, which were
 * scanned already. */
static int seeded_already(const res_t *res, const sm_window_t *w)
{
	for (int k = 0; res->from_windows && k < res->n_win; k++)
		if (w->start >= res->win[k].start && w->end <= res->win[k].end)
			return 1;
	return 0;
}

/* Seeds the pair as a pair (sm_seed_pair_windows): both reads are scanned
 * in the SM_RESEED_SCAN window pairs with the most votes (votes tell the
 * true pair from a repeat's other copies poorly), but for those that the
 * reads' own seeding scanned already, and the best loci of the
 * SM_RESEED_PAIRS window pairs whose loci pair best (pair_score) join the
 * reads' candidates.  Returns 0 or -1 on error. */
static int reseed_pair(pipe_t *p, worker_ws_t *ws, const sm_read_t *r, const sm_query_t *q,
		       res_t *res)
{
	sm_window_pair_t wp[SM_RESEED_SCAN];
	double score[SM_RESEED_PAIRS];
	int keep[SM_RESEED_PAIRS], n_keep = 0;
	int n = sm_seed_pair_windows(ws->seeder, p->index, p->ref, &p->opt->score, &p->seed_opt,
				     q[0].seq, r[0].len, q[SM_STRANDS].seq, r[1].len, p->ins.lo,
				     p->ins.hi, SM_RESEED_SCAN, wp);

	if (n < 0)
		return -1;
	for (int k = 0; k < n; k++) {
		cand_t a = { 0 }, b = { 0 };
		int ra, rb, at;
		double s;

		if (seeded_already(&res[0], &wp[k].a) && seeded_already(&res[1], &wp[k].b))
			continue;
		ra = window_best(p, ws, &r[0], &q[0], wp[k].strand_a, &wp[k].a, &a);
		if (ra <= 0) {
			if (ra < 0)
				return -1;
			continue;
		}
		rb = window_best(p, ws, &r[1], &q[SM_STRANDS], !wp[k].strand_a, &wp[k].b, &b);
		if (rb < 0)
			return -1;
		if (rb == 0 || !is_proper(p, &a, &b))
			continue;
		s = pair_score(p, &a, &b);
		for (at = n_keep; at > 0 && score[at - 1] < s; at--)
			;
		if (at == SM_RESEED_PAIRS)
			continue;
		n_keep += n_keep < SM_RESEED_PAIRS;
		memmove(&score[at + 1], &score[at], (size_t)(n_keep - 1 - at) * sizeof *score);
		memmove(&keep[at + 1], &keep[at], (size_t)(n_keep - 1 - at) * sizeof *keep);
		score[at] = s;
		keep[at] = k;
	}
	for (int t = 0; t < n_keep; t++) {
		const sm_window_pair_t *x = &wp[keep[t]];

		if (add_window_cand(p, ws, &r[0], &q[0], x->strand_a, &x->a, &res[0]) < 0 ||
		    add_window_cand(p, ws, &r[1], &q[SM_STRANDS], !x->strand_a, &x->b, &res[1]) < 0)
			return -1;
	}
	return 0;
}

/* The best proper pair of the candidates (pair_score), unless the two
 * reads' own best placements, taken apart, score more than
 * SM_PAIR_PENALTY above it: sets *bi, *bj and its MAPQ *q_pe and returns 1,
 * or returns 0 when there is none, -1 on error. */
static int choose_pair(pipe_t *p, worker_ws_t *ws, const sm_read_t *r, const sm_query_t *q,
		       res_t *res, int *bi, int *bj, int *q_pe)
{
	double best, second, rival = 0, as[SM_STRANDS];
	int32_t unpaired = 0, len[SM_STRANDS];
	int moved[SM_STRANDS] = { 1, 1 }, n_moved = 0;

	for (int e = 0; e < SM_STRANDS; e++) {
		int own = own_best(&res[e]);

		unpaired += own >= 0 ? res[e].cand[own].score : 0;
	}
	/* The best pair, its placements checked for copies; a copy that pairs
	 * better becomes a candidate and the choice is made again. */
	for (int round = 0; ; round++) {
		int pick[2 * SM_STRANDS], adopted = 0;

		if (best_traced_pair(p, ws, r, q, res, unpaired - SM_PAIR_PENALTY, pick, &best,
				     &second) < 0)
			return -1;
		*bi = pick[0];
		*bj = pick[1];
		if (*bi < 0 || best + SM_PAIR_PENALTY < unpaired)
			return 0;
		for (int e = 0; e < SM_STRANDS; e++) {
			cand_t *c = &res[e].cand[pick[e]];

			if (!c->near_done && tandem_xs(p, ws, &q[SM_STRANDS * e], c) < 0)
				return -1;
		}
		/* The rival: the reads' own best placements apart (either read may
		 * be elsewhere), the second pair, a copy's pair; and the reads
		 * whose alignments favour the best pair over it (score more there). */
		rival = unpaired - SM_PAIR_PENALTY;
		moved[0] = moved[1] = 1;
		if (pick[2] >= 0 && second >= rival) {
			int m0 = res[0].cand[pick[2]].score < res[0].cand[pick[0]].score;
			int m1 = res[1].cand[pick[3]].score < res[1].cand[pick[1]].score;

			moved[0] = second > rival ? m0 : moved[0] | m0;
			moved[1] = second > rival ? m1 : moved[1] | m1;
			rival = second;
		}
		for (int e = 0; e < SM_STRANDS && !adopted; e++) {
			int k, rc;
			double s = best_copy_pair(p, &res[e].cand[pick[e]], &res[!e].cand[pick[!e]], &k);

			if (k < 0)
				continue;
			if (s > best && round < SM_MAX_ADOPT) {
				rc = adopt_copy(p, ws, &r[e], &q[SM_STRANDS * e], &res[e], pick[e], k);
				if (rc < 0)
					return -1;
				adopted = rc;
			}
			if (s >= rival) {
				moved[e] = res[e].cand[pick[e]].copy[k].score < res[e].cand[pick[e]].score;
				moved[!e] = s > rival ? 0 : moved[!e];
				rival = s;
			}
		}
		if (!adopted)
			break;
	}
	/* The differences of the reads that favour the best pair are where its
	 * lead could turn around (sm_mapq_lead); a read that scores as much
	 * or more in the rival adds nothing to the lead to turn. */
	for (int e = 0; e < SM_STRANDS; e++)
		if (moved[e]) {
			as[n_moved] = res[e].cand[e ? *bj : *bi].score;
			len[n_moved++] = r[e].len;
		}
	*q_pe = sm_mapq_lead(&p->opt->score, best - (rival > 0 ? rival : 0), n_moved, as, len);
	return 1;
}

/* Chooses the placements of pair (reads r[0], r[1], results res[0], res[1]):
 * mate rescue, then the best proper pair or the two best hits.  In seeded
 * mode a pair left without a proper pair, or with one below MAPQ
 * SM_RESEED_MAPQ, is seeded again as a pair and chosen again: its reads'
 * own best windows may all have missed it (repeats with few exact seeds
 * left at the true locus, in reads with many differences). */
static int pair_resolve(pipe_t *p, worker_ws_t *ws, const sm_read_t *r, const sm_query_t *q,
			res_t *res)
{
	int bi, bj, q_pe = 0, rc;

	for (int e = 0; e < SM_STRANDS; e++)
		res[e].mapq = res[e].prim >= 0 ? read_mapq(p, &res[e].cand[0], r[e].len) : 0;
	if (!p->ins.ok)
		return 0;
	for (int e = 0; e < SM_STRANDS; e++) {
		res_t *mate = &res[!e];
		int n_tied = res[e].n_cand;   /* the mate's list grows, not this one */

		for (int k = 0; k < n_tied && k < SM_MAX_RESCUE; k++) {
			const cand_t *c = &res[e].cand[k];

			if (c->score < res[e].cand[0].score)
				break;
			/* Unless the mate's best hit pairs with c already. */
			if (proper_mate_score(p, c, mate) < (mate->n_cand ? mate->cand[0].score : 0) &&
			    rescue(p, ws, c, &r[!e], &q[SM_STRANDS * !e], mate) < 0)
				return -1;
		}
	}
	rc = choose_pair(p, ws, r, q, res, &bi, &bj, &q_pe);
	if (rc >= 0 && p->index && (rc == 0 || q_pe < SM_RESEED_MAPQ)) {
		if (reseed_pair(p, ws, r, q, res) < 0)
			return -1;
		rc = choose_pair(p, ws, r, q, res, &bi, &bj, &q_pe);
	}
	if (rc < 0)
		return -1;
	if (rc == 0) {   /* each read at its own best */
		for (int e = 0; e < SM_STRANDS; e++) {
			int own = own_best(&res[e]);

			if (own >= 0 && own != res[e].prim) {   /* found by seeding the pair */
				cand_t *c = &res[e].cand[own];

				res[e].prim = own;
				if (ensure_traced(p, ws, &res[e], &r[e], &q[SM_STRANDS * e], c) < 0 ||
				    (!c->near_done && tandem_xs(p, ws, &q[SM_STRANDS * e], c) < 0))
					return -1;
			}
			res[e].mapq = res[e].prim >= 0 ?
				read_mapq(p, &res[e].cand[res[e].prim], r[e].len) : 0;
		}
		return 0;
	}
	res[0].prim = bi;
	res[1].prim = bj;
	for (int e = 0; e < SM_STRANDS; e++) {
		int q_se = read_mapq(p, &res[e].cand[res[e].prim], r[e].len);

		res[e].proper = 1;
		res[e].mapq = q_pe > q_se ? (q_pe < q_se + SM_PAIR_MAPQ_BOOST ? q_pe :
					     q_se + SM_PAIR_MAPQ_BOOST) : q_se;
		if (res[e].mapq > SM_MAPQ_MAX)
			res[e].mapq = SM_MAPQ_MAX;
	}
	return 0;
}

/* ---- records ---- */

static int emit(pipe_t *p, worker_ws_t *ws, batch_t *b, const sm_read_t *r, const cand_t *c,
		const sm_rec_extra_t *x)
{
	bam1_t *rec = batch_rec(b);
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
	const cand_t *done[SM_MAX_SECONDARY + 1];
	sm_rec_extra_t x;
	int n_done = 0;

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
			x.tlen = five_prime(mc) - five_prime(c);
	}
	if (emit(p, ws, b, &r[e], c, &x) < 0)
		return -1;
	if (!c)
		return 0;
	done[n_done++] = c;
	x.flag |= BAM_FSECONDARY;
	x.flag &= (uint16_t)~BAM_FPROPER_PAIR;
	x.mapq = 0;
	x.tlen = 0;
	for (int k = 0; k < me->n_cand && n_done <= p->opt->n_secondary; k++) {
		cand_t *s = &me->cand[k];

		if (s == c)
			continue;
		if (ensure_traced(p, ws, me, &r[e], &q[SM_STRANDS * e], s) < 0)
			return -1;
		if (overlaps(s, done, n_done))
			continue;
		if (emit(p, ws, b, &r[e], s, &x) < 0)
			return -1;
		done[n_done++] = s;
	}
	return 0;
}

static int map_batch(pipe_t *p, batch_t *b, worker_ws_t *ws)
{
	int unit = p->paired ? SM_STRANDS : 1;
	int64_t cells0 = (int64_t)ws->seed_st.cells;
	size_t n_codes;
	double t;

	if (b->premapped ? encode_reads(ws, b->reads, b->n, &n_codes) < 0 :
	    map_reads(p, ws, b->reads, b->n, b->res) < 0)
		return -1;
	t = sm_seconds();
	b->n_mapped = b->n_proper = 0;
	b->n_rec = 0;
	for (int k = 0; k < b->n; k += unit) {
		if (p->paired &&
		    pair_resolve(p, ws, &b->reads[k], &ws->q[SM_STRANDS * k], &b->res[k]) < 0)
			return -1;
		for (int e = 0; e < unit; e++) {
			if (emit_read(p, ws, b, &b->reads[k], &ws->q[SM_STRANDS * k], &b->res[k], e,
				      unit) < 0)
				return -1;
			b->n_mapped += b->res[k + e].prim >= 0;
			b->n_proper += b->res[k + e].proper;
		}
	}
	b->seed_cells = ws->seed_st.cells - (uint64_t)cells0;
	ph_add(ws, PH_EMIT, &t);
	return 0;
}

static void *worker_main(void *arg)
{
	pipe_t *p = arg;
	worker_ws_t ws;

	if (ws_init(p, &ws) < 0) {
		sm_log(SM_LOG_ERROR, "cannot create a worker's workspace");
		ws_free(&ws);
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
	pthread_mutex_lock(&p->lock);
	for (int k = 0; k < PH_N; k++)
		p->ph[k] += ws.ph[k];
	pthread_mutex_unlock(&p->lock);
	ws_free(&ws);
	return NULL;
}

/* ---- writer (the calling thread) ---- */

typedef struct {
	int64_t reads, mapped, proper;
	uint64_t seed_cells;
	double t0, last_progress;
	double write_s;          /* the writer's seconds writing records */
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
		double t;

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
		for (k = 0; k < b->n_rec; k++)
			if (sm_sam_out_write(p->out, b->recs[k]) < 0)
				break;
		c->write_s += sm_seconds() - t;
		c->reads += b->n;
		c->mapped += b->n_mapped;
		c->proper += b->n_proper;
		c->seed_cells += b->seed_cells;

		pthread_mutex_lock(&p->lock);
		b->next = p->free_list;
		p->free_list = b;
		if (k < b->n_rec)
			p->failed = 1;
		pthread_cond_broadcast(&p->cond);
		pthread_mutex_unlock(&p->lock);
		if (k < b->n_rec)
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
				       ph_name[k], p->ph[k]);
		sm_log(SM_LOG_DEBUG, "seconds: workers (summed) %s; reader %.2f; writer %.2f; "
		       "wall %.2f", line, p->read_s, c->write_s, dt);
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
	if (ws_init(j->p, &ws) == 0)
		j->rc = map_reads(j->p, &ws, j->reads, j->n, j->res);
	else
		sm_log(SM_LOG_ERROR, "cannot create a worker's workspace");
	ws_free(&ws);
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

		if (r < 0 || (r > 0 && read_max_len_check(p, &p->sample[p->n_sample], SM_STRANDS) < 0))
			return -1;
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
		    read_mapq(p, &a->cand[0], p->sample[k].len) < SM_INSERT_MIN_MAPQ ||
		    read_mapq(p, &b->cand[0], p->sample[k + 1].len) < SM_INSERT_MIN_MAPQ)
			continue;
		x = insert_of(p, &a->cand[0], &b->cand[0]);
		if (x > 0)
			ins[n_ins++] = x;
	}
	if (rc == 0) {
		insert_stats(ins, n_ins, &p->ins);
		if (p->ins.ok)
			sm_log(SM_LOG_INFO, "insert size from %d of the first %d pairs: mean %.1f, "
			       "sd %.1f; proper pairs %lld..%lld", p->ins.n, p->n_sample / SM_STRANDS,
			       p->ins.mean, p->ins.sd, (long long)p->ins.lo, (long long)p->ins.hi);
		else if (p->n_sample > 0)
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
	if (same_file(o->out_path, o->reads_path) || same_file(o->out_path, o->ref_path) ||
	    (o->mates_path && same_file(o->out_path, o->mates_path))) {
		sm_log(SM_LOG_ERROR, "-o %s: the output would overwrite an input file", o->out_path);
		return -1;
	}
	return 0;
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

int sm_map_run(const sm_opt_t *o)
{
	pipe_t p;
	sm_ref_t *ref = NULL;
	sm_index_t *idx = NULL;
	sm_engine_opt_t eo;
	int64_t bound;
	int gpu;
	char gpu_msg[SM_GPU_MSG_LEN];
	sm_sam_out_opt_t so;
	counts_t c;
	int rc = -1;

	memset(&p, 0, sizeof p);
	memset(&c, 0, sizeof c);
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
	if (sm_ref_load(o->ref_path, &ref) < 0)
		goto out;
	p.ref = ref;

	/* The auto bound depends on the engine that would run exhaustive mode:
	 * the GPU's when --engine gpu, or auto with a usable GPU. */
	memset(&eo, 0, sizeof eo);
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
		p.retry_opt.max_occ = o->max_occ > INT_MAX / SM_RETRY_OCC ? INT_MAX :
				      o->max_occ * SM_RETRY_OCC;
		p.retry_opt.max_windows = o->max_windows * SM_RETRY_WINDOWS;
		if (!(idx = get_index(o, ref)))
			goto out;
		p.index = idx;
	}
	/* The GPU (and the oracle, for tests), when asked for, runs the window
	 * scans too; otherwise each worker scans windows with its own CPU scan. */
	if (!p.seeded || p.fallback || gpu || o->engine == SM_ENGINE_ORACLE) {
		p.engine = sm_engine_create(ref, &o->score, &eo);
		if (!p.engine)
			goto out;
	}
	if (p.engine && sm_engine_kind(p.engine) != SM_ENGINE_CPU)
		p.wengine = p.engine;
	if (p.engine && sm_engine_kind(p.engine) == SM_ENGINE_GPU) {
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
	if (p.paired && estimate_inserts(&p) < 0)
		goto out;
	p.batch_reads -= p.batch_reads % SM_STRANDS;
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
	if (p.engine)
		sm_engine_destroy(p.engine);
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
	sm_ref_destroy(ref);
	sm_fastq_close(p.fq);
	if (p.fq2)
		sm_fastq_close(p.fq2);
	return rc;
}
