/* test_record.c — SAM records (record.c) on hand-made cases: CIGAR with soft
 * clips, reverse strand SEQ/QUAL, MD/NM with deletions, insertions and
 * ambiguous bases (the samtools calmd rule), MAPQ, the choice of the hit
 * between strands.  Each check compares a whole SAM line or value. */
#include <ctype.h>

#include <htslib/kstring.h>
#include <htslib/sam.h>

#include "tests/unit/unit.h"
#include "io/fastq.h"
#include "io/ref.h"
#include "mapper/align.h"
#include "mapper/record.h"
#include "mapper/scan.h"
#include "mapper/score.h"

#define CHECK_STR(got, want) CHECK(strcmp((got), (want)) == 0, \
	"got '%s', want '%s'", (got), (want))

/* chr1 = 20 bases, chr2 = 16 bases with an N run and an R (global 20..35). */
static const char *const names[] = { "chr1", "chr2" };
static const char *const seqs[] = {
	"ACGTTGCAAGGCTTAACCGA",
	"GGATNNCCRTAGCATG",
};

static sm_ref_t *ref;
static sam_hdr_t *hdr;
static const sm_score_t sc = { SM_DEFAULT_MATCH, SM_DEFAULT_MISMATCH,
			       SM_DEFAULT_GAP_OPEN, SM_DEFAULT_GAP_EXTEND, 0, 0 };

/* CIGAR from text ("3M2D4M") into a; returns a->n_cigar. */
static int parse_cigar(const char *s, sm_aln_t *a)
{
	a->n_cigar = 0;
	while (*s) {
		char *end;
		long len = strtol(s, &end, 10);
		int op = bam_cigar_table[(unsigned char)*end];

		if (a->n_cigar == a->m_cigar) {
			a->m_cigar = a->m_cigar ? 2 * a->m_cigar : 8;
			a->cigar = realloc(a->cigar, (size_t)a->m_cigar * sizeof *a->cigar);
		}
		a->cigar[a->n_cigar++] = bam_cigar_gen(len, op);
		s = end + 1;
	}
	return a->n_cigar;
}

/* a: the alignment of CIGAR `cigar` scoring `score` over reference
 * [ref_start, ref_end) and read [q_start, q_end). */
static void set_aln(sm_aln_t *a, const char *cigar, int32_t score, int64_t ref_start,
		    int64_t ref_end, int32_t q_start, int32_t q_end)
{
	parse_cigar(cigar, a);
	a->score = score;
	a->ref_start = ref_start;
	a->ref_end = ref_end;
	a->q_start = q_start;
	a->q_end = q_end;
}

/* MD and NM of read letters `seq` aligned by `cigar` from global ref_start. */
static void check_md(int line, int64_t ref_start, const char *cigar, const char *seq,
		     const char *want_md, int want_nm)
{
	sm_aln_t a = { 0 };
	kstring_t md = KS_INITIALIZE;
	int32_t nm = -1;

	parse_cigar(cigar, &a);
	CHECK(sm_md_nm(ref, ref_start, a.cigar, a.n_cigar, seq, &md, &nm) == 0 &&
	      strcmp(md.s, want_md) == 0 && nm == want_nm,
	      "line %d: %s %s: MD '%s' NM %d, want '%s' %d", line, cigar, seq,
	      md.s ? md.s : "", nm, want_md, want_nm);
	free(md.s);
	sm_aln_free(&a);
}

/* The SAM line of read (name, seq, qual) with the given hit and alignment. */
static void check_record(int line, const char *seq, const char *qual, const sm_hit_t *hit,
			 const sm_aln_t *aln, const char *rg, const char *want)
{
	sm_read_t r = { (char *)"read1", (char *)seq, (char *)qual, (int32_t)strlen(seq), 0, NULL };
	sm_record_ws_t ws = { 0 };
	bam1_t *b = bam_init1();
	kstring_t s = KS_INITIALIZE;
	int rc = sm_record_build(b, &r, ref, &sc, hit, aln, NULL, rg, &ws);

	CHECK(rc == 0 && sam_format1(hdr, b, &s) >= 0 && strcmp(s.s, want) == 0,
	      "line %d: rc %d\n got  %s\n want %s", line, rc, s.s ? s.s : "", want);
	free(s.s);
	bam_destroy1(b);
	sm_record_ws_free(&ws);
}

