/* read_through_count.c — sm_read_through (mapper/readthrough.h) alone over
 * a pair set: how many pairs it takes for read-through, what it costs a
 * pair, and, given read_through_sim.py's truth, how many of the pairs that
 * read through it finds.
 *
 *   build/benchmarks/read_through_count R1.fq[.gz] R2.fq[.gz] [TRUTH.tsv]
 *
 * Prints the pairs, those found, and ns a pair (the calls alone, the best
 * of five passes over the pairs held in memory).  With TRUTH (a line per
 * pair in the files' order: name, contig, start, fragment length, strand),
 * also the pairs whose fragment the test can see (SM_RT_MIN_FRAGMENT or
 * longer and SM_RT_MIN_TAIL bases shorter than both reads or more), those
 * found at their length, found at another, and found among the rest.
 * Without TRUTH, on pairs of fragments longer than the reads, every pair
 * found is one taken for read-through wrongly.  Then the same for read 1
 * alone as a single read: sm_adapter_start's reads found (a known adapter)
 * and ns a read. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/clock.h"
#include "io/fastq.h"
#include "mapper/readthrough.h"

#define PASSES 5

/* The best of PASSES passes' seconds over the n pairs seq, len (read 1 at
 * 2k, read 2 at 2k + 1): sm_read_through of each pair, or with single
 * sm_adapter_start of each read 1; *found: how many it took. */
static double best_of(char **seq, const int32_t *len, int64_t n, int single, int64_t *found)
{
	double best = 0;

	for (int p = 0; p < PASSES; p++) {
		double t = sm_seconds();

		*found = 0;
		for (int64_t k = 0; k < n; k++)
			*found += (single ? sm_adapter_start(seq[2 * k], len[2 * k]) :
				   sm_read_through(seq[2 * k], len[2 * k], seq[2 * k + 1],
						   len[2 * k + 1])) > 0;
		t = sm_seconds() - t;
		best = p == 0 || t < best ? t : best;
	}
	return best;
}

int main(int argc, char **argv)
{
	sm_fastq_t *f[2];
	sm_read_t r[2] = { { 0 }, { 0 } };
	char **seq = NULL;
	int32_t *len = NULL;
	int64_t n = 0, m = 0, found = 0;
	double best = 0;
	FILE *truth = NULL;
	int rc;

	if (argc < 3 || argc > 4) {
		fprintf(stderr, "usage: read_through_count R1.fq[.gz] R2.fq[.gz] [TRUTH.tsv]\n");
		return 1;
	}
	if (!(f[0] = sm_fastq_open(argv[1])) || !(f[1] = sm_fastq_open(argv[2])))
		return 1;
	if (argc == 4 && !(truth = fopen(argv[3], "r"))) {
		perror(argv[3]);
		return 1;
	}
	while ((rc = sm_fastq_next(f[0], &r[0])) == 1 && (rc = sm_fastq_next(f[1], &r[1])) == 1) {
		if (n == m) {
			m = m ? 2 * m : 1 << 16;
			seq = realloc(seq, (size_t)(2 * m) * sizeof *seq);
			len = realloc(len, (size_t)(2 * m) * sizeof *len);
			if (!seq || !len)
				return 1;
		}
		for (int e = 0; e < 2; e++) {
			seq[2 * n + e] = strdup(r[e].seq);
			len[2 * n + e] = r[e].len;
		}
		n++;
	}
	if (rc < 0)
		return 1;
	best = best_of(seq, len, n, 0, &found);
	printf("%lld pairs, %lld found, %.0f ns a pair\n", (long long)n, (long long)found,
	       n ? 1e9 * best / (double)n : 0.0);
	if (truth) {
		int64_t seen = 0, at = 0, other = 0, rest = 0;
		char name[256], contig[256], strand[8];
		long long start;
		int frag;

		for (int64_t k = 0; k < n; k++) {
			const int32_t shorter = len[2 * k] < len[2 * k + 1] ? len[2 * k] : len[2 * k + 1];
			int32_t got;

			if (fscanf(truth, "%255s %255s %lld %d %7s", name, contig, &start, &frag, strand) != 5) {
				fprintf(stderr, "%s: fewer lines than pairs\n", argv[3]);
				return 1;
			}
			got = sm_read_through(seq[2 * k], len[2 * k], seq[2 * k + 1], len[2 * k + 1]);
			if (frag >= SM_RT_MIN_FRAGMENT && frag + SM_RT_MIN_TAIL <= shorter) {
				seen++;
				at += got == frag;
				other += got > 0 && got != frag;
			} else {
				rest += got > 0;
			}
		}
		printf("%lld pairs whose fragment the test can see: %lld found at their length, %lld at "
		       "another; %lld found among the rest\n", (long long)seen, (long long)at,
		       (long long)other, (long long)rest);
		fclose(truth);
	}
	best = best_of(seq, len, n, 1, &found);
	printf("read 1 alone: %lld reads, %lld with a known adapter, %.0f ns a read\n", (long long)n,
	       (long long)found, n ? 1e9 * best / (double)n : 0.0);
	for (int64_t k = 0; k < 2 * n; k++)
		free(seq[k]);
	free(seq);
	free(len);
	sm_read_free(&r[0]);
	sm_read_free(&r[1]);
	sm_fastq_close(f[0]);
	sm_fastq_close(f[1]);
	return 0;
}
