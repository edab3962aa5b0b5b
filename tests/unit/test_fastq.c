/* test_fastq.c — io/fastq.c: records (plain, gzip, stdin, wrapped), and
 * every error the reader must report with file, record and line.
 * One line per check; the last line is "N passed, N failed". */
#include "tests/unit/unit.h"
#include <htslib/bgzf.h>

#include "io/fastq.h"
#include "io/inflate.h"

/* Reads every record of path into a fresh reader with stderr captured.
 * Returns the last sm_fastq_next() value (0: clean end) or -2 when open
 * failed; *n gets the number of records read. */
/* The inflater main() chose (--zlib), and whether every reader parses on
 * a thread of its own (--ahead, sm_fastq_ahead). */
static sm_inflater_t inflater;
static int ahead;

static sm_fastq_t *open_fq(const char *path)
{
	sm_fastq_t *f = sm_fastq_open(path);

	if (f && ahead && sm_fastq_ahead(f) < 0) {
		sm_fastq_close(f);
		return NULL;
	}
	return f;
}

/* open_fq(path), checked as `what`. */
static sm_fastq_t *open_checked(const char *path, const char *what)
{
	sm_fastq_t *f = open_fq(path);

	CHECK(f != NULL, "%s", what);
	return f;
}

static int read_all(const char *path, int64_t *n, sm_read_t *last)
{
	sm_read_t r = { 0 };
	sm_fastq_t *f;
	int ret;

	*n = 0;
	capture_begin();
	f = open_fq(path);
	if (!f) {
		capture_end();
		return -2;
	}
	while ((ret = sm_fastq_next(f, &r)) == 1)
		(*n)++;
	sm_fastq_close(f);
	capture_end();
	if (last) {
		*last = r;
	} else {
		sm_read_free(&r);
	}
	return ret;
}

/* Parsing text must fail at record rec and line line with need in the message. */
static void expect_error(const char *what, const char *text, int rec, int line, const char *need)
{
	char name[64], where[64];
	int64_t n;
	const char *p;
	int ret;

	snprintf(name, sizeof name, "bad%d.fq", n_pass + n_fail);
	p = write_text(name, text);
	ret = read_all(p, &n, NULL);
	CHECK(ret == -1 && n == rec - 1, "%s: fails after %d good records (ret %d, %lld read)",
	      what, rec - 1, ret, (long long)n);
	snprintf(where, sizeof where, "line %d: record %d", line, rec);
	CHECK(strstr(errbuf, p) && strstr(errbuf, where), "%s: message names file, %s: %.300s", what, where, errbuf);
	CHECK(strstr(errbuf, need) != NULL, "%s: message says \"%s\"", what, need);
}

static void test_basic(void)
{
	const char *p = write_text("basic.fq",
		"@r1 some comment\nACGTN\n+r1\nIIII#\n"
		"@r2\tx\nacgtRYKM\n+r2\tx\n@@@@IIII\n"
		"\n"
		"@r3\r\nGATT\r\n+\r\n!!!~\r\n"
		"@r4\nAC\nGT\nA\n+\nII\nI\nII\n"
		"@r5\nC\n+\n5");
	sm_fastq_t *f = open_checked(p, "open plain FASTQ");
	sm_read_t r = { 0 };

	if (!f)
		return;
	CHECK(strcmp(sm_fastq_path(f), p) == 0, "path kept");
	CHECK(sm_fastq_next(f, &r) == 1, "record 1");
	CHECK(strcmp(r.name, "r1") == 0 && strcmp(r.seq, "ACGTN") == 0 && strcmp(r.qual, "IIII#") == 0 &&
	      r.len == 5 && r.index == 0, "record 1 fields, name cut at a space, '+' repeating the name alone");
	CHECK(sm_fastq_next(f, &r) == 1, "record 2");
	CHECK(strcmp(r.name, "r2") == 0 && strcmp(r.seq, "acgtRYKM") == 0 && strcmp(r.qual, "@@@@IIII") == 0 &&
	      r.index == 1, "record 2: lowercase, IUPAC, '+' repeating the title, QUAL starting with '@'");
	CHECK(sm_fastq_next(f, &r) == 1, "record 3 after a blank line");
	CHECK(strcmp(r.name, "r3") == 0 && strcmp(r.seq, "GATT") == 0 && strcmp(r.qual, "!!!~") == 0,
	      "record 3: CRLF line endings stripped");
	CHECK(sm_fastq_next(f, &r) == 1, "record 4");
	CHECK(strcmp(r.seq, "ACGTA") == 0 && strcmp(r.qual, "IIIII") == 0 && r.len == 5,
	      "record 4: SEQ and QUAL wrapped over several lines");
	CHECK(sm_fastq_next(f, &r) == 1, "record 5");
	CHECK(strcmp(r.seq, "C") == 0 && strcmp(r.qual, "5") == 0 && r.index == 4,
	      "record 5: last line without newline");
	CHECK(sm_fastq_next(f, &r) == 0, "clean end of file");
	CHECK(sm_fastq_next(f, &r) == 0, "end of file again");
	sm_fastq_close(f);
	sm_read_free(&r);
	CHECK(r.name == NULL && r.seq == NULL && r.len == 0, "sm_read_free zeroes the record");
}

/* What bwa mem and minimap2 read besides four-line FASTQ: reads trimmed
 * to nothing, FASTA records (no qualities), '.' for an uncalled base. */
