/* gpu_bench.c — speed of the GPU engine (the paper's Fig. 5, Fig. 6,
 * Table 1, the ladder ablation and the n = 150 target).
 *
 *   gpu_bench fig5|fig6|table1|ablation|target|variants|small|smallcols|smallwarps|callsize|smallcall|overlap|windows|all
 *             [--quick]
 *             [--tune KEY=VALUE,...]   (the engine's knobs: gpu_opt.h's sm_gpu_tune_parse)
 *
 * References and reads are generated in memory from fixed seeds (no
 * files, no htslib).  Reads are sampled from the reference with 2%
 * substitutions, so every read has a real hit.  Each figure is the best
 * (minimum time) of REPEATS runs after a warm-up.  One tab-separated line
 * per measurement on stdout:
 *
 *   bench n m reads cells wall_s kernel_s gcups_wall gcups_kernel r8 r16 r32
 *         computed_cells useful_cells upload_s download_s host_s
 *
 * gcups = useful cells (n x m per read, halo and separators not counted)
 * per second; r8/r16/r32 the share of computed cells in each lane width. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpu/gpu_engine.h"
#include "gpu/gpu_profile.h"
#include "io/clock.h"
#include "mapper/score.h"

#define REPEATS 3
#define SUB_PER_MILLE 20

static uint64_t rng_state = 0x2545f4914f6cdd1dull;

static uint32_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (uint32_t)(rng_state >> 11);
}

typedef struct {
	sm_ref_t ref;
	int64_t len1;
	int64_t off1;
} bench_ref_t;

static int make_ref(bench_ref_t *b, int64_t m)
{
	memset(b, 0, sizeof *b);
	b->len1 = m;
	b->off1 = 0;
	b->ref.n_contig = 1;
	b->ref.len = &b->len1;
	b->ref.offset = &b->off1;
	b->ref.total = m;
	b->ref.seq = malloc((size_t)m);
	if (!b->ref.seq)
		return -1;
	for (int64_t j = 0; j < m; j++)
		b->ref.seq[j] = (uint8_t)(rnd() & 3);
	return 0;
}

static sm_query_t *make_reads(const sm_ref_t *ref, int count, int n, uint8_t **store)
{
	sm_query_t *q = calloc((size_t)count, sizeof *q);
	uint8_t *s = malloc((size_t)count * n);

	if (!q || !s) {
		free(q);
		free(s);
		return NULL;
	}
	for (int k = 0; k < count; k++) {
		uint8_t *r = s + (size_t)k * n;
		int64_t p = ref->total > n ? (int64_t)(rnd() % (uint64_t)(ref->total - n)) : 0;
		for (int i = 0; i < n; i++) {
			uint8_t b = p + i < ref->total ? ref->seq[p + i] : (uint8_t)(rnd() & 3);
			if ((int)(rnd() % 1000) < SUB_PER_MILLE)
				b = (uint8_t)((b + 1 + rnd() % 3) & 3);
			r[i] = b;
		}
		q[k].seq = r;
		q[k].len = n;
	}
	*store = s;
	return q;
}

static const char *cells_name(sm_cells_t c)
{
	return c == SM_CELLS_8 ? "8/32" : c == SM_CELLS_16 ? "16/32" : c == SM_CELLS_32 ? "32" : "auto";
}

/* Columns per lane of the 16-bit kernel for the next measurements (0:
 * the engine's default). */
static int bench_cols;
/* Warps a block of that kernel (sm_gpu_set_cols; with bench_cols). */
static int bench_warps = 4;
/* The engine's knobs (--tune). */
static sm_gpu_tune_t bench_tune;

/* An engine on device 0 for reads of up to n bases. */
static sm_gpu_t *bench_create(const sm_ref_t *ref, const sm_score_t *sc, sm_cells_t cells, int n)
{
	sm_gpu_opt_t o;

	sm_gpu_opt_init(&o);
	o.gpus.n = 1;
	o.gpus.id[0] = 0;
	o.cells = cells;
	o.max_query_len = n;
	o.tune = bench_tune;
	return sm_gpu_create(ref, sc, &o);
}