static void test_md_nm(void)
{
	/* chr1: A C G T T G C A A G G C T T A A C C G A */
	check_md(__LINE__, 0, "8M", "ACGTTGCA", "8", 0);
	check_md(__LINE__, 0, "8M", "acgttgca", "8", 0);           /* lowercase read */
	check_md(__LINE__, 0, "8M", "ACGATGCT", "3T3A0", 2);       /* last base differs */
	check_md(__LINE__, 0, "8M", "TCGTTGCA", "0A7", 1);         /* first base differs */
	check_md(__LINE__, 2, "3M2D4M", "GTTAAGG", "3^GC4", 2);    /* deletion */
	check_md(__LINE__, 2, "2M1D4M", "GAGCAA", "1T0^T4", 2);    /* mismatch then deletion */
	check_md(__LINE__, 2, "3M1D4M", "GTTTAAG", "3^G0C3", 2);   /* deletion then mismatch */
	check_md(__LINE__, 2, "3M2I3M", "GTTAAGCA", "6", 2);       /* insertion */
	check_md(__LINE__, 0, "2M1I2M1D3M", "ACCGTGCA", "4^T3", 2);
	/* chr2 (global 20): G G A T N N C C R T A G C A T G */
	check_md(__LINE__, 20, "8M", "GGATAACC", "4N0N2", 2);      /* read A over ref N */
	check_md(__LINE__, 20, "8M", "GGATNNCC", "4N0N2", 2);      /* read N over ref N */
	check_md(__LINE__, 26, "5M", "CCRTA", "5", 0);             /* R over R: same code */
	check_md(__LINE__, 26, "5M", "CCATA", "2R2", 1);           /* A over R */
	check_md(__LINE__, 26, "5M", "CCNTA", "2R2", 1);           /* N over R */
	check_md(__LINE__, 20, "4M2D3M", "GGATCCR", "4^NN3", 2);   /* deleted Ns */
}

/* MD and NM by the rule itself, a base at a time: an aligned pair
 * matches when both letters have the same IUPAC code other than N
 * (seq_nt16_table, either case). */
static void md_oracle(const char *g, const uint32_t *cigar, int n_cigar, const char *seq,
		      kstring_t *md, int32_t *nm)
{
	int u = 0;

	*nm = 0;
	md->l = 0;
	for (int k = 0; k < n_cigar; k++) {
		int len = (int)bam_cigar_oplen(cigar[k]);

		switch (bam_cigar_op(cigar[k])) {
		case BAM_CMATCH:
			for (int j = 0; j < len; j++, g++, seq++) {
				int c = seq_nt16_table[(unsigned char)*seq];

				if (c == seq_nt16_table[(unsigned char)*g] && c != 15) {
					u++;
					continue;
				}
				ksprintf(md, "%d%c", u, toupper((unsigned char)*g));
				u = 0;
				++*nm;
			}
			break;
		case BAM_CDEL:
			ksprintf(md, "%d^", u);
			for (int j = 0; j < len; j++, g++)
				kputc(toupper((unsigned char)*g), md);
			u = 0;
			*nm += len;
			break;
		case BAM_CINS:
			seq += len;
			*nm += len;
			break;
		}
	}
	ksprintf(md, "%d", u);
}

/* sm_md_nm against md_oracle on random alignments (fixed seed): long
 * match runs, so that its eight-at-a-time path runs, broken by
 * substitutions, indels, lowercase read letters and ambiguous letters on
 * both sides, at every offset. */
