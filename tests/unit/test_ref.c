/* test_ref.c — io/ref.c: FASTA loading (plain, gzip), coordinates,
 * ambiguity runs, and every error the loader must report with file and line.
 * One line per check; the last line is "N passed, N failed". */
#include "tests/unit/unit.h"
#include "io/base.h"
#include "io/inflate.h"
#include "io/ref.h"
#include "mapper/score.h"

static int load(const char *path, sm_ref_t **ref)
{
	int ret;

	capture_begin();
	ret = sm_ref_load(path, ref);
	capture_end();
	return ret;
}

static int from_strings(int n, const char *const *names, const char *const *seqs, sm_ref_t **out)
{
	int ret;

	capture_begin();
	ret = sm_ref_from_strings(n, names, seqs, out);
	capture_end();
	return ret;
}

/* The load of text must fail with a message naming the file and need. */
static void expect_error(const char *what, const char *name, const char *text, const char *need)
{
	sm_ref_t *ref = NULL;
	const char *p = write_text(name, text);
	int ret = load(p, &ref);
	CHECK(ret == -1 && ref == NULL, "%s: load fails", what);
	CHECK(strstr(errbuf, p) != NULL, "%s: message names the file", what);
	CHECK(strstr(errbuf, need) != NULL, "%s: message contains \"%s\" (got: %.200s)", what, need, errbuf);
	sm_ref_destroy(ref);
}

static void test_basic(void)
{
	sm_ref_t *ref = NULL;
	const char *p = write_text("basic.fa",
		">chr1 first contig\nACGTN\nnnRYac\n"
		">chr2\tsecond\n\nGGGG\r\nTT\n"
		">chr3\nA\n");
	int ret = load(p, &ref);

	CHECK(ret == 0 && ref != NULL, "multi-line, multi-contig FASTA loads");
	if (!ref)
		return;
	CHECK(ref->n_contig == 3, "three contigs");
	CHECK(strcmp(ref->name[0], "chr1") == 0, "name cut at a space");
	CHECK(strcmp(ref->name[1], "chr2") == 0, "name cut at a tab");
	CHECK(ref->len[0] == 11 && ref->len[1] == 6 && ref->len[2] == 1, "lengths 11 6 1");
	CHECK(ref->offset[0] == 0 && ref->offset[1] == 11 && ref->offset[2] == 17, "offsets 0 11 17");
	CHECK(ref->total == 18, "total 18");
	CHECK(ref->seq[0] == 0 && ref->seq[1] == 1 && ref->seq[2] == 2 && ref->seq[3] == 3, "ACGT coded 0123");
	CHECK(ref->seq[9] == 0 && ref->seq[10] == 1, "lowercase ac coded 0 1");
	CHECK(ref->seq[4] == SM_BASE_N && ref->seq[7] == SM_BASE_N && ref->seq[8] == SM_BASE_N,
	      "N and R, Y coded 4");
	CHECK(ref->n_amb == 3, "ambiguity runs N(3) R Y: %d", ref->n_amb);
	if (ref->n_amb == 3) {
		CHECK(ref->amb[0].start == 4 && ref->amb[0].len == 3 && ref->amb[0].base == 'N',
		      "N run merges across lines and case");
		CHECK(ref->amb[1].start == 7 && ref->amb[1].len == 1 && ref->amb[1].base == 'R', "R run");
	}
	CHECK(sm_ref_base_char(ref, 0) == 'A' && sm_ref_base_char(ref, 10) == 'C', "base_char of ACGT");
	CHECK(sm_ref_base_char(ref, 5) == 'N' && sm_ref_base_char(ref, 7) == 'R' &&
	      sm_ref_base_char(ref, 8) == 'Y', "base_char of ambiguous letters");
	CHECK(sm_ref_base_char(ref, 15) == 'T', "CRLF line ending stripped");
	CHECK(sm_ref_contig_of(ref, 0) == 0 && sm_ref_contig_of(ref, 10) == 0, "contig_of in contig 0");
	CHECK(sm_ref_contig_of(ref, 11) == 1 && sm_ref_contig_of(ref, 16) == 1, "contig_of in contig 1");
	CHECK(sm_ref_contig_of(ref, 17) == 2, "contig_of last base");
	CHECK(strcmp(ref->path, p) == 0, "path kept");
	sm_ref_destroy(ref);
}

static void test_runs_break_at_contigs(void)
{
	sm_ref_t *ref = NULL;
	const char *p = write_text("runs.fa", ">a\nACNN\n>b\nNNAC\n");
	CHECK(load(p, &ref) == 0, "N runs at a contig boundary load");
	if (!ref)
		return;
	CHECK(ref->n_amb == 2 && ref->amb[0].len == 2 && ref->amb[1].start == 4,
	      "a run never spans two contigs");
	sm_ref_destroy(ref);
}

