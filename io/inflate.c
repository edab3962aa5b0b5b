/* inflate.c — gzip or plain input through ISA-L or zlib (see inflate.h). */
#include "io/inflate.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#ifdef SM_HAVE_ISAL
#include <isa-l/igzip_lib.h>
#endif

/* Bytes read() asks for at a time. */
#define SM_INFLATE_IN (1u << 18)
/* The gzip header's flag byte (RFC 1952: ID1 ID2 CM FLG) and its reserved
 * bits, which must be zero. */
#define SM_GZIP_FLG 3
#define SM_GZIP_FLG_RESERVED 0xe0
/* zlib's window bits for a gzip wrapper (16 + the largest window). */
#define SM_ZLIB_GZIP_BITS (16 + MAX_WBITS)

/* What the stream holds, decided by its first two bytes. */
enum {
	MODE_START,  /* nothing read yet */
	MODE_PLAIN,  /* no gzip magic: bytes pass through */
	MODE_GZIP,   /* gzip members */
	MODE_DONE    /* clean end */
};

struct sm_inflate_s {
	int fd;
	int isal;           /* 1: ISA-L inflates, 0: zlib */
	int mode;           /* MODE_* */
	int in_member;      /* inside a gzip member: its end not yet reached */
	int eof;            /* read() has returned 0 */
	size_t want;        /* unread bytes to have before inflating */
	uint8_t *in;        /* SM_INFLATE_IN bytes; the unread ones at next */
	uint8_t *next;
	size_t avail;
	int64_t n_read;     /* bytes read() so far: next is at n_read - avail */
	int failed;         /* err is reported by every later call */
	sm_inflate_err_t err;
	z_stream zs;        /* zlib's state; zs_live once initialised */
	int zs_live;
#ifdef SM_HAVE_ISAL
	struct inflate_state st;
#endif
};

static sm_inflater_t default_inflater = SM_INFLATER_AUTO;

void sm_inflate_set_default(sm_inflater_t which)
{
	default_inflater = which;
}

int sm_inflate_have_isal(void)
{
#ifdef SM_HAVE_ISAL
	return 1;
#else
	return 0;
#endif
}

int sm_inflate_uses_isal(void)
{
	return sm_inflate_have_isal() && default_inflater != SM_INFLATER_ZLIB;
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
	z->isal = sm_inflate_uses_isal();
	z->mode = MODE_START;
	z->next = z->in;
	z->want = 1;
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
			z->err = (sm_inflate_err_t){ SM_INFLATE_READ_ERROR, errno, NULL, 0 };
			return -1;
		}
		if (n == 0)
			z->eof = 1;
		z->avail += (size_t)n;
		z->n_read += n;
	}
	return 0;
}

/* Records why the stream stopped; every later call reports it. */
static void fail(sm_inflate_t *z, sm_inflate_fail_t why, const char *msg)
{
	z->failed = 1;
	z->err = (sm_inflate_err_t){ why, 0, msg, z->n_read - (int64_t)z->avail };
}

/* Starts a gzip member at z->next in the inflater's state. */
static int member_start(sm_inflate_t *z)
{
	if (!z->isal) {
		int rc = z->zs_live ? inflateReset(&z->zs) : inflateInit2(&z->zs, SM_ZLIB_GZIP_BITS);

		if (rc != Z_OK) {
			fail(z, SM_INFLATE_CORRUPT, "out of memory");
			return -1;
		}
		z->zs_live = 1;
		return 0;
	}
#ifdef SM_HAVE_ISAL
	isal_inflate_reset(&z->st);
	z->st.crc_flag = ISAL_GZIP;
#endif
	return 0;
}

/* At the start or between members: a gzip member starts here, or the
 * input is plain, or it has ended.  Bytes after a member that start no
 * other are an error (SM_INFLATE_TRAILING): zlib's gzread() would drop them,
 * and with them any records they hold. */