static void test_md_nm_random(void)
{
	enum { REF_LEN = 600, CASES = 400 };
	static const char amb[] = "NRYKM";
	static const char *const name[] = { "r" };
	char g[REF_LEN + 1], seq[2 * REF_LEN];
	const char *gs[] = { g };
	sm_ref_t *r;
	sm_aln_t a = { 0 };
	kstring_t got = KS_INITIALIZE, want = KS_INITIALIZE;
	int bad = 0;

	unit_seed(29);
	for (int i = 0; i < REF_LEN; i++)
		g[i] = rnd(40) ? "ACGT"[rnd(4)] : amb[rnd(5)];
	g[REF_LEN] = '\0';
	if (sm_ref_from_strings(1, name, gs, &r) < 0) {
		CHECK(0, "reference for the random MD cases");
		return;
	}
	for (int t = 0; t < CASES && !bad; t++) {
		int64_t start = rnd(100), x = start;
		int n = 0;
		int32_t nm_got = -1, nm_want = -2;
		char cigar[256];
		size_t l = 0;

		/* Ops of 1-40 bases up to ~300 reference bases: mostly M. */
		while (x < start + 300) {
			int len = 1 + (int)rnd(40), op = rnd(8);

			if (op == 0) {          /* insertion */
				for (int j = 0; j < len % 5 + 1; j++)
					seq[n++] = "ACGTN"[rnd(5)];
				l += (size_t)snprintf(cigar + l, sizeof cigar - l, "%dI", len % 5 + 1);
			} else if (op == 1) {   /* deletion */
				x += len % 5 + 1;
				l += (size_t)snprintf(cigar + l, sizeof cigar - l, "%dD", len % 5 + 1);
			} else {
				for (int j = 0; j < len; j++, x++) {
					int e = rnd(30);
					char c = e == 0 ? "ACGT"[rnd(4)] : e == 1 ? amb[rnd(5)] : g[x];

					seq[n++] = e == 2 ? (char)tolower((unsigned char)c) : c;
				}
				l += (size_t)snprintf(cigar + l, sizeof cigar - l, "%dM", len);
			}
		}
		parse_cigar(cigar, &a);
		md_oracle(g + start, a.cigar, a.n_cigar, seq, &want, &nm_want);
		got.l = 0;
		bad = sm_md_nm(r, start, a.cigar, a.n_cigar, seq, &got, &nm_got) < 0 ||
		      strcmp(got.s, want.s) != 0 || nm_got != nm_want;
		if (bad)
			CHECK(0, "random case %d %s: MD '%s' NM %d, want '%s' %d", t, cigar, got.s,
			      nm_got, want.s, nm_want);
	}
	if (!bad)
		CHECK(1, "MD and NM of %d random alignments equal the base-by-base rule", CASES);
	free(got.s);
	free(want.s);
	sm_aln_free(&a);
	sm_ref_destroy(r);
}

static void test_forward_and_clips(void)
{
	sm_aln_t a = { 0 };
	sm_hit_t hit = { 1, 0, { 8, 9 }, 0, 1 };

	/* Read XXACGTTGCAYY: bases 2..10 align to chr1:1-8. */
	set_aln(&a, "8M", 8, 0, 8, 2, 10);
	check_record(__LINE__, "GGACGTTGCATT", "ABCDEFGHIJKL", &hit, &a, NULL,
		     "read1\t0\tchr1\t1\t31\t2S8M2S\t*\t0\t0\tGGACGTTGCATT\tABCDEFGHIJKL\t"
		     "NM:i:0\tMD:Z:8\tAS:i:8\tXS:i:0");
	/* Same alignment with a read group and a competitor. */
	hit.xs = 3;
	check_record(__LINE__, "GGACGTTGCATT", "ABCDEFGHIJKL", &hit, &a, "g1",
		     "read1\t0\tchr1\t1\t19\t2S8M2S\t*\t0\t0\tGGACGTTGCATT\tABCDEFGHIJKL\t"
		     "NM:i:0\tMD:Z:8\tAS:i:8\tXS:i:3\tRG:Z:g1");
	/* No clips at all, second contig: POS is contig-relative. */
	set_aln(&a, "6M", 6, 30, 36, 0, 6);  /* chr2 offset 10: AGCATG */
	hit.best.score = 6;
	hit.xs = 6;
	check_record(__LINE__, "AGCATG", "IIIIII", &hit, &a, NULL,
		     "read1\t0\tchr2\t11\t0\t6M\t*\t0\t0\tAGCATG\tIIIIII\t"
		     "NM:i:0\tMD:Z:6\tAS:i:6\tXS:i:6");
	sm_aln_free(&a);
}