static void test_other_records(void)
{
	const char *p = write_text("other.fq",
		"@e1\n\n+\n\n"
		"@q1\nAC.T.\n+\nIIIII\n"
		">f1 a comment\nACGT\nNNac\n\nG\n"
		"@e2\n+\n\n"
		">f2\n"
		">f3\nTT\n"
		"@q2\nGA\n+\nII\n"
		">f4\nC.");
	sm_fastq_t *f = open_checked(p, "open mixed FASTQ and FASTA");
	sm_read_t r = { 0 };

	if (!f)
		return;
	CHECK(sm_fastq_next(f, &r) == 1 && strcmp(r.name, "e1") == 0 && r.len == 0 && r.seq[0] == '\0' &&
	      r.qual && r.qual[0] == '\0', "a zero-length FASTQ read is a record");
	CHECK(sm_fastq_next(f, &r) == 1 && strcmp(r.seq, "ACNTN") == 0 && strcmp(r.qual, "IIIII") == 0,
	      "'.' in SEQ reads as N");
	CHECK(sm_fastq_next(f, &r) == 1 && strcmp(r.name, "f1") == 0 && strcmp(r.comment, "a comment") == 0 &&
	      strcmp(r.seq, "ACGTNNacG") == 0 && r.len == 9 && r.qual == NULL && r.index == 2,
	      "a FASTA record over lines with a blank one: no qualities");
	CHECK(sm_fastq_next(f, &r) == 1 && strcmp(r.name, "e2") == 0 && r.len == 0 && r.qual,
	      "a zero-length FASTQ read without a SEQ line, after FASTA");
	CHECK(sm_fastq_next(f, &r) == 1 && strcmp(r.name, "f2") == 0 && r.len == 0 && !r.qual,
	      "a FASTA record without sequence");
	CHECK(sm_fastq_next(f, &r) == 1 && strcmp(r.seq, "TT") == 0 && !r.qual, "the next FASTA record");
	CHECK(sm_fastq_next(f, &r) == 1 && strcmp(r.name, "q2") == 0 && strcmp(r.qual, "II") == 0,
	      "FASTQ after FASTA");
	CHECK(sm_fastq_next(f, &r) == 1 && strcmp(r.seq, "CN") == 0 && !r.qual && r.index == 7,
	      "a last FASTA record without newline");
	CHECK(sm_fastq_next(f, &r) == 0, "clean end of file after FASTA");
	sm_fastq_close(f);
	sm_read_free(&r);
}

static void test_empty_and_stdin(void)
{
	int64_t n;
	const char *p = write_text("empty.fq", "");
	CHECK(read_all(p, &n, NULL) == 0 && n == 0, "empty file: clean end, no record");
	p = write_text("blank.fq", "\n\n");
	CHECK(read_all(p, &n, NULL) == 0 && n == 0, "blank lines only: clean end");

	p = write_text("stdin.fq", "@s1\nACGT\n+\nIIII\n@s2\nGG\n+\nII\n");
	int saved = dup(STDIN_FILENO), fd = open(p, O_RDONLY);
	dup2(fd, STDIN_FILENO);
	close(fd);
	CHECK(read_all("-", &n, NULL) == 0 && n == 2, "\"-\" reads standard input");
	dup2(saved, STDIN_FILENO);
	close(saved);

	CHECK(read_all(tmp_path("missing.fq"), &n, NULL) == -2, "missing file: open fails");
	CHECK(strstr(errbuf, "missing.fq") && strstr(errbuf, "cannot open"), "missing file: message %.200s", errbuf);
	CHECK(read_all(unit_dir, &n, NULL) == -1, "directory: read fails: %.200s", errbuf);
}

static void test_gzip(void)
{
	size_t cap = 4 << 20, len = 0;
	char *text = xmalloc(cap);
	int64_t n;
	int n_rec = 20000;

	for (int i = 0; i < n_rec; i++)
		len += (size_t)sprintf(text + len, "@read%d\n%s\n+\n%s\n", i,
				       "ACGTTGCAACGTTGCAACGTTGCAACGTTGCAACGTTGCAACGTTGCAACGTTGCAACGTTGCAACGTTGCA",
				       "IIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIII");
	text[len] = '\0';
	const char *p = write_gz("reads.fq.gz", text);
	sm_read_t last = { 0 };
	CHECK(read_all(p, &n, &last) == 0 && n == n_rec, "gzip FASTQ: %d records", n_rec);
	CHECK(last.name && strcmp(last.name, "read19999") == 0 && last.index == n_rec - 1, "gzip: last record intact");
	sm_read_free(&last);

	FILE *fp = fopen(p, "rb");
	fseek(fp, 0, SEEK_END);
	long sz = ftell(fp);
	fclose(fp);
	CHECK(truncate(p, sz * 2 / 3) == 0, "truncate the gzip file to %ld bytes", sz * 2 / 3);
	CHECK(read_all(p, &n, NULL) == -1 && n < n_rec, "truncated gzip is an error after %lld records", (long long)n);
	CHECK(strstr(errbuf, p) && strstr(errbuf, "truncated gzip"), "truncated gzip: message %.200s", errbuf);

	/* Truncated exactly at a record boundary of the uncompressed text:
	 * only the gzip trailer tells it apart from a complete file. */
	p = write_gz("cut.fq.gz", "@a\nAC\n+\nII\n");
	fp = fopen(p, "rb");
	fseek(fp, 0, SEEK_END);
	sz = ftell(fp);
	fclose(fp);
	CHECK(truncate(p, sz - 8) == 0, "drop the gzip trailer");
	CHECK(read_all(p, &n, NULL) == -1 && strstr(errbuf, "gzip"), "gzip without trailer is an error: %.200s", errbuf);
	free(text);
}

static void test_long_read(void)
{
	size_t n_base = 3000000, cap = 2 * n_base + 64;
	char *text = xmalloc(cap);
	size_t len = (size_t)sprintf(text, "@long\n");
	for (size_t i = 0; i < n_base; i++)
		text[len++] = "ACGT"[i % 4];
	len += (size_t)snprintf(text + len, cap - len, "\n+\n");
	memset(text + len, 'F', n_base);
	len += n_base;
	text[len++] = '\n';
	const char *p = write_file("long.fq", text, len);
	sm_read_t r = { 0 };
	int64_t n;
	CHECK(read_all(p, &n, &r) == 0 && n == 1 && r.len == (int32_t)n_base && r.seq[n_base - 1] == 'T' &&
	      r.qual[n_base - 1] == 'F', "a %zu-base read (longer than the read buffer)", n_base);
	sm_read_free(&r);
	free(text);
}

