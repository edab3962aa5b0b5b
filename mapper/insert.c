/* insert.c — the insert-size model of paired runs (scanmap.h,
 * sm_ctx_estimate_inserts; the constants are in map_impl.h). */
#include "mapper/map_impl.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* The distribution of inserts[0..n) (sorted in place) into *ins. */
static void insert_stats(int64_t *ins, int n, insert_t *out)
{
	double q1, q3, lo, hi, sum = 0, sum2 = 0;
	int m = 0;

	memset(out, 0, sizeof *out);
	if (n < SM_INSERT_MIN_PAIRS)
		return;
	qsort(ins, (size_t)n, sizeof *ins, cmp_i64);
	q1 = (double)ins[n / SM_QUARTILE];
	q3 = (double)ins[n - 1 - n / SM_QUARTILE];
	lo = q1 - SM_INSERT_IQR_FENCE * (q3 - q1);
	hi = q3 + SM_INSERT_IQR_FENCE * (q3 - q1);
	for (int k = 0; k < n; k++)
		if ((double)ins[k] >= lo && (double)ins[k] <= hi) {
			sum += (double)ins[k];
			sum2 += (double)ins[k] * (double)ins[k];
			m++;
		}
	if (m < SM_INSERT_MIN_PAIRS)
		return;
	out->ok = 1;
	out->n = m;
	out->mean = sum / m;
	out->sd = m > 1 ? sqrt((sum2 - sum * sum / m) / (m - 1)) : 0.0;
	out->lo = (int64_t)floor(out->mean - SM_INSERT_SD_RANGE * out->sd);
	out->hi = (int64_t)ceil(out->mean + SM_INSERT_SD_RANGE * out->sd);
	if (out->lo < 1)
		out->lo = 1;
}

/* The shortest decimal form of v that reads back as v (at most 17 digits). */
static void fmt_exact(char *buf, size_t size, double v)
{
	for (int prec = 1; prec <= DBL_DECIMAL_DIG; prec++) {
		snprintf(buf, size, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			return;
	}
}

/* Logs the model as the -I value that sets exactly this model, so that a
 * run over part of the reads (a shard) can use the one the whole run
 * estimates (workflow/Snakefile reads this line). */
static void log_insert_model(const insert_t *ins)
{
	char mean[32], sd[32];

	fmt_exact(mean, sizeof mean, ins->mean);
	fmt_exact(sd, sizeof sd, ins->sd);
	sm_log(SM_LOG_INFO, "insert size model: -I %s,%s,%lld,%lld", mean, sd,
	       (long long)ins->hi, (long long)ins->lo);
}

int sm_ctx_set_inserts(sm_ctx_t *ctx, double mean, double sd, int64_t min, int64_t max)
{
	if (min < 1 || min > max || max > SM_INSERT_MAX_LIMIT || !(sd >= 0)) {
		sm_log(SM_LOG_ERROR, "insert-size model: proper pairs %lld..%lld, sd %g: want "
		       "1 <= min <= max <= %d and sd >= 0", (long long)min, (long long)max, sd,
		       SM_INSERT_MAX_LIMIT);
		return -1;
	}
	free(ctx->ins.score);
	memset(&ctx->ins, 0, sizeof ctx->ins);
	ctx->ins.ok = 1;
	ctx->ins.mean = mean;
	ctx->ins.sd = sd;
	ctx->ins.lo = min;
	ctx->ins.hi = max;
	sm_log(SM_LOG_INFO, "insert size from -I: mean %g, sd %g; proper pairs %lld..%lld",
	       mean, sd, (long long)min, (long long)max);
	return sm_pair_insert_table(ctx);
}

/* From the pairs that map uniquely, read by read, on one contig facing
 * each other: the same pairs whatever -t and the batch size, so the same
 * distribution. */
int sm_ctx_estimate_inserts(sm_ctx_t *ctx, sm_batch_t *const *b, int n)
{
	int n_pairs = 0, n_ins = 0;
	int64_t *ins;

	for (int t = 0; t < n; t++)
		n_pairs += b[t]->n / SM_STRANDS;
	if (n_pairs > SM_INSERT_SAMPLE_PAIRS)
		n_pairs = SM_INSERT_SAMPLE_PAIRS;
	free(ctx->ins.score);
	memset(&ctx->ins, 0, sizeof ctx->ins);
	ins = malloc(((size_t)n_pairs + 1) * sizeof *ins);
	if (!ins) {
		sm_log(SM_LOG_ERROR, "out of memory estimating insert sizes");
		return -1;
	}
	for (int t = 0, seen = 0; t < n && seen < n_pairs; t++)
		for (int k = 0; k + 1 < b[t]->n && seen < n_pairs; k += SM_STRANDS, seen++) {
			const res_t *x = &b[t]->res[k], *y = &b[t]->res[k + 1];
			int64_t v;

			if (!b[t]->premapped || x->prim < 0 || y->prim < 0 ||
			    sm_pair_read_mapq(ctx, &x->cand[0], b[t]->reads[k].len) < SM_INSERT_MIN_MAPQ ||
			    sm_pair_read_mapq(ctx, &y->cand[0], b[t]->reads[k + 1].len) <
			    SM_INSERT_MIN_MAPQ)
				continue;
			v = sm_pair_insert(ctx, &x->cand[0], &y->cand[0]);
			if (v > 0 && v <= SM_INSERT_SAMPLE_MAX)
				ins[n_ins++] = v;
		}
	insert_stats(ins, n_ins, &ctx->ins);
	free(ins);
	if (ctx->ins.ok) {
		sm_log(SM_LOG_INFO, "insert size from %d of the first %d pairs: mean %.1f, "
		       "sd %.1f; proper pairs %lld..%lld", ctx->ins.n, n_pairs, ctx->ins.mean,
		       ctx->ins.sd, (long long)ctx->ins.lo, (long long)ctx->ins.hi);
		log_insert_model(&ctx->ins);
	} else if (n_pairs > 0)
		sm_log(SM_LOG_WARNING, "insert size: only %d uniquely mapped pairs among the "
		       "first %d (%d needed): no pair is proper, no mate is rescued", n_ins,
		       n_pairs, SM_INSERT_MIN_PAIRS);
	return sm_pair_insert_table(ctx);
}