static void test_reverse(void)
{
	sm_aln_t a = { 0 };
	sm_hit_t hit = { 1, 1, { 7, 8 }, 0, 1 };

	/* The query (the read's reverse complement) is YC ACGTAGCA T: two
	 * clipped bases, chr1:1-8 with one mismatch (T>A), one clipped base.
	 * The read as sequenced is its reverse complement, with R for Y. */
	set_aln(&a, "8M", 7, 0, 8, 2, 10);
	check_record(__LINE__, "ATGCTACGTGR", "ABCDEFGHIJK", &hit, &a, NULL,
		     "read1\t16\tchr1\t1\t27\t2S8M1S\t*\t0\t0\tYCACGTAGCAT\tKJIHGFEDCBA\t"
		     "NM:i:1\tMD:Z:4T3\tAS:i:7\tXS:i:0");
	sm_aln_free(&a);
}

/* A reverse record's SEQ complements every IUPAC letter, in either case, as
 * htslib's 4-bit codes do (the bits of the code reversed: A<->T, C<->G). */
static void test_reverse_iupac(void)
{
	static const char letters[] = "ACGTRYSWKMBDHVNacgtryswkmbdhvn";
	const int n = (int)sizeof letters - 1;
	char want[sizeof letters], qual[sizeof letters];
	sm_read_t r = { (char *)"read1", (char *)letters, qual, n, 0, NULL };
	sm_hit_t hit = { 1, 1, { 1, 0 }, 0, 1 };
	sm_record_ws_t ws = { 0 };
	sm_aln_t a = { 0 };
	bam1_t *b = bam_init1();
	kstring_t s = KS_INITIALIZE;
	int rc;

	for (int i = 0; i < n; i++) {
		int c = seq_nt16_table[(unsigned char)letters[n - 1 - i]];

		want[i] = seq_nt16_str[((c & 1) << 3) | ((c & 2) << 1) | ((c & 4) >> 1) | ((c & 8) >> 3)];
		qual[i] = 'I';
	}
	want[n] = qual[n] = '\0';
	set_aln(&a, "1M", 1, 0, 1, 0, 1);
	rc = sm_record_build(b, &r, ref, &sc, &hit, &a, NULL, NULL, &ws);
	CHECK(rc == 0 && sam_format1(hdr, b, &s) >= 0 && strstr(s.s, want) != NULL,
	      "reverse SEQ of %s: got %s, want SEQ %s", letters, s.s ? s.s : "", want);
	free(s.s);
	bam_destroy1(b);
	sm_record_ws_free(&ws);
	sm_aln_free(&a);
}

/* SEQ and QUAL of random reads on either strand (fixed seed) against the
 * letter-by-letter rule: lengths around the eight-letter words of
 * record_seq, mostly A/C/G/T with lowercase and ambiguous letters in some
 * words, qualities over the whole Phred+33 range. */
