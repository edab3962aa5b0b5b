/* test_seed.c — seeded windows find the exhaustive optimum: reads sampled
 * with 5-10% differences (substitutions and indels) from a random genome
 * with repeats; the best score over the read's windows, each strand in its
 * own as the mapper scans them (oracle scan of the window references), must
 * equal the whole-reference optimum for >= 99% of the
 * reads whose optimum reaches 30, and window-reference coordinates must map
 * back to the right global columns.  The CPU engine's seeding (engine.h)
 * gives sm_seed_find's windows. */
#include <pthread.h>

#include "tests/unit/unit.h"

#include "io/ref.h"
#include "mapper/engine.h"
#include "mapper/index.h"
#include "mapper/scan.h"
#include "mapper/seed.h"
#include "mapper/seed_impl.h"

#define GENOME 60000
#define N_READS 300
#define READ_LEN 150

/* READ_LEN bases read off ref from global position from, with div percent
 * differences (8 in 10 substitutions, 1 a deletion, 1 an insertion);
 * returns the reference span they cover. */
static int64_t sample_read(const sm_ref_t *ref, int64_t from, int div, uint8_t *read)
{
	int n = 0;
	int64_t p = from;

	for (; n < READ_LEN; p++) {
		int u = (int)rnd(100);
		if (u < div * 8 / 10)
			read[n++] = (uint8_t)((ref->seq[p] + 1 + rnd(3)) & 3);
		else if (u < div * 9 / 10)
			continue;  /* deletion */
		else if (u < div) {
			read[n++] = (uint8_t)rnd(4);   /* insertion */
			p--;
		} else
			read[n++] = ref->seq[p];
	}
	return p - from;
}

static void revcomp(uint8_t *read, int n)
{
	uint8_t tmp[2 * READ_LEN];

	for (int k = 0; k < n; k++)
		tmp[k] = (uint8_t)(3 - read[n - 1 - k]);
	memcpy(read, tmp, (size_t)n);
}

/* sm_seed_pair_windows: pairs of reads with 5-10% differences, inserts
 * INS_LO..INS_HI, in either order: a window pair that holds both reads'
 * origins on their strands is among the 8 returned for >= 95% of them, and
 * every window pair faces its reads within the insert range. */
#define N_PAIRS 200
#define INS_LO 400
#define INS_HI 600
static void test_pair_windows(const sm_ref_t *ref, const sm_index_t *idx, const sm_score_t *sc,
			      const sm_seed_opt_t *opt, sm_seeder_t *seeder)
{
	int found = 0, facing = 1;

	for (int t = 0; t < N_PAIRS; t++) {
		uint8_t fwd[2 * READ_LEN], rev[2 * READ_LEN];
		sm_window_pair_t wp[SM_SEED_DEFAULT_MAX_WINDOWS];
		int32_t c = (int32_t)rnd(2);
		int64_t ins = INS_LO + rnd(INS_HI - INS_LO + 1);
		int64_t f = ref->offset[c] + rnd((uint32_t)(ref->len[c] - ins - READ_LEN));
		int64_t r_from = f + ins - READ_LEN, f_end, r_end;
		int swap = (int)rnd(2), n, hit = 0;

		f_end = f + sample_read(ref, f, 5 + (int)rnd(6), fwd);
		r_end = r_from + sample_read(ref, r_from, 5 + (int)rnd(6), rev);
		revcomp(rev, READ_LEN);
		n = swap ? sm_seed_pair_windows(seeder, idx, ref, sc, opt, rev, READ_LEN, fwd,
						READ_LEN, INS_LO - 50, INS_HI + 50,
						SM_SEED_DEFAULT_MAX_WINDOWS, wp) :
			   sm_seed_pair_windows(seeder, idx, ref, sc, opt, fwd, READ_LEN, rev,
						READ_LEN, INS_LO - 50, INS_HI + 50,
						SM_SEED_DEFAULT_MAX_WINDOWS, wp);
		for (int k = 0; k < n; k++) {
			const sm_window_t *wf = swap ? &wp[k].b : &wp[k].a;
			const sm_window_t *wr = swap ? &wp[k].a : &wp[k].b;

			if (wp[k].strand_a != swap || wf->start > wr->end)
				facing = 0;
			if (wf->start <= f && f_end <= wf->end && wr->start <= r_from &&
			    r_end <= wr->end)
				hit = 1;
		}
		found += hit;
	}
	CHECK(found * 100 >= N_PAIRS * 95, "pair windows hold both origins for %d of %d pairs",
	      found, N_PAIRS);
	CHECK(facing, "window pairs face each other");
}

/* The engine interface's seeding (engine.h): the CPU engine finds, for a
 * batch of reads on two threads at once, the windows sm_seed_find() finds
 * read by read, and what they leave out; the oracle engine has no seeder. */
#define ENGINE_READS 64

typedef struct {
	sm_engine_t *e;
	const sm_seed_opt_t *opt;
	const uint8_t *const *reads;
	const int32_t *len;
	const int64_t *margin;
	sm_window_t *win;
	int32_t *n_win;
	sm_seed_left_t *left;
	uint8_t *skip;
	int rc;
} seed_job_t;

static void *seed_thread(void *p)
{
	seed_job_t *j = p;

	j->rc = sm_engine_seed(j->e, j->opt, ENGINE_READS / 2, j->reads, j->len, j->margin, j->win,
			       j->n_win, j->left, j->skip);
	return NULL;
}

static void test_engine_seed(const sm_ref_t *ref, const sm_index_t *idx, const sm_score_t *sc,
			     const sm_seed_opt_t *opt, sm_seeder_t *seeder)
{
	static uint8_t bases[ENGINE_READS][READ_LEN];
	const uint8_t *reads[ENGINE_READS];
	int32_t len[ENGINE_READS], n_win[ENGINE_READS];
	int64_t margin[ENGINE_READS];
	sm_seed_left_t left[ENGINE_READS], l;
	static uint8_t skip[ENGINE_READS * READ_LEN], skip1[READ_LEN];
	sm_window_t *win = calloc((size_t)ENGINE_READS * opt->max_windows, sizeof *win);
	sm_engine_opt_t eo = { .kind = SM_ENGINE_CPU, .cells = SM_CELLS_AUTO, .max_query_len = READ_LEN };
	sm_engine_t *e = sm_engine_create(ref, sc, &eo), *oracle;
	sm_wref_t w = { 0 };
	seed_job_t job[2];
	pthread_t th[2];
	int same = 1, with_win = 0, started = 0;

	for (int k = 0; k < ENGINE_READS; k++) {
		int32_t c = (int32_t)rnd(2);

		sample_read(ref, ref->offset[c] + rnd((uint32_t)(ref->len[c] - 2 * READ_LEN)), 5,
			    bases[k]);
		if (k % 2)
			revcomp(bases[k], READ_LEN);
		reads[k] = bases[k];
		len[k] = READ_LEN;
		margin[k] = sm_reach(sc, READ_LEN) + opt->band;
	}
	CHECK(win && e && sm_engine_seed_start(e, idx) == 0, "CPU engine: seeding starts");
	if (!win || !e)
		goto out;
	for (int h = 0; h < 2; h++) {
		int at = h * ENGINE_READS / 2;

		job[h] = (seed_job_t){ e, opt, reads + at, len + at, margin + at,
				       win + (int64_t)at * opt->max_windows, n_win + at, left + at,
				       skip + (int64_t)at * READ_LEN, -1 };
		started += pthread_create(&th[h], NULL, seed_thread, &job[h]) == 0;
	}
	for (int h = 0; h < started; h++)
		pthread_join(th[h], NULL);
	for (int k = 0; started == 2 && k < ENGINE_READS; k++) {
		int nw = sm_seed_find(seeder, idx, ref, sc, opt, reads[k], len[k], &w, &l, skip1);

		with_win += nw > 0;
		same &= nw == n_win[k] &&
			(nw == 0 || memcmp(w.win, win + (int64_t)k * opt->max_windows,
					   (size_t)nw * sizeof *win) == 0) &&
			l.skipped == left[k].skipped && l.dropped == left[k].dropped &&
			memcmp(skip1, skip + (int64_t)k * READ_LEN, READ_LEN) == 0;
	}
	CHECK(started == 2 && job[0].rc == 0 && job[1].rc == 0 && same && with_win > 0,
	      "CPU engine on 2 threads: the windows of sm_seed_find for %d reads (%d with windows)",
	      ENGINE_READS, with_win);
	eo.kind = SM_ENGINE_ORACLE;
	oracle = sm_engine_create(ref, sc, &eo);
	CHECK(oracle && sm_engine_seed_start(oracle, idx) == 1, "the oracle engine has no seeder");
	sm_engine_destroy(oracle);
out:
	sm_wref_free(&w);
	sm_engine_destroy(e);
	free(win);
}

/* Copies of read (length n) on either strand with `subs` substitutions
 * (0 or 1), by brute force over every diagonal of every contig: the oracle
 * of sm_seed_near_copies.  at (if not NULL) counts, per read position, the
 * copies whose one substitution lies there (read orientation). */
static int64_t brute_copies(const sm_ref_t *ref, const uint8_t *read, int n, int subs, int *at)
{
	int64_t found = 0;

	for (int32_t c = 0; c < ref->n_contig; c++)
		for (int64_t d = ref->offset[c]; d + n <= ref->offset[c] + ref->len[c]; d++)
			for (int st = 0; st < 2; st++) {
				int diff = 0, where = -1;

				for (int i = 0; i < n && diff <= subs; i++)
					if (ref->seq[d + i] != (st ? 3 - read[n - 1 - i] : read[i])) {
						diff++;
						where = st ? n - 1 - i : i;
					}
				found += diff == subs;
				if (at && diff == 1 && subs == 1)
					at[where]++;
			}
	return found;
}

/* 1 if the windows win[0..n_win) hold locus (strand st, diagonal d) of a
 * read of length n whole, in a window of that strand. */
static int windows_hold(const sm_window_t *win, int32_t n_win, int st, int64_t d, int n)
{
	for (int32_t t = 0; t < n_win; t++)
		if ((win[t].strands >> st & 1) && win[t].start <= d && d + n <= win[t].end)
			return 1;
	return 0;
}

/* Checks sm_seed_copy_windows on read (length n) against the brute-force
 * oracle with best a perfect objective less 20, 10, 5 or 0 and at most 1
 * to 5 substitutions (r picks): *found is the number of loci with at
 * most that many whose objective could beat best (one substitution: its
 * own loss; more: each at the least, an end's), and each lies whole in a
 * window of its strand (they are fewer than the cap), no window added when
 * none does.  A read too short for most + 1 windows that share no base (24
 * bases each) looks for fewer substitutions: found may then be short of
 * the oracle's, never of its exact copies.  With `pairs`, no locus may be
 * compared alone (copy_compared 0): most + 2 windows, the loci where two
 * agree; a read too short for two finds none.  Returns 1 if it holds. */
