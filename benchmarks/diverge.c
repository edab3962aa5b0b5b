/* diverge.c — a large reference made of diverged copies of a small one, for
 * benchmarks/genome_scale.sh.
 *
 *   build/benchmarks/diverge IN.fa COPIES SEED [MIN MAX] > OUT.fa
 *
 * Writes COPIES copies of every contig of IN.fa (plain FASTA), named
 * NAME_cI (I = 1..COPIES).  Copy I differs from the original by
 * substitutions at a rate from MIN to MAX (fractions, default SM_DIV_MIN
 * and SM_DIV_MAX; spread evenly over the copies) and small indels (1..SM_INDEL_MAX bases) at a tenth of that
 * rate, drawn from its own stream of a fixed-seed generator (SEED + I), so
 * the output depends on the arguments alone.  Ambiguous letters (N runs)
 * are kept as they are; output letters are uppercase, 60 a line. */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SM_DIV_MIN 0.01
#define SM_DIV_MAX 0.03
#define SM_INDEL_SHARE 0.1
#define SM_INDEL_MAX 5
#define SM_LINE 60

static uint64_t rng;

static uint64_t next(void)   /* xorshift64* */
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 2685821657736338717ull;
}

static double unit(void)
{
	return (double)(next() >> 11) / (double)(1ull << 53);
}

typedef struct {
	char *name;
	char *seq;
	size_t len;
} contig_t;

static int col;

static void put(char c)
{
	putchar(c);
	if (++col == SM_LINE) {
		putchar('\n');
		col = 0;
	}
}

int main(int argc, char **argv)
{
	FILE *fp;
	contig_t *ctg = NULL;
	size_t n = 0, cap_line = 0;
	char *line = NULL;
	ssize_t got;
	int copies;
	uint64_t seed;
	double div_min = argc == 6 ? atof(argv[4]) : SM_DIV_MIN;
	double div_max = argc == 6 ? atof(argv[5]) : SM_DIV_MAX;

	if ((argc != 4 && argc != 6) || !(div_min >= 0 && div_min <= div_max && div_max < 0.75) ||
	    !(fp = fopen(argv[1], "r"))) {
		fprintf(stderr, "usage: diverge IN.fa COPIES SEED [MIN MAX] > OUT.fa\n");
		return 2;
	}
	copies = atoi(argv[2]);
	seed = strtoull(argv[3], NULL, 10);
	while ((got = getline(&line, &cap_line, fp)) >= 0) {
		while (got > 0 && isspace((unsigned char)line[got - 1]))
			line[--got] = 0;
		if (line[0] == '>') {
			ctg = realloc(ctg, (n + 1) * sizeof *ctg);
			ctg[n].name = strndup(line + 1, strcspn(line + 1, " \t"));
			ctg[n].seq = NULL;
			ctg[n++].len = 0;
		} else if (n && got > 0) {
			contig_t *c = &ctg[n - 1];

			c->seq = realloc(c->seq, c->len + (size_t)got + 1);
			for (ssize_t i = 0; i < got; i++)
				c->seq[c->len++] = (char)toupper((unsigned char)line[i]);
		}
	}
	fclose(fp);
	for (int k = 1; k <= copies; k++) {
		double sub = copies > 1 ? div_min + (div_max - div_min) * (k - 1) / (copies - 1) : div_min;
		double indel = sub * SM_INDEL_SHARE;

		rng = (seed + (uint64_t)k) * 0x9E3779B97F4A7C15ull | 1;
		for (size_t c = 0; c < n; c++) {
			const char *s = ctg[c].seq;

			printf(">%s_c%d\n", ctg[c].name, k);
			col = 0;
			for (size_t i = 0; i < ctg[c].len; i++) {
				double u = unit();
				char b = s[i];

				if (!strchr("ACGT", b) || u >= sub + indel) {
					put(b);
				} else if (u < sub) {   /* another of the three bases */
					const char *acgt = "ACGT";
					put(acgt[(strchr(acgt, b) - acgt + 1 + (int)(next() % 3)) % 4]);
				} else if (next() & 1) {  /* an insertion after this base */
					put(b);
					for (int t = 1 + (int)(next() % SM_INDEL_MAX); t > 0; t--)
						put("ACGT"[next() % 4]);
				} else {                  /* a deletion from this base */
					i += (size_t)(next() % SM_INDEL_MAX);
				}
			}
			if (col)
				putchar('\n');
		}
	}
	return ferror(stdout) || fflush(stdout) ? 1 : 0;
}
