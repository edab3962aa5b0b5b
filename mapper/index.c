/* index.c — minimizer index: build, save, load, query (see index.h). */
#include "mapper/index.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* The load pass's AVX2 copy (index_impl.h): GCC on x86-64, chosen at run
 * time. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define SM_INDEX_AVX2 1
#include <immintrin.h>
#else
#define SM_INDEX_AVX2 0
#endif

#include "io/base.h"
#include "io/clock.h"
#include "io/log.h"
#include "io/outfile.h"
#include "io/thread.h"
#include "mapper/radix.h"
#include "mapper/score.h"

static const char index_magic[5] = { 'S', 'M', 'I', 'D', 'X' };
#define SM_INDEX_PREFIX (sizeof index_magic + 1)   /* magic and version byte */

/* Threads any index job uses at most. */
#define SM_INDEX_MAX_THREADS 256

/* ---- jobs over threads ---- */

/* Runs fn(ctx, j, thread) for every job j in 0..n_jobs on up to n_threads
 * threads (thread: 0..n_threads-1, for per-thread scratch), each taking the
 * next job as it finishes one; returns when all are done.  If a thread
 * cannot be started, the others (the caller's at least) do its share. */
typedef void (*job_fn)(void *ctx, int64_t job, int thread);

typedef struct {
	job_fn fn;
	void *ctx;
	int64_t n_jobs;
	int64_t next;   /* atomic */
} jobs_t;

typedef struct {
	jobs_t *jobs;
	int thread;
} jobs_arg_t;

static void *jobs_main(void *arg)
{
	jobs_arg_t *a = arg;
	int64_t j;

	if (a->thread > 0)  /* thread 0 is the caller's, which keeps its name */
		sm_thread_name("sm-index");
	while ((j = __atomic_fetch_add(&a->jobs->next, 1, __ATOMIC_RELAXED)) < a->jobs->n_jobs)
		a->jobs->fn(a->jobs->ctx, j, a->thread);
	return NULL;
}

static void run_jobs(int n_threads, int64_t n_jobs, job_fn fn, void *ctx)
{
	jobs_t jobs = { fn, ctx, n_jobs, 0 };
	pthread_t th[SM_INDEX_MAX_THREADS];
	jobs_arg_t arg[SM_INDEX_MAX_THREADS];
	int n_started = 0;

	if (n_threads > SM_INDEX_MAX_THREADS)
		n_threads = SM_INDEX_MAX_THREADS;
	if ((int64_t)n_threads > n_jobs)
		n_threads = n_jobs > 0 ? (int)n_jobs : 1;
	for (int t = 1; t < n_threads; t++) {
		arg[n_started + 1] = (jobs_arg_t){ &jobs, n_started + 1 };
		if (pthread_create(&th[n_started + 1], NULL, jobs_main, &arg[n_started + 1]) != 0)
			break;
		n_started++;
	}
	arg[0] = (jobs_arg_t){ &jobs, 0 };
	jobs_main(&arg[0]);
	for (int t = 1; t <= n_started; t++)
		pthread_join(th[t], NULL);
}


/* About SM_BUCKET_KEYS keys per look-up bucket (index.h), at least
 * 2^SM_BUCKET_MIN_BITS buckets. */
#define SM_BUCKET_KEYS 2
#define SM_BUCKET_MIN_BITS 4

int64_t sm_minimizers(const uint8_t *seq, int64_t len, int k, int w,
		      sm_mini_t **out, int64_t *cap)
{
	const uint64_t mask = (k == 32) ? ~0ull : ((1ull << (2 * k)) - 1);
	const int shift = 2 * (k - 1);
	uint64_t fwd = 0, rev = 0;
	sm_mini_t win[SM_INDEX_MAX_W];   /* ring of the last w k-mers */
	sm_mini_t best = { 0, 0, -1 };   /* the window's minimizer, once it is full */
	int64_t n_out = 0, last_pos = -1, filled = 0;
	int at = 0;                      /* where the next k-mer goes in the ring */

	for (int64_t i = 0; i < len; i++) {
		uint8_t c = seq[i];
		sm_mini_t m;

		if (c >= SM_BASE_N) {  /* an ambiguous base: start again after it */
			filled = 0;
			fwd = rev = 0;
			continue;
		}
		fwd = ((fwd << 2) | c) & mask;
		rev = (rev >> 2) | ((uint64_t)(3 - c) << shift);
		if (++filled < k)
			continue;
		m.strand = rev < fwd;
		m.hash = (uint32_t)sm_mix64(m.strand ? rev : fwd);
		m.pos = i;
		win[at] = m;
		if (++at == w)
			at = 0;
		if (filled - k + 1 < w)
			continue;
		/* The window's smallest hash, ties to the leftmost k-mer: the new
		 * k-mer takes over only with a smaller hash, and the window is
		 * searched again only when its minimizer has just left it.  (The
		 * k-mers of a window end at i - w + 1 .. i.) */
		if (filled - k + 1 == w || best.pos < i - w + 1) {
			best = win[0];
			for (int t = 1; t < w; t++)
				if (win[t].hash < best.hash ||
				    (win[t].hash == best.hash && win[t].pos < best.pos))
					best = win[t];
		} else if (m.hash < best.hash) {
			best = m;
		}
		if (best.pos == last_pos)
			continue;
		if (n_out == *cap) {
			int64_t nc = *cap ? 2 * *cap : 1024;
			sm_mini_t *p = realloc(*out, (size_t)nc * sizeof *p);
			if (!p)
				return -1;
			*out = p;
			*cap = nc;
		}
		(*out)[n_out++] = best;
		last_pos = best.pos;
	}
	return n_out;
}

void sm_index_destroy(sm_index_t *idx)
{
	if (!idx)
		return;
	if (idx->map) {
		munmap(idx->map, idx->map_len);
	} else {
		free(idx->key);
		free(idx->start);
		free(idx->pos);
	}
	free(idx->bucket);
	free(idx);
}

/* ---- the bucket table (index.h) ---- */

/* Keys per job of the passes over the keys (bucket table, checks, and the
 * checksums of the key, offset and position sections: part of the file
 * format, see "the checksum" below).  A job's keys, offsets and positions
 * (about 200 KB on a human chromosome) stay in a core's L2 cache between
 * the checksum and the checks. */
#define SM_INDEX_KEY_BLOCK ((int64_t)1 << 13)

static int64_t key_jobs(int64_t n_key)
{
	return n_key ? (n_key + SM_INDEX_KEY_BLOCK - 1) / SM_INDEX_KEY_BLOCK : 1;
}

/* Marks a bucket entry that no key of the job has set yet. */
#define SM_BUCKET_UNSET UINT32_MAX

/* The bucket entries that keys t0 = j*SM_INDEX_KEY_BLOCK .. t1 decide:
 * bucket[b] is the first key whose top bits are >= b, so job j owns the
 * entries above its predecessor key's top bits (key[t0 - 1]) up to its
 * last key's (the last job also those above, up to 2^bucket_bits: n_key).
 * Without branches that depend on the keys: the owned entries are marked
 * unset, each key writes its index into its own entry in descending order
 * (the first key of an entry writes last), and a descending sweep gives
 * each unset entry the value of the next set one.  Keys must be increasing
 * for the table to be right; if they are not, every write still stays
 * within the job's own entries. */
