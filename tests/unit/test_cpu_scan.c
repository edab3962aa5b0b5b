/* test_cpu_scan.c — mapper/cpu_scan.c: every instruction set this CPU has
 * and every cell-width ladder against sm_scan_oracle() on random inputs with
 * fixed seeds: awkward sizes (1, 31, 33, not multiples of a vector or a
 * tile), reads longer than the reference, runs of N and other ambiguous
 * bases in read and reference, many contigs shorter than a tile, reads with
 * long insertions and deletions across segment and tile boundaries, reads
 * forcing every cell-width switch both ways, reads whose scores sit at the
 * threshold of the lazy horizontal gap, motif copies tying at the top-list
 * floor, non-default scoring, and the thread-safe engine on two threads.
 * One line per check; the last line is "N passed, N failed". */
#include <pthread.h>

#include "tests/unit/unit.h"
#include "io/ref.h"
#include "mapper/cpu_scan.h"
#include "mapper/engine.h"
#include "mapper/scan.h"

#define MAX_QUERIES 64
#define MAX_CONTIGS 128

static char rnd_base(void)
{
	return "ACGT"[rnd(4)];
}

/* A test case: a reference and queries (ASCII kept for building them). */
typedef struct {
	const char *name;
	sm_score_t sc;
	int n_contig;
	char *contig[MAX_CONTIGS];
	sm_ref_t *ref;
	int nq;
	sm_query_t q[MAX_QUERIES];
	sm_scan_t want[MAX_QUERIES];
} tcase_t;

static char *random_seq(int len)
{
	char *s = xmalloc((size_t)len + 1);
	for (int i = 0; i < len; i++)
		s[i] = rnd_base();
	s[len] = 0;
	return s;
}

static void add_contig(tcase_t *t, char *seq)
{
	t->contig[t->n_contig++] = seq;
}

/* The whole reference as one ASCII string (contigs concatenated). */
static char *joined(const tcase_t *t, int *len)
{
	int n = 0;
	for (int c = 0; c < t->n_contig; c++)
		n += (int)strlen(t->contig[c]);
	char *s = xmalloc((size_t)n + 1);
	s[0] = 0;
	for (int c = 0, o = 0; c < t->n_contig; c++) {
		strcpy(s + o, t->contig[c]);
		o += (int)strlen(t->contig[c]);
	}
	*len = n;
	return s;
}

static void add_query_str(tcase_t *t, const char *s)
{
	int n = (int)strlen(s);
	uint8_t *seq = xmalloc((size_t)n);
	for (int i = 0; i < n; i++)
		seq[i] = sm_nt4_table[(uint8_t)s[i]];
	t->q[t->nq].seq = seq;
	t->q[t->nq].len = n;
	t->nq++;
}

/* A read of length n drawn from the joined reference at pos (wrapping to
 * random bases past the end) with substitutions (sub per mille) and indels
 * (indel per mille, lengths 1..max_indel). */
static void add_sampled(tcase_t *t, int pos, int n, int sub, int indel, int max_indel)
{
	int len;
	char *r = joined(t, &len);
	char *s = xmalloc((size_t)n + 1);
	int i = 0, j = pos;
	while (i < n) {
		if ((int)rnd(1000) < indel) {
			int k = 1 + rnd(max_indel);
			if (rnd(2)) {
				j += k;                        /* deletion */
			} else {
				while (k-- > 0 && i < n)       /* insertion */
					s[i++] = rnd_base();
			}
			continue;
		}
		char b = j >= 0 && j < len ? r[j] : rnd_base();
		j++;
		if ((int)rnd(1000) < sub)
			b = rnd_base();
		s[i++] = b;
	}
	s[n] = 0;
	add_query_str(t, s);
	free(s);
	free(r);
}

static void add_random(tcase_t *t, int n)
{
	char *s = random_seq(n);
	add_query_str(t, s);
	free(s);
}

static void finish(tcase_t *t)
{
	char names[MAX_CONTIGS][16];
	const char *np[MAX_CONTIGS];
	for (int c = 0; c < t->n_contig; c++) {
		snprintf(names[c], sizeof names[c], "c%d", c);
		np[c] = names[c];
	}
	if (sm_ref_from_strings(t->n_contig, np, (const char *const *)t->contig, &t->ref) != 0) {
		fprintf(stderr, "cannot build reference for %s\n", t->name);
		exit(2);
	}
	for (int k = 0; k < t->nq; k++)
		sm_scan_oracle(t->ref, &t->sc, &t->q[k], &t->want[k]);
}

static void free_case(tcase_t *t)
{
	for (int c = 0; c < t->n_contig; c++)
		free(t->contig[c]);
	for (int k = 0; k < t->nq; k++)
		free((void *)t->q[k].seq);
	sm_ref_destroy(t->ref);
	memset(t, 0, sizeof(*t));
}

static const char *const ladder_name[] = { "auto", "8", "16", "32" };

/* Which kernel scans which contig (sm_cpu_scan_set_kernel). */
#define N_KERNEL 3
static const char *const kernel_name[N_KERNEL] = { "auto", "tiles", "diag" };

