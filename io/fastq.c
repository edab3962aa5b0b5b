#include "io/fastq.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/base.h"
#include "io/lines.h"
#include "io/log.h"

/* SAM's QNAME: [!-?A-~]{1,254}. */
#define SM_QNAME_MAX 254

/* Phred+33 quality characters: '!' (Q0) .. '~' (Q93). */
#define SM_QUAL_MIN '!'
#define SM_QUAL_MAX '~'

/* The letters SEQ may hold (io/base.h). */
static const char fq_iupac[] = SM_IUPAC_LETTERS;

struct sm_fastq_s {
	sm_lines_t lr;
	int64_t n_rec;       /* records returned so far */
	char *title;         /* header line of the current record, after '@' */
	size_t title_len, title_cap;
	uint8_t seq_ok[256]; /* 1 for IUPAC nucleotide letters, either case */
};

/* Logs an error naming the file, the 1-based record number, the read name
 * when known, and the current line. */
static void __attribute__((format(printf, 3, 4)))
fq_error(const sm_fastq_t *f, const char *name, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (name && *name)
		sm_log(SM_LOG_ERROR, "%s: line %lld: record %lld ('%s'): %s", f->lr.path,
		       (long long)f->lr.line_no, (long long)f->n_rec + 1, name, msg);
	else
		sm_log(SM_LOG_ERROR, "%s: line %lld: record %lld: %s", f->lr.path,
		       (long long)f->lr.line_no, (long long)f->n_rec + 1, msg);
}

sm_fastq_t *sm_fastq_open(const char *path)
{
	sm_fastq_t *f = calloc(1, sizeof *f);

	if (!f) {
		sm_log(SM_LOG_ERROR, "%s: out of memory", path);
		return NULL;
	}
	if (sm_lines_open(&f->lr, path) < 0) {
		free(f);
		return NULL;
	}
	for (const char *p = fq_iupac; *p; p++)
		f->seq_ok[(unsigned char)*p] = f->seq_ok[(unsigned char)(*p - 'A' + 'a')] = 1;
	return f;
}

/* Appends line[0..n) to the NUL-terminated *dst holding *len bytes. */
static int append(char **dst, size_t *len, const char *line, size_t n)
{
	char *p = realloc(*dst, *len + n + 1);
	if (!p)
		return -1;
	memcpy(p + *len, line, n);
	*len += n;
	p[*len] = '\0';
	*dst = p;
	return 0;
}

/* Describes byte c for a message: 'x' or byte 0xNN. */
static const char *byte_desc(unsigned char c, char buf[16])
{
	if (c > ' ' && c <= '~')
		snprintf(buf, 16, "'%c'", c);
	else
		snprintf(buf, 16, "byte 0x%02x", c);
	return buf;
}

/* Index of the first byte of s[0..n) with table[byte] == 0, or n. */
static size_t first_bad(const uint8_t *table, const char *s, size_t n)
{
	size_t i = 0;
	while (i < n && table[(unsigned char)s[i]])
		i++;
	return i;
}

static size_t first_bad_qual(const char *s, size_t n)
{
	size_t i = 0;
	while (i < n && s[i] >= SM_QUAL_MIN && s[i] <= SM_QUAL_MAX)
		i++;
	return i;
}