/* Runs one configuration; prints its line.  Returns 0 or -1. */
static int measure(const char *bench, const sm_ref_t *ref, const sm_score_t *sc, sm_cells_t cells,
		   const sm_query_t *q, int count, int n)
{
	sm_gpu_t *g = bench_create(ref, sc, cells, n);

	if (g && bench_cols && sm_gpu_set_cols(g, bench_cols, bench_warps) != 0) {
		sm_gpu_destroy(g);
		return -1;
	}
	sm_scan_t *out = calloc((size_t)count, sizeof *out);
	sm_gpu_profile_t best, p;
	double useful = (double)n * (double)ref->total * count;
	uint64_t comp;

	if (!g || !out) {
		sm_gpu_destroy(g);
		free(out);
		return -1;
	}
	if (sm_gpu_scan(g, count, q, out) != 0)  /* warm-up */
		goto fail;
	memset(&best, 0, sizeof best);
	for (int r = 0; r < REPEATS; r++) {
		if (sm_gpu_scan(g, count, q, out) != 0 || sm_gpu_profile(g, &p) != 0)
			goto fail;
		if (r == 0 || p.total_s < best.total_s)
			best = p;
	}
	comp = best.cells_w[0] + best.cells_w[1] + best.cells_w[2];
	printf("%s\t%d\t%lld\t%d\t%s\t%.6f\t%.6f\t%.2f\t%.2f\t%.4f\t%.4f\t%.4f\t%llu\t%.0f\t%.6f\t%.6f\t%.6f\n",
	       bench, n, (long long)ref->total, count, cells_name(cells), best.total_s, best.kernel_s,
	       useful / best.total_s * 1e-9, useful / best.kernel_s * 1e-9,
	       comp ? (double)best.cells_w[0] / comp : 0, comp ? (double)best.cells_w[1] / comp : 0,
	       comp ? (double)best.cells_w[2] / comp : 0, (unsigned long long)comp, useful,
	       best.upload_s, best.download_s, best.host_prep_s + best.host_post_s);
	fflush(stdout);
	sm_gpu_destroy(g);
	free(out);
	return 0;
fail:
	sm_gpu_destroy(g);
	free(out);
	return -1;
}

/* The paper's scoring: match 1, mismatch 2, Gs = 5, Ge = 1 (O = 4, E = 1). */
static const sm_score_t paper_sc = { 1, 2, 4, 1, 0, 0 };
static const sm_score_t bwa_sc = { 1, 4, 6, 1, 0, 0 };

static int run_ms(const char *bench, const int64_t *ms, int nm, const int *ns, int nn,
		  const sm_cells_t *cl, int nc, const sm_score_t *sc, int reads)
{
	for (int a = 0; a < nm; a++) {
		bench_ref_t br;
		if (make_ref(&br, ms[a]))
			return -1;
		for (int b = 0; b < nn; b++) {
			uint8_t *store;
			sm_query_t *q = make_reads(&br.ref, reads, ns[b], &store);
			if (!q)
				return -1;
			for (int c = 0; c < nc; c++)
				if (measure(bench, &br.ref, sc, cl[c], q, reads, ns[b]))
					return -1;
			free(q);
			free(store);
		}
		free(br.ref.seq);
	}
	return 0;
}

/* run_ms with the 16-bit plain kernel forced to each of cols[0..nc)
 * columns a lane (benches named PREFIX_cC). */
static int run_cols(const char *prefix, const int64_t *ms, int nm, const int *ns, int nn,
		    const int *cols, int nc, int reads)
{
	static const sm_cells_t c16[] = { SM_CELLS_16 };
	int rc = 0;

	for (int k = 0; k < nc && !rc; k++) {
		char name[32];
		bench_cols = cols[k];
		snprintf(name, sizeof name, "%s_c%d", prefix, cols[k]);
		rc = run_ms(name, ms, nm, ns, nn, c16, 1, &bwa_sc, reads);
	}
	bench_cols = 0;
	return rc;
}

/* run_ms with the 16-bit plain kernel (16 columns a lane) as the engine
 * chooses (PREFIX_auto), forced to ranges in blocks of 4 warps (PREFIX_w4,
 * the choice before sm_gpu_whole_one_range) and to one range a group in
 * one-warp blocks (PREFIX_w1). */
static int run_warps(const char *prefix, const int64_t *ms, int nm, const int *ns, int nn, int reads)
{
	static const sm_cells_t c16[] = { SM_CELLS_16 };
	static const struct { const char *name; int warps; } v[] = { { "auto", 0 }, { "w4", 4 }, { "w1", 1 } };
	int rc = 0;

	for (size_t k = 0; k < sizeof v / sizeof *v && !rc; k++) {
		char name[32];

		bench_cols = v[k].warps ? 16 : 0;
		bench_warps = v[k].warps;
		snprintf(name, sizeof name, "%s_%s", prefix, v[k].name);
		rc = run_ms(name, ms, nm, ns, nn, c16, 1, &bwa_sc, reads);
	}
	bench_cols = 0;
	bench_warps = 4;
	return rc;
}

