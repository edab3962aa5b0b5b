/* lines.c — line reader with a decompression thread (see lines.h). */
#include "io/lines.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/clock.h"
#include "io/inflate.h"
#include "io/log.h"
#include "io/thread.h"
#include "io/trace.h"

/* Bytes asked of the inflater at a time; also the initial size of the
 * buffer for lines that span blocks. */
#define SM_LINES_CHUNK (1u << 17)
/* The ring: SM_LINES_BLOCKS blocks of SM_LINES_BLOCK bytes (a multiple of
 * SM_LINES_CHUNK); the thread fills a block with whole chunks.  Eight
 * blocks (~24,000 records of 2 x 150 bp) let the inflating side run ahead
 * while the parser waits for a core. */
#define SM_LINES_BLOCK (8u * SM_LINES_CHUNK)
#define SM_LINES_BLOCKS 8

/* What follows a block's bytes. */
enum {
	LINES_MORE,   /* the next block */
	LINES_END,    /* a clean end of input */
	LINES_ERROR   /* an error: err */
};

typedef struct {
	char *data;               /* SM_LINES_BLOCK bytes (NULL until first filled); len of them filled */
	size_t len;
	int state;                /* LINES_* */
	sm_inflate_err_t err;     /* for LINES_ERROR */
} lines_blk_t;

/* The ring is a queue of blocks: the thread fills blk[head], the reader
 * parses blk[tail]; n_full counts the blocks filled and not yet given back,
 * the one the reader holds included. */
struct sm_lines_src_s {
	sm_inflate_t *z;          /* the byte stream (inflate.h) */
	pthread_t thread;
	int started;              /* thread runs (or ran) and must be joined */
	pthread_mutex_t lock;
	pthread_cond_t filled;    /* n_full went up */
	pthread_cond_t emptied;   /* n_full went down, or stop was set */
	lines_blk_t blk[SM_LINES_BLOCKS];
	int head, tail, n_full;
	int held;                 /* the reader holds blk[tail] */
	int last;                 /* the thread has queued its last block (end or error) */
	int stop;                 /* the reader is closing */
	int trace_no;             /* names the thread in a trace (io/trace.h) */
};

/* Inflates one chunk onto the end of b.  Returns LINES_MORE with bytes
 * added, LINES_END, or LINES_ERROR with b->err set.  Only here may the
 * thread be cancelled: inside read(), waiting on input that may never come
 * (a terminal or a stalled pipe on stdin). */
static int inflate_chunk(sm_lines_src_t *s, lines_blk_t *b)
{
	long got;

	pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, NULL);
	got = sm_inflate_read(s->z, b->data + b->len, SM_LINES_CHUNK, &b->err);
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
	if (got > 0) {
		b->len += (size_t)got;
		return LINES_MORE;
	}
	return got == 0 ? LINES_END : LINES_ERROR;
}

/* The inflate thread: fills blocks in ring order until the end of input, an
 * error or stop. */
static void *lines_inflate(void *arg)
{
	sm_lines_src_t *s = arg;
	int state = LINES_MORE;

	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
	sm_thread_name("sm-lines");
	if (sm_trace_on) {
		char name[32];

		snprintf(name, sizeof name, "inflate %d", s->trace_no);
		sm_trace_thread(name);
	}
	while (state == LINES_MORE) {
		lines_blk_t *b;
		double t = sm_trace_on ? sm_seconds() : 0;

		pthread_mutex_lock(&s->lock);
		while (s->n_full == SM_LINES_BLOCKS && !s->stop)
			pthread_cond_wait(&s->emptied, &s->lock);
		if (s->stop) {
			pthread_mutex_unlock(&s->lock);
			break;
		}
		b = &s->blk[s->head];
		pthread_mutex_unlock(&s->lock);
		if (sm_trace_on)
			sm_trace_span("ring full", t, sm_seconds());

		if (sm_trace_on)
			t = sm_seconds();
		b->len = 0;
		/* A block's memory is taken when it is first filled: a small
		 * input (one of many files, a fuzz input) uses one. */
		if (!b->data && !(b->data = malloc(SM_LINES_BLOCK))) {
			b->err = (sm_inflate_err_t){ .why = SM_INFLATE_READ_ERROR, .sys_errno = ENOMEM };
			state = LINES_ERROR;
		}
		while (state == LINES_MORE && SM_LINES_BLOCK - b->len >= SM_LINES_CHUNK)
			state = inflate_chunk(s, b);
		b->state = state;
		if (sm_trace_on)
			sm_trace_span("inflate", t, sm_seconds());

		pthread_mutex_lock(&s->lock);
		s->head = (s->head + 1) % SM_LINES_BLOCKS;
		s->n_full++;
		s->last = state != LINES_MORE;
		pthread_cond_signal(&s->filled);
		pthread_mutex_unlock(&s->lock);
	}
	return NULL;
}