static void test_seq_qual_random(void)
{
	enum { CASES = 300, MAX_LEN = 70 };
	static const char other[] = "RYSWKMBDHVNacgtryswkmbdhvn";
	char seq[MAX_LEN + 1], qual[MAX_LEN + 1], want_seq[MAX_LEN + 1], want_qual[MAX_LEN + 1];
	sm_record_ws_t ws = { 0 };
	sm_aln_t a = { 0 };
	bam1_t *b = bam_init1();
	kstring_t s = KS_INITIALIZE;
	int bad = 0;

	unit_seed(31);
	set_aln(&a, "1M", 1, 0, 1, 0, 1);
	for (int t = 0; t < CASES && !bad; t++) {
		int n = 1 + (int)rnd(MAX_LEN), rev = t & 1, rare = rnd(4) == 0;
		sm_read_t r = { (char *)"read1", seq, qual, n, 0, NULL };
		sm_hit_t hit = { 1, rev, { 1, 0 }, 0, 1 };
		char *f[11];

		for (int i = 0; i < n; i++) {
			seq[i] = rare && rnd(20) == 0 ? other[rnd(sizeof other - 1)] : "ACGT"[rnd(4)];
			qual[i] = (char)('!' + rnd('~' - '!' + 1));
		}
		seq[n] = qual[n] = '\0';
		for (int i = 0; i < n; i++) {
			int c = seq_nt16_table[(unsigned char)seq[rev ? n - 1 - i : i]];

			want_seq[i] = rev ? seq_nt16_str[((c & 1) << 3) | ((c & 2) << 1) | ((c & 4) >> 1) |
						      ((c & 8) >> 3)] : seq_nt16_str[c];
			want_qual[i] = qual[rev ? n - 1 - i : i];
		}
		want_seq[n] = want_qual[n] = '\0';
		s.l = 0;
		bad = sm_record_build(b, &r, ref, &sc, &hit, &a, NULL, NULL, &ws) < 0 ||
		      sam_format1(hdr, b, &s) < 0;
		for (int k = 0; k < 11 && !bad; k++)
			bad = !(f[k] = strtok(k ? NULL : s.s, "\t"));
		bad = bad || strcmp(f[9], want_seq) != 0 || strcmp(f[10], want_qual) != 0;
		if (bad)
			CHECK(0, "random read %d (%s, %s strand): SEQ/QUAL differ from %s %s", t, seq,
			      rev ? "reverse" : "forward", want_seq, want_qual);
	}
	if (!bad)
		CHECK(1, "SEQ and QUAL of %d random reads follow the letter-by-letter rule", CASES);
	free(s.s);
	bam_destroy1(b);
	sm_record_ws_free(&ws);
	sm_aln_free(&a);
}

static void test_unmapped(void)
{
	sm_hit_t hit = { 0, 1, { 12, 5 }, 3, 0 };

	check_record(__LINE__, "acgtNR", "!!##II", &hit, NULL, "g1",
		     "read1\t4\t*\t0\t0\t*\t*\t0\t0\tACGTNR\t!!##II\tRG:Z:g1");
	check_record(__LINE__, "ACGT", "IIII", &hit, NULL, NULL,
		     "read1\t4\t*\t0\t0\t*\t*\t0\t0\tACGT\tIIII");
}

static void test_long_name(void)
{
	char name[300];
	sm_read_t r = { name, (char *)"ACGT", (char *)"IIII", 4, 0, NULL };
	sm_hit_t hit = { 0 };
	sm_record_ws_t ws = { 0 };
	bam1_t *b = bam_init1();

	memset(name, 'x', sizeof name - 1);
	name[sizeof name - 1] = '\0';
	CHECK(sm_record_build(b, &r, ref, &sc, &hit, NULL, NULL, NULL, &ws) < 0,
	      "a 299-character name is refused");
	name[254] = '\0';
	CHECK(sm_record_build(b, &r, ref, &sc, &hit, NULL, NULL, NULL, &ws) == 0,
	      "a 254-character name is accepted");
	bam_destroy1(b);
	sm_record_ws_free(&ws);
}

