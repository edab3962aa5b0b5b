/* test_index.c — minimizer index: sm_minimizers against a window-by-window
 * oracle; the threaded, piece-wise build against the plain one (every
 * contig's minimizers sorted by hash and position) across piece borders,
 * with 1 and 3 threads; every minimizer of a read taken from the reference
 * is found at its true position; save/load round trip (the reference held
 * in the file included); a FASTA of another size, or of the same size and
 * time but other contents, is refused, and one with another time but the
 * same contents is accepted; wrong, truncated and old-version files are
 * rejected; the fault sweep (SM_FLIPS random bit flips over header and
 * body, and a truncation at every SM_CUT_STEP-th length) and crafted files
 * whose checksums match but whose structure is wrong all end in an error
 * naming the file.  The bucket table is compared entry by entry with its
 * definition. */
#include "tests/unit/unit.h"

#include <sys/stat.h>

#include "io/ref.h"
#include "mapper/index.h"
#include "io/log.h"

static sm_ref_t *random_ref(int n_contig, int len)
{
	char **seqs = malloc((size_t)n_contig * sizeof *seqs), names[16][16];
	const char *np[16];
	sm_ref_t *ref = NULL;

	if (!seqs || n_contig < 1 || n_contig > 16)
		abort();
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

/* Two copies of one random contig of len bases: every minimizer has two
 * positions. */
static sm_ref_t *repeat_ref(int len)
{
	char *seq = malloc((size_t)len + 1);
	const char *names[2] = { "a", "b" }, *seqs[2] = { seq, seq };
	sm_ref_t *ref = NULL;

	for (int k = 0; k < len; k++)
		seq[k] = "ACGT"[rnd(4)];
	seq[len] = 0;
	if (sm_ref_from_strings(2, names, seqs, &ref) < 0)
		ref = NULL;
	free(seq);
	return ref;
}

/* The minimizers of seq[0..len) window by window: the plain definition
 * that sm_minimizers computes incrementally. */
static int64_t oracle_minimizers(const uint8_t *seq, int64_t len, int k, int w, sm_mini_t *out)
{
	int64_t n = 0, last = -1;

	for (int64_t e = k + w - 2; e < len; e++) {   /* the window's last base */
		sm_mini_t best = { 0, 0, -1 };
		int ok = 1;

		for (int64_t i = e - (k + w - 2); i <= e && ok; i++)
			ok = seq[i] < 4;
		if (!ok)
			continue;
		for (int64_t end = e - w + 1; end <= e; end++) {
			uint64_t fwd = 0, rev = 0;

			for (int64_t i = end - k + 1; i <= end; i++) {
				fwd = fwd << 2 | seq[i];
				rev |= (uint64_t)(3 - seq[i]) << (2 * (i - (end - k + 1)));
			}
			sm_mini_t m = { (uint32_t)sm_mix64(rev < fwd ? rev : fwd), rev < fwd, end };
			if (best.pos < 0 || m.hash < best.hash)
				best = m;
		}
		if (best.pos != last)
			out[n++] = best;
		last = best.pos;
	}
	return n;
}

static void test_minimizers(void)
{
	enum { LEN = 3000 };
	static const int kw[][2] = { { 15, 10 }, { 4, 1 }, { 5, 2 }, { 16, 25 }, { 11, 5 } };
	uint8_t seq[LEN];
	sm_mini_t want[LEN], *got = NULL;
	int64_t cap = 0, bad = 0;

	for (size_t c = 0; c < sizeof kw / sizeof *kw; c++) {
		for (int rep = 0; rep < 20; rep++) {
			/* Runs of one base and Ns make ties and restarts. */
			for (int i = 0; i < LEN; i++)
				seq[i] = rnd(300) == 0 ? 4 : rep % 2 && i && rnd(3) ? seq[i - 1] % 4 :
					 (uint8_t)rnd(4);
			int64_t n = oracle_minimizers(seq, LEN, kw[c][0], kw[c][1], want);
			int64_t m = sm_minimizers(seq, LEN, kw[c][0], kw[c][1], &got, &cap);

			bad += m != n;
			for (int64_t t = 0; t < n && t < m; t++)
				bad += got[t].pos != want[t].pos || got[t].hash != want[t].hash ||
				       got[t].strand != want[t].strand;
		}
		CHECK(bad == 0, "k=%d w=%d: sm_minimizers equals the window-by-window oracle",
		      kw[c][0], kw[c][1]);
	}
	free(got);
}

static int cmp_hash_pos(const void *a, const void *b)
{
	const sm_mini_t *x = a, *y = b;

	if (x->hash != y->hash)
		return x->hash < y->hash ? -1 : 1;
	return (x->pos > y->pos) - (x->pos < y->pos);
}

/* 1 when idx holds what the plain build of ref holds: every contig's
 * minimizers, sorted by hash then position. */
static int same_as_plain(const sm_ref_t *ref, const sm_index_t *idx, int k, int w)
{
	sm_mini_t *all = NULL, *buf = NULL;
	int64_t n_all = 0, cap = 0, key = 0;
	int same = 1;

	for (int32_t c = 0; c < ref->n_contig; c++) {
		int64_t n = sm_minimizers(ref->seq + ref->offset[c], ref->len[c], k, w, &buf, &cap);

		all = realloc(all, (size_t)(n_all + n + 1) * sizeof *all);
		for (int64_t t = 0; t < n; t++, n_all++) {
			all[n_all] = buf[t];
			all[n_all].pos += ref->offset[c];
		}
	}
	qsort(all, (size_t)n_all, sizeof *all, cmp_hash_pos);
	same = idx->start[idx->n_key] == n_all;
	for (int64_t t = 0; same && t < n_all; t++) {
		if (t == 0 || all[t].hash != all[t - 1].hash) {
			same = key < idx->n_key && idx->key[key] == all[t].hash && idx->start[key] == t;
			key++;
		}
		same = same && idx->pos[t] == (all[t].pos << 1 | all[t].strand);
	}
	free(all);
	free(buf);
	return same && key == idx->n_key;
}

/* The threaded build, whose pieces of 2^22 bases cut contigs, against the
 * plain one: contigs of awkward lengths around the piece borders, short
 * ones, Ns right at a border. */
static void test_build_pieces(void)
{
	enum { PIECE = 1 << 22 };
	static const int len[] = { PIECE - 7, 20, 3, PIECE + 13, 1000, PIECE / 2 + 1 };
	enum { N = sizeof len / sizeof *len };
	char *seqs[N], names[N][16];
	const char *np[N];
	sm_ref_t *ref = NULL;
	sm_index_t *one, *three;

	for (int c = 0; c < N; c++) {
		seqs[c] = xmalloc((size_t)len[c] + 1);
		for (int i = 0; i < len[c]; i++)
			seqs[c][i] = rnd(5000) ? "ACGT"[rnd(4)] : 'N';
		seqs[c][len[c]] = 0;
		snprintf(names[c], sizeof names[c], "p%d", c);
		np[c] = names[c];
	}
	/* Ns just before and after the second piece border (global 2^23). */
	seqs[3][PIECE - 7 + 2] = seqs[3][PIECE - 7 + 5] = 'N';
	CHECK(sm_ref_from_strings(N, np, (const char *const *)seqs, &ref) == 0, "piece reference");
	one = sm_index_build(ref, SM_INDEX_DEFAULT_K, SM_INDEX_DEFAULT_W, 1, 0);
	three = sm_index_build(ref, 12, 7, 3, 0);
	CHECK(one && same_as_plain(ref, one, SM_INDEX_DEFAULT_K, SM_INDEX_DEFAULT_W),
	      "1 thread: the pieces' minimizers are the plain build's (%lld keys)",
	      one ? (long long)one->n_key : 0LL);
	CHECK(three && same_as_plain(ref, three, 12, 7),
	      "3 threads, k=12 w=7: the pieces' minimizers are the plain build's");
	sm_index_destroy(one);
	sm_index_destroy(three);
	sm_ref_destroy(ref);
	for (int c = 0; c < N; c++)
		free(seqs[c]);
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
	/* Entry by entry: the first key whose top bits are >= the entry's. */
	for (uint64_t b = 0, t = 0; b <= (uint64_t)1 << idx->bucket_bits; b++) {
		while ((int64_t)t < idx->n_key &&
		       idx->key[t] >> (SM_HASH_BITS - idx->bucket_bits) < b)
			t++;
		bad += idx->bucket[b] != t;
	}
	CHECK(bad == 0, "every bucket entry is its first key (%d not)", bad);
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
#define SM_HEAD_BYTES ((uint32_t)sizeof(sm_index_head_t))
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

/* sm_index_load on two threads with `verify` and `portable` as
 * sm_index_load_opt_t has them. */
static sm_index_t *load_with(const char *path, const char *fasta, sm_ref_t **ref, int verify,
			     int portable)
{
	sm_index_load_opt_t o;

	sm_index_load_opt_init(&o);
	o.fasta_path = fasta;
	o.n_threads = 2;
	o.verify = verify;
	o.portable = portable;
	return sm_index_load(path, &o, ref);
}

static sm_index_t *load(const char *path, const char *fasta, sm_ref_t **ref)
{
	return load_with(path, fasta, ref, 1, 0);
}

/* Writes d[0..n) to path and loads it with `verify` (sm_index_load_opt_t):
 * 1 when the load failed with a message naming path, 0 otherwise. */
static int rejected_by(const char *path, const uint8_t *d, size_t n, int verify)
{
	FILE *fp = fopen(path, "wb");
	sm_index_t *idx;

	if (!fp || (n && fwrite(d, 1, n, fp) != n) || fclose(fp) != 0)
		exit(2);
	capture_begin();
	idx = load_with(path, NULL, NULL, verify, 0);
	capture_end();
	sm_index_destroy(idx);
	return !idx && strstr(errbuf, path) != NULL;
}

static int rejected(const char *path, const uint8_t *d, size_t n)
{
	return rejected_by(path, d, n, 1);
}

/* The index file at path, read whole (*n bytes), its header into *h and
 * its sections' offsets into off[]. */
static uint8_t *read_image(const char *path, size_t *n, sm_index_head_t *h, int64_t *off)
{
	uint8_t *d = read_all(path, n);

	memcpy(h, d, sizeof *h);
	sm_index_layout(h, off);
	return d;
}

/* The structural checks alone (SM_INDEX_VERIFY_STRUCTURE, what the
 * benchmarks weigh the checksum against) skip only the checksum: a base
 * code changed into another valid one loads with them, not with every
 * check. */
static void test_structure_only(const char *path)
{
	size_t n;
	sm_index_head_t h;
	int64_t off[SM_SEC_N + 1];
	uint8_t *d = read_image(path, &n, &h, off);
	char copy[600];

	snprintf(copy, sizeof copy, "%s.base", path);
	d[off[SM_SEC_SEQ] + h.ref_len / 3] ^= 1;   /* A <-> C, G <-> T */
	CHECK(!rejected_by(copy, d, n, SM_INDEX_VERIFY_STRUCTURE) && rejected(copy, d, n) &&
	      strstr(errbuf, "checksum"),
	      "a changed base: loaded by the structural checks alone, refused by the checksum");
	remove(copy);
	free(d);
}

static void test_faults(const char *path)
{
	size_t n;
	uint8_t *good = read_all(path, &n), *d = xmalloc(n);
	int bad_flip = 0, bad_cut = 0, n_cut = 0;

	for (int t = 0; t < SM_FLIPS; t++) {
		size_t at = t % 5 == 0 ? rnd(SM_HEAD_BYTES) : rnd((uint32_t)n);

		memcpy(d, good, n);
		d[at] ^= (uint8_t)(1u << rnd(8));
		if (!rejected(path, d, n)) {
			if (bad_flip++ < 3)
				printf("     flip at byte %zu accepted: %s\n", at, errbuf);
		}
	}
	CHECK(bad_flip == 0, "%d random bit flips over %zu bytes: every one rejected naming the "
	      "file (%d not)", SM_FLIPS, n, bad_flip);
	for (size_t len = 0; len < n; len += len < SM_HEAD_BYTES + 8 ? 1 : SM_CUT_STEP, n_cut++)
		bad_cut += !rejected(path, good, len);
	CHECK(bad_cut == 0, "%d truncations: every one rejected naming the file (%d not)",
	      n_cut, bad_cut);
	free(good);
	free(d);
}

/* A crafted file: the saved index with edit applied (to the file image d
 * whose sections begin at off[]) and its checksums made to match again;
 * must be refused with a message holding want. */
static void crafted(const char *path, const char *what, const char *want,
		    void (*edit)(uint8_t *d, const sm_index_head_t *h, const int64_t *off))
{
	size_t n;
	sm_index_head_t h;
	int64_t off[SM_SEC_N + 1];
	uint8_t *d = read_image(path, &n, &h, off);
	char copy[600];

	snprintf(copy, sizeof copy, "%s.crafted", path);
	edit(d, &h, off);
	CHECK(sm_index_seal(d, n) == 0, "%s: sealed", what);
	CHECK(rejected(copy, d, n) && strstr(errbuf, want), "crafted index (%s) rejected: %s",
	      what, errbuf);
	CHECK(rejected_by(copy, d, n, SM_INDEX_VERIFY_STRUCTURE) && strstr(errbuf, want),
	      "crafted index (%s) rejected by the structural checks alone", what);
	remove(copy);
	free(d);
}

static void swap_keys(uint8_t *d, const sm_index_head_t *h, const int64_t *off)
{
	uint8_t t[4], *k = d + off[SM_SEC_KEY] + 4 * (h->n_key / 2);

	memcpy(t, k, 4);
	memcpy(k, k + 4, 4);
	memcpy(k + 4, t, 4);
}

static void bad_offset(uint8_t *d, const sm_index_head_t *h, const int64_t *off)
{
	int64_t v = h->n_pos + 5;

	memcpy(d + off[SM_SEC_START] + 8 * (h->n_key / 3), &v, 8);
}

static void pos_outside(uint8_t *d, const sm_index_head_t *h, const int64_t *off)
{
	int64_t v = (int64_t)1 << 40;

	memcpy(d + off[SM_SEC_POS] + 8 * (h->n_pos - 1), &v, 8);
}

/* The first position of the last key (of an index where every key has
 * two): keys that far in are checked by another job than the first. */
static int64_t *late_pair(uint8_t *d, const sm_index_head_t *h, const int64_t *off)
{
	const int64_t *start = (const int64_t *)(d + off[SM_SEC_START]);

	return (int64_t *)(d + off[SM_SEC_POS]) + start[h->n_key - 1];
}

static void pos_swapped(uint8_t *d, const sm_index_head_t *h, const int64_t *off)
{
	int64_t *p = late_pair(d, h, off), v = p[0];

	p[0] = p[1];
	p[1] = v;
}

static void pos_negative(uint8_t *d, const sm_index_head_t *h, const int64_t *off)
{
	late_pair(d, h, off)[0] = -2;
}

static void big_k(uint8_t *d, const sm_index_head_t *h, const int64_t *off)
{
	int32_t k = SM_INDEX_MAX_K + 1;

	memcpy(d + offsetof(sm_index_head_t, k), &k, 4);
}

static void first_offset(uint8_t *d, const sm_index_head_t *h, const int64_t *off)
{
	int64_t v = 1;

	memcpy(d + off[SM_SEC_START], &v, 8);
}

static void bad_base(uint8_t *d, const sm_index_head_t *h, const int64_t *off)
{
	d[off[SM_SEC_SEQ] + h->ref_len / 2] = 7;
}

static void long_contig(uint8_t *d, const sm_index_head_t *h, const int64_t *off)
{
	int64_t v = h->ref_len;

	memcpy(d + off[SM_SEC_LEN], &v, 8);
}

static void bad_name(uint8_t *d, const sm_index_head_t *h, const int64_t *off)
{
	d[off[SM_SEC_NAME] + h->names_len - 1] = 'x';
}

/* ref as a FASTA file at path (lines of 60). */
static void write_fasta(const char *path, const sm_ref_t *ref)
{
	FILE *fp = fopen(path, "w");

	for (int32_t c = 0; c < ref->n_contig; c++) {
		fprintf(fp, ">%s\n", ref->name[c]);
		for (int64_t i = 0; i < ref->len[c]; i++) {
			int64_t g = ref->offset[c] + i;

			fputc(sm_ref_base_char(ref, g), fp);
			if (i % 60 == 59 || i == ref->len[c] - 1)
				fputc('\n', fp);
		}
	}
	if (fclose(fp) != 0)
		exit(2);
}

static void set_mtime(const char *path, time_t t)
{
	struct timespec ts[2] = { { t, 0 }, { t, 0 } };

	utimensat(AT_FDCWD, path, ts, 0);
}

int main(void)
{
	sm_ref_t *mem, *ref, *other, *held, *rep;
	sm_index_t *idx, *back, *ridx;
	char path[512], fa[512], ofa[512], rpath[512];
	FILE *fp;
	long size;

	unit_begin("index");
	unit_seed(0x9E3779B97F4A7C15ull);
	test_minimizers();
	test_build_pieces();
	snprintf(path, sizeof path, "%s", tmp_path("ref.smi"));  /* tmp_path's buffers rotate */
	snprintf(fa, sizeof fa, "%s", tmp_path("ref.fa"));
	snprintf(ofa, sizeof ofa, "%s", tmp_path("other.fa"));
	mem = random_ref(3, 20000);
	other = random_ref(3, 20000);
	CHECK(mem && other, "two random references");
	write_fasta(fa, mem);
	write_fasta(ofa, other);
	sm_ref_destroy(mem);
	sm_ref_destroy(other);
	CHECK(sm_ref_load(fa, &ref) == 0 && ref->file_size > 0, "reference read back, stamped");
	idx = sm_index_build(ref, SM_INDEX_DEFAULT_K, SM_INDEX_DEFAULT_W, 2, 0);
	CHECK(idx && idx->n_key > 0, "index built: %lld keys", idx ? (long long)idx->n_key : 0LL);
	test_lookup(ref, idx);
	test_buckets(idx);

	CHECK(sm_index_save(idx, ref, path, 2) == 0, "saved");
	back = load(path, fa, &held);
	CHECK(back && back->n_key == idx->n_key &&
	      memcmp(back->pos, idx->pos, (size_t)idx->start[idx->n_key] * sizeof *idx->pos) == 0,
	      "load round trip");
	CHECK(back && held && held->n_contig == ref->n_contig && held->total == ref->total &&
	      held->n_amb == ref->n_amb && strcmp(held->name[2], ref->name[2]) == 0 &&
	      held->offset[2] == ref->offset[2] &&
	      memcmp(held->seq, ref->seq, (size_t)ref->total) == 0 &&
	      sm_ref_base_char(held, ref->amb[0].start) == sm_ref_base_char(ref, ref->amb[0].start),
	      "the reference held in the index is the FASTA's");
	if (back)
		test_buckets(back);
	sm_ref_destroy(held);
	sm_index_destroy(back);

	sm_index_destroy(back = load_with(path, NULL, NULL, 1, 1));
	CHECK(back != NULL, "the portable loop accepts the sums that the default one wrote (AVX2 "
	      "where the CPU has it)");
	test_structure_only(path);
	test_faults(path);
	CHECK(sm_index_save(idx, ref, path, 1) == 0, "saved again after the fault sweep");
	crafted(path, "keys out of order", "is not above the key before it", swap_keys);
	crafted(path, "offset past the positions", "does not increase", bad_offset);
	crafted(path, "position outside the reference", "outside the", pos_outside);
	crafted(path, "k out of range", "k must be", big_k);
	crafted(path, "first offset not 0", "first offset", first_offset);
	crafted(path, "base code above N", "base code", bad_base);
	crafted(path, "contig longer than the reference", "contig lengths", long_contig);
	crafted(path, "names not NUL-terminated", "contig table", bad_name);

	/* Positions within a key, in an index of a repeated contig (two
	 * positions per key, more keys than one check job takes). */
	rep = repeat_ref(50000);
	ridx = rep ? sm_index_build(rep, SM_INDEX_DEFAULT_K, SM_INDEX_DEFAULT_W, 1, 0) : NULL;
	snprintf(rpath, sizeof rpath, "%s", tmp_path("rep.smi"));
	CHECK(ridx && ridx->n_key > 8192 && ridx->start[ridx->n_key] == 2 * ridx->n_key &&
	      sm_index_save(ridx, rep, rpath, 2) == 0, "index of a repeated contig: %lld keys",
	      ridx ? (long long)ridx->n_key : 0LL);
	crafted(rpath, "a key's positions out of order", "out of order", pos_swapped);
	crafted(rpath, "a key's first position negative", "out of order or outside", pos_negative);
	sm_index_destroy(ridx);
	sm_ref_destroy(rep);

	/* The FASTA beside it: another size, the same contents at another
	 * time, other contents of the same size and time. */
	capture_begin();
	back = load(path, ofa, NULL);
	capture_end();
	CHECK(!back, "FASTA of another reference (same size, another time) refused");
	CHECK(strstr(errbuf, "another reference") && strstr(errbuf, path),
	      "another reference: message names the index: %s", errbuf);
	set_mtime(fa, 1000000000);
	capture_begin();
	back = load(path, fa, NULL);
	capture_end();
	CHECK(back && strstr(errbuf, "contents match"),
	      "same FASTA at another time: contents compared, accepted: %s", errbuf);
	sm_index_destroy(back);
	fp = fopen(fa, "a");
	fputs(">extra\nACGT\n", fp);
	fclose(fp);
	capture_begin();
	back = load(path, fa, NULL);
	capture_end();
	CHECK(!back && strstr(errbuf, "another reference") && strstr(errbuf, "bytes"),
	      "FASTA of another size refused: %s", errbuf);
	fp = fopen(path, "r+b");
	fseek(fp, 0, SEEK_END);
	size = ftell(fp);
	fclose(fp);
	capture_begin();
	back = truncate(path, size - 8) == 0 ? load(path, NULL, NULL) : NULL;
	capture_end();
	CHECK(!back && strstr(errbuf, "truncated"), "truncated index rejected: %s", errbuf);
	write_text("ref.smi", ">not an index\nACGT\n");
	capture_begin();
	back = load(path, NULL, NULL);
	capture_end();
	CHECK(!back && strstr(errbuf, "not a scanmap index"), "non-index rejected: %s", errbuf);
	write_text("ref.smi", "SMIDX\002 an index of version 2");
	capture_begin();
	back = load(path, NULL, NULL);
	capture_end();
	CHECK(!back && strstr(errbuf, "version 2") && strstr(errbuf, "rebuild"),
	      "version-2 index: rebuild it: %s", errbuf);

	sm_index_destroy(idx);
	sm_ref_destroy(ref);
	return unit_end();
}
