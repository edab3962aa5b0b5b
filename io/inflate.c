/* inflate.c — gzip or plain input through ISA-L (see inflate.h). */
#include "io/inflate.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef SM_HAVE_ISAL
#include <isa-l/igzip_lib.h>

/* Bytes read() asks for at a time. */
#define SM_INFLATE_IN (1u << 18)

/* What the stream holds, decided by its first two bytes. */
enum {
	MODE_START,  /* nothing read yet */
	MODE_PLAIN,  /* no gzip magic: bytes pass through */
	MODE_GZIP,   /* gzip members */
	MODE_DONE    /* clean end */
};

struct sm_inflate_s {
	int fd;
	int mode;           /* MODE_* */
	int in_member;      /* inside a gzip member: its end not yet reached */
	int eof;            /* read() has returned 0 */
	size_t want;        /* unread bytes to have before inflating */
	uint8_t *in;        /* SM_INFLATE_IN bytes; the unread ones at next */
	uint8_t *next;
	size_t avail;
	int failed;         /* err is reported by every later call */
	sm_inflate_err_t err;
	struct inflate_state st;
};

int sm_inflate_wanted(void)
{
	const char *v = getenv("SCANMAP_INFLATE");

	return !v || strcmp(v, "zlib") != 0;
}

sm_inflate_t *sm_inflate_open(int fd)
{
	sm_inflate_t *z = calloc(1, sizeof *z);

	if (!z || !(z->in = malloc(SM_INFLATE_IN))) {
		free(z);
		close(fd);
		return NULL;
	}
	z->fd = fd;
	z->mode = MODE_START;
	z->next = z->in;
	z->want = 1;
	isal_inflate_init(&z->st);
	return z;
}

/* Reads until at least `want` unread bytes are buffered or the input
 * ends.  Returns 0, or -1 with z->err set. */
static int fill(sm_inflate_t *z, size_t want)
{
	while (z->avail < want && !z->eof) {
		ssize_t n;

		if (z->next != z->in) {
			memmove(z->in, z->next, z->avail);
			z->next = z->in;
		}
		n = read(z->fd, z->in + z->avail, SM_INFLATE_IN - z->avail);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			z->failed = 1;
			z->err = (sm_inflate_err_t){ SM_INFLATE_READ_ERROR, errno, NULL };
			return -1;
		}
		if (n == 0)
			z->eof = 1;
		z->avail += (size_t)n;
	}
	return 0;
}

/* zlib's words for the same faults, so messages do not depend on the
 * inflater. */
static const char *isal_message(int rc)
{
	switch (rc) {
	case ISAL_INVALID_BLOCK: return "invalid block type";
	case ISAL_INVALID_SYMBOL: return "invalid code";
	case ISAL_INVALID_LOOKBACK: return "invalid distance too far back";
	case ISAL_INVALID_WRAPPER: return "incorrect header check";
	case ISAL_UNSUPPORTED_METHOD: return "unknown compression method";
	case ISAL_INCORRECT_CHECKSUM: return "incorrect data check";
	default: return "invalid deflate data";
	}
}

/* At the start or between members: a gzip member starts here (its state
 * reset), or the input is plain, or it has ended (a read error: z->failed). */
static void next_member(sm_inflate_t *z)
{
	if (fill(z, 2) < 0)
		return;
	if (z->avail >= 2 && z->next[0] == 0x1f && z->next[1] == 0x8b) {
		isal_inflate_reset(&z->st);
		z->st.crc_flag = ISAL_GZIP;
		z->mode = MODE_GZIP;
		z->in_member = 1;
	} else if (z->mode == MODE_START && z->avail > 0) {
		z->mode = MODE_PLAIN;
	} else {
		/* The end, or bytes after a member that start no other: zlib
		 * ignores those too. */
		z->mode = MODE_DONE;
	}
}

/* Records why the stream stopped; every later call reports it. */
static void fail(sm_inflate_t *z, sm_inflate_fail_t why, const char *msg)
{
	z->failed = 1;
	z->err = (sm_inflate_err_t){ why, 0, msg };
}

/* Copies plain input into out[0..room); returns the bytes copied. */
static size_t plain_step(sm_inflate_t *z, uint8_t *out, size_t room)
{
	size_t k;

	if (fill(z, 1) < 0)
		return 0;
	if (z->avail == 0) {
		z->mode = MODE_DONE;
		return 0;
	}
	k = z->avail < room ? z->avail : room;
	memcpy(out, z->next, k);
	z->next += k;
	z->avail -= k;
	return k;
}

/* Inflates the current member into out[0..room); returns the bytes made.
 * A step that neither reads nor writes asks for more input first; with
 * none to come, the member is cut short. */
static size_t gzip_step(sm_inflate_t *z, uint8_t *out, size_t room)
{
	const uint32_t cap = room > UINT32_MAX ? UINT32_MAX : (uint32_t)room;
	size_t had, made;
	int rc;

	if (fill(z, z->want) < 0)
		return 0;
	had = z->avail;
	z->st.next_in = z->next;
	z->st.avail_in = (uint32_t)z->avail;
	z->st.next_out = out;
	z->st.avail_out = cap;
	rc = isal_inflate(&z->st);
	made = cap - z->st.avail_out;
	z->next = z->st.next_in;
	z->avail = z->st.avail_in;
	if (rc < 0) {
		fail(z, SM_INFLATE_CORRUPT, isal_message(rc));
	} else if (z->st.block_state == ISAL_BLOCK_FINISH) {
		z->in_member = 0;
		z->want = 1;
	} else if (made > 0 || had != z->avail) {
		z->want = 1;
	} else if (z->eof) {
		fail(z, SM_INFLATE_TRUNCATED, NULL);
	} else if (z->avail == SM_INFLATE_IN) {
		fail(z, SM_INFLATE_CORRUPT, "invalid deflate data");
	} else {
		z->want = z->avail + 1;
	}
	return made;
}

long sm_inflate_read(sm_inflate_t *z, void *buf, size_t n, sm_inflate_err_t *err)
{
	uint8_t *out = buf;
	size_t got = 0;

	while (got < n && !z->failed && z->mode != MODE_DONE) {
		if (z->mode == MODE_PLAIN)
			got += plain_step(z, out + got, n - got);
		else if (!z->in_member)
			next_member(z);
		else
			got += gzip_step(z, out + got, n - got);
	}
	if (got > 0)
		return (long)got;
	if (z->failed) {
		*err = z->err;
		return -1;
	}
	return 0;
}

void sm_inflate_close(sm_inflate_t *z)
{
	if (!z)
		return;
	close(z->fd);
	free(z->in);
	free(z);
}

#else /* no ISA-L: lines.c reads through zlib */

int sm_inflate_wanted(void) { return 0; }

sm_inflate_t *sm_inflate_open(int fd)
{
	close(fd);
	return NULL;
}

long sm_inflate_read(sm_inflate_t *z, void *buf, size_t n, sm_inflate_err_t *err)
{
	(void)z;
	(void)buf;
	(void)n;
	*err = (sm_inflate_err_t){ SM_INFLATE_CORRUPT, 0, "built without ISA-L" };
	return -1;
}

void sm_inflate_close(sm_inflate_t *z) { (void)z; }

#endif