static void test_gzip(void)
{
	static const char text[] = ">g1\nACGTACGTAC\nGT\n>g2\nTTTT\n";
	sm_ref_t *ref = NULL;
	const char *p = write_gz("ref.fa.gz", text);
	CHECK(load(p, &ref) == 0 && ref && ref->n_contig == 2 && ref->total == 16, "gzip FASTA loads");
	sm_ref_destroy(ref);
	ref = NULL;

	/* A big compressed file cut in the middle of the compressed stream. */
	size_t big = 200000;
	char *s = xmalloc(big + 16);
	strcpy(s, ">big\n");
	for (size_t i = 5; i < big; i++)
		s[i] = (i % 61 == 60) ? '\n' : "ACGT"[(i * 7 + i / 13) % 4];
	s[big] = '\0';
	p = write_gz("big.fa.gz", s);
	free(s);
	FILE *fp = fopen(p, "rb");
	fseek(fp, 0, SEEK_END);
	long sz = ftell(fp);
	fclose(fp);
	CHECK(truncate(p, sz / 2) == 0, "truncate big.fa.gz to %ld bytes", sz / 2);
	CHECK(load(p, &ref) == -1 && ref == NULL, "truncated gzip is an error, not end of file");
	CHECK(strstr(errbuf, p) && strstr(errbuf, "truncated gzip"), "message: %.200s", errbuf);

	/* Cut only the 8-byte trailer (CRC, length): all data decompresses. */
	p = write_gz("trailer.fa.gz", text);
	fp = fopen(p, "rb");
	fseek(fp, 0, SEEK_END);
	sz = ftell(fp);
	fclose(fp);
	CHECK(truncate(p, sz - 4) == 0, "cut the gzip trailer");
	CHECK(load(p, &ref) == -1, "gzip missing its trailer is an error");
	CHECK(strstr(errbuf, "gzip") != NULL, "message mentions gzip: %.200s", errbuf);

	/* Corrupt compressed data. */
	p = write_gz("corrupt.fa.gz", text);
	fp = fopen(p, "r+b");
	fseek(fp, 12, SEEK_SET);
	fputc(0xff, fp);
	fputc(0xff, fp);
	fputc(0xff, fp);
	fclose(fp);
	CHECK(load(p, &ref) == -1, "corrupt gzip is an error: %.200s", errbuf);
}

static void test_errors(void)
{
	sm_ref_t *ref = NULL;

	CHECK(load(tmp_path("does-not-exist.fa"), &ref) == -1 && ref == NULL, "missing file fails");
	CHECK(strstr(errbuf, "does-not-exist.fa") && strstr(errbuf, "cannot open"),
	      "missing file: message names it: %.200s", errbuf);
	CHECK(load(unit_dir, &ref) == -1, "a directory fails: %.200s", errbuf);

	expect_error("empty file", "empty.fa", "", "no contig");
	expect_error("only blank lines", "blank.fa", "\n\n", "no contig");
	expect_error("contig with no sequence (middle)", "noseq1.fa", ">a\nAC\n>b\n>c\nGT\n",
		     "line 3: contig 'b' has no sequence");
	expect_error("contig with no sequence (last)", "noseq2.fa", ">a\nAC\n>b\n\n",
		     "line 3: contig 'b' has no sequence");
	expect_error("duplicate names", "dup.fa", ">a x\nAC\n>b\nGT\n>a y\nTT\n",
		     "line 5: duplicate contig name 'a' (first at line 1)");
	expect_error("digit in sequence", "digit.fa", ">a\nACGT\nAC1T\n", "line 3: invalid character '1' at column 3");
	expect_error("dash in sequence", "dash.fa", ">a\nAC-T\n", "invalid character '-'");
	expect_error("star in sequence", "star.fa", ">a\nAC*T\n", "invalid character '*'");
	expect_error("space in sequence", "space.fa", ">a\nAC T\n", "invalid character byte 0x20");
	expect_error("U in sequence", "u.fa", ">a\nACUT\n", "invalid character 'U'");
	expect_error("X in sequence", "x.fa", ">a\nACXT\n", "invalid character 'X'");
	expect_error("text before the first header", "fastq.fa", "@r1\nACGT\n+\nIIII\n",
		     "line 1: text before the first '>'");
	expect_error("empty name", "noname.fa", ">\nACGT\n", "line 1: contig header has no name");
	expect_error("name after a space", "spacename.fa", "> a\nACGT\n", "no name");
	expect_error("name not valid in SAM", "badname.fa", ">*x\nACGT\n", "not a valid SAM reference name");
	write_file("nul.fa", ">a\nAC\0T\n", 8);
	CHECK(load(tmp_path("nul.fa"), &ref) == -1 && strstr(errbuf, "byte 0x00"), "NUL byte rejected: %.200s", errbuf);
}