static int copy_windows_agree(sm_seeder_t *s, const sm_index_t *idx, const sm_ref_t *ref,
			      const sm_score_t *sc, const uint8_t *read, int n, int r, int pairs)
{
	const int32_t perfect = (int32_t)sm_best_possible(sc, n);
	const int32_t best = perfect - (int32_t[]){ 20, 10, 5, 0 }[r % 4];
	const int most = 1 + r / 5 % 5;
	const int32_t least = sm_sub_loss(sc, n, 0) < sm_sub_loss(sc, n, n - 1) ?
			      sm_sub_loss(sc, n, 0) : sm_sub_loss(sc, n, n - 1);
	sm_seed_opt_t opt;
	sm_wref_t w = { 0 };
	int64_t found = -1, exact = 0, want = 0, held = 0;
	int nw, ok;

	const int windows = most + 1 + pairs;   /* that share no base, for `most` */

	sm_seed_opt_init(&opt);
	opt.max_windows = 1000;
	if (pairs)
		opt.copy_compared = 0;
	nw = sm_seed_copy_windows(s, idx, ref, sc, &opt, read, n, best, most, NULL, 0, &w, &found);
	for (int32_t c = 0; c < ref->n_contig; c++)
		for (int64_t d = ref->offset[c]; d + n <= ref->offset[c] + ref->len[c]; d++)
			for (int st = 0; st < 2; st++) {
				int diff = 0, where = 0;

				for (int i = 0; i < n && diff <= most; i++)
					if (ref->seq[d + i] != (st ? 3 - read[n - 1 - i] : read[i])) {
						diff++;
						where = i;
					}
				if (diff > most || (diff == 0 ? perfect : diff == 1 ?
						    perfect - sm_sub_loss(sc, n, where) :
						    perfect - diff * least) <= best)
					continue;
				want++;
				exact += diff == 0;
				held += windows_hold(w.win, nw, st, d, n);
			}
	/* A window holds every locus found; where some were not (a short
	 * read), a merged window may hold them too. */
	ok = nw >= 0 &&
	     (n >= 24 * windows ? found == want :
	      n >= 24 * (1 + pairs) ? (found <= want && found >= exact) : found == 0) &&
	     held >= found && (found < want || held == found) && (found > 0 || nw == 0);
	if (!ok)
		printf("     copy windows%s, read %d (%d bp, best %d, %d substitutions): %lld loci beat "
		       "it, %lld exact, got %lld in %d windows holding %lld\n",
		       pairs ? " by pairs" : "", r, n, best, most, (long long)want, (long long)exact,
		       (long long)found, nw, (long long)held);
	sm_wref_free(&w);
	return ok;
}

/* sm_seed_copy_windows on the planted unit (read, length U; test_near_
 * copies): the 3 exact copies and the 2 a substitution away all beat a
 * best two substitutions below perfect, only the exact ones one below;
 * none a perfect one; a window given leaves its copy out; with a cap of 3
 * windows the exact copies come first; a read with an N finds none. */
static void copy_windows_planted(sm_seeder_t *s, const sm_index_t *idx, const sm_ref_t *ref,
				 const sm_score_t *sc, uint8_t *read, int n)
{
	const int32_t perfect = (int32_t)sm_best_possible(sc, n);
	const sm_window_t fwd = { 900, 1200, 1, 1 };
	const int64_t exact_at[3] = { 1000, 30000, 60000 + 5000 }, sub_at[2] = { 45000, 50000 };
	const int exact_st[3] = { 0, 1, 0 };
	sm_seed_opt_t opt;
	sm_wref_t w = { 0 };
	int64_t found = -1;
	int nw, held = 0;

	for (int k = 0; k < n; k++)
		read[k] = ref->seq[1000 + k];
	sm_seed_opt_init(&opt);
	nw = sm_seed_copy_windows(s, idx, ref, sc, &opt, read, n, perfect - 10, 1, NULL, 0, &w, &found);
	for (int c = 0; c < 3; c++)
		held += windows_hold(w.win, nw, exact_st[c], exact_at[c], n);
	for (int c = 0; c < 2; c++)
		held += windows_hold(w.win, nw, 0, sub_at[c], n);
	CHECK(found == 5 && held == 5, "copy windows: 3 exact and 2 one-substitution copies beat a "
	      "best 10 below perfect (got %lld, %d held)", (long long)found, held);
	nw = sm_seed_copy_windows(s, idx, ref, sc, &opt, read, n, perfect - 5, 1, NULL, 0, &w, &found);
	CHECK(found == 3 && !windows_hold(w.win, nw, 0, sub_at[0], n),
	      "copy windows: only the exact ones beat a best a substitution below (got %lld)",
	      (long long)found);
	nw = sm_seed_copy_windows(s, idx, ref, sc, &opt, read, n, perfect, 1, NULL, 0, &w, &found);
	CHECK(found == 0 && nw == 0, "copy windows: none beats a perfect best (got %lld, %d)",
	      (long long)found, nw);
	nw = sm_seed_copy_windows(s, idx, ref, sc, &opt, read, n, perfect - 10, 1, &fwd, 1, &w, &found);
	CHECK(found == 4 && nw >= 2 && w.win[0].start == fwd.start,
	      "copy windows: a window given keeps its place and leaves its copy out (got %lld)",
	      (long long)found);
	opt.max_windows = 3;
	nw = sm_seed_copy_windows(s, idx, ref, sc, &opt, read, n, perfect - 10, 1, NULL, 0, &w, &found);
	held = 0;
	for (int c = 0; c < 3; c++)
		held += windows_hold(w.win, nw, exact_st[c], exact_at[c], n);
	CHECK(found == 5 && nw == 3 && held == 3 && !windows_hold(w.win, nw, 0, sub_at[1], n),
	      "copy windows: a cap of 3 takes the exact copies first (got %d windows, %d exact)", nw,
	      held);
	/* The read with a substitution of its own at 30: the exact copies are
	 * one away, those with one two away (their objective at most 10 below
	 * perfect, 5 a substitution at an end). */
	for (int k = 0; k < n; k++)
		read[k] = ref->seq[1000 + k];
	read[30] = (uint8_t)((read[30] + 1) & 3);
	opt.max_windows = 32;
	nw = sm_seed_copy_windows(s, idx, ref, sc, &opt, read, n, perfect - 20, 1, NULL, 0, &w, &found);
	CHECK(found == 3, "copy windows: a read a substitution from the planted unit finds its 3 copies "
	      "within one (got %lld)", (long long)found);
	nw = sm_seed_copy_windows(s, idx, ref, sc, &opt, read, n, perfect - 20, 2, NULL, 0, &w, &found);
	held = 0;
	for (int c = 0; c < 2; c++)
		held += windows_hold(w.win, nw, 0, sub_at[c], n);
	CHECK(found == 5 && held == 2, "copy windows: and with two substitutions the 2 more, in windows "
	      "(got %lld, %d held)", (long long)found, held);
	for (int k = 0; k < n; k++)
		read[k] = ref->seq[1000 + k];
	read[7] = SM_BASE_N;
	nw = sm_seed_copy_windows(s, idx, ref, sc, &opt, read, n, perfect - 10, 1, &fwd, 1, &w, &found);
	CHECK(found == 0 && nw == 1, "copy windows: a read with an N finds none (got %lld)",
	      (long long)found);
	sm_wref_free(&w);
}

/* sm_seed_near_copies: a 120 bp unit planted exactly at three loci (one
 * reverse-complemented, one in the second contig), one substitution away
 * at two more (one near an end), across the contigs' boundary at another,
 * its first half forty times more (frequent minimizers), beside a 400 bp
 * AC tandem; the copies outside the windows given are counted, with the
 * least a substitution costs; a read with an N has none, a cap below every
 * window's least hash leaves it undecided; and on 300 reads cut from the
 * reference (either strand, many from the planted loci, some with a
 * substitution of their own), both counts equal the brute-force oracle's. */
