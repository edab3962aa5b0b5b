/* lines.h — private to io/: a buffered line reader over ISA-L or zlib
 * (inflate.h), shared by the FASTA and FASTQ parsers.
 *
 * Plain and gzip input (plain files pass through, and concatenated gzip
 * members such as bgzip output are read in turn), "-" for stdin.  gzip is
 * inflated by ISA-L when the build has it (inflate.h; about twice zlib's
 * speed), else by zlib.  Unlike a bare gzread() loop it tells a truncated or
 * corrupt gzip stream apart from a clean end of file, and refuses bytes
 * after the last gzip member that start no other member (their offset
 * named), where gzread() drops them and any reads they hold.  A line that
 * holds a carriage return before its end (a file with CR-only line endings)
 * is an error too.
 *
 * Decompression runs ahead in a thread of its own (one per open reader),
 * which inflates into a ring of SM_LINES_BLOCKS blocks while the caller
 * parses the lines of earlier ones: two readers (the two files of a read
 * pair) inflate in parallel, and parsing overlaps inflation.  What the
 * thread meets (end of input, a read error, a truncated or corrupt stream)
 * travels with the block it ends, and sm_lines_next() reports it only when
 * the caller has consumed every byte before it, so messages name the same
 * line as a reader without the thread would.
 *
 * Lines are handed out in place: a line inside one block is pointed at where
 * it lies; one that spans blocks is gathered in a buffer of the reader's
 * own (grown for long lines), so the common case copies nothing. */
#ifndef SM_LINES_H
#define SM_LINES_H

#include <stddef.h>
#include <stdint.h>

/* The inflate thread and its ring (lines.c). */
typedef struct sm_lines_src_s sm_lines_src_t;

typedef struct {
	sm_lines_src_t *src;
	char *path;       /* as given; "-" is stdin */
	const char *data; /* the block being parsed, host memory; unread bytes in [pos, end) */
	size_t pos, end;
	int state;        /* what follows that block's bytes (lines.c: more, end or an error) */
	char *buf;        /* a line spanning blocks, gathered: cap bytes */
	size_t cap;
	int64_t line_no;  /* 1-based number of the line last returned */
	char *line;       /* the line last returned, without "\n" or "\r\n" */
	size_t len;       /* its length; line[len] is not NUL */
} sm_lines_t;

/* Opens path ("-": standard input) into *lr and starts its inflate thread.
 * Returns 0, or -1 after logging why (the message names path). */
int sm_lines_open(sm_lines_t *lr, const char *path);

/* Advances to the next line: 1 with lr->line/lr->len/lr->line_no set (valid
 * until the next call), 0 at a clean end of input, -1 after logging a read
 * error, a truncated/corrupt gzip stream, data after it, or a carriage
 * return inside a line (the message names the file and the line it stopped
 * at, or the byte offset of trailing data).  A last line without a newline is a line. */
int sm_lines_next(sm_lines_t *lr);

/* Makes a sm_lines_next() that waits for input, on another thread, return
 * -1 without a message (and every later call): for a caller that parses on
 * a thread of its own and is being closed.  Then call sm_lines_close(). */
void sm_lines_stop(sm_lines_t *lr);

/* The number that names an open reader's threads in a trace ("inflate N";
 * io/trace.h), so that another thread reading the same file can take it. */
int sm_lines_trace_no(const sm_lines_t *lr);

/* Stops the inflate thread (also one waiting on input that never comes, such
 * as a terminal on stdin), closes the stream and frees the buffers; lr may
 * be zeroed or opened. */
void sm_lines_close(sm_lines_t *lr);

#endif
