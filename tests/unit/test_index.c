/* test_index.c — minimizer index: every minimizer of a read taken from the
 * reference is found at its true position; save/load round trip; wrong,
 * truncated and mismatched index files are rejected; the fault sweep
 * (SM_FLIPS random bit flips over header, body and checksum, and a
 * truncation at every SM_CUT_STEP-th length) and crafted files whose
 * checksum matches but whose structure is wrong all end in an error naming
 * the file. */
#include "tests/unit/unit.h"

#include "io/ref.h"
#include "mapper/index.h"
#include "io/log.h"

static sm_ref_t *random_ref(int n_contig, int len)
{
	char **seqs = malloc((size_t)n_contig * sizeof *seqs), names[16][8];
	const char *np[16];
	sm_ref_t *ref = NULL;

	for (int c = 0; c < n_contig; c++) {
		seqs[c] = malloc((size_t)len + 1);
		for (int k = 0; k < len; k++)
			seqs[c][k] = rnd(200) ? "ACGT"[rnd(4)] : 'N';
		seqs[c][len] = 0;
		snprintf(names[c], sizeof names[c], "c%d", c);
		np[c] = names[c];
	}
	if (sm_ref_from_strings(n_contig, np, (const char *const *)seqs, &ref) < 0)
		ref = NULL;
	for (int c = 0; c < n_contig; c++)
		free(seqs[c]);
	free(seqs);
	return ref;
}

static int has_pos(const sm_index_t *idx, uint32_t h, int64_t pos)
{
	const int64_t *p;
	int64_t n = sm_index_get(idx, h, &p);

	for (int64_t t = 0; t < n; t++)
		if ((p[t] >> 1) == pos)
			return 1;
	return 0;
}

static void test_lookup(const sm_ref_t *ref, const sm_index_t *idx)
{
	sm_mini_t *m = NULL;
	int64_t cap = 0;

	for (int rep = 0; rep < 200; rep++) {
		int32_t c = (int32_t)rnd((uint32_t)ref->n_contig);
		int64_t from = rnd((uint32_t)(ref->len[c] - 150));
		const uint8_t *read = ref->seq + ref->offset[c] + from;
		int64_t n = sm_minimizers(read, 150, idx->k, idx->w, &m, &cap);
		int found = 0;

		for (int64_t t = 0; t < n; t++)
			found += has_pos(idx, m[t].hash, ref->offset[c] + from + m[t].pos);
		/* Interior windows of the read are windows of the reference too;
		 * only the first and last w-1 k-mers may differ. */
		CHECK(n > 0 && found >= n - 2, "read at %d:%lld: %lld of %lld minimizers found",
		      c, (long long)from, (long long)found, (long long)n);
	}
	free(m);
}

/* The bucketed look-up (index.h) against a binary search of the sorted
 * keys: every key, its neighbours, the extremes and random hashes. */
static void test_buckets(const sm_index_t *idx)
{
	int bad = 0;

	CHECK(idx->bucket && idx->bucket[0] == 0 &&
	      idx->bucket[(size_t)1 << idx->bucket_bits] == (uint32_t)idx->n_key,
	      "bucket table spans the %lld keys (%d bits)", (long long)idx->n_key, idx->bucket_bits);
	for (int64_t t = 0; t < 4 * idx->n_key + 4; t++) {
		uint32_t h = t < idx->n_key ? idx->key[t] :
			     t < 2 * idx->n_key ? idx->key[t - idx->n_key] + 1 :
			     t < 3 * idx->n_key ? idx->key[t - 2 * idx->n_key] - 1 :
			     t == 4 * idx->n_key ? 0 : t == 4 * idx->n_key + 1 ? UINT32_MAX :
			     rnd(UINT32_MAX) ^ (rnd(2) << 31);
		int64_t lo = 0, hi = idx->n_key, want = 0;
		const int64_t *p = NULL;

		while (lo < hi) {
			int64_t mid = lo + (hi - lo) / 2;
			if (idx->key[mid] < h)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < idx->n_key && idx->key[lo] == h)
			want = idx->start[lo + 1] - idx->start[lo];
		if (sm_index_get(idx, h, &p) != want || (want && p != idx->pos + idx->start[lo]))
			bad++;
	}
	CHECK(bad == 0, "bucketed look-up agrees with a binary search (%d disagreements)", bad);

	/* sm_index_get_many: the same answers, hashes present or not. */
	{
		enum { N_MANY = 1000 };
		sm_mini_t m[N_MANY];
		int64_t occ[N_MANY];
		const int64_t *pos[N_MANY];

		bad = 0;
		for (int t = 0; t < N_MANY; t++)
			m[t].hash = t % 2 ? idx->key[rnd((uint32_t)idx->n_key)] : rnd(UINT32_MAX);
		sm_index_get_many(idx, N_MANY, m, occ, pos);
		for (int t = 0; t < N_MANY; t++) {
			const int64_t *p = NULL;
			int64_t o = sm_index_get(idx, m[t].hash, &p);

			bad += o != occ[t] || (o > 0 && p != pos[t]);
		}
		CHECK(bad == 0, "sm_index_get_many agrees with sm_index_get (%d disagreements)", bad);
	}
}