static void test_near_copies(void)
{
	enum { LEN_A = 60000, LEN_B = 20000, U = 120 };
	static char a[LEN_A + 1], b[LEN_B + 1];
	const char *names[2] = { "a", "b" }, *seqs[2] = { a, b };
	const char *acgt = "ACGT";
	const sm_score_t sc = { 1, 4, 6, 1, 5, 5 }, no_bonus = { 1, 4, 6, 1, 0, 0 };
	char unit[U + 1];
	uint8_t read[U];
	sm_seeder_t *s = sm_seeder_create();
	sm_ref_t *ref = NULL;
	sm_index_t *idx;
	int64_t away[3];
	int32_t loss, sub_count[U];
	int rc, agree = 0, decided = 0, copy_agree = 0, pair_agree = 0;

	unit_seed(31337);
	for (int k = 0; k < LEN_A; k++)
		a[k] = acgt[rnd(4)];
	for (int k = 0; k < LEN_B; k++)
		b[k] = acgt[rnd(4)];
	for (int k = 0; k < U; k++)
		unit[k] = acgt[rnd(4)];
	unit[U] = '\0';
	for (int r = 0; r < 40; r++)
		memcpy(a + 2000 + 600 * r, unit, U / 2);
	memcpy(a + 1000, unit, U);
	for (int k = 0; k < U; k++)   /* reverse complement at 30,000 */
		a[30000 + k] = acgt[3 - (strchr(acgt, unit[U - 1 - k]) - acgt)];
	memcpy(b + 5000, unit, U);
	memcpy(a + 45000, unit, U);   /* one substitution in the middle */
	a[45000 + U / 2] = a[45000 + U / 2] == 'A' ? 'C' : 'A';
	memcpy(a + 50000, unit, U);   /* one at the second base */
	a[50001] = a[50001] == 'G' ? 'T' : 'G';
	memcpy(a + LEN_A - U / 2, unit, U / 2);   /* a's last bases, then b's first */
	memcpy(b, unit + U / 2, U / 2);
	for (int k = 0; k < 400; k++)   /* a tandem repeat: copies at every other shift */
		b[10000 + k] = "AC"[k % 2];
	if (sm_ref_from_strings(2, names, seqs, &ref) < 0 || !s) {
		CHECK(0, "near copies: reference");
		return;
	}
	idx = sm_index_build(ref, SM_INDEX_DEFAULT_K, SM_INDEX_DEFAULT_W, 1, 0);
	for (int k = 0; k < U; k++)
		read[k] = ref->seq[1000 + k];

	const sm_window_t fwd = { 900, 1200, 1, 1 }, rev_only = { 900, 1200, 1, 2 },
			  all[5] = { { 900, 1200, 1, 3 }, { 29950, 30200, 1, 2 },
				     { 44900, 45200, 1, 1 }, { 49900, 50200, 1, 1 },
				     { LEN_A + 4900, LEN_A + 5200, 1, 1 } };
	CHECK(brute_copies(ref, read, U, 0, NULL) == 3 && brute_copies(ref, read, U, 1, NULL) == 2,
	      "near copies: the oracle finds the 3 exact and 2 one-substitution copies planted");
	rc = sm_seed_near_copies(s, idx, ref, &sc, read, U, 1000, NULL, 0, away, &loss, sub_count);
	CHECK(rc == 0 && away[0] == 3 && away[1] == 2 && loss == 5,
	      "near copies: 3 and 2 without windows, least cost 5 (a substitution; got %d: %lld, %lld, "
	      "%d)", rc, (long long)away[0], (long long)away[1], loss);
	CHECK(rc == 0 && away[1] == 2 && sub_count[U / 2] == 1 && sub_count[1] == 1,
	      "near copies: their substitutions at read positions %d and 1 (got %d, %d)", U / 2,
	      sub_count[U / 2], sub_count[1]);
	rc = sm_seed_near_copies(s, idx, ref, &no_bonus, read, U, 1000, NULL, 0, away, &loss, sub_count);
	CHECK(rc == 0 && loss == 2, "near copies: without end bonuses clipping two bases costs 2 "
	      "(got %d)", loss);
	rc = sm_seed_near_copies(s, idx, ref, &sc, read, U, 1000, &fwd, 1, away, &loss, sub_count);
	CHECK(rc == 0 && away[0] == 2 && away[1] == 2,
	      "near copies: 2 exact outside a forward window on the first (got %lld)",
	      (long long)away[0]);
	rc = sm_seed_near_copies(s, idx, ref, &sc, read, U, 1000, &rev_only, 1, away, &loss, sub_count);
	CHECK(rc == 0 && away[0] == 3, "near copies: a reverse-strand window there hides none (got %lld)",
	      (long long)away[0]);
	rc = sm_seed_near_copies(s, idx, ref, &sc, read, U, 1000, all, 4, away, &loss, sub_count);
	CHECK(rc == 0 && away[0] == 1 && away[1] == 0 && loss == INT32_MAX,
	      "near copies: windows on all but one exact copy leave that one (got %lld, %lld)",
	      (long long)away[0], (long long)away[1]);
	rc = sm_seed_near_copies(s, idx, ref, &sc, read, U, 1000, all, 5, away, &loss, sub_count);
	CHECK(rc == 0 && away[0] == 0 && away[1] == 0, "near copies: none outside windows on all");
	rc = sm_seed_near_copies(s, idx, ref, &sc, read, U, 0, NULL, 0, away, &loss, sub_count);
	CHECK(rc == SM_SEED_UNDECIDED, "near copies: undecided with a cap of 0 (got %d)", rc);
	read[7] = SM_BASE_N;
	rc = sm_seed_near_copies(s, idx, ref, &sc, read, U, 1000, NULL, 0, away, &loss, sub_count);
	CHECK(rc == 0 && away[0] == 0 && away[1] == 0, "near copies: a read with an N has none");
	copy_windows_planted(s, idx, ref, &sc, read, U);

	for (int r = 0; r < 300; r++) {
		int n = 40 + (int)rnd(U - 39);
		int64_t from = r % 3 ? (int64_t)rnd((uint32_t)(ref->total - n)) :
				       (int64_t[]){ 1000, 30000, LEN_A + 5000, 45000, 2000, LEN_A + 10100,
						    50000 }[r % 7] + (int64_t)rnd((uint32_t)(U - n + 1));
		int64_t want[2];
		int at[U] = { 0 };

		for (int k = 0; k < n; k++)
			read[k] = ref->seq[from + k];
		if (r % 5 == 4)   /* a substitution of the read's own */
			read[rnd((uint32_t)n)] ^= 1;
		if (r % 2)
			revcomp(read, n);
		want[0] = brute_copies(ref, read, n, 0, NULL);
		want[1] = brute_copies(ref, read, n, 1, at);
		rc = sm_seed_near_copies(s, idx, ref, &sc, read, n, 1 << 20, NULL, 0, away, &loss, sub_count);
		/* With every hash under the cap, a read of 2 (w + k) - 2 = 48 bases
		 * or more has two windows that share no base: both counts exact,
		 * and said to be (away[2]); a shorter one's one-substitution count
		 * may be undecided (-1) or, from one window, short, and is not said
		 * to be exact. */
		const int long_read = n >= 2 * (SM_INDEX_DEFAULT_W + SM_INDEX_DEFAULT_K) - 2;
		int ok = rc == 0 && away[0] == want[0] && away[2] == long_read &&
			 (away[1] == want[1] ||
			  (!long_read && away[1] <= want[1] && away[1] != 0));
		/* Where its count is the oracle's, so are the substitutions' places. */
		for (int i = 0; i < n && away[1] == want[1]; i++)
			ok = ok && sub_count[i] == at[i];
		decided += rc == 0 && away[1] == want[1];
		agree += ok;
		copy_agree += copy_windows_agree(s, idx, ref, &sc, read, n, r, 0);
		pair_agree += copy_windows_agree(s, idx, ref, &sc, read, n, r, 1);
		if (!ok)
			printf("     read %d (%d bp from %lld): %lld and %lld copies, got %d: %lld, %lld\n",
			       r, n, (long long)from, (long long)want[0], (long long)want[1], rc,
			       (long long)away[0], (long long)away[1]);
	}
	CHECK(agree == 300 && decided > 250,
	      "near copies: %d of 300 reads cut from the reference as the oracle (%d with both "
	      "counts equal to it)", agree, decided);
	CHECK(copy_agree == 300, "copy windows: %d of 300 reads cut from the reference find the "
	      "oracle's copies that beat their best, each in a window of its strand", copy_agree);
	CHECK(pair_agree == 300, "copy windows: and %d of 300 where two windows must agree on a "
	      "locus (none compared alone)", pair_agree);
	sm_index_destroy(idx);
	sm_ref_destroy(ref);
	sm_seeder_destroy(s);
}

/* The completion's score bound as the support lemma states it (seed.h),
 * with interval tables over every read position: the windows of k + w - 1
 * bases whose w k-mer ends carry no mark (supporting k-mer) and that hold
 * no ambiguous base (amb[i] != 0), by start; their greedy stabbing counts
 * for every prefix; each left clip a and right clip b charged as
 * sm_bound_score's comment says, every a and b tried. */
static int32_t oracle_bound(int k, int w, int32_t n, const uint8_t *mark, const uint8_t *amb,
			    const sm_score_t *sc, int64_t brk)
{
	int32_t *first = malloc((size_t)(n + 2) * sizeof *first);
	int32_t *greedy = malloc((size_t)(n + 2) * sizeof *greedy);
	int32_t m = 0, count = 0, last = -1;
	int64_t best_left = INT64_MAX, best_right = INT64_MAX, d;

	greedy[0] = 0;
	for (int32_t a = 0; a <= n; a++)
		first[a] = -1;
	for (int32_t x = k - 1; x + w - 1 < n; x++) {
		int32_t lo = x - k + 1, hi = x + w - 1, bad = 0;

		for (int32_t i = x; i <= hi; i++)
			bad |= mark[i];
		for (int32_t i = lo; i <= hi; i++)
			bad |= amb[i];
		if (bad)
			continue;
		if (lo > last) {
			count++;
			last = hi;
		}
		first[lo] = m++;
		greedy[m] = count;
	}
	for (int32_t a = n, next = m; a >= 0; a--) {
		if (a < n && first[a] >= 0)
			next = first[a];
		first[a] = next;
	}
	for (int32_t a = 0; a <= n; a++) {
		int64_t v = (int64_t)a * sc->match + (a > 0 ? sc->clip5 : 0) - brk * greedy[first[a]];

		best_left = v < best_left ? v : best_left;
	}
	for (int32_t b = 0; b <= n; b++) {
		int32_t s = n - b - (k + w - 1) + 1;
		int64_t v = (int64_t)b * sc->match + (b > 0 ? sc->clip3 : 0) +
			    brk * greedy[s <= 0 ? 0 : s > n ? m : first[s]];

		best_right = v < best_right ? v : best_right;
	}
	free(first);
	free(greedy);
	d = best_left + best_right;
	return (int32_t)(sm_best_possible(sc, n) - (d < 0 ? 0 : d));
}

/* sm_bound_windows + sm_bound_support + sm_bound_score against the oracle:
 * random marks (sparse to dense, some in runs), ambiguous bases, scores
 * and lemma windows, read lengths around the word size and the window
 * length; a cluster's marks added to the skipped ones, as bound_with adds
 * them. */
static void test_bound(void)
{
	static const int kw[][2] = { { 15, 10 }, { 5, 3 }, { 21, 11 }, { 1, 1 }, { 9, 70 }, { 31, 40 } };
	static const int32_t lens[] = { 0, 1, 2, 23, 24, 25, 31, 33, 63, 64, 65, 100, 127, 128,
					129, 150, 250, 301 };
	int cases = 0, agree = 0;

	for (int c = 0; c < 6000; c++) {
		int k = kw[c % 6][0], w = kw[c % 6][1];
		int32_t n = lens[rnd(sizeof lens / sizeof *lens)];
		sm_score_t sc = { 1 + (int32_t)rnd(3), 1 + (int32_t)rnd(6), (int32_t)rnd(8),
				  1 + (int32_t)rnd(3), (int32_t)rnd(3) * 5, (int32_t)rnd(3) * 5 };
		int64_t brk = 1 + rnd(16);
		uint32_t dens = rnd(5), amb_dens = rnd(4);
		uint8_t base[302], all[302], amb[302];
		int32_t sum_amb[303], hits[64], n_hits = (int32_t)rnd(12);
		uint64_t ok[SM_BOUND_WORDS(302)], ok_cl[SM_BOUND_WORDS(302)];

		sum_amb[0] = 0;
		for (int32_t i = 0; i < n; i++) {
			/* dens 0: none; else about 1 in 2^(6 - dens), in runs when odd */
			base[i] = dens > 0 && rnd(1u << (6 - dens)) == 0;
			if (dens % 2 && i > 0 && base[i - 1] && rnd(2))
				base[i] = 1;
			amb[i] = amb_dens == 3 && rnd(64) == 0;
			sum_amb[i + 1] = sum_amb[i] + amb[i];
			all[i] = base[i];
		}
		for (int32_t h = 0; h < n_hits && n > 0; h++) {
			hits[h] = (int32_t)rnd((uint32_t)n);
			all[hits[h]] = 1;
		}
		sm_bound_windows(k, w, n, base, sum_amb, ok);
		cases++;
		agree += sm_bound_score(ok, k, w, n, &sc, brk) == oracle_bound(k, w, n, base, amb, &sc, brk);
		memcpy(ok_cl, ok, sizeof ok);
		for (int32_t h = 0; h < n_hits && n > 0; h++)
			sm_bound_support(ok_cl, w, hits[h]);
		cases++;
		agree += sm_bound_score(ok_cl, k, w, n, &sc, brk) == oracle_bound(k, w, n, all, amb, &sc, brk);
	}
	CHECK(agree == cases, "completion bound: %d of %d random cases as the interval-table oracle",
	      agree, cases);
}