/* Runs every ISA, ladder and kernel choice on t; returns the cells done in
 * each width by the widest ISA's default ladder and kernel choice (AUTO;
 * for the width checks). */
static void run_case(tcase_t *t, uint64_t widths_out[3])
{
	sm_cpu_score_t *k_sc = sm_cpu_score_create(&t->sc);

	CHECK(k_sc != NULL, "%s: the scoring compiles", t->name);
	for (int isa = SM_CPU_ISA_SCALAR; isa <= SM_CPU_ISA_AVX512; isa++) {
		if (!sm_cpu_isa_supported((sm_cpu_isa_t)isa)) {
			printf("skip %s: this CPU has no %s\n", t->name,
			       sm_cpu_isa_name((sm_cpu_isa_t)isa));
			continue;
		}
		int n_ladder = isa == SM_CPU_ISA_SCALAR ? 1 : 4;
		int n_kernel = isa == SM_CPU_ISA_SCALAR ? 1 : N_KERNEL;
		for (int cells = 0; cells < n_ladder; cells++)
		for (int kern = 0; kern < n_kernel; kern++) {
			sm_cpu_scan_t *ws = k_sc ? sm_cpu_scan_create((sm_cpu_isa_t)isa,
								      (sm_cells_t)cells, k_sc, 16) : NULL;
			sm_engine_stats_t st = { 0 };
			int bad = -1, err = 0;
			if (ws)
				sm_cpu_scan_set_kernel(ws, (sm_cpu_kernel_t)kern);
			for (int k = 0; k < t->nq && ws; k++) {
				sm_scan_t got;
				if (sm_cpu_scan(ws, t->ref, &t->q[k], &got, &st) != 0)
					err = 1;
				else if (bad < 0 && !sm_scan_equal(&got, &t->want[k]))
					bad = k;
			}
			char why[64] = "";
			if (bad >= 0)
				snprintf(why, sizeof why, "; first mismatch at query %d", bad);
			CHECK(ws && !err && bad < 0,
			      "%s: isa %s cells %s kernel %s: %d queries equal the oracle "
			      "(cells 8/16/32-bit: %llu/%llu/%llu)%s",
			      t->name, sm_cpu_isa_name((sm_cpu_isa_t)isa), ladder_name[cells],
			      kernel_name[kern], t->nq,
			      (unsigned long long)st.cells_w[0], (unsigned long long)st.cells_w[1],
			      (unsigned long long)st.cells_w[2], why);
			if (cells == SM_CELLS_AUTO && kern == SM_CPU_KERNEL_AUTO &&
			    isa > SM_CPU_ISA_SCALAR)
				memcpy(widths_out, st.cells_w, sizeof(st.cells_w));
			sm_cpu_scan_destroy(ws);
		}
	}
	sm_cpu_score_destroy(k_sc);
}

static const sm_score_t default_sc = { 1, 4, 6, 1, 0, 0 };

/* Contigs of awkward lengths, queries of awkward lengths. */
static void case_sizes(const sm_score_t *sc, const char *name, uint64_t seed)
{
	static const int lens[] = { 1, 31, 33, 63, 65, 1000, 4095, 4096, 4097, 8193 };
	static const int qlens[] = { 1, 31, 33, 64, 150, 250 };
	tcase_t t = { .name = name, .sc = *sc };
	unit_seed(seed);
	for (size_t c = 0; c < sizeof(lens) / sizeof(lens[0]); c++)
		add_contig(&t, random_seq(lens[c]));
	int len;
	free(joined(&t, &len));
	for (size_t k = 0; k < sizeof(qlens) / sizeof(qlens[0]); k++) {
		add_sampled(&t, rnd(len), qlens[k], 20, 5, 10);
		add_sampled(&t, 4096 + 65 + 1000 + 4095 - qlens[k] / 2, qlens[k], 30, 10, 20);
		add_random(&t, qlens[k]);
	}
	finish(&t);
	uint64_t w[3] = { 0 };
	run_case(&t, w);
	free_case(&t);
}

static void case_tiny(void)
{
	tcase_t t = { .name = "one-base reference, longer reads", .sc = default_sc };
	unit_seed(11);
	add_contig(&t, strdup("A"));
	add_query_str(&t, "A");
	add_query_str(&t, "C");
	add_query_str(&t, "N");
	add_random(&t, 31);
	add_random(&t, 33);
	add_query_str(&t, "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA");
	finish(&t);
	uint64_t w[3] = { 0 };
	run_case(&t, w);
	free_case(&t);
}

static void case_short_contigs(void)
{
	tcase_t t = { .name = "100 contigs of 1-300 bp", .sc = default_sc };
	unit_seed(12);
	for (int c = 0; c < 100; c++)
		add_contig(&t, random_seq(1 + rnd(300)));
	int len;
	free(joined(&t, &len));
	for (int k = 0; k < 20; k++)
		add_sampled(&t, rnd(len), 20 + rnd(200), 30, 10, 8);
	finish(&t);
	uint64_t w[3] = { 0 };
	run_case(&t, w);
	free_case(&t);
}

