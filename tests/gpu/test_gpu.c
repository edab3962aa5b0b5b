/* test_gpu.c — the GPU engine against the scalar oracle (scan.h).
 *
 * Every case builds a reference and a batch of reads in memory from a fixed
 * seed, computes sm_scan_oracle() for every read (threads over reads), then
 * runs the GPU engine with each ladder (cells 8, 16, 32) and requires the
 * very same sm_scan_t.  Cases cover: random sizes that are multiples of
 * nothing, contigs shorter than a window, many contigs, runs of N in the
 * reference and the reads, a read longer than the reference, reads long
 * enough to overflow 8 and 16 bits and then fall back (both switch
 * directions of both ladders, checked through the engine's per-width cell
 * counters), and a batch with reads of every length.  Per-query references
 * (seeded mode) with 16-bit lanes pair the queries that have a reference
 * of their own into one group (Lane references, sw_kernel.cuh): the cases
 * check that every such query was paired.  Several engines on one GPU
 * (--gpus 0,0 and 0,0,0) take concurrent calls and must return the same
 * results; a failure injected on one of them (the engine's test hook)
 * must fail that call, name the device, and leave the others working.
 * Staged copies (gpu_copy.h) of a laid-out reference and of a plain array
 * with staging buffers of odd sizes must arrive byte for byte.
 *
 * Exit 0 when all pass, 1 on a mismatch, 77 (skip) without a CUDA device. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "gpu/gpu_copy.h"
#include "gpu/gpu_engine.h"
#include "gpu/gpu_profile.h"
#include "mapper/scan.h"
#include "mapper/score.h"

#define SKIP_STATUS 77
#define ORACLE_THREADS 16

/* The engines the cases create: a --gpus list (main sets it per pass). */
static const char *test_gpus = "1";   /* device 0 */

/* An engine over ref on the devices of `gpus` (a --gpus list) with knobs
 * `tune` (a --gpu-tune spec, or NULL). */
static sm_gpu_t *create_on(const sm_ref_t *ref, const sm_score_t *sc, sm_cells_t cells,
			   int max_len, const char *gpus, const char *tune)
{
	sm_gpu_opt_t o;

	sm_gpu_opt_init(&o);
	o.cells = cells;
	o.max_query_len = max_len;
	if (sm_gpu_list_parse(&o.gpus, gpus) || (tune && sm_gpu_tune_parse(&o.tune, tune)))
		return NULL;
	return sm_gpu_create(ref, sc, &o);
}

static sm_gpu_t *create(const sm_ref_t *ref, const sm_score_t *sc, sm_cells_t cells, int max_len)
{
	return create_on(ref, sc, cells, max_len, test_gpus, NULL);
}

static int n_fail;
static uint64_t rng_state;

static uint32_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (uint32_t)(rng_state >> 11);
}

static int rnd_range(int lo, int hi) { return lo + (int)(rnd() % (uint32_t)(hi - lo + 1)); }

/* ---- in-memory reference (no io/ref.c: the GPU tests link no htslib/zlib) */

typedef struct {
	sm_ref_t ref;
	int64_t cap;
} test_ref_t;

static void ref_init(test_ref_t *t)
{
	memset(t, 0, sizeof *t);
}

/* Appends a contig of len random bases, with N runs at rate n_rate/1000. */
static void ref_add(test_ref_t *t, int64_t len, int n_rate)
{
	sm_ref_t *r = &t->ref;
	int32_t c = r->n_contig++;

	r->len = realloc(r->len, sizeof(int64_t) * (size_t)r->n_contig);
	r->offset = realloc(r->offset, sizeof(int64_t) * (size_t)r->n_contig);
	r->name = realloc(r->name, sizeof(char *) * (size_t)r->n_contig);
	r->name[c] = NULL;
	r->len[c] = len;
	r->offset[c] = r->total;
	if (r->total + len > t->cap) {
		t->cap = (r->total + len) * 2;
		r->seq = realloc(r->seq, (size_t)t->cap);
	}
	for (int64_t j = 0; j < len; j++) {
		uint8_t b = (uint8_t)(rnd() & 3);
		if (n_rate && (int)(rnd() % 1000) < n_rate) {
			int run = rnd_range(1, 40);
			for (int k = 0; k < run && j < len; k++, j++)
				r->seq[r->total + j] = SM_BASE_N;
			j--;
			continue;
		}
		r->seq[r->total + j] = b;
	}
	r->total += len;
}

/* Starts an empty reference's first contig at column lead (the columns
 * before it hold no contig: wscan.h's lead, the tandem check's bins). */
static void ref_lead(test_ref_t *t, int64_t lead)
{
	t->cap = lead + 1;
	t->ref.seq = realloc(t->ref.seq, (size_t)t->cap);
	memset(t->ref.seq, SM_BASE_N, (size_t)lead);
	t->ref.total = lead;
}

/* Appends a contig holding src[0..len), backwards when rev. */
static void ref_add_copy(test_ref_t *t, const uint8_t *src, int64_t len, int rev)
{
	sm_ref_t *r = &t->ref;
	int32_t c = r->n_contig;

	ref_add(t, len, 0);
	for (int64_t j = 0; j < len; j++)
		r->seq[r->offset[c] + j] = src[rev ? len - 1 - j : j];
}

static void ref_free(test_ref_t *t)
{
	free(t->ref.len);
	free(t->ref.offset);
	free(t->ref.name);
	free(t->ref.seq);
}