/* sm_seed_complete as seed.h states it, one step at a time with plain
 * arrays: every k-mer looked up, the most frequent skipped (or, when they
 * alone could hold a better locus, all but the floor - 1 most frequent),
 * hits (strand, diagonal, read position) sorted, clusters of the gap
 * reach within one contig with their distinct read positions as votes,
 * each cluster's bound from oracle_bound, the candidates (support with the
 * skipped k-mers reaching the floor, a window not scanned already, a bound
 * above best) sorted by bound, support and place, the best max_windows
 * kept; their windows and done's, sorted by start (a stable sort, as
 * glibc's qsort is) and merged.  Returns the window count, windows in
 * out[], what is left out in *gap. */
typedef struct {
	int32_t strand, qpos;
	int64_t diag;
} ohit_t;

typedef struct {
	sm_cluster_t c;
	int32_t contig, bound;
	int32_t full;   /* oracle_cluster_diag */
	int32_t diag;   /* the order's key after the bound: the hits on the
			   cluster's most frequent diagonal, 0 for one read position */
	int64_t at;
	int pickable;   /* 1: in the pool, 2: in the ties pool past it */
} ocand_t;

static int cmp_ohit(const void *a, const void *b)
{
	const ohit_t *x = a, *y = b;

	if (x->strand != y->strand)
		return x->strand - y->strand;
	return (x->diag > y->diag) - (x->diag < y->diag);
}

static int cmp_ocand(const void *a, const void *b)
{
	const ocand_t *x = a, *y = b;

	if (x->bound != y->bound)
		return x->bound > y->bound ? -1 : 1;
	if (x->diag != y->diag)
		return x->diag > y->diag ? -1 : 1;
	if (sm_cluster_before(&x->c, &y->c) || sm_cluster_before(&y->c, &x->c))
		return sm_cluster_before(&x->c, &y->c) ? -1 : 1;
	return (x->at > y->at) - (x->at < y->at);
}

static int cmp_occ(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x < y) - (x > y);
}

/* The rare windows of oracle_complete, by recursion: fewest(j, x) is the
 * fewest hits of j disjoint windows (starts span apart at least) that all
 * start before x, cost[st] a window's hits (-1: none); memo[j][x] holds it
 * (-2: not yet).  Among equals the set whose last window starts earliest
 * (not taking x - 1 when that ties), and so on back. */
enum { ORW_INF = INT32_MAX };

/* Reads whose rare windows let oracle_complete skip more k-mers; those
 * whose pass ran again with every k-mer then. */
static int rare_windows_used, rare_windows_redone;
static int ties_picked;   /* picks from the ties pool past the pool (oracle_complete_pass) */

static int64_t fewest(const int64_t *cost, int32_t span, int32_t n, int32_t j, int32_t x,
		      int64_t *memo)
{
	int64_t *m = &memo[(int64_t)j * (n + 1) + (x > 0 ? x : 0)], skip, take = ORW_INF;

	if (j == 0)
		return 0;
	if (x <= 0)
		return ORW_INF;
	if (*m != -2)
		return *m;
	skip = fewest(cost, span, n, j, x - 1, memo);
	if (cost[x - 1] >= 0) {
		int64_t rest = fewest(cost, span, n, j - 1, x - span, memo);

		if (rest < ORW_INF)
			take = rest + cost[x - 1];
	}
	*m = take < skip ? take : skip;
	return *m;
}

/* keep_rare_windows (seed.c) as seed.c states it: windows of w k-mer ends
 * with no ambiguous base and no skipped k-mer; for j = 1, 2, ... while the
 * fewest hits of j of them stay below those of all unskipped k-mers, keep
 * those j windows' k-mers alone and stop once a locus without their
 * support is bounded at target or below.  skip[] and mark[] updated then.
 * Returns the skipped k-mers' number. */
static int32_t oracle_rare_windows(int k, int w, int32_t n, const sm_mini_t *mini,
				   const int64_t *occ, int64_t n_mini, const uint8_t *amb,
				   const sm_score_t *sc, int64_t brk, int64_t target,
				   uint8_t *skip, uint8_t *mark)
{
	const int32_t span = k + w - 1, jmax = n / span + 1;
	int64_t *cost = malloc((size_t)(n + 1) * sizeof *cost), all = 0;
	int64_t *memo = malloc((size_t)(jmax + 1) * (n + 1) * sizeof *memo);
	uint8_t keep_mark[1024];
	int32_t skipped = 0;

	for (int32_t st = 0; st < n; st++) {
		cost[st] = st >= k - 1 && st + w <= n ? 0 : -1;
		for (int32_t i = st - k + 1; cost[st] >= 0 && i < st + w; i++)
			if (amb[i])
				cost[st] = -1;
		for (int64_t t = 0; cost[st] >= 0 && t < n_mini; t++)
			if (mini[t].pos >= st && mini[t].pos < st + w)
				cost[st] = skip[t] ? -1 : cost[st] + occ[t];
	}
	for (int64_t t = 0; t < n_mini; t++)
		all += skip[t] ? 0 : occ[t];
	for (int64_t i = 0; i < (int64_t)(jmax + 1) * (n + 1); i++)
		memo[i] = -2;
	for (int32_t j = 1; j <= jmax; j++) {
		if (fewest(cost, span, n, j, n, memo) >= all)
			break;
		memset(keep_mark, 1, (size_t)n);
		for (int32_t jj = j, x = n; jj > 0; x--)
			if (fewest(cost, span, n, jj, x, memo) != fewest(cost, span, n, jj, x - 1, memo)) {
				memset(keep_mark + x - 1, 0, (size_t)w);
				jj--;
				x -= span - 1;
			}
		if (oracle_bound(k, w, n, keep_mark, amb, sc, brk) <= target) {
			for (int64_t t = 0; t < n_mini; t++)
				skip[t] |= keep_mark[mini[t].pos];
			rare_windows_used++;
			break;
		}
	}
	memset(mark, 0, (size_t)n);
	for (int64_t t = 0; t < n_mini; t++)
		if (skip[t]) {
			mark[mini[t].pos] = 1;
			skipped++;
		}
	free(cost);
	free(memo);
	return skipped;
}

/* Stable by start (insertion). */
static void sort_windows(sm_window_t *w, int32_t n)
{
	for (int32_t i = 1; i < n; i++) {
		sm_window_t x = w[i];
		int32_t j = i;

		for (; j > 0 && w[j - 1].start > x.start; j--)
			w[j] = w[j - 1];
		w[j] = x;
	}
}

/* The k-mers of mini[0..n_mini) (occurrences occ[]) over max_occ, skipped:
 * their read positions marked in mark[0..n); returns how many. */
static int32_t oracle_skip(const sm_mini_t *mini, const int64_t *occ, int64_t n_mini, int32_t n,
			   int64_t max_occ, uint8_t *mark)
{
	int32_t skipped = 0;

	memset(mark, 0, (size_t)n);
	for (int64_t t = 0; t < n_mini; t++)
		if (occ[t] > max_occ) {
			mark[mini[t].pos] = 1;
			skipped++;
		}
	return skipped;
}

/* The read's score at position j along diagonal diag of its strand:
 * reference base diag + j against read base j (strand 1: the reverse
 * complement's); past the reference's ends and at an ambiguous base
 * nothing matches. */
static int32_t oracle_step(const sm_ref_t *ref, const sm_score_t *sc, const uint8_t *read,
			   int32_t n, int strand, int64_t diag, int32_t j)
{
	int64_t g = diag + j;
	int q = strand ? read[n - 1 - j] : read[j];

	if (g < 0 || g >= ref->total)
		return -sc->mismatch;
	if (strand && q < SM_BASE_N)
		q = 3 - q;
	return ref->seq[g] == q && q < SM_BASE_N ? sc->match : -sc->mismatch;
}

/* How well diagonals x and y align the read, by prefix sums: the best
 * segment on either alone, or a segment on one ending at j and one on the
 * other starting at j + 1, less a gap of |x - y|. */
static int32_t oracle_two_diagonals(const sm_ref_t *ref, const sm_score_t *sc, const uint8_t *read,
				    int32_t n, int strand, int64_t x, int64_t y)
{
	int64_t px[1025], py[1025], lo_x = 0, lo_y = 0, best = 0, two = INT64_MIN;
	int64_t ex[1024], ey[1024];   /* best segment ending at j */

	px[0] = py[0] = 0;
	for (int32_t j = 0; j < n; j++) {
		px[j + 1] = px[j] + oracle_step(ref, sc, read, n, strand, x, j);
		py[j + 1] = py[j] + oracle_step(ref, sc, read, n, strand, y, j);
		lo_x = px[j + 1] < lo_x ? px[j + 1] : lo_x;
		lo_y = py[j + 1] < lo_y ? py[j + 1] : lo_y;
		ex[j] = px[j + 1] - lo_x;
		ey[j] = py[j + 1] - lo_y;
		best = ex[j] > best ? ex[j] : best;
		best = ey[j] > best ? ey[j] : best;
	}
	if (x == y || n < 2)
		return (int32_t)best;
	for (int32_t j = 0; j + 1 < n; j++) {
		int64_t sx = 0, sy = 0;   /* best segment starting at j + 1 */

		for (int32_t k = j + 1; k < n; k++) {
			sx = px[k + 1] - px[j + 1] > sx ? px[k + 1] - px[j + 1] : sx;
			sy = py[k + 1] - py[j + 1] > sy ? py[k + 1] - py[j + 1] : sy;
		}
		two = ex[j] + sy > two ? ex[j] + sy : two;
		two = ey[j] + sx > two ? ey[j] + sx : two;
	}
	two -= sc->gap_open + sc->gap_ext * (x > y ? x - y : y - x);
	return (int32_t)(two > best ? two : best);
}

/* A cluster's most frequent hit diagonal (the lowest on a tie) and, in
 * *count, its hits. */
static int64_t oracle_mode(const ohit_t *hit, int32_t from, int32_t to, int32_t *count)
{
	int64_t mode = 0;
	int32_t most = 0;

	for (int32_t t = from; t < to; t++) {
		int32_t k = 0;

		for (int32_t u = from; u < to; u++)
			k += hit[u].diag == hit[t].diag;
		if (k > most || (k == most && hit[t].diag < mode)) {
			most = k;
			mode = hit[t].diag;
		}
	}
	*count = most;
	return mode;
}

/* A cluster's diagonal score: its most frequent hit diagonal with its
 * first, and with its last diagonal. */
static int32_t oracle_cluster_diag(const sm_ref_t *ref, const sm_score_t *sc, const uint8_t *read,
				   int32_t n, const sm_cluster_t *c, const ohit_t *hit, int32_t from,
				   int32_t to)
{
	int32_t most, a, b;
	int64_t mode = oracle_mode(hit, from, to, &most);

	a = oracle_two_diagonals(ref, sc, read, n, c->strand, mode, c->lo);
	b = oracle_two_diagonals(ref, sc, read, n, c->strand, mode, c->hi);
	return a > b ? a : b;
}