/* Ambiguity codes: runs of N and single IUPAC letters in the reference,
 * N runs and single Ns in reads. */
static void case_ambiguous(void)
{
	tcase_t t = { .name = "runs of N and IUPAC codes", .sc = default_sc };
	unit_seed(13);
	char *s = random_seq(9000);
	for (int r = 0; r < 20; r++) {
		int p = rnd(8900), n = 1 + rnd(90);
		for (int i = 0; i < n; i++)
			s[p + i] = 'N';
	}
	for (int r = 0; r < 50; r++)
		s[rnd(9000)] = "RYKMSWBDHV"[rnd(10)];
	memset(s + 4090, 'N', 12);
	add_contig(&t, s);
	add_contig(&t, strdup("NNNNNNNNNNACGTNNNN"));
	for (int k = 0; k < 16; k++) {
		add_sampled(&t, rnd(8800), 100 + rnd(150), 20, 5, 6);
		char *q = (char *)t.q[t.nq - 1].seq;
		for (int i = 0; i < t.q[t.nq - 1].len; i++)
			if (rnd(100) < 5)
				q[i] = SM_BASE_N;
	}
	add_query_str(&t, "NNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNN");
	add_sampled(&t, 4000, 150, 0, 0, 1);
	finish(&t);
	uint64_t w[3] = { 0 };
	run_case(&t, w);
	free_case(&t);
}

/* Reads with long insertions and deletions, many crossing the 64-column
 * segments and the 4096-column tiles. */
static void case_indels(void)
{
	tcase_t t = { .name = "long indels across segments and tiles", .sc = default_sc };
	unit_seed(14);
	add_contig(&t, random_seq(13000));
	for (int k = 0; k < 24; k++) {
		int pos = k < 12 ? 4096 * (1 + k % 3) - 120 + rnd(100) : rnd(12700);
		add_sampled(&t, pos, 150 + rnd(150), 10, 25, 40);
	}
	finish(&t);
	uint64_t w[3] = { 0 };
	run_case(&t, w);
	free_case(&t);
}

/* A read made of pieces of the joined reference from pos on: pieces of
 * piece_min..piece_max bases, each followed by a deletion of 1..gap_max
 * reference bases or, ins_in_4 times in 4, an insertion of as many random
 * bases.  So H climbs to just below, at or above a threshold and a gap
 * starts right there; with pieces of exactly O + E + 1 bases and gaps of 1,
 * the best alignment chains every piece through gaps that open from H =
 * O + E + 1. */
static void add_pieces(tcase_t *t, int pos, int n, int piece_min, int piece_max, int gap_max,
		       int ins_in_4)
{
	int len;
	char *r = joined(t, &len);
	char *s = xmalloc((size_t)n + 1);
	int i = 0, j = pos;
	while (i < n) {
		int piece = piece_min + rnd(piece_max - piece_min + 1);
		for (int k = 0; k < piece && i < n; k++, j++)
			s[i++] = j >= 0 && j < len ? r[j] : rnd_base();
		int d = 1 + rnd(gap_max);
		if ((int)rnd(4) < ins_in_4)
			while (d-- > 0 && i < n)
				s[i++] = rnd_base();
		else
			j += d;
	}
	s[n] = 0;
	add_query_str(t, s);
	free(s);
	free(r);
}

/* The lazy horizontal gap (row_run in cpu_scan_simd.h) skips E where no H
 * exceeds O + E.  Reads of pieces whose scores sit just below, at and just
 * above O + E, with deletions right after them, placed on tile, segment
 * (every multiple of 64 columns is one for some ISA) and block boundaries,
 * and long gaps after long pieces that cross those boundaries. */
static void case_lazy(const sm_score_t *sc, const char *name, uint64_t seed, int piece_min,
		      int piece_max, int gap_max, int ins_in_4)
{
	tcase_t t = { .name = name, .sc = *sc };
	unit_seed(seed);
	add_contig(&t, random_seq(13000));
	add_contig(&t, random_seq(4200));
	for (int k = 0; k < 30; k++) {
		int pos = k < 10 ? 4096 * (1 + k % 3) - 40 - rnd(60) :
			k < 20 ? 64 * (1 + rnd(190)) - piece_max - rnd(8) : rnd(16900);
		add_pieces(&t, pos, 60 + rnd(200), piece_min, piece_max, gap_max, ins_in_4);
	}
	finish(&t);
	uint64_t w[3] = { 0 };
	run_case(&t, w);
	free_case(&t);
}

/* Reads chaining pieces of exactly `piece` bases (O + E + 1 match scores)
 * through gaps of 1 (insertions ins_in_4 times in 4), under scoring whose
 * mismatches cost more than such a gap: every gap of the best alignment
 * opens from H = O + E + 1, the least H from which E or F is nonzero, so a
 * lazy gap that looked only at H > O + E + 1 would break every chain.  (With
 * A1 B4 O6 E1 a mismatch and a lost match, 5, are cheaper than a gap of 1,
 * 7, so chains of 8-base pieces would not need the gaps.)  Copies of
 * each read's first 24 bases in earlier tiles raise the top-list floor
 * above O + E + 1 before the read's own tile, so that the floor does not
 * lower the lazy gap's threshold there. */
