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

/* Parsing ahead (sm_fastq_ahead) splits the work: a cutting thread reads
 * the file's lines and cuts them into chunks of whole records (FQ_CHUNK
 * records, fewer once a chunk holds FQ_CHUNK_TEXT bytes), copying their
 * text; parsing threads (and the consumer, when it reaches a chunk nobody
 * has taken) parse chunks into records, several at once.  Cutting follows
 * only the lines' shape (which line ends a record), a fraction of a
 * parser's work, so one cutter keeps several parsers busy; a thread that
 * waits for a core among busy workers then delays one chunk, not the
 * file.  The ring holds FQ_CHUNKS chunks: four batches of 2,048 pairs'
 * records, so that parsers that wait for a core (32 workers on 32 cores)
 * still have a batch ready when the reader comes; with one batch's worth
 * the workers of a two-GPU run waited for batches 5x longer
 * (results/multi-gpu.md).  Long reads are held back by bytes instead: the
 * cutter stops while the chunks in the ring hold FQ_AHEAD_BYTES of text
 * (at least one chunk is always let through). */
#define FQ_CHUNK 1024
#define FQ_CHUNKS 16
#define FQ_CHUNK_TEXT ((size_t)1 << 20)
#define FQ_AHEAD_BYTES ((int64_t)64 << 20)
/* Parsing threads a file may have (sm_fastq_ahead's `parsers`). */
#define FQ_MAX_PARSERS 16

/* Where fq_parse takes its lines from, and what its errors name: the
 * file's line reader (parsing on the caller's thread), or the text of one
 * cut chunk (parsing ahead).  Each parsing thread has its own. */
typedef struct {
	sm_lines_t *lr;        /* the file's reader, or NULL: text below */
	const char *text;      /* a chunk's lines, each ending in '\n' */
	size_t pos, end;       /* unread text: [pos, end) */
	int end_rc;            /* what the text's end reads as: 0 the end of input (or of the chunk), -1 an error */
	int ended_in_error;    /* fq_line returned end_rc == -1 */
	const char *path;
	const uint8_t *seq_ok; /* 1 for IUPAC nucleotide letters, either case */
	const char *line;      /* the line last returned (not NUL-terminated) and its length */
	size_t len;
	int64_t line_no;       /* its 1-based number in the file */
	int64_t n_rec;         /* records of the file before the one being parsed */
	char *title;           /* header line of the current record, after '@' */
	size_t title_len, title_cap;
} fq_parser_t;

/* A chunk's way round the ring: cut (its text copied), claimed by a
 * parser, parsed (its records ready), taken back empty by the consumer. */
enum { FQ_EMPTY, FQ_CUT, FQ_PARSING, FQ_PARSED };

typedef struct {
	int state;
	char *text;            /* whole records' lines, each ending in '\n' */
	size_t text_len, text_cap;
	int64_t first_rec;     /* records of the file before the chunk's */
	int64_t first_line;    /* lines of the file before the chunk's */
	int last;              /* the chunk ends the input: its text's end is end_rc */
	int end_rc;            /* 0 the end of input, -1 an error (its message in cut_log) */
	sm_read_t rec[FQ_CHUNK + 1];  /* one spare: fq_parse_chunk's check */
	int n;                 /* records parsed into rec */
	int rc;                /* what follows them: 1 more, 0 the end, -1 an error */
	int cut_error;         /* that error is the cutter's: cut_log holds its message */
	sm_log_held_t log;     /* the parser's error message, written when reached */
	sm_log_held_t cut_log; /* the cutter's (a read error, a corrupt stream) */
} fq_chunk_t;

/* The ring: the cutter fills chunk[head], parsers claim chunk[next], the
 * consumer takes records from chunk[tail] (tail <= next <= head in ring
 * order).  n_full counts chunks cut and not yet given back (the one the
 * consumer holds included), n_cut those not yet claimed. */
typedef struct {
	pthread_t cutter, parser[FQ_MAX_PARSERS];
	int n_parsers, cutter_started;
	pthread_mutex_t lock;
	pthread_cond_t cut, filled, emptied;
	fq_chunk_t chunk[FQ_CHUNKS];
	int head, next, tail, n_full, n_cut;
	int64_t bytes_full;    /* the text bytes of the n_full chunks */
	int64_t n_rec;         /* the cutter's: records cut so far */
	int held;              /* the consumer holds chunk[tail] */
	int pos;               /* the consumer's next record in it */
	int stop;              /* the consumer is closing */
	double cpu[FQ_MAX_PARSERS + 1];  /* CPU seconds so far: the cutter, each parser */
	fq_parser_t own;       /* the consumer's parser, for chunks it parses itself */
} fq_ahead_t;