static void test_mapq(void)
{
	int mono = 1, bounded = 1;

	CHECK(sm_mapq(&sc, 100, 100, 100) == 0, "XS == AS gives 0");
	CHECK(sm_mapq(&sc, 90, 100, 100) == 0, "XS > AS gives 0");
	CHECK(sm_mapq(&sc, 100, 95, 100) == SM_MAPQ_PER_MISMATCH, "one mismatch's lead: %d",
	      sm_mapq(&sc, 100, 95, 100));
	CHECK(sm_mapq(&sc, 100, 0, 100) == SM_MAPQ_MAX, "no competitor: %d", sm_mapq(&sc, 100, 0, 100));
	for (int as = 1; as <= 300; as++)
		for (int xs = 0; xs <= as + 5; xs++) {
			int q = sm_mapq(&sc, as, xs, 100);
			if (q < 0 || q > SM_MAPQ_MAX)
				bounded = 0;
			if (xs > 0 && sm_mapq(&sc, as, xs - 1, 100) < q)
				mono = 0;   /* a weaker competitor never lowers MAPQ */
			if (as > 1 && xs < as && sm_mapq(&sc, as - 1, xs, 100) > q)
				mono = 0;   /* a better hit never lowers MAPQ */
		}
	CHECK(bounded, "MAPQ within 0..%d (never 255)", SM_MAPQ_MAX);
	CHECK(mono, "MAPQ monotone in AS and XS");
}

/* sm_mapq_lead: sm_mapq for one read; a pair's differences pooled; no
 * differences term without a read carrying the lead; monotone in the lead. */
static void test_mapq_lead(void)
{
	const double as2[2] = { 130, 69 }, as1[1] = { 199 };
	const int32_t len2[2] = { 150, 150 }, len1[1] = { 300 };
	int same = 1, mono = 1;

	for (int as = 1; as <= 150; as++)
		for (int xs = 0; xs <= as + 5; xs++) {
			double a = as;
			int32_t n = 150;

			if (sm_mapq_lead(&sc, (double)as - xs, 1, &a, &n) != sm_mapq(&sc, as, xs, n))
				same = 0;
		}
	CHECK(same, "one read: sm_mapq_lead is sm_mapq");
	CHECK(sm_mapq_lead(&sc, sc.match + sc.mismatch, 0, NULL, NULL) == SM_MAPQ_PER_MISMATCH,
	      "no read carrying the lead: no differences term (%d)",
	      sm_mapq_lead(&sc, sc.match + sc.mismatch, 0, NULL, NULL));
	CHECK(sm_mapq_lead(&sc, 4.5, 2, as2, len2) == sm_mapq_lead(&sc, 4.5, 1, as1, len1),
	      "two reads' differences pool: %d", sm_mapq_lead(&sc, 4.5, 2, as2, len2));
	CHECK(sm_mapq_lead(&sc, 0, 2, as2, len2) == 0 && sm_mapq_lead(&sc, -1.5, 2, as2, len2) == 0,
	      "no lead: 0");
	for (double lead = 0; lead < 40; lead += 0.25)
		if (sm_mapq_lead(&sc, lead + 0.25, 2, as2, len2) < sm_mapq_lead(&sc, lead, 2, as2, len2))
			mono = 0;
	CHECK(mono, "monotone in a fractional lead");
}

