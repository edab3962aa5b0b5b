/* origin_score.c — the exact Smith-Waterman score of reads at their
 * simulated origin, for benchmarks/seeded_misses.sh.
 *
 *   origin_score [-m MARGIN] [-A MATCH -B MISMATCH -O OPEN -E EXTEND -L CLIP] REF.fa < IN.tsv > OUT.tsv
 *
 * IN.tsv: one read a line, `key<TAB>contig<TAB>start<TAB>end<TAB>strand<TAB>seq`,
 * start and end 1-based inclusive (the origin's reference span), strand `+`
 * or `-` (on `-` the read is the reverse complement of the reference there),
 * seq the read as sequenced.  OUT.tsv: `key<TAB>score`, the best objective
 * (scan.h: the local alignment score plus the clipping bonus -L, CLIP, 5 as
 * in scanmap and bwa mem, for each read end reached) of the read, on its
 * origin strand, against the origin
 * widened by MARGIN (50) bases on each side and clipped to the contig:
 * sm_scan_oracle() (scan.h, the plain Gotoh recurrence every engine is
 * tested against) over that window as a one-contig reference.  The score
 * is what an exhaustive scan of the whole reference would find there, so a
 * mapper's AS plus its bonuses (benchmarks/seeded_eval.py) below it means
 * the mapper missed the read's own locus.
 * Exit 0, or 1 after a message naming the line at fault. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/base.h"
#include "io/log.h"
#include "io/ref.h"
#include "mapper/scan.h"
#include "mapper/score.h"

#define DEFAULT_MARGIN 50
#define LINE_MAX_LEN (1 << 20)
#define N_FIELDS 6

static int contig_index(const sm_ref_t *ref, const char *name)
{
	for (int32_t c = 0; c < ref->n_contig; c++)
		if (strcmp(ref->name[c], name) == 0)
			return c;
	return -1;
}

int main(int argc, char **argv)
{
	sm_score_t sc = { .match = SM_DEFAULT_MATCH, .mismatch = SM_DEFAULT_MISMATCH,
			  .gap_open = SM_DEFAULT_GAP_OPEN, .gap_ext = SM_DEFAULT_GAP_EXTEND,
			  .clip5 = SM_DEFAULT_CLIP, .clip3 = SM_DEFAULT_CLIP };
	long margin = DEFAULT_MARGIN, line_no = 0;
	sm_ref_t *ref = NULL;
	char *line = malloc(LINE_MAX_LEN);
	uint8_t *q = malloc(LINE_MAX_LEN);
	int opt;

	while ((opt = getopt(argc, argv, "m:A:B:O:E:L:")) >= 0) {
		switch (opt) {
		case 'm': margin = atol(optarg); break;
		case 'A': sc.match = atoi(optarg); break;
		case 'B': sc.mismatch = atoi(optarg); break;
		case 'O': sc.gap_open = atoi(optarg); break;
		case 'E': sc.gap_ext = atoi(optarg); break;
		case 'L': sc.clip5 = sc.clip3 = atoi(optarg); break;
		default: goto usage;
		}
	}
	if (optind + 1 != argc || !line || !q)
		goto usage;
	if (sm_ref_load(argv[optind], &ref) < 0)
		return 1;
	while (fgets(line, LINE_MAX_LEN, stdin)) {
		char *f[N_FIELDS], *save = NULL, *tok = strtok_r(line, "\t\n", &save);
		int nf = 0, c;
		long start, end;
		int64_t lo, hi, len;
		int32_t n;
		sm_ref_t view;
		sm_query_t query;
		sm_scan_t out;
		static const int64_t zero = 0;

		line_no++;
		for (; tok && nf < N_FIELDS; tok = strtok_r(NULL, "\t\n", &save))
			f[nf++] = tok;
		if (nf != N_FIELDS || (c = contig_index(ref, f[1])) < 0 ||
		    (start = atol(f[2])) < 1 || (end = atol(f[3])) < start ||
		    (f[4][0] != '+' && f[4][0] != '-')) {
			fprintf(stderr, "origin_score: line %ld: expected key, a contig of %s, "
				"start <= end (1-based), +/-, sequence\n", line_no, argv[optind]);
			return 1;
		}
		n = (int32_t)strlen(f[5]);
		for (int32_t i = 0; i < n; i++) {
			uint8_t b = sm_nt4_table[(unsigned char)f[5][i]];

			if (f[4][0] == '-')   /* the read's reverse complement */
				q[n - 1 - i] = b < SM_BASE_N ? (uint8_t)(SM_BASE_N - 1 - b) : b;
			else
				q[i] = b;
		}
		lo = start - 1 - margin < 0 ? 0 : start - 1 - margin;
		hi = end + margin > ref->len[c] ? ref->len[c] : end + margin;
		len = hi - lo;
		memset(&view, 0, sizeof view);
		view.n_contig = 1;
		view.len = &len;
		view.offset = (int64_t *)&zero;
		view.total = len;
		view.seq = ref->seq + ref->offset[c] + lo;
		query.seq = q;
		query.len = n;
		if (len <= 0 || n == 0 || sm_scan_oracle(&view, &sc, &query, &out) == 0) {
			printf("%s\t0\n", f[0]);
			continue;
		}
		printf("%s\t%d\n", f[0], out.n > 0 ? out.top[0].score : 0);
	}
	sm_ref_destroy(ref);
	free(line);
	free(q);
	return fflush(stdout) == 0 && !ferror(stdout) ? 0 : 1;
usage:
	fprintf(stderr, "usage: origin_score [-m MARGIN] [-A -B -O -E -L] REF.fa < IN.tsv > OUT.tsv\n");
	return 1;
}