int sm_fastq_next(sm_fastq_t *f, sm_read_t *r)
{
	sm_lines_t *lr = &f->lr;
	size_t seq_len = 0, qual_len = 0, name_len, bad;
	int64_t seq_lines = 0;
	char db[16];
	int ret;

	/* Header: '@' title; blank lines between records are tolerated. */
	do {
		if ((ret = sm_lines_next(lr)) <= 0)
			return ret;
	} while (lr->len == 0);
	if (lr->line[0] != '@') {
		fq_error(f, NULL, "expected a header line starting with '@', found %s",
			 byte_desc((unsigned char)lr->line[0], db));
		return -1;
	}
	if (lr->len > f->title_cap) {
		char *t = realloc(f->title, lr->len);
		if (!t) {
			fq_error(f, NULL, "out of memory");
			return -1;
		}
		f->title = t;
		f->title_cap = lr->len;
	}
	f->title_len = lr->len - 1;
	memcpy(f->title, lr->line + 1, f->title_len);
	for (name_len = 0; name_len < f->title_len; name_len++)
		if (f->title[name_len] == ' ' || f->title[name_len] == '\t')
			break;
	if (name_len == 0) {
		fq_error(f, NULL, "empty read name after '@'");
		return -1;
	}
	if (name_len == 1 && f->title[0] == '*') {
		fq_error(f, NULL, "read name '*' is SAM's mark for a missing name; rename the read");
		return -1;
	}
	if (name_len > SM_QNAME_MAX) {
		fq_error(f, NULL, "read name of %zu characters is longer than SAM allows (%d)",
			 name_len, SM_QNAME_MAX);
		return -1;
	}
	for (size_t i = 0; i < name_len; i++) {
		unsigned char c = (unsigned char)f->title[i];
		if (c == '@' || c < '!' || c > '~') {
			fq_error(f, NULL, "read name holds %s at column %zu, which SAM does not allow in a name",
				 byte_desc(c, db), i + 2);
			return -1;
		}
	}
	/* The name and the comment share one allocation: the name ends at
	 * the first whitespace, the comment starts after the whitespace run. */
	free(r->name);
	r->name = strndup(f->title, f->title_len);
	if (r->name == NULL) {
		fq_error(f, NULL, "out of memory");
		return -1;
	}
	r->name[name_len] = '\0';
	r->comment = NULL;
	for (size_t i = name_len + 1; i < f->title_len; i++)
		if (f->title[i] != ' ' && f->title[i] != '\t') {
			r->comment = r->name + i;
			break;
		}
	if (r->seq)
		r->seq[0] = '\0';
	if (r->qual)
		r->qual[0] = '\0';

	/* Sequence lines up to the '+' line. */
	for (;;) {
		if ((ret = sm_lines_next(lr)) < 0)
			return -1;
		if (ret == 0) {
			fq_error(f, r->name, "truncated record: end of file before the '+' line");
			return -1;
		}
		if (lr->len > 0 && lr->line[0] == '+')
			break;
		bad = first_bad(f->seq_ok, lr->line, lr->len);
		if (bad < lr->len) {
			if (bad == 0 && lr->line[0] == '@')
				fq_error(f, r->name, "missing '+' line: found a header where the sequence or '+' was expected");
			else if (seq_lines > 0)
				fq_error(f, r->name, "missing '+' line after SEQ: this line is not sequence "
					 "(%s at column %zu)", byte_desc((unsigned char)lr->line[bad], db), bad + 1);
			else
				fq_error(f, r->name, "invalid character %s at column %zu of SEQ "
					 "(a read holds IUPAC nucleotide letters only)",
					 byte_desc((unsigned char)lr->line[bad], db), bad + 1);
			return -1;
		}
		if (append(&r->seq, &seq_len, lr->line, lr->len) < 0) {
			fq_error(f, r->name, "out of memory");
			return -1;
		}
		seq_lines++;
	}
	if (seq_len == 0) {
		fq_error(f, r->name, "zero-length read (empty SEQ)");
		return -1;
	}
	if (seq_len > INT32_MAX) {
		fq_error(f, r->name, "read of %zu bases is too long", seq_len);
		return -1;
	}
	/* '+' may repeat the header's title; if it does, it must match. */
	if (lr->len > 1 && (lr->len - 1 != f->title_len || memcmp(lr->line + 1, f->title, f->title_len) != 0)) {
		fq_error(f, r->name, "the '+' line does not repeat the record's '@' header");
		return -1;
	}

	/* Quality lines until they hold as many values as SEQ has bases.  A
	 * one-line SEQ must have a one-line QUAL: that makes a short QUAL an
	 * error on its own line instead of swallowing the next record. */
	do {
		if ((ret = sm_lines_next(lr)) < 0)
			return -1;
		if (ret == 0) {
			fq_error(f, r->name, "truncated record: end of file after %zu of %zu quality values",
				 qual_len, seq_len);
			return -1;
		}
		bad = first_bad_qual(lr->line, lr->len);
		if (bad < lr->len) {
			fq_error(f, r->name, "invalid quality character %s at column %zu of QUAL "
				 "(Phred+33 qualities are '!'..'~')",
				 byte_desc((unsigned char)lr->line[bad], db), bad + 1);
			return -1;
		}
		if (append(&r->qual, &qual_len, lr->line, lr->len) < 0) {
			fq_error(f, r->name, "out of memory");
			return -1;
		}
		if (qual_len > seq_len || (seq_lines == 1 && qual_len != seq_len)) {
			fq_error(f, r->name, "SEQ/QUAL length mismatch: %zu bases but %zu quality values",
				 seq_len, qual_len);
			return -1;
		}
	} while (qual_len < seq_len);

	r->len = (int32_t)seq_len;
	r->index = f->n_rec++;
	return 1;
}

const char *sm_fastq_path(const sm_fastq_t *f)
{
	return f->lr.path;
}

void sm_fastq_close(sm_fastq_t *f)
{
	if (!f)
		return;
	sm_lines_close(&f->lr);
	free(f->title);
	free(f);
}

void sm_read_free(sm_read_t *r)
{
	free(r->name);
	free(r->seq);
	free(r->qual);
	memset(r, 0, sizeof *r);
}