/* ---- staged copies (gpu_copy.h) ----------------------------------------- */

/* Copies `bytes` through fill/arg with staging buffers of `chunk` bytes,
 * reads them back and compares them with want. */
static void check_copy_one(const char *name, size_t bytes, sm_gpu_fill_fn *fill, const void *arg,
			   const uint8_t *want, size_t chunk)
{
	uint8_t *d = NULL, *back = malloc(bytes);
	size_t at = bytes;

	if (!back || cudaMalloc((void **)&d, bytes) != cudaSuccess ||
	    sm_gpu_copy_up(d, bytes, fill, arg, chunk) != 0 ||
	    cudaMemcpy(back, d, bytes, cudaMemcpyDeviceToHost) != cudaSuccess) {
		printf("FAIL %s chunk %zu: copy failed\n", name, chunk);
		n_fail++;
	} else {
		for (at = 0; at < bytes && back[at] == want[at]; at++)
			;
		if (at < bytes) {
			printf("FAIL %s chunk %zu: byte %zu is %d, not %d\n", name, chunk, at, back[at],
			       want[at]);
			n_fail++;
		} else {
			printf("ok %s chunk %zu (%zu bytes)\n", name, chunk, bytes);
		}
	}
	cudaFree(d);
	free(back);
}

/* A reference laid out with pads between its contigs (the GPU engine's
 * layout) and a plain array, each through staging buffers of odd sizes:
 * chunks that cut contigs and pads anywhere, one byte, and the default. */
static void check_copy(void)
{
	static const size_t chunks[] = { 1, 7, 61, 4093, 100000, 0 };
	const int64_t pad = 64;
	test_ref_t tr;
	int64_t *dstart;
	uint8_t *want;
	size_t bytes;

	rng_state = 0x5eedull;
	ref_init(&tr);
	for (int c = 0; c < 40; c++)
		ref_add(&tr, rnd_range(1, c % 7 ? 300 : 9000), 3);
	dstart = malloc(sizeof *dstart * (size_t)tr.ref.n_contig);
	bytes = (size_t)(tr.ref.total + (int64_t)(tr.ref.n_contig + 1) * pad) + 17;
	want = malloc(bytes);
	for (int32_t c = 0; c < tr.ref.n_contig; c++)
		dstart[c] = tr.ref.offset[c] + (int64_t)(c + 1) * pad;
	memset(want, 0xee, bytes);
	for (int32_t c = 0; c < tr.ref.n_contig; c++)
		memcpy(want + dstart[c], tr.ref.seq + tr.ref.offset[c], (size_t)tr.ref.len[c]);
	{
		const sm_gpu_ref_image_t lay = { &tr.ref, dstart, 0xee };

		for (size_t k = 0; k < sizeof chunks / sizeof *chunks; k++)
			check_copy_one("copy-ref-layout", bytes, sm_gpu_fill_ref, &lay, want,
				       chunks[k]);
	}
	for (size_t j = 0; j < bytes; j++)
		want[j] = (uint8_t)rnd();
	for (size_t k = 0; k < sizeof chunks / sizeof *chunks; k++)
		check_copy_one("copy-array", bytes, sm_gpu_fill_array, want, want, chunks[k]);
	free(want);
	free(dstart);
	ref_free(&tr);
}

/* ---- reads -------------------------------------------------------------- */

typedef struct {
	int n;
	sm_query_t *q;
	uint8_t **buf;
} test_reads_t;

static void reads_init(test_reads_t *r, int n)
{
	r->n = 0;
	r->q = calloc((size_t)n, sizeof *r->q);
	r->buf = calloc((size_t)n, sizeof *r->buf);
}

static uint8_t *reads_new(test_reads_t *r, int len)
{
	uint8_t *s = malloc((size_t)len);
	r->buf[r->n] = s;
	r->q[r->n].seq = s;
	r->q[r->n].len = len;
	r->n++;
	return s;
}

/* A random read of len bases. */
static void read_random(test_reads_t *r, int len)
{
	uint8_t *s = reads_new(r, len);
	for (int i = 0; i < len; i++)
		s[i] = (uint8_t)(rnd() & 3);
}

/* A read copied from the reference at a random place (across contig ends
 * too), with substitutions, indels and N at the given per-mille rates;
 * then `junk` random bases appended. */
static void read_sampled(test_reads_t *r, const sm_ref_t *ref, int len, int sub, int indel,
			 int nrate, int junk)
{
	uint8_t *s = reads_new(r, len + junk);
	int64_t p = ref->total > 1 ? (int64_t)(rnd() % (uint64_t)ref->total) : 0;
	int i = 0;

	while (i < len) {
		int x = (int)(rnd() % 1000);
		uint8_t b = p < ref->total ? ref->seq[p] : (uint8_t)(rnd() & 3);
		if (x < indel / 2) {
			p++;                         /* deletion */
			continue;
		}
		if (x < indel) {
			s[i++] = (uint8_t)(rnd() & 3);  /* insertion */
			continue;
		}
		x = (int)(rnd() % 1000);
		if (x < sub)
			b = (uint8_t)((b + 1 + rnd() % 3) & 3);
		else if (x < sub + nrate)
			b = SM_BASE_N;
		s[i++] = b;
		p++;
	}
	for (int k = 0; k < junk; k++)
		s[len + k] = (uint8_t)(rnd() & 3);
}

