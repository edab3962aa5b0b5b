#include "io/fastq.h"

#include <malloc.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "io/base.h"
#include "io/clock.h"
#include "io/lines.h"
#include "io/log.h"
#include "io/thread.h"
#include "io/trace.h"

/* SAM's QNAME: [!-?A-~]{1,254}. */
#define SM_QNAME_MAX 254

/* Phred+33 quality characters: '!' (Q0) .. '~' (Q93). */
#define SM_QUAL_MIN '!'
#define SM_QUAL_MAX '~'

/* The letters SEQ may hold (io/base.h). */
static const char fq_iupac[] = SM_IUPAC_LETTERS;

/* Records parsed ahead (sm_fastq_ahead) travel in chunks of FQ_CHUNK, in
 * a ring of FQ_CHUNKS: four batches of 2,048 pairs' records, so that a
 * parser that waits for a core (32 workers on 32 cores) still has a batch
 * ready when the reader comes; with one batch's worth the workers of a
 * two-GPU run waited for batches 5x longer (results/multi-gpu.md).  Long
 * reads are held back by bytes instead: the parser stops while the filled
 * chunks hold FQ_AHEAD_BYTES of bases and qualities (at least one chunk
 * is always let through). */
#define FQ_CHUNK 256
#define FQ_CHUNKS 32
#define FQ_AHEAD_BYTES ((int64_t)64 << 20)

typedef struct {
	sm_read_t rec[FQ_CHUNK];
	int n;               /* records parsed into rec */
	int rc;              /* what follows them: 1 more, 0 the end, -1 an error */
	int64_t bytes;       /* their bases and qualities */
	sm_log_held_t log;   /* the error's messages, written when it is reached */
} fq_chunk_t;

/* The parsing thread and its ring: the thread fills chunk[head], the
 * consumer takes records from chunk[tail]; n_full counts filled chunks not
 * yet given back, the one the consumer holds included. */
typedef struct {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t filled, emptied;
	fq_chunk_t chunk[FQ_CHUNKS];
	int head, tail, n_full;
	int64_t bytes_full;  /* the bytes of the n_full chunks */
	int held;            /* the consumer holds chunk[tail] */
	int pos;             /* the consumer's next record in it */
	int stop;            /* the consumer is closing */
	double cpu;          /* the thread's CPU seconds so far */
} fq_ahead_t;

struct sm_fastq_s {
	sm_lines_t lr;
	int64_t n_rec;       /* records parsed so far */
	char *title;         /* header line of the current record, after '@' or '>' */
	size_t title_len, title_cap;
	uint8_t seq_ok[256]; /* 1 for IUPAC nucleotide letters, either case, and '.' */
	int held;            /* lr's current line is the next record's header, read
				at the end of a FASTA record's sequence */
	fq_ahead_t *ahead;   /* parsing on a thread of its own, or NULL */
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
	f->seq_ok['.'] = 1;   /* a base not called, as old Illumina software wrote it: N */
	return f;
}

/* Makes *dst hold at least need bytes, reusing its allocation when it is
 * large enough: a record's buffers are reused record after record, so this
 * reallocates only while the longest line grows (malloc_usable_size keeps
 * the capacity without a field in sm_read_t, whose buffers any malloc may
 * have made). */
static int reserve(char **dst, size_t need)
{
	char *p;

	if (*dst && malloc_usable_size(*dst) >= need)
		return 0;
	if (!(p = realloc(*dst, need + need / 2)))
		return -1;
	*dst = p;
	return 0;
}