static void bucket_range(const sm_index_t *idx, int64_t j)
{
	const int sh = SM_HASH_BITS - idx->bucket_bits;
	const uint32_t *key = idx->key;
	uint32_t *bucket = idx->bucket;
	int64_t t0 = j * SM_INDEX_KEY_BLOCK;
	int64_t t1 = t0 + SM_INDEX_KEY_BLOCK < idx->n_key ? t0 + SM_INDEX_KEY_BLOCK : idx->n_key;
	uint64_t lo = t0 ? (uint64_t)(key[t0 - 1] >> sh) + 1 : 0;
	uint64_t hi = t1 == idx->n_key ? (uint64_t)1 << idx->bucket_bits :
		      (uint64_t)(key[t1 - 1] >> sh);
	uint32_t next = (uint32_t)t1;

	if (hi < lo)
		return;   /* all the job's keys share its predecessor's entry */
	for (uint64_t b = lo; b <= hi; b++)
		bucket[b] = SM_BUCKET_UNSET;
	for (int64_t t = t1 - 1; t >= t0; t--) {
		uint64_t b = key[t] >> sh;

		if (b - lo <= hi - lo)
			bucket[b] = (uint32_t)t;
	}
	for (uint64_t b = hi + 1; b-- > lo;) {
		next = bucket[b] != SM_BUCKET_UNSET ? bucket[b] : next;
		bucket[b] = next;
	}
}

/* Allocates idx->bucket (zeroed) for the keys: 0, or -1 when out of memory; leaves
 * it NULL (binary search) for n_key >= SM_BUCKET_UNSET. */
static int bucket_alloc(sm_index_t *idx)
{
	int bits = SM_BUCKET_MIN_BITS;

	if (idx->n_key >= (int64_t)SM_BUCKET_UNSET)
		return 0;
	while (bits < SM_HASH_BITS && ((int64_t)SM_BUCKET_KEYS << bits) < idx->n_key)
		bits++;
	idx->bucket = calloc(((size_t)1 << bits) + 1, sizeof *idx->bucket);
	if (!idx->bucket)
		return -1;
	idx->bucket_bits = bits;
	return 0;
}

static void bucket_job(void *ctx, int64_t j, int thread)
{
	bucket_range(ctx, j);
}

/* ---- building ---- */

/* The build works in parallel and in 8 bytes per minimizer occurrence:
 *   1. the reference is cut into pieces of SM_PIECE bases (global
 *      coordinates, across contigs); each piece's minimizers are counted
 *      per sort bucket (the hash's top bucket_bits bits);
 *   2. each piece's minimizers are computed again and each written, as one
 *      packed 64-bit word (below), at its place among its bucket's: in
 *      piece order, so every bucket is in position order;
 *   3. each bucket is sorted by the rest of the hash (radix, stable: equal
 *      hashes stay in position order), which gives the (hash, position)
 *      order of the keys and positions;
 *   4. keys and offsets are taken out and each word replaced, in place, by
 *      its position: the word array becomes pos[].
 * A packed word holds, from the top: the hash's low 32 - bucket_bits bits,
 * then (global position << 1 | strand) in pos_bits bits.
 * A piece's minimizers are those of the whole contig that lie in it:
 * computed from k + w - 2 bases before it (the first window that ends in
 * it) to w - 1 bases after it (the last window that can choose one of its
 * k-mers), keeping those whose position lies in it (see sm_minimizers:
 * windows agree once full, and a minimizer's position never goes back). */
#define SM_PIECE ((int64_t)1 << 22)
#define SM_SORT_MIN_BUCKET_BITS 10
#define SM_SORT_MAX_BUCKET_BITS 24
#define SM_SORT_DIGIT 8

typedef struct {
	const sm_ref_t *ref;
	int k, w;
	int n_threads;
	int bucket_bits, pos_bits;
	int64_t n_piece, n_bucket;
	uint32_t *count;         /* [piece][bucket] minimizers */
	int64_t *cursor;         /* [piece][bucket] where the next one goes */
	uint64_t *word;          /* the packed words, by bucket */
	int64_t *bstart;         /* [n_bucket + 1] each bucket's first word */
	int64_t *bkeys;          /* [n_bucket + 1] distinct keys per bucket, then their prefix */
	sm_mini_t **buf;         /* per thread */
	int64_t *buf_cap;
	uint64_t **tmp;          /* per thread, room for the largest bucket */
	sm_index_t *idx;
	int failed;              /* out of memory in a job */
} build_t;

/* Calls emit(b, hash, global position << 1 | strand) for every minimizer of
 * piece j, in position order. */
static int piece_minimizers(build_t *b, int64_t j, int thread,
			    void (*emit)(build_t *b, int64_t j, uint32_t hash, uint64_t val))
{
	const sm_ref_t *ref = b->ref;
	int64_t A = j * SM_PIECE, B = A + SM_PIECE < ref->total ? A + SM_PIECE : ref->total;

	for (int32_t c = sm_offset_find(ref->offset, ref->n_contig, A);
	     c < ref->n_contig && ref->offset[c] < B; c++) {
		int64_t lo = ref->offset[c], hi = lo + ref->len[c];
		int64_t a = A > lo ? A : lo, e = B < hi ? B : hi;
		int64_t from = a - (b->k + b->w - 2) > lo ? a - (b->k + b->w - 2) : lo;
		int64_t to = e + b->w - 1 < hi ? e + b->w - 1 : hi;
		int64_t n = sm_minimizers(ref->seq + from, to - from, b->k, b->w, &b->buf[thread],
					  &b->buf_cap[thread]);

		if (n < 0)
			return -1;
		for (int64_t t = 0; t < n; t++) {
			const sm_mini_t *m = &b->buf[thread][t];
			int64_t g = from + m->pos;

			if (g >= a && g < e)
				emit(b, j, m->hash, (uint64_t)g << 1 | m->strand);
		}
	}
	return 0;
}

static void emit_count(build_t *b, int64_t j, uint32_t hash, uint64_t val)
{
	b->count[j * b->n_bucket + (hash >> (SM_HASH_BITS - b->bucket_bits))]++;
}

static void emit_place(build_t *b, int64_t j, uint32_t hash, uint64_t val)
{
	const int sh = SM_HASH_BITS - b->bucket_bits;
	uint64_t low = hash & (((uint64_t)1 << sh) - 1);

	b->word[b->cursor[j * b->n_bucket + (hash >> sh)]++] = low << b->pos_bits | val;
}

static void count_job(void *ctx, int64_t j, int thread)
{
	build_t *b = ctx;

	if (piece_minimizers(b, j, thread, emit_count) < 0)
		b->failed = 1;
}

static void place_job(void *ctx, int64_t j, int thread)
{
	build_t *b = ctx;

	if (piece_minimizers(b, j, thread, emit_place) < 0)
		b->failed = 1;
}

/* Sorts bucket j by the hash bits of its words (stable LSD radix) and
 * counts its distinct keys into bkeys[j]. */
static void sort_job(void *ctx, int64_t j, int thread)
{
	build_t *b = ctx;
	uint64_t *src = b->word + b->bstart[j];
	int64_t n = b->bstart[j + 1] - b->bstart[j], keys = 0;

	if (sm_radix_sort_bits(src, b->tmp[thread], n, b->pos_bits, SM_HASH_BITS - b->bucket_bits,
			       SM_SORT_DIGIT))
		memcpy(src, b->tmp[thread], (size_t)n * sizeof *src);
	for (int64_t t = 0; t < n; t++)
		keys += t == 0 || src[t] >> b->pos_bits != src[t - 1] >> b->pos_bits;
	b->bkeys[j] = keys;
}

