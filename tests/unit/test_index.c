/* test_index.c — minimizer index: every minimizer of a read taken from the
 * reference is found at its true position; save/load round trip; wrong,
 * truncated and mismatched index files are rejected. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/ref.h"
#include "mapper/index.h"
#include "mapper/log.h"

static int n_pass, n_fail;

#define CHECK(cond, ...) do { \
	if (cond) { n_pass++; } else { n_fail++; printf("FAIL %s:%d: ", __FILE__, __LINE__); \
		printf(__VA_ARGS__); printf("\n"); } } while (0)

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint32_t rnd(uint32_t k)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (uint32_t)(rng_state % k);
}

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

int main(void)
{
	char path[] = "/tmp/sm_test_index_XXXXXX";
	int fd = mkstemp(path);
	sm_ref_t *ref = random_ref(3, 20000), *other = random_ref(3, 20000);
	sm_index_t *idx, *back;
	FILE *fp;
	long size;

	CHECK(fd >= 0 && ref && other, "setup");
	close(fd);
	idx = sm_index_build(ref, SM_INDEX_DEFAULT_K, SM_INDEX_DEFAULT_W);
	CHECK(idx && idx->n_key > 0, "build");
	test_lookup(ref, idx);

	CHECK(sm_index_save(idx, path) == 0, "save");
	back = sm_index_load(path, ref);
	CHECK(back && back->n_key == idx->n_key &&
	      memcmp(back->pos, idx->pos, (size_t)idx->start[idx->n_key] * sizeof *idx->pos) == 0,
	      "load round trip");
	sm_index_destroy(back);

	printf("# three errors are expected below\n");
	fflush(stdout);
	CHECK(sm_index_load(path, other) == NULL, "index of another reference rejected");
	fp = fopen(path, "r+b");
	fseek(fp, 0, SEEK_END);
	size = ftell(fp);
	fclose(fp);
	CHECK(truncate(path, size - 8) == 0 && sm_index_load(path, ref) == NULL, "truncated rejected");
	fp = fopen(path, "wb");
	fputs(">not an index\nACGT\n", fp);
	fclose(fp);
	CHECK(sm_index_load(path, ref) == NULL, "non-index rejected");

	remove(path);
	sm_index_destroy(idx);
	sm_ref_destroy(ref);
	sm_ref_destroy(other);
	printf("test_index: %d passed, %d failed\n", n_pass, n_fail);
	return n_fail != 0;
}