static void test_errors(void)
{
	expect_error("missing '@'", "@r1\nAC\n+\nII\nr2\nAC\n+\nII\n", 2, 5,
		     "expected a header line starting with '@' (FASTQ) or '>' (FASTA)");
	expect_error("missing '+' (next header)", "@r1\nACGT\n@r2\nACGT\n+\nIIII\n", 1, 3, "missing '+'");
	expect_error("missing '+' (quality line)", "@r1\nAC\n+\nII\n@r2\nACGT\nIIII\n@r3\nA\n+\nI\n", 2, 7,
		     "missing '+'");
	expect_error("QUAL shorter than SEQ", "@r1\nACGT\n+\nII\n@r2\nACGT\n+\nIIII\n", 1, 4,
		     "SEQ/QUAL length mismatch: 4 bases but 2 quality values");
	expect_error("QUAL longer than SEQ", "@r1\nAC\n+\nII\n@r2\nACGT\n+\nIIIIII\n", 2, 8,
		     "SEQ/QUAL length mismatch: 4 bases but 6 quality values");
	expect_error("wrapped QUAL longer than wrapped SEQ", "@r1\nAC\nGT\n+\nIII\nIII\n", 1, 6,
		     "SEQ/QUAL length mismatch: 4 bases but 6 quality values");
	expect_error("truncated after header", "@r1\nAC\n+\nII\n@r2\n", 2, 5, "truncated record");
	expect_error("truncated after SEQ", "@r1\nAC\n+\nII\n@r2\nACGT\n", 2, 6, "end of file before the '+' line");
	expect_error("truncated after '+'", "@r1\nAC\n+\nII\n@r2\nACGT\n+\n", 2, 7, "end of file after 0 of 4 quality");
	expect_error("truncated inside wrapped QUAL", "@r1\nAC\nGT\n+\nII\n", 1, 5, "end of file after 2 of 4 quality");
	expect_error("zero-length read with a quality", "@r1\n\n+\nI\n", 1, 4,
		     "SEQ/QUAL length mismatch: 0 bases but 1 quality values");
	expect_error("zero-length read, no QUAL line", "@r1\n\n+\n", 1, 3, "end of file after 0 of 0");
	expect_error("digit in SEQ", "@r1\nAC1T\n+\nIIII\n", 1, 2, "invalid character '1' at column 3 of SEQ");
	expect_error("'U' in SEQ", "@r1\nACUT\n+\nIIII\n", 1, 2, "invalid character 'U'");
	expect_error("'-' in SEQ", "@r1\nAC-T\n+\nIIII\n", 1, 2, "invalid character '-'");
	expect_error("space in SEQ", "@r1\nAC T\n+\nIIII\n", 1, 2, "invalid character byte 0x20");
	expect_error("space in QUAL", "@r1\nACGT\n+\nII I\n", 1, 4, "invalid quality character byte 0x20 at column 3");
	expect_error("'+' line naming another read", "@r1\nACGT\n+r2\nIIII\n", 1, 3, "repeats neither");
	expect_error("'+' line with another comment", "@r1 a\nACGT\n+r1 b\nIIII\n", 1, 3, "repeats neither");
	expect_error("'+' line with a prefix of the name", "@r12 a\nACGT\n+r1\nIIII\n", 1, 3,
		     "repeats neither");
	expect_error("empty name", "@\nACGT\n+\nIIII\n", 1, 1, "empty read name");
	expect_error("name after a space", "@ r1\nACGT\n+\nIIII\n", 1, 1, "empty read name");
	expect_error("'@' inside the name", "@r@1\nACGT\n+\nIIII\n", 1, 1, "holds '@' at column 3");
	expect_error("name longer than SAM allows",
		     "@r12345678901234567890123456789012345678901234567890123456789012345678901234567890"
		     "12345678901234567890123456789012345678901234567890123456789012345678901234567890"
		     "12345678901234567890123456789012345678901234567890123456789012345678901234567890"
		     "12345678901234567890123456789012345678901234567890123456789012345678901234567890\nA\n+\nI\n",
		     1, 1, "longer than SAM allows");
	expect_error("';' header", ";r1\nACGT\n", 1, 1, "starting with '@' (FASTQ) or '>' (FASTA), found ';'");
	expect_error("'+' in a FASTA record", ">r1\nACGT\n+\nIIII\n", 1, 3, "invalid character '+' at column 1");

	write_file("nul.fq", "@r1\nAC\0T\n+\nIIII\n", 15);
	int64_t n;
	CHECK(read_all(tmp_path("nul.fq"), &n, NULL) == -1 && strstr(errbuf, "byte 0x00"), "NUL byte in SEQ: %.200s",
	      errbuf);
}

/* Buffers are reused: records of random lengths, read back exactly. */
static void test_random_records(void)
{
	enum { N_REC = 2000, MAX_LEN = 400 };
	size_t cap = (size_t)N_REC * (2 * MAX_LEN + 64), len = 0;
	char *text = xmalloc(cap);
	char (*seqs)[MAX_LEN + 1] = xmalloc(N_REC * sizeof *seqs);
	unsigned seed = 99;
	int64_t n = 0;
	int bad = 0, wrapped = 0;

	for (int i = 0; i < N_REC; i++) {
		int l = 1 + (int)((seed = seed * 1103515245u + 12345u) >> 16) % MAX_LEN;
		int wrap = (seed >> 4) % 5 == 0 ? 60 : MAX_LEN + 1;
		for (int k = 0; k < l; k++) {
			seed = seed * 1103515245u + 12345u;
			seqs[i][k] = "ACGTNacgtRY"[(seed >> 16) % 11];
		}
		seqs[i][l] = '\0';
		len += (size_t)snprintf(text + len, cap - len, "@q%d desc\n", i);
		for (int k = 0; k < l; k++) {
			text[len++] = seqs[i][k];
			if ((k + 1) % wrap == 0 && k + 1 < l)
				text[len++] = '\n';
		}
		len += (size_t)snprintf(text + len, cap - len, "\n+\n");
		for (int k = 0; k < l; k++) {
			text[len++] = (char)('!' + (k * 7 + i) % 94);
			if ((k + 1) % wrap == 0 && k + 1 < l)
				text[len++] = '\n';
		}
		text[len++] = '\n';
		wrapped += wrap < l;
	}
	const char *p = write_file("random.fq", text, len);
	sm_fastq_t *f = open_fq(p);
	sm_read_t r = { 0 };
	while (f && sm_fastq_next(f, &r) == 1) {
		char nm[32];
		snprintf(nm, sizeof nm, "q%lld", (long long)n);
		bad += strcmp(r.name, nm) != 0 || strcmp(r.seq, seqs[n]) != 0 || r.len != (int32_t)strlen(seqs[n]) ||
		       (int)strlen(r.qual) != r.len || r.qual[r.len - 1] != (char)('!' + ((r.len - 1) * 7 + n) % 94);
		n++;
	}
	CHECK(n == N_REC && bad == 0, "%d random records (%d wrapped) read back exactly (%lld read, %d wrong)",
	      N_REC, wrapped, (long long)n, bad);
	sm_fastq_close(f);
	sm_read_free(&r);
	free(text);
	free(seqs);
}