static void test_hit_choose(void)
{
	const int shift = SM_LOCUS_MIN_SHIFT;
	const int64_t w = (int64_t)1 << shift;
	/* `apart` reaching over the neighbouring bins: every locus there is
	 * the hit's place. */
	const int64_t near_all = 2 * w;
	sm_scan_t f = { 0 }, r = { 0 };
	sm_hit_t h;

	sm_hit_choose(&f, &r, shift, near_all, 30, 0, &h);
	CHECK(!h.mapped && h.xs == 0, "no loci: unmapped");

	/* Two tied hits, in the order (end, forward first): rev 500, fwd 1000. */
	sm_scan_offer(&f, shift, 50, 1000);
	sm_scan_offer(&r, shift, 50, 500);
	sm_hit_choose(&f, &r, shift, near_all, 30, 0, &h);
	CHECK(h.mapped && h.is_rev && h.best.end == 500 && h.xs == 50 && h.n_tied == 2,
	      "equal scores, key 0: the smaller end, the other is XS, 2 tied (rev %d end %lld xs %d "
	      "n_tied %d)", h.is_rev, (long long)h.best.end, h.xs, h.n_tied);
	sm_hit_choose(&f, &r, shift, near_all, 30, 1, &h);
	CHECK(h.mapped && !h.is_rev && h.best.end == 1000 && h.xs == 50,
	      "equal scores, key 1: the second tied hit, the first is XS (rev %d end %lld xs %d)",
	      h.is_rev, (long long)h.best.end, h.xs);
	sm_hit_choose(&f, &r, shift, near_all, 30, 2, &h);
	CHECK(h.is_rev && h.best.end == 500, "equal scores, key 2: the first again (key mod 2)");

	memset(&r, 0, sizeof r);
	sm_scan_offer(&r, shift, 50, 1000);
	for (uint64_t key = 0; key < 4; key++) {
		sm_hit_choose(&f, &r, shift, near_all, 30, key, &h);
		CHECK(h.mapped && !h.is_rev && h.xs == 0,
		      "equal score and end, key %d: forward first; same bin is no tie and not XS "
		      "(rev %d xs %d)", (int)key, h.is_rev, h.xs);
	}

	/* Bins 10 and 11 are one place: no tie, whatever the key; a third
	 * locus in bin 12 is a place of its own (two from bin 10). */
	memset(&f, 0, sizeof f);
	memset(&r, 0, sizeof r);
	sm_scan_offer(&f, shift, 60, 10 * w + 5);
	sm_scan_offer(&f, shift, 60, 11 * w + 5);
	sm_scan_offer(&f, shift, 40, 20 * w);
	for (uint64_t key = 0; key < 4; key++) {
		sm_hit_choose(&f, &r, shift, near_all, 30, key, &h);
		CHECK(h.best.end == 10 * w + 5 && h.xs == 40 && h.n_tied == 1,
		      "neighbouring bins, key %d: the leftmost, no tie (end %lld xs %d n_tied %d)",
		      (int)key, (long long)h.best.end, h.xs, h.n_tied);
	}
	sm_scan_offer(&f, shift, 60, 12 * w + 5);
	sm_hit_choose(&f, &r, shift, near_all, 30, 0, &h);
	CHECK(h.best.end == 10 * w + 5 && h.xs == 60, "bins 10-12, key 0: bin 10, XS = AS (xs %d)",
	      h.xs);
	sm_hit_choose(&f, &r, shift, near_all, 30, 1, &h);
	CHECK(h.best.end == 12 * w + 5 && h.xs == 60 && h.n_tied == 2,
	      "bins 10-12, key 1: bin 12, XS = AS, 2 tied places (end %lld xs %d n_tied %d)",
	      (long long)h.best.end, h.xs, h.n_tied);

	/* Neighbouring bins, but further apart than a read and its reach
	 * (apart): two alignments, a tie, each the other's XS; nearer, one
	 * place. */
	memset(&f, 0, sizeof f);
	memset(&r, 0, sizeof r);
	sm_scan_offer(&f, shift, 60, 10 * w + 2);
	sm_scan_offer(&f, shift, 60, 11 * w + 50);
	sm_hit_choose(&f, &r, shift, w, 30, 0, &h);
	CHECK(h.best.end == 10 * w + 2 && h.xs == 60, "neighbouring bins %d columns apart, apart %d, "
	      "key 0: a tie, XS = AS (end %lld xs %d)", (int)(w + 48), (int)w, (long long)h.best.end,
	      h.xs);
	sm_hit_choose(&f, &r, shift, w, 30, 1, &h);
	CHECK(h.best.end == 11 * w + 50 && h.xs == 60, "the same, key 1: the second (end %lld xs %d)",
	      (long long)h.best.end, h.xs);
	sm_hit_choose(&f, &r, shift, 2 * w, 30, 1, &h);
	CHECK(h.best.end == 10 * w + 2 && h.xs == 0, "the same within apart %d: one place (end %lld "
	      "xs %d)", (int)(2 * w), (long long)h.best.end, h.xs);

	/* A full list of ties on each strand: every tied hit is reachable,
	 * in the order of ends, forward first. */
	memset(&f, 0, sizeof f);
	memset(&r, 0, sizeof r);
	for (int k = 0; k < SM_TOPK; k++) {
		sm_scan_offer(&f, shift, 70, (4 * k + 2) * w);
		sm_scan_offer(&r, shift, 70, (4 * k + 4) * w);
	}
	for (uint64_t key = 0; key < 2 * SM_TOPK; key++) {
		sm_hit_choose(&f, &r, shift, near_all, 30, key, &h);
		CHECK(h.best.end == (int64_t)(2 * key + 2) * w &&
		      h.is_rev == (int)(key % 2) && h.xs == 70,
		      "eight tied hits, key %d: hit %d (rev %d end %lld xs %d)", (int)key, (int)key,
		      h.is_rev, (long long)h.best.end, h.xs);
	}

	memset(&f, 0, sizeof f);
	memset(&r, 0, sizeof r);
	sm_scan_offer(&f, shift, 50, 1000);
	sm_scan_offer(&r, shift, 70, 5000);
	sm_scan_offer(&f, shift, 40, 9000);
	sm_hit_choose(&f, &r, shift, near_all, 30, 1, &h);
	CHECK(h.mapped && h.is_rev && h.best.score == 70 && h.xs == 50,
	      "higher score wins whatever the end (rev %d score %d xs %d)",
	      h.is_rev, h.best.score, h.xs);

	sm_hit_choose(&f, &r, shift, near_all, 71, 0, &h);
	CHECK(!h.mapped, "best below -T: unmapped");
	sm_hit_choose(&f, &r, shift, near_all, 70, 0, &h);
	CHECK(h.mapped, "best equal to -T: mapped");
}