static void next_member(sm_inflate_t *z)
{
	if (fill(z, SM_GZIP_FLG + 1) < 0)
		return;
	if (z->avail >= 2 && z->next[0] == 0x1f && z->next[1] == 0x8b) {
		/* zlib refuses reserved header flags, ISA-L reads on: refuse them
		 * here, so that both inflaters read the same records. */
		if (z->avail > SM_GZIP_FLG && (z->next[SM_GZIP_FLG] & SM_GZIP_FLG_RESERVED)) {
			fail(z, SM_INFLATE_CORRUPT, "unknown header flags set");
			return;
		}
		if (member_start(z) < 0)
			return;
		z->mode = MODE_GZIP;
		z->in_member = 1;
	} else if (z->mode == MODE_START && z->avail > 0) {
		z->mode = MODE_PLAIN;
	} else if (z->avail == 0) {
		z->mode = MODE_DONE;
	} else {
		fail(z, SM_INFLATE_TRAILING, NULL);
	}
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

#ifdef SM_HAVE_ISAL
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
#endif

/* One inflate call of the current member from z->next into out[0..cap):
 * sets *made, returns 1 at the member's end, 0 to go on, -1 on corrupt
 * data (failed).  A call that finds corrupt deflate data makes nothing: how
 * far into a corrupt block each inflater writes before it notices differs,
 * and the records read before the error must not depend on the inflater.
 * A bad checksum is found after the whole member, the same way by both, so
 * what the call made stays. */
static int inflate_call(sm_inflate_t *z, uint8_t *out, uint32_t cap, size_t *made)
{
	int rc;

	if (!z->isal) {
		z->zs.next_in = z->next;
		z->zs.avail_in = (uInt)z->avail;
		z->zs.next_out = out;
		z->zs.avail_out = cap;
		rc = inflate(&z->zs, Z_NO_FLUSH);
		*made = cap - z->zs.avail_out;
		z->next = z->zs.next_in;
		z->avail = z->zs.avail_in;
		if (rc == Z_STREAM_END)
			return 1;
		if (rc == Z_OK || rc == Z_BUF_ERROR)
			return 0;
		fail(z, SM_INFLATE_CORRUPT, rc == Z_MEM_ERROR ? "out of memory" :
		     z->zs.msg ? z->zs.msg : "compressed data error");
		if (z->zs.msg == NULL || strncmp(z->zs.msg, "incorrect ", strlen("incorrect ")) != 0 ||
		    strcmp(z->zs.msg, "incorrect header check") == 0)
			*made = 0;
		return -1;
	}
#ifdef SM_HAVE_ISAL
	z->st.next_in = z->next;
	z->st.avail_in = (uint32_t)z->avail;
	z->st.next_out = out;
	z->st.avail_out = cap;
	rc = isal_inflate(&z->st);
	*made = cap - z->st.avail_out;
	z->next = z->st.next_in;
	z->avail = z->st.avail_in;
	if (rc < 0) {
		fail(z, SM_INFLATE_CORRUPT, isal_message(rc));
		if (rc != ISAL_INCORRECT_CHECKSUM)
			*made = 0;
		return -1;
	}
	return z->st.block_state == ISAL_BLOCK_FINISH;
#else
	return -1;
#endif
}

/* Inflates the current member into out[0..room); returns the bytes made.
 * A step that neither reads nor writes asks for more input first; with
 * none to come, the member is cut short. */
static size_t gzip_step(sm_inflate_t *z, uint8_t *out, size_t room)
{
	const uint32_t cap = room > UINT32_MAX ? UINT32_MAX : (uint32_t)room;
	size_t had, made = 0;
	int rc;

	if (fill(z, z->want) < 0)
		return 0;
	had = z->avail;
	rc = inflate_call(z, out, cap, &made);
	if (rc < 0) {
		/* failed */
	} else if (rc == 1) {
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
	if (z->zs_live)
		inflateEnd(&z->zs);
	close(z->fd);
	free(z->in);
	free(z);
}