/* Newlines in what zlib inflates of path before the stream ends or fails,
 * asked as the reader asks (io/lines.c: 128 KiB reads, 128 KiB buffer; a
 * failing read returns none of its bytes): the lines a reader returns
 * before it reports the error at the next. */
static int64_t gz_lines(const char *path)
{
	enum { ZCHUNK = 1 << 17 };
	gzFile fp = gzopen(path, "rb");
	static char buf[ZCHUNK];
	int64_t nl = 0;
	int n;

	if (fp)
		gzbuffer(fp, ZCHUNK);
	while (fp && (n = gzread(fp, buf, sizeof buf)) > 0)
		for (int k = 0; k < n; k++)
			nl += buf[k] == '\n';
	if (fp)
		gzclose(fp);
	return nl;
}

/* The reader inflates in a thread into a ring of 1 MiB blocks (io/lines.c):
 * a gzip file of many blocks, lines and reads spanning blocks, the same
 * through stdin, and errors of the stream (cut, bad checksum) reported at
 * the line where the inflated data stops, after every record before it. */
static void test_gzip_blocks(void)
{
	enum { N_REC = 40000, MAX_LEN = 300, LONG_REC = 20000, LONG_LEN = 3000000 };
	size_t cap = (size_t)N_REC * (2 * MAX_LEN + 64) + 2 * LONG_LEN + 64, len = 0;
	char *text = xmalloc(cap + 1);
	int32_t *lens = xmalloc(N_REC * sizeof *lens);
	uint32_t *sums = xmalloc(N_REC * sizeof *sums);
	sm_read_t r = { 0 };
	int64_t n = 0, nl;
	int bad = 0, ret;

	unit_seed(4242);
	for (int i = 0; i < N_REC; i++) {
		int l = i == LONG_REC ? LONG_LEN : 1 + (int)rnd(MAX_LEN);
		uint32_t sum = 0;

		len += (size_t)snprintf(text + len, cap - len, "@b%d\n", i);
		for (int k = 0; k < l; k++) {
			text[len] = "ACGTN"[rnd(5)];
			sum = sum * 31 + (unsigned char)text[len++];
		}
		len += (size_t)snprintf(text + len, cap - len, "\n+\n");
		for (int k = 0; k < l; k++)
			text[len++] = (char)('!' + rnd(94));
		text[len++] = '\n';
		lens[i] = l;
		sums[i] = sum;
	}
	text[len] = '\0';
	const char *p = write_gz("blocks.fq.gz", text);
	CHECK(len > 8 * (1 << 20), "a gzip FASTQ of %zu bytes inflated (over 8 blocks)", len);

	for (int pass = 0; pass < 2; pass++) {
		int saved = -1;
		sm_fastq_t *f;

		if (pass == 1) {   /* the same through stdin */
			int fd = open(p, O_RDONLY);
			saved = dup(STDIN_FILENO);
			dup2(fd, STDIN_FILENO);
			close(fd);
		}
		f = open_fq(pass ? "-" : p);
		n = 0;
		bad = 0;
		while (f && (ret = sm_fastq_next(f, &r)) == 1) {
			uint32_t sum = 0;
			for (int k = 0; k < r.len; k++)
				sum = sum * 31 + (unsigned char)r.seq[k];
			bad += n >= N_REC || r.len != lens[n] || sum != sums[n] || r.index != n;
			n++;
		}
		CHECK(f && ret == 0 && n == N_REC && bad == 0,
		      "%s: %d records (one of %d bases) read back exactly (%lld read, %d wrong)",
		      pass ? "stdin" : "file", N_REC, LONG_LEN, (long long)n, bad);
		sm_fastq_close(f);
		if (pass == 1) {
			dup2(saved, STDIN_FILENO);
			close(saved);
		}
	}

	/* Cut at several points: the error names the line after the last one
	 * zlib could inflate, and every whole record before it is read. */
	FILE *fp = fopen(p, "rb");
	fseek(fp, 0, SEEK_END);
	long sz = ftell(fp);
	char *gz = xmalloc((size_t)sz);
	fseek(fp, 0, SEEK_SET);
	CHECK(fread(gz, 1, (size_t)sz, fp) == (size_t)sz, "read the gzip file back");
	fclose(fp);
	for (int cut = 1; cut <= 4; cut++) {
		char where[64];
		const char *q = write_file("cut.fq.gz", gz, (size_t)(sz * cut / 5));

		nl = gz_lines(q);
		ret = read_all(q, &n, NULL);
		snprintf(where, sizeof where, "line %lld: truncated gzip", (long long)nl + 1);
		CHECK(ret == -1 && n == nl / 4 && strstr(errbuf, q) && strstr(errbuf, where),
		      "cut at %d/5: error after %lld records at %s (%lld read): %.200s", cut,
		      (long long)nl / 4, where, (long long)n, errbuf);
	}
	/* A wrong checksum is found after the last byte: both inflaters
	 * (io/inflate.h) return every line first. */
	int64_t all = 0;
	for (size_t k = 0; k < len; k++)
		all += text[k] == '\n';
	gz[sz - 8] ^= 1;
	p = write_file("crc.fq.gz", gz, (size_t)sz);
	nl = all;
	ret = read_all(p, &n, NULL);
	char where[64];
	snprintf(where, sizeof where, "line %lld: corrupt gzip data", (long long)nl + 1);
	CHECK(ret == -1 && n == nl / 4 && strstr(errbuf, p) && strstr(errbuf, where),
	      "bad checksum: error after %lld records at %s: %.200s", (long long)nl / 4, where, errbuf);
	sm_read_free(&r);
	free(gz);
	free(text);
	free(lens);
	free(sums);
}