int sm_lines_open(sm_lines_t *lr, const char *path)
{
	const char *name = strcmp(path, "-") == 0 ? "standard input" : path;
	sm_lines_src_t *s;

	memset(lr, 0, sizeof *lr);
	lr->state = LINES_MORE;
	lr->path = strdup(path);
	lr->buf = malloc(SM_LINES_CHUNK);
	lr->src = s = calloc(1, sizeof *s);
	if (!lr->path || !lr->buf || !s)
		goto oom;
	lr->cap = SM_LINES_CHUNK;
	/* dup() so that closing leaves the process's stdin open.  The
	 * descriptor goes to the stream (which closes it on failure). */
	int fd = strcmp(path, "-") == 0 ? dup(STDIN_FILENO) : open(path, O_RDONLY);

	if (fd >= 0) {
		errno = 0;   /* sm_inflate_open fails only for want of memory */
		s->z = sm_inflate_open(fd);
	}
	if (!s->z) {
		sm_log(SM_LOG_ERROR, "%s: cannot open: %s", name,
		       errno ? strerror(errno) : "out of memory");
		sm_lines_close(lr);
		return -1;
	}
	if (sm_trace_on) {
		static int opened;

		s->trace_no = __atomic_fetch_add(&opened, 1, __ATOMIC_RELAXED);
	}
	pthread_mutex_init(&s->lock, NULL);
	pthread_cond_init(&s->filled, NULL);
	pthread_cond_init(&s->emptied, NULL);
	if (pthread_create(&s->thread, NULL, lines_inflate, s) != 0) {
		sm_log(SM_LOG_ERROR, "%s: cannot start a decompression thread", name);
		pthread_mutex_destroy(&s->lock);
		pthread_cond_destroy(&s->filled);
		pthread_cond_destroy(&s->emptied);
		sm_lines_close(lr);
		return -1;
	}
	s->started = 1;
	return 0;
oom:
	sm_log(SM_LOG_ERROR, "%s: out of memory", path);
	sm_lines_close(lr);
	return -1;
}

/* Gives the block the reader holds back to the thread and waits for the
 * next one.  Only called while the held block's state is LINES_MORE (or
 * none is held), so a next block always comes, unless sm_lines_stop() is
 * called meanwhile: then returns -1. */
static int lines_take(sm_lines_t *lr)
{
	sm_lines_src_t *s = lr->src;
	lines_blk_t *b;
	double t = sm_trace_on ? sm_seconds() : 0;

	pthread_mutex_lock(&s->lock);
	if (s->held) {
		s->tail = (s->tail + 1) % SM_LINES_BLOCKS;
		s->n_full--;
		pthread_cond_signal(&s->emptied);
	}
	s->held = 0;
	while (s->n_full == 0 && !s->stop)
		pthread_cond_wait(&s->filled, &s->lock);
	if (s->n_full == 0) {
		pthread_mutex_unlock(&s->lock);
		return -1;
	}
	if (sm_trace_on)
		sm_trace_span("wait for inflate", t, sm_seconds());
	s->held = 1;
	b = &s->blk[s->tail];
	pthread_mutex_unlock(&s->lock);
	lr->data = b->data;
	lr->pos = 0;
	lr->end = b->len;
	lr->state = b->state;
	return 0;
}

/* Appends n bytes at lr->data + lr->pos to the *have bytes gathered in
 * lr->buf and moves pos past them.  Returns 0, or -1 after logging. */
static int lines_gather(sm_lines_t *lr, size_t *have, size_t n)
{
	if (*have + n > lr->cap) {
		size_t cap = lr->cap;
		char *b;

		while (cap < *have + n)
			cap *= 2;
		if (!(b = realloc(lr->buf, cap))) {
			sm_log(SM_LOG_ERROR, "%s: line %lld: out of memory for a line of %zu bytes",
			       lr->path, (long long)lr->line_no + 1, *have + n);
			return -1;
		}
		lr->buf = b;
		lr->cap = cap;
	}
	if (n > 0)
		memcpy(lr->buf + *have, lr->data + lr->pos, n);
	*have += n;
	lr->pos += n;
	return 0;
}

/* Logs the error that ends the held block, at the line after the last one
 * returned. */