/* A mismatch within 4 bases of the read's first or last base (or both),
 * or an N as its first base, in 4 reads of 5: what the end bonuses of a
 * clipping penalty decide about. */
static void end_marks(sm_query_t *q, int len)
{
	uint8_t *s = (uint8_t *)q->seq;
	int what = (int)(rnd() % 5), x = (int)(rnd() % 4), y = (int)(rnd() % 4);

	if (x >= len || y >= len)
		return;
	if (what == 0 || what == 2)
		s[x] = (uint8_t)((s[x] + 1) & 3);
	if (what == 1 || what == 2)
		s[len - 1 - y] = (uint8_t)((s[len - 1 - y] + 1) & 3);
	if (what == 3)
		s[0] = SM_BASE_N;
}

static void reads_free(test_reads_t *r)
{
	for (int k = 0; k < r->n; k++)
		free(r->buf[k]);
	free(r->buf);
	free(r->q);
}

/* ---- the oracle, in threads -------------------------------------------- */

typedef struct {
	const sm_ref_t *ref;
	const sm_score_t *sc;
	const test_reads_t *reads;
	sm_scan_t *out;
	int next;
	pthread_mutex_t lock;
} oracle_job_t;

static void *oracle_worker(void *arg)
{
	oracle_job_t *j = arg;
	for (;;) {
		int k;
		pthread_mutex_lock(&j->lock);
		k = j->next++;
		pthread_mutex_unlock(&j->lock);
		if (k >= j->reads->n)
			return NULL;
		sm_scan_oracle(j->ref, j->sc, &j->reads->q[k], &j->out[k]);
	}
}

static void run_oracle(const sm_ref_t *ref, const sm_score_t *sc, const test_reads_t *reads,
		       sm_scan_t *out)
{
	pthread_t th[ORACLE_THREADS];
	oracle_job_t j = { ref, sc, reads, out, 0, PTHREAD_MUTEX_INITIALIZER };

	for (int t = 0; t < ORACLE_THREADS; t++)
		pthread_create(&th[t], NULL, oracle_worker, &j);
	for (int t = 0; t < ORACLE_THREADS; t++)
		pthread_join(th[t], NULL);
}

/* ---- one case ----------------------------------------------------------- */


static void print_scan(const char *what, const sm_scan_t *s)
{
	printf("      %s n=%d", what, s->n);
	for (int k = 0; k < s->n; k++)
		printf(" (%d @%lld)", s->top[k].score, (long long)s->top[k].end);
	printf("\n");
}

/* Runs every ladder on the case; need_w: bit w set = the case must compute
 * some cells in width w (0: 8, 1: 16, 2: 32) under that ladder. */
static void check_case(const char *name, const sm_ref_t *ref, const sm_score_t *sc,
		       const test_reads_t *reads, int max_len, const int need_w[3])
{
	static const sm_cells_t ladders[3] = { SM_CELLS_8, SM_CELLS_16, SM_CELLS_32 };
	static const char *const ladder_name[3] = { "8/32", "16/32", "32" };
	sm_scan_t *want = calloc((size_t)reads->n, sizeof *want);
	sm_scan_t *got = calloc((size_t)reads->n, sizeof *got);

	run_oracle(ref, sc, reads, want);
	for (int l = 0; l < 3; l++) {
		sm_engine_stats_t st;
		sm_gpu_t *g = create(ref, sc, ladders[l], max_len);
		int bad = 0, first = -1;

		memset(&st, 0, sizeof st);
		if (!g || sm_gpu_scan(g, reads->n, reads->q, got) != 0) {
			printf("FAIL %s cells %s: engine error\n", name, ladder_name[l]);
			n_fail++;
			sm_gpu_destroy(g);
			continue;
		}
		sm_gpu_stats(g, &st);
		for (int k = 0; k < reads->n; k++) {
			if (!sm_scan_equal(&want[k], &got[k])) {
				if (first < 0)
					first = k;
				bad++;
			}
		}
		if (bad) {
			printf("FAIL %s cells %s: %d of %d reads differ; first read %d (len %d)\n", name,
			       ladder_name[l], bad, reads->n, first, reads->q[first].len);
			print_scan("oracle", &want[first]);
			print_scan("gpu   ", &got[first]);
			n_fail++;
		} else {
			int ok_w = 1;
			for (int w = 0; w < 3; w++)
				if ((need_w[l] >> w & 1) && st.cells_w[w] == 0)
					ok_w = 0;
			printf("%s %s cells %s: %d reads, cells 8/16/32-bit %llu/%llu/%llu\n",
			       ok_w ? "ok  " : "FAIL", name, ladder_name[l], reads->n,
			       (unsigned long long)st.cells_w[0], (unsigned long long)st.cells_w[1],
			       (unsigned long long)st.cells_w[2]);
			if (!ok_w) {
				printf("      expected cells in widths mask 0x%x\n", need_w[l]);
				n_fail++;
			}
		}
		sm_gpu_destroy(g);
	}
	free(want);
	free(got);
}

/* The profile of one scan of reads against ref under the 16/32 ladder
 * (zeros when the engine fails: the caller's checks then fail). */
static sm_gpu_profile_t scan_profile(const sm_ref_t *ref, const sm_score_t *sc,
				     const test_reads_t *reads, int max_len)
{
	sm_gpu_t *g = create(ref, sc, SM_CELLS_16, max_len);
	sm_scan_t *out = calloc((size_t)reads->n, sizeof *out);
	sm_gpu_profile_t p;

	memset(&p, 0, sizeof p);
	if (g && out && sm_gpu_scan(g, reads->n, reads->q, out) == 0)
		sm_gpu_profile(g, &p);
	free(out);
	sm_gpu_destroy(g);
	return p;
}