static void case_chains(const sm_score_t *sc, const char *name, uint64_t seed, int piece,
			int ins_in_4)
{
	enum { N_READS = 6, COPIES = 4, COPY_LEN = 24, SPACING = 300 };
	tcase_t t = { .name = name, .sc = *sc };
	unit_seed(seed);
	add_contig(&t, random_seq(16000));
	for (int k = 0; k < N_READS; k++)
		add_pieces(&t, 9000 + k * 800, 120, piece, piece, 1, ins_in_4);
	for (int k = 0; k < N_READS; k++)
		for (int c = 0; c < COPIES; c++)
			for (int i = 0; i < COPY_LEN; i++)
				t.contig[0][200 + (k * COPIES + c) * SPACING + i] =
					"ACGTN"[t.q[k].seq[i]];
	finish(&t);
	uint64_t w[3] = { 0 };
	run_case(&t, w);
	free_case(&t);
}

/* Finishes a case whose contigs hold copies of the 40-base motif: the motif
 * and six one-substitution variants as queries, run, freed (motif too). */
static void run_motif_case(tcase_t *t, char *motif)
{
	add_query_str(t, motif);
	for (int k = 0; k < 6; k++) {
		char *q = strdup(motif);
		q[rnd(40)] = rnd_base();
		add_query_str(t, q);
		free(q);
	}
	free(motif);
	finish(t);
	uint64_t w[3] = { 0 };
	run_case(t, w);
	free_case(t);
}

/* Copies of one motif with a few differences all over the reference: the
 * top list fills with equal scores early, and the columns that tie with or
 * just beat its floor must all be offered. */
static void case_ties(void)
{
	tcase_t t = { .name = "motif copies tying at the top-list floor", .sc = default_sc };
	unit_seed(18);
	char *s = random_seq(30000);
	char *motif = random_seq(40);
	for (int c = 0; c < 24; c++) {
		int p = 300 + c * 1200 + rnd(200);
		memcpy(s + p, motif, 40);
		if (c % 3)
			s[p + rnd(40)] = rnd_base();
	}
	add_contig(&t, s);
	run_motif_case(&t, motif);
}

/* Mismatches cost more than a deletion next to an insertion, so optimal
 * alignments turn from horizontal into vertical gaps, also right where a
 * deletion crosses a segment boundary. */
static void case_gap_turns(void)
{
	static const sm_score_t sc = { 2, 20, 1, 1, 0, 0 };
	tcase_t t = { .name = "deletions turning into insertions, A2 B20 O1 E1", .sc = sc };
	unit_seed(17);
	add_contig(&t, random_seq(9000));
	for (int k = 0; k < 40; k++)
		add_sampled(&t, rnd(8700), 100 + rnd(200), 0, 80, 30);
	finish(&t);
	uint64_t w[3] = { 0 };
	run_case(&t, w);
	free_case(&t);
}

/* Long exact matches push the row maxima past 8 (and 16) bits; the random
 * rest lets them decay so the rows narrow again. */
static void case_widths(const sm_score_t *sc, const char *name, int exact, int rest,
			int want_width)
{
	tcase_t t = { .name = name, .sc = *sc };
	unit_seed(15);
	add_contig(&t, random_seq(12000));
	char *r = t.contig[0];
	for (int k = 0; k < 3; k++) {
		int pos = 500 + k * 4000 - (k == 1 ? exact / 2 : 0);
		char *s = xmalloc((size_t)(exact + rest) + 1);
		memcpy(s, r + pos, (size_t)exact);
		for (int i = 0; i < rest; i++)
			s[exact + i] = rnd_base();
		s[exact + rest] = 0;
		/* the second read: exact - mismatches - exact again */
		if (k == 2)
			memcpy(s + exact + rest / 2, r + pos + exact + rest / 2,
			       (size_t)(rest - rest / 2));
		add_query_str(&t, s);
		free(s);
	}
	finish(&t);
	uint64_t w[3] = { 0 };
	run_case(&t, w);
	CHECK((w[0] > 0 || (want_width == 2 && w[1] > 0)) && w[want_width] > 0,
	      "%s: rows ran narrower and at %d bits", name, 8 << want_width);
	free_case(&t);
}

/* Clipping penalties (score.h, -L): reads copied from contigs of both
 * kernels' sizes (and across tiles) with a mismatch within 4 bases of
 * their first or last base, both, an N as the first base, exact, or
 * hanging over a contig's start or end (random bases there): the bonus
 * must keep or clip those ends exactly as the oracle does. */
