/* lines.h — private to io/: a buffered line reader over zlib, shared by the
 * FASTA and FASTQ parsers.
 *
 * Plain and gzip input (zlib reads plain files transparently, and
 * concatenated gzip members such as bgzip output), "-" for stdin.  Unlike a
 * bare gzread() loop it tells a truncated or corrupt gzip stream apart from a
 * clean end of file: zlib reports Z_BUF_ERROR for input that stops inside a
 * gzip member, and sm_lines_next() turns that into an error.
 *
 * Lines are handed out in place: sm_lines_next() makes the whole line
 * contiguous in the read buffer (growing it for long lines) and points at it,
 * so the common case copies nothing. */
#ifndef SM_LINES_H
#define SM_LINES_H

#include <stddef.h>
#include <stdint.h>
#include <zlib.h>

typedef struct {
	gzFile fp;
	char *path;       /* as given; "-" is stdin */
	char *buf;        /* host memory, cap bytes; valid data in [pos, end) */
	size_t cap, pos, end;
	int at_eof;       /* zlib returned 0: no more data after end */
	int64_t line_no;  /* 1-based number of the line last returned */
	char *line;       /* the line last returned, inside buf, without "\n" or "\r\n" */
	size_t len;       /* its length; line[len] is not NUL */
} sm_lines_t;

/* Opens path ("-": standard input) into *lr.  Returns 0, or -1 after logging
 * why (the message names path). */
int sm_lines_open(sm_lines_t *lr, const char *path);

/* Advances to the next line: 1 with lr->line/lr->len/lr->line_no set (valid
 * until the next call), 0 at a clean end of input, -1 after logging a read
 * error or a truncated/corrupt gzip stream (the message names the file and
 * the line it stopped at).  A last line without a newline is a line. */
int sm_lines_next(sm_lines_t *lr);

/* Closes the stream and frees the buffers; lr may be zeroed or opened. */
void sm_lines_close(sm_lines_t *lr);

#endif