/* Damages b[0..n) as case c asks: 1-3 flipped bits unless c % 3 == 2, a
 * cut at a random point when c % 4 == 3, 1-16 random bytes inserted when
 * c % 7 == 5 (b has room for 16 more).  Returns the new length. */
static size_t damage(char *b, size_t n, int c)
{
	if (c % 3 != 2)
		for (uint32_t k = rnd(3) + 1; k > 0; k--)
			b[rnd((uint32_t)n)] ^= (char)(1 << rnd(8));
	if (c % 4 == 3)
		n = rnd((uint32_t)n);
	if (c % 7 == 5) {
		size_t at = rnd((uint32_t)n), k = rnd(16) + 1;

		memmove(b + at + k, b + at, n - at);
		for (size_t j = 0; j < k; j++)
			b[at + j] = (char)rnd(256);
		n += k;
	}
	return n;
}

/* The two inflaters (io/inflate.h) on damaged gzip: flipped bits, cuts,
 * inserted bytes, two members and trailing text.  Both must read the same
 * records and fail at the same one, with the same message but for zlib's
 * and ISA-L's words for corrupt deflate data. */
static void test_inflaters_agree(void)
{
	char *text = xmalloc(1 << 16), *raw;
	size_t len = 0;
	long sz;
	int agree = 0, fails = 0, cases = 60;

	if (!sm_inflate_have_isal()) {
		CHECK(1, "inflaters: zlib only here (no ISA-L)");
		free(text);
		return;
	}
	for (int i = 0; len < 60000; i++) {
		len += (size_t)snprintf(text + len, (1 << 16) - len, "@d%d\n", i);
		for (int k = 0; k < 20; k++)
			text[len++] = "ACGT"[(i * 7 + k * 13) % 4 ^ (k & 1)];
		len += (size_t)snprintf(text + len, (1 << 16) - len, "\n+\nIIIIIIIIIIIIIIIIIIII\n");
	}
	FILE *fp = fopen(write_gz("agree.fq.gz", text), "rb");
	fseek(fp, 0, SEEK_END);
	sz = ftell(fp);
	raw = xmalloc(2 * (size_t)sz + 64);
	fseek(fp, 0, SEEK_SET);
	CHECK(fread(raw, 1, (size_t)sz, fp) == (size_t)sz, "inflaters: read the gzip file back");
	fclose(fp);
	unit_seed(2026);
	for (int c = 0; c < cases; c++) {
		char *b = xmalloc(2 * (size_t)sz + 64);
		size_t n = (size_t)sz;
		int64_t got[2];
		int ret[2];
		char msg[2][sizeof errbuf];

		memcpy(b, raw, n);
		if (c % 5 == 1) {                      /* two members, then text */
			memcpy(b + n, raw, (size_t)sz);
			n += (size_t)sz;
			memcpy(b + n, "tail\n", 5);
			n += 5;
		}
		n = damage(b, n, c);
		const char *q = write_file("damaged.fq.gz", b, n);
		for (int z = 0; z < 2; z++) {
			sm_inflate_set_default(z ? SM_INFLATER_ZLIB : SM_INFLATER_ISAL);
			ret[z] = read_all(q, &got[z], NULL);
			/* up to the inflater's own words for corrupt data */
			snprintf(msg[z], sizeof msg[z], "%s", errbuf);
			if (strstr(msg[z], "corrupt gzip data:"))
				*strstr(msg[z], "corrupt gzip data:") = '\0';
		}
		sm_inflate_set_default(inflater);
		agree += ret[0] == ret[1] && got[0] == got[1] && strcmp(msg[0], msg[1]) == 0;
		if (!(ret[0] == ret[1] && got[0] == got[1] && strcmp(msg[0], msg[1]) == 0))
			printf("     case %d: isal %d/%lld '%s', zlib %d/%lld '%s'\n", c, ret[0],
			       (long long)got[0], msg[0], ret[1], (long long)got[1], msg[1]);
		fails += ret[0] < 0;
		free(b);
	}
	CHECK(agree == cases && fails > 0 && fails < cases,
	      "inflaters: ISA-L and zlib agree on %d of %d damaged files (%d fail)", agree, cases, fails);
	free(raw);
	free(text);
}

/* Bytes after a gzip stream that start no other member are an error naming
 * the file and their byte offset, the same for both inflaters; a second
 * member is read on; CR-only line endings are named as such. */
