/* cpu_bench.c — GCUPS of the CPU engine (every ISA this CPU has) against
 * parasail (sw_striped_16, sw_striped_sat, sw_scan_16) and SSW on the same
 * read/reference pairs, on 1 and more threads, in one run.
 *
 *   cpu_bench -r REF.fa [-n READS] [-l LEN] [-s SEED] [-t 1,2] [-b SECONDS]
 *             [-m METHOD,...] [-A MATCH -B MISMATCH -O OPEN -E EXTEND]
 *
 * Reads are sampled from the reference (forward strand) with a fixed seed,
 * 1% substitutions and 0.1% short indels.  Every method scans each read
 * against the whole reference (every contig); cells = read length x
 * reference length.  scanmap's best ISA runs first over all reads and gives
 * the expected best score of each read; every other method works through
 * the same reads in order until all are done or its time budget (-b) is
 * spent, and its best scores are checked against the expected ones.
 * parasail (libparasail.so.8) and SSW (libssw.so.0) are loaded at run time
 * so that the build needs neither; a missing library is reported and
 * skipped.  scanmap-<isa>-tiles and scanmap-<isa>-diag (run only when named
 * with -m) force one of the engine's kernels (sm_cpu_scan_set_kernel), for
 * A/B runs on short references.  Output: one markdown table row per method
 * and thread count. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "io/ref.h"
#include "io/clock.h"
#include "mapper/cpu_scan.h"
#include "io/log.h"
#include "mapper/scan.h"

#define MAX_THREAD_COUNTS 8
#define MAX_THREADS 64
#define SUB_PER_MILLE 10
#define INDEL_PER_MILLE 1
#define MAX_INDEL 3
/* SSW wants maskLen >= 15 for its suboptimal score; we only read score1. */
#define SSW_MASK_LEN 15

/* The few parasail and SSW entry points used (parasail 2.6 parasail.h,
 * SSW 1.1 ssw.h), resolved with dlsym. */
typedef void *(*parasail_fn)(const char *s1, int s1_len, const char *s2, int s2_len,
			     int open, int gap, const void *matrix);
typedef struct {
	void *lib;
	void *(*matrix_create)(const char *alphabet, int match, int mismatch);
	void (*matrix_set_value)(void *matrix, int row, int col, int value);
	void (*matrix_free)(void *matrix);
	int (*result_get_score)(const void *result);
	void (*result_free)(void *result);
	parasail_fn sw[3];
} parasail_api_t;

static const char *const parasail_fn_names[3] = {
	"parasail_sw_striped_16", "parasail_sw_striped_sat", "parasail_sw_scan_16",
};

typedef struct {
	uint16_t score1;   /* the prefix of SSW's s_align that we read */
} ssw_align_head_t;

typedef struct {
	void *lib;
	void *(*init)(const int8_t *read, int32_t len, const int8_t *mat, int32_t n,
		      int8_t score_size);
	void (*init_destroy)(void *profile);
	ssw_align_head_t *(*align)(const void *profile, const int8_t *ref, int32_t ref_len,
				   uint8_t gap_o, uint8_t gap_e, uint8_t flag,
				   uint16_t filters, int32_t filterd, int32_t mask_len);
	void (*align_destroy)(ssw_align_head_t *a);
} ssw_api_t;

typedef enum { M_SCANMAP, M_PARASAIL, M_SSW } method_kind_t;

typedef struct {
	method_kind_t kind;
	char name[48];
	sm_cpu_isa_t isa;
	int variant;            /* parasail function index */
	sm_cpu_kernel_t kernel; /* scanmap: sm_cpu_scan_set_kernel */
} method_t;

typedef struct {
	const sm_ref_t *ref;
	const sm_score_t *sc;
	const sm_cpu_score_t *ksc;  /* sc in the CPU kernels' form (scanmap) */
	char **contig_chars;     /* per contig, "ACGTN" letters, for parasail */
	int nq;
	sm_query_t *q;
	char **q_chars;
	int32_t *expected;       /* best score per read (-1: not known) */
	parasail_api_t *pa;
	ssw_api_t *ssw;
	void *pa_matrix;
	int8_t mat[25];
} bench_t;