/* Writes bucket j's keys and offsets and turns its words into positions. */
static void split_job(void *ctx, int64_t j, int thread)
{
	build_t *b = ctx;
	sm_index_t *idx = b->idx;
	const int sh = SM_HASH_BITS - b->bucket_bits;
	const uint64_t pos_mask = ((uint64_t)1 << b->pos_bits) - 1;
	int64_t kk = b->bkeys[j];

	for (int64_t t = b->bstart[j]; t < b->bstart[j + 1]; t++) {
		uint64_t wd = b->word[t];

		if (t == b->bstart[j] || wd >> b->pos_bits != b->word[t - 1] >> b->pos_bits) {
			idx->key[kk] = (uint32_t)((uint64_t)j << sh | wd >> b->pos_bits);
			idx->start[kk++] = t;
		}
		/* word[t - 1] is still compared above: rewrite it only now. */
		if (t > b->bstart[j])
			b->word[t - 1] &= pos_mask;
	}
	if (b->bstart[j + 1] > b->bstart[j])
		b->word[b->bstart[j + 1] - 1] &= pos_mask;
}

static void build_free(build_t *b)
{
	for (int t = 0; b->buf && t < b->n_threads; t++)
		free(b->buf[t]);
	for (int t = 0; b->tmp && t < b->n_threads; t++)
		free(b->tmp[t]);
	free(b->buf);
	free(b->buf_cap);
	free(b->tmp);
	free(b->count);
	free(b->cursor);
	free(b->word);
	free(b->bstart);
	free(b->bkeys);
}

sm_index_t *sm_index_build(const sm_ref_t *ref, int k, int w, int n_threads, int progress)
{
	build_t b;
	sm_index_t *idx = NULL;
	int64_t n_pos = 0, max_bucket = 0, n_key = 0;
	double t0 = sm_seconds(), t;

	memset(&b, 0, sizeof b);
	if (k < SM_INDEX_MIN_K || k > SM_INDEX_MAX_K || w < 1 || w > SM_INDEX_MAX_W) {
		sm_log(SM_LOG_ERROR, "index: k must be %d..%d and w 1..%d (got k=%d w=%d)",
		       SM_INDEX_MIN_K, SM_INDEX_MAX_K, SM_INDEX_MAX_W, k, w);
		return NULL;
	}
	b.ref = ref;
	b.k = k;
	b.w = w;
	b.n_threads = n_threads < 1 ? 1 : n_threads > SM_INDEX_MAX_THREADS ? SM_INDEX_MAX_THREADS :
		      n_threads;
	b.pos_bits = 1;
	while (b.pos_bits < 63 && ((uint64_t)1 << b.pos_bits) < (uint64_t)ref->total << 1)
		b.pos_bits++;
	b.bucket_bits = b.pos_bits - SM_HASH_BITS > SM_SORT_MIN_BUCKET_BITS ?
			b.pos_bits - SM_HASH_BITS : SM_SORT_MIN_BUCKET_BITS;
	if (b.bucket_bits > SM_SORT_MAX_BUCKET_BITS) {
		sm_log(SM_LOG_ERROR, "index: a reference of %lld bases is too long to index",
		       (long long)ref->total);
		return NULL;
	}
	b.n_bucket = (int64_t)1 << b.bucket_bits;
	b.n_piece = (ref->total + SM_PIECE - 1) / SM_PIECE;
	idx = calloc(1, sizeof *idx);
	b.count = calloc((size_t)(b.n_piece * b.n_bucket), sizeof *b.count);
	b.buf = calloc((size_t)b.n_threads, sizeof *b.buf);
	b.buf_cap = calloc((size_t)b.n_threads, sizeof *b.buf_cap);
	b.tmp = calloc((size_t)b.n_threads, sizeof *b.tmp);
	b.bstart = malloc((size_t)(b.n_bucket + 1) * sizeof *b.bstart);
	b.bkeys = malloc((size_t)(b.n_bucket + 1) * sizeof *b.bkeys);
	if (!idx || !b.count || !b.buf || !b.buf_cap || !b.tmp || !b.bstart || !b.bkeys)
		goto oom;
	idx->k = k;
	idx->w = w;
	idx->ref_len = ref->total;
	idx->n_contig = ref->n_contig;

	t = sm_seconds();
	run_jobs(b.n_threads, b.n_piece, count_job, &b);
	if (b.failed)
		goto oom;
	/* Bucket by bucket, piece by piece: each bucket in position order. */
	b.cursor = malloc((size_t)(b.n_piece * b.n_bucket) * sizeof *b.cursor);
	if (!b.cursor)
		goto oom;
	for (int64_t j = 0; j < b.n_bucket; j++) {
		b.bstart[j] = n_pos;
		for (int64_t p = 0; p < b.n_piece; p++) {
			b.cursor[p * b.n_bucket + j] = n_pos;
			n_pos += b.count[p * b.n_bucket + j];
		}
		if (n_pos - b.bstart[j] > max_bucket)
			max_bucket = n_pos - b.bstart[j];
	}
	b.bstart[b.n_bucket] = n_pos;
	free(b.count);
	b.count = NULL;
	if (progress)
		sm_log(SM_LOG_INFO, "index: %lld minimizers counted in %lld pieces (%.1f s)",
		       (long long)n_pos, (long long)b.n_piece, sm_seconds() - t);

	t = sm_seconds();
	b.word = malloc((size_t)(n_pos + 1) * sizeof *b.word);
	if (!b.word)
		goto oom;
	run_jobs(b.n_threads, b.n_piece, place_job, &b);
	free(b.cursor);
	b.cursor = NULL;
	for (int th = 0; th < b.n_threads; th++) {
		free(b.buf[th]);
		b.buf[th] = NULL;
		if (!b.failed && !(b.tmp[th] = malloc((size_t)(max_bucket + 1) * sizeof **b.tmp)))
			b.failed = 1;
	}
	if (b.failed)
		goto oom;
	run_jobs(b.n_threads, b.n_bucket, sort_job, &b);
	for (int64_t j = 0; j <= b.n_bucket; j++) {
		int64_t c = j < b.n_bucket ? b.bkeys[j] : 0;

		b.bkeys[j] = n_key;
		n_key += c;
	}
	if (progress)
		sm_log(SM_LOG_INFO, "index: minimizers placed and sorted: %lld distinct (%.1f s)",
		       (long long)n_key, sm_seconds() - t);

	idx->n_key = n_key;
	idx->key = malloc((size_t)(n_key + 1) * sizeof *idx->key);
	idx->start = malloc((size_t)(n_key + 1) * sizeof *idx->start);
	if (!idx->key || !idx->start)
		goto oom;
	b.idx = idx;
	run_jobs(b.n_threads, b.n_bucket, split_job, &b);
	idx->start[n_key] = n_pos;
	idx->pos = (int64_t *)b.word;
	b.word = NULL;
	if (bucket_alloc(idx) < 0)
		goto oom;
	if (idx->bucket)
		run_jobs(b.n_threads, key_jobs(n_key), bucket_job, idx);
	build_free(&b);
	if (progress)
		sm_log(SM_LOG_INFO, "index: built in %.1f s", sm_seconds() - t0);
	return idx;
oom:
	sm_log(SM_LOG_ERROR, "index: out of memory");
	build_free(&b);
	sm_index_destroy(idx);
	return NULL;
}