static void test_trailing_and_cr(void)
{
	const char *rec = "@a\nACGT\n+\nIIII\n@b\nACGA\n+\nIIII\n";
	const char *gz = write_gz("member.fq.gz", rec);
	FILE *fp = fopen(gz, "rb");
	char buf[4096], want[64];
	size_t n = fread(buf, 1, sizeof buf - 64, fp);
	int64_t got;
	int ret;

	fclose(fp);
	memcpy(buf + n, "@c\nACGT\n+\nIIII\n", 16);
	const char *p = write_file("trailing.fq.gz", buf, n + 16);
	ret = read_all(p, &got, NULL);
	snprintf(want, sizeof want, "byte %zu (after line 8): data after the end of the gzip", n);
	CHECK(ret == -1 && got == 2 && strstr(errbuf, p) && strstr(errbuf, want),
	      "plain text after a gzip member: 2 records, then an error at byte %zu: %.200s", n, errbuf);
	memcpy(buf + n, buf, n);
	p = write_file("two.fq.gz", buf, 2 * n);
	ret = read_all(p, &got, NULL);
	CHECK(ret == 0 && got == 4, "two gzip members: 4 records (%lld)", (long long)got);
	memset(buf + n, 0, 512);
	p = write_file("zeros.fq.gz", buf, n + 512);
	ret = read_all(p, &got, NULL);
	snprintf(want, sizeof want, "byte %zu", n);
	CHECK(ret == -1 && got == 2 && strstr(errbuf, want), "zero padding after a member: an error: %.200s",
	      errbuf);
	p = write_text("cr.fq", "@a\rACGT\r+\rIIII\r");
	ret = read_all(p, &got, NULL);
	CHECK(ret == -1 && got == 0 && strstr(errbuf, "CR alone"), "CR-only line endings named: %.200s",
	      errbuf);
	p = write_text("crlf.fq", "@a\r\nACGT\r\n+\r\nIIII\r\n");
	ret = read_all(p, &got, NULL);
	CHECK(ret == 0 && got == 1, "CRLF line endings read (%lld)", (long long)got);
}

/* Parsing ahead (sm_fastq_ahead): an error's message waits until the
 * records before it are taken; closing early, with the parser blocked on a
 * full ring, returns. */
static void test_ahead(void)
{
	size_t cap = 4000 * 32 + 64, len = 0;
	char *text = malloc(cap);
	sm_read_t r = { 0 };
	sm_fastq_t *f;
	const char *p;
	int64_t n = 0;
	int ret, early;

	for (int i = 0; i < 4000; i++)
		len += (size_t)snprintf(text + len, cap - len, "@a%d\nACGT\n+\nIIII\n", i);
	len += (size_t)snprintf(text + len, cap - len, "@bad\nAC!T\n+\nIIII\n");
	p = write_file("ahead.fq", text, len);
	capture_begin();
	f = sm_fastq_open(p);
	CHECK(f && sm_fastq_ahead(f) == 0, "ahead: parsing thread started");
	if (!f) {
		capture_end();
		free(text);
		return;
	}
	while ((ret = sm_fastq_next(f, &r)) == 1 && ++n < 3990)
		;
	capture_end();
	early = errbuf[0] != '\0';
	capture_begin();
	while ((ret = sm_fastq_next(f, &r)) == 1)
		n++;
	capture_end();
	CHECK(ret == -1 && n == 4000 && !early && strstr(errbuf, "record 4001"),
	      "ahead: the error after 4,000 records is written when reached (%lld read, early %d): %.200s",
	      (long long)n, early, errbuf);
	CHECK(sm_fastq_next(f, &r) == -1, "ahead: the error stays");
	sm_fastq_close(f);

	f = open_fq(p);
	if (f && !ahead)
		sm_fastq_ahead(f);
	CHECK(f && sm_fastq_next(f, &r) == 1, "ahead: closing after one record (parser on a full ring)");
	usleep(20000);
	sm_fastq_close(f);
	sm_read_free(&r);
	free(text);
}

/* Reads path with `threads` BGZF inflate threads and the inflater `which`:
 * read_all()'s return and count, a hash of every record's name and bases
 * in *hash, the message (up to the inflater's own words for corrupt data)
 * in msg. */
static int read_bgzf(const char *path, int threads, sm_inflater_t which, int64_t *n,
		     uint64_t *hash, char *msg, size_t cap)
{
	sm_read_t r = { 0 };
	sm_fastq_t *f;
	int ret = -2;

	sm_inflate_set_threads(threads);
	sm_inflate_set_default(which);
	*n = 0;
	*hash = 0;
	capture_begin();
	if ((f = open_fq(path))) {
		while ((ret = sm_fastq_next(f, &r)) == 1) {
			for (const char *c = r.name; *c; c++)
				*hash = *hash * 31 + (unsigned char)*c;
			for (int k = 0; k < r.len; k++)
				*hash = *hash * 31 + (unsigned char)r.seq[k];
			(*n)++;
		}
		sm_fastq_close(f);
	}
	capture_end();
	sm_read_free(&r);
	sm_inflate_set_threads(0);
	sm_inflate_set_default(inflater);
	snprintf(msg, cap, "%s", errbuf);
	if (strstr(msg, "corrupt gzip data:"))
		strstr(msg, "corrupt gzip data:")[strlen("corrupt gzip data:")] = '\0';
	return ret;
}

/* BGZF input inflated on threads (io/inflate.h): a file of blocks of many
 * sizes with a plain gzip member among them reads the same records with
 * 0, 1 and 3 threads and either inflater; damaged copies (flipped bits,
 * cuts, inserted bytes, text after the end) give the same records and
 * message with threads as without, but for a corrupt member, of which the
 * threads give nothing (then: no more records than without threads, where
 * the damaged bytes may have failed as a bad record instead, and a corrupt
 * gzip message); on threads both inflaters read the same records and fail
 * with the same message. */
