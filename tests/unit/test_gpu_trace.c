/* test_gpu_trace.c — GPU tracebacks give sm_align()'s alignments.
 *
 * Reads cut from random contigs (some with N runs) with substitutions,
 * indels and Ns at rates up to 1 in 4, and long divergent reads against a
 * 10 kbp contig (the exhaustive small-reference case the GPU tracebacks
 * are for); every locus the scalar oracle lists is traced by the scalar
 * sm_align() and by sm_align_prepare + sm_gpu_trace_run + sm_align_finish,
 * as the mapper's batched path runs them (map.c's trace_batch): score,
 * coordinates and CIGAR must agree, for eight scoring schemes (clipping
 * penalties that force and forbid clipping among them), bands for the
 * kernel of narrow bands and for the wide ones among them.  The same jobs run
 * as one call, in chunks of a few jobs (one job alone over the limit
 * included), from four threads at once on two engines of one GPU, and
 * every call must give the same results.  Skips (exit 77) without a CUDA
 * device. */
#include "tests/unit/unit.h"

#include <htslib/sam.h>
#include <pthread.h>

#include "gpu/gpu_engine.h"
#include "gpu/gpu_trace.h"
#include "io/base.h"
#include "io/ref.h"
#include "mapper/align.h"
#include "mapper/scan.h"
#include "mapper/score.h"

static const sm_score_t schemes[] = {
	{ 1, 4, 6, 1, 5, 5 }, { 1, 4, 6, 1, 0, 0 }, { 2, 3, 5, 2, 0, 0 }, { 1, 2, 4, 1, 0, 0 },
	{ 5, 4, 2, 3, 0, 0 }, { 2, 3, 5, 2, 1, 30 }, { 1, 2, 4, 1, 20, 0 }, { 5, 4, 2, 3, 9, 9 } };
#define N_SCHEMES ((int)(sizeof schemes / sizeof *schemes))

/* One traceback to check: its read, reference and locus, what the scalar
 * sm_align gave, and the batched path's job. */
typedef struct {
	sm_ref_t *ref;
	sm_query_t q;
	int64_t end;
	int32_t score;
	int ra;
	sm_aln_t a;
	int prep;           /* sm_align_prepare's answer */
	sm_aln_t b;         /* the batched path's alignment */
	sm_tb_job_t job;
	int64_t start;
} item_t;

typedef struct {
	item_t *it;
	int n;
	int cap;
} items_t;

static void push(items_t *v, const item_t *x)
{
	if (v->n == v->cap) {
		v->cap = v->cap ? 2 * v->cap : 256;
		v->it = realloc(v->it, (size_t)v->cap * sizeof *v->it);
	}
	v->it[v->n++] = *x;
}

static void random_seq(char *s, int len, int n_pct)
{
	for (int k = 0; k < len; k++)
		s[k] = (int)rnd(100) < n_pct ? 'N' : "ACGT"[rnd(4)];
	s[len] = '\0';
}

/* A read of n bases from seq[from..m), mutated at rate percent. */
static uint8_t *cut_read(const char *seq, int m, int from, int n, int rate)
{
	uint8_t *qc = xmalloc((size_t)n);
	int k = 0;

	for (int t = from; t < m && k < n; t++) {
		int what = (int)rnd(100);
		if (what < rate / 3 + 1 && rnd(2))
			continue;   /* deletion from the read */
		if (what < rate / 3 + 1)
			qc[k++] = (uint8_t)rnd(4);   /* insertion */
		if (k < n)
			qc[k++] = what < rate ? (uint8_t)rnd(5) : sm_nt4_table[(uint8_t)seq[t]];
	}
	while (k < n)
		qc[k++] = (uint8_t)rnd(4);
	return qc;
}

/* Every locus the oracle lists for read qc against ref, scored by sc. */
static void add_loci(items_t *v, sm_ref_t *ref, uint8_t *qc, int n, const sm_score_t *sc,
		     sm_align_ws_t *scalar)
{
	sm_query_t q = { qc, n };
	sm_scan_t loci;

	sm_scan_oracle(ref, sc, &q, &loci);
	if (loci.n == 0)
		free(qc);
	for (int t = 0; t < loci.n; t++) {
		item_t x;

		memset(&x, 0, sizeof x);
		x.ref = ref;
		x.q = q;
		x.end = loci.top[t].end;
		x.score = loci.top[t].score;
		x.ra = sm_align(scalar, ref, sc, &q, x.end, x.score, &x.a);
		push(v, &x);
	}
}

static int same(const item_t *x)
{
	const sm_aln_t *a = &x->a, *b = &x->b;

	return x->ra == 0 && a->score == b->score && a->ref_start == b->ref_start &&
	       a->ref_end == b->ref_end && a->q_start == b->q_start && a->q_end == b->q_end &&
	       a->n_cigar == b->n_cigar &&
	       !memcmp(a->cigar, b->cigar, (size_t)a->n_cigar * sizeof *a->cigar);
}

