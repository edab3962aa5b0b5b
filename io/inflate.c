/* inflate.c — gzip or plain input through ISA-L or zlib (see inflate.h). */
#include "io/inflate.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#ifdef SM_HAVE_ISAL
#include <isa-l/igzip_lib.h>
#endif

#include "io/thread.h"

/* Bytes read() asks for at a time. */
#define SM_INFLATE_IN (1u << 18)
/* The gzip header's flag byte (RFC 1952: ID1 ID2 CM FLG) and its reserved
 * bits, which must be zero. */
#define SM_GZIP_FLG 3
#define SM_GZIP_FLG_RESERVED 0xe0
/* zlib's window bits for a gzip wrapper (16 + the largest window). */
#define SM_ZLIB_GZIP_BITS (16 + MAX_WBITS)
/* BGZF (the SAM specification, section 4.1): a gzip member whose header is
 * exactly FLG = FEXTRA, with an extra subfield 'B' 'C' of 2 bytes holding
 * the member's size - 1; at most 64 KiB in and out. */
#define SM_GZIP_FEXTRA 4
#define SM_BGZF_HEADER 12          /* ID1 ID2 CM FLG MTIME(4) XFL OS XLEN(2) */
#define SM_BGZF_MAX (1u << 16)     /* largest member, and largest inflated member */
/* Inflate threads of one BGZF stream at most, and members in flight per
 * thread (enough to keep each busy while the reader copies out). */
#define SM_BGZF_MAX_THREADS 16
#define SM_BGZF_SLOTS_PER_THREAD 4

/* What the stream holds, decided by its first two bytes. */
enum {
	MODE_START,  /* nothing read yet */
	MODE_PLAIN,  /* no gzip magic: bytes pass through */
	MODE_GZIP,   /* gzip members */
	MODE_BGZF,   /* BGZF members, inflated by the bgzf_t's threads */
	MODE_DONE    /* clean end */
};

typedef struct bgzf_s bgzf_t;

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
	int threads;        /* inflate threads for BGZF input (0: none) */
	bgzf_t *bg;         /* they and their slots, from the first BGZF member on */
};

static sm_inflater_t default_inflater = SM_INFLATER_AUTO;
static int default_threads;

void sm_inflate_set_default(sm_inflater_t which)
{
	default_inflater = which;
}