static void case_clip(const sm_score_t *sc, const char *name, uint64_t seed)
{
	static const int lens[] = { 40, 300, 515, 2048, 4097, 9000 };
	static const int qlens[] = { 1, 2, 31, 64, 100, 150, 250, 300 };
	enum { N_LEN = sizeof(lens) / sizeof(lens[0]), N_QLEN = sizeof(qlens) / sizeof(qlens[0]) };
	tcase_t t = { .name = name, .sc = *sc };
	int start[N_LEN], len = 0;
	unit_seed(seed);
	for (int c = 0; c < N_LEN; c++) {
		start[c] = len;
		len += lens[c];
		add_contig(&t, random_seq(lens[c]));
	}
	char *r = joined(&t, &len);
	for (int k = 0; k < N_QLEN; k++) {
		int n = qlens[k];
		for (int v = 0; v < 5; v++) {
			int c = (int)rnd(N_LEN);
			while (lens[c] < n)
				c = (c + 1) % N_LEN;
			int pos = start[c] + (int)rnd((uint32_t)(lens[c] - n + 1));
			char *q = xmalloc((size_t)n + 1);
			memcpy(q, r + pos, (size_t)n);
			q[n] = 0;
			int x = (int)rnd(n < 4 ? n : 4), y = n - 1 - (int)rnd(n < 4 ? n : 4);
			if (v == 0 || v == 2)
				q[x] = q[x] == 'A' ? 'C' : 'A';   /* a mismatch */
			if (v == 1 || v == 2)
				q[y] = q[y] == 'A' ? 'C' : 'A';
			if (v == 3)
				q[0] = 'N';
			add_query_str(&t, q);
			free(q);
		}
		int c = 1 + (int)rnd(N_LEN - 1);
		add_sampled(&t, start[c] - n / 3, n, 10, 0, 1);
		add_sampled(&t, start[c] + lens[c] - n + n / 3, n, 10, 0, 1);
	}
	free(r);
	finish(&t);
	uint64_t w[3] = { 0 };
	run_case(&t, w);
	free_case(&t);
}

/* The reverse complement of query k, added as a new query. */
static void add_revcomp(tcase_t *t, int k)
{
	int n = t->q[k].len;
	char *s = xmalloc((size_t)n + 1);
	for (int i = 0; i < n; i++) {
		uint8_t c = t->q[k].seq[n - 1 - i];
		s[i] = c < SM_BASE_N ? "TGCA"[c] : 'N';
	}
	s[n] = 0;
	add_query_str(t, s);
	free(s);
}

/* What seeded mapping scans: windows of a genome as the contigs (a read's
 * locus with a margin of 0-200 columns each side, 1 to 2,100 columns), so
 * that most contigs hold a read's alignment and take the anti-diagonal kernel;
 * the reads on both strands, with Ns in some reads and runs of N and IUPAC
 * codes in some windows.  Read lengths around the stripe sizes (16, 32,
 * 64 lanes) and the 8-bit limit (n * A <= 255), so that stripes, groups of
 * stripes and all three widths occur. */
static void case_windows(const sm_score_t *sc, const char *name, uint64_t seed)
{
	static const int qlens[] = { 1, 15, 31, 33, 63, 64, 65, 100, 129, 150, 200, 255, 256, 300 };
	enum { N_QLEN = sizeof(qlens) / sizeof(qlens[0]), GENOME = 30000 };
	tcase_t t = { .name = name, .sc = *sc };
	tcase_t g = { .name = "genome" };
	unit_seed(seed);
	add_contig(&g, random_seq(GENOME));
	for (int k = 0; k < N_QLEN; k++) {
		int pos = 300 + rnd(GENOME - 1000);
		int lo = pos - (int)rnd(200), hi = pos + qlens[k] + (int)rnd(200);
		if (k % 4 == 3)   /* a long window: several hundred columns of margin */
			hi = lo + 1500 + (int)rnd(600);
		if (hi > GENOME)
			hi = GENOME;
		add_sampled(&g, pos, qlens[k], 20, 10, 6);
		char *w = xmalloc((size_t)(hi - lo) + 1);
		memcpy(w, g.contig[0] + lo, (size_t)(hi - lo));
		w[hi - lo] = 0;
		if (k % 3 == 1) {   /* a run of N and IUPAC codes over the read's locus */
			int p = pos - lo + (int)rnd((uint32_t)qlens[k] + 1);
			for (int i = 0; i < 1 + (int)rnd(12) && p + i < hi - lo; i++)
				w[p + i] = "NRYKMSWBDHV"[rnd(11)];
		}
		add_contig(&t, w);
	}
	/* A window of 1, L - 1, L and L + 1 columns. */
	add_contig(&t, strdup("C"));
	add_contig(&t, random_seq(63));
	add_contig(&t, random_seq(64));
	add_contig(&t, random_seq(65));
	for (int k = 0; k < N_QLEN; k++) {
		t.q[t.nq].len = g.q[k].len;
		t.q[t.nq++].seq = g.q[k].seq;
		if (k % 3 == 2)   /* an N in the read */
			((uint8_t *)g.q[k].seq)[rnd((uint32_t)g.q[k].len)] = SM_BASE_N;
		g.q[k].seq = NULL;
		add_revcomp(&t, t.nq - 1);
	}
	g.nq = 0;
	finish(&t);
	uint64_t w[3] = { 0 };
	run_case(&t, w);
	free_case(&t);
	free(g.contig[0]);
}

