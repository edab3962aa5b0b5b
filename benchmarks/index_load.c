/* index_load.c — what the index file's checksum and structural checks add
 * to loading it (mapper/index.h).
 *
 *   build/benchmarks/index_load REF.fa REF.fa.smi [ROUNDS]
 *
 * Per round: the time of sm_index_load(), then of sm_index_checksum() over
 * the same bytes once more, now in memory: the share of the load that
 * checking the checksum costs where the data is already in memory (the
 * loader sums each chunk right after reading it, while it is in cache).
 * The first pass over freshly read pages can cost more than the arithmetic
 * on some virtual machines; mapping pays it either way. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "io/ref.h"
#include "mapper/index.h"

#define DEFAULT_ROUNDS 3

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	sm_ref_t *ref;
	int rounds = argc > 3 ? atoi(argv[3]) : DEFAULT_ROUNDS;

	if (argc < 3) {
		fprintf(stderr, "usage: index_load REF.fa REF.fa.smi [ROUNDS]\n");
		return 2;
	}
	if (sm_ref_load(argv[1], &ref) < 0)
		return 1;
	for (int r = 0; r < rounds; r++) {
		double t0 = now(), t_load, t_sum;
		sm_index_t *idx = sm_index_load(argv[2], ref);
		int64_t n_pos;
		uint64_t s;

		if (!idx)
			return 1;
		t_load = now() - t0;
		n_pos = idx->start[idx->n_key];
		t0 = now();
		s = sm_index_checksum(idx->key, (size_t)idx->n_key * sizeof *idx->key) ^
		    sm_index_checksum(idx->start, (size_t)(idx->n_key + 1) * sizeof *idx->start) ^
		    sm_index_checksum(idx->pos, (size_t)n_pos * sizeof *idx->pos);
		t_sum = now() - t0;
		printf("load %.3f s, checksum of the %.1f MB in memory %.3f s (%.1f%% of the load) [%llx]\n",
		       t_load, (double)(idx->n_key * 12 + n_pos * 8) / 1e6, t_sum,
		       100.0 * t_sum / t_load, (unsigned long long)(s & 0xf));
		sm_index_destroy(idx);
	}
	sm_ref_destroy(ref);
	return 0;
}