/* Fig. 6: 64 copies of one read of n = 512, and exact copies of it placed
 * every `spacing` columns of the reference: rows 255.. of each strip holding a copy go
 * wide under the 8/32 ladder, so the denser the copies, the lower the 8-bit
 * share r.  (Strips localize the overflow: one copy widens one strip, not
 * a whole row of the reference as in the paper.) */
static int run_fig6(int quick)
{
	const int n = 512, reads = 64;
	const int64_t m = quick ? 1 << 20 : 4 << 20;
	static const int spacing[] = { 0, 16384, 4096, 2048, 1024, 768, 600, 520 };
	static const sm_cells_t cl[] = { SM_CELLS_8, SM_CELLS_16, SM_CELLS_32 };

	for (size_t a = 0; a < sizeof spacing / sizeof *spacing; a++) {
		bench_ref_t br;
		uint8_t *store;
		sm_query_t *q;
		if (make_ref(&br, m))
			return -1;
		q = make_reads(&br.ref, reads, n, &store);
		if (!q)
			return -1;
		/* One read, 64 times: every lane of every group hits every copy. */
		for (int k = 1; k < reads; k++)
			memcpy(store + (size_t)k * n, store, (size_t)n);
		for (int64_t w = 0; spacing[a] && w + n <= m; w += spacing[a])
			memcpy(br.ref.seq + w, store, (size_t)n);
		for (size_t c = 0; c < sizeof cl / sizeof *cl; c++) {
			char name[32];
			snprintf(name, sizeof name, "fig6_d%d", spacing[a]);
			if (measure(name, &br.ref, &paper_sc, cl[c], q, reads, n))
				return -1;
		}
		free(q);
		free(store);
		free(br.ref.seq);
	}
	return 0;
}

/* ---- overlap: calls in flight at once ------------------------------------
 * T threads share one engine, each making CALLS calls of the same batch;
 * with one slot the calls are serialised, with two one call's packing and
 * copies run beside another's kernels.  Useful cells over wall time. */
typedef struct {
	sm_gpu_t *g;
	const sm_query_t *q;
	int count, calls, rc;
	sm_scan_t *out;
} overlap_job_t;

static void *overlap_worker(void *arg)
{
	overlap_job_t *j = arg;

	for (int c = 0; c < j->calls && j->rc == 0; c++)
		j->rc = sm_gpu_scan(j->g, j->count, j->q, j->out);
	return NULL;
}

static int run_overlap(int quick)
{
	static const int64_t ms[] = { 48502, 4600000 };
	static const int threads[] = { 1, 2, 4 };
	const int n = 150, count = 2048, total_calls = quick ? 8 : 16;

	printf("# overlap\tn\tm\tqueries_per_call\tslots\tthreads\tcalls\twall_s\tgcups_wall\tcalls_per_s\n");
	for (size_t mi = 0; mi < sizeof ms / sizeof *ms; mi++) {
		bench_ref_t br;
		uint8_t *store;
		sm_query_t *q;
		sm_gpu_t *g;
		sm_scan_t *out;

		if (make_ref(&br, ms[mi]))
			return -1;
		q = make_reads(&br.ref, count, n, &store);
		g = q ? bench_create(&br.ref, &bwa_sc, SM_CELLS_AUTO, n) : NULL;
		out = calloc((size_t)count * 4, sizeof *out);
		if (!g || !out || sm_gpu_scan(g, count, q, out) != 0) {
			sm_gpu_destroy(g);
			free(out);
			return -1;
		}
		for (int slots = 1; slots <= 2; slots++) {
			if (sm_gpu_set_slots(g, slots))
				return -1;
			for (size_t ti = 0; ti < sizeof threads / sizeof *threads; ti++) {
				const int T = threads[ti];
				overlap_job_t job[4];
				pthread_t th[4];
				double t0, dt, best = 0;

				for (int r = 0; r < REPEATS; r++) {
					t0 = sm_seconds();
					for (int t = 0; t < T; t++) {
						job[t] = (overlap_job_t){ g, q, count, total_calls / T, 0,
									  out + (size_t)t * count };
						pthread_create(&th[t], NULL, overlap_worker, &job[t]);
					}
					for (int t = 0; t < T; t++) {
						pthread_join(th[t], NULL);
						if (job[t].rc)
							return -1;
					}
					dt = sm_seconds() - t0;
					if (r == 0 || dt < best)
						best = dt;
				}
				printf("overlap\t%d\t%lld\t%d\t%d\t%d\t%d\t%.6f\t%.2f\t%.2f\n", n,
				       (long long)ms[mi], count, slots, T, total_calls, best,
				       (double)n * (double)ms[mi] * count * total_calls / best * 1e-9,
				       total_calls / best);
			}
		}
		sm_gpu_destroy(g);
		free(out);
		free(q);
		free(store);
		free(br.ref.seq);
	}
	return 0;
}