void sm_inflate_set_threads(int n)
{
	default_threads = n < 0 ? 0 : n > SM_BGZF_MAX_THREADS ? SM_BGZF_MAX_THREADS : n;
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
	z->threads = default_threads;
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

static long bgzf_member_size(sm_inflate_t *z);
static int bgzf_start(sm_inflate_t *z);

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
		if (z->threads > 0) {
			long size = bgzf_member_size(z);

			if (size < 0)
				return;
			if (size > 0 && bgzf_start(z) == 0) {
				z->mode = MODE_BGZF;
				return;
			}
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

/* Whether the bytes inflated by a zlib call that failed with msg stay:
 * only for a bad data or length check, found after the whole member. */
static int zlib_made_stays(const char *msg)
{
	return msg && strncmp(msg, "incorrect ", strlen("incorrect ")) == 0 &&
	       strcmp(msg, "incorrect header check") != 0;
}

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
		if (!zlib_made_stays(z->zs.msg))
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

/* BGZF input on threads.  Every member of a BGZF file states its size, so
 * the members can be cut out of the input without inflating them and
 * inflated on several threads at once, where one thread inflates a plain
 * gzip member (~260-500 MB/s of output a core).  The stream's own thread
 * (the one calling sm_inflate_read) queues whole members into a ring of
 * slots; the bgzf_t's threads take them in queue order and finish in any;
 * the stream hands the slots' bytes out in ring order.  What is not a whole
 * BGZF member (another gzip member, a member cut short by the end of the
 * input, other bytes, the end) halts the queue; once the queued members are
 * handed out the plain gzip path goes on from there, so the same input
 * gives the same bytes and the same errors as without threads, but for: a
 * corrupt member (deflate data or checksum) gives none of its bytes, where
 * the plain path gives what it inflated of it before the call that failed
 * (with a bad checksum, all of it). */

/* A slot's state: the stream's thread moves it FREE -> QUEUED and DONE ->
 * FREE, an inflate thread QUEUED -> BUSY -> DONE. */
enum { SLOT_FREE, SLOT_QUEUED, SLOT_BUSY, SLOT_DONE };

/* Room for a member's inflated bytes: twice BGZF's limit, so that an
 * inflater that wants room past the last byte before it reads the trailer
 * gets it. */
#define SM_BGZF_OUT (2 * SM_BGZF_MAX)

typedef struct {
	uint8_t *in;          /* the member, in_len bytes (SM_BGZF_MAX allocated) */
	uint32_t in_len;
	int64_t offset;       /* its first byte's offset in the input */
	uint8_t *out;         /* inflated: out_len bytes, the first out_pos handed out */
	uint32_t out_len, out_pos;
	const char *msg;      /* corrupt member: why (then out_len is 0) */
	int state;            /* SLOT_*, under the lock */
} bgzf_slot_t;

struct bgzf_s {
	int isal;                  /* as the stream's z->isal */
	int n_thread;              /* threads started */
	pthread_t thread[SM_BGZF_MAX_THREADS];
	pthread_mutex_t lock;
	pthread_cond_t queued;     /* a slot was queued, or stop was set */
	pthread_cond_t done;       /* a slot was inflated */
	bgzf_slot_t *slot;
	int n_slot;
	int head, tail;            /* the stream's: next slot to queue, next to hand out */
	int n_used;                /* the stream's: slots queued and not yet freed */
	int pick, n_wait;          /* under the lock: next slot to inflate, slots queued and not picked */
	int stop;                  /* under the lock: the threads end */
	int halted;                /* the queue met what is not a whole BGZF member */
	int read_failed;           /* it met a read error, reported after the queued members */
	sm_inflate_err_t read_err;
};

/* Inflates slot sl, a whole gzip member, into its out (one call of either
 * inflater, whose state is given: zs for zlib, st for ISA-L).  Sets out_len,
 * or msg and no bytes for a corrupt member: a bad checksum too, since the
 * two inflaters do not always agree whether damaged data fails as corrupt
 * deflate data or only at the checksum. */
static void bgzf_inflate(int isal, z_stream *zs, void *st, bgzf_slot_t *sl)
{
	uint32_t left_in, left_out;
	int finished, rc;

	sl->msg = NULL;
	if (!isal) {
		zs->next_in = sl->in;
		zs->avail_in = sl->in_len;
		zs->next_out = sl->out;
		zs->avail_out = SM_BGZF_OUT;
		rc = inflateReset(zs) == Z_OK ? inflate(zs, Z_FINISH) : Z_MEM_ERROR;
		sl->out_len = SM_BGZF_OUT - zs->avail_out;
		left_in = zs->avail_in;
		left_out = zs->avail_out;
		finished = rc == Z_STREAM_END;
		if (!finished && rc != Z_BUF_ERROR) {
			sl->msg = rc == Z_MEM_ERROR ? "out of memory" : zs->msg ? zs->msg
										: "compressed data error";
			sl->out_len = 0;
			return;
		}
	} else {
#ifdef SM_HAVE_ISAL
		struct inflate_state *is = st;

		isal_inflate_reset(is);
		is->crc_flag = ISAL_GZIP;
		is->next_in = sl->in;
		is->avail_in = sl->in_len;
		is->next_out = sl->out;
		is->avail_out = SM_BGZF_OUT;
		rc = isal_inflate(is);
		sl->out_len = SM_BGZF_OUT - is->avail_out;
		left_in = is->avail_in;
		left_out = is->avail_out;
		finished = is->block_state == ISAL_BLOCK_FINISH;
		if (rc < 0) {
			sl->msg = isal_message(rc);
			sl->out_len = 0;
			return;
		}
#else
		(void)st;
		return;
#endif
	}
	/* The member's stated size and its deflate data must end together. */
	if (!finished && left_out == 0)
		sl->msg = "a BGZF block inflates to more than 64 KiB";
	else if (!finished)
		sl->msg = "a BGZF block ends inside its compressed data";
	else if (left_in != 0)
		sl->msg = "a BGZF block's compressed data ends before the block";
	if (sl->msg)
		sl->out_len = 0;
}

/* An inflate thread: inflates queued slots, in queue order, until stop. */
static void *bgzf_thread(void *arg)
{
	bgzf_t *bg = arg;
	z_stream zs;
	void *st = NULL;

	sm_thread_name("sm-bgzf");
	memset(&zs, 0, sizeof zs);
	if (!bg->isal && inflateInit2(&zs, SM_ZLIB_GZIP_BITS) != Z_OK)
		zs.state = NULL;   /* inflateReset fails: each member reports "out of memory" */
#ifdef SM_HAVE_ISAL
	struct inflate_state is;
	st = &is;
#endif
	pthread_mutex_lock(&bg->lock);
	for (;;) {
		bgzf_slot_t *sl;

		while (bg->n_wait == 0 && !bg->stop)
			pthread_cond_wait(&bg->queued, &bg->lock);
		if (bg->stop)
			break;
		sl = &bg->slot[bg->pick];
		bg->pick = (bg->pick + 1) % bg->n_slot;
		bg->n_wait--;
		sl->state = SLOT_BUSY;
		pthread_mutex_unlock(&bg->lock);
		bgzf_inflate(bg->isal, &zs, st, sl);
		pthread_mutex_lock(&bg->lock);
		sl->state = SLOT_DONE;
		pthread_cond_signal(&bg->done);
	}
	pthread_mutex_unlock(&bg->lock);
	if (!bg->isal && zs.state)
		inflateEnd(&zs);
	return NULL;
}

static void bgzf_free(bgzf_t *bg)
{
	if (!bg)
		return;
	pthread_mutex_lock(&bg->lock);
	bg->stop = 1;
	pthread_cond_broadcast(&bg->queued);
	pthread_mutex_unlock(&bg->lock);
	for (int t = 0; t < bg->n_thread; t++)
		pthread_join(bg->thread[t], NULL);
	pthread_mutex_destroy(&bg->lock);
	pthread_cond_destroy(&bg->queued);
	pthread_cond_destroy(&bg->done);
	for (int k = 0; k < bg->n_slot; k++) {
		free(bg->slot[k].in);
		free(bg->slot[k].out);
	}
	free(bg->slot);
	free(bg);
}

/* Starts z->threads inflate threads for z (once).  0, or -1 when they
 * cannot be had (then the plain path inflates: the same bytes). */
static int bgzf_start(sm_inflate_t *z)
{
	bgzf_t *bg;

	if (z->bg)
		return 0;
	if (!(bg = calloc(1, sizeof *bg)))
		return -1;
	bg->isal = z->isal;
	bg->n_slot = z->threads * SM_BGZF_SLOTS_PER_THREAD;
	pthread_mutex_init(&bg->lock, NULL);
	pthread_cond_init(&bg->queued, NULL);
	pthread_cond_init(&bg->done, NULL);
	if (!(bg->slot = calloc((size_t)bg->n_slot, sizeof *bg->slot)))
		goto fail;
	for (int k = 0; k < bg->n_slot; k++)
		if (!(bg->slot[k].in = malloc(SM_BGZF_MAX)) || !(bg->slot[k].out = malloc(SM_BGZF_OUT)))
			goto fail;
	for (; bg->n_thread < z->threads; bg->n_thread++)
		if (pthread_create(&bg->thread[bg->n_thread], NULL, bgzf_thread, bg) != 0)
			break;
	if (bg->n_thread == 0)
		goto fail;
	z->bg = bg;
	return 0;
fail:
	bgzf_free(bg);
	return -1;
}

/* The size of the BGZF member at z->next, all of it buffered: > 0; 0 when
 * what starts there is not a whole BGZF member; -1 on a read error (then
 * z->failed is set). */
static long bgzf_member_size(sm_inflate_t *z)
{
	const uint8_t *h;
	uint32_t xlen, size = 0;

	if (fill(z, SM_BGZF_HEADER) < 0)
		return -1;
	h = z->next;
	if (z->avail < SM_BGZF_HEADER || h[0] != 0x1f || h[1] != 0x8b || h[2] != Z_DEFLATED ||
	    h[SM_GZIP_FLG] != SM_GZIP_FEXTRA)
		return 0;
	xlen = h[10] | (uint32_t)h[11] << 8;
	if (fill(z, SM_BGZF_HEADER + xlen) < 0)
		return -1;
	h = z->next;
	if (z->avail < SM_BGZF_HEADER + xlen)
		return 0;
	for (uint32_t at = SM_BGZF_HEADER; at + 4 <= SM_BGZF_HEADER + xlen;) {
		uint32_t slen = h[at + 2] | (uint32_t)h[at + 3] << 8;

		if (h[at] == 'B' && h[at + 1] == 'C' && slen == 2 && at + 6 <= SM_BGZF_HEADER + xlen) {
			size = (h[at + 4] | (uint32_t)h[at + 5] << 8) + 1;
			break;
		}
		at += 4 + slen;
	}
	/* No BC subfield, or a size that leaves no room for the trailer. */
	if (size < SM_BGZF_HEADER + xlen + 8)
		return 0;
	if (fill(z, size) < 0)
		return -1;
	return z->avail < size ? 0 : (long)size;
}

/* Queues the whole BGZF members at z->next into the free slots; halts at
 * anything else (a read error is kept for after the queued members). */
static void bgzf_queue(sm_inflate_t *z)
{
	bgzf_t *bg = z->bg;

	while (!bg->halted && bg->n_used < bg->n_slot) {
		long size = bgzf_member_size(z);
		bgzf_slot_t *sl = &bg->slot[bg->head];

		if (size <= 0) {
			if (size < 0) {
				bg->read_failed = 1;
				bg->read_err = z->err;
				z->failed = 0;
			}
			bg->halted = 1;
			break;
		}
		memcpy(sl->in, z->next, (size_t)size);
		sl->in_len = (uint32_t)size;
		sl->offset = z->n_read - (int64_t)z->avail;
		sl->out_len = sl->out_pos = 0;
		z->next += size;
		z->avail -= (size_t)size;
		bg->head = (bg->head + 1) % bg->n_slot;
		bg->n_used++;
		pthread_mutex_lock(&bg->lock);
		sl->state = SLOT_QUEUED;
		bg->n_wait++;
		pthread_cond_signal(&bg->queued);
		pthread_mutex_unlock(&bg->lock);
	}
}

/* Hands out the inflated bytes of the BGZF members in order, into
 * out[0..room); returns the bytes given.  When the queue has halted and
 * every queued member is handed out, the plain gzip path takes over. */
static size_t bgzf_step(sm_inflate_t *z, uint8_t *out, size_t room)
{
	bgzf_t *bg = z->bg;
	bgzf_slot_t *sl = &bg->slot[bg->tail];
	size_t k;
	int cancel;

	bgzf_queue(z);
	if (bg->n_used == 0) {
		z->mode = MODE_GZIP;
		z->in_member = 0;
		bg->halted = 0;
		if (bg->read_failed) {
			z->failed = 1;
			z->err = bg->read_err;
			bg->read_failed = 0;
		}
		return 0;
	}
	/* Only read() may be a cancellation point (inflate.h). */
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel);
	pthread_mutex_lock(&bg->lock);
	while (sl->state != SLOT_DONE)
		pthread_cond_wait(&bg->done, &bg->lock);
	pthread_mutex_unlock(&bg->lock);
	pthread_setcancelstate(cancel, NULL);

	k = sl->out_len - sl->out_pos < room ? sl->out_len - sl->out_pos : room;
	memcpy(out, sl->out + sl->out_pos, k);
	sl->out_pos += (uint32_t)k;
	if (sl->out_pos == sl->out_len) {
		if (sl->msg) {
			z->failed = 1;
			z->err = (sm_inflate_err_t){ SM_INFLATE_CORRUPT, 0, sl->msg, sl->offset };
			return k;
		}
		pthread_mutex_lock(&bg->lock);
		sl->state = SLOT_FREE;
		pthread_mutex_unlock(&bg->lock);
		bg->tail = (bg->tail + 1) % bg->n_slot;
		bg->n_used--;
	}
	return k;
}

long sm_inflate_read(sm_inflate_t *z, void *buf, size_t n, sm_inflate_err_t *err)
{
	uint8_t *out = buf;
	size_t got = 0;

	while (got < n && !z->failed && z->mode != MODE_DONE) {
		if (z->mode == MODE_PLAIN)
			got += plain_step(z, out + got, n - got);
		else if (z->mode == MODE_BGZF)
			got += bgzf_step(z, out + got, n - got);
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
	bgzf_free(z->bg);
	if (z->zs_live)
		inflateEnd(&z->zs);
	close(z->fd);
	free(z->in);
	free(z);
}
