#include "io/lines.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mapper/log.h"

/* Bytes asked of zlib per read; also the initial buffer size. */
#define SM_LINES_CHUNK (1u << 17)
/* zlib's own input buffer (gzbuffer). */
#define SM_LINES_GZBUF (1u << 17)

int sm_lines_open(sm_lines_t *lr, const char *path)
{
	memset(lr, 0, sizeof *lr);
	lr->path = strdup(path);
	lr->buf = malloc(SM_LINES_CHUNK);
	if (!lr->path || !lr->buf) {
		sm_log(SM_LOG_ERROR, "%s: out of memory", path);
		sm_lines_close(lr);
		return -1;
	}
	lr->cap = SM_LINES_CHUNK;
	if (strcmp(path, "-") == 0) {
		/* dup() so that gzclose() leaves the process's stdin open. */
		int fd = dup(STDIN_FILENO);
		lr->fp = fd < 0 ? NULL : gzdopen(fd, "rb");
		if (!lr->fp && fd >= 0)
			close(fd);
	} else {
		lr->fp = gzopen(path, "rb");
	}
	if (!lr->fp) {
		sm_log(SM_LOG_ERROR, "%s: cannot open: %s",
		       strcmp(path, "-") == 0 ? "standard input" : path,
		       errno ? strerror(errno) : "out of memory");
		sm_lines_close(lr);
		return -1;
	}
	gzbuffer(lr->fp, SM_LINES_GZBUF);
	return 0;
}

/* Reads more data after lr->end, moving the unread tail to the front and
 * growing the buffer when it is full.  Returns bytes added (0 at end of
 * input) or -1 after logging. */
static int64_t lines_fill(sm_lines_t *lr)
{
	int n, errnum;
	const char *msg;

	if (lr->pos > 0) {
		memmove(lr->buf, lr->buf + lr->pos, lr->end - lr->pos);
		lr->end -= lr->pos;
		lr->pos = 0;
	}
	if (lr->cap - lr->end < SM_LINES_CHUNK) {
		size_t cap = lr->cap * 2;
		char *b = realloc(lr->buf, cap);
		if (!b) {
			sm_log(SM_LOG_ERROR, "%s: line %lld: out of memory for a line of %zu bytes",
			       lr->path, (long long)lr->line_no + 1, lr->end);
			return -1;
		}
		lr->buf = b;
		lr->cap = cap;
	}
	n = gzread(lr->fp, lr->buf + lr->end, SM_LINES_CHUNK);
	if (n > 0) {
		lr->end += (size_t)n;
		return n;
	}
	msg = gzerror(lr->fp, &errnum);
	if (n == 0 && errnum == Z_OK) {
		lr->at_eof = 1;
		return 0;
	}
	if (errnum == Z_BUF_ERROR)
		sm_log(SM_LOG_ERROR, "%s: line %lld: truncated gzip file (compressed data ends early)",
		       lr->path, (long long)lr->line_no + 1);
	else if (errnum == Z_ERRNO)
		sm_log(SM_LOG_ERROR, "%s: line %lld: read error: %s",
		       lr->path, (long long)lr->line_no + 1, strerror(errno));
	else {
		/* zlib prefixes its message with the path: drop that repeat. */
		size_t n = strlen(lr->path);
		if (strncmp(msg, lr->path, n) == 0 && strncmp(msg + n, ": ", 2) == 0)
			msg += n + 2;
		sm_log(SM_LOG_ERROR, "%s: line %lld: corrupt gzip data: %s",
		       lr->path, (long long)lr->line_no + 1, msg);
	}
	return -1;
}

int sm_lines_next(sm_lines_t *lr)
{
	size_t scanned = 0;  /* bytes after pos already known to hold no '\n' */
	char *nl;

	for (;;) {
		nl = memchr(lr->buf + lr->pos + scanned, '\n', lr->end - lr->pos - scanned);
		if (nl)
			break;
		scanned = lr->end - lr->pos;
		if (lr->at_eof) {
			if (scanned == 0)
				return 0;
			nl = lr->buf + lr->end;  /* last line, no newline */
			break;
		}
		if (lines_fill(lr) < 0)
			return -1;
	}
	lr->line = lr->buf + lr->pos;
	lr->len = (size_t)(nl - lr->line);
	lr->pos = nl < lr->buf + lr->end ? (size_t)(nl - lr->buf) + 1 : lr->end;
	if (lr->len > 0 && lr->line[lr->len - 1] == '\r')
		lr->len--;
	lr->line_no++;
	return 1;
}

void sm_lines_close(sm_lines_t *lr)
{
	if (lr->fp)
		gzclose(lr->fp);
	free(lr->buf);
	free(lr->path);
	memset(lr, 0, sizeof *lr);
}
