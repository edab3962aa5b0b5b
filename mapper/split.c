/* split.c — alternative hits (XA), mate CIGAR (MC) and comment tags of a
 * read's records (see split.h). */
#include "mapper/split.h"

#include <stdlib.h>
#include <string.h>

#include "mapper/tags.h"

/* The read interval [*s, *e) that candidate c aligns, in the read's own
 * (forward) orientation, so that the two strands compare. */
static void read_interval(const cand_t *c, int32_t *s, int32_t *e)
{
	*s = c->is_rev ? c->qlen - c->aln.q_end : c->aln.q_start;
	*e = c->is_rev ? c->qlen - c->aln.q_start : c->aln.q_end;
}

/* 1 if traced candidates a and b cover the same part of the read: their
 * read intervals overlap by SM_MASK_LEVEL of the shorter one or more (bwa
 * mem's test for a secondary hit, mem_mark_primary_se). */
static int same_part(const cand_t *a, const cand_t *b)
{
	int32_t as, ae, bs, be, lo, hi, shorter;

	read_interval(a, &as, &ae);
	read_interval(b, &bs, &be);
	lo = as > bs ? as : bs;
	hi = ae < be ? ae : be;
	shorter = ae - as < be - bs ? ae - as : be - bs;
	return hi > lo && hi - lo >= SM_MASK_LEVEL * shorter;
}

/* 1 if traced candidates a and b share reference bases on one strand: the
 * same alignment, found twice (a remnant in a neighbouring locus bin). */
static int same_bases(const cand_t *a, const cand_t *b)
{
	return a->is_rev == b->is_rev && a->aln.ref_start < b->aln.ref_end &&
	       b->aln.ref_start < a->aln.ref_end;
}

/* XA:Z of the primary record of read r (results me, queries q): the
 * candidates that cover the same part of the read as the primary c, on
 * other bases, scoring at least SM_XA_DROP_RATIO of it, best first; none
 * when there are more than -h of them.  Candidates are the engine's
 * SM_TOPK best loci per strand (and pairing's): when a strand's are all at
 * the threshold or above, more may lie beyond them, and XA is left out as
 * bwa leaves it out for more than -h hits. */
static int xa_tag(pipe_t *p, worker_ws_t *ws, bam1_t *rec, const sm_read_t *r,
		  const sm_query_t *q, res_t *me)
{
	const sm_opt_t *o = p->opt;
	const cand_t *c = &me->cand[me->prim];
	const cand_t *alt[SM_MAX_CAND];
	double thr = c->score * SM_XA_DROP_RATIO;
	int n_alt = 0, per_strand[SM_STRANDS] = { 0, 0 }, rc = 0;
	kstring_t s = KS_INITIALIZE;

	if (o->all_hits || o->xa_max == 0)
		return 0;
	for (int k = 0; k < me->n_cand; k++)
		if (me->cand[k].score >= thr && ++per_strand[me->cand[k].is_rev] >= SM_TOPK)
			return 0;
	for (int k = 0; k < me->n_cand; k++) {
		cand_t *a = &me->cand[k];
		int dup = 0;

		if (a == c || a->score < thr)
			continue;
		if (sm_map_ensure_traced(p, ws, me, r, q, a) < 0)
			return -1;
		if (same_bases(a, c) || !same_part(a, c))
			continue;
		for (int t = 0; t < n_alt && !dup; t++)
			dup = same_bases(a, alt[t]);
		if (!dup)
			alt[n_alt++] = a;
	}
	if (n_alt == 0 || n_alt > o->xa_max)
		return 0;
	for (int t = 0; t < n_alt && rc == 0; t++) {
		int32_t nm;

		rc = sm_record_nm(r, p->ref, alt[t]->is_rev, &alt[t]->aln, &ws->rws, &nm) < 0 ||
		     sm_tags_xa_entry(&s, p->ref, alt[t]->is_rev, &alt[t]->aln, r->len, nm) < 0 ? -1 : 0;
	}
	if (rc == 0)
		rc = bam_aux_append(rec, "XA", 'Z', (int)s.l + 1, (const uint8_t *)s.s);
	free(s.s);
	return rc;
}

int sm_split_tags(pipe_t *p, worker_ws_t *ws, bam1_t *rec, const sm_read_t *r,
		  const sm_query_t *q, res_t *res, int e, int n_unit, int primary)
{
	const res_t *mate = n_unit > 1 ? &res[!e] : NULL;
	int rc = 0;

	if (mate && mate->prim >= 0)
		rc = sm_tags_mc(rec, &mate->cand[mate->prim].aln, r[!e].len);
	if (rc == 0 && primary && res[e].prim >= 0)
		rc = xa_tag(p, ws, rec, &r[e], &q[SM_STRANDS * e], &res[e]);
	if (rc < 0) {
		sm_log(SM_LOG_ERROR, "read %lld '%s': out of memory adding its tags",
		       (long long)r[e].index + 1, r[e].name);
		return -1;
	}
	if (p->opt->append_comment)
		return sm_tags_comment(rec, &r[e]);
	return 0;
}
