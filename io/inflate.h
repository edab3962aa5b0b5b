/* inflate.h — private to io/: a gzip-or-plain byte stream decoded with
 * Intel's ISA-L (igzip), for the line reader (lines.c).
 *
 * ISA-L inflates gzip about twice as fast as zlib (docs/dev-notes.md,
 * session 9), and one inflate thread per FASTQ capped the GPU engine's
 * throughput.  It is used when scanmap was built with it (SM_HAVE_ISAL,
 * the Makefile's isal= knob) and the environment does not ask for zlib
 * (SCANMAP_INFLATE=zlib, which the tests use to cover both paths).
 *
 * The stream behaves as zlib's gzread() does, so that the line reader's
 * messages stay the same: input that does not start with the gzip magic is
 * passed through as plain text; concatenated gzip members (bgzip output)
 * are read one after another; bytes after a member that are not another
 * member are ignored, as zlib does; input that ends inside a member is an
 * error (truncated), as is corrupt deflate data or a wrong CRC. */
#ifndef SM_INFLATE_H
#define SM_INFLATE_H

#include <stddef.h>

typedef struct sm_inflate_s sm_inflate_t;

/* Why sm_inflate_read() failed. */
typedef enum {
	SM_INFLATE_READ_ERROR,  /* read() failed: sys_errno */
	SM_INFLATE_TRUNCATED,   /* the input ends inside a gzip member */
	SM_INFLATE_CORRUPT      /* invalid deflate data, header or checksum: msg */
} sm_inflate_fail_t;

typedef struct {
	sm_inflate_fail_t why;
	int sys_errno;
	const char *msg;  /* static text */
} sm_inflate_err_t;

/* 1 when this build has ISA-L and SCANMAP_INFLATE is not "zlib". */
int sm_inflate_wanted(void);

/* A stream over file descriptor fd, which it owns from then on (closed by
 * sm_inflate_close, also when this fails).  NULL when out of memory. */
sm_inflate_t *sm_inflate_open(int fd);

/* Up to n decoded bytes into buf: returns how many (> 0), 0 at a clean end
 * of input, or -1 with *err set.  The bytes decoded before an error are
 * returned first; the error comes with the next call.  read() is the only
 * place a thread may block (the caller may enable cancellation around
 * this call). */
long sm_inflate_read(sm_inflate_t *z, void *buf, size_t n, sm_inflate_err_t *err);

/* Closes the descriptor and frees z (NULL is fine). */
void sm_inflate_close(sm_inflate_t *z);

#endif