int64_t sm_index_get(const sm_index_t *idx, uint32_t h, const int64_t **pos)
{
	int64_t k = sm_index_slot(idx->key, idx->n_key, idx->bucket, idx->bucket_bits, h);

	if (k < 0)
		return 0;
	*pos = idx->pos + idx->start[k];
	return idx->start[k + 1] - idx->start[k];
}

void sm_index_get_many(const sm_index_t *idx, int64_t n, const sm_mini_t *m, int64_t *occ,
		       const int64_t **pos)
{
	const int sh = SM_HASH_BITS - idx->bucket_bits;

	if (!idx->bucket) {
		for (int64_t t = 0; t < n; t++)
			occ[t] = sm_index_get(idx, m[t].hash, &pos[t]);
		return;
	}
	/* occ[t] holds the key index found so far, -1 for none. */
	for (int64_t t = 0; t < n; t++)
		__builtin_prefetch(&idx->bucket[m[t].hash >> sh]);
	for (int64_t t = 0; t < n; t++) {
		occ[t] = idx->bucket[m[t].hash >> sh];
		__builtin_prefetch(&idx->key[occ[t]]);
	}
	for (int64_t t = 0; t < n; t++) {
		int64_t lo = occ[t], hi = idx->bucket[(m[t].hash >> sh) + 1];

		while (lo < hi && idx->key[lo] < m[t].hash)
			lo++;
		occ[t] = lo < hi && idx->key[lo] == m[t].hash ? lo : -1;
		if (occ[t] >= 0)
			__builtin_prefetch(&idx->start[lo]);
	}
	for (int64_t t = 0; t < n; t++) {
		int64_t k = occ[t];

		occ[t] = 0;
		if (k < 0)
			continue;
		pos[t] = idx->pos + idx->start[k];
		occ[t] = idx->start[k + 1] - idx->start[k];
		__builtin_prefetch(pos[t]);
	}
}

/* ---- the checksum ---- */

/* A byte range is summed by SM_SUM_LANES independent chains over its
 * 64-bit little-endian words: of each group of SM_SUM_WORDS words (the
 * last one padded with zeros, and added even when empty), words l and l +
 * SM_SUM_LANES go to chain l, whose step h -> rotl((h ^ a) * odd + b, r)
 * takes both; then the chains and the length are folded into one value by
 * h -> rotl((h ^ w) * odd, r).  Each step is a bijection of h, and of each
 * word, for the others fixed, so a change confined to one word (any number
 * of flipped bits in it) always changes the range's sum.  Independent
 * chains and one multiplication per two words let one core sum faster than
 * it reads memory, with room left for the checks that run in the same loops
 * (the load's pass below).
 *
 * The file's checksums (index.h): the header's and each of the reference's
 * sections' (lengths, names, ambiguity runs, base codes) are
 * sm_index_checksum(), which sums blocks of SM_INDEX_SUM_BLOCK bytes and
 * folds the block sums in order.  The key, offset and position sections
 * are summed per job of SM_INDEX_KEY_BLOCK keys instead, so that the job
 * that checks those keys, their offsets and their positions sums them in
 * the same pass: block j of the keys is key[t0..t1) (t0 = j *
 * SM_INDEX_KEY_BLOCK, t1 the next job's t0 or n_key), of the offsets
 * start[t0..t1) and, in the last block, start[n_key], of the positions
 * pos[start[t0]..start[t1]) (nothing when those offsets are not 0 <=
 * start[t0] <= start[t1] <= n_pos).  Each section's block sums are folded
 * in order as sm_index_checksum() folds its blocks. */
#define SM_INDEX_SUM_BLOCK ((size_t)1 << 20)
#define SM_SUM_LANES 8
#define SM_SUM_WORDS (2 * SM_SUM_LANES)   /* words per group: two per step of a chain */
#define SM_SUM_GROUP (SM_SUM_WORDS * 8)   /* bytes per group */
#define SM_SUM_MUL 0x9E3779B97F4A7C15ull
#define SM_SUM_SEED 0xC2B2AE3D27D4EB4Full
#define SM_SUM_ROT 29

/* One step of the fold: h -> rotl((h ^ w) * odd, r). */
static inline uint64_t sum_step(uint64_t h, uint64_t w)
{
	h = (h ^ w) * SM_SUM_MUL;
	return h << SM_SUM_ROT | h >> (64 - SM_SUM_ROT);
}

/* A chain's step over two words: h -> rotl((h ^ a) * odd + b, r). */
static inline uint64_t chain_step(uint64_t h, uint64_t a, uint64_t b)
{
	h = (h ^ a) * SM_SUM_MUL + b;
	return h << SM_SUM_ROT | h >> (64 - SM_SUM_ROT);
}

static inline void lanes_init(uint64_t h[SM_SUM_LANES])
{
#pragma GCC unroll 16
	for (int l = 0; l < SM_SUM_LANES; l++)
		h[l] = (uint64_t)(l + 1) * SM_SUM_SEED;
}

/* Word i of the group at p (the file is little-endian, as x86).  The
 * loops below read a group's words where they are: copied into an array
 * first, they went through the stack (16-byte stores read back as 8-byte
 * loads), which halved the sums' speed. */
static inline uint64_t word_at(const void *p, int i)
{
	uint64_t x;

	memcpy(&x, (const uint8_t *)p + 8 * i, sizeof x);
	return x;
}

/* Adds the group of words at p: words l and l + SM_SUM_LANES go to chain
 * l.  (The loops over lanes and words are unrolled so that GCC keeps them
 * in registers.) */
static inline void lanes_add(uint64_t h[SM_SUM_LANES], const void *p)
{
#pragma GCC unroll 16
	for (int l = 0; l < SM_SUM_LANES; l++)
		h[l] = chain_step(h[l], word_at(p, l), word_at(p, l + SM_SUM_LANES));
}

/* The sum of n bytes whose whole groups were added to h, the rest (n %
 * SM_SUM_GROUP bytes) being at tail. */
static inline uint64_t lanes_end(uint64_t h[SM_SUM_LANES], const uint8_t *tail, size_t n)
{
	uint64_t w[SM_SUM_WORDS] = { 0 }, s = n;

	memcpy(w, tail, n % SM_SUM_GROUP);
	lanes_add(h, w);
#pragma GCC unroll 16
	for (int l = 0; l < SM_SUM_LANES; l++)
		s = sum_step(s, h[l]);
	return s;
}

/* The sum of p[0..n). */
static uint64_t range_sum(const uint8_t *p, size_t n)
{
	uint64_t h[SM_SUM_LANES];
	size_t g = n / SM_SUM_GROUP;

	lanes_init(h);
	for (size_t b = 0; b < g; b++)
		lanes_add(h, p + b * SM_SUM_GROUP);
	return lanes_end(h, p + g * SM_SUM_GROUP, n);
}

static size_t n_blocks(size_t n)
{
	return (n + SM_INDEX_SUM_BLOCK - 1) / SM_INDEX_SUM_BLOCK;
}

/* The sum of n bytes from its block sums bs[0..n_bs), in order. */
static uint64_t fold_sums(const uint64_t *bs, size_t n_bs, size_t n)
{
	uint64_t h = sum_step(SM_SUM_SEED, n);

	for (size_t b = 0; b < n_bs; b++)
		h = sum_step(h, bs[b]);
	return h;
}