/* The cells (st->cells, st->cells_w[]) that one scan of query 0 against t's
 * reference does with the widest ISA, the default ladder and a kernel
 * choice; all 0 if the scan failed. */
static sm_engine_stats_t scan_stats(const tcase_t *t, sm_cpu_kernel_t kernel)
{
	sm_engine_stats_t st = { 0 };
	sm_scan_t got;
	sm_cpu_score_t *k_sc = sm_cpu_score_create(&t->sc);
	sm_cpu_scan_t *ws = k_sc ? sm_cpu_scan_create(SM_CPU_ISA_AUTO, SM_CELLS_AUTO, k_sc, 16) : NULL;

	if (!ws) {
		sm_cpu_score_destroy(k_sc);
		return st;
	}
	sm_cpu_scan_set_kernel(ws, kernel);
	if (sm_cpu_scan(ws, t->ref, &t->q[0], &got, &st) != 0)
		memset(&st, 0, sizeof st);
	sm_cpu_scan_destroy(ws);
	sm_cpu_score_destroy(k_sc);
	return st;
}

/* The anti-diagonal kernel sizes its cells from n * A, the highest score
 * a read can reach: exact copies reach it.  n * A = 255 must run in 8 bits
 * and 256 in 16; with A = 100, 65,500 in 16 and 65,600 in 32.  The check on
 * the cells (SM_CPU_KERNEL_DIAG) proves which width ran, the oracle checks
 * of run_case that it was enough. */
static void case_diag_width(const sm_score_t *sc, const char *name, int n, int want_width)
{
	tcase_t t = { .name = name, .sc = *sc };
	unit_seed(30 + (uint64_t)n);
	char *s = random_seq(n + 300);
	add_contig(&t, s);
	char *q = strndup(s + 150, (size_t)n);
	add_query_str(&t, q);
	free(q);
	finish(&t);
	uint64_t w[3] = { 0 };
	run_case(&t, w);
	sm_engine_stats_t st = scan_stats(&t, SM_CPU_KERNEL_DIAG);
	CHECK(st.cells_w[want_width] > 0 && st.cells == st.cells_w[want_width],
	      "%s: a read scoring %d ran in %d-bit cells", name, t.want[0].top[0].score,
	      8 << want_width);
	free_case(&t);
}

/* Copies of one motif with a few differences in many short contigs, some
 * shorter than a locus bin: equal scores tie across contigs and bins. */
static void case_short_ties(void)
{
	tcase_t t = { .name = "motif copies in 60 short contigs", .sc = default_sc };
	unit_seed(19);
	char *motif = random_seq(40);
	for (int c = 0; c < 60; c++) {
		int len = 40 + (int)rnd(c % 2 ? 60 : 700);
		char *s = random_seq(len);
		int p = (int)rnd((uint32_t)(len - 39));
		memcpy(s + p, motif, 40);
		if (c % 3)
			s[p + rnd(40)] = rnd_base();
		add_contig(&t, s);
	}
	run_motif_case(&t, motif);
}

/* SM_CPU_KERNEL_AUTO: the anti-diagonal kernel for the short contigs of a
 * small reference (a read's windows) at 8-bit cells, and at 16-bit ones with
 * 512-bit vectors; tiles for the short contigs of a large reference and for
 * long contigs (told apart by the cells each counts). */
static void case_kernel_choice(void)
{
	static const sm_score_t a2 = { 2, 4, 4, 2, 0, 0 };
	/* diag: 2 for "with 512-bit vectors" (16-bit cells). */
	static const struct {
		int n_contig, len, last_len;
		const sm_score_t *sc;
		const char *what;
		int diag;
	} refs[] = {
		{ 2, 500, 500, &default_sc, "2 contigs of 500 columns", 1 },
		{ 2, 500, 33000, &default_sc, "contigs of 500 and 33,000 columns", 0 },
		{ 1, 2100, 2100, &default_sc, "1 contig of 2,100 columns", 0 },
		{ 70, 500, 500, &default_sc, "70 contigs of 500 columns", 0 },
		{ 2, 500, 500, &a2, "2 contigs of 500 columns, A2 (16-bit cells)", 2 },
	};
	if (!sm_cpu_isa_supported(SM_CPU_ISA_SSE41)) {
		printf("skip kernel choice: no SIMD instruction set\n");
		return;
	}
	for (size_t r = 0; r < sizeof(refs) / sizeof(refs[0]); r++) {
		tcase_t t = { .name = "kernel choice", .sc = *refs[r].sc };
		int want_diag = refs[r].diag == 2 ? sm_cpu_isa_best() == SM_CPU_ISA_AVX512 :
			refs[r].diag;
		unit_seed(50);
		for (int c = 0; c < refs[r].n_contig; c++)
			add_contig(&t, random_seq(c + 1 < refs[r].n_contig ? refs[r].len :
						  refs[r].last_len));
		add_sampled(&t, 170, 150, 30, 0, 1);
		finish(&t);
		uint64_t a = scan_stats(&t, SM_CPU_KERNEL_AUTO).cells;
		uint64_t tiles = scan_stats(&t, SM_CPU_KERNEL_TILES).cells;
		uint64_t diag = scan_stats(&t, SM_CPU_KERNEL_DIAG).cells;
		CHECK(a > 0 && a == (want_diag ? diag : tiles) && tiles != diag,
		      "kernel choice (%s): %s: %s kernel", sm_cpu_isa_name(sm_cpu_isa_best()),
		      refs[r].what, want_diag ? "anti-diagonal" : "tiled");
		free_case(&t);
	}
}