/* Appends line[0..n) to the NUL-terminated *dst holding *len bytes. */
static int append(char **dst, size_t *len, const char *line, size_t n)
{
	if (reserve(dst, *len + n + 1) < 0)
		return -1;
	memcpy(*dst + *len, line, n);
	*len += n;
	(*dst)[*len] = '\0';
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

/* Sixteen bytes as one vector (GCC and clang vector extensions, on any
 * target): comparisons give 0xff or 0 per byte. */
typedef unsigned char fq_v16 __attribute__((vector_size(16)));

static fq_v16 fq_load(const char *s)
{
	fq_v16 v;

	memcpy(&v, s, sizeof v);
	return v;
}

static int fq_any(fq_v16 v)
{
	uint64_t w[2];

	memcpy(w, &v, sizeof w);
	return (w[0] | w[1]) != 0;
}

/* Whether s[0..n) holds a byte other than A, C, G, T and N: nearly every
 * line does not, and then the table below is never read. */
static int other_than_acgtn(const char *s, size_t n)
{
	fq_v16 other = { 0 };
	size_t k = 0;

	for (; k + sizeof other <= n; k += sizeof other) {
		fq_v16 c = fq_load(s + k);
		other |= ~((c == 'A') | (c == 'C') | (c == 'G') | (c == 'T') | (c == 'N'));
	}
	for (; k < n; k++)
		if (s[k] != 'A' && s[k] != 'C' && s[k] != 'G' && s[k] != 'T' && s[k] != 'N')
			return 1;
	return fq_any(other);
}

/* Index of the first byte of s[0..n) with table[byte] == 0, or n; *odd
 * is set when s holds a byte other than A, C, G, T and N. */
static size_t first_bad(const uint8_t *table, const char *s, size_t n, int *odd)
{
	size_t i = 0;

	if (!(*odd = other_than_acgtn(s, n)))
		return n;
	while (i < n && table[(unsigned char)s[i]])
		i++;
	return i;
}

/* Index of the first byte of s[0..n) outside Phred+33, or n (sixteen
 * bytes at a time until one is out). */
static size_t first_bad_qual(const char *s, size_t n)
{
	size_t i = 0;

	for (; i + sizeof(fq_v16) <= n; i += sizeof(fq_v16)) {
		fq_v16 c = fq_load(s + i);
		if (fq_any((c < SM_QUAL_MIN) | (c > SM_QUAL_MAX)))
			break;
	}
	while (i < n && s[i] >= SM_QUAL_MIN && s[i] <= SM_QUAL_MAX)
		i++;
	return i;
}

/* Whether the '+' line's text p[0..n) repeats the title[0..title_len) or
 * its first name_len bytes (the read name). */
static int plus_repeats(const char *p, size_t n, const char *title, size_t title_len,
			size_t name_len)
{
	return (n == title_len || n == name_len) && memcmp(p, title, n) == 0;
}

/* Whether line p[0..n) starts a FASTA record's successor: a header. */
static int is_header(const char *p, size_t n)
{
	return n > 0 && (p[0] == '>' || p[0] == '@');
}

/* Parses the next record into r (sm_fastq_next's contract). */
static int fq_parse(sm_fastq_t *f, sm_read_t *r)
{
	sm_lines_t *lr = &f->lr;
	size_t seq_len = 0, qual_len = 0, name_len, bad;
	int64_t seq_lines = 0;
	char db[16];
	int ret, fasta, odd;

	/* Header: '@' title (FASTQ) or '>' title (FASTA, as bwa and minimap2
	 * read it: no qualities); blank lines between records are tolerated. */
	if (f->held)
		f->held = 0;
	else
		do {
			if ((ret = sm_lines_next(lr)) <= 0)
				return ret;
		} while (lr->len == 0);
	fasta = lr->line[0] == '>';
	if (lr->line[0] != '@' && !fasta) {
		fq_error(f, NULL, "expected a header line starting with '@' (FASTQ) or '>' (FASTA), "
			 "found %s", byte_desc((unsigned char)lr->line[0], db));
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
	if (reserve(&r->name, f->title_len + 1) < 0) {
		fq_error(f, NULL, "out of memory");
		return -1;
	}
	memcpy(r->name, f->title, f->title_len);
	r->name[f->title_len] = '\0';
	r->name[name_len] = '\0';
	r->comment = NULL;
	for (size_t i = name_len + 1; i < f->title_len; i++)
		if (f->title[i] != ' ' && f->title[i] != '\t') {
			r->comment = r->name + i;
			break;
		}
	if (!r->seq && reserve(&r->seq, 1) < 0) {
		fq_error(f, r->name, "out of memory");
		return -1;
	}
	r->seq[0] = '\0';

	/* Sequence lines up to the '+' line (FASTQ), or up to the next header
	 * or the end of the file (FASTA). */
	for (;;) {
		if ((ret = sm_lines_next(lr)) < 0)
			return -1;
		if (ret == 0 && fasta)
			break;
		if (ret == 0) {
			fq_error(f, r->name, "truncated record: end of file before the '+' line");
			return -1;
		}
		if (fasta && is_header(lr->line, lr->len)) {
			f->held = 1;
			break;
		}
		if (!fasta && lr->len > 0 && lr->line[0] == '+')
			break;
		bad = first_bad(f->seq_ok, lr->line, lr->len, &odd);
		if (bad < lr->len) {
			if (bad == 0 && lr->line[0] == '@')
				fq_error(f, r->name, "missing '+' line: found a header where the sequence or '+' was expected");
			else if (seq_lines > 0 && !fasta)
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
		for (size_t i = seq_len - lr->len; odd && i < seq_len; i++)
			if (r->seq[i] == '.')
				r->seq[i] = 'N';
		seq_lines++;
	}
	/* A zero-length read (one trimmed away) is a record: it is written
	 * unmapped, as bwa mem and minimap2 write it. */
	if (seq_len > INT32_MAX) {
		fq_error(f, r->name, "read of %zu bases is too long", seq_len);
		return -1;
	}
	if (fasta) {
		free(r->qual);
		r->qual = NULL;
		r->len = (int32_t)seq_len;
		r->index = f->n_rec++;
		return 1;
	}
	if (!r->qual && reserve(&r->qual, 1) < 0) {
		fq_error(f, r->name, "out of memory");
		return -1;
	}
	r->qual[0] = '\0';
	/* '+' may repeat the header's title, or its read name alone (as some
	 * tools write it; kseq-based readers such as bwa's ignore the line); if
	 * it says anything, it must be one of the two, which catches records
	 * out of step. */
	if (lr->len > 1 && !plus_repeats(lr->line + 1, lr->len - 1, f->title, f->title_len,
					   name_len)) {
		fq_error(f, r->name, "the '+' line repeats neither the record's '@' header nor its read name");
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

/* ---- parsing ahead ---- */

static double fq_thread_cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The parsing thread: fills chunks in ring order until the end of input,
 * an error or stop.  What it logs is held with the chunk it ends. */
static void *fq_ahead_main(void *arg)
{
	sm_fastq_t *f = arg;
	fq_ahead_t *a = f->ahead;
	int rc = 1;

	sm_thread_name("sm-parse");
	if (sm_trace_on) {   /* "parse N" beside its file's "inflate N": a trace keeps threads apart by name */
		char name[32];

		snprintf(name, sizeof name, "parse %d", sm_lines_trace_no(&f->lr));
		sm_trace_thread(name);
	}
	while (rc == 1) {
		fq_chunk_t *c;
		double t = sm_trace_on ? sm_seconds() : 0;

		pthread_mutex_lock(&a->lock);
		while ((a->n_full == FQ_CHUNKS || (a->n_full > 0 && a->bytes_full >= FQ_AHEAD_BYTES)) &&
		       !a->stop)
			pthread_cond_wait(&a->emptied, &a->lock);
		if (a->stop) {
			pthread_mutex_unlock(&a->lock);
			break;
		}
		c = &a->chunk[a->head];
		pthread_mutex_unlock(&a->lock);
		if (sm_trace_on)
			sm_trace_span("ring full", t, sm_seconds());

		sm_log_hold(&c->log);
		for (c->n = 0; c->n < FQ_CHUNK && (rc = fq_parse(f, &c->rec[c->n])) == 1; c->n++)
			;
		sm_log_hold(NULL);
		c->rc = rc;
		c->bytes = 0;
		for (int k = 0; k < c->n; k++)
			c->bytes += 2 * (int64_t)c->rec[k].len;

		pthread_mutex_lock(&a->lock);
		a->head = (a->head + 1) % FQ_CHUNKS;
		a->n_full++;
		a->bytes_full += c->bytes;
		a->cpu = fq_thread_cpu();
		pthread_cond_signal(&a->filled);
		pthread_mutex_unlock(&a->lock);
	}
	return NULL;
}

int sm_fastq_ahead(sm_fastq_t *f)
{
	fq_ahead_t *a = calloc(1, sizeof *a);

	if (!a) {
		sm_log(SM_LOG_ERROR, "%s: out of memory", f->lr.path);
		return -1;
	}
	pthread_mutex_init(&a->lock, NULL);
	pthread_cond_init(&a->filled, NULL);
	pthread_cond_init(&a->emptied, NULL);
	f->ahead = a;
	if (pthread_create(&a->thread, NULL, fq_ahead_main, f) != 0) {
		sm_log(SM_LOG_ERROR, "%s: cannot start a parsing thread", f->lr.path);
		f->ahead = NULL;
		pthread_mutex_destroy(&a->lock);
		pthread_cond_destroy(&a->filled);
		pthread_cond_destroy(&a->emptied);
		free(a);
		return -1;
	}
	return 0;
}

/* sm_fastq_next from the ring: the records are swapped into r, r's old
 * buffers go to the parser for reuse. */
static int fq_ahead_next(fq_ahead_t *a, sm_read_t *r)
{
	for (;;) {
		fq_chunk_t *c;

		if (!a->held) {
			double t = sm_trace_on ? sm_seconds() : 0;

			pthread_mutex_lock(&a->lock);
			while (a->n_full == 0)
				pthread_cond_wait(&a->filled, &a->lock);
			pthread_mutex_unlock(&a->lock);
			if (sm_trace_on)
				sm_trace_span("wait for parsing", t, sm_seconds());
			a->held = 1;
			a->pos = 0;
		}
		c = &a->chunk[a->tail];
		if (a->pos < c->n) {
			sm_read_t t = *r;

			*r = c->rec[a->pos];
			c->rec[a->pos++] = t;
			return 1;
		}
		if (c->rc != 1) {
			/* The end or an error, reached: it stays (every later call
			 * returns the same), and its messages are written once. */
			sm_log_release(&c->log);
			return c->rc;
		}
		pthread_mutex_lock(&a->lock);
		a->tail = (a->tail + 1) % FQ_CHUNKS;
		a->n_full--;
		a->bytes_full -= c->bytes;
		a->held = 0;
		pthread_cond_signal(&a->emptied);
		pthread_mutex_unlock(&a->lock);
	}
}

int sm_fastq_next(sm_fastq_t *f, sm_read_t *r)
{
	return f->ahead ? fq_ahead_next(f->ahead, r) : fq_parse(f, r);
}

double sm_fastq_parse_cpu(const sm_fastq_t *f)
{
	double cpu;

	if (!f->ahead)
		return 0.0;
	pthread_mutex_lock(&f->ahead->lock);
	cpu = f->ahead->cpu;
	pthread_mutex_unlock(&f->ahead->lock);
	return cpu;
}

/* Stops the parsing thread, also one waiting for input inside the line
 * reader, and frees the ring. */
static void fq_ahead_close(sm_fastq_t *f)
{
	fq_ahead_t *a = f->ahead;

	pthread_mutex_lock(&a->lock);
	a->stop = 1;
	pthread_cond_broadcast(&a->emptied);
	pthread_mutex_unlock(&a->lock);
	sm_lines_stop(&f->lr);
	pthread_join(a->thread, NULL);
	for (int k = 0; k < FQ_CHUNKS; k++)
		for (int i = 0; i < FQ_CHUNK; i++)
			sm_read_free(&a->chunk[k].rec[i]);
	pthread_mutex_destroy(&a->lock);
	pthread_cond_destroy(&a->filled);
	pthread_cond_destroy(&a->emptied);
	free(a);
	f->ahead = NULL;
}

const char *sm_fastq_path(const sm_fastq_t *f)
{
	return f->lr.path;
}

void sm_fastq_close(sm_fastq_t *f)
{
	if (!f)
		return;
	if (f->ahead)
		fq_ahead_close(f);
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
