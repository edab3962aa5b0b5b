/* example.c — maps single-end FASTQ reads through the library (scanmap.h)
 * and prints SAM: the records `scanmap map REF READS` writes.
 *
 *   build/examples/example examples/lambda_8k.fa.gz examples/reads.fq
 *
 * One thread, one per-thread buffer, one batch reused: a program with
 * several threads gives each its own buffer and batches, with one context.
 * The FASTQ parsing here is the minimum for the bundled example (four
 * lines per record); `scanmap map` reads any FASTQ. */
#include <htslib/kstring.h>
#include <htslib/sam.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mapper/scanmap.h"

/* Reads per call of sm_map_batch. */
#define BATCH_READS 256
#define LINE_MAX_LEN 4096

/* Strips the line end in place; returns s. */
static char *chomp(char *s)
{
	s[strcspn(s, "\r\n")] = '\0';
	return s;
}

/* Maps b and prints its records; returns 0 or -1. */
static int flush(const sm_ctx_t *ctx, sm_tbuf_t *buf, sm_batch_t *b, const sam_hdr_t *h)
{
	kstring_t line = KS_INITIALIZE;
	int rc = 0;

	if (sm_batch_n_reads(b) == 0)
		return 0;
	if (sm_map_batch(ctx, buf, b, 0) < 0)
		return -1;
	for (int k = 0; k < sm_batch_n_rec(b) && rc == 0; k++) {
		line.l = 0;
		rc = sam_format1(h, sm_batch_rec(b, k), &line) < 0 ? -1 : 0;
		if (rc == 0 && (fwrite(line.s, 1, line.l, stdout) != line.l || putchar('\n') == EOF))
			rc = -1;
	}
	free(line.s);
	sm_batch_clear(b);
	return rc;
}

int main(int argc, char **argv)
{
	static char name[LINE_MAX_LEN], seq[LINE_MAX_LEN], plus[LINE_MAX_LEN], qual[LINE_MAX_LEN];
	sm_mapopt_t opt;
	sm_ctx_t *ctx = NULL;
	sm_tbuf_t *buf = NULL;
	sm_batch_t *b = NULL;
	sam_hdr_t *h = NULL;
	FILE *fq = NULL;
	int rc = 1;

	if (argc != 3) {
		fprintf(stderr, "usage: %s REF.fa[.gz] READS.fq\n", argv[0]);
		return 1;
	}
	sm_set_verbosity(1);   /* errors only */
	sm_mapopt_init(&opt);  /* scanmap map's defaults */
	if (sm_mapopt_check(&opt) < 0)
		return 1;
	if (!(fq = fopen(argv[2], "r"))) {
		perror(argv[2]);
		return 1;
	}
	if (!(ctx = sm_ctx_create(argv[1], &opt)) || !(buf = sm_tbuf_create(ctx)) ||
	    !(b = sm_batch_create()) || !(h = sm_ctx_sam_header(ctx, NULL)))
		goto out;
	if (sam_hdr_length(h) && fputs(sam_hdr_str(h), stdout) == EOF)
		goto out;
	while (fgets(name, sizeof name, fq)) {
		if (!fgets(seq, sizeof seq, fq) || !fgets(plus, sizeof plus, fq) ||
		    !fgets(qual, sizeof qual, fq) || name[0] != '@') {
			fprintf(stderr, "%s: not four-line FASTQ\n", argv[2]);
			goto out;
		}
		if (sm_batch_add(b, chomp(name) + 1, NULL, chomp(seq), chomp(qual)) < 0)
			goto out;
		if (sm_batch_n_reads(b) == BATCH_READS && flush(ctx, buf, b, h) < 0)
			goto out;
	}
	if (flush(ctx, buf, b, h) < 0 || fflush(stdout) != 0)
		goto out;
	rc = 0;
out:
	if (h)
		sam_hdr_destroy(h);
	sm_batch_destroy(b);
	sm_tbuf_destroy(buf);   /* before its context */
	sm_ctx_destroy(ctx);
	fclose(fq);
	return rc;
}