/* The tie key: a pair's two names share it, other names spread it evenly
 * over a few choices. */
static void test_tie_key(void)
{
	enum { N_NAMES = 7000, N_CHOICES = 7 };
	int count[N_CHOICES] = { 0 }, even = 1;
	char name[32];

	CHECK(sm_tie_key("r1/1") == sm_tie_key("r1/2") && sm_tie_key("r1/1") == sm_tie_key("r1"),
	      "/1 and /2 are not hashed");
	CHECK(sm_tie_key("r1/3") != sm_tie_key("r1"), "other suffixes are");
	CHECK(sm_tie_key("r1") != sm_tie_key("r2") && sm_tie_key("a") != sm_tie_key("b"),
	      "names differing in one letter differ");
	CHECK(sm_tie_key("/1") != sm_tie_key(""), "a name that is only /1 is hashed whole");
	for (int k = 0; k < N_NAMES; k++) {
		snprintf(name, sizeof name, "sim_%d", k);
		count[sm_tie_pick(sm_tie_key(name), N_CHOICES)]++;
	}
	/* 1000 expected per choice, sd about 29. */
	for (int c = 0; c < N_CHOICES; c++)
		if (count[c] < 880 || count[c] > 1120)
			even = 0;
	CHECK(even, "7000 names over 7 choices: %d %d %d %d %d %d %d", count[0], count[1], count[2],
	      count[3], count[4], count[5], count[6]);
}

int main(void)
{
	kstring_t text = KS_INITIALIZE;

	unit_begin("record");
	if (sm_ref_from_strings(2, names, seqs, &ref) < 0)
		return 1;
	ksprintf(&text, "@SQ\tSN:chr1\tLN:20\n@SQ\tSN:chr2\tLN:16\n");
	hdr = sam_hdr_parse(text.l, text.s);
	if (!hdr)
		return 1;
	test_md_nm();
	test_md_nm_random();
	test_forward_and_clips();
	test_reverse();
	test_reverse_iupac();
	test_seq_qual_random();
	test_unmapped();
	test_long_name();
	test_mapq();
	test_mapq_lead();
	test_hit_choose();
	test_tie_key();
	sam_hdr_destroy(hdr);
	sm_ref_destroy(ref);
	free(text.s);
	return unit_end();
}