typedef struct {
	sm_engine_t *e;
	tcase_t *t;
	int first, step, bad;
	sm_engine_stats_t st;   /* the window scans' */
} thread_arg_t;

/* Every other query through each of the engine's two scans: against its
 * whole reference, and against the same reference given as a query's own. */
static void *engine_thread(void *p)
{
	thread_arg_t *a = p;
	const sm_ref_t *own = a->t->ref;
	for (int k = a->first; k < a->t->nq; k += a->step) {
		sm_scan_t got;
		int rc = k / a->step % 2 ?
			sm_engine_scan_refs(a->e, 1, &a->t->q[k], &own, NULL, &got, &a->st) :
			sm_engine_scan(a->e, 1, &a->t->q[k], &got);
		if (rc != 0 || !sm_scan_equal(&got, &a->t->want[k]))
			a->bad++;
	}
	return NULL;
}

static void case_engine_threads(void)
{
	tcase_t t = { .name = "engine", .sc = default_sc };
	unit_seed(16);
	add_contig(&t, random_seq(20000));
	add_contig(&t, random_seq(777));
	for (int k = 0; k < 32; k++)
		add_sampled(&t, rnd(20500), 100 + rnd(150), 20, 5, 10);
	finish(&t);
	sm_engine_opt_t eo = { .kind = SM_ENGINE_CPU, .cells = SM_CELLS_AUTO, .max_query_len = 64 };
	sm_engine_t *e = sm_engine_create(t.ref, &t.sc, &eo);
	sm_engine_stats_t est = { 0 };
	thread_arg_t a[2] = { { e, &t, 0, 2, 0, { 0 } }, { e, &t, 1, 2, 0, { 0 } } };
	pthread_t th[2];
	int started = 0;
	for (int k = 0; k < 2 && e; k++)
		started += pthread_create(&th[k], NULL, engine_thread, &a[k]) == 0;
	for (int k = 0; k < started; k++)
		pthread_join(th[k], NULL);
	if (e)
		sm_engine_stats(e, &est);
	CHECK(e && started == 2 && a[0].bad == 0 && a[1].bad == 0,
	      "engine (%s) on 2 threads: 32 queries, whole-reference and window scans, equal "
	      "the oracle", e ? sm_engine_name(e) : "none");
	CHECK(e && est.queries == 16 && a[0].st.queries + a[1].st.queries == 16 &&
	      est.cells > 0 && a[0].st.cells > 0,
	      "engine: whole-reference scans in its statistics, window scans in the callers'");
	sm_engine_destroy(e);
	free_case(&t);
}

static void check_isa_names(void)
{
	sm_cpu_isa_t isa;
	int rc;

	CHECK(sm_cpu_isa_parse("avx2", &isa) == 0 && isa == SM_CPU_ISA_AVX2,
	      "isa name avx2 parses");
	CHECK(sm_cpu_isa_parse(NULL, &isa) == 0 && isa == SM_CPU_ISA_AUTO,
	      "no isa name means auto");
	capture_begin();
	rc = sm_cpu_isa_parse("avx9", &isa);
	capture_end();
	CHECK(rc != 0 && strstr(errbuf, "'avx9'"), "isa name avx9 is refused: %s", errbuf);
	printf("note: best instruction set here: %s\n", sm_cpu_isa_name(sm_cpu_isa_best()));
}