struct sm_fastq_s {
	sm_lines_t lr;
	fq_parser_t p;         /* parsing on the caller's thread */
	uint8_t seq_ok[256];
	fq_ahead_t *ahead;     /* parsing ahead, or NULL */
};

/* Logs an error naming the file, the 1-based record number, the read name
 * when known, and the current line. */
static void __attribute__((format(printf, 3, 4)))
fq_error(const fq_parser_t *p, const char *name, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (name && *name)
		sm_log(SM_LOG_ERROR, "%s: line %lld: record %lld ('%s'): %s", p->path,
		       (long long)p->line_no, (long long)p->n_rec + 1, name, msg);
	else
		sm_log(SM_LOG_ERROR, "%s: line %lld: record %lld: %s", p->path,
		       (long long)p->line_no, (long long)p->n_rec + 1, msg);
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
	f->p.lr = &f->lr;
	f->p.path = f->lr.path;
	f->p.seq_ok = f->seq_ok;
	return f;
}

/* The next line into p->line/len/line_no: sm_lines_next's return values. */
static int fq_line(fq_parser_t *p)
{
	const char *nl;

	if (p->lr) {
		int ret = sm_lines_next(p->lr);

		p->line = p->lr->line;
		p->len = p->lr->len;
		p->line_no = p->lr->line_no;
		return ret;
	}
	if (p->pos >= p->end) {
		p->ended_in_error = p->end_rc < 0;
		return p->end_rc;
	}
	nl = memchr(p->text + p->pos, '\n', p->end - p->pos);  /* every line of a chunk ends in one */
	p->line = p->text + p->pos;
	p->len = (size_t)(nl - p->line);
	p->pos += p->len + 1;
	p->line_no++;
	return 1;
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

/* Index of the first byte of s[0..n) with table[byte] == 0, or n. */
static size_t first_bad(const uint8_t *table, const char *s, size_t n)
{
	size_t i = 0;

	if (!other_than_acgtn(s, n))
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

uint64_t sm_name_stem_hash(const char *name, size_t len)
{
	const uint64_t mul = 0x9e3779b97f4a7c15ull;
	uint64_t h = len * mul;

	for (size_t k = 0; k < len; k += 8) {
		uint64_t w = 0;

		memcpy(&w, name + k, len - k < 8 ? len - k : 8);
		h = (h ^ w) * mul;
		h ^= h >> 29;
	}
	return h;
}

/* Parses the next record into r (sm_fastq_next's contract). */
static int fq_parse(fq_parser_t *p, sm_read_t *r)
{
	size_t seq_len = 0, qual_len = 0, name_len, bad;
	int64_t seq_lines = 0;
	char db[16];
	int ret;

	/* Header: '@' title; blank lines between records are tolerated. */
	do {
		if ((ret = fq_line(p)) <= 0)
			return ret;
	} while (p->len == 0);
	if (p->line[0] != '@') {
		fq_error(p, NULL, "expected a header line starting with '@', found %s",
			 byte_desc((unsigned char)p->line[0], db));
		return -1;
	}
	if (p->len > p->title_cap) {
		char *t = realloc(p->title, p->len);
		if (!t) {
			fq_error(p, NULL, "out of memory");
			return -1;
		}
		p->title = t;
		p->title_cap = p->len;
	}
	p->title_len = p->len - 1;
	memcpy(p->title, p->line + 1, p->title_len);
	for (name_len = 0; name_len < p->title_len; name_len++)
		if (p->title[name_len] == ' ' || p->title[name_len] == '\t')
			break;
	if (name_len == 0) {
		fq_error(p, NULL, "empty read name after '@'");
		return -1;
	}
	if (name_len == 1 && p->title[0] == '*') {
		fq_error(p, NULL, "read name '*' is SAM's mark for a missing name; rename the read");
		return -1;
	}
	if (name_len > SM_QNAME_MAX) {
		fq_error(p, NULL, "read name of %zu characters is longer than SAM allows (%d)",
			 name_len, SM_QNAME_MAX);
		return -1;
	}
	for (size_t i = 0; i < name_len; i++) {
		unsigned char c = (unsigned char)p->title[i];
		if (c == '@' || c < '!' || c > '~') {
			fq_error(p, NULL, "read name holds %s at column %zu, which SAM does not allow in a name",
				 byte_desc(c, db), i + 2);
			return -1;
		}
	}
	/* The name and the comment share one allocation: the name ends at
	 * the first whitespace, the comment starts after the whitespace run. */
	if (reserve(&r->name, p->title_len + 1) < 0) {
		fq_error(p, NULL, "out of memory");
		return -1;
	}
	memcpy(r->name, p->title, p->title_len);
	r->name[p->title_len] = '\0';
	r->name[name_len] = '\0';
	r->stem_len = (int32_t)name_len;
	if (name_len > 2 && r->name[name_len - 2] == '/' &&
	    (r->name[name_len - 1] == '1' || r->name[name_len - 1] == '2'))
		r->stem_len -= 2;
	r->stem_hash = sm_name_stem_hash(r->name, (size_t)r->stem_len);
	r->comment = NULL;
	for (size_t i = name_len + 1; i < p->title_len; i++)
		if (p->title[i] != ' ' && p->title[i] != '\t') {
			r->comment = r->name + i;
			break;
		}
	if (r->seq)
		r->seq[0] = '\0';
	if (r->qual)
		r->qual[0] = '\0';

	/* Sequence lines up to the '+' line. */
	for (;;) {
		if ((ret = fq_line(p)) < 0)
			return -1;
		if (ret == 0) {
			fq_error(p, r->name, "truncated record: end of file before the '+' line");
			return -1;
		}
		if (p->len > 0 && p->line[0] == '+')
			break;
		bad = first_bad(p->seq_ok, p->line, p->len);
		if (bad < p->len) {
			if (bad == 0 && p->line[0] == '@')
				fq_error(p, r->name, "missing '+' line: found a header where the sequence or '+' was expected");
			else if (seq_lines > 0)
				fq_error(p, r->name, "missing '+' line after SEQ: this line is not sequence "
					 "(%s at column %zu)", byte_desc((unsigned char)p->line[bad], db), bad + 1);
			else
				fq_error(p, r->name, "invalid character %s at column %zu of SEQ "
					 "(a read holds IUPAC nucleotide letters only)",
					 byte_desc((unsigned char)p->line[bad], db), bad + 1);
			return -1;
		}
		if (append(&r->seq, &seq_len, p->line, p->len) < 0) {
			fq_error(p, r->name, "out of memory");
			return -1;
		}
		seq_lines++;
	}
	if (seq_len == 0) {
		fq_error(p, r->name, "zero-length read (empty SEQ)");
		return -1;
	}
	if (seq_len > INT32_MAX) {
		fq_error(p, r->name, "read of %zu bases is too long", seq_len);
		return -1;
	}
	/* '+' may repeat the header's title; if it does, it must match. */
	if (p->len > 1 && (p->len - 1 != p->title_len || memcmp(p->line + 1, p->title, p->title_len) != 0)) {
		fq_error(p, r->name, "the '+' line does not repeat the record's '@' header");
		return -1;
	}

	/* Quality lines until they hold as many values as SEQ has bases.  A
	 * one-line SEQ must have a one-line QUAL: that makes a short QUAL an
	 * error on its own line instead of swallowing the next record. */
	do {
		if ((ret = fq_line(p)) < 0)
			return -1;
		if (ret == 0) {
			fq_error(p, r->name, "truncated record: end of file after %zu of %zu quality values",
				 qual_len, seq_len);
			return -1;
		}
		bad = first_bad_qual(p->line, p->len);
		if (bad < p->len) {
			fq_error(p, r->name, "invalid quality character %s at column %zu of QUAL "
				 "(Phred+33 qualities are '!'..'~')",
				 byte_desc((unsigned char)p->line[bad], db), bad + 1);
			return -1;
		}
		if (append(&r->qual, &qual_len, p->line, p->len) < 0) {
			fq_error(p, r->name, "out of memory");
			return -1;
		}
		if (qual_len > seq_len || (seq_lines == 1 && qual_len != seq_len)) {
			fq_error(p, r->name, "SEQ/QUAL length mismatch: %zu bases but %zu quality values",
				 seq_len, qual_len);
			return -1;
		}
	} while (qual_len < seq_len);

	r->len = (int32_t)seq_len;
	r->index = p->n_rec++;
	return 1;
}

/* ---- parsing ahead ---- */

static double fq_thread_cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The cutter's next line, appended to c's text.  sm_lines_next's returns. */
static int cut_line(sm_lines_t *lr, fq_chunk_t *c)
{
	int ret = sm_lines_next(lr);

	if (ret != 1)
		return ret;
	if (c->text_len + lr->len + 1 > c->text_cap) {
		size_t cap = (c->text_len + lr->len + 1) * 2;
		char *t = realloc(c->text, cap);

		if (!t) {
			sm_log(SM_LOG_ERROR, "%s: line %lld: out of memory", lr->path,
			       (long long)lr->line_no);
			return -1;
		}
		c->text = t;
		c->text_cap = cap;
	}
	memcpy(c->text + c->text_len, lr->line, lr->len);
	c->text_len += lr->len;
	c->text[c->text_len++] = '\n';
	return 1;
}

/* The chunk ends the input here: after its text comes what ret says
 * (0 the end, -1 an error whose message the cutter holds in cut_log). */
static int cut_last(fq_chunk_t *c, int ret)
{
	c->last = 1;
	c->end_rc = ret < 0 ? -1 : 0;
	return 0;
}

/* Cuts the next chunk: whole records by fq_parse's reading of the lines'
 * shape (the first non-empty line is a header; sequence lines up to a line
 * starting with '+'; quality lines until they are as long as the sequence),
 * without checking their content.  So in valid input the chunk's records
 * are fq_parse's, and a parser that starts at the chunk's first line
 * reads the same records and line numbers as one reading the whole file.
 * At a line of the wrong shape (a header without '@', too many quality
 * values) the chunk ends with that line, which fq_parse rejects; the
 * message held here for its end is never written then.  Returns 1 when
 * more records may follow, 0 when the chunk ends the input. */
static int fq_cut(fq_ahead_t *a, sm_lines_t *lr, fq_chunk_t *c)
{
	c->text_len = 0;
	c->first_rec = a->n_rec;
	c->first_line = lr->line_no;
	c->last = 0;
	c->end_rc = 0;
	for (int k = 0; k < FQ_CHUNK && c->text_len < FQ_CHUNK_TEXT; k++) {
		int64_t seq = 0, qual = 0, seq_lines = 0;
		int ret;

		do {
			if ((ret = cut_line(lr, c)) <= 0)
				return cut_last(c, ret);
		} while (lr->len == 0);
		if (lr->line[0] != '@')
			goto malformed;
		for (;;) {
			if ((ret = cut_line(lr, c)) <= 0)
				return cut_last(c, ret);
			if (lr->len > 0 && lr->line[0] == '+')
				break;
			seq += (int64_t)lr->len;
			seq_lines++;
		}
		do {
			if ((ret = cut_line(lr, c)) <= 0)
				return cut_last(c, ret);
			qual += (int64_t)lr->len;
			if (qual > seq || (seq_lines == 1 && qual != seq))
				goto malformed;
		} while (qual < seq);
		a->n_rec++;
	}
	return 1;
malformed:
	sm_log(SM_LOG_ERROR, "%s: line %lld: malformed record %lld", lr->path,
	       (long long)lr->line_no, (long long)a->n_rec + 1);
	return cut_last(c, -1);
}

/* Parses chunk c's text into its records with parser p. */
static void fq_parse_chunk(fq_parser_t *p, fq_chunk_t *c)
{
	int rc = 1;

	p->lr = NULL;
	p->text = c->text;
	p->pos = 0;
	p->end = c->text_len;
	p->end_rc = c->last ? c->end_rc : 0;
	p->ended_in_error = 0;
	p->line_no = c->first_line;
	p->n_rec = c->first_rec;
	sm_log_hold(&c->log);
	for (c->n = 0; c->n <= FQ_CHUNK && (rc = fq_parse(p, &c->rec[c->n])) == 1; c->n++)
		;
	if (c->n > FQ_CHUNK) {   /* more records than the cutter cut: never in a correct build */
		fq_error(p, NULL, "internal error: the cutter and the parser disagree");
		c->n = FQ_CHUNK;
		rc = -1;
	}
	sm_log_hold(NULL);
	c->cut_error = rc < 0 && p->ended_in_error;
	c->rc = rc == 0 && !c->last ? 1 : rc;
}

/* Takes chunk[next] to parse (the caller holds the lock, n_cut > 0). */
static fq_chunk_t *fq_claim(fq_ahead_t *a)
{
	fq_chunk_t *c = &a->chunk[a->next];

	c->state = FQ_PARSING;
	a->next = (a->next + 1) % FQ_CHUNKS;
	a->n_cut--;
	return c;
}

/* Parses chunk[next] with parser p: the caller holds the lock and
 * n_cut > 0; it holds the lock again on return. */
static void fq_parse_next(fq_ahead_t *a, fq_parser_t *p)
{
	fq_chunk_t *c = fq_claim(a);

	pthread_mutex_unlock(&a->lock);
	fq_parse_chunk(p, c);
	pthread_mutex_lock(&a->lock);
	c->state = FQ_PARSED;
	pthread_cond_signal(&a->filled);
}

/* The cutting thread: cuts chunks in ring order until the end of input,
 * an error or stop.  What it logs is held with the chunk it ends. */
static void *fq_cutter_main(void *arg)
{
	sm_fastq_t *f = arg;
	fq_ahead_t *a = f->ahead;
	int more = 1;

	sm_thread_name("sm-cut");
	if (sm_trace_on) {   /* "cut N" beside its file's "inflate N": a trace keeps threads apart by name */
		char name[32];

		snprintf(name, sizeof name, "cut %d", sm_lines_trace_no(&f->lr));
		sm_trace_thread(name);
	}
	while (more) {
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

		sm_log_hold(&c->cut_log);
		more = fq_cut(a, &f->lr, c);
		sm_log_hold(NULL);

		pthread_mutex_lock(&a->lock);
		c->state = FQ_CUT;
		a->head = (a->head + 1) % FQ_CHUNKS;
		a->n_full++;
		a->n_cut++;
		a->bytes_full += (int64_t)c->text_len;
		a->cpu[0] = fq_thread_cpu();
		pthread_cond_signal(&a->cut);
		pthread_cond_signal(&a->filled);   /* the consumer parses it if no parser does */
		pthread_mutex_unlock(&a->lock);
	}
	return NULL;
}

typedef struct {
	sm_fastq_t *f;
	int slot;              /* 1..n_parsers: its entry of fq_ahead_t.cpu */
} fq_parser_arg_t;

/* A parsing thread: parses the oldest chunk nobody has taken, until stop. */
static void *fq_parser_main(void *arg)
{
	fq_parser_arg_t *pa = arg;
	sm_fastq_t *f = pa->f;
	fq_ahead_t *a = f->ahead;
	fq_parser_t p = { .path = f->lr.path, .seq_ok = f->seq_ok };
	int slot = pa->slot;

	free(pa);
	sm_thread_name("sm-parse");
	if (sm_trace_on) {
		char name[32];

		snprintf(name, sizeof name, "parse %d.%d", sm_lines_trace_no(&f->lr), slot);
		sm_trace_thread(name);
	}
	pthread_mutex_lock(&a->lock);
	for (;;) {
		while (a->n_cut == 0 && !a->stop)
			pthread_cond_wait(&a->cut, &a->lock);
		if (a->stop)
			break;
		fq_parse_next(a, &p);
		a->cpu[slot] = fq_thread_cpu();
	}
	pthread_mutex_unlock(&a->lock);
	free(p.title);
	return NULL;
}

static void fq_ahead_close(sm_fastq_t *f);

int sm_fastq_ahead(sm_fastq_t *f, int parsers)
{
	fq_ahead_t *a = calloc(1, sizeof *a);

	if (!a) {
		sm_log(SM_LOG_ERROR, "%s: out of memory", f->lr.path);
		return -1;
	}
	pthread_mutex_init(&a->lock, NULL);
	pthread_cond_init(&a->cut, NULL);
	pthread_cond_init(&a->filled, NULL);
	pthread_cond_init(&a->emptied, NULL);
	a->own.path = f->lr.path;
	a->own.seq_ok = f->seq_ok;
	f->ahead = a;
	if (pthread_create(&a->cutter, NULL, fq_cutter_main, f) != 0) {
		sm_log(SM_LOG_ERROR, "%s: cannot start a thread to read ahead", f->lr.path);
		fq_ahead_close(f);
		return -1;
	}
	a->cutter_started = 1;
	parsers = parsers < 0 ? 0 : parsers > FQ_MAX_PARSERS ? FQ_MAX_PARSERS : parsers;
	for (; a->n_parsers < parsers; a->n_parsers++) {
		fq_parser_arg_t *pa = malloc(sizeof *pa);

		if (!pa)
			break;   /* fewer parsers: the consumer parses what they leave */
		*pa = (fq_parser_arg_t){ f, a->n_parsers + 1 };
		if (pthread_create(&a->parser[a->n_parsers], NULL, fq_parser_main, pa) != 0) {
			free(pa);
			break;
		}
	}
	return 0;
}

int sm_fastq_help(sm_fastq_t *f)
{
	fq_ahead_t *a = f->ahead;
	fq_parser_t p = { .path = f->lr.path, .seq_ok = f->seq_ok };
	int helped = 0;

	if (!a)
		return 0;
	pthread_mutex_lock(&a->lock);
	if (a->n_cut > 0 && !a->stop) {
		double t = sm_trace_on ? sm_seconds() : 0;

		fq_parse_next(a, &p);
		if (sm_trace_on)
			sm_trace_span("parse a chunk", t, sm_seconds());
		helped = 1;
	}
	pthread_mutex_unlock(&a->lock);
	free(p.title);
	return helped;
}

/* sm_fastq_next from the ring: the records are swapped into r, r's old
 * buffers go to the parser for reuse.  While the chunk it needs is not
 * parsed yet the consumer parses chunks itself (that one, if no parser
 * has taken it, or later ones) rather than wait: a parser that has taken
 * it may be waiting for a core. */
static int fq_ahead_next(fq_ahead_t *a, sm_read_t *r)
{
	for (;;) {
		fq_chunk_t *c = &a->chunk[a->tail];

		if (!a->held) {
			double t = sm_trace_on ? sm_seconds() : 0;

			pthread_mutex_lock(&a->lock);
			while (!(a->n_full > 0 && c->state == FQ_PARSED)) {
				if (a->n_cut > 0)
					fq_parse_next(a, &a->own);
				else
					pthread_cond_wait(&a->filled, &a->lock);
			}
			pthread_mutex_unlock(&a->lock);
			if (sm_trace_on)
				sm_trace_span("wait for parsing", t, sm_seconds());
			a->held = 1;
			a->pos = 0;
		}
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
			if (c->cut_error)
				sm_log_release(&c->cut_log);
			return c->rc;
		}
		pthread_mutex_lock(&a->lock);
		c->state = FQ_EMPTY;
		a->tail = (a->tail + 1) % FQ_CHUNKS;
		a->n_full--;
		a->bytes_full -= (int64_t)c->text_len;
		a->held = 0;
		pthread_cond_signal(&a->emptied);
		pthread_mutex_unlock(&a->lock);
	}
}

int sm_fastq_next(sm_fastq_t *f, sm_read_t *r)
{
	return f->ahead ? fq_ahead_next(f->ahead, r) : fq_parse(&f->p, r);
}

double sm_fastq_parse_cpu(const sm_fastq_t *f)
{
	double cpu = 0.0;

	if (!f->ahead)
		return 0.0;
	pthread_mutex_lock(&f->ahead->lock);
	for (int k = 0; k <= f->ahead->n_parsers; k++)
		cpu += f->ahead->cpu[k];
	pthread_mutex_unlock(&f->ahead->lock);
	return cpu;
}

/* Stops the cutting and parsing threads, also a cutter waiting for input
 * inside the line reader, and frees the ring. */
static void fq_ahead_close(sm_fastq_t *f)
{
	fq_ahead_t *a = f->ahead;

	pthread_mutex_lock(&a->lock);
	a->stop = 1;
	pthread_cond_broadcast(&a->emptied);
	pthread_cond_broadcast(&a->cut);
	pthread_mutex_unlock(&a->lock);
	sm_lines_stop(&f->lr);
	if (a->cutter_started)
		pthread_join(a->cutter, NULL);
	for (int k = 0; k < a->n_parsers; k++)
		pthread_join(a->parser[k], NULL);
	for (int k = 0; k < FQ_CHUNKS; k++) {
		for (int i = 0; i <= FQ_CHUNK; i++)
			sm_read_free(&a->chunk[k].rec[i]);
		free(a->chunk[k].text);
	}
	free(a->own.title);
	pthread_mutex_destroy(&a->lock);
	pthread_cond_destroy(&a->cut);
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
	free(f->p.title);
	free(f);
}

void sm_read_free(sm_read_t *r)
{
	free(r->name);
	free(r->seq);
	free(r->qual);
	memset(r, 0, sizeof *r);
}