uint64_t sm_index_checksum(const void *data, size_t n)
{
	uint64_t h = sum_step(SM_SUM_SEED, n);
	const uint8_t *p = data;

	for (size_t at = 0; at < n; at += SM_INDEX_SUM_BLOCK)
		h = sum_step(h, range_sum(p + at, n - at < SM_INDEX_SUM_BLOCK ? n - at :
					  SM_INDEX_SUM_BLOCK));
	return h;
}

/* ---- the file's layout (index.h) ---- */

static int64_t pad8(int64_t n)
{
	return (n + 7) & ~(int64_t)7;
}

/* Bytes of each section (unpadded) of a file with header h. */
static void section_sizes(const sm_index_head_t *h, int64_t size[SM_SEC_N])
{
	size[SM_SEC_LEN] = h->n_contig * (int64_t)sizeof(int64_t);
	size[SM_SEC_NAME] = h->names_len;
	size[SM_SEC_AMB] = h->n_amb * (int64_t)sizeof(sm_index_amb_t);
	size[SM_SEC_SEQ] = h->ref_len;
	size[SM_SEC_KEY] = h->n_key * (int64_t)sizeof(uint32_t);
	size[SM_SEC_START] = (h->n_key + 1) * (int64_t)sizeof(int64_t);
	size[SM_SEC_POS] = h->n_pos * (int64_t)sizeof(int64_t);
}

/* No count may be negative or above this (2^48): the sizes cannot overflow. */
#define SM_INDEX_MAX_COUNT ((int64_t)1 << 48)

int sm_index_layout(const sm_index_head_t *h, int64_t off[SM_SEC_N + 1])
{
	const int64_t count[] = { h->ref_len, h->n_contig, h->names_len, h->n_amb, h->n_key,
				  h->n_pos };
	int64_t size[SM_SEC_N];

	for (size_t c = 0; c < sizeof count / sizeof *count; c++)
		if (count[c] < 0 || count[c] > SM_INDEX_MAX_COUNT)
			return -1;
	section_sizes(h, size);
	off[0] = pad8((int64_t)sizeof *h);
	for (int s = 0; s < SM_SEC_N; s++)
		off[s + 1] = off[s] + pad8(size[s]);
	return 0;
}

/* One pass over a file image (or, when saving, the arrays it is written
 * from): every section's block sums (see "the checksum") and, with check,
 * the structure of the keys, offsets and positions and the bucket table,
 * in the same jobs: the reference's blocks (the base codes checked while
 * they are summed), then one job per SM_INDEX_KEY_BLOCK keys.  What a job
 * reads after summing it is still in its core's cache, so the file is read
 * from memory once. */
enum { KEY_OK, KEY_ORDER, KEY_OFFSET, KEY_POS };

typedef struct {
	const uint8_t *base[SM_SEC_N];   /* each section's bytes */
	int64_t size[SM_SEC_N];
	int64_t n_key, n_pos, ref_len;
	int check;
	int checks_only;                 /* 1: the checks alone, no sums (with check) */
	int portable;                    /* 1: pass_job even where pass_job_avx2 runs */
	sm_index_t *idx;                 /* with check: its bucket table is filled */
	size_t first[SM_SEC_N + 1];      /* each section's first block among all */
	int64_t n_ref_jobs, n_kj;        /* jobs over the reference's blocks, over keys */
	uint64_t *bs;                    /* the block sums */
	int *seq_bad;                    /* with check, per job: a base code above SM_BASE_N */
	/* With check, per key job: the first key at fault (or -1), what is
	 * wrong with it and, for KEY_POS, the position's rank within it. */
	int64_t *bad, *bad_pos;
	uint8_t *what;
} pass_t;

/* Sets the block counts of s (base, size, the counts and check set) and
 * allocates its arrays: 0, or -1 when out of memory. */
static int pass_init(pass_t *s)
{
	s->n_kj = key_jobs(s->n_key);
	s->first[0] = 0;
	for (int c = 0; c < SM_SEC_N; c++)
		s->first[c + 1] = s->first[c] + (c < SM_SEC_KEY ? n_blocks((size_t)s->size[c]) :
						 (size_t)s->n_kj);
	s->n_ref_jobs = (int64_t)s->first[SM_SEC_KEY];
	s->bs = calloc(s->first[SM_SEC_N] + 1, sizeof *s->bs);
	if (!s->bs)
		return -1;
	if (!s->check)
		return 0;
	s->seq_bad = calloc((size_t)s->n_ref_jobs + 1, sizeof *s->seq_bad);
	s->bad = malloc((size_t)s->n_kj * sizeof *s->bad);
	s->bad_pos = calloc((size_t)s->n_kj, sizeof *s->bad_pos);
	s->what = calloc((size_t)s->n_kj, 1);
	return s->seq_bad && s->bad && s->bad_pos && s->what ? 0 : -1;
}

static void pass_free(pass_t *s)
{
	free(s->bs);
	free(s->seq_bad);
	free(s->bad);
	free(s->bad_pos);
	free(s->what);
}

static uint64_t section_sum(const pass_t *s, int c)
{
	return fold_sums(s->bs + s->first[c], s->first[c + 1] - s->first[c], (size_t)s->size[c]);
}

/* The first fault among keys t0..t1, for the message: the checks of
 * key_job one key at a time, in order, as slowly as that is. */
static void explain_keys(pass_t *s, int64_t j, int64_t t0, int64_t t1)
{
	const uint32_t *key = (const uint32_t *)s->base[SM_SEC_KEY];
	const int64_t *start = (const int64_t *)s->base[SM_SEC_START];
	const int64_t *pos = (const int64_t *)s->base[SM_SEC_POS];

	for (int64_t t = t0; t < t1; t++) {
		int64_t s0 = start[t], s1 = start[t + 1];

		if (t > 0 && key[t] <= key[t - 1]) {
			s->bad[j] = t, s->what[j] = KEY_ORDER;
			return;
		}
		if (s1 <= s0 || s1 > s->n_pos || s0 < 0) {
			s->bad[j] = t, s->what[j] = KEY_OFFSET;
			return;
		}
		for (int64_t i = s0; i < s1; i++) {
			int64_t g = pos[i] >> 1;

			if (pos[i] < 0 || g >= s->ref_len || (i > s0 && g <= pos[i - 1] >> 1)) {
				s->bad[j] = t, s->what[j] = KEY_POS, s->bad_pos[j] = i - s0;
				return;
			}
		}
	}
	/* Only the offsets around an empty job (no keys) can get here. */
	s->bad[j] = t0, s->what[j] = KEY_OFFSET;
}

/* The pass's jobs (index_impl.h): pass_job and, where the compiler can
 * build it, pass_job_avx2, which pass_run takes on a CPU with AVX2.  The
 * sums there take `sum`, a constant where they are inlined: 0 runs their
 * checks alone (SM_INDEX_VERIFY_STRUCTURE, index.h), leaving the value
 * they return meaningless. */
#define SUM_INLINE static inline __attribute__((always_inline))
#define PASS_FN(f) f
#define PASS_AVX2 0
#include "mapper/index_impl.h"
#undef PASS_FN
#undef PASS_AVX2
#if SM_INDEX_AVX2
#pragma GCC push_options
#pragma GCC target("avx2")
#define PASS_FN(f) f##_avx2
#define PASS_AVX2 1
#include "mapper/index_impl.h"
#undef PASS_FN
#undef PASS_AVX2
#pragma GCC pop_options
#endif