static void test_bgzf(void)
{
	enum { N_REC = 12000, MAX_LEN = 300 };
	size_t cap = (size_t)N_REC * (2 * MAX_LEN + 64), len = 0, cut[4] = { 0 };
	char *text = xmalloc(cap + 1), *raw, *gz;
	char p[512], q[512];   /* tmp_path()'s buffers are reused */
	int64_t n[2], want_n;
	uint64_t hash[2], want_hash;
	char msg[2][sizeof errbuf];
	int ret[2], ok = 1, agree = 0, fewer = 0, fails = 0, cases = 60;
	long sz = 0;

	unit_seed(77);
	for (int i = 0; i < N_REC; i++) {
		int l = 1 + (int)rnd(MAX_LEN);

		len += (size_t)snprintf(text + len, cap - len, "@z%d\n", i);
		for (int k = 0; k < l; k++)
			text[len++] = "ACGTN"[rnd(5)];
		len += (size_t)snprintf(text + len, cap - len, "\n+\n");
		for (int k = 0; k < l; k++)
			text[len++] = (char)('!' + rnd(94));
		text[len++] = '\n';
		if (i + 1 == N_REC / 3 || i + 1 == 2 * N_REC / 3)
			cut[i + 1 == N_REC / 3 ? 1 : 2] = len;
	}
	cut[3] = len;
	/* The first and last thirds as BGZF (htslib's writer) in blocks of
	 * many sizes (random writes, some flushed early), the middle third as
	 * one plain gzip member; the three joined. */
	raw = xmalloc(2 * len + 1024);
	for (int k = 0; k < 3; k++) {
		char name[32];
		size_t part = cut[k + 1] - cut[k], at = 0;
		const char *path;
		FILE *fp;

		snprintf(name, sizeof name, "bgzf-part%d.gz", k);
		if (k == 1) {
			char *t = xmalloc(part + 1);

			memcpy(t, text + cut[k], part);
			t[part] = '\0';
			path = write_gz(name, t);
			free(t);
		} else {
			BGZF *b = bgzf_open(tmp_path(name), "w");

			while (b && at < part) {
				size_t m = 1 + rnd(3 << 16);

				m = m > part - at ? part - at : m;
				ok &= bgzf_write(b, text + cut[k] + at, m) == (ssize_t)m;
				if (rnd(3) == 0)
					ok &= bgzf_flush(b) == 0;
				at += m;
			}
			ok &= b && bgzf_close(b) == 0;
			path = tmp_path(name);
		}
		fp = fopen(path, "rb");
		sz += fp ? (long)fread(raw + sz, 1, 2 * len + 1024 - (size_t)sz, fp) : 0;
		if (fp)
			fclose(fp);
	}
	snprintf(p, sizeof p, "%s", write_file("mixed.fq.gz", raw, (size_t)sz));
	CHECK(ok && sz > 0, "bgzf: BGZF, a gzip member, BGZF: %ld bytes", sz);

	ret[0] = read_bgzf(p, 0, inflater, &want_n, &want_hash, msg[0], sizeof msg[0]);
	CHECK(ret[0] == 0 && want_n == N_REC, "bgzf: no threads: %lld records", (long long)want_n);
	for (int threads = 1; threads <= 3; threads += 2)
		for (int z = 0; z < 2; z++) {
			sm_inflater_t which = z ? SM_INFLATER_ZLIB : SM_INFLATER_ISAL;

			if (which == SM_INFLATER_ISAL && !sm_inflate_have_isal())
				continue;
			ret[1] = read_bgzf(p, threads, which, &n[1], &hash[1], msg[1], sizeof msg[1]);
			CHECK(ret[1] == 0 && n[1] == want_n && hash[1] == want_hash,
			      "bgzf: %d threads, %s: the same %lld records (ret %d): %.200s", threads, z ? "zlib" : "ISA-L",
			      (long long)n[1], ret[1], msg[1]);
		}

	/* Damaged copies. */
	gz = xmalloc(2 * (size_t)sz + 64);
	for (int c = 0; c < cases; c++) {
		size_t m = (size_t)sz;

		memcpy(gz, raw, m);
		if (c % 5 == 1) {                      /* text after the end */
			memcpy(gz + m, "@t\nACGT\n+\nIIII\n", 16);
			m += 16;
		}
		m = damage(gz, m, c);
		snprintf(q, sizeof q, "%s", write_file("bgzf-damaged.fq.gz", gz, m));
		ret[0] = read_bgzf(q, 0, inflater, &n[0], &hash[0], msg[0], sizeof msg[0]);
		ret[1] = read_bgzf(q, 3, inflater, &n[1], &hash[1], msg[1], sizeof msg[1]);
		fails += ret[0] < 0;
		if (ret[0] == ret[1] && n[0] == n[1] && hash[0] == hash[1] && strcmp(msg[0], msg[1]) == 0) {
			agree++;
		} else if (ret[0] == -1 && ret[1] == -1 && n[1] <= n[0] &&
			   strstr(msg[1], "corrupt gzip data")) {
			fewer++;
		} else {
			printf("     case %d: no threads %d/%lld '%s', 3 threads %d/%lld '%s'\n", c, ret[0],
			       (long long)n[0], msg[0], ret[1], (long long)n[1], msg[1]);
		}
		if (sm_inflate_have_isal()) {   /* both inflaters on threads */
			int64_t nz;
			uint64_t hz;
			char mz[sizeof errbuf];
			int rz = read_bgzf(q, 3, inflater == SM_INFLATER_ZLIB ? SM_INFLATER_ISAL
									      : SM_INFLATER_ZLIB,
					   &nz, &hz, mz, sizeof mz);

			if (!(rz == ret[1] && nz == n[1] && hz == hash[1] && strcmp(mz, msg[1]) == 0)) {
				printf("     case %d: inflaters differ on threads: %d/%lld '%s' against "
				       "%d/%lld '%s'\n", c, ret[1], (long long)n[1], msg[1], rz,
				       (long long)nz, mz);
				agree -= 1000;
			}
		}
	}
	CHECK(agree + fewer == cases && fails > 0 && fails < cases,
	      "bgzf: %d damaged files read as without threads, %d with fewer records before a corrupt "
	      "member, of %d (%d fail)", agree, fewer, cases, fails);
	free(gz);
	free(raw);
	free(text);
}

/* Everything a reader gives for path: the return of the last
 * sm_fastq_next, the records, a hash of every field of each, and the
 * messages (captured into msg). */
typedef struct {
	int ret;
	int64_t n;
	uint64_t hash;
	char msg[sizeof errbuf];
} fq_result_t;

