/* index.c — minimizer index: build, save, load, query (see index.h). */
#include "mapper/index.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "io/log.h"
#include "io/outfile.h"
#include "mapper/score.h"

static const char index_magic[5] = { 'S', 'M', 'I', 'D', 'X' };

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
	int64_t n_out = 0, last_pos = -1, filled = 0;

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
		win[(filled - k) % w] = m;
		if (filled - k + 1 < w)
			continue;
		/* The window's smallest hash; ties go to the leftmost k-mer. */
		const sm_mini_t *best = NULL;
		for (int t = 0; t < w; t++) {
			const sm_mini_t *x = &win[t];
			if (!best || x->hash < best->hash ||
			    (x->hash == best->hash && x->pos < best->pos))
				best = x;
		}
		if (best->pos == last_pos)
			continue;
		if (n_out == *cap) {
			int64_t nc = *cap ? 2 * *cap : 1024;
			sm_mini_t *p = realloc(*out, (size_t)nc * sizeof *p);
			if (!p)
				return -1;
			*out = p;
			*cap = nc;
		}
		(*out)[n_out++] = *best;
		last_pos = best->pos;
	}
	return n_out;
}

uint64_t sm_ref_checksum(const sm_ref_t *ref)
{
	uint64_t h = 1469598103934665603ull;

	for (int64_t i = 0; i < ref->total; i++)
		h = (h ^ ref->seq[i]) * 1099511628211ull;
	for (int32_t c = 0; c < ref->n_contig; c++)
		h = (h ^ (uint64_t)ref->len[c]) * 1099511628211ull;
	return h;
}

static int cmp_mini(const void *a, const void *b)
{
	const sm_mini_t *x = a, *y = b;

	if (x->hash != y->hash)
		return x->hash < y->hash ? -1 : 1;
	return (x->pos > y->pos) - (x->pos < y->pos);
}

void sm_index_destroy(sm_index_t *idx)
{
	if (!idx)
		return;
	free(idx->key);
	free(idx->start);
	free(idx->pos);
	free(idx->bucket);
	free(idx);
}

/* Builds idx->bucket from the sorted keys.  Returns 0 or -1 when out of
 * memory; leaves it NULL (binary search) for more than 2^32 - 1 keys. */
static int index_buckets(sm_index_t *idx)
{
	int bits = SM_BUCKET_MIN_BITS;
	int64_t k = 0;

	if (idx->n_key > (int64_t)UINT32_MAX)
		return 0;
	while (bits < SM_HASH_BITS && ((int64_t)SM_BUCKET_KEYS << bits) < idx->n_key)
		bits++;
	idx->bucket = malloc((((size_t)1 << bits) + 1) * sizeof *idx->bucket);
	if (!idx->bucket)
		return -1;
	idx->bucket_bits = bits;
	for (uint64_t b = 0; b <= (uint64_t)1 << bits; b++) {
		/* First key whose top bits are >= b. */
		while (k < idx->n_key && (uint64_t)(idx->key[k] >> (SM_HASH_BITS - bits)) < b)
			k++;
		idx->bucket[b] = (uint32_t)k;
	}
	return 0;
}

/* An empty index of ref (whose sm_ref_checksum() is ref_sum). */
static sm_index_t *index_new(const sm_ref_t *ref, uint64_t ref_sum, int k, int w)
{
	sm_index_t *idx = calloc(1, sizeof *idx);

	if (!idx)
		return NULL;
	idx->k = k;
	idx->w = w;
	idx->ref_len = ref->total;
	idx->n_contig = ref->n_contig;
	idx->ref_sum = ref_sum;
	return idx;
}