/* Concurrent calls on one engine: each thread scans its slice of the reads
 * several times (calls in flight overlap on the engine's streams). */
#define CONC_THREADS 4
#define CONC_ROUNDS 3

typedef struct {
	sm_gpu_t *g;
	const sm_query_t *q;
	int n;
	sm_scan_t *out;
	int rc;
} conc_job_t;

static void *conc_worker(void *arg)
{
	conc_job_t *j = arg;

	for (int r = 0; r < CONC_ROUNDS && j->rc == 0; r++)
		j->rc = sm_gpu_scan(j->g, j->n, j->q, j->out);
	return NULL;
}

static void check_concurrent(const char *name, const sm_ref_t *ref, const sm_score_t *sc,
			     const test_reads_t *reads, int max_len, const char *gpus)
{
	sm_scan_t *want = calloc((size_t)reads->n, sizeof *want);
	sm_scan_t *got = calloc((size_t)reads->n, sizeof *got);
	sm_gpu_t *g = create_on(ref, sc, SM_CELLS_AUTO, max_len, gpus, NULL);
	conc_job_t job[CONC_THREADS];
	pthread_t th[CONC_THREADS];
	int bad = 0, err = !g, per = (reads->n + CONC_THREADS - 1) / CONC_THREADS;

	run_oracle(ref, sc, reads, want);
	for (int t = 0; t < CONC_THREADS && g; t++) {
		int lo = t * per, hi = lo + per < reads->n ? lo + per : reads->n;
		job[t] = (conc_job_t){ g, reads->q + lo, hi - lo, got + lo, 0 };
		pthread_create(&th[t], NULL, conc_worker, &job[t]);
	}
	for (int t = 0; t < CONC_THREADS && g; t++) {
		pthread_join(th[t], NULL);
		err |= job[t].rc != 0;
	}
	for (int k = 0; k < reads->n && !err; k++)
		bad += !sm_scan_equal(&want[k], &got[k]);
	printf("%s %s: %d threads x %d calls on GPUs %s, %d reads, %d differ%s\n",
	       err || bad ? "FAIL" : "ok  ", name, CONC_THREADS, CONC_ROUNDS, gpus, reads->n, bad,
	       err ? ", engine error" : "");
	n_fail += err || bad;
	sm_gpu_destroy(g);
	free(want);
	free(got);
}

/* The failure policy on two engines of one GPU: calls one after another
 * take turns (engine 0, 1, 0, 1, ...), so the hook fail=1:2 fails the
 * fourth call; it must return -1 with the device named in the log, and the
 * calls after it run on engine 0 and stay right. */
static void check_failure(const char *name, const sm_ref_t *ref, const sm_score_t *sc,
			  const test_reads_t *reads, int max_len)
{
	sm_scan_t *want = calloc((size_t)reads->n, sizeof *want);
	sm_scan_t *got = calloc((size_t)reads->n, sizeof *got);
	sm_gpu_t *g = create_on(ref, sc, SM_CELLS_AUTO, max_len, "0,0", "fail=1:2");
	int rc[6], bad = 0, ok;

	run_oracle(ref, sc, reads, want);
	for (int c = 0; c < 6 && g; c++) {
		memset(got, 0, sizeof *got * (size_t)reads->n);
		rc[c] = sm_gpu_scan(g, reads->n, reads->q, got);
		for (int k = 0; k < reads->n && rc[c] == 0; k++)
			bad += !sm_scan_equal(&want[k], &got[k]);
	}
	ok = g && rc[0] == 0 && rc[1] == 0 && rc[2] == 0 && rc[3] == -1 && rc[4] == 0 && rc[5] == 0 &&
	     bad == 0;
	printf("%s %s: the injected failure failed call 4 of 6 only, %d results differ\n",
	       ok ? "ok  " : "FAIL", name, bad);
	n_fail += !ok;
	sm_gpu_destroy(g);
	free(want);
	free(got);
}

/* One read of 1..max_len bases for a per-query reference: sampled from it
 * (3 in 4) or random. */
static void read_for_ref(test_reads_t *rd, const sm_ref_t *ref, int max_len)
{
	if (rnd() % 4)
		read_sampled(rd, ref, rnd_range(1, max_len), 20, 5, 5, 0);
	else
		read_random(rd, rnd_range(1, max_len));
}

/* Every ladder's sm_gpu_scan_refs(refs, src) of the rd queries against
 * want[] (the oracle's), with an engine over whole; one line per ladder,
 * `what` naming the references. */