/* Fault sweep sizes: single-bit flips (a fifth of them in the header) and
 * the stride of truncation lengths. */
#define SM_FLIPS 1200
#define SM_HEAD_BYTES 54   /* magic, version and header (index.h) */
#define SM_CUT_STEP 997

static uint8_t *read_all(const char *path, size_t *n)
{
	FILE *fp = fopen(path, "rb");
	uint8_t *d;

	fseek(fp, 0, SEEK_END);
	*n = (size_t)ftell(fp);
	rewind(fp);
	d = xmalloc(*n);
	if (fread(d, 1, *n, fp) != *n)
		exit(2);
	fclose(fp);
	return d;
}

/* Writes d[0..n) to path and loads it: 1 when the load failed with a message
 * naming path, 0 otherwise. */
static int rejected(const char *path, const uint8_t *d, size_t n, const sm_ref_t *ref)
{
	FILE *fp = fopen(path, "wb");
	sm_index_t *idx;

	if (!fp || (n && fwrite(d, 1, n, fp) != n) || fclose(fp) != 0)
		exit(2);
	capture_begin();
	idx = sm_index_load(path, ref);
	capture_end();
	sm_index_destroy(idx);
	return !idx && strstr(errbuf, path) != NULL;
}

static void test_faults(const char *path, const sm_ref_t *ref)
{
	size_t n;
	uint8_t *good = read_all(path, &n), *d = xmalloc(n);
	int bad_flip = 0, bad_cut = 0, n_cut = 0;

	for (int t = 0; t < SM_FLIPS; t++) {
		size_t at = t % 5 == 0 ? rnd(SM_HEAD_BYTES) : rnd((uint32_t)n);

		memcpy(d, good, n);
		d[at] ^= (uint8_t)(1u << rnd(8));
		if (!rejected(path, d, n, ref)) {
			if (bad_flip++ < 3)
				printf("     flip at byte %zu accepted: %s\n", at, errbuf);
		}
	}
	CHECK(bad_flip == 0, "%d random bit flips over %zu bytes: every one rejected naming the "
	      "file (%d not)", SM_FLIPS, n, bad_flip);
	for (size_t len = 0; len < n; len += len < SM_HEAD_BYTES + 8 ? 1 : SM_CUT_STEP, n_cut++)
		bad_cut += !rejected(path, good, len, ref);
	CHECK(bad_cut == 0, "%d truncations: every one rejected naming the file (%d not)",
	      n_cut, bad_cut);
	free(good);
	free(d);
}

/* A crafted file: the saved index with edit applied and its checksum made
 * to match again; must be refused with a message holding want. */
static void crafted(const char *path, const sm_ref_t *ref, const char *what, const char *want,
		    void (*edit)(uint8_t *d, int64_t n_key, int64_t n_pos))
{
	size_t n;
	uint8_t *d = read_all(path, &n);
	int64_t n_key, n_pos;
	uint64_t sum;
	char copy[600];

	snprintf(copy, sizeof copy, "%s.crafted", path);
	memcpy(&n_key, d + SM_HEAD_BYTES - 16, 8);
	memcpy(&n_pos, d + SM_HEAD_BYTES - 8, 8);
	edit(d, n_key, n_pos);
	sum = sm_index_checksum(d + 6, n - 6 - 8);
	memcpy(d + n - 8, &sum, 8);
	CHECK(rejected(copy, d, n, ref) && strstr(errbuf, want), "crafted index (%s) rejected: %s",
	      what, errbuf);
	remove(copy);
	free(d);
}