typedef struct {
	bench_t *b;
	const method_t *m;
	atomic_int *next;
	double deadline;
	int32_t *got;            /* best score per read, -1 if not done */
	sm_engine_stats_t st;
	double cpu;              /* thread CPU seconds */
	int err;
} worker_t;

static double thread_cpu(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static uint64_t rng_state;

static uint64_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static int load_parasail(parasail_api_t *pa)
{
	pa->lib = dlopen("libparasail.so.8", RTLD_NOW);
	if (!pa->lib)
		return -1;
	*(void **)&pa->matrix_create = dlsym(pa->lib, "parasail_matrix_create");
	*(void **)&pa->matrix_set_value = dlsym(pa->lib, "parasail_matrix_set_value");
	*(void **)&pa->matrix_free = dlsym(pa->lib, "parasail_matrix_free");
	*(void **)&pa->result_get_score = dlsym(pa->lib, "parasail_result_get_score");
	*(void **)&pa->result_free = dlsym(pa->lib, "parasail_result_free");
	for (int k = 0; k < 3; k++)
		*(void **)&pa->sw[k] = dlsym(pa->lib, parasail_fn_names[k]);
	if (!pa->matrix_create || !pa->matrix_set_value || !pa->matrix_free ||
	    !pa->result_get_score || !pa->result_free || !pa->sw[0] || !pa->sw[1] || !pa->sw[2])
		return -1;
	return 0;
}

static int load_ssw(ssw_api_t *s)
{
	s->lib = dlopen("libssw.so.0", RTLD_NOW);
	if (!s->lib)
		return -1;
	*(void **)&s->init = dlsym(s->lib, "ssw_init");
	*(void **)&s->init_destroy = dlsym(s->lib, "init_destroy");
	*(void **)&s->align = dlsym(s->lib, "ssw_align");
	*(void **)&s->align_destroy = dlsym(s->lib, "align_destroy");
	return s->init && s->init_destroy && s->align && s->align_destroy ? 0 : -1;
}

/* Best score of read k by one of the baselines, over every contig. */
static int32_t baseline_score(bench_t *b, const method_t *m, int k)
{
	const sm_ref_t *ref = b->ref;
	const sm_score_t *sc = b->sc;
	int32_t best = 0;

	if (m->kind == M_PARASAIL) {
		for (int32_t c = 0; c < ref->n_contig; c++) {
			void *r = b->pa->sw[m->variant](b->q_chars[k], b->q[k].len,
							b->contig_chars[c], (int)ref->len[c],
							sc->gap_open + sc->gap_ext, sc->gap_ext,
							b->pa_matrix);
			if (!r)
				return -1;
			int s = b->pa->result_get_score(r);
			b->pa->result_free(r);
			if (s > best)
				best = s;
		}
		return best;
	}
	void *prof = b->ssw->init((const int8_t *)b->q[k].seq, b->q[k].len, b->mat,
				  SM_BASE_N + 1, 2);
	if (!prof)
		return -1;
	for (int32_t c = 0; c < ref->n_contig; c++) {
		ssw_align_head_t *a = b->ssw->align(prof, (const int8_t *)ref->seq + ref->offset[c],
						    (int32_t)ref->len[c],
						    (uint8_t)(sc->gap_open + sc->gap_ext),
						    (uint8_t)sc->gap_ext, 0, 0, 0, SSW_MASK_LEN);
		if (!a) {
			best = -1;
			break;
		}
		if (a->score1 > best)
			best = a->score1;
		b->ssw->align_destroy(a);
	}
	b->ssw->init_destroy(prof);
	return best;
}

static void *worker(void *p)
{
	worker_t *w = p;
	bench_t *b = w->b;
	sm_cpu_scan_t *ws = NULL;
	double c0 = thread_cpu();

	if (w->m->kind == M_SCANMAP) {
		ws = sm_cpu_scan_create(w->m->isa, SM_CELLS_AUTO, b->ksc, 256);
		if (!ws) {
			w->err = 1;
			return NULL;
		}
		sm_cpu_scan_set_kernel(ws, w->m->kernel);
	}
	for (;;) {
		if (sm_seconds() > w->deadline)
			break;
		int k = atomic_fetch_add(w->next, 1);
		if (k >= b->nq)
			break;
		if (ws) {
			sm_scan_t out;
			if (sm_cpu_scan(ws, b->ref, &b->q[k], &out, &w->st) != 0) {
				w->err = 1;
				break;
			}
			w->got[k] = out.n ? out.top[0].score : 0;
		} else {
			w->got[k] = baseline_score(b, w->m, k);
		}
	}
	sm_cpu_scan_destroy(ws);
	w->cpu = thread_cpu() - c0;
	return NULL;
}

/* Runs method m on `threads` threads; prints one table row. */
static int run_method(bench_t *b, const method_t *m, int threads, double budget)
{
	worker_t w[MAX_THREADS];
	pthread_t th[MAX_THREADS];
	atomic_int next = 0;
	int32_t *got = malloc(sizeof(*got) * (size_t)b->nq);
	if (!got)
		return -1;
	for (int k = 0; k < b->nq; k++)
		got[k] = -1;
	double t0 = sm_seconds();
	int started = 0, err = 0;
	for (int t = 0; t < threads; t++) {
		w[t] = (worker_t){ .b = b, .m = m, .next = &next, .deadline = t0 + budget,
				   .got = got };
		if (pthread_create(&th[t], NULL, worker, &w[t]) != 0)
			break;
		started++;
	}
	for (int t = 0; t < started; t++)
		pthread_join(th[t], NULL);
	double sec = sm_seconds() - t0;
	sm_engine_stats_t st = { 0 };
	double cpu = 0;
	for (int t = 0; t < started; t++) {
		cpu += w[t].cpu;
		err |= w[t].err;
		st.cells += w[t].st.cells;
		for (int k = 0; k < 3; k++)
			st.cells_w[k] += w[t].st.cells_w[k];
	}
	int done = 0, agree = 0;
	double cells = 0;
	for (int k = 0; k < b->nq; k++) {
		if (got[k] < 0)
			continue;
		done++;
		cells += (double)b->q[k].len * (double)b->ref->total;
		if (b->expected[k] < 0)
			b->expected[k] = got[k];
		agree += got[k] == b->expected[k];
	}
	char widths[64] = "-";
	if (m->kind == M_SCANMAP && st.cells)
		snprintf(widths, sizeof widths, "%.1f / %.1f / %.1f",
			 100.0 * (double)st.cells_w[0] / (double)st.cells,
			 100.0 * (double)st.cells_w[1] / (double)st.cells,
			 100.0 * (double)st.cells_w[2] / (double)st.cells);
	double gcups = sec > 0 ? cells / sec * 1e-9 : 0;
	double gcups_cpu = cpu > 0 ? cells / cpu * 1e-9 : 0;
	printf("| %s | %d | %d | %.2f | %.2f | %.2f | %.2f | %d/%d | %s |\n", m->name, threads,
	       done, sec, gcups, gcups / threads, gcups_cpu, agree, done, widths);
	fflush(stdout);
	free(got);
	return started == threads && !err ? 0 : -1;
}

static void usage(void)
{
	fprintf(stderr, "usage: cpu_bench -r REF.fa [-n READS] [-l LEN] [-s SEED] "
		"[-t THREADS,...] [-b SECONDS] [-m METHOD,...] [-A N -B N -O N -E N]\n"
		"methods: scanmap-<isa>[-tiles|-diag] (isa: avx512 avx2 sse41 scalar; "
		"-tiles: row kernel only, -diag: anti-diagonal kernel for contigs up to a tile), "
		"parasail-striped16, parasail-stripedsat, parasail-scan16, ssw\n");
}

/* 1 if name is selected by the comma-separated list sel (NULL: all). */
static int selected(const char *sel, const char *name)
{
	if (!sel)
		return 1;
	size_t n = strlen(name);
	for (const char *p = sel; (p = strstr(p, name)) != NULL; p += n)
		if ((p == sel || p[-1] == ',') && (p[n] == 0 || p[n] == ','))
			return 1;
	return 0;
}

int main(int argc, char **argv)
{
	const char *ref_path = NULL, *sel = NULL;
	int nq = 100, len = 150, opt;
	int thread_counts[MAX_THREAD_COUNTS] = { 1, 2 }, n_tc = 2;
	double budget = 4.0;
	uint64_t seed = 1;
	sm_score_t sc = { SM_DEFAULT_MATCH, SM_DEFAULT_MISMATCH, SM_DEFAULT_GAP_OPEN,
			  SM_DEFAULT_GAP_EXTEND, 0, 0 };

	while ((opt = getopt(argc, argv, "r:n:l:s:t:b:m:A:B:O:E:")) != -1) {
		switch (opt) {
		case 'r': ref_path = optarg; break;
		case 'n': nq = atoi(optarg); break;
		case 'l': len = atoi(optarg); break;
		case 's': seed = strtoull(optarg, NULL, 10); break;
		case 'b': budget = atof(optarg); break;
		case 'm': sel = optarg; break;
		case 'A': sc.match = atoi(optarg); break;
		case 'B': sc.mismatch = atoi(optarg); break;
		case 'O': sc.gap_open = atoi(optarg); break;
		case 'E': sc.gap_ext = atoi(optarg); break;
		case 't':
			n_tc = 0;
			for (char *p = strtok(optarg, ","); p && n_tc < MAX_THREAD_COUNTS;
			     p = strtok(NULL, ","))
				thread_counts[n_tc++] = atoi(p);
			break;
		default: usage(); return 1;
		}
	}
	for (int k = 0; k < n_tc; k++)
		if (thread_counts[k] < 1 || thread_counts[k] > MAX_THREADS) {
			usage();
			return 1;
		}
	if (!ref_path || nq < 1 || len < 1 || budget <= 0 || sc.match < 1 ||
	    sc.match > SM_MAX_MATCH || sc.mismatch < 1 || sc.mismatch > SM_MAX_PENALTY ||
	    sc.gap_open < 0 || sc.gap_open > SM_MAX_PENALTY || sc.gap_ext < 1 ||
	    sc.gap_ext > SM_MAX_PENALTY) {
		usage();
		return 1;
	}
	sm_ref_t *ref;
	if (sm_ref_load(ref_path, &ref) != 0)
		return 1;
	if (ref->total < len) {
		fprintf(stderr, "reference shorter than the reads\n");
		return 1;
	}
	bench_t b = { .ref = ref, .sc = &sc, .ksc = sm_cpu_score_create(&sc), .nq = nq };
	b.q = calloc((size_t)nq, sizeof(*b.q));
	b.q_chars = calloc((size_t)nq, sizeof(*b.q_chars));
	b.expected = malloc(sizeof(*b.expected) * (size_t)nq);
	b.contig_chars = calloc((size_t)ref->n_contig, sizeof(*b.contig_chars));
	if (!b.ksc || !b.q || !b.q_chars || !b.expected || !b.contig_chars)
		return 1;
	rng_state = seed ? seed : 1;
	for (int k = 0; k < nq; k++) {
		uint8_t *s = malloc((size_t)len);
		char *c = malloc((size_t)len + 1);
		if (!s || !c)
			return 1;
		int64_t j = (int64_t)(rng() % (uint64_t)(ref->total - len + 1));
		for (int i = 0; i < len; i++) {
			if ((int)(rng() % 1000) < INDEL_PER_MILLE) {
				int d = 1 + (int)(rng() % MAX_INDEL);
				if (rng() & 1)
					j += d;
				else
					j -= d;
				if (j < 0)
					j = 0;
			}
			uint8_t base = j < ref->total ? ref->seq[j] : (uint8_t)(rng() % 4);
			j++;
			if ((int)(rng() % 1000) < SUB_PER_MILLE)
				base = (uint8_t)(rng() % 4);
			s[i] = base;
			c[i] = sm_nt4_char[base];
		}
		c[len] = 0;
		b.q[k].seq = s;
		b.q[k].len = len;
		b.q_chars[k] = c;
		b.expected[k] = -1;
	}
	for (int32_t c = 0; c < ref->n_contig; c++) {
		char *s = malloc((size_t)ref->len[c] + 1);
		if (!s)
			return 1;
		for (int64_t j = 0; j < ref->len[c]; j++)
			s[j] = sm_nt4_char[ref->seq[ref->offset[c] + j]];
		s[ref->len[c]] = 0;
		b.contig_chars[c] = s;
	}
	sm_score_matrix(&sc, b.mat);

	parasail_api_t pa = { 0 };
	ssw_api_t ssw = { 0 };
	if (load_parasail(&pa) == 0) {
		b.pa = &pa;
		b.pa_matrix = pa.matrix_create("ACGTN", sc.match, -sc.mismatch);
		for (int k = 0; k <= SM_BASE_N; k++) {
			pa.matrix_set_value(b.pa_matrix, SM_BASE_N, k, SM_SCORE_AMBIG);
			pa.matrix_set_value(b.pa_matrix, k, SM_BASE_N, SM_SCORE_AMBIG);
		}
	} else {
		printf("note: parasail (libparasail.so.8) not found: skipped\n");
	}
	if (load_ssw(&ssw) == 0)
		b.ssw = &ssw;
	else
		printf("note: SSW (libssw.so.0) not found: skipped\n");

	method_t methods[24];
	int nm = 0;
	/* Each ISA with the default choice of kernel per contig, and, when
	 * named with -m, with the tiled row kernel only ("-tiles") or the
	 * anti-diagonal kernel for every contig up to a tile ("-diag"). */
	static const struct { const char *suffix; sm_cpu_kernel_t kernel; } kernels[] = {
		{ "", SM_CPU_KERNEL_AUTO }, { "-tiles", SM_CPU_KERNEL_TILES },
		{ "-diag", SM_CPU_KERNEL_DIAG },
	};
	for (int isa = SM_CPU_ISA_AVX512; isa >= SM_CPU_ISA_SCALAR; isa--)
		for (int v = 0; v < 3 && (v == 0 || isa != SM_CPU_ISA_SCALAR); v++) {
			method_t m = { .kind = M_SCANMAP, .isa = (sm_cpu_isa_t)isa,
				       .kernel = kernels[v].kernel };
			snprintf(m.name, sizeof m.name, "scanmap-%s%s", sm_cpu_isa_name(m.isa),
				 kernels[v].suffix);
			if (!sm_cpu_isa_supported(m.isa)) {
				if (v == 0)
					printf("note: %s: not supported by this CPU\n", m.name);
			} else if (selected(sel, m.name) && (v == 0 || sel)) {
				methods[nm++] = m;   /* -tiles, -diag only when named */
			}
		}
	if (b.pa)
		for (int v = 0; v < 3; v++) {
			static const char *const names[3] = {
				"parasail-striped16", "parasail-stripedsat", "parasail-scan16",
			};
			method_t m = { .kind = M_PARASAIL, .variant = v };
			snprintf(m.name, sizeof m.name, "%s", names[v]);
			if (selected(sel, m.name))
				methods[nm++] = m;
		}
	if (b.ssw && selected(sel, "ssw"))
		methods[nm++] = (method_t){ .kind = M_SSW, .name = "ssw" };

	printf("reference %s: %d contig(s), %lld bp; %d reads of %d bp (seed %llu); "
	       "scoring A%d B%d O%d E%d; budget %.1f s per row\n\n",
	       ref_path, (int)ref->n_contig, (long long)ref->total, nq, len,
	       (unsigned long long)seed, sc.match, sc.mismatch, sc.gap_open, sc.gap_ext, budget);
	printf("| method | threads | reads | wall s | GCUPS (wall) | GCUPS/thread (wall) "
	       "| GCUPS per CPU-second | best score = scanmap's | cells 8/16/32-bit %% |\n"
	       "|---|---|---|---|---|---|---|---|---|\n");
	int rc = 0;
	for (int t = 0; t < n_tc; t++)
		for (int k = 0; k < nm; k++) {
			/* The first scanmap row fixes the expected scores: no budget. */
			double bud = t == 0 && k == 0 ? 1e9 : budget;
			if (run_method(&b, &methods[k], thread_counts[t], bud) != 0) {
				fprintf(stderr, "%s failed\n", methods[k].name);
				rc = 1;
			}
		}
	return rc;
}