/* Runs the pass over s's sections with n_threads threads: 0, or -1 when out
 * of memory. */
static int pass_run(pass_t *s, int n_threads)
{
	if (pass_init(s) < 0)
		return -1;
#if SM_INDEX_AVX2
	if (!s->portable && __builtin_cpu_supports("avx2")) {
		run_jobs(n_threads, s->n_ref_jobs + s->n_kj, pass_job_avx2, s);
		return 0;
	}
#endif
	run_jobs(n_threads, s->n_ref_jobs + s->n_kj, pass_job, s);
	return 0;
}

static uint64_t head_sum(const sm_index_head_t *h)
{
	return sm_index_checksum(h, offsetof(sm_index_head_t, head_sum));
}

/* ---- saving ---- */

/* Writes n bytes and the zeros that pad them to a multiple of 8.  Returns 0
 * or -1 (errno set). */
static int put(FILE *fp, const void *data, int64_t n)
{
	static const uint8_t zero[8];

	if (n && fwrite(data, 1, (size_t)n, fp) != (size_t)n)
		return -1;
	if (pad8(n) > n && fwrite(zero, 1, (size_t)(pad8(n) - n), fp) != (size_t)(pad8(n) - n))
		return -1;
	return 0;
}

int sm_index_save(const sm_index_t *idx, const sm_ref_t *ref, const char *path, int n_threads)
{
	sm_outfile_t out;
	FILE *fp = NULL;
	int fd = -1;
	sm_index_head_t h;
	pass_t s;
	char *names = NULL;
	sm_index_amb_t *amb = NULL;
	int64_t at = 0;
	int ok = 0;

	memset(&h, 0, sizeof h);
	memset(&s, 0, sizeof s);
	memcpy(h.magic, index_magic, sizeof h.magic);
	h.version = SM_INDEX_VERSION;
	h.k = idx->k;
	h.w = idx->w;
	h.ref_len = ref->total;
	h.n_contig = ref->n_contig;
	h.n_amb = ref->n_amb;
	h.n_key = idx->n_key;
	h.n_pos = idx->start[idx->n_key];
	h.fasta_size = ref->file_size;
	h.fasta_mtime_s = ref->file_mtime_s;
	h.fasta_mtime_ns = ref->file_mtime_ns;
	for (int32_t c = 0; c < ref->n_contig; c++)
		h.names_len += (int64_t)strlen(ref->name[c]) + 1;
	names = malloc((size_t)h.names_len + 1);
	amb = malloc(((size_t)ref->n_amb + 1) * sizeof *amb);
	if (!names || !amb) {
		sm_log(SM_LOG_ERROR, "%s: out of memory writing the index", path);
		goto out;
	}
	for (int32_t c = 0; c < ref->n_contig; c++) {
		size_t l = strlen(ref->name[c]) + 1;

		memcpy(names + at, ref->name[c], l);
		at += (int64_t)l;
	}
	for (int32_t r = 0; r < ref->n_amb; r++)
		amb[r] = (sm_index_amb_t){ ref->amb[r].start, ref->amb[r].len, ref->amb[r].base };
	s.base[SM_SEC_LEN] = (const uint8_t *)ref->len;
	s.base[SM_SEC_NAME] = (const uint8_t *)names;
	s.base[SM_SEC_AMB] = (const uint8_t *)amb;
	s.base[SM_SEC_SEQ] = ref->seq;
	s.base[SM_SEC_KEY] = (const uint8_t *)idx->key;
	s.base[SM_SEC_START] = (const uint8_t *)idx->start;
	s.base[SM_SEC_POS] = (const uint8_t *)idx->pos;
	section_sizes(&h, s.size);
	s.n_key = h.n_key;
	s.n_pos = h.n_pos;
	s.ref_len = h.ref_len;
	if (pass_run(&s, n_threads) < 0) {
		sm_log(SM_LOG_ERROR, "%s: out of memory writing the index", path);
		goto out;
	}
	for (int c = 0; c < SM_SEC_N; c++)
		h.sum[c] = section_sum(&s, c);
	h.head_sum = head_sum(&h);

	if (sm_outfile_begin(&out, path) < 0)
		goto out;
	/* Opened without O_TRUNC (the temporary file is new): on ext4 a
	 * truncated file is written out whole at close (auto_da_alloc). */
	if ((fd = open(sm_outfile_name(&out), O_WRONLY | O_CREAT, 0666)) < 0 ||
	    !(fp = fdopen(fd, "wb"))) {
		sm_log(SM_LOG_ERROR, "%s: cannot write the index: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		sm_outfile_discard(&out);
		goto out;
	}
	ok = put(fp, &h, sizeof h) == 0;
	for (int c = 0; ok && c < SM_SEC_N; c++)
		ok = put(fp, s.base[c], s.size[c]) == 0;
	if (fclose(fp) != 0)
		ok = 0;
	if (!ok) {
		sm_log(SM_LOG_ERROR, "%s: writing the index failed: %s", path, strerror(errno));
		sm_outfile_discard(&out);
		goto out;
	}
	ok = sm_outfile_commit(&out) == 0;
out:
	free(names);
	free(amb);
	pass_free(&s);
	return ok ? 0 : -1;
}

int sm_index_seal(uint8_t *data, size_t n)
{
	sm_index_head_t h;
	int64_t off[SM_SEC_N + 1];
	pass_t s;

	if (n < sizeof h)
		return -1;
	memcpy(&h, data, sizeof h);
	if (sm_index_layout(&h, off) < 0 || off[SM_SEC_N] != (int64_t)n)
		return -1;
	memset(&s, 0, sizeof s);
	section_sizes(&h, s.size);
	for (int c = 0; c < SM_SEC_N; c++)
		s.base[c] = data + off[c];
	s.n_key = h.n_key;
	s.n_pos = h.n_pos;
	s.ref_len = h.ref_len;
	if (pass_run(&s, 1) < 0) {
		pass_free(&s);
		return -1;
	}
	for (int c = 0; c < SM_SEC_N; c++)
		h.sum[c] = section_sum(&s, c);
	h.head_sum = head_sum(&h);
	memcpy(data, &h, sizeof h);
	pass_free(&s);
	return 0;
}

/* ---- loading ---- */

void sm_index_load_opt_init(sm_index_load_opt_t *o)
{
	memset(o, 0, sizeof o[0]);
	o->n_threads = 1;
	o->verify = 1;
}

/* The small sections: contig lengths adding up to the reference, n_contig
 * non-empty names, ambiguity runs in order inside the reference.  Returns 0
 * or -1 after logging. */
static int check_ref_sections(const char *path, const sm_index_head_t *h, const uint8_t *map,
			      const int64_t off[SM_SEC_N + 1])
{
	const int64_t *len = (const int64_t *)(map + off[SM_SEC_LEN]);
	const char *names = (const char *)(map + off[SM_SEC_NAME]);
	const sm_index_amb_t *amb = (const sm_index_amb_t *)(map + off[SM_SEC_AMB]);
	int64_t total = 0, n_names = 0, last_end = 0;

	for (int64_t c = 0; c < h->n_contig; c++) {
		if (len[c] <= 0 || len[c] > h->ref_len - total) {
			sm_log(SM_LOG_ERROR, "%s: corrupt index: the contig lengths do not add up to "
			       "its %lld-base reference", path, (long long)h->ref_len);
			return -1;
		}
		total += len[c];
	}
	for (int64_t i = 0; i < h->names_len; i++)
		if (names[i] == '\0') {
			if (i == 0 || names[i - 1] == '\0')
				break;
			n_names++;
		}
	if (total != h->ref_len || n_names != h->n_contig ||
	    (h->names_len && names[h->names_len - 1] != '\0')) {
		sm_log(SM_LOG_ERROR, "%s: corrupt index: its contig table does not match its "
		       "%lld contigs of %lld bases", path, (long long)h->n_contig,
		       (long long)h->ref_len);
		return -1;
	}
	for (int64_t r = 0; r < h->n_amb; r++) {
		if (amb[r].start < last_end || amb[r].len <= 0 ||
		    amb[r].len > h->ref_len - amb[r].start || amb[r].base < 'A' || amb[r].base > 'Z') {
			sm_log(SM_LOG_ERROR, "%s: corrupt index: ambiguity run %lld is out of order "
			       "or outside the reference", path, (long long)r);
			return -1;
		}
		last_end = amb[r].start + amb[r].len;
	}
	return 0;
}

/* The reference the index holds; its bases are the mapping's.  NULL when
 * out of memory. */
static sm_ref_t *ref_of_map(const sm_index_head_t *h, const uint8_t *map,
			    const int64_t off[SM_SEC_N + 1], const char *path)
{
	sm_ref_t *ref = calloc(1, sizeof *ref);
	const char *name = (const char *)(map + off[SM_SEC_NAME]);
	const sm_index_amb_t *amb = (const sm_index_amb_t *)(map + off[SM_SEC_AMB]);

	if (!ref)
		return NULL;
	ref->n_contig = (int32_t)h->n_contig;
	ref->total = h->ref_len;
	ref->seq = (uint8_t *)(map + off[SM_SEC_SEQ]);
	ref->seq_borrowed = 1;
	ref->n_amb = (int32_t)h->n_amb;
	ref->file_size = h->fasta_size;
	ref->file_mtime_s = h->fasta_mtime_s;
	ref->file_mtime_ns = h->fasta_mtime_ns;
	ref->name = calloc((size_t)h->n_contig + 1, sizeof *ref->name);
	ref->len = malloc(((size_t)h->n_contig + 1) * sizeof *ref->len);
	ref->offset = malloc(((size_t)h->n_contig + 1) * sizeof *ref->offset);
	ref->amb = malloc(((size_t)h->n_amb + 1) * sizeof *ref->amb);
	ref->path = strdup(path);
	if (!ref->name || !ref->len || !ref->offset || !ref->amb || !ref->path)
		goto oom;
	memcpy(ref->len, map + off[SM_SEC_LEN], (size_t)h->n_contig * sizeof *ref->len);
	for (int32_t c = 0; c < ref->n_contig; c++) {
		ref->offset[c] = c ? ref->offset[c - 1] + ref->len[c - 1] : 0;
		if (!(ref->name[c] = strdup(name)))
			goto oom;
		name += strlen(name) + 1;
	}
	for (int32_t r = 0; r < ref->n_amb; r++)
		ref->amb[r] = (sm_amb_run_t){ amb[r].start, amb[r].len, (char)amb[r].base };
	return ref;
oom:
	sm_ref_destroy(ref);
	return NULL;
}

/* 1 when a and b hold the same contigs, bases and ambiguity letters. */
static int same_ref(const sm_ref_t *a, const sm_ref_t *b)
{
	if (a->n_contig != b->n_contig || a->total != b->total || a->n_amb != b->n_amb ||
	    memcmp(a->len, b->len, (size_t)a->n_contig * sizeof *a->len) != 0 ||
	    memcmp(a->seq, b->seq, (size_t)a->total) != 0)
		return 0;
	for (int32_t c = 0; c < a->n_contig; c++)
		if (strcmp(a->name[c], b->name[c]) != 0)
			return 0;
	for (int32_t r = 0; r < a->n_amb; r++)
		if (a->amb[r].start != b->amb[r].start || a->amb[r].len != b->amb[r].len ||
		    a->amb[r].base != b->amb[r].base)
			return 0;
	return 1;
}

/* Whether the index's reference is that of the FASTA at fasta: by size and
 * time, else by contents (a copy that did not keep the time).  Returns 0,
 * or -1 after logging. */
static int check_fasta(const char *path, const char *fasta, const sm_index_head_t *h,
		       const sm_ref_t *mine)
{
	int64_t size, mt_s, mt_ns;
	sm_ref_t *theirs = NULL;
	double t0 = sm_seconds();
	int same;

	if (sm_ref_file_stamp(fasta, &size, &mt_s, &mt_ns) < 0) {
		sm_log(SM_LOG_INFO, "%s: %s: the reference held in the index is used", fasta,
		       strerror(errno));
		return 0;
	}
	if (h->fasta_size == size && h->fasta_mtime_s == mt_s && h->fasta_mtime_ns == mt_ns)
		return 0;
	if (h->fasta_size != size && h->fasta_size != 0) {
		sm_log(SM_LOG_ERROR, "%s: the index was built from another reference than %s "
		       "(a file of %lld bytes; it has %lld): rebuild it with 'scanmap index'", path,
		       fasta, (long long)h->fasta_size, (long long)size);
		return -1;
	}
	if (sm_ref_load(fasta, &theirs) < 0)
		return -1;
	same = same_ref(mine, theirs);
	sm_ref_destroy(theirs);
	if (!same) {
		sm_log(SM_LOG_ERROR, "%s: the index was built from another reference than %s: "
		       "rebuild it with 'scanmap index'", path, fasta);
		return -1;
	}
	sm_log(SM_LOG_INFO, "%s: %s has another modification time than the index records; "
	       "its contents match (compared in %.1f s; rebuilding the index skips this)", path,
	       fasta, sm_seconds() - t0);
	return 0;
}

sm_index_t *sm_index_load(const char *path, const sm_index_load_opt_t *opt_in, sm_ref_t **ref_out)
{
	sm_index_load_opt_t opt;
	sm_index_head_t h;
	int64_t off[SM_SEC_N + 1];
	sm_index_t *idx = NULL;
	sm_ref_t *ref = NULL;
	pass_t s;
	struct stat st;
	uint8_t *map = NULL;
	ssize_t got;
	int fd;

	if (opt_in)
		opt = *opt_in;
	else
		sm_index_load_opt_init(&opt);
	if (ref_out)
		*ref_out = NULL;
	memset(&s, 0, sizeof s);
	memset(&h, 0, sizeof h);
	if ((fd = open(path, O_RDONLY)) < 0) {
		sm_log(SM_LOG_ERROR, "%s: cannot open the index: %s", path, strerror(errno));
		return NULL;
	}
	got = pread(fd, &h, sizeof h, 0);
	if (got < (ssize_t)SM_INDEX_PREFIX || memcmp(h.magic, index_magic, sizeof h.magic) != 0) {
		sm_log(SM_LOG_ERROR, "%s: not a scanmap index", path);
		goto fail;
	}
	if (h.version != SM_INDEX_VERSION) {
		sm_log(SM_LOG_ERROR, "%s: index version %d, this scanmap reads version %d: "
		       "rebuild it with 'scanmap index'", path, h.version, SM_INDEX_VERSION);
		goto fail;
	}
	if (fstat(fd, &st) != 0 || got < (ssize_t)sizeof h) {
		sm_log(SM_LOG_ERROR, "%s: truncated or corrupt index header", path);
		goto fail;
	}
	if (head_sum(&h) != h.head_sum) {
		sm_log(SM_LOG_ERROR, "%s: corrupt index: its checksum does not match its contents "
		       "(damaged in storage or in a copy): rebuild it with 'scanmap index'", path);
		goto fail;
	}
	/* The sizes must agree with the file's before anything is mapped. */
	if (sm_index_layout(&h, off) < 0 || off[SM_SEC_N] != (int64_t)st.st_size) {
		sm_log(SM_LOG_ERROR, "%s: truncated or corrupt index: %lld bytes, not what its "
		       "header's counts (%lld keys, %lld positions) need", path,
		       (long long)st.st_size, (long long)h.n_key, (long long)h.n_pos);
		goto fail;
	}
	if (h.k < SM_INDEX_MIN_K || h.k > SM_INDEX_MAX_K || h.w < 1 || h.w > SM_INDEX_MAX_W ||
	    h.zero[0] || h.zero[1] || h.n_contig < 1 || h.n_contig > INT32_MAX ||
	    h.n_amb > INT32_MAX || h.n_pos < h.n_key || h.ref_len < 1) {
		sm_log(SM_LOG_ERROR, "%s: corrupt index header: k=%d w=%d (k must be %d..%d, "
		       "w 1..%d), %lld contigs", path, h.k, h.w, SM_INDEX_MIN_K, SM_INDEX_MAX_K,
		       SM_INDEX_MAX_W, (long long)h.n_contig);
		goto fail;
	}
	/* A FASTA of another size fails before the mapping. */
	if (opt.fasta_path) {
		int64_t size, mt_s, mt_ns;

		if (sm_ref_file_stamp(opt.fasta_path, &size, &mt_s, &mt_ns) == 0 &&
		    h.fasta_size != 0 && size != h.fasta_size && check_fasta(path, opt.fasta_path,
									     &h, NULL) < 0)
			goto fail;
	}
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED) {
		map = NULL;
		sm_log(SM_LOG_ERROR, "%s: cannot map the index: %s", path, strerror(errno));
		goto fail;
	}
	close(fd);
	fd = -1;
	/* The pages are read in by the checks' threads; unchecked, ask the
	 * kernel to read ahead. */
	if (!opt.verify)
		madvise(map, (size_t)st.st_size, MADV_WILLNEED);
	idx = calloc(1, sizeof *idx);
	if (!idx)
		goto oom;
	idx->map = map;
	idx->map_len = (size_t)st.st_size;
	map = NULL;
	idx->k = h.k;
	idx->w = h.w;
	idx->ref_len = h.ref_len;
	idx->n_contig = (int32_t)h.n_contig;
	idx->n_key = h.n_key;
	idx->key = (uint32_t *)((uint8_t *)idx->map + off[SM_SEC_KEY]);
	idx->start = (int64_t *)((uint8_t *)idx->map + off[SM_SEC_START]);
	idx->pos = (int64_t *)((uint8_t *)idx->map + off[SM_SEC_POS]);
	if (bucket_alloc(idx) < 0)
		goto oom;
	if (opt.verify) {
		const uint8_t *m = idx->map;
		int64_t first_bad = -1, j_bad = 0;
		int bad_seq = 0;

		section_sizes(&h, s.size);
		for (int c = 0; c < SM_SEC_N; c++)
			s.base[c] = m + off[c];
		s.n_key = h.n_key;
		s.n_pos = h.n_pos;
		s.ref_len = h.ref_len;
		s.check = 1;
		s.checks_only = opt.verify == SM_INDEX_VERIFY_STRUCTURE;
		s.portable = opt.portable;
		s.idx = idx;
		if (pass_run(&s, opt.n_threads) < 0)
			goto oom;
		/* The checksums first: a structural fault in a damaged file is
		 * reported as the damage. */
		for (int c = 0; c < SM_SEC_N; c++) {
			int pad_ok = 1;

			for (int64_t i = off[c] + s.size[c]; i < off[c + 1]; i++)
				pad_ok &= m[i] == 0;
			if ((!s.checks_only && section_sum(&s, c) != h.sum[c]) || !pad_ok) {
				sm_log(SM_LOG_ERROR, "%s: corrupt index: its checksum does not match "
				       "its contents (damaged in storage or in a copy): rebuild it "
				       "with 'scanmap index'", path);
				goto fail;
			}
		}
		for (int64_t j = 0; j < s.n_ref_jobs; j++)
			bad_seq |= s.seq_bad[j];
		if (bad_seq) {
			sm_log(SM_LOG_ERROR, "%s: corrupt index: its reference holds a base code "
			       "above %d", path, SM_BASE_N);
			goto fail;
		}
		if (check_ref_sections(path, &h, m, off) < 0)
			goto fail;
		if (idx->start[0] != 0 || idx->start[h.n_key] != h.n_pos) {
			sm_log(SM_LOG_ERROR, "%s: corrupt index: the offsets run from %lld to %lld, "
			       "not from 0 (the first offset) to the %lld positions", path,
			       (long long)idx->start[0], (long long)idx->start[h.n_key],
			       (long long)h.n_pos);
			goto fail;
		}
		for (int64_t j = 0; j < s.n_kj && first_bad < 0; j++)
			if (s.bad[j] >= 0)
				first_bad = s.bad[j], j_bad = j;
		if (first_bad >= 0) {
			int64_t t = first_bad;

			if (s.what[j_bad] == KEY_ORDER)
				sm_log(SM_LOG_ERROR, "%s: corrupt index: key %lld is not above the key "
				       "before it", path, (long long)t);
			else if (s.what[j_bad] == KEY_OFFSET)
				sm_log(SM_LOG_ERROR, "%s: corrupt index: offset %lld (%lld) does not "
				       "increase within 0..%lld", path, (long long)t + 1,
				       (long long)idx->start[t + 1], (long long)h.n_pos);
			else
				sm_log(SM_LOG_ERROR, "%s: corrupt index: position %lld of key %lld is "
				       "out of order or outside the %lld-base reference", path,
				       (long long)s.bad_pos[j_bad], (long long)t, (long long)h.ref_len);
			goto fail;
		}
	} else if (idx->bucket) {
		run_jobs(opt.n_threads, key_jobs(h.n_key), bucket_job, idx);
	}
	if (!(ref = ref_of_map(&h, idx->map, off, opt.fasta_path ? opt.fasta_path : path)))
		goto oom;
	if (opt.fasta_path && check_fasta(path, opt.fasta_path, &h, ref) < 0)
		goto fail;
	pass_free(&s);
	if (ref_out)
		*ref_out = ref;
	else
		sm_ref_destroy(ref);
	return idx;
oom:
	sm_log(SM_LOG_ERROR, "%s: out of memory loading the index", path);
fail:
	if (fd >= 0)
		close(fd);
	if (map)
		munmap(map, (size_t)st.st_size);
	pass_free(&s);
	sm_ref_destroy(ref);
	sm_index_destroy(idx);
	return NULL;
}

char *sm_index_path(const char *ref_path)
{
	size_t l = strlen(ref_path);
	char *path = malloc(l + sizeof SM_INDEX_SUFFIX);

	if (!path) {
		sm_log(SM_LOG_ERROR, "out of memory");
		return NULL;
	}
	memcpy(path, ref_path, l);
	memcpy(path + l, SM_INDEX_SUFFIX, sizeof SM_INDEX_SUFFIX);
	return path;
}