sm_index_t *sm_index_build(const sm_ref_t *ref, int k, int w)
{
	sm_mini_t *all = NULL, *buf = NULL;
	int64_t n_all = 0, cap_buf = 0;
	sm_index_t *idx;

	if (k < SM_INDEX_MIN_K || k > SM_INDEX_MAX_K || w < 1 || w > SM_INDEX_MAX_W) {
		sm_log(SM_LOG_ERROR, "index: k must be %d..%d and w 1..%d (got k=%d w=%d)",
		       SM_INDEX_MIN_K, SM_INDEX_MAX_K, SM_INDEX_MAX_W, k, w);
		return NULL;
	}
	idx = index_new(ref, sm_ref_checksum(ref), k, w);
	if (!idx)
		goto oom;
	for (int32_t c = 0; c < ref->n_contig; c++) {
		int64_t n = sm_minimizers(ref->seq + ref->offset[c], ref->len[c], k, w, &buf, &cap_buf);
		sm_mini_t *p;

		if (n < 0)
			goto oom;
		p = realloc(all, (size_t)(n_all + n + 1) * sizeof *p);
		if (!p)
			goto oom;
		all = p;
		for (int64_t t = 0; t < n; t++) {
			all[n_all + t] = buf[t];
			all[n_all + t].pos += ref->offset[c];
		}
		n_all += n;
	}
	free(buf);
	buf = NULL;
	qsort(all, (size_t)n_all, sizeof *all, cmp_mini);

	idx->pos = malloc((size_t)(n_all + 1) * sizeof *idx->pos);
	idx->key = malloc((size_t)(n_all + 1) * sizeof *idx->key);
	idx->start = malloc((size_t)(n_all + 2) * sizeof *idx->start);
	if (!idx->pos || !idx->key || !idx->start)
		goto oom;
	for (int64_t t = 0; t < n_all; t++) {
		if (t == 0 || all[t].hash != all[t - 1].hash) {
			idx->key[idx->n_key] = all[t].hash;
			idx->start[idx->n_key++] = t;
		}
		idx->pos[t] = all[t].pos << 1 | all[t].strand;
	}
	idx->start[idx->n_key] = n_all;
	free(all);
	all = NULL;
	if (index_buckets(idx) < 0)
		goto oom;
	return idx;
oom:
	sm_log(SM_LOG_ERROR, "index: out of memory");
	free(all);
	free(buf);
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

/* ---- the index file (layout in index.h) ---- */

/* The fixed-size header after the magic and version byte. */
typedef struct {
	int32_t k, w;
	int64_t ref_len;
	int32_t n_contig, pad;
	uint64_t ref_sum;
	int64_t n_key, n_pos;
} index_head_t;

#define SM_INDEX_PREFIX (sizeof index_magic + 1)   /* magic and version byte */
/* Bytes read or written, and checksummed, at a time: small enough that the
 * checksum reads them back from cache. */
#define SM_INDEX_IO_CHUNK ((size_t)1 << 20)

/* The body checksum: SM_SUM_LANES independent multiply-rotate chains over
 * 64-bit little-endian words, so that it runs at memory speed instead of one
 * multiply latency per word.  Each step h -> rotl((h ^ w) * odd, r) is a
 * bijection of h for any word w and of w for any h, so a change confined to
 * one word (any number of flipped bits in it) always changes the sum. */
#define SM_SUM_LANES 4
#define SM_SUM_BLOCK (SM_SUM_LANES * 8)
#define SM_SUM_MUL 0x9E3779B97F4A7C15ull
#define SM_SUM_ROT 29

typedef struct {
	uint64_t lane[SM_SUM_LANES];
	uint8_t tail[SM_SUM_BLOCK];   /* bytes not yet making a whole block */
	size_t n_tail;
	uint64_t total;
} index_sum_t;

static inline uint64_t sum_step(uint64_t h, uint64_t w)
{
	h = (h ^ w) * SM_SUM_MUL;
	return h << SM_SUM_ROT | h >> (64 - SM_SUM_ROT);
}

static void sum_init(index_sum_t *s)
{
	memset(s, 0, sizeof *s);
	for (int l = 0; l < SM_SUM_LANES; l++)
		s->lane[l] = (uint64_t)(l + 1) * 0xC2B2AE3D27D4EB4Full;
}

static void sum_blocks(index_sum_t *s, const uint8_t *p, size_t n_block)
{
	uint64_t h0 = s->lane[0], h1 = s->lane[1], h2 = s->lane[2], h3 = s->lane[3];

	for (size_t b = 0; b < n_block; b++, p += SM_SUM_BLOCK) {
		uint64_t w[SM_SUM_LANES];

		memcpy(w, p, sizeof w);   /* the file is little-endian, as x86 */
		h0 = sum_step(h0, w[0]);
		h1 = sum_step(h1, w[1]);
		h2 = sum_step(h2, w[2]);
		h3 = sum_step(h3, w[3]);
	}
	s->lane[0] = h0;
	s->lane[1] = h1;
	s->lane[2] = h2;
	s->lane[3] = h3;
}

static void sum_update(index_sum_t *s, const void *data, size_t n)
{
	const uint8_t *p = data;

	s->total += n;
	if (s->n_tail) {
		size_t k = SM_SUM_BLOCK - s->n_tail < n ? SM_SUM_BLOCK - s->n_tail : n;

		memcpy(s->tail + s->n_tail, p, k);
		s->n_tail += k;
		p += k;
		n -= k;
		if (s->n_tail < SM_SUM_BLOCK)
			return;
		sum_blocks(s, s->tail, 1);
		s->n_tail = 0;
	}
	sum_blocks(s, p, n / SM_SUM_BLOCK);
	p += n - n % SM_SUM_BLOCK;
	s->n_tail = n % SM_SUM_BLOCK;
	memcpy(s->tail, p, s->n_tail);
}

static uint64_t sum_final(index_sum_t *s)
{
	uint64_t h = s->total;

	memset(s->tail + s->n_tail, 0, SM_SUM_BLOCK - s->n_tail);
	sum_blocks(s, s->tail, 1);
	for (int l = 0; l < SM_SUM_LANES; l++)
		h = sum_step(h, s->lane[l]);
	return h;
}

uint64_t sm_index_checksum(const void *data, size_t n)
{
	index_sum_t s;

	sum_init(&s);
	sum_update(&s, data, n);
	return sum_final(&s);
}

/* Writes n bytes and adds them to the sum.  Returns 0 or -1 (errno set). */
static int put(FILE *fp, index_sum_t *s, const void *data, size_t n)
{
	if (n && fwrite(data, 1, n, fp) != n)
		return -1;
	if (s)
		sum_update(s, data, n);
	return 0;
}

int sm_index_save(const sm_index_t *idx, const char *path)
{
	sm_outfile_t out;
	FILE *fp;
	uint8_t version = SM_INDEX_VERSION;
	index_head_t h = { idx->k, idx->w, idx->ref_len, idx->n_contig, 0, idx->ref_sum,
			   idx->n_key, idx->start[idx->n_key] };
	index_sum_t s;
	uint64_t sum;
	int ok;

	if (sm_outfile_begin(&out, path) < 0)
		return -1;
	if (!(fp = fopen(sm_outfile_name(&out), "wb"))) {
		sm_log(SM_LOG_ERROR, "%s: cannot write the index: %s", path, strerror(errno));
		sm_outfile_discard(&out);
		return -1;
	}
	sum_init(&s);
	ok = put(fp, NULL, index_magic, sizeof index_magic) == 0 &&
	     put(fp, NULL, &version, 1) == 0 &&
	     put(fp, &s, &h, sizeof h) == 0 &&
	     put(fp, &s, idx->key, (size_t)h.n_key * sizeof *idx->key) == 0 &&
	     put(fp, &s, idx->start, ((size_t)h.n_key + 1) * sizeof *idx->start) == 0 &&
	     put(fp, &s, idx->pos, (size_t)h.n_pos * sizeof *idx->pos) == 0;
	sum = sum_final(&s);
	ok = ok && put(fp, NULL, &sum, sizeof sum) == 0;
	if (fclose(fp) != 0)
		ok = 0;
	if (!ok) {
		sm_log(SM_LOG_ERROR, "%s: writing the index failed: %s", path, strerror(errno));
		sm_outfile_discard(&out);
		return -1;
	}
	return sm_outfile_commit(&out);
}

/* Reads n bytes into data, adding them to the sum chunk by chunk while they
 * are in cache.  Returns 0, or -1 at the end of the file or a read error. */
static int get(FILE *fp, index_sum_t *s, void *data, size_t n)
{
	uint8_t *p = data;

	while (n > 0) {
		size_t k = n < SM_INDEX_IO_CHUNK ? n : SM_INDEX_IO_CHUNK;

		if (fread(p, 1, k, fp) != k)
			return -1;
		sum_update(s, p, k);
		p += k;
		n -= k;
	}
	return 0;
}

/* The structure the checksum cannot vouch for in a crafted file, and that
 * the look-ups rely on: keys strictly increasing, offsets from 0 to n_pos
 * strictly increasing (every key has a position), and each key's positions
 * strictly increasing and inside the reference.  Returns 0, or -1 after
 * logging the first violation. */
static int index_check(const sm_index_t *idx, const char *path)
{
	const int64_t n_pos = idx->start[idx->n_key];

	if (idx->start[0] != 0) {
		sm_log(SM_LOG_ERROR, "%s: corrupt index: the first offset is %lld, not 0", path,
		       (long long)idx->start[0]);
		return -1;
	}
	for (int64_t t = 0; t < idx->n_key; t++) {
		if (t > 0 && idx->key[t] <= idx->key[t - 1]) {
			sm_log(SM_LOG_ERROR, "%s: corrupt index: key %lld is not above the key before it",
			       path, (long long)t);
			return -1;
		}
		if (idx->start[t + 1] <= idx->start[t] || idx->start[t + 1] > n_pos) {
			sm_log(SM_LOG_ERROR, "%s: corrupt index: offset %lld (%lld) does not increase "
			       "within 0..%lld", path, (long long)t + 1,
			       (long long)idx->start[t + 1], (long long)n_pos);
			return -1;
		}
		for (int64_t i = idx->start[t]; i < idx->start[t + 1]; i++) {
			int64_t g = idx->pos[i] >> 1;

			if (idx->pos[i] < 0 || g >= idx->ref_len ||
			    (i > idx->start[t] && g <= idx->pos[i - 1] >> 1)) {
				sm_log(SM_LOG_ERROR, "%s: corrupt index: position %lld of key %lld "
				       "(%lld) is out of order or outside the %lld-base reference",
				       path, (long long)(i - idx->start[t]), (long long)t,
				       (long long)g, (long long)idx->ref_len);
				return -1;
			}
		}
	}
	return 0;
}

sm_index_t *sm_index_load(const char *path, const sm_ref_t *ref)
{
	FILE *fp = fopen(path, "rb");
	char magic[sizeof index_magic];
	uint8_t version;
	index_head_t h;
	sm_index_t *idx = NULL;
	index_sum_t s;
	uint64_t sum;
	struct stat st;
	int64_t body;

	if (!fp) {
		sm_log(SM_LOG_ERROR, "%s: cannot open the index: %s", path, strerror(errno));
		return NULL;
	}
	if (fread(magic, sizeof magic, 1, fp) != 1 || memcmp(magic, index_magic, sizeof magic) != 0) {
		sm_log(SM_LOG_ERROR, "%s: not a scanmap index", path);
		goto fail;
	}
	if (fread(&version, 1, 1, fp) != 1 || version != SM_INDEX_VERSION) {
		sm_log(SM_LOG_ERROR, "%s: index version %d, this scanmap reads version %d: "
		       "rebuild it with 'scanmap index'", path, version, SM_INDEX_VERSION);
		goto fail;
	}
	sum_init(&s);
	/* The sizes must agree with the file's before anything is allocated:
	 * a damaged count must not ask for terabytes. */
	if (fstat(fileno(fp), &st) != 0 || get(fp, &s, &h, sizeof h) < 0 ||
	    st.st_size < (off_t)(SM_INDEX_PREFIX + sizeof h + sizeof sum)) {
		sm_log(SM_LOG_ERROR, "%s: truncated or corrupt index header", path);
		goto fail;
	}
	body = (int64_t)st.st_size - (int64_t)(SM_INDEX_PREFIX + sizeof h + sizeof sum);
	if (h.n_key < 0 || h.n_pos < h.n_key || h.n_pos > body / (int64_t)sizeof *idx->pos ||
	    h.n_key * (int64_t)sizeof *idx->key + (h.n_key + 1) * (int64_t)sizeof *idx->start +
	    h.n_pos * (int64_t)sizeof *idx->pos != body) {
		sm_log(SM_LOG_ERROR, "%s: truncated or corrupt index: %lld bytes, not what its "
		       "header's counts (%lld keys, %lld positions) need", path,
		       (long long)st.st_size, (long long)h.n_key, (long long)h.n_pos);
		goto fail;
	}
	if (h.k < SM_INDEX_MIN_K || h.k > SM_INDEX_MAX_K || h.w < 1 || h.w > SM_INDEX_MAX_W ||
	    h.pad != 0) {
		sm_log(SM_LOG_ERROR, "%s: corrupt index header: k=%d w=%d (k must be %d..%d, "
		       "w 1..%d)", path, h.k, h.w, SM_INDEX_MIN_K, SM_INDEX_MAX_K, SM_INDEX_MAX_W);
		goto fail;
	}
	idx = index_new(ref, h.ref_sum, h.k, h.w);
	if (!idx)
		goto oom;
	idx->n_key = h.n_key;
	idx->ref_len = h.ref_len;
	idx->n_contig = h.n_contig;
	idx->key = malloc((size_t)(h.n_key + 1) * sizeof *idx->key);
	idx->start = malloc((size_t)(h.n_key + 1) * sizeof *idx->start);
	idx->pos = malloc((size_t)(h.n_pos + 1) * sizeof *idx->pos);
	if (!idx->key || !idx->start || !idx->pos)
		goto oom;
	if (get(fp, &s, idx->key, (size_t)h.n_key * sizeof *idx->key) < 0 ||
	    get(fp, &s, idx->start, ((size_t)h.n_key + 1) * sizeof *idx->start) < 0 ||
	    get(fp, &s, idx->pos, (size_t)h.n_pos * sizeof *idx->pos) < 0 ||
	    fread(&sum, sizeof sum, 1, fp) != 1 || fgetc(fp) != EOF) {
		sm_log(SM_LOG_ERROR, "%s: truncated or corrupt index", path);
		goto fail;
	}
	if (sum != sum_final(&s)) {
		sm_log(SM_LOG_ERROR, "%s: corrupt index: its checksum does not match its contents "
		       "(damaged in storage or in a copy): rebuild it with 'scanmap index'", path);
		goto fail;
	}
	/* The checksum vouches for the header too, so a mismatch now means the
	 * index belongs to another reference. */
	if (h.ref_len != ref->total || h.n_contig != ref->n_contig ||
	    h.ref_sum != sm_ref_checksum(ref)) {
		sm_log(SM_LOG_ERROR, "%s: the index was built from another reference than %s: "
		       "rebuild it with 'scanmap index'", path, ref->path ? ref->path : "this one");
		goto fail;
	}
	if (idx->start[h.n_key] != h.n_pos || index_check(idx, path) < 0) {
		if (idx->start[h.n_key] != h.n_pos)
			sm_log(SM_LOG_ERROR, "%s: corrupt index: the last offset is %lld, not the "
			       "%lld positions", path, (long long)idx->start[h.n_key], (long long)h.n_pos);
		goto fail;
	}
	fclose(fp);
	if (index_buckets(idx) < 0) {
		sm_log(SM_LOG_ERROR, "%s: out of memory loading the index", path);
		sm_index_destroy(idx);
		return NULL;
	}
	return idx;
oom:
	sm_log(SM_LOG_ERROR, "%s: out of memory loading the index", path);
fail:
	fclose(fp);
	sm_index_destroy(idx);
	return NULL;
}
