/* test_gpu_seed.c — GPU seeding finds exactly the CPU's windows.
 *
 * A random genome of several contigs (one very short, ambiguous runs) with
 * repeat families (exact and diverged copies, a poly-A run), indexed with a
 * small k so that many minimizers are repetitive.  Reads: samples with
 * 0-10% differences on either strand, reads across contig ends, reads with
 * N runs, random reads, poly-A reads (every seed repetitive: the fallback),
 * reads shorter than k, lengths 10-300.  For several limit settings (the
 * defaults, max_occ 1 and 3, one window, 32 windows, band 0) and hit-chunk
 * sizes that split a call into many chunks (a read alone over the limit
 * included), every read's windows from sm_gpu_seed_find must equal
 * sm_seed_find's, field by field.  Skips (exit 77) without a CUDA device. */
#include "tests/unit/unit.h"

#include "gpu/gpu_engine.h"
#include "gpu/gpu_seed.h"
#include "io/ref.h"
#include "mapper/index.h"
#include "mapper/score.h"
#include "mapper/seed.h"

#define N_READS 3000
#define MAX_LEN 300

static const char bases[] = "ACGT";

static char *random_seq(int len)
{
	char *s = xmalloc((size_t)len + 1);

	for (int k = 0; k < len; k++)
		s[k] = bases[rnd(4)];
	s[len] = '\0';
	return s;
}

/* Copies src[0..len) into dst with div percent substitutions. */
static void copy_diverged(char *dst, const char *src, int len, int div)
{
	for (int k = 0; k < len; k++)
		dst[k] = (int)rnd(100) < div ? bases[rnd(4)] : src[k];
}

/* Contigs with repeat families, a poly-A run and ambiguous runs. */
static sm_ref_t *make_genome(void)
{
	static const int lens[] = { 120000, 40000, 90, 60000, 0, 0 };
	const char *names[] = { "chrA", "chrB", "tiny", "chrC" };
	char *seqs[4];
	char *fam[3];
	sm_ref_t *ref = NULL;

	for (int f = 0; f < 3; f++)
		fam[f] = random_seq(400);
	for (int c = 0; c < 4; c++) {
		seqs[c] = random_seq(lens[c]);
		for (int copy = 0; lens[c] > 10000 && copy < 40; copy++) {
			int at = (int)rnd((uint32_t)(lens[c] - 500));

			copy_diverged(seqs[c] + at, fam[copy % 3], 400, copy < 20 ? 0 : 8);
		}
		if (lens[c] > 10000) {
			memset(seqs[c] + 5000, 'A', 300);
			memset(seqs[c] + 7000, 'N', 50);
			seqs[c][9000] = 'R';
		}
	}
	if (sm_ref_from_strings(4, names, (const char *const *)seqs, &ref) < 0)
		ref = NULL;
	for (int c = 0; c < 4; c++)
		free(seqs[c]);
	for (int f = 0; f < 3; f++)
		free(fam[f]);
	return ref;
}

/* Read k: base codes into read[], its length returned. */
static int make_read(const sm_ref_t *ref, int k, uint8_t *read)
{
	int kind = k % 10, n = 10 + (int)rnd(MAX_LEN - 9);
	int64_t from;

	if (kind == 0) {                        /* random */
		for (int t = 0; t < n; t++)
			read[t] = (uint8_t)rnd(4);
		return n;
	}
	if (kind == 1) {                        /* poly-A, a few errors */
		for (int t = 0; t < n; t++)
			read[t] = rnd(50) ? 0 : (uint8_t)rnd(4);
		return n;
	}
	if (kind == 2)
		n = 3 + (int)rnd(12);           /* shorter than k or about k */
	from = (int64_t)rnd((uint32_t)ref->total);
	if (kind == 3)                          /* across a contig's end */
		from = ref->offset[1 + rnd(3)] - n / 2;
	if (from < 0)
		from = 0;
	if (from + n > ref->total)
		n = (int)(ref->total - from);
	for (int t = 0; t < n; t++) {
		uint8_t c = ref->seq[from + t];

		if (kind > 4 && (int)rnd(100) < kind - 4)
			c = (uint8_t)rnd(4);
		if (kind == 4 && t % 37 == 5)
			c = SM_BASE_N;                  /* N runs */
		read[t] = c;
	}
	if (rnd(2)) {                           /* reverse complement */
		for (int t = 0; t < n / 2; t++) {
			uint8_t a = read[t], b = read[n - 1 - t];

			read[t] = b < SM_BASE_N ? (uint8_t)(3 - b) : b;
			read[n - 1 - t] = a < SM_BASE_N ? (uint8_t)(3 - a) : a;
		}
		if (n % 2 && read[n / 2] < SM_BASE_N)
			read[n / 2] = (uint8_t)(3 - read[n / 2]);
	}
	return n;
}

static int same_windows(const sm_window_t *a, int na, const sm_window_t *b, int nb)
{
	if (na != nb)
		return 0;
	for (int t = 0; t < na; t++)
		if (a[t].start != b[t].start || a[t].end != b[t].end || a[t].votes != b[t].votes ||
		    a[t].strands != b[t].strands)
			return 0;
	return 1;
}

