/* odds.c — what a read's base qualities say about two loci: the odds that
 * the read came from a rival locus rather than from its pick, from the
 * bases where the two loci differ (see map_impl.h).  Pairs weigh their
 * rivals so (pair.c, rival_quality_weight); a single read's MAPQ is capped
 * so (sm_single_odds_mapq). */
#include "mapper/map_impl.h"

#include <math.h>
#include <stdint.h>

/* The reference base at global column x as a read on strand is_rev shows
 * it when it matches: complemented on the reverse strand. */
static inline uint8_t shown_base(const sm_ref_t *ref, int64_t x, int is_rev)
{
	uint8_t g = ref->seq[x];

	return is_rev && g < SM_BASE_N ? (uint8_t)(3 - g) : g;
}

/* The base the read's position j shows at candidate c (diagonal d, read
 * of n bases) when it matches. */
static inline uint8_t locus_base(const sm_ref_t *ref, const cand_t *c, int64_t d, int32_t n,
				 int32_t j)
{
	return shown_base(ref, c->is_rev ? d + n - 1 - j : d + j, c->is_rev);
}

int sm_whole_ungapped(const sm_ctx_t *ctx, const cand_t *c, const uint8_t *q0, int32_t n)
{
	const sm_score_t *sc = &ctx->opt.score;
	int32_t m = sm_seed_subs_at(ctx->ref, q0, n, c->is_rev, c->end - n + 1, n, NULL);

	return m <= n && c->score == sm_best_possible(sc, n) - (int64_t)m * (sc->match + sc->mismatch);
}

/* The score of read base x against a locus base g, both A/C/G/T. */
static inline int32_t base_score(const sm_score_t *sc, uint8_t x, uint8_t g)
{
	return x == g ? sc->match : -sc->mismatch;
}

/* Folds read position j (forward code x, locus bases a at the pick and b at
 * the rival) into the odds of the rival over the pick and, unless lead is
 * NULL, into the pick's score lead: a base that is not its locus's is a
 * sequencing error of chance e / 3 (e from its quality; sm_sub_odds).  -1
 * when an N is among them, else 0. */
static int odds_at(const sm_score_t *sc, const sm_read_t *r, int32_t j, uint8_t x, uint8_t a,
		   uint8_t b, double *odds, int64_t *lead)
{
	if (a == b)
		return 0;
	if (a >= SM_BASE_N || b >= SM_BASE_N || x >= SM_BASE_N)
		return -1;
	if (x == a)
		*odds *= sm_sub_odds(r, j);
	else if (x == b)
		*odds /= sm_sub_odds(r, j);
	if (lead)
		*lead += base_score(sc, x, a) - base_score(sc, x, b);
	return 0;
}

double sm_ungapped_odds(const sm_ctx_t *ctx, const sm_read_t *r, const uint8_t *q0,
			    const cand_t *p, const cand_t *o)
{
	const int32_t n = r->len;
	const int64_t dp = p->end - n + 1, dq = o->end - n + 1;
	double odds = 1;

	if (!sm_whole_ungapped(ctx, o, q0, n))
		return -1;
	for (int32_t j = 0; j < n; j++)
		if (odds_at(&ctx->opt.score, r, j, q0[j], locus_base(ctx->ref, p, dp, n, j),
			    locus_base(ctx->ref, o, dq, n, j), &odds, NULL) < 0)
			return -1;
	return odds;
}

/* Operation t of traced candidate c's CIGAR counted from the read's first
 * base (a reverse-strand alignment's CIGAR runs from its last). */
static inline uint32_t read_order_op(const cand_t *c, int32_t t)
{
	return c->aln.cigar[c->is_rev ? c->aln.n_cigar - 1 - t : t];
}

/* 1 if traced candidates p and o align the whole read, unclipped, with the
 * same gaps after the same read bases: their scores then differ only where
 * the bases the two loci show differ. */
static int same_shape(const cand_t *p, const cand_t *o)
{
	if (!p->traced || !o->traced || p->aln.n_cigar != o->aln.n_cigar || p->aln.q_start != 0 ||
	    o->aln.q_start != 0 || p->aln.q_end != p->qlen || o->aln.q_end != o->qlen)
		return 0;
	for (int32_t t = 0; t < p->aln.n_cigar; t++)
		if (read_order_op(p, t) != read_order_op(o, t))
			return 0;
	return 1;
}

double sm_aligned_odds(const sm_ctx_t *ctx, const sm_read_t *r, const uint8_t *q0,
			   const cand_t *p, const cand_t *o)
{
	const cand_t *c[2] = { p, o };
	int64_t x[2], step[2], lead = 0;
	int32_t j = 0;
	double odds = 1;

	if (!same_shape(p, o))
		return -1;
	for (int i = 0; i < 2; i++) {
		x[i] = c[i]->is_rev ? c[i]->aln.ref_end - 1 : c[i]->aln.ref_start;
		step[i] = c[i]->is_rev ? -1 : 1;
	}
	for (int32_t t = 0; t < p->aln.n_cigar; t++) {
		uint32_t op = read_order_op(p, t);
		int32_t len = (int32_t)bam_cigar_oplen(op);

		switch (bam_cigar_op(op)) {
		case BAM_CMATCH:
			for (int32_t k = 0; k < len; k++, j++) {
				uint8_t a = shown_base(ctx->ref, x[0], p->is_rev);
				uint8_t b = shown_base(ctx->ref, x[1], o->is_rev);

				x[0] += step[0];
				x[1] += step[1];
				if (odds_at(&ctx->opt.score, r, j, q0[j], a, b, &odds, &lead) < 0)
					return -1;
			}
			break;
		case BAM_CINS:
			j += len;
			break;
		default: /* BAM_CDEL: the only other operation (align.h) */
			for (int i = 0; i < 2; i++)
				x[i] += step[i] * len;
			break;
		}
	}
	return j == r->len && lead == (int64_t)p->score - o->score ? odds : -1;
}

int sm_odds_mapq(double odds)
{
	double q;

	if (odds <= 0)
		return SM_MAPQ_MAX;
	q = floor(-10.0 * log10(odds / (1 + odds)));
	return q < 0 ? 0 : q > SM_MAPQ_MAX ? SM_MAPQ_MAX : (int)q;
}

int sm_single_odds_mapq(const sm_ctx_t *ctx, const res_t *res, const cand_t *c, const sm_read_t *r,
			const sm_query_t *q)
{
	const int32_t n = r->len;
	int64_t seen[SM_MAX_CAND];   /* rivals priced, each diagonal once: 2 d + strand */
	double odds = 0;
	int priced = 0;

	if (!sm_whole_ungapped(ctx, c, q[0].seq, n))
		return SM_MAPQ_MAX;
	for (int k = 0; k < res->n_cand; k++) {
		const cand_t *o = &res->cand[k];
		const int64_t at = 2 * (o->end - n + 1) + o->is_rev;
		double o_odds;
		int dup = 0;

		if (o == c || o->score >= c->score)
			continue;
		for (int t = 0; t < priced && !dup; t++)
			dup = seen[t] == at;
		if (dup || (o_odds = sm_ungapped_odds(ctx, r, q[0].seq, c, o)) < 0)
			continue;
		odds += o_odds;
		seen[priced++] = at;
	}
	return sm_odds_mapq(odds);
}