static void refs_every_ladder(const char *name, const char *what, const sm_score_t *sc,
			      const sm_ref_t *whole, int max_len, const test_reads_t *rd,
			      const sm_ref_t **refs, const sm_ref_src_t *src, const sm_scan_t *want)
{
	static const sm_cells_t ladders[3] = { SM_CELLS_8, SM_CELLS_16, SM_CELLS_32 };
	static const char *const ladder_name[3] = { "8/32", "16/32", "32" };
	sm_scan_t *got = calloc((size_t)rd->n, sizeof *got);
	int alone = 0;

	/* Queries alone in a group of two (consecutive queries with the same
	 * reference share groups; an odd run leaves one alone). */
	for (int k = 0, run = 1; k < rd->n; k++, run++)
		if (k + 1 == rd->n || refs[k + 1] != refs[k]) {
			alone += run % 2;
			run = 0;
		}
	for (int l = 0; l < 3; l++) {
		sm_gpu_t *g = create(whole, sc, ladders[l], max_len);
		sm_gpu_profile_t pr;
		int bad = 0, first = -1;

		if (!g || sm_gpu_scan_refs(g, rd->n, rd->q, refs, src, got) != 0 ||
		    sm_gpu_profile(g, &pr) != 0) {
			printf("FAIL %s cells %s: engine error\n", name, ladder_name[l]);
			n_fail++;
			sm_gpu_destroy(g);
			continue;
		}
		/* 16-bit lanes pair them all (Lane references); the others none. */
		if (pr.lane_pairs != (ladders[l] == SM_CELLS_16 ? alone / 2 : 0)) {
			printf("FAIL %s cells %s: %lld lane pairs of %d queries alone in "
			       "their group\n", name, ladder_name[l], (long long)pr.lane_pairs, alone);
			n_fail++;
		}
		for (int k = 0; k < rd->n; k++) {
			if (!sm_scan_equal(&want[k], &got[k])) {
				if (first < 0)
					first = k;
				bad++;
			}
		}
		printf("%s %s cells %s: %d queries on %s (%lld groups, %lld lane pairs), %d differ\n",
		       bad ? "FAIL" : "ok  ", name, ladder_name[l], rd->n, what, (long long)pr.groups,
		       (long long)pr.lane_pairs, bad);
		if (bad) {
			print_scan("oracle", &want[first]);
			print_scan("gpu   ", &got[first]);
			n_fail++;
		}
		sm_gpu_destroy(g);
	}
	free(got);
}

/* Every ladder against the oracle for queries rd, query k on its own
 * reference refs[k] (one of tr[0..R)), with bases on the host; then frees
 * tr, rd and refs. */
static void own_refs_every_ladder(const char *name, const char *what, const sm_score_t *sc,
				  int max_len, test_ref_t *tr, int R, test_reads_t *rd,
				  const sm_ref_t **refs)
{
	sm_scan_t *want = calloc((size_t)rd->n, sizeof *want);
	test_ref_t whole;

	for (int k = 0; k < rd->n; k++)
		sm_scan_oracle(refs[k], sc, &rd->q[k], &want[k]);
	/* The engine's own (whole) reference is unused by these calls. */
	ref_init(&whole);
	ref_add(&whole, 1000, 0);
	refs_every_ladder(name, what, sc, &whole.ref, max_len, rd, refs, NULL, want);
	for (int r = 0; r < R; r++)
		ref_free(&tr[r]);
	ref_free(&whole);
	reads_free(rd);
	free(tr);
	free(refs);
	free(want);
}

/* Per-query references (sm_gpu_scan_refs, seeded mode): R small
 * references of 1-6 windows (contigs of 1-700 bases, N runs), each with
 * one to three queries sampled from it or random; every ladder against the
 * oracle on each query's own reference. */
static void check_refs(const char *name, const sm_score_t *sc, int R, int max_len)
{
	test_ref_t *tr = calloc((size_t)R, sizeof *tr);
	test_reads_t rd;
	const sm_ref_t **refs = calloc((size_t)R * 3, sizeof *refs);
	char what[64];

	reads_init(&rd, R * 3);
	for (int r = 0; r < R; r++) {
		int nq = rnd_range(1, 3);
		ref_init(&tr[r]);
		for (int w = rnd_range(1, 6); w > 0; w--)
			ref_add(&tr[r], rnd_range(1, 700), rnd_range(0, 1) * 5);
		for (int k = 0; k < nq; k++) {
			refs[rd.n] = &tr[r].ref;
			read_for_ref(&rd, &tr[r].ref, max_len);
		}
	}
	snprintf(what, sizeof what, "%d own references", R);
	own_refs_every_ladder(name, what, sc, max_len, tr, R, &rd, refs);
}

/* Per-query references whose bases the GPU copies from its own reference
 * (sm_ref_src_t, seeded mode with the GPU): the engine's reference has
 * several contigs with N runs; each of R small references is 1-8 windows
 * of 1-max_win bases inside random contigs of it, or one window read
 * backwards (the tandem check's left side), a single window half the time
 * after a lead of 1-300 columns without bases; the small references handed
 * to the engine carry no bases.  Every ladder against the oracle on copies
 * of the same windows. */
