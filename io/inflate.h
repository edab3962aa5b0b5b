/* inflate.h — a gzip-or-plain byte stream for the line reader (io/lines.c),
 * inflated by Intel's ISA-L (igzip) or by zlib.
 *
 * ISA-L inflates gzip about twice as fast as zlib, and one inflate thread
 * per FASTQ capped the GPU engine's throughput; it is used when scanmap was
 * built with it (SM_HAVE_ISAL, the Makefile's isal= knob) unless the caller
 * chose zlib (sm_inflate_set_default: the CLI's --inflate, the tests).
 *
 * Both inflaters sit behind the same framing, so they give the same bytes
 * and fail on the same input: input that does not start with the gzip magic is
 * passed through as plain text; concatenated gzip members (bgzip output)
 * are read one after another; bytes after a member that are not another
 * member are an error (SM_INFLATE_TRAILING, at their byte offset), never
 * ignored as zlib's gzread() does; input that ends inside a member is an
 * error (truncated), as is corrupt deflate data or a wrong CRC.  The bytes
 * decoded before an error are returned first, but for those of the inflate
 * call that found it (how far into a broken block each inflater writes
 * differs).  How much comes before an error can still differ by a block:
 * zlib can find a broken block header in the input's last bytes, and give
 * none of the call's bytes, where ISA-L, wanting more input, gives them and
 * calls the member cut short.  Input that reads to its end gives the same
 * bytes with both. */
#ifndef SM_INFLATE_H
#define SM_INFLATE_H

#include <stddef.h>
#include <stdint.h>

typedef struct sm_inflate_s sm_inflate_t;

/* Which library inflates gzip input. */
typedef enum {
	SM_INFLATER_AUTO,   /* ISA-L when built with it, else zlib */
	SM_INFLATER_ISAL,   /* ISA-L (zlib in a build without it: check sm_inflate_have_isal) */
	SM_INFLATER_ZLIB
} sm_inflater_t;

/* Why sm_inflate_read() failed. */
typedef enum {
	SM_INFLATE_READ_ERROR,  /* read() failed: sys_errno */
	SM_INFLATE_TRUNCATED,   /* the input ends inside a gzip member */
	SM_INFLATE_CORRUPT,     /* invalid deflate data, header or checksum: msg */
	SM_INFLATE_TRAILING     /* bytes after a gzip member that start no other: offset */
} sm_inflate_fail_t;

typedef struct {
	sm_inflate_fail_t why;
	int sys_errno;
	const char *msg;  /* static text */
	int64_t offset;   /* byte of the compressed input where it stopped */
} sm_inflate_err_t;

/* The inflater of every stream opened from now on (process-wide; set it
 * before opening readers, e.g. once in main).  Default SM_INFLATER_AUTO. */
void sm_inflate_set_default(sm_inflater_t which);

/* Threads that inflate the members of BGZF input (bgzip's, htslib's:
 * gzip members that state their size) in parallel, per stream opened from
 * now on (process-wide, like the inflater); 0 (the default): the stream's
 * own thread inflates.  The bytes and errors are the same either way, but
 * for how much of a corrupt member comes before the error: none of it with
 * threads, whichever inflater; some or all of it without.  At most 16. */
void sm_inflate_set_threads(int n);

/* 1 when this build has ISA-L. */
int sm_inflate_have_isal(void);

/* 1 when streams opened now inflate with ISA-L. */
int sm_inflate_uses_isal(void);

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