static void lines_report(const sm_lines_t *lr)
{
	const sm_inflate_err_t *e = &lr->src->blk[lr->src->tail].err;
	long long line = (long long)lr->line_no + 1;

	switch (e->why) {
	case SM_INFLATE_TRUNCATED:
		sm_log(SM_LOG_ERROR, "%s: line %lld: truncated gzip file (compressed data ends early)",
		       lr->path, line);
		break;
	case SM_INFLATE_READ_ERROR:
		sm_log(SM_LOG_ERROR, "%s: line %lld: read error: %s", lr->path, line,
		       strerror(e->sys_errno));
		break;
	case SM_INFLATE_TRAILING:
		sm_log(SM_LOG_ERROR, "%s: byte %lld (after line %lld): data after the end of the "
		       "gzip stream that is not another gzip member; it would be lost (plain text "
		       "appended to a .gz file?)", lr->path, (long long)e->offset, line - 1);
		break;
	default:
		sm_log(SM_LOG_ERROR, "%s: line %lld: corrupt gzip data: %s", lr->path, line,
		       e->msg ? e->msg : "invalid deflate data");
		break;
	}
}

int sm_lines_trace_no(const sm_lines_t *lr)
{
	return lr->src ? lr->src->trace_no : 0;
}

int sm_lines_next(sm_lines_t *lr)
{
	char *nl = NULL;
	size_t have = 0;  /* bytes of a line spanning blocks gathered in buf */

	if (lr->pos < lr->end)
		nl = memchr(lr->data + lr->pos, '\n', lr->end - lr->pos);
	if (nl) {
		/* The common case: the whole line lies in the held block. */
		lr->line = (char *)lr->data + lr->pos;
		lr->len = (size_t)(nl - lr->line);
		lr->pos += lr->len + 1;
	} else {
		for (;;) {
			if (lines_gather(lr, &have, lr->end - lr->pos) < 0)
				return -1;
			if (lr->state == LINES_END) {
				if (have == 0)
					return 0;
				break;  /* last line, no newline */
			}
			if (lr->state == LINES_ERROR) {
				lines_report(lr);
				return -1;
			}
			if (lines_take(lr) < 0)
				return -1;  /* stopped: the caller is closing */
			nl = memchr(lr->data, '\n', lr->end);
			if (nl) {
				if (lines_gather(lr, &have, (size_t)(nl - lr->data)) < 0)
					return -1;
				lr->pos++;  /* past the newline */
				break;
			}
		}
		lr->line = lr->buf;
		lr->len = have;
	}
	if (lr->len > 0 && lr->line[lr->len - 1] == '\r')
		lr->len--;
	lr->line_no++;
	/* A carriage return inside a line: the file's lines end in CR alone
	 * (classic Mac OS), so what looks like one line is several. */
	if (memchr(lr->line, '\r', lr->len)) {
		sm_log(SM_LOG_ERROR, "%s: line %lld: carriage return inside a line: the file's lines "
		       "end in CR alone (old Mac OS style); convert them to LF (e.g. tr '\\r' '\\n')",
		       lr->path, (long long)lr->line_no);
		return -1;
	}
	return 1;
}

void sm_lines_stop(sm_lines_t *lr)
{
	sm_lines_src_t *s = lr->src;

	if (!s || !s->started)
		return;
	pthread_mutex_lock(&s->lock);
	s->stop = 1;
	pthread_cond_broadcast(&s->filled);
	pthread_cond_broadcast(&s->emptied);
	pthread_mutex_unlock(&s->lock);
}

void sm_lines_close(sm_lines_t *lr)
{
	sm_lines_src_t *s = lr->src;

	if (s && s->started) {
		int last;

		pthread_mutex_lock(&s->lock);
		s->stop = 1;
		last = s->last;
		pthread_cond_broadcast(&s->emptied);
		pthread_mutex_unlock(&s->lock);
		/* A thread that has not reached the end may wait in read() for
		 * input that never comes: cancel it there. */
		if (!last)
			pthread_cancel(s->thread);
		pthread_join(s->thread, NULL);
		pthread_mutex_destroy(&s->lock);
		pthread_cond_destroy(&s->filled);
		pthread_cond_destroy(&s->emptied);
	}
	if (s) {
		sm_inflate_close(s->z);
		for (int k = 0; k < SM_LINES_BLOCKS; k++)
			free(s->blk[k].data);
		free(s);
	}
	free(lr->buf);
	free(lr->path);
	memset(lr, 0, sizeof *lr);
}