static void check_srcs(const char *name, const sm_score_t *sc, int R, int max_len, int max_win)
{
	test_ref_t whole, *tr = calloc((size_t)R, sizeof *tr);
	sm_ref_t *bare = calloc((size_t)R, sizeof *bare);
	int64_t *start = calloc((size_t)R * 8, sizeof *start);
	sm_ref_src_t *src = calloc((size_t)R * 3, sizeof *src);
	const sm_ref_t **refs = calloc((size_t)R * 3, sizeof *refs), **bare_refs =
		calloc((size_t)R * 3, sizeof *bare_refs);
	test_reads_t rd;
	sm_scan_t *want;
	char what[64];

	ref_init(&whole);
	ref_add(&whole, 20000, 3);
	ref_add(&whole, 700, 0);
	ref_add(&whole, 90001, 1);
	ref_add(&whole, 4500, 8);
	reads_init(&rd, R * 3);
	for (int r = 0; r < R; r++) {
		int rev = rnd() % 4 == 0, n_win = rev ? 1 : rnd_range(1, 8), nq = rnd_range(1, 3);

		ref_init(&tr[r]);
		if (n_win == 1 && rnd() % 2)
			ref_lead(&tr[r], rnd_range(1, 300));
		for (int w = 0; w < n_win; w++) {
			int32_t c = rnd_range(0, whole.ref.n_contig - 1);
			int64_t len = rnd_range(1, max_win), at;

			len = len > whole.ref.len[c] ? whole.ref.len[c] : len;
			at = whole.ref.offset[c] + (int64_t)(rnd() % (uint64_t)(whole.ref.len[c] - len + 1));
			start[(size_t)r * 8 + w] = at;
			ref_add_copy(&tr[r], whole.ref.seq + at, len, rev);
		}
		bare[r] = tr[r].ref;
		bare[r].seq = NULL;
		for (int k = 0; k < nq; k++) {
			refs[rd.n] = &tr[r].ref;
			bare_refs[rd.n] = &bare[r];
			src[rd.n] = (sm_ref_src_t){ start + (size_t)r * 8, rev };
			read_for_ref(&rd, &tr[r].ref, max_len);
		}
	}
	want = calloc((size_t)rd.n, sizeof *want);
	for (int k = 0; k < rd.n; k++)
		sm_scan_oracle(refs[k], sc, &rd.q[k], &want[k]);
	snprintf(what, sizeof what, "%d references copied on the GPU", R);
	refs_every_ladder(name, what, sc, &whole.ref, max_len, &rd, bare_refs, src, want);
	for (int r = 0; r < R; r++)
		ref_free(&tr[r]);
	ref_free(&whole);
	reads_free(&rd);
	free(tr);
	free(bare);
	free(start);
	free(src);
	free(refs);
	free(bare_refs);
	free(want);
}

/* Per-query references of two windows that one read spans: window A ends
 * with the read's first part, window B starts, after 0-3 other bases,
 * with the rest.  The scan must restart at B (per-group separators are
 * barriers, sw_kernel.cuh), so the best score is a part's, never a path
 * through the separator (diagonal, or a gap across it). */
static void check_split_refs(const char *name, const sm_score_t *sc, int R, int max_len)
{
	test_ref_t *tr = calloc((size_t)R, sizeof *tr);
	test_reads_t rd;
	const sm_ref_t **refs = calloc((size_t)R, sizeof *refs);
	char what[64];

	reads_init(&rd, R);
	for (int r = 0; r < R; r++) {
		int len = rnd_range(20, max_len), cut = rnd_range(1, len - 1);
		int pre = rnd_range(0, 50), gap = rnd_range(0, 3), post = rnd_range(0, 50);
		uint8_t *q;
		sm_ref_t *x = &tr[r].ref;

		read_random(&rd, len);
		q = rd.buf[rd.n - 1];
		ref_init(&tr[r]);
		ref_add(&tr[r], pre + cut, 0);
		memcpy(x->seq + x->offset[0] + pre, q, (size_t)cut);
		ref_add(&tr[r], gap + len - cut + post, 0);
		memcpy(x->seq + x->offset[1] + gap, q + cut, (size_t)(len - cut));
		refs[r] = x;
	}
	snprintf(what, sizeof what, "%d split-read references", R);
	own_refs_every_ladder(name, what, sc, max_len, tr, R, &rd, refs);
}

static const sm_score_t bwa_sc = { 1, 4, 6, 1, 0, 0 };
static const sm_score_t paper_sc = { 1, 2, 4, 1, 0, 0 };