static uint8_t *keys_of(uint8_t *d) { return d + SM_HEAD_BYTES; }
static uint8_t *starts_of(uint8_t *d, int64_t n_key) { return keys_of(d) + 4 * n_key; }
static uint8_t *pos_of(uint8_t *d, int64_t n_key) { return starts_of(d, n_key) + 8 * (n_key + 1); }

static void swap_keys(uint8_t *d, int64_t n_key, int64_t n_pos)
{
	uint8_t t[4], *k = keys_of(d) + 4 * (n_key / 2);

	memcpy(t, k, 4);
	memcpy(k, k + 4, 4);
	memcpy(k + 4, t, 4);
}

static void bad_offset(uint8_t *d, int64_t n_key, int64_t n_pos)
{
	int64_t v = n_pos + 5;

	memcpy(starts_of(d, n_key) + 8 * (n_key / 3), &v, 8);
}

static void pos_outside(uint8_t *d, int64_t n_key, int64_t n_pos)
{
	int64_t v = (int64_t)1 << 40;

	memcpy(pos_of(d, n_key) + 8 * (n_pos - 1), &v, 8);
}

static void big_k(uint8_t *d, int64_t n_key, int64_t n_pos)
{
	int32_t k = SM_INDEX_MAX_K + 1;

	memcpy(d + 6, &k, 4);
}

static void first_offset(uint8_t *d, int64_t n_key, int64_t n_pos)
{
	int64_t v = 1;

	memcpy(starts_of(d, n_key), &v, 8);
}

int main(void)
{
	sm_ref_t *ref, *other;
	sm_index_t *idx, *back;
	char path[512];
	FILE *fp;
	long size;

	unit_begin("index");
	unit_seed(0x9E3779B97F4A7C15ull);
	snprintf(path, sizeof path, "%s", tmp_path("ref.smi"));  /* tmp_path's buffers rotate */
	ref = random_ref(3, 20000);
	other = random_ref(3, 20000);
	CHECK(ref && other, "two random references");
	idx = sm_index_build(ref, SM_INDEX_DEFAULT_K, SM_INDEX_DEFAULT_W);
	CHECK(idx && idx->n_key > 0, "index built: %lld keys", idx ? (long long)idx->n_key : 0LL);
	test_lookup(ref, idx);
	test_buckets(idx);

	CHECK(sm_index_save(idx, path) == 0, "saved");
	back = sm_index_load(path, ref);
	CHECK(back && back->n_key == idx->n_key &&
	      memcmp(back->pos, idx->pos, (size_t)idx->start[idx->n_key] * sizeof *idx->pos) == 0,
	      "load round trip");
	if (back)
		test_buckets(back);
	sm_index_destroy(back);

	test_faults(path, ref);
	CHECK(sm_index_save(idx, path) == 0, "saved again after the fault sweep");
	crafted(path, ref, "keys out of order", "is not above the key before it", swap_keys);
	crafted(path, ref, "offset past the positions", "does not increase", bad_offset);
	crafted(path, ref, "position outside the reference", "outside the", pos_outside);
	crafted(path, ref, "k out of range", "k must be", big_k);
	crafted(path, ref, "first offset not 0", "first offset", first_offset);

	capture_begin();
	back = sm_index_load(path, other);
	capture_end();
	CHECK(!back && strstr(errbuf, "another reference"), "index of another reference rejected: %s", errbuf);
	fp = fopen(path, "r+b");
	fseek(fp, 0, SEEK_END);
	size = ftell(fp);
	fclose(fp);
	capture_begin();
	back = truncate(path, size - 8) == 0 ? sm_index_load(path, ref) : NULL;
	capture_end();
	CHECK(!back && strstr(errbuf, "truncated"), "truncated index rejected: %s", errbuf);
	write_text("ref.smi", ">not an index\nACGT\n");
	capture_begin();
	back = sm_index_load(path, ref);
	capture_end();
	CHECK(!back && strstr(errbuf, "not a scanmap index"), "non-index rejected: %s", errbuf);

	sm_index_destroy(idx);
	sm_ref_destroy(ref);
	sm_ref_destroy(other);
	return unit_end();
}