/* ---- windows: the seeded mapper's calls (sm_gpu_scan_refs) ----
 *
 * Each read (n = 150, 2% substitutions) gets its own reference of W
 * windows of WIN_COLS columns, as seeding lays them out: the first holds the
 * read's origin, the others are random places of a 64 Mbp reference (the
 * size of chromosome 20).  Both strands of a read are passed together, as
 * the mapper does.  Calls of WIN_READS reads (the mapper's batch) run on T
 * threads at once through the engine's default slots; the line reports
 * the reads per second the GPU sustains for window scans alone, which
 * bounds the end-to-end rate from above. */
#define WIN_READS 4096
#define WIN_COLS 515

typedef struct {
	sm_gpu_t *g;
	const sm_query_t *q;
	const sm_ref_t *const *refs;
	int calls;
	int rc;
	sm_scan_t *out;
} win_job_t;

static void *win_worker(void *arg)
{
	win_job_t *j = arg;

	for (int c = 0; c < j->calls && j->rc == 0; c++)
		j->rc = sm_gpu_scan_refs(j->g, 2 * WIN_READS, j->q, j->refs, NULL, j->out);
	return NULL;
}

static int run_windows(int quick)
{
	static const int wins[] = { 2, 7 };
	static const int threads[] = { 1, 4, 8, 16 };
	const int n = 150, total_calls = quick ? 16 : 32;
	bench_ref_t br;
	int rc = -1;

	printf("# windows\tn\twindows\twin_cols\treads_per_call\tthreads\tcalls\twall_s\t"
	       "reads_per_s\tgcups_wall\tkernel_s_per_call\n");
	if (make_ref(&br, 64000000))
		return -1;
	for (size_t wi = 0; wi < sizeof wins / sizeof *wins; wi++) {
		const int W = wins[wi];
		uint8_t *store = NULL, *wseq = malloc((size_t)WIN_READS * W * WIN_COLS);
		sm_query_t *fwd = make_reads(&br.ref, WIN_READS, n, &store);
		sm_query_t *q = calloc((size_t)2 * WIN_READS, sizeof *q);
		uint8_t *rev = malloc((size_t)WIN_READS * n);
		sm_ref_t *wref = calloc(WIN_READS, sizeof *wref);
		const sm_ref_t **refs = calloc((size_t)2 * WIN_READS, sizeof *refs);
		int64_t *lens = malloc((size_t)WIN_READS * W * sizeof *lens);
		int64_t *offs = malloc((size_t)WIN_READS * W * sizeof *offs);
		sm_scan_t *out = calloc((size_t)2 * WIN_READS * 16, sizeof *out);
		sm_gpu_t *g = NULL;

		if (!wseq || !fwd || !q || !rev || !wref || !refs || !lens || !offs || !out)
			goto next;
		for (int k = 0; k < WIN_READS; k++) {
			/* A fresh origin p for read k (make_reads' bases are
			 * overwritten): the first window is centred on it. */
			int64_t p = (int64_t)(rnd() % (uint64_t)(br.ref.total - WIN_COLS));
			uint8_t *r = (uint8_t *)fwd[k].seq;

			for (int i = 0; i < n; i++) {
				uint8_t b = br.ref.seq[p + (WIN_COLS - n) / 2 + i];
				if ((int)(rnd() % 1000) < SUB_PER_MILLE)
					b = (uint8_t)((b + 1 + rnd() % 3) & 3);
				r[i] = b;
				rev[(size_t)k * n + n - 1 - i] = (uint8_t)(3 - b);
			}
			for (int w = 0; w < W; w++) {
				int64_t at = w ? (int64_t)(rnd() % (uint64_t)(br.ref.total - WIN_COLS)) : p;
				size_t x = (size_t)k * W + (size_t)w;

				memcpy(wseq + x * WIN_COLS, br.ref.seq + at, WIN_COLS);
				lens[x] = WIN_COLS;
				offs[x] = (int64_t)w * WIN_COLS;
			}
			wref[k] = (sm_ref_t){ .n_contig = W, .len = lens + (size_t)k * W,
					      .offset = offs + (size_t)k * W,
					      .total = (int64_t)W * WIN_COLS,
					      .seq = wseq + (size_t)k * W * WIN_COLS };
			q[2 * k] = fwd[k];
			q[2 * k + 1] = (sm_query_t){ rev + (size_t)k * n, n };
			refs[2 * k] = refs[2 * k + 1] = &wref[k];
		}
		g = bench_create(&br.ref, &bwa_sc, SM_CELLS_AUTO, n);
		if (!g || sm_gpu_scan_refs(g, 2 * WIN_READS, q, refs, NULL, out) != 0)
			goto next;
		for (size_t ti = 0; ti < sizeof threads / sizeof *threads; ti++) {
			const int T = threads[ti];
			win_job_t job[16];
			pthread_t th[16];
			double best = 0, kernel = 0;

			for (int r = 0; r < REPEATS; r++) {
				double t0 = sm_seconds(), dt;
				sm_gpu_profile_t pr;

				for (int t = 0; t < T; t++) {
					job[t] = (win_job_t){ g, q, refs, total_calls / T, 0,
							      out + (size_t)(t % 16) * 2 * WIN_READS };
					pthread_create(&th[t], NULL, win_worker, &job[t]);
				}
				for (int t = 0; t < T; t++) {
					pthread_join(th[t], NULL);
					if (job[t].rc)
						goto next;
				}
				dt = sm_seconds() - t0;
				if (r == 0 || dt < best) {
					best = dt;
					kernel = sm_gpu_profile(g, &pr) == 0 ? pr.kernel_s : 0;
				}
			}
			printf("windows\t%d\t%d\t%d\t%d\t%d\t%d\t%.6f\t%.0f\t%.2f\t%.6f\n", n, W,
			       WIN_COLS, WIN_READS, T, total_calls, best,
			       (double)WIN_READS * total_calls / best,
			       2.0 * n * W * WIN_COLS * WIN_READS * total_calls / best * 1e-9, kernel);
			fflush(stdout);
		}
		rc = 0;
next:
		sm_gpu_destroy(g);
		free(wseq);
		free(fwd);
		free(store);
		free(q);
		free(rev);
		free(wref);
		free(refs);
		free(lens);
		free(offs);
		free(out);
		if (rc)
			break;
		if (wi + 1 < sizeof wins / sizeof *wins)
			rc = -1;
	}
	free(br.ref.seq);
	return rc;
}