static uint64_t hash_str(uint64_t h, const char *s)
{
	for (; s && *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return (h ^ 0xff) * 1099511628211ull;
}

/* with_ahead: parsing on a thread of f's own (sm_fastq_ahead). */
static void read_result(const char *path, int with_ahead, fq_result_t *out)
{
	sm_read_t r = { 0 };
	sm_fastq_t *f;

	memset(out, 0, sizeof *out);
	out->hash = 14695981039346656037ull;
	capture_begin();
	f = sm_fastq_open(path);
	if (f && with_ahead && sm_fastq_ahead(f) < 0) {
		sm_fastq_close(f);
		f = NULL;
	}
	out->ret = -2;
	while (f && (out->ret = sm_fastq_next(f, &r)) == 1) {
		out->n++;
		out->hash = hash_str(hash_str(hash_str(hash_str(out->hash, r.name), r.comment), r.seq),
				     r.qual);
		out->hash = (out->hash ^ (uint64_t)r.index) * 1099511628211ull;
	}
	sm_fastq_close(f);
	capture_end();
	snprintf(out->msg, sizeof out->msg, "%s", errbuf);
	sm_read_free(&r);
}

/* Appends a random record to text (cap bytes), of one of the shapes a
 * chunk boundary can meet: wrapped sequence and quality (a quality line may
 * start with '@' or '+'), a blank line before it, a '+' line repeating the
 * header; with probability 1/err_in, one of the errors fq_parse reports. */
static size_t random_record(char *text, size_t len, size_t cap, int i, int max_len, int err_in)
{
	int l = 1 + (int)rnd((uint32_t)max_len), wrap = rnd(4) == 0 ? 1 + (int)rnd(80) : l;
	int err = err_in && rnd((uint32_t)err_in) == 0 ? 1 + (int)rnd(7) : 0;
	char seq[8192], qual[8192];

	for (int k = 0; k < l; k++) {
		seq[k] = "ACGTNacgtRY"[rnd(11)];
		qual[k] = (char)('!' + rnd(94));
	}
	if (wrap < l && rnd(2))
		qual[wrap] = rnd(2) ? '@' : '+';   /* a quality line that looks like a header or '+' */
	if (err == 1)
		seq[rnd((uint32_t)l)] = '!';                  /* not a base */
	if (err == 2)
		qual[rnd((uint32_t)l)] = ' ';                 /* not a quality */
	if (rnd(3) == 2)
		text[len++] = '\n';                          /* a blank line between records */
	len += (size_t)snprintf(text + len, cap - len, err == 3 ? "r%d\n" : "@r%d c%d\n", i, i % 7);
	for (int k = 0; k < l; k++) {
		text[len++] = seq[k];
		if ((k + 1) % wrap == 0 && k + 1 < l)
			text[len++] = '\n';
	}
	if (err == 4)   /* the '+' line missing */
		return len + (size_t)snprintf(text + len, cap - len, "\n");
	len += (size_t)snprintf(text + len, cap - len, rnd(3) == 0 ? "\n+r%d c%d\n" : "\n+\n", i, i % 7);
	if (err == 5)
		l += wrap < l ? 1 : -1;                       /* quality longer, or one-line and shorter */
	if (err == 6 && l > 1)
		l = 1 + (int)rnd((uint32_t)l - 1);            /* the file ends inside the quality */
	for (int k = 0; k < l; k++) {
		text[len++] = k < 8192 ? qual[k] : 'I';
		if ((k + 1) % wrap == 0 && k + 1 < l)
			text[len++] = '\n';
	}
	if (err == 7)   /* the quality's line cut short: the next header follows at once */
		return len - (l > 1);
	text[len++] = '\n';
	return len;
}

/* Parsing ahead against parsing on the caller's thread, the oracle: files
 * of hundreds to thousands of records (the parsing thread hands them over
 * in chunks of 256), with every record shape and error of random_record
 * at random places: the same records, the same last return and the same
 * messages, wherever a chunk ends. */
static void test_ahead_oracle(void)
{
	enum { FILES = 60 };
	size_t cap = (size_t)64 << 20;
	char *text = xmalloc(cap);
	int bad = 0, errors = 0;
	char first[600] = "";

	unit_seed(2024);
	for (int t = 0; t < FILES; t++) {
		/* Most files short reads, some long ones; a third with an error. */
		int long_reads = t % 6 == 5, max_len = long_reads ? 8000 : 300;
		int n_rec = long_reads ? 200 + (int)rnd(400) : 500 + (int)rnd(3000);
		int err_in = t % 3 == 0 ? n_rec : 0;
		size_t len = 0;
		fq_result_t want, got;
		char p[512];   /* tmp_path's buffers rotate */

		for (int i = 0; i < n_rec && len + 40000 < cap; i++) {
			len = random_record(text, len, cap, i, max_len, err_in);
			if (err_in && len && i == n_rec / 2 && rnd(4) == 0)
				break;   /* and some files just end (with or without an error before) */
		}
		snprintf(p, sizeof p, "%s", write_file("oracle.fq", text, len));
		read_result(p, 0, &want);
		read_result(p, 1, &got);
		errors += want.ret < 0;
		if (got.ret != want.ret || got.n != want.n || got.hash != want.hash ||
		    strcmp(got.msg, want.msg) != 0) {
			if (!bad++)
				snprintf(first, sizeof first, "file %d: ret %d/%d, %lld/%lld records, "
					 "messages '%.200s' / '%.200s'", t, got.ret, want.ret, (long long)got.n,
					 (long long)want.n, got.msg, want.msg);
		}
	}
	CHECK(bad == 0 && errors > 5, "ahead = one thread's parse: %d random files (%d ending in an "
	      "error), %d differ %s", FILES, errors, bad, first);
	free(text);
}

int main(int argc, char **argv)
{
	/* tests/run.sh runs this again with --zlib (io/inflate.h) and with
	 * --ahead (every reader parsing on its own thread). */
	for (int k = 1; k < argc; k++) {
		if (strcmp(argv[k], "--zlib") == 0)
			inflater = SM_INFLATER_ZLIB;
		else if (strcmp(argv[k], "--ahead") == 0)
			ahead = 1;
	}
	sm_inflate_set_default(inflater);
	unit_begin("fastq");
	test_ahead();
	test_ahead_oracle();
	test_trailing_and_cr();
	test_basic();
	test_other_records();
	test_empty_and_stdin();
	test_gzip();
	test_long_read();
	test_errors();
	test_random_records();
	test_gzip_blocks();
	test_inflaters_agree();
	test_bgzf();
	return unit_end();
}