/* sm_diag_score against the oracle's prefix sums on random reads and
 * diagonals: reads with substitutions, an indel and ambiguous bases,
 * diagonals running past either end of the reference, three diagonals
 * some of which are the same, scores of every shape, and half the reads
 * with a least score to be exact from near their own. */
static void test_diag_score(void)
{
	enum { LEN = 3000, N_CASES = 4000 };
	static char g[LEN + 1];
	const char *names[1] = { "d" }, *seqs[1] = { g };
	sm_ref_t *ref;
	int agree = 0, two = 0, past = 0, bounded = 0, n_cases = 0;
	int32_t buf[9 * 301], least;

	for (int i = 0; i < LEN; i++)
		g[i] = "ACGTN"[rnd(200) ? rnd(4) : 4];
	if (sm_ref_from_strings(1, names, seqs, &ref) < 0)
		return;
	for (int r = 0; r < N_CASES; r++) {
		const sm_score_t sc = { 1 + (int)rnd(3), 1 + (int)rnd(6), (int)rnd(9), (int)rnd(4), 0, 0 };
		const int32_t n = r % 50 == 0 ? 1 + (int32_t)rnd(4) : 1 + (int32_t)rnd(300);
		const int32_t div = (int32_t)rnd(30), cut = (int32_t)rnd((uint32_t)n);
		const int32_t shift = (int32_t)rnd(21) - 10;
		int64_t d0 = r % 4 == 0 ? -n + 1 + (int64_t)rnd((uint32_t)(2 * n)) :
			     r % 4 == 1 ? LEN - n + (int64_t)rnd((uint32_t)n) :
					  (int64_t)rnd((uint32_t)(LEN - n));
		int64_t d[3];
		uint8_t read[300], q[300];
		int32_t got, want, single;
		int ok;

		/* The read: the reference along d0, then (from cut on) along
		 * d0 + shift, with substitutions and ambiguous bases. */
		for (int32_t j = 0; j < n; j++) {
			const int64_t p = d0 + j + (j >= cut && r % 3 ? shift : 0);

			read[j] = p >= 0 && p < ref->total ? ref->seq[p] : (uint8_t)rnd(4);
			if ((int32_t)rnd(100) < div)
				read[j] = (uint8_t)rnd(5);
			q[j] = read[j] < SM_BASE_N ? read[j] : UINT8_MAX;
		}
		d[0] = d0;
		d[1] = r % 5 == 0 ? d0 : d0 + (r % 3 ? shift : (int64_t)rnd(25) - 12);
		d[2] = r % 7 == 0 ? d[1] : r % 11 == 0 ? d0 : d0 + (int64_t)rnd(25) - 12;
		want = oracle_two_diagonals(ref, &sc, read, n, 0, d[0], d[1]);
		single = oracle_two_diagonals(ref, &sc, read, n, 0, d[2], d[2]);
		if (oracle_two_diagonals(ref, &sc, read, n, 0, d[0], d[2]) > want)
			want = oracle_two_diagonals(ref, &sc, read, n, 0, d[0], d[2]);
		for (int i = 0; i < 2; i++) {
			const int32_t one = oracle_two_diagonals(ref, &sc, read, n, 0, d[i], d[i]);

			single = one > single ? one : single;
		}
		/* Exact from least up, below it a lower bound below least. */
		least = r % 2 ? 0 : r % 4 == 0 ? want : want + (int32_t)rnd(21) - 10;
		got = sm_diag_score(ref, &sc, q, n, d, least, buf);
		ok = want >= least ? got == want : got < least && got <= want;
		n_cases++;
		agree += ok;
		bounded += want < least;
		two += want > single;
		for (int i = 0; i < 3; i++)
			past += d[i] < 0 || d[i] + n > ref->total;
		if (!ok && agree + 5 > n_cases)
			fprintf(stderr, "  diag score: n %d d %lld %lld %lld scores %d %d %d %d least %d: "
				"%d, want %d\n", n, (long long)d[0], (long long)d[1], (long long)d[2],
				sc.match, sc.mismatch, sc.gap_open, sc.gap_ext, least, got, want);
	}
	CHECK(agree == n_cases && two > N_CASES / 20 && past > N_CASES / 4 && bounded > N_CASES / 10,
	      "diagonal score: the oracle's for %d of %d reads, or a lower bound below the least asked "
	      "for (%d of them; %d where two pieces beat one, %d diagonals past an end of the "
	      "reference)", agree, n_cases, bounded, two, past);
	sm_ref_destroy(ref);
}

static int32_t oracle_complete_pass(const sm_ref_t *ref, const sm_index_t *idx,
				    const sm_score_t *sc, const sm_seed_opt_t *opt,
				    const uint8_t *read, int32_t n, int32_t best,
				    const sm_window_t *done, int32_t n_done, int32_t max_next,
				    sm_seed_next_t *next, sm_window_t *out, sm_seed_gap_t *gap,
				    int rare, int *rare_kept)
{
	const int k = idx->k, w = idx->w;
	const int64_t band = sm_reach(sc, n), margin = sm_reach(sc, n) + opt->band;
	const int64_t brk = sm_bound_break_cost(k, w, sc);
	sm_mini_t *mini = NULL;
	int64_t cap = 0, n_mini = sm_minimizers(read, n, k, 1, &mini, &cap), max_occ = opt->max_occ;
	int64_t *occ = malloc((size_t)(n_mini + 1) * sizeof *occ);
	int64_t *sorted = malloc((size_t)(n_mini + 1) * sizeof *sorted);
	uint8_t *skip = malloc((size_t)(n_mini + 1));
	const int64_t **pos = malloc((size_t)(n_mini + 1) * sizeof *pos);
	uint8_t mark[1024], cl_mark[1024], amb[1024];
	int64_t n_hit = 0, n_cl = 0, n_cand = 0, kept;
	ohit_t *hit;
	sm_cluster_t *cl;
	int32_t *cl_contig, *cl_from, skipped = 0, floor, base, n_win, n_amb = 0;
	ocand_t *cand;

	sm_index_get_many(idx, n_mini, mini, occ, pos);
	memset(gap, 0, sizeof *gap);
	for (int32_t i = 0; i < n; i++) {
		amb[i] = read[i] >= SM_BASE_N;
		n_amb += amb[i];
	}
	gap->left = 0;
	floor = sm_seed_support_min(idx, sc, (int)band, n, n_amb, (int64_t)best + 1);
	floor = floor > 0 ? floor : 1;
	skipped = oracle_skip(mini, occ, n_mini, n, max_occ, mark);
	if (skipped >= floor && oracle_bound(k, w, n, mark, amb, sc, brk) > best) {
		int64_t keep = 0;

		memcpy(sorted, occ, (size_t)n_mini * sizeof *occ);
		qsort(sorted, (size_t)n_mini, sizeof *sorted, cmp_occ);
		for (int64_t t = floor - 1; t < n_mini; t++)
			keep += sorted[t];
		if (keep <= opt->max_hits) {
			max_occ = floor - 1 < n_mini ? sorted[floor - 1] : 0;
			skipped = oracle_skip(mini, occ, n_mini, n, max_occ, mark);
		}
	}
	/* The budget, the slow way: lower the limit one distinct value at a
	 * time until the k-mers within it hold at most max_hits hits. */
	for (;;) {
		int64_t held = 0, top = -1;

		for (int64_t t = 0; t < n_mini; t++)
			if (occ[t] <= max_occ) {
				held += occ[t];
				top = occ[t] > top ? occ[t] : top;
			}
		if (held <= opt->max_hits)
			break;
		max_occ = top - 1;
	}
	skipped = oracle_skip(mini, occ, n_mini, n, max_occ, mark);
	for (int64_t t = 0; t < n_mini; t++)
		skip[t] = occ[t] > max_occ;
	base = oracle_bound(k, w, n, mark, amb, sc, brk);
	*rare_kept = 0;
	if (rare && base <= (int64_t)best - brk) {
		int32_t more = oracle_rare_windows(k, w, n, mini, occ, n_mini, amb, sc, brk,
						   (int64_t)best - brk, skip, mark);

		*rare_kept = more != skipped;
		skipped = more;
		base = oracle_bound(k, w, n, mark, amb, sc, brk);
	}
	for (int64_t t = 0; t < n_mini; t++)
		n_hit += skip[t] ? 0 : occ[t];
	hit = malloc((size_t)(n_hit + 1) * sizeof *hit);
	n_hit = 0;
	for (int64_t t = 0; t < n_mini; t++)
		for (int64_t u = 0; !skip[t] && u < occ[t]; u++) {
			int64_t g = pos[t][u] >> 1;
			int32_t st = (int32_t)((pos[t][u] & 1) ^ mini[t].strand);

			hit[n_hit++] = (ohit_t){ st, (int32_t)mini[t].pos,
						 st ? g - (n - mini[t].pos + k - 2) : g - mini[t].pos };
		}
	qsort(hit, (size_t)n_hit, sizeof *hit, cmp_ohit);
	gap->hits = n_hit;
	gap->passes = 1;
	if (skipped >= floor)
		gap->left = base;
	cl = malloc((size_t)(n_hit + 1) * sizeof *cl);
	cl_contig = malloc((size_t)(n_hit + 1) * sizeof *cl_contig);
	cl_from = malloc((size_t)(n_hit + 2) * sizeof *cl_from);
	for (int64_t t = 0; t < n_hit; t++) {
		const ohit_t *h = &hit[t];
		int64_t g = h->strand ? h->diag + n - h->qpos + k - 2 : h->diag + h->qpos;
		int32_t contig = sm_offset_find(ref->offset, ref->n_contig, g);

		if (n_cl == 0 || cl[n_cl - 1].strand != h->strand || h->diag - cl[n_cl - 1].hi > band ||
		    cl_contig[n_cl - 1] != contig) {
			cl_from[n_cl] = (int32_t)t;
			cl_contig[n_cl] = contig;
			cl[n_cl++] = (sm_cluster_t){ h->diag, h->diag, h->strand, 0 };
		}
		cl[n_cl - 1].hi = h->diag;
	}
	cl_from[n_cl] = (int32_t)n_hit;
	cand = malloc((size_t)(n_cl + 1) * sizeof *cand);
	for (int64_t c = 0; c < n_cl; c++) {
		int64_t lo = ref->offset[cl_contig[c]], hi = lo + ref->len[cl_contig[c]];
		sm_window_t x = { cl[c].lo - margin < lo ? lo : cl[c].lo - margin,
				  cl[c].hi + n + margin > hi ? hi : cl[c].hi + n + margin,
				  0, 1 << cl[c].strand };
		int inside = 0;

		memset(cl_mark, 0, (size_t)n);
		for (int32_t t = cl_from[c]; t < cl_from[c + 1]; t++)
			cl_mark[hit[t].qpos] = 1;
		for (int32_t i = 0; i < n; i++)
			cl[c].votes += cl_mark[i];
		for (int32_t d = 0; d < n_done; d++)
			inside |= (done[d].strands & x.strands) == x.strands && done[d].start <= x.start &&
				  x.end <= done[d].end;
		if (cl[c].votes + skipped < floor || x.start >= x.end || inside)
			continue;
		for (int32_t i = 0; i < n; i++)
			cl_mark[i] |= mark[i];
		cand[n_cand] = (ocand_t){ cl[c], cl_contig[c],
					  oracle_bound(k, w, n, cl_mark, amb, sc, brk), 0, 0, c, 0 };
		if (cand[n_cand].bound > best) {
			cand[n_cand].full = oracle_cluster_diag(ref, sc, read, n, &cl[c], hit, cl_from[c],
								cl_from[c + 1]);
			int32_t most = 0;

			if (cl[c].votes > 1)
				oracle_mode(hit, cl_from[c], cl_from[c + 1], &most);
			cand[n_cand].diag = most;
			n_cand++;
		}
	}
	qsort(cand, (size_t)n_cand, sizeof *cand, cmp_ocand);
	kept = n_cand < opt->max_windows ? n_cand : opt->max_windows;
	/* The last (kept + 3) / 4 of those kept, where more are left: at each
	 * place, of the candidates from there on among the first
	 * SM_COMPLETE_POOL past the lists, the one with the best diagonal score
	 * (full; the first in order on a tie), moved there, the others keeping
	 * their order. */
	if (n_cand > kept) {
		const int64_t by = (kept + SM_COMPLETE_BY_DIAG_SHARE - 1) / SM_COMPLETE_BY_DIAG_SHARE;
		const int64_t pool = opt->max_windows + max_next + 1 +
				     (opt->pool > 0 ? opt->pool : SM_COMPLETE_POOL);
		const int64_t end = n_cand < pool ? n_cand : pool;

		/* Past the pool, the SM_COMPLETE_TIES_POOL of more than one read
		 * position with the most hits on one diagonal (the earlier
		 * cluster on a tie) may be picked too. */
		for (int64_t c = 0; c < n_cand; c++)
			cand[c].pickable = c < end;
		for (int e = 0; e < SM_COMPLETE_TIES_POOL; e++) {
			int64_t most = -1;

			for (int64_t c = end; c < n_cand; c++)
				if (!cand[c].pickable && cand[c].c.votes > 1 &&
				    (most < 0 || cand[c].diag > cand[most].diag ||
				     (cand[c].diag == cand[most].diag && cand[c].at < cand[most].at)))
					most = c;
			if (most < 0)
				break;
			cand[most].pickable = 2;
		}
		for (int64_t at = kept - by; at < kept; at++) {
			int64_t pick = at;
			int32_t top = -1;

			for (int64_t c = at; c < n_cand; c++)
				if (cand[c].pickable && cand[c].full > top) {
					top = cand[c].full;
					pick = c;
				}
			ocand_t x = cand[pick];

			ties_picked += x.pickable == 2;
			memmove(&cand[at + 1], &cand[at], (size_t)(pick - at) * sizeof *cand);
			cand[at] = x;
		}
	}
	if (n_cand > kept && cand[kept].bound > gap->left)
		gap->left = cand[kept].bound;
	/* Every candidate after those kept ranks in the list: the next
	 * max_next of them, and the bound of the one after. */
	gap->beyond = skipped >= floor ? base : 0;
	gap->n_next = (int32_t)(n_cand - kept < max_next ? n_cand - kept : max_next);
	if (n_cand > kept + gap->n_next && cand[kept + gap->n_next].bound > gap->beyond)
		gap->beyond = cand[kept + gap->n_next].bound;
	if (n_done > 0)
		memcpy(out, done, (size_t)n_done * sizeof *out);
	n_win = n_done;
	for (int64_t c = 0; c < kept + gap->n_next; c++) {
		int64_t lo = ref->offset[cand[c].contig], hi = lo + ref->len[cand[c].contig];
		const sm_cluster_t *x = &cand[c].c;
		sm_window_t y = { x->lo - margin < lo ? lo : x->lo - margin,
				  x->hi + n + margin > hi ? hi : x->hi + n + margin, x->votes,
				  1 << x->strand };

		if (c >= kept)
			next[c - kept] = (sm_seed_next_t){ y, cand[c].bound };
		else if (y.start < y.end)
			out[n_win++] = y;
	}
	sort_windows(out, n_win);
	n_win = sm_windows_merge(out, n_win, ref->offset, ref->n_contig);
	gap->n_new = (int32_t)kept;
	free(mini);
	free(occ);
	free(sorted);
	free(skip);
	free(pos);
	free(hit);
	free(cl);
	free(cl_contig);
	free(cl_from);
	free(cand);
	return n_win;
}

