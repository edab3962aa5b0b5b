/* emit.c — a read's records from what mapping and pairing chose: the
 * primary record with its mate fields, its supplementary ones (split
 * reads), then the secondary ones, each with bwa mem's extra tags
 * (split.h).  record.c builds each bam1_t. */
#include "mapper/map_impl.h"

#include <string.h>

#include "mapper/split.h"

static int emit(const sm_ctx_t *ctx, sm_tbuf_t *ws, sm_batch_t *b, const sm_read_t *r, const cand_t *c,
		const sm_rec_extra_t *x)
{
	bam1_t *rec = sm_batch_next_rec(b);
	sm_hit_t hit;

	if (!rec) {
		sm_log(SM_LOG_ERROR, "out of memory building records");
		return -1;
	}
	memset(&hit, 0, sizeof hit);
	if (c) {
		hit.mapped = 1;
		hit.is_rev = c->is_rev;
		hit.best.score = c->score;
		hit.best.end = c->end;
		hit.xs = c->xs;
	}
	return sm_record_build(rec, r, ctx->ref, &ctx->opt.score, &hit, c ? &c->aln : NULL, x,
			       ctx->opt.rg_id, &ws->rws);
}

/* 1 if candidate c overlaps one of cs[0..n) on the same strand. */
static int overlaps(const cand_t *c, const cand_t *const *cs, int n)
{
	for (int k = 0; k < n; k++)
		if (cs[k]->is_rev == c->is_rev && c->aln.ref_start < cs[k]->aln.ref_end &&
		    cs[k]->aln.ref_start < c->aln.ref_end)
			return 1;
	return 0;
}

/* The primary record of read e of a unit (n_unit 1 or 2), then its -N
 * secondaries (every candidate with -a). */
int sm_emit_read(const sm_ctx_t *ctx, sm_tbuf_t *ws, sm_batch_t *b, const sm_read_t *r,
		 const sm_query_t *q, res_t *res, int e, int n_unit)
{
	res_t *me = &res[e];
	const res_t *mate = n_unit > 1 ? &res[!e] : NULL;
	const cand_t *c = me->prim >= 0 ? &me->cand[me->prim] : NULL;
	const cand_t *mc = mate && mate->prim >= 0 ? &mate->cand[mate->prim] : NULL;
	const cand_t *done[SM_MAX_CAND];
	sm_rec_extra_t x;
	int n_done = 0, n_secondary = ctx->opt.all_hits ? SM_MAX_CAND - 1 : ctx->opt.n_secondary;

	memset(&x, 0, sizeof x);
	x.mapq = me->mapq;
	x.mate_tid = -1;
	x.mate_pos = -1;
	if (mate) {
		x.flag = BAM_FPAIRED | (e ? BAM_FREAD2 : BAM_FREAD1);
		if (me->proper && mate->proper)
			x.flag |= BAM_FPROPER_PAIR;
		if (!mc)
			x.flag |= BAM_FMUNMAP;
		else if (mc->is_rev)
			x.flag |= BAM_FMREVERSE;
		if (mc) {
			x.mate_tid = sm_ref_contig_of(ctx->ref, mc->aln.ref_start);
			x.mate_pos = mc->aln.ref_start - ctx->ref->offset[x.mate_tid];
		} else if (c) {   /* an unmapped mate sits at this read's place */
			x.mate_tid = sm_ref_contig_of(ctx->ref, c->aln.ref_start);
			x.mate_pos = c->aln.ref_start - ctx->ref->offset[x.mate_tid];
		}
		if (c && mc && sm_ref_contig_of(ctx->ref, c->aln.ref_start) == x.mate_tid)
			x.tlen = sm_pair_five_prime(mc) - sm_pair_five_prime(c);
	}
	if (emit(ctx, ws, b, &r[e], c, &x) < 0 ||
	    sm_split_tags(ctx, ws, b->recs[b->n_rec - 1], r, q, res, e, n_unit, 1) < 0)
		return -1;
	if (!c)
		return 0;
	if (sm_split_emit(ctx, ws, b, (int)(r - b->reads) + e, b->recs[b->n_rec - 1], r, q, res, e,
			  n_unit, &x) < 0)
		return -1;
	done[n_done++] = c;
	x.flag |= BAM_FSECONDARY;
	x.flag &= (uint16_t)~BAM_FPROPER_PAIR;
	x.mapq = 0;
	x.tlen = 0;
	for (int k = 0; k < me->n_cand && n_done <= n_secondary; k++) {
		cand_t *s = &me->cand[k];

		if (s == c || s->score < ctx->opt.min_score)   /* below -T: a pair's read only */
			continue;
		if (sm_map_ensure_traced(ctx, ws, me, &r[e], &q[SM_STRANDS * e], s) < 0)
			return -1;
		if (overlaps(s, done, n_done) ||
		    sm_split_is_part(ws, (int)(r - b->reads) + e, s->is_rev, &s->aln))
			continue;
		if (emit(ctx, ws, b, &r[e], s, &x) < 0 ||
		    sm_split_tags(ctx, ws, b->recs[b->n_rec - 1], r, q, res, e, n_unit, 0) < 0)
			return -1;
		done[n_done++] = s;
	}
	return 0;
}