int main(void)
{
	static const sm_score_t a2b3o5e2 = { 2, 3, 5, 2, 0, 0 };
	static const sm_score_t o0 = { 1, 4, 0, 1, 0, 0 };
	static const sm_score_t heavy = { 100, 100, 100, 100, 0, 0 };
	static const sm_score_t heavy_o20 = { 100, 100, 20, 100, 0, 0 };
	static const sm_score_t a3 = { 3, 2, 2, 1, 0, 0 };
	static const sm_score_t big_e = { 10, 10, 0, 30, 0, 0 };
	static const sm_score_t big_o = { 3, 6, 60, 2, 0, 0 };
	static const sm_score_t b20 = { 1, 20, 1, 1, 0, 0 };
	static const sm_score_t b20_o0 = { 1, 20, 0, 1, 0, 0 };
	static const sm_score_t o120 = { 1, 4, 120, 10, 0, 0 };

	unit_begin("cpu_scan");
	check_isa_names();
	case_tiny();
	case_sizes(&default_sc, "awkward sizes, default scoring", 1);
	case_sizes(&a2b3o5e2, "awkward sizes, A2 B3 O5 E2", 2);
	case_sizes(&o0, "awkward sizes, A1 B4 O0 E1", 3);
	case_short_contigs();
	case_ambiguous();
	case_indels();
	case_gap_turns();
	case_lazy(&default_sc, "lazy gap: pieces of 6-9 bases, gaps of 1-3", 19, 6, 9, 3, 1);
	case_chains(&b20, "lazy gap, A1 B20 O1 E1: chains of 3-base pieces, deletions of 1",
		    24, 3, 0);
	case_chains(&b20, "lazy gap, A1 B20 O1 E1: chains of 3-base pieces, insertions of 1",
		    25, 3, 4);
	case_lazy(&default_sc, "lazy gap: pieces of 40-90 bases, gaps of 1-40", 20, 40, 90, 40, 1);
	case_lazy(&o0, "lazy gap, O0: pieces of 1-3 bases, gaps of 1-2", 21, 1, 3, 2, 1);
	case_chains(&b20_o0, "lazy gap, A1 B20 O0 E1: chains of 2-base pieces, gaps of 1", 26, 2, 2);
	case_lazy(&big_e, "lazy gap, A10 B10 O0 E30: pieces of 2-5 bases, gaps of 1-3",
		  22, 2, 5, 3, 1);
	case_lazy(&big_o, "lazy gap, A3 B6 O60 E2: pieces of 20-60 bases, gaps of 1-20",
		  23, 20, 60, 20, 1);
	case_ties();
	case_widths(&default_sc, "exact 400 + 600 random (8/16-bit)", 400, 600, 1);
	case_widths(&a3, "A3 B2 O2 E1, exact 150 + 350 random (8/16-bit)", 150, 350, 1);
	case_widths(&heavy, "A100 B100 O100 E100, exact 700 + 300 random (16/32-bit)",
		    700, 300, 2);
	case_widths(&heavy_o20, "A100 B100 O20 E100, exact 700 + 300 random (8/16/32-bit)",
		    700, 300, 2);
	case_windows(&default_sc, "windows, default scoring", 40);
	case_windows(&a2b3o5e2, "windows, A2 B3 O5 E2", 41);
	case_windows(&o0, "windows, A1 B4 O0 E1", 42);
	case_windows(&b20, "windows, A1 B20 O1 E1", 43);
	case_windows(&big_e, "windows, A10 B10 O0 E30", 44);
	case_windows(&big_o, "windows, A3 B6 O60 E2", 45);
	case_windows(&a3, "windows, A3 B2 O2 E1", 46);
	case_windows(&heavy_o20, "windows, A100 B100 O20 E100", 47);
	case_windows(&o120, "windows, A1 B4 O120 E10 (no 8-bit cells)", 48);
	case_diag_width(&default_sc, "diag width, 255 exact bases", 255, 0);
	case_diag_width(&default_sc, "diag width, 256 exact bases", 256, 1);
	case_diag_width(&heavy, "diag width, A100: 655 exact bases", 655, 1);
	case_diag_width(&heavy, "diag width, A100: 656 exact bases", 656, 2);
	{
		/* -L: bwa's default, small (clips), large (no clipping), one end
		 * only, the largest accepted with A1 and with A100 (every
		 * width), and a bonus that lifts reads of n * A <= 255 to 16
		 * bits. */
		static const sm_score_t l55 = { 1, 4, 6, 1, 5, 5 }, l11 = { 1, 4, 6, 1, 1, 1 };
		static const sm_score_t l30 = { 1, 4, 6, 1, 30, 30 }, l09 = { 1, 4, 6, 1, 0, 9 };
		static const sm_score_t l126 = { 1, 4, 6, 1, 126, 126 };
		static const sm_score_t a2l = { 2, 3, 5, 2, 9, 4 }, heavy_l = { 100, 100, 20, 100, 27, 27 };
		case_clip(&l55, "-L 5,5", 60);
		case_clip(&l11, "-L 1,1", 61);
		case_clip(&l30, "-L 30,30", 62);
		case_clip(&l09, "-L 0,9", 63);
		case_clip(&l126, "-L 126,126", 64);
		case_clip(&a2l, "A2 B3 O5 E2 -L 9,4", 65);
		case_clip(&heavy_l, "A100 B100 O20 E100 -L 27,27", 66);
		case_windows(&l55, "windows, -L 5,5", 67);
		case_windows(&l126, "windows, -L 126,126", 68);
		case_diag_width(&l55, "diag width, -L 5,5: 245 exact bases", 245, 0);
		case_diag_width(&l55, "diag width, -L 5,5: 246 exact bases", 246, 1);
	}
	case_short_ties();
	case_kernel_choice();
	case_engine_threads();
	return unit_end();
}