/* The pass with the rare windows, and again without where they left
 * candidates beyond the lists (gap->beyond above best). */
static int32_t oracle_complete(const sm_ref_t *ref, const sm_index_t *idx, const sm_score_t *sc,
			       const sm_seed_opt_t *opt, const uint8_t *read, int32_t n, int32_t best,
			       const sm_window_t *done, int32_t n_done, int32_t max_next,
			       sm_seed_next_t *next, sm_window_t *out, sm_seed_gap_t *gap)
{
	int rare_kept;
	int32_t n_win = oracle_complete_pass(ref, idx, sc, opt, read, n, best, done, n_done,
					     max_next, next, out, gap, 1, &rare_kept);

	if (rare_kept && gap->beyond > best) {
		int64_t hits = gap->hits;

		rare_windows_redone++;
		n_win = oracle_complete_pass(ref, idx, sc, opt, read, n, best, done, n_done,
					     max_next, next, out, gap, 0, &rare_kept);
		gap->hits += hits;
		gap->passes = 2;
	}
	return n_win;
}

static int same_window(const sm_window_t *a, const sm_window_t *b)
{
	return a->start == b->start && a->end == b->end && a->votes == b->votes &&
	       a->strands == b->strands;
}

/* sm_seed_window_bound (the refined completion's second bound) never falls
 * below the best objective the oracle finds in the window, on either
 * strand: reads cut from the reference with 0-15% differences, some ending
 * in poly-G or random bases or holding an N, and random reads, against
 * windows around their origin (cut short or not) or anywhere; and it is
 * tight where the window does not hold a read of 100 bp or more (under
 * half a perfect score, where the seeds' bound of a chance hit is a few
 * differences below perfect). */
static void test_window_bound(void)
{
	enum { LEN = 20000, N = 3000 };
	static char g[LEN + 1];
	const char *names[1] = { "w" }, *seqs[1] = { g };
	const sm_score_t sc = { 1, 4, 6, 1, 5, 5 };
	sm_seeder_t *s = sm_seeder_create();
	sm_wref_t w = { 0 };
	sm_ref_t *ref;
	int sound = 1, away = 0, tight = 0, near = 0, below_perfect = 0;

	unit_seed(20261128);
	for (int k = 0; k < LEN; k++)
		g[k] = "ACGT"[rnd(4)];
	for (int k = 0; k < 20; k++)   /* G runs, as poly-G tails could meet */
		memset(g + rnd(LEN - 60), 'G', 20 + rnd(40));
	if (!s || sm_ref_from_strings(1, names, seqs, &ref) < 0) {
		CHECK(0, "window bound: reference");
		return;
	}
	for (int r = 0; r < N; r++) {
		const int32_t n = 20 + (int32_t)rnd(231), st = (int32_t)rnd(2);
		const int32_t perfect = (int32_t)sm_best_possible(&sc, n);
		const int64_t from = rnd(LEN - 2 * n - 10);
		const int div = (int)rnd(16), at_origin = r % 3 != 0;
		uint8_t read[300], q[300];
		int64_t p = from, start, end;
		sm_query_t qq = { q, n };
		sm_scan_t out;
		int32_t bound, best;

		for (int32_t i = 0; i < n; p++) {
			const int u = (int)rnd(100);

			if (u < div * 8 / 10)
				read[i++] = (uint8_t)((ref->seq[p] + 1 + rnd(3)) & 3);
			else if (u < div * 9 / 10)
				continue;   /* a deletion */
			else if (u < div)
				read[i++] = (uint8_t)rnd(4), p--;   /* an insertion */
			else
				read[i++] = ref->seq[p];
		}
		if (r % 4 == 1 || r % 4 == 2)   /* a tail the reference does not hold */
			for (int32_t i = n - 1 - (int32_t)rnd((uint32_t)n / 2); i < n; i++)
				read[i] = r % 4 == 1 ? 2 : (uint8_t)rnd(4);
		if (r % 10 == 0)
			for (int32_t i = 0; i < n; i++)
				read[i] = (uint8_t)rnd(4);
		if (r % 13 == 0)
			read[rnd((uint32_t)n)] = SM_BASE_N;
		memcpy(q, read, (size_t)n);   /* q: as it aligns on the reference */
		if (st)   /* the read is the other strand's */
			revcomp(read, n);
		start = at_origin ? from - (int64_t)rnd(200) + (r % 7 == 0 ? (int64_t)rnd((uint32_t)n) : 0)
				  : (int64_t)rnd(LEN - 10);
		end = start + (at_origin ? n : 1) + (int64_t)rnd(400);
		start = start < 0 ? 0 : start;
		end = end > LEN ? LEN : end;
		bound = sm_seed_window_bound(s, ref, &sc, read, n, st, start, end);
		if (sm_wref_set_window(&w, ref, start, end) < 0 || bound < 0)
			break;
		memset(&out, 0, sizeof out);
		sm_scan_oracle(&w.ref, &sc, &qq, &out);
		best = out.n ? out.top[0].score : 0;
		if (bound < best && sound) {
			sound = 0;
			printf("# window bound %d below the window's best %d (read %d, n %d, strand %d, "
			       "window %lld-%lld)\n", bound, best, r, n, st, (long long)start,
			       (long long)end);
		}
		below_perfect += bound < perfect;
		if (at_origin && r % 10 != 0 && r % 4 == 0 && div == 0 && r % 7 != 0 && r % 13 != 0 &&
		    start <= from && from + n <= end)
			near += bound == perfect;   /* the whole read is there */
		if (!at_origin && r % 10 == 0 && n >= 100) {
			away++;
			tight += bound < perfect / 2;
		}
	}
	CHECK(sound, "the window bound is at least the best alignment in the window (%d reads)", N);
	CHECK(away > 30 && tight * 10 >= away * 9,
	      "random reads of 100 bp or more against random windows: bound under half a perfect "
	      "score in %d of %d",
	      tight, away);
	CHECK(near > 10, "an exact read inside its window keeps a perfect bound (%d)", near);
	printf("# window bound: below perfect in %d of %d windows\n", below_perfect, N);
	sm_wref_free(&w);
	sm_seeder_destroy(s);
	sm_ref_destroy(ref);
}

/* sm_seed_complete against oracle_complete on a repeat-rich reference of
 * three contigs (a 300 bp unit in 700 copies with 2-15% substitutions and
 * some indels, some reverse-complemented, between random stretches), with
 * limits low enough that reads have skipped k-mers, hundreds of clusters
 * and more candidates than windows kept, and high enough for the
 * every-k-mer fallback: reads cut from copies (some with an N), a best
 * score anywhere from 0 to perfect, with and without their first pass's
 * windows done. */