int main(int argc, char **argv)
{
	char msg[256];
	const char *what = argc > 1 ? argv[1] : "all";
	int quick = 0;
	int all = strcmp(what, "all") == 0;
	static const sm_cells_t all_cells[] = { SM_CELLS_8, SM_CELLS_16, SM_CELLS_32 };
	static const sm_cells_t auto_cells[] = { SM_CELLS_AUTO };

	sm_gpu_tune_init(&bench_tune);
	for (int a = 2; a < argc; a++) {
		if (!strcmp(argv[a], "--quick")) {
			quick = 1;
		} else if (!strcmp(argv[a], "--tune") && a + 1 < argc) {
			if (sm_gpu_tune_parse(&bench_tune, argv[++a]))
				return 1;
		} else {
			fprintf(stderr, "gpu_bench: unknown argument '%s'\n", argv[a]);
			return 1;
		}
	}
	if (!sm_gpu_available(NULL, msg, sizeof msg)) {
		printf("gpu_bench: skipped (no CUDA device: %s)\n", msg);
		return 0;
	}
	printf("# device: %s\n", msg);
	printf("# bench\tn\tm\treads\tcells\twall_s\tkernel_s\tgcups_wall\tgcups_kernel\tr8\tr16\tr32\tcomputed_cells\tuseful_cells\tupload_s\tdownload_s\thost_s\n");

	if (all || !strcmp(what, "fig5")) {
		static const int64_t ms[] = { 1000, 4000, 16000, 64000, 256000, 1000000, 4000000,
					      16000000, 33000000 };
		static const int ns[] = { 128, 256 };
		const int nm = quick ? 6 : (int)(sizeof ms / sizeof *ms);
		/* one read (the paper's single pair) and a batch of 256 */
		if (run_ms("fig5_single", ms, nm, ns, 2, all_cells, 3, &paper_sc, 1) ||
		    run_ms("fig5_batch", ms, nm, ns, 2, all_cells, 3, &paper_sc, 256))
			return 1;
	}
	if (all || !strcmp(what, "fig6"))
		if (run_fig6(quick))
			return 1;
	if (all || !strcmp(what, "table1") || !strcmp(what, "ablation")) {
		static const int64_t ms[] = { 4600000 };
		static const int ns[] = { 128, 256 };
		if (run_ms("ablation", ms, 1, ns, 2, all_cells, 3, &paper_sc, 512))
			return 1;
	}
	if (all || !strcmp(what, "variants")) {
		static const int64_t ms[] = { 4600000 };
		static const int ns[] = { 150 };
		static const int cols[] = { 8, 16, 32 };
		if (run_cols("variant", ms, 1, ns, 1, cols, 3, 1024))
			return 1;
	}
	if (all || !strcmp(what, "small")) {
		/* Exhaustive mode against a small (HIV-sized) reference, as
		 * benchmarks/small_ref.sh maps it, beside 1 Mbp: 4,096 queries
		 * a call, the mapper's call size (2,048 reads, both strands). */
		static const int64_t ms[] = { 9719, 1000000 };
		static const int ns[] = { 72, 150, 250 };
		if (run_ms("small", ms, 2, ns, 3, auto_cells, 1, &bwa_sc, 4096))
			return 1;
	}
	if (!strcmp(what, "smallwarps")) {
		/* The whole-reference kernel as the engine chooses, against
		 * ranges in 4-warp blocks and one range a group in 1-warp ones. */
		static const int64_t ms[] = { 9719, 30000, 100000, 300000, 1000000 };
		static const int ns[] = { 72, 150, 250 };
		if (run_warps("smallwarps", ms, 5, ns, 3, 4096))
			return 1;
	}
	if (!strcmp(what, "smallcols")) {
		/* The small reference's 16-bit plain kernel against its columns
		 * a lane (strips of 256 or 512 columns), beside 1 Mbp. */
		static const int64_t ms[] = { 9719, 1000000 };
		static const int ns[] = { 72, 150, 250 };
		static const int cols[] = { 8, 16 };
		if (run_cols("smallcols", ms, 2, ns, 3, cols, 2, 4096))
			return 1;
	}
	if (all || !strcmp(what, "callsize")) {
		/* The whole reference's launch planning against the size of a
		 * call: 1,024 to 8,192 queries of 150 bp, 1 and 4.6 Mbp. */
		static const int64_t ms[] = { 1000000, 4600000 };
		static const int ns[] = { 150 };
		static const int calls[] = { 1024, 2048, 4096, 8192 };
		for (size_t k = 0; k < sizeof calls / sizeof *calls; k++)
			if (run_ms("callsize", ms, 2, ns, 1, auto_cells, 1, &bwa_sc, calls[k]))
				return 1;
	}
	if (!strcmp(what, "smallcall")) {
		/* The small reference against the size of a call: 4,096 to
		 * 32,768 queries of 150 and 250 bp against 9,719 bp (--tune
		 * batch=N gives the mapper's calls N reads, 2N queries). */
		static const int64_t ms[] = { 9719 };
		static const int ns[] = { 150, 250 };
		static const int calls[] = { 4096, 8192, 16384, 32768 };
		for (size_t k = 0; k < sizeof calls / sizeof *calls; k++)
			if (run_ms("smallcall", ms, 1, ns, 2, auto_cells, 1, &bwa_sc, calls[k]))
				return 1;
	}
	if (all || !strcmp(what, "overlap"))
		if (run_overlap(quick))
			return 1;
	if (all || !strcmp(what, "windows"))
		if (run_windows(quick))
			return 1;
	if (all || !strcmp(what, "target")) {
		static const int64_t ms[] = { 1000000, 4600000, 16000000 };
		static const int ns[] = { 150 };
		if (run_ms("target", ms, quick ? 2 : 3, ns, 1, auto_cells, 1, &bwa_sc, 1024) ||
		    run_ms("target_cells", ms + 1, 1, ns, 1, all_cells, 3, &bwa_sc, 1024))
			return 1;
	}
	return 0;
}