/* The GPU's jobs of v (those prepare did not trace itself). */
typedef struct {
	sm_gpu_trace_t *g;
	int n;
	sm_tb_job_t *job;
	const uint8_t **q, **win;
	sm_tb_res_t *res;
	uint32_t *ops;
	int rc;
} batch_t;

static void batch_alloc(batch_t *b, int n)
{
	b->n = n;
	b->job = xmalloc((size_t)n * sizeof *b->job + 1);
	b->q = xmalloc((size_t)n * sizeof *b->q + 1);
	b->win = xmalloc((size_t)n * sizeof *b->win + 1);
	b->res = xmalloc((size_t)n * sizeof *b->res + 1);
	b->ops = xmalloc((size_t)n * SM_TB_MAX_OPS * sizeof *b->ops + 1);
}

static void batch_free(batch_t *b)
{
	free(b->job);
	free(b->q);
	free(b->win);
	free(b->res);
	free(b->ops);
}

static void *batch_main(void *arg)
{
	batch_t *b = arg;

	b->rc = sm_gpu_trace_run(b->g, b->n, b->job, b->q, b->win, b->res, b->ops);
	return NULL;
}

/* Checks every item of v (one scheme) through the GPU with chunks of
 * `chunk` bytes (0: the default); `threads` concurrent calls of the same
 * jobs must agree with the first. */
static void check_scheme(const char *what, items_t *v, const sm_score_t *sc, const char *gpus,
			 int64_t chunk, int threads)
{
	sm_align_ws_t *ws = sm_align_ws_create(SM_CPU_ISA_AUTO);
	sm_tb_score_t ts = sm_tb_score(sc);
	sm_gpu_opt_t gopt;
	sm_gpu_trace_t *g;
	batch_t b[4];
	pthread_t th[4];
	int *map = xmalloc((size_t)v->n * sizeof *map + 1), n_job = 0, differ = 0, agree = 1;
	int prepared = 0, selfs = 0, redo = 0, wide = 0;

	sm_gpu_opt_init(&gopt);
	sm_gpu_list_parse(&gopt.gpus, gpus);
	g = sm_gpu_trace_create(&ts, &gopt);
	CHECK(g != NULL, "%s: traceback engine on GPUs %s", what, gpus);
	if (!g)
		goto out;
	sm_gpu_trace_set_chunk(g, chunk);
	for (int k = 0; k < v->n; k++) {
		item_t *x = &v->it[k];

		x->prep = sm_align_prepare(ws, x->ref, sc, &x->q, x->end, x->score, &x->b, &x->job,
					   &x->start);
		if (x->prep == SM_ALIGN_JOB) {
			map[n_job++] = k;
			/* Bands over 258 offsets take the wide kernels (9+ cells a
			 * lane, gpu_trace.cu). */
			wide += sm_tb_stride(&x->job) > 2 + 32 * 8;
		}
		prepared += x->prep == SM_ALIGN_DONE;
		selfs += x->prep == SM_ALIGN_SELF;
	}
	for (int t = 0; t < threads; t++) {
		batch_alloc(&b[t], n_job);
		b[t].g = g;
		for (int j = 0; j < n_job; j++) {
			item_t *x = &v->it[map[j]];

			b[t].job[j] = x->job;
			b[t].q[j] = x->q.seq;
			b[t].win[j] = x->ref->seq + x->start;
		}
	}
	for (int t = 0; t < threads; t++)
		pthread_create(&th[t], NULL, batch_main, &b[t]);
	for (int t = 0; t < threads; t++)
		pthread_join(th[t], NULL);
	for (int t = 0; t < threads; t++) {
		agree &= b[t].rc == 0;
		for (int j = 0; t > 0 && j < n_job && agree; j++)
			agree = !memcmp(&b[t].res[j], &b[0].res[j], sizeof b[0].res[j]) &&
				!memcmp(b[t].ops + (size_t)j * SM_TB_MAX_OPS,
					b[0].ops + (size_t)j * SM_TB_MAX_OPS,
					(size_t)b[0].res[j].n_ops * sizeof *b[0].ops);
	}
	CHECK(agree, "%s: %d concurrent calls of %d jobs succeed and agree", what, threads, n_job);
	for (int j = 0; j < n_job && b[0].rc == 0; j++) {
		item_t *x = &v->it[map[j]];
		int rc = sm_align_finish(ws, x->ref, sc, &x->q, x->start, &x->job, &b[0].res[j],
					 b[0].ops + (size_t)j * SM_TB_MAX_OPS, &x->b);

		if (rc == SM_ALIGN_SELF) {
			redo++;
			rc = sm_align(ws, x->ref, sc, &x->q, x->end, x->score, &x->b) == 0 ? SM_ALIGN_DONE
											    : -1;
		}
		x->prep = rc;
	}
	for (int k = 0; k < v->n; k++) {
		item_t *x = &v->it[k];

		if (x->prep == SM_ALIGN_SELF)
			x->prep = sm_align(ws, x->ref, sc, &x->q, x->end, x->score, &x->b) == 0 ?
				  SM_ALIGN_DONE : -1;
		if ((x->prep != SM_ALIGN_DONE || !same(x)) && differ++ < 5)
			CHECK(0, "%s: GPU and scalar tracebacks differ: n=%d %d@%lld: rc %d/%d "
			      "score %d/%d start %lld/%lld q %d-%d/%d-%d cigars %d/%d", what,
			      x->q.len, x->score, (long long)x->end, x->ra, x->prep, x->a.score,
			      x->b.score, (long long)x->a.ref_start, (long long)x->b.ref_start,
			      x->a.q_start, x->a.q_end, x->b.q_start, x->b.q_end, x->a.n_cigar,
			      x->b.n_cigar);
	}
	CHECK(differ == 0 && n_job > wide && wide > 0,
	      "%s: %d tracebacks equal the scalar sm_align's (%d on the GPU, %d of them in the wide "
	      "kernels; %d traced by prepare, %d too wide, %d CIGARs too long; %d differ)", what,
	      v->n, n_job, wide, prepared, selfs, redo, differ);
	for (int t = 0; t < threads; t++)
		batch_free(&b[t]);
out:
	sm_gpu_trace_destroy(g);
	sm_align_ws_destroy(ws);
	free(map);
}