static void test_from_strings(void)
{
	const char *names[] = { "x", "y z" };
	const char *seqs[] = { "ACGTNNacgt", "G" };
	const char *dup_names[] = { "x", "x" };
	const char *bad_seqs[] = { "ACGT", "AC9" };
	const char *empty_seqs[] = { "ACGT", "" };
	sm_ref_t *ref = NULL;

	CHECK(from_strings(2, names, seqs, &ref) == 0 && ref, "from_strings builds");
	if (ref) {
		CHECK(ref->n_contig == 2 && ref->total == 11 && ref->offset[1] == 10, "from_strings coordinates");
		CHECK(strcmp(ref->name[1], "y") == 0, "from_strings cuts names");
		CHECK(ref->n_amb == 1 && sm_ref_base_char(ref, 5) == 'N' && sm_ref_base_char(ref, 9) == 'T',
		      "from_strings ambiguity and lowercase");
		CHECK(sm_ref_contig_of(ref, 10) == 1, "from_strings contig_of");
		sm_ref_destroy(ref);
	}
	ref = NULL;
	CHECK(from_strings(2, dup_names, seqs, &ref) == -1 && !ref, "from_strings rejects duplicates");
	CHECK(from_strings(2, names, bad_seqs, &ref) == -1 && !ref, "from_strings rejects digits");
	CHECK(from_strings(2, names, empty_seqs, &ref) == -1 && !ref, "from_strings rejects empty contigs");
	CHECK(from_strings(0, names, seqs, &ref) == -1 && !ref, "from_strings rejects no contig");
}

/* contig_of and base_char against a linear scan on many contigs and runs. */
static void test_many_contigs(void)
{
	enum { N_CONTIG = 300 };
	size_t cap = 1 << 20, n = 0;
	char *text = xmalloc(cap);
	char *truth = xmalloc(cap);
	int32_t *owner = xmalloc(cap * sizeof *owner);
	int64_t total = 0;
	unsigned seed = 12345;
	sm_ref_t *ref = NULL;

	for (int c = 0; c < N_CONTIG; c++) {
		n += (size_t)sprintf(text + n, ">c%d\n", c);
		int len = 1 + (int)((seed = seed * 1103515245u + 12345u) >> 16) % 200;
		for (int i = 0; i < len; i++) {
			seed = seed * 1103515245u + 12345u;
			char b = "ACGTACGTACGTNNRYKMacgtn"[(seed >> 16) % 23];
			text[n++] = b;
			char up = (char)(b & ~0x20);
			truth[total] = up;
			owner[total++] = c;
			if ((seed >> 8) % 37 == 0)
				text[n++] = '\n';
		}
		text[n++] = '\n';
	}
	text[n] = '\0';
	const char *p = write_text("many.fa", text);
	CHECK(load(p, &ref) == 0 && ref && ref->n_contig == N_CONTIG && ref->total == total,
	      "%d random contigs load (%lld bases)", N_CONTIG, (long long)total);
	if (ref) {
		int64_t bad_c = 0, bad_b = 0;
		for (int64_t i = 0; i < total; i++) {
			bad_c += sm_ref_contig_of(ref, i) != owner[i];
			bad_b += sm_ref_base_char(ref, i) != truth[i];
		}
		CHECK(bad_c == 0, "contig_of agrees with a linear scan at every position");
		CHECK(bad_b == 0, "base_char returns the FASTA letter at every position");
		int sorted = 1;
		for (int32_t i = 1; i < ref->n_amb; i++)
			sorted &= ref->amb[i - 1].start + ref->amb[i - 1].len <= ref->amb[i].start;
		CHECK(sorted, "ambiguity runs sorted and disjoint");
		sm_ref_destroy(ref);
	}
	free(text);
	free(truth);
	free(owner);
}

/* io/base.h's word helpers against the tables, byte by byte, on random
 * letters (fixed seed): runs of A/C/G/T in either case, and now and then
 * any other byte, at lengths around the word of eight. */
static void test_base_words(void)
{
	enum { CASES = 500, MAX_LEN = 40 };
	char text[MAX_LEN];
	uint8_t got[MAX_LEN], want[MAX_LEN], rev[MAX_LEN];
	int bad = 0;

	unit_seed(7);
	for (int t = 0; t < CASES && !bad; t++) {
		int n = (int)rnd(MAX_LEN + 1), odd = rnd(3) == 0;

		for (int i = 0; i < n; i++)
			text[i] = odd && rnd(16) == 0 ? (char)rnd(256) : "ACGTacgt"[rnd(8)];
		for (int i = 0; i < n; i++)
			want[i] = sm_nt4_table[(unsigned char)text[i]];
		sm_codes_of_letters(got, text, n);
		bad = n > 0 && memcmp(got, want, (size_t)n) != 0;
		sm_codes_reverse(rev, want, n, 1);
		for (int i = 0; i < n && !bad; i++)
			bad = rev[i] != (want[n - 1 - i] < SM_BASE_N ? 3 - want[n - 1 - i] : want[n - 1 - i]);
		if (bad)
			CHECK(0, "base words: case %d (%d letters) differs from the tables", t, n);
	}
	if (!bad)
		CHECK(1, "codes of %d random letter runs, and their reverse complements, as the tables",
		      CASES);
}

int main(int argc, char **argv)
{
	/* tests/run.sh runs this again with --zlib (io/inflate.h) */
	if (argc > 1 && strcmp(argv[1], "--zlib") == 0)
		sm_inflate_set_default(SM_INFLATER_ZLIB);
	unit_begin("ref");
	test_basic();
	test_runs_break_at_contigs();
	test_gzip();
	test_errors();
	test_from_strings();
	test_many_contigs();
	test_base_words();
	return unit_end();
}