int main(void)
{
	char msg[256];
	static uint8_t reads[N_READS][MAX_LEN];
	const uint8_t *rp[N_READS];
	int32_t len[N_READS], n_win[N_READS];
	sm_seed_left_t left[N_READS];
	static uint8_t skip[N_READS * MAX_LEN], skip_cpu[MAX_LEN];
	int64_t margin[N_READS];
	const sm_score_t sc = { SM_DEFAULT_MATCH, SM_DEFAULT_MISMATCH, SM_DEFAULT_GAP_OPEN,
				SM_DEFAULT_GAP_EXTEND, 0, 0 };
	sm_ref_t *ref;
	sm_index_t *idx;
	sm_gpu_seed_t *g;
	sm_gpu_opt_t gopt;
	sm_seeder_t *s;
	sm_wref_t w;
	struct {
		const char *what;
		int max_occ, max_windows, band;
		int64_t chunk;
	} cases[] = {
		{ "defaults", SM_SEED_DEFAULT_MAX_OCC, SM_SEED_DEFAULT_MAX_WINDOWS,
		  SM_SEED_DEFAULT_BAND, 0 },
		{ "max_occ 1 (most seeds repetitive)", 1, 8, 32, 0 },
		{ "max_occ 3, 32 windows", 3, 32, 32, 0 },
		{ "one window, band 0", 200, 1, 0, 0 },
		{ "retry limits", 2000, 32, 32, 0 },
		{ "chunks of 500 hits", 20, 8, 32, 500 },
		{ "chunks of 1 hit (every read alone)", 200, 8, 16, 1 },
	};

	unit_begin("test_gpu_seed");
	if (!sm_gpu_available(NULL, msg, (int)sizeof msg)) {
		char why[sizeof msg + 64];

		snprintf(why, sizeof why, "no usable CUDA device (%s)", msg);
		return unit_skip(why);
	}
	ref = make_genome();
	CHECK(ref != NULL, "genome built");
	idx = ref ? sm_index_build(ref, 11, 5, 1, 0) : NULL;
	CHECK(idx != NULL, "index built (k 11, w 5)");
	sm_gpu_opt_init(&gopt);
	sm_gpu_list_parse(&gopt.gpus, "0,0");   /* two seeders on one GPU: calls take turns */
	g = idx ? sm_gpu_seed_create(idx, ref, &gopt) : NULL;
	CHECK(g != NULL, "index uploaded");
	if (!g)
		return unit_end();
	s = sm_seeder_create();
	memset(&w, 0, sizeof w);
	for (int k = 0; k < N_READS; k++) {
		len[k] = make_read(ref, k, reads[k]);
		rp[k] = reads[k];
	}
	for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
		sm_seed_opt_t opt;
		sm_window_t *win;
		int bad = 0, with = 0, first_bad = -1, left_skipped = 0, left_dropped = 0;

		sm_seed_opt_init(&opt);
		opt.max_occ = cases[c].max_occ;
		opt.max_windows = cases[c].max_windows;
		opt.band = cases[c].band;
		sm_gpu_seed_set_chunk(g, cases[c].chunk);
		win = xmalloc((size_t)N_READS * (size_t)opt.max_windows * sizeof *win);
		for (int k = 0; k < N_READS; k++)
			margin[k] = sm_reach(&sc, len[k]) + opt.band;
		CHECK(sm_gpu_seed_find(g, &opt, N_READS, rp, len, margin, win, n_win, left, skip) == 0,
		      "%s: GPU call succeeds", cases[c].what);
		for (int k = 0, at = 0; k < N_READS; at += len[k++]) {
			sm_seed_left_t l;
			int n = sm_seed_find(s, idx, ref, &sc, &opt, reads[k], len[k], &w, &l, skip_cpu);

			with += n > 0;
			left_skipped += l.skipped > 0;
			left_dropped += l.dropped > 0;
			if (!same_windows(w.win, n, win + (int64_t)k * opt.max_windows, n_win[k]) ||
			    l.skipped != left[k].skipped || l.dropped != left[k].dropped ||
			    memcmp(skip_cpu, skip + at, (size_t)len[k]) != 0) {
				bad++;
				if (first_bad < 0)
					first_bad = k;
			}
		}
		CHECK(bad == 0, "%s: all %d reads' windows and what they leave out equal the CPU's "
		      "(%d with windows, %d with skipped k-mers, %d with dropped hits; %d differ, "
		      "first read %d)", cases[c].what, N_READS, with, left_skipped, left_dropped, bad,
		      first_bad);
		free(win);
	}
	/* A call of no reads, and of one read, also work. */
	CHECK(sm_gpu_seed_find(g, &(sm_seed_opt_t){ .max_occ = 200, .max_windows = 8, .band = 32 },
			       0, rp, len, margin, NULL, n_win, left, skip) == 0, "a call of no reads");
	sm_wref_free(&w);
	sm_seeder_destroy(s);
	sm_gpu_seed_destroy(g);
	sm_index_destroy(idx);
	sm_ref_destroy(ref);
	return unit_end();
}