int main(int argc, char **argv)
{
	char msg[256];
	test_ref_t tr;
	test_reads_t rd;
	/* Widths each ladder must use: cells 8 -> 8-bit (+32 when scores
	 * overflow), 16 -> 16-bit, 32 -> 32-bit. */
	int plain[3] = { 1, 2, 4 };
	int over8[3] = { 1 | 4, 2, 4 };

	if (!sm_gpu_available(NULL, msg, sizeof msg)) {
		printf("gpu tests: skipped (no CUDA device: %s)\n", msg);
		return SKIP_STATUS;
	}
	printf("device: %s\n", msg);
	check_copy();

	/* 1. Random sizes, a few contigs, N runs, sampled and random reads. */
	rng_state = 0x9e3779b97f4a7c15ull;
	ref_init(&tr);
	ref_add(&tr, 37123, 2);
	ref_add(&tr, 1001, 0);
	ref_add(&tr, 13, 0);
	ref_add(&tr, 9999, 5);
	reads_init(&rd, 80);
	for (int k = 0; k < 50; k++)
		read_sampled(&rd, &tr.ref, rnd_range(1, 250), 20, 10, 5, 0);
	for (int k = 0; k < 20; k++)
		read_random(&rd, rnd_range(1, 251));
	read_sampled(&rd, &tr.ref, 150, 0, 0, 0, 0);
	read_sampled(&rd, &tr.ref, 33, 0, 0, 0, 0);
	check_case("random+sampled/bwa", &tr.ref, &bwa_sc, &rd, 256, plain);
	check_case("random+sampled/paper", &tr.ref, &paper_sc, &rd, 256, plain);
	reads_free(&rd);
	ref_free(&tr);

	/* 2. Many short contigs (shorter than a window, some of 1 base). */
	rng_state = 12345;
	ref_init(&tr);
	for (int c = 0; c < 300; c++)
		ref_add(&tr, rnd_range(1, 300), 3);
	reads_init(&rd, 40);
	for (int k = 0; k < 40; k++)
		read_sampled(&rd, &tr.ref, rnd_range(20, 151), 10, 5, 0, 0);
	check_case("many-contigs", &tr.ref, &bwa_sc, &rd, 151, plain);
	reads_free(&rd);
	ref_free(&tr);

	/* 3. A read longer than the reference; runs of N everywhere. */
	rng_state = 777;
	ref_init(&tr);
	ref_add(&tr, 97, 0);
	reads_init(&rd, 8);
	read_sampled(&rd, &tr.ref, 300, 0, 0, 0, 0);
	read_sampled(&rd, &tr.ref, 200, 30, 0, 100, 0);
	read_random(&rd, 301);
	for (int k = 0; k < 5; k++)
		read_sampled(&rd, &tr.ref, rnd_range(5, 120), 0, 0, 300, 0);
	check_case("read-longer-than-ref", &tr.ref, &bwa_sc, &rd, 301, plain);
	reads_free(&rd);
	ref_free(&tr);

	/* 4. 8-bit overflow and back: exact runs of 300..900 (> 255), then
	 * random tails that bring the row maxima down again. */
	rng_state = 4242;
	ref_init(&tr);
	ref_add(&tr, 20011, 1);
	ref_add(&tr, 5003, 0);
	reads_init(&rd, 24);
	for (int k = 0; k < 12; k++)
		read_sampled(&rd, &tr.ref, rnd_range(300, 700), 0, 0, 0, rnd_range(200, 300));
	for (int k = 0; k < 6; k++)
		read_sampled(&rd, &tr.ref, rnd_range(500, 1000), 3, 1, 0, 0);
	for (int k = 0; k < 6; k++)
		read_random(&rd, rnd_range(1, 1000));
	check_case("overflow-8bit", &tr.ref, &bwa_sc, &rd, 1000, over8);
	reads_free(&rd);
	ref_free(&tr);

	/* 5. 16-bit overflow and back: match 40 so that 900 matches score
	 * 36000 > 32767; E = 100 keeps the reach (and the halo) short. */
	{
		const sm_score_t big = { 40, 60, 50, 100, 0, 0 };
		int over16[3] = { 1 | 4, 2 | 4, 4 };
		rng_state = 99;
		ref_init(&tr);
		ref_add(&tr, 30011, 0);
		ref_add(&tr, 2999, 2);
		reads_init(&rd, 16);
		for (int k = 0; k < 8; k++)
			read_sampled(&rd, &tr.ref, rnd_range(850, 950), 0, 0, 0, rnd_range(30, 50));
		for (int k = 0; k < 4; k++)
			read_sampled(&rd, &tr.ref, rnd_range(100, 1000), 5, 2, 2, 0);
		for (int k = 0; k < 4; k++)
			read_random(&rd, rnd_range(1, 1000));
		check_case("overflow-16bit", &tr.ref, &big, &rd, 1000, over16);
		reads_free(&rd);
		ref_free(&tr);
	}

	/* 5b. A short reference scanned by thousands of reads at once: the
	 * 16-bit groups one range each in one-warp blocks
	 * (sm_gpu_whole_one_range: 9,719 bases, 4,096 reads of 72-250 bp,
	 * a fifth of them with a mismatch near an end; as a 9.7 kbp virus is
	 * mapped exhaustively), with end bonuses. */
	{
		const sm_score_t clip_bwa = { 1, 4, 6, 1, 5, 5 };

		rng_state = 97190;
		ref_init(&tr);
		ref_add(&tr, 9719, 0);
		reads_init(&rd, 4096);
		for (int k = 0; k < 4096; k++) {
			read_sampled(&rd, &tr.ref, (int[]){ 72, 150, 250 }[k % 3], 40, 4, 0, 0);
			if (k % 5 == 0)
				end_marks(&rd.q[k], rd.q[k].len);
		}
		check_case("short-ref-one-range", &tr.ref, &clip_bwa, &rd, 250, plain);
		{
			const sm_gpu_profile_t p = scan_profile(&tr.ref, &clip_bwa, &rd, 250);

			printf("%s short-ref-one-range: %lld of %lld groups scanned one range each\n",
			       p.one_range > 0 ? "ok  " : "FAIL", (long long)p.one_range,
			       (long long)p.groups);
			n_fail += p.one_range == 0;
		}
		reads_free(&rd);
		ref_free(&tr);
	}

	/* 5c. An amplicon panel: 400 contigs of 100-400 bp and two of 20,000
	 * (cut into pieces of SM_GPU_CONTIG_RANGE_COLS), separators for reads
	 * of 250 bases about as many columns as the bases: the whole-reference
	 * ranges follow the contigs (sm_gpu_contig_ranges), with end bonuses. */
	{
		const sm_score_t clip_bwa = { 1, 4, 6, 1, 5, 5 };

		rng_state = 4004;
		ref_init(&tr);
		for (int c = 0; c < 402; c++)
			ref_add(&tr, c == 100 || c == 300 ? 20000 : rnd_range(100, 400), 0);
		reads_init(&rd, 600);
		for (int k = 0; k < 600; k++) {
			read_sampled(&rd, &tr.ref, rnd_range(50, 210), 30, 4, 0, k % 7 == 0 ? 40 : 0);
			if (k % 5 == 0)
				end_marks(&rd.q[k], rd.q[k].len);
		}
		check_case("panel-contig-ranges", &tr.ref, &clip_bwa, &rd, 250, plain);
		{
			const sm_gpu_profile_t p = scan_profile(&tr.ref, &clip_bwa, &rd, 250);

			printf("%s panel-contig-ranges: %lld ranges a group follow the contigs\n",
			       p.contig_ranges > 402 ? "ok  " : "FAIL", (long long)p.contig_ranges);
			n_fail += p.contig_ranges <= 402;
		}
		reads_free(&rd);
		ref_free(&tr);
	}

	/* 6. Every read length 1..160 in one batch (groups of mixed lengths). */
	rng_state = 31337;
	ref_init(&tr);
	ref_add(&tr, 50021, 1);
	reads_init(&rd, 160);
	for (int len = 1; len <= 160; len++)
		read_sampled(&rd, &tr.ref, len, 15, 5, 5, 0);
	check_case("all-lengths", &tr.ref, &bwa_sc, &rd, 160, plain);
	check_concurrent("concurrent-calls", &tr.ref, &bwa_sc, &rd, 160, "1");
	check_concurrent("concurrent-calls/2-engines", &tr.ref, &bwa_sc, &rd, 160, "0,0");
	check_concurrent("concurrent-calls/3-engines", &tr.ref, &bwa_sc, &rd, 160, "0,0,0");
	check_failure("injected-failure/2-engines", &tr.ref, &bwa_sc, &rd, 160);
	reads_free(&rd);
	ref_free(&tr);

	/* 7. Own references per query (seeded mode's windows). */
	rng_state = 2718;
	check_refs("own-refs/bwa", &bwa_sc, 300, 300);
	check_refs("own-refs/paper", &paper_sc, 100, 1000);
	check_split_refs("split-refs/bwa", &bwa_sc, 300, 300);
	check_split_refs("split-refs/paper", &paper_sc, 100, 1000);
	/* Lane pairs whose 16-bit lanes overflow and come back (match 40:
	 * parts of up to 1000 bases), on the ladder kernel's wide rows. */
	{
		const sm_score_t big = { 40, 60, 50, 100, 0, 0 };

		check_split_refs("split-refs/overflow-16bit", &big, 60, 1000);
	}
	check_srcs("gpu-copied-refs/bwa", &bwa_sc, 300, 300, 900);
	check_srcs("gpu-copied-refs/paper", &paper_sc, 100, 1000, 900);
	/* Long references beside short ones: each is split into ranges of
	 * a few halos (gpu_engine.cu), most groups' later ranges are empty. */
	check_srcs("gpu-copied-long-refs/bwa", &bwa_sc, 400, 150, 5000);
	/* The same on three engines of one GPU. */
	test_gpus = "0,0,0";
	rng_state = 2718;
	check_refs("own-refs/bwa/3-engines", &bwa_sc, 300, 300);
	check_srcs("gpu-copied-refs/bwa/3-engines", &bwa_sc, 300, 300, 900);
	test_gpus = "1";

	/* 8. Clipping penalties (-L, mapper/score.h): bwa's 5,5, a large one
	 * that forbids clipping, one end only; reads with a mismatch or an N
	 * near an end (end_marks), across contig ends, whole-reference and
	 * per-query references, the 8-bit ladder's overflow with the bonus. */
	{
		static const sm_score_t clip_sc[3] = {
			{ 1, 4, 6, 1, 5, 5 }, { 1, 4, 6, 1, 30, 30 }, { 1, 2, 4, 1, 0, 9 },
		};
		static const char *const clip_name[3] = { "-L 5,5", "-L 30,30", "-L 0,9 paper" };
		char name[64];

		for (int v = 0; v < 3; v++) {
			rng_state = 5150 + (uint64_t)v;
			ref_init(&tr);
			ref_add(&tr, 23011, 2);
			ref_add(&tr, 700, 0);
			ref_add(&tr, 9, 0);
			reads_init(&rd, 200);
			for (int len = 1; len <= 160; len++) {
				read_sampled(&rd, &tr.ref, len, 5, 2, 2, 0);
				end_marks(&rd.q[rd.n - 1], len);
			}
			for (int k = 0; k < 24; k++)
				read_sampled(&rd, &tr.ref, rnd_range(240, 260), 0, 0, 0, 0);
			for (int k = 0; k < 8; k++)
				read_sampled(&rd, &tr.ref, rnd_range(300, 600), 2, 1, 0, 0);
			snprintf(name, sizeof name, "clip/%s", clip_name[v]);
			check_case(name, &tr.ref, &clip_sc[v], &rd, 600, over8);
			reads_free(&rd);
			ref_free(&tr);
			snprintf(name, sizeof name, "clip-own-refs/%s", clip_name[v]);
			check_refs(name, &clip_sc[v], 150, 300);
			snprintf(name, sizeof name, "clip-split-refs/%s", clip_name[v]);
			check_split_refs(name, &clip_sc[v], 150, 300);
			snprintf(name, sizeof name, "clip-copied-refs/%s", clip_name[v]);
			check_srcs(name, &clip_sc[v], 150, 300, 900);
		}
	}

	printf("gpu tests: %s (%d failed)\n", n_fail ? "FAILED" : "passed", n_fail);
	(void)argc;
	(void)argv;
	return n_fail ? 1 : 0;
}