static void test_complete(void)
{
	enum { N_CONTIG = 3, CLEN = 120000, UNIT = 300, COPIES = 700, N_CASES = 400 };
	static char g[N_CONTIG][CLEN + 1];
	static const int max_occ[] = { 2, 8, 30, 200 }, max_windows[] = { 1, 3, 8, 32 };
	const char *names[N_CONTIG] = { "u1", "u2", "u3" }, *seqs[N_CONTIG] = { g[0], g[1], g[2] };
	const sm_score_t sc = { 1, 4, 6, 1, 5, 5 };
	char unit[UNIT];
	sm_seeder_t *s = sm_seeder_create();
	sm_wref_t w = { 0 }, first = { 0 }, later = { 0 };
	sm_window_t out[512];
	sm_ref_t *ref;
	sm_index_t *idx;
	int agree = 0, many = 0, full = 0, rounds = 0, rounds_agree = 0, rounds_cut = 0;

	for (int i = 0; i < UNIT; i++)
		unit[i] = "ACGT"[rnd(4)];
	for (int c = 0; c < N_CONTIG; c++)
		for (int i = 0; i < CLEN; i++)
			g[c][i] = "ACGT"[rnd(4)];
	for (int r = 0; r < COPIES; r++) {
		char *to = g[rnd(N_CONTIG)] + rnd(CLEN - 2 * UNIT);
		int div = 2 + (int)rnd(14), rc = rnd(4) == 0, at = 0;

		for (int i = 0; i < UNIT; i++) {
			char b = unit[rc ? UNIT - 1 - i : i];
			uint32_t u = rnd(100);

			if (rc)
				b = b == 'A' ? 'T' : b == 'C' ? 'G' : b == 'G' ? 'C' : 'A';
			if (u < (uint32_t)div)
				b = "ACGT"[rnd(4)];
			else if (u == 99 && div > 8)
				continue;   /* a deletion */
			to[at++] = b;
		}
	}
	if (sm_ref_from_strings(N_CONTIG, names, seqs, &ref) < 0)
		return;
	idx = sm_index_build(ref, SM_INDEX_DEFAULT_K, SM_INDEX_DEFAULT_W, 1, 0);
	for (int r = 0; r < N_CASES; r++) {
		/* Every fifth read with a budget of hits that many reach, every
		 * other one with a pool small enough to leave candidates past it. */
		sm_seed_opt_t opt = { max_occ[r % 4], max_windows[r / 4 % 4], SM_SEED_DEFAULT_BAND,
				      r % 5 == 3 ? 40 + (int64_t)rnd(400) : SM_SEED_MAX_HITS,
				      r % 2 ? 1 + (int64_t)rnd(16) : 0, SM_COPY_MAX_OCC,
				      SM_COPY_MAX_COMPARED };
		int32_t n = 60 + (int32_t)rnd(200), c = (int32_t)rnd(N_CONTIG), n_win, n_done = 0;
		int64_t from = ref->offset[c] + rnd((uint32_t)(ref->len[c] - 2 * n - 10));
		int32_t perfect = (int32_t)sm_best_possible(&sc, n);
		int32_t best = r % 5 == 0 ? 0 : perfect - (int32_t)rnd((uint32_t)perfect / 2 + 1);
		const int32_t max_next = r % 3 == 0 ? 0 : r % 3 == 1 ? 5 : 64;
		uint8_t read[300];
		sm_seed_gap_t gap, want, gap2;
		sm_seed_next_t next[64], want_next[64];

		for (int32_t i = 0; i < n; i++) {
			read[i] = ref->seq[from + i];
			if (rnd(100) < 3)
				read[i] = (uint8_t)rnd(4);
		}
		if (r % 7 == 0)
			read[rnd((uint32_t)n)] = SM_BASE_N;
		if (r % 2)
			revcomp(read, n);
		if (r % 3 && (n_done = sm_seed_find(s, idx, ref, &sc, &opt, read, n, &first, NULL,
						     NULL)) < 0)
			break;
		n_win = sm_seed_complete(s, idx, ref, &sc, &opt, read, n, best, first.win, n_done,
					 max_next, 0, next, &w, &gap);
		if (n_win != oracle_complete(ref, idx, &sc, &opt, read, n, best, first.win, n_done,
					     max_next, want_next, out, &want) ||
		    memcmp(&gap, &want, sizeof gap) != 0)
			continue;
		int same = 1;
		for (int32_t t = 0; t < gap.n_next; t++)
			same &= same_window(&next[t].win, &want_next[t].win) &&
				next[t].bound == want_next[t].bound;
		for (int32_t t = 0; t < n_win; t++)
			same &= same_window(&w.win[t], &out[t]);
		agree += same;
		many += gap.n_new > 0;
		full += gap.n_new == opt.max_windows && gap.left > best;
		if (!same || gap.n_next == 0)
			continue;
		/* A later round, its best raised by what the first found: the
		 * kept candidates that still beat it outside the windows so far,
		 * taken in their order as the first round takes its own. */
		int32_t best2 = best + (int32_t)rnd((uint32_t)(perfect - best) / 2 + 1), n_next = gap.n_next;
		int32_t n2 = sm_seed_complete_next(ref, opt.max_windows, best2, w.win, w.n_win, next,
						   &n_next, gap.beyond, &later, &gap2);
		int32_t n_want = w.n_win, taken = 0, left = gap.beyond, rest = 0;

		memcpy(out, w.win, (size_t)w.n_win * sizeof *out);
		for (int32_t t = 0; t < gap.n_next; t++) {
			int inside = 0;

			for (int32_t d = 0; d < w.n_win; d++)
				inside |= (w.win[d].strands & want_next[t].win.strands) ==
						  want_next[t].win.strands &&
					  w.win[d].start <= want_next[t].win.start &&
					  want_next[t].win.end <= w.win[d].end;
			if (want_next[t].bound <= best2 || inside)
				continue;
			if (taken < opt.max_windows) {
				out[n_want++] = want_next[t].win;
				taken++;
			} else {
				if (rest == 0 && want_next[t].bound > left)
					left = want_next[t].bound;
				rest++;
			}
		}
		sort_windows(out, n_want);
		n_want = sm_windows_merge(out, n_want, ref->offset, ref->n_contig);
		rounds++;
		rounds_cut += rest > 0;
		same = n2 == n_want && gap2.left == left && gap2.n_new == taken &&
		       gap2.n_next == rest && n_next == rest && gap2.beyond == gap.beyond;
		for (int32_t t = 0; same && t < n2; t++)
			same &= same_window(&later.win[t], &out[t]);
		rounds_agree += same;
	}
	CHECK(agree == N_CASES && many > N_CASES / 4 && full > N_CASES / 20 &&
	      rare_windows_used > N_CASES / 20 && rare_windows_redone > 0 && ties_picked > 0,
	      "completion: windows and what they leave out as the step-by-step oracle for %d of %d "
	      "reads (%d with clusters added, %d with more candidates than kept, %d with rare "
	      "windows kept alone, %d of them passed again with every k-mer; %d windows picked "
	      "from the ties pool)", agree, N_CASES, many, full, rare_windows_used,
	      rare_windows_redone, ties_picked);
	CHECK(rounds_agree == rounds && rounds > N_CASES / 10 && rounds_cut > 0,
	      "completion, a later round: the candidates kept that still beat a raised best, as "
	      "the first round took its own, for %d of %d reads (%d with candidates left after it)",
	      rounds_agree, rounds, rounds_cut);
	sm_wref_free(&later);
	sm_wref_free(&w);
	sm_wref_free(&first);
	sm_index_destroy(idx);
	sm_ref_destroy(ref);
	sm_seeder_destroy(s);
}

/* Neighbour seeds (sm_seed_neighbours): reads cut from a random genome
 * with a substitution at every other base except in one island of
 * k + w - 1 = 24 bases [c, c + 24), which holds one substitution, at
 * c + 11, where every k-mer of the island covers it; half of the reads
 * reverse-complemented.  No k-mer of a read is exact at its origin, and
 * only the island's ten are one substitution away: the reference's
 * minimizer of that window of ten k-mers is the one way to the origin,
 * by either canonical strand.  The exact seeding's windows miss every
 * origin (the premise); the neighbour pass's cover every one on its
 * strand.  Also sm_seed_unseeded_bound against the oracle bound with no
 * k-mer supporting, and sm_seed_divergent at its threshold. */
/* 1 if a window among win[0..n) holds [from, to) on strand st. */
static int covers(const sm_window_t *win, int32_t n, int64_t from, int64_t to, int st)
{
	for (int32_t t = 0; t < n; t++)
		if (win[t].start <= from && to <= win[t].end && (win[t].strands >> st & 1))
			return 1;
	return 0;
}