int main(void)
{
	char msg[256];
	sm_align_ws_t *scalar;
	sm_ref_t *refs[64];
	char *seqs[64];
	int n_ref = 0;

	unit_begin("test_gpu_trace");
	if (!sm_gpu_available(NULL, msg, (int)sizeof msg)) {
		char why[sizeof msg + 64];

		snprintf(why, sizeof why, "no usable CUDA device (%s)", msg);
		return unit_skip(why);
	}
	scalar = sm_align_ws_create(SM_CPU_ISA_SCALAR);
	for (int s = 0; s < N_SCHEMES; s++) {
		const sm_score_t *sc = &schemes[s];
		items_t v = { 0 };
		char what[96];

		n_ref = 0;
		/* Short contigs, reads of awkward lengths. */
		for (int rep = 0; rep < 48; rep++) {
			static const int lens[] = { 1, 2, 15, 31, 33, 100, 151, 250, 400 };
			int n = lens[rep % 9], m = 1 + (int)rnd(2500);
			const char *name = "c0";
			uint8_t *qc;

			seqs[n_ref] = xmalloc((size_t)m + 1);
			random_seq(seqs[n_ref], m, rep % 7 == 0 ? 5 : 0);
			if (sm_ref_from_strings(1, &name, (const char **)&seqs[n_ref], &refs[n_ref]) < 0) {
				CHECK(0, "reference built");
				free(seqs[n_ref]);
				continue;
			}
			qc = cut_read(seqs[n_ref], m, rep % 3 == 0 ? 0 : (int)rnd((uint32_t)m), n, rep % 26);
			add_loci(&v, refs[n_ref], qc, n, sc, scalar);
			n_ref++;
		}
		/* Long divergent reads against 10 kbp (exhaustive small-reference
		 * mapping): 150 and 250 bp at 2-8% differences. */
		{
			const int m = 10000;
			const char *name = "small";

			seqs[n_ref] = xmalloc((size_t)m + 1);
			random_seq(seqs[n_ref], m, 0);
			if (sm_ref_from_strings(1, &name, (const char **)&seqs[n_ref], &refs[n_ref]) == 0) {
				for (int rep = 0; rep < 24; rep++) {
					int n = rep % 2 ? 150 : 250;
					uint8_t *qc = cut_read(seqs[n_ref], m, (int)rnd((uint32_t)(m - 300)),
							       n, 2 + rep % 7);

					add_loci(&v, refs[n_ref], qc, n, sc, scalar);
				}
				n_ref++;
			}
		}
		snprintf(what, sizeof what, "scheme %d (%d,%d,%d,%d -L %d,%d)", s, sc->match,
			 sc->mismatch, sc->gap_open, sc->gap_ext, sc->clip5, sc->clip3);
		check_scheme(what, &v, sc, "1", 0, 1);
		if (s < 2) {
			snprintf(what, sizeof what, "scheme %d, chunks of 8 KiB, 4 threads, 2 engines", s);
			check_scheme(what, &v, sc, "0,0", 8192, 4);
		}
		for (int k = 0; k < v.n; k++) {
			sm_aln_free(&v.it[k].a);
			sm_aln_free(&v.it[k].b);
		}
		/* Each read's codes belong to its first item. */
		for (int k = 0; k < v.n; k++)
			if (k == 0 || v.it[k].q.seq != v.it[k - 1].q.seq)
				free((void *)v.it[k].q.seq);
		free(v.it);
		for (int r = 0; r < n_ref; r++) {
			sm_ref_destroy(refs[r]);
			free(seqs[r]);
		}
	}
	sm_align_ws_destroy(scalar);
	return unit_end();
}