static void test_neighbours(void)
{
	enum { LEN = 200000, N = 40, RL = 150 };
	static char g[LEN + 1];
	const char *names[1] = { "g" }, *seqs[1] = { g };
	const sm_score_t sc = { 1, 4, 6, 1, 5, 5 }, no_bonus = { 1, 4, 6, 1, 0, 0 };
	sm_seeder_t *s = sm_seeder_create();
	sm_seed_opt_t opt;
	sm_wref_t first = { 0 }, w = { 0 };
	sm_ref_t *ref = NULL;
	sm_index_t *idx;
	uint8_t read[RL], none[RL];
	int missed = 0, found = 0;
	int64_t hits;

	unit_seed(20261127);
	for (int k = 0; k < LEN; k++)
		g[k] = "ACGT"[rnd(4)];
	if (!s || sm_ref_from_strings(1, names, seqs, &ref) < 0) {
		CHECK(0, "neighbours: reference");
		return;
	}
	idx = sm_index_build(ref, SM_INDEX_DEFAULT_K, SM_INDEX_DEFAULT_W, 1, 0);
	sm_seed_opt_init(&opt);
	for (int r = 0; r < N; r++) {
		const int64_t from = 1000 + rnd(LEN - 2000);
		const int st = r % 2, c = 20 + (int)rnd(100);
		int covered = 0;

		for (int k = 0; k < RL; k++) {
			const int sub = k == c + 11 || k < c - 1 ? (c - 1 - k) % 2 == 0 :
					k > c + 24 ? (k - c - 24) % 2 == 0 : k == c - 1 || k == c + 24;

			read[k] = sub ? (uint8_t)((ref->seq[from + k] + 1 + rnd(3)) & 3) :
				  ref->seq[from + k];
		}
		if (st)
			revcomp(read, RL);
		if (sm_seed_find(s, idx, ref, &sc, &opt, read, RL, &first, NULL, NULL) < 0 ||
		    sm_seed_neighbours(s, idx, ref, &sc, &opt, read, RL, first.win, first.n_win,
				       UINT32_MAX, 1, 0, &w, &hits) < 0) {
			CHECK(0, "neighbours: out of memory");
			break;
		}
		missed += !covers(first.win, first.n_win, from, from + RL, st);
		covered = covers(w.win, w.n_win, from, from + RL, st);
		found += covered;
		if (!covered)
			printf("     read %d (%s, from %lld): no neighbour window covers it (%d windows, "
			       "%lld hits)\n", r, st ? "-" : "+", (long long)from, w.n_win, (long long)hits);
	}
	CHECK(missed == N, "neighbours: exact seeds miss the origins (%d of %d)", missed, N);
	CHECK(found == N, "neighbours: a neighbour window covers the origin of %d of %d", found, N);

	memset(none, 0, sizeof none);
	for (int k = 0; k < RL; k++)
		read[k] = (uint8_t)rnd(4);
	read[70] = SM_BASE_N;
	{
		uint8_t amb[RL];
		int64_t brk = sm_bound_break_cost(idx->k, idx->w, &sc);

		for (int k = 0; k < RL; k++)
			amb[k] = read[k] >= SM_BASE_N;
		CHECK(sm_seed_unseeded_bound(s, idx, &sc, read, RL) ==
			      oracle_bound(idx->k, idx->w, RL, none, amb, &sc, brk) &&
		      sm_seed_unseeded_bound(s, idx, &no_bonus, read, 100) ==
			      oracle_bound(idx->k, idx->w, 100, none, amb, &no_bonus,
					   sm_bound_break_cost(idx->k, idx->w, &no_bonus)),
		      "neighbours: the bound of a locus without seeds is the oracle's (%d)",
		      sm_seed_unseeded_bound(s, idx, &sc, read, RL));
	}
	/* 150 bases aligned with both end bonuses: 160 at best; a break cost
	 * (5) in every 24 bases is 31.25, so a loss of 32 is divergent, 31 not. */
	CHECK(sm_seed_divergent(idx, &sc, RL, 128, 0, RL) && !sm_seed_divergent(idx, &sc, RL, 129, 0, RL),
	      "neighbours: divergent from a loss of 32 over 150 aligned bases");
	CHECK(!sm_seed_divergent(idx, &sc, RL, 105, 50, RL) && sm_seed_divergent(idx, &sc, RL, 84, 50, RL)
	      && !sm_seed_divergent(idx, &sc, RL, 0, 30, 30),
	      "neighbours: a clean partial alignment is not divergent, a lossy one is");
	sm_wref_free(&first);
	sm_wref_free(&w);
	sm_index_destroy(idx);
	sm_ref_destroy(ref);
	sm_seeder_destroy(s);
}

/* Neighbour seeds of a short read ranked by diagonal (by_diag): reads of
 * 35 bases, each one substitution (base 17) from its origin, so that no
 * 24 exact bases seed it there, and 30 decoys per read elsewhere: its
 * first 24 bases four times in tandem, which seed exactly with three or
 * four times the origin's hits but align 24 bases of 35 at best (the
 * origin 34 and one mismatch).  Ranked by hits the decoys take every
 * neighbour window (the premise); ranked by diagonal the origin's window
 * comes first, for each read on either strand. */
static void test_neighbours_short(void)
{
	enum { LEN = 200000, N = 20, RL = 35, DECOYS = 30, PRE = 24, COPIES = 4, SUB = 17 };
	static char g[LEN + 1];
	const char *names[1] = { "g" }, *seqs[1] = { g };
	const sm_score_t sc = { 1, 4, 6, 1, 5, 5 };
	sm_seeder_t *s = sm_seeder_create();
	sm_seed_opt_t opt;
	sm_wref_t first = { 0 }, w = { 0 };
	sm_ref_t *ref = NULL;
	sm_index_t *idx;
	char reads[N][RL];
	int by_votes = 0, by_diag = 0;
	int64_t hits;

	unit_seed(20261129);
	for (int k = 0; k < LEN; k++)
		g[k] = "ACGT"[rnd(4)];
	for (int r = 0; r < N; r++) {
		const int64_t from = 1000 + (int64_t)r * 4000;

		memcpy(reads[r], g + from, RL);
		reads[r][SUB] = "ACGT"[(strchr("ACGT", g[from + SUB]) - "ACGT" + 1 + rnd(3)) & 3];
		for (int d = 0; d < DECOYS; d++)
			for (int c = 0; c < COPIES; c++)
				memcpy(g + 100000 + ((int64_t)r * DECOYS + d) * 150 + c * PRE, reads[r],
				       PRE);
	}
	if (!s || sm_ref_from_strings(1, names, seqs, &ref) < 0) {
		CHECK(0, "short neighbours: reference");
		return;
	}
	idx = sm_index_build(ref, SM_INDEX_DEFAULT_K, SM_INDEX_DEFAULT_W, 1, 0);
	sm_seed_opt_init(&opt);
	for (int r = 0; r < N; r++) {
		const int64_t from = 1000 + (int64_t)r * 4000;
		const int st = r % 2;
		uint8_t read[RL];

		for (int k = 0; k < RL; k++)
			read[k] = (uint8_t)(strchr("ACGT", reads[r][k]) - "ACGT");
		if (st)
			revcomp(read, RL);
		for (int diag = 0; diag < 2; diag++) {
			if (sm_seed_find(s, idx, ref, &sc, &opt, read, RL, &first, NULL, NULL) < 0 ||
			    sm_seed_neighbours(s, idx, ref, &sc, &opt, read, RL, first.win,
					       first.n_win, UINT32_MAX, 1, diag, &w, &hits) < 0) {
				CHECK(0, "short neighbours: out of memory");
				goto done;
			}
			*(diag ? &by_diag : &by_votes) += covers(w.win, w.n_win, from, from + RL, st);
		}
	}
	CHECK(by_votes < N / 2, "short neighbours: ranked by hits, decoys take the windows of "
	      "%d of %d origins (the premise)", N - by_votes, N);
	CHECK(by_diag == N, "short neighbours: ranked by diagonal, a window covers the origin of "
	      "%d of %d", by_diag, N);
done:
	sm_wref_free(&w);
	sm_wref_free(&first);
	sm_index_destroy(idx);
	sm_ref_destroy(ref);
	sm_seeder_destroy(s);
}

int main(void)
{
	static char g0[GENOME + 1], g1[GENOME / 3 + 1];
	const char *names[2] = { "chrA", "chrB" }, *seqs[2] = { g0, g1 };
	const sm_score_t sc = { 1, 4, 6, 1, 0, 0 };
	sm_seed_opt_t opt;
	sm_seeder_t *seeder = sm_seeder_create();
	sm_wref_t w = { 0 }, ws[2];
	sm_ref_t *ref;
	sm_index_t *idx;
	int eligible = 0, found = 0, mapped_back = 1;
	unit_begin("seed");
	test_bound();
	test_window_bound();
	test_diag_score();
	test_complete();
	test_near_copies();
	test_neighbours();
	test_neighbours_short();
	memset(ws, 0, sizeof ws);
	unit_seed(0x2545F4914F6CDD1Dull);

	for (int k = 0; k < GENOME; k++)
		g0[k] = "ACGT"[rnd(4)];
	for (int r = 0; r < 5; r++) {   /* 5 more copies of a 300 bp repeat */
		int to = (int)rnd(GENOME - 300);
		memcpy(g0 + to, g0, 300);
	}
	for (int k = 0; k < GENOME / 3; k++)
		g1[k] = "ACGT"[rnd(4)];
	if (sm_ref_from_strings(2, names, seqs, &ref) < 0)
		return 1;
	idx = sm_index_build(ref, SM_INDEX_DEFAULT_K, SM_INDEX_DEFAULT_W, 1, 0);
	sm_seed_opt_init(&opt);

	for (int r = 0; r < N_READS; r++) {
		uint8_t read[2 * READ_LEN], rc[2 * READ_LEN];
		int32_t c = (int32_t)rnd(2), n = READ_LEN;
		int64_t from = ref->offset[c] + rnd((uint32_t)(ref->len[c] - 2 * READ_LEN));
		int div = 5 + (int)rnd(6);   /* percent of differences */
		sm_query_t qf = { read, 0 }, qr = { rc, 0 };
		sm_scan_t ex_f, ex_r, wf, wr, gf, gr;

		sample_read(ref, from, div, read);
		if (r % 2)   /* half the reads from the reverse strand */
			revcomp(read, n);
		for (int k = 0; k < n; k++)
			rc[k] = (uint8_t)(3 - read[n - 1 - k]);
		qf.len = qr.len = n;
		sm_scan_oracle(ref, &sc, &qf, &ex_f);
		sm_scan_oracle(ref, &sc, &qr, &ex_r);
		int32_t best = ex_f.n ? ex_f.top[0].score : 0;
		if (ex_r.n && ex_r.top[0].score > best)
			best = ex_r.top[0].score;
		if (best < 30)
			continue;
		eligible++;
		if (sm_seed_find(seeder, idx, ref, &sc, &opt, read, n, &w, NULL, NULL) <= 0)
			continue;
		/* As the mapper scans them: each strand in the windows that its
		 * own clusters made. */
		for (int st = 0; st < 2; st++) {
			sm_window_t *own = malloc((size_t)w.n_win * sizeof *own);

			if (!own || sm_wref_set_windows(&ws[st], ref, own,
							sm_windows_of_strand(w.win, w.n_win, st, own)) < 0)
				return 1;
			free(own);
		}
		memset(&wf, 0, sizeof wf);
		memset(&wr, 0, sizeof wr);
		if (ws[0].n_win > 0)
			sm_scan_oracle(&ws[0].ref, &sc, &qf, &wf);
		if (ws[1].n_win > 0)
			sm_scan_oracle(&ws[1].ref, &sc, &qr, &wr);
		sm_wref_scan_to_global(&ws[0], &wf, sm_locus_shift(&sc, n), &gf);
		sm_wref_scan_to_global(&ws[1], &wr, sm_locus_shift(&sc, n), &gr);
		int32_t got = gf.n ? gf.top[0].score : 0;
		if (gr.n && gr.top[0].score > got)
			got = gr.top[0].score;
		found += got == best;
		/* The window's best column holds the same base as the global one. */
		if (gf.n && ref->seq[gf.top[0].end] != ws[0].ref.seq[wf.top[0].end])
			mapped_back = 0;
	}
	CHECK(eligible > N_READS * 9 / 10, "%d of %d reads reach the threshold", eligible, N_READS);
	CHECK(found * 100 >= eligible * 99, "seeded optimum = exhaustive optimum for %d of %d reads",
	      found, eligible);
	CHECK(mapped_back, "window coordinates map back to the global reference");
	printf("# seeded optimum = exhaustive for %d/%d reads (5-10%% differences)\n", found, eligible);
	test_pair_windows(ref, idx, &sc, &opt, seeder);
	test_engine_seed(ref, idx, &sc, &opt, seeder);
	sm_wref_free(&w);
	sm_wref_free(&ws[0]);
	sm_wref_free(&ws[1]);
	sm_seeder_destroy(seeder);
	sm_index_destroy(idx);
	sm_ref_destroy(ref);
	return unit_end();
}
