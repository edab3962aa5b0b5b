/* split.c — split reads' supplementary records (SA), alternative hits (XA),
 * mate CIGAR (MC) and comment tags of a read's records (see split.h). */
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

/* 1 if candidate a, traced or not, shares reference bases with traced b
 * (same_bases), known without a's traceback: on b's strand, a's alignment
 * ends at a->end + 1 (sm_align) and spans at least as many columns as it
 * has matches, which its score (the objective: the end bonuses and match
 * per matched base at most) bounds from below; so it starts at or before
 * a->end + 1 - cols.  Mostly remnants of b in the neighbouring bins. */
static int surely_same_bases(const sm_score_t *sc, const cand_t *a, const cand_t *b)
{
	int64_t cols = ((int64_t)a->score - sc->clip5 - sc->clip3 + sc->match - 1) / sc->match;

	cols = cols < 1 ? 1 : cols;
	return a->is_rev == b->is_rev && a->end >= b->aln.ref_start &&
	       a->end + 1 - cols < b->aln.ref_end;
}

/* XA:Z of the primary record of read r (results me, queries q): the
 * candidates that cover the same part of the read as the primary c, on
 * other bases, scoring at least SM_XA_DROP_RATIO of it, best first; none
 * when there are more than -h of them.  Candidates are the engine's
 * SM_TOPK best loci per strand (and pairing's): when a strand's are all at
 * the threshold or above, more may lie beyond them, and XA is left out as
 * bwa leaves it out for more than -h hits. */
static int xa_tag(const sm_ctx_t *ctx, sm_tbuf_t *ws, bam1_t *rec, const sm_read_t *r,
		  const sm_query_t *q, res_t *me)
{
	const sm_mapopt_t *o = &ctx->opt;
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

		if (a == c || a->score < thr || surely_same_bases(&o->score, a, c))
			continue;
		if (sm_map_ensure_traced(ctx, ws, me, r, q, a) < 0)
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

		rc = sm_record_nm(r, ctx->ref, alt[t]->is_rev, &alt[t]->aln, &ws->rws, &nm) < 0 ||
		     sm_tags_xa_entry(&s, ctx->ref, alt[t]->is_rev, &alt[t]->aln, r->len, nm) < 0 ? -1 : 0;
	}
	if (rc == 0)
		rc = bam_aux_append(rec, "XA", 'Z', (int)s.l + 1, (const uint8_t *)s.s);
	free(s.s);
	return rc;
}

int sm_split_tags(const sm_ctx_t *ctx, sm_tbuf_t *ws, bam1_t *rec, const sm_read_t *r,
		  const sm_query_t *q, res_t *res, int e, int n_unit, int primary)
{
	const res_t *mate = n_unit > 1 ? &res[!e] : NULL;
	int rc = 0;

	if (mate && mate->prim >= 0)
		rc = sm_tags_mc(rec, &mate->cand[mate->prim].aln, r[!e].len);
	if (rc == 0 && primary && res[e].prim >= 0)
		rc = xa_tag(ctx, ws, rec, &r[e], &q[SM_STRANDS * e], &res[e]);
	if (rc < 0) {
		sm_log(SM_LOG_ERROR, "read %lld '%s': out of memory adding its tags",
		       (long long)r[e].index + 1, r[e].name);
		return -1;
	}
	if (ctx->opt.append_comment)
		return sm_tags_comment(rec, &r[e]);
	return 0;
}

/* ---- split reads ---- */

/* A supplementary part of a read: its best hit, in the whole read's
 * coordinates (aln.q_start and q_end on strand is_rev, as a primary's). */
typedef struct {
	int is_rev;
	int32_t score, xs;
	int mapq;
	int32_t from;        /* its first base in the read's own orientation */
	sm_aln_t aln;        /* cigar owned, reused from batch to batch */
} part_t;

typedef struct {
	int n;
	part_t part[SM_SPLIT_MAX_PARTS - 1];
} parts_t;

/* Bases [from, to) of batch read k (its own orientation), still to map. */
typedef struct {
	int k;
	int32_t from, to;
} piece_t;

struct sm_split_s {
	sm_tbuf_t *ws;           /* the pieces' mapping scratch (sm_map_reads) */
	parts_t *parts;          /* per batch read */
	int m_parts;
	piece_t *todo, *next;    /* this round's pieces and the next round's */
	int n_todo, n_next, m_todo;
	sm_read_t *rem;          /* one call's pieces as reads (views into the batch's) */
	res_t *rem_res;
	int m_rem;
};

void sm_split_free(sm_split_t *s)
{
	if (!s)
		return;
	sm_tbuf_destroy(s->ws);
	for (int k = 0; k < s->m_parts; k++)
		for (int j = 0; j < SM_SPLIT_MAX_PARTS - 1; j++)
			sm_aln_free(&s->parts[k].part[j].aln);
	for (int t = 0; t < s->m_rem; t++)
		sm_res_free(&s->rem_res[t]);
	free(s->parts);
	free(s->todo);
	free(s->next);
	free(s->rem);
	free(s->rem_res);
	free(s);
}

/* Room for n batch reads (parts cleared), 2n pieces a round and `chunk`
 * pieces a call.  Returns 0 or -1. */
static int split_reserve(sm_split_t *s, int n, int chunk)
{
	if (n > s->m_parts) {
		parts_t *ps = realloc(s->parts, (size_t)n * sizeof *ps);

		if (!ps)
			return -1;
		memset(ps + s->m_parts, 0, (size_t)(n - s->m_parts) * sizeof *ps);
		s->parts = ps;
		s->m_parts = n;
	}
	for (int k = 0; k < n; k++)
		s->parts[k].n = 0;
	if (SM_STRANDS * n > s->m_todo) {
		piece_t *a = realloc(s->todo, (size_t)SM_STRANDS * n * sizeof *a);
		piece_t *b = a ? realloc(s->next, (size_t)SM_STRANDS * n * sizeof *b) : NULL;

		if (a)
			s->todo = a;
		if (!b)
			return -1;
		s->next = b;
		s->m_todo = SM_STRANDS * n;
	}
	if (chunk > s->m_rem) {
		sm_read_t *rem = realloc(s->rem, (size_t)chunk * sizeof *rem);
		res_t *rr = rem ? realloc(s->rem_res, (size_t)chunk * sizeof *rr) : NULL;

		if (rem)
			s->rem = rem;
		if (!rr)
			return -1;
		memset(rr + s->m_rem, 0, (size_t)(chunk - s->m_rem) * sizeof *rr);
		s->rem_res = rr;
		s->m_rem = chunk;
	}
	return 0;
}

/* Lists bases [from, to) of read k as a piece to map (in `list`, n of
 * them) when they can reach -T. */
static void piece_add(const sm_ctx_t *ctx, piece_t *list, int *n, int k, int32_t from, int32_t to)
{
	if ((int64_t)(to - from) * ctx->opt.score.match >= ctx->opt.min_score)
		list[(*n)++] = (piece_t){ k, from, to };
}

/* Lists the two ends of read k outside its primary's bases [fs, fe) as
 * pieces to map, each reaching SM_SPLIT_SHARE bases into the primary's: a
 * part may share the bases next to a junction that match at both loci, as
 * bwa mem's do (the primary, found first, took them; without them a short
 * 5' part stays below -T, and Hi-C's -5 loses the ligation's first locus). */
static void ends_add(const sm_ctx_t *ctx, piece_t *list, int *n, int k, int32_t fs, int32_t fe,
		     int32_t len)
{
	if (fs > 0)
		piece_add(ctx, list, n, k, 0, fs + SM_SPLIT_SHARE < fe ? fs + SM_SPLIT_SHARE : fe);
	if (fe < len)
		piece_add(ctx, list, n, k, fe - SM_SPLIT_SHARE > fs ? fe - SM_SPLIT_SHARE : fs, len);
}

/* A split read's XS counts only the hits that cover its primary's part of
 * the read (same_part), and the tandem copies: the other parts' hits are
 * no rivals of the primary (bwa mem's sub score is the same).  Raises
 * MAPQ to what the lower XS gives.  A rescued primary keeps its MAPQ: its
 * read's other loci were never looked for.  Returns 0 or -1. */
static int primary_rivals(const sm_ctx_t *ctx, sm_tbuf_t *ws, const sm_read_t *r, const sm_query_t *q,
			  res_t *me)
{
	cand_t *c = &me->cand[me->prim];
	int32_t xs = c->near;
	int mapq;

	if (c->rescued)
		return 0;
	for (int k = 0; k < me->n_cand; k++) {
		cand_t *a = &me->cand[k];

		if (a == c || a->score <= xs || surely_same_bases(&ctx->opt.score, a, c))
			continue;
		if (sm_map_ensure_traced(ctx, ws, me, r, q, a) < 0)
			return -1;
		if (!same_bases(a, c) && same_part(a, c))
			xs = a->score;
	}
	if (xs >= c->xs)
		return 0;
	c->xs = xs;
	mapq = sm_unsure_cap(&ctx->opt.score, c->unsure, sm_mapq(&ctx->opt.score, c->score, xs, r->len),
			     c->score - xs, !ctx->pairing);
	me->mapq = mapq > me->mapq ? mapq : me->mapq;
	return 0;
}

/* Keeps the hit of piece d (read as rem, queries q; its best candidate in
 * rr) as a part of read r, with the XS and MAPQ of primary_rivals (the
 * piece's other parts are no rivals either), and lists what the hit leaves
 * of the piece for the next round.  Returns 0 or -1 (logged). */
static int part_add(const sm_ctx_t *ctx, sm_split_t *s, const sm_read_t *r, const piece_t *d,
		    const sm_read_t *rem, const sm_query_t *q, res_t *rr)
{
	parts_t *ps = &s->parts[d->k];
	const cand_t *c;
	part_t *pt;
	int32_t off, fs, fe;

	if (rr->prim < 0 || ps->n == SM_SPLIT_MAX_PARTS - 1)
		return 0;
	/* bwa mem keeps a part whose own score (AS, without the clipping
	 * bonus the piece's ends give it) reaches -T. */
	if (rr->cand[rr->prim].aln.score < ctx->opt.min_score)
		return 0;
	if (primary_rivals(ctx, s->ws, rem, q, rr) < 0)
		return -1;
	c = &rr->cand[rr->prim];
	pt = &ps->part[ps->n];
	if (c->aln.n_cigar > pt->aln.m_cigar) {
		uint32_t *cg = realloc(pt->aln.cigar, (size_t)c->aln.n_cigar * sizeof *cg);

		if (!cg) {
			sm_log(SM_LOG_ERROR, "out of memory splitting read '%s'", r->name);
			return -1;
		}
		pt->aln.cigar = cg;
		pt->aln.m_cigar = c->aln.n_cigar;
	}
	/* The piece's reverse complement is bases [len - to, len - from) of
	 * the read's. */
	off = c->is_rev ? r->len - d->to : d->from;
	pt->is_rev = c->is_rev;
	pt->score = c->score;
	pt->xs = c->xs;
	pt->mapq = rr->mapq;
	pt->aln.score = c->aln.score;
	pt->aln.ref_start = c->aln.ref_start;
	pt->aln.ref_end = c->aln.ref_end;
	pt->aln.q_start = off + c->aln.q_start;
	pt->aln.q_end = off + c->aln.q_end;
	pt->aln.n_cigar = c->aln.n_cigar;
	memcpy(pt->aln.cigar, c->aln.cigar, (size_t)c->aln.n_cigar * sizeof *pt->aln.cigar);
	fs = c->is_rev ? r->len - pt->aln.q_end : pt->aln.q_start;
	fe = c->is_rev ? r->len - pt->aln.q_start : pt->aln.q_end;
	pt->from = fs;
	ps->n++;
	piece_add(ctx, s->next, &s->n_next, d->k, d->from, fs);
	piece_add(ctx, s->next, &s->n_next, d->k, fe, d->to);
	return 0;
}

/* Maps this round's pieces (s->todo) as reads of their own, `chunk` per
 * call, and keeps their hits; the pieces left over become the next
 * round's.  Returns 0 or -1 (logged). */
static int split_round(const sm_ctx_t *ctx, sm_split_t *s, const sm_read_t *reads, int chunk)
{
	piece_t *t;

	s->n_next = 0;
	for (int at = 0; at < s->n_todo; at += chunk) {
		int n = s->n_todo - at < chunk ? s->n_todo - at : chunk;

		for (int u = 0; u < n; u++) {
			const piece_t *d = &s->todo[at + u];
			const sm_read_t *r = &reads[d->k];

			s->rem[u] = (sm_read_t){ .name = r->name, .seq = r->seq + d->from,
						 .qual = r->qual ? r->qual + d->from : NULL,
						 .len = d->to - d->from,
						 .index = r->index };
		}
		if (sm_map_reads(ctx, s->ws, s->rem, n, s->rem_res, 0) < 0)
			return -1;
		for (int u = 0; u < n; u++) {
			const piece_t *d = &s->todo[at + u];

			if (part_add(ctx, s, &reads[d->k], d, &s->rem[u], &s->ws->q[SM_STRANDS * u],
				     &s->rem_res[u]) < 0)
				return -1;
		}
	}
	t = s->todo;
	s->todo = s->next;
	s->next = t;
	s->n_todo = s->n_next;
	return 0;
}

/* A part p of single-end read r (queries q, results me) that scores more
 * than its primary shows a locus that the read's own seeding missed: the
 * whole read there scores at least the part's alignment.  The read is
 * scanned against the part's locus, widened by the read and its reach on
 * each side, on the part's strand; a hit that beats the primary becomes
 * it (traced, tandem copies checked, the others its rivals; unsure: its
 * seeds missed a better locus, others may be).  Returns 1 when it did, 0
 * when not, -1 on error (logged). */
static int promote_part(const sm_ctx_t *ctx, sm_tbuf_t *ws, const sm_read_t *r, const sm_query_t *q,
			res_t *me, const part_t *p)
{
	const sm_score_t *sc = &ctx->opt.score;
	const int32_t contig = sm_offset_find(ctx->ref->offset, ctx->ref->n_contig, p->aln.ref_start);
	const int64_t lo = ctx->ref->offset[contig], hi = lo + ctx->ref->len[contig];
	const int64_t margin = r->len + sm_reach(sc, r->len);
	sm_window_t w = { p->aln.ref_start - margin < lo ? lo : p->aln.ref_start - margin,
			  p->aln.ref_end + margin > hi ? hi : p->aln.ref_end + margin, 1,
			  1 << p->is_rev };
	cand_t *c, t;
	int rc;

	if (me->n_cand == SM_MAX_CAND)
		return 0;
	c = &me->cand[me->n_cand];
	rc = sm_map_window_best(ctx, ws, r, q, p->is_rev, &w, c);
	if (rc <= 0 || c->score <= me->cand[me->prim].score)
		return rc < 0 ? -1 : 0;
	c->unsure = SM_UNSURE_BETTER;
	if (sm_map_trace(ctx, ws, &w, 1, q, c, r) < 0 || sm_map_tandem(ctx, ws, q, c) < 0)
		return -1;
	for (int k = 0; k < me->n_cand; k++) {
		cand_t *o = &me->cand[k];

		if (o->traced ? same_bases(o, c) : surely_same_bases(sc, o, c))
			continue;
		c->xs = o->score > c->xs ? o->score : c->xs;
		o->xs = c->score > o->xs ? c->score : o->xs;
	}
	/* The new hit first (its aln's buffers travel with it). */
	t = me->cand[0];
	me->cand[0] = *c;
	*c = t;
	me->n_cand++;
	me->prim = 0;
	c = &me->cand[0];
	me->mapq = sm_unsure_cap(sc, c->unsure, sm_mapq(sc, c->score, c->xs, r->len),
				 c->score - c->xs, 1);
	return 1;
}

/* -5 (bwa mem's): of read r's alignments, the one that starts first in the
 * read as sequenced is the primary.  When a part of ps does, it and the
 * primary of me trade places: the part becomes the candidate written as
 * the primary, with its own MAPQ, and the old primary a part.  A read of a
 * proper pair keeps its primary: the pair chose it (bwa mem's pairing does
 * the same). */
static void primary_first(parts_t *ps, int32_t len, res_t *me)
{
	cand_t *c = &me->cand[me->prim];
	int32_t fs, fe;
	int first = -1;
	part_t *p, old;

	if (me->proper)
		return;
	read_interval(c, &fs, &fe);
	for (int j = 0; j < ps->n; j++)
		if (ps->part[j].from < (first < 0 ? fs : ps->part[first].from))
			first = j;
	if (first < 0)
		return;
	p = &ps->part[first];
	old = (part_t){ .is_rev = c->is_rev, .score = c->score, .xs = c->xs, .mapq = me->mapq,
			.from = fs, .aln = c->aln };   /* the alignments' buffers trade owners */
	c->aln = p->aln;
	c->is_rev = p->is_rev;
	c->score = p->score;
	c->xs = p->xs;
	me->mapq = p->mapq;
	*p = old;
	/* The part's tandem copies and rivals were weighed into its MAPQ. */
	c->end = c->aln.ref_end - 1;
	c->near = c->xs;
	c->near_done = 1;
	c->n_copy = 0;
	c->rescued = 0;
	c->qlen = len;
	c->traced = 1;
	c->unsure = SM_SURE;
}

int sm_split_batch(const sm_ctx_t *ctx, sm_tbuf_t *ws, const sm_read_t *reads, int n, res_t *res)
{
	sm_split_t *s = ws->split;
	int chunk = n, n_todo = 0;

	/* The pieces beside every primary (counted into a scratch list);
	 * nothing to do when there are none. */
	for (int k = 0; k < n && !n_todo; k++)
		if (res[k].prim >= 0) {
			piece_t ends[2];
			int32_t fs, fe;

			read_interval(&res[k].cand[res[k].prim], &fs, &fe);
			ends_add(ctx, ends, &n_todo, k, fs, fe, reads[k].len);
		}
	if (!n_todo) {
		for (int k = 0; s && k < n && k < s->m_parts; k++)
			s->parts[k].n = 0;
		return 0;
	}
	if (!s && !(s = ws->split = calloc(1, sizeof *s)))
		goto oom;
	if (!s->ws && !(s->ws = sm_tbuf_create(ctx)))
		goto oom;
	if (split_reserve(s, n, chunk) < 0)
		goto oom;
	s->n_todo = 0;
	for (int k = 0; k < n; k++)
		if (res[k].prim >= 0) {
			int32_t fs, fe;

			read_interval(&res[k].cand[res[k].prim], &fs, &fe);
			ends_add(ctx, s->todo, &s->n_todo, k, fs, fe, reads[k].len);
		}
	for (int round = 0; s->n_todo > 0 && round < SM_SPLIT_MAX_PARTS - 1; round++)
		if (split_round(ctx, s, reads, chunk) < 0)
			return -1;
	/* A single-end read whose part beats its primary takes that locus
	 * (promote_part), and its parts are looked for again, as long as one
	 * still does (each time the primary's score rises; at most
	 * SM_SPLIT_MAX_PARTS times).  Pairs keep theirs: the pair was chosen
	 * with the mate. */
	for (int again = 0; again < SM_SPLIT_MAX_PARTS && !ctx->pairing; again++) {
		s->n_todo = 0;
		for (int k = 0; k < n; k++) {
			parts_t *ps = &s->parts[k];
			int best = -1, rc;
			int32_t fs, fe;

			for (int j = 0; j < ps->n; j++)
				if (best < 0 || ps->part[j].score > ps->part[best].score)
					best = j;
			if (best < 0 || ps->part[best].score <= res[k].cand[res[k].prim].score)
				continue;
			rc = promote_part(ctx, ws, &reads[k], &ws->q[SM_STRANDS * k], &res[k],
					  &ps->part[best]);
			if (rc < 0)
				return -1;
			if (rc == 0)
				continue;
			ps->n = 0;
			read_interval(&res[k].cand[0], &fs, &fe);
			ends_add(ctx, s->todo, &s->n_todo, k, fs, fe, reads[k].len);
		}
		if (s->n_todo == 0)
			break;
		for (int round = 0; s->n_todo > 0 && round < SM_SPLIT_MAX_PARTS - 1; round++)
			if (split_round(ctx, s, reads, chunk) < 0)
				return -1;
	}
	for (int k = 0; k < n; k++) {
		parts_t *ps = &s->parts[k];

		if (ps->n == 0)
			continue;
		if (primary_rivals(ctx, ws, &reads[k], &ws->q[SM_STRANDS * k], &res[k]) < 0)
			return -1;
		if (ctx->opt.primary5)
			primary_first(ps, reads[k].len, &res[k]);
		/* bwa mem: a supplementary part's MAPQ is at most its primary's
		 * (unless -q).  Parts in the order of their scores, then of their
		 * place in the read. */
		for (int j = 0; j < ps->n && !ctx->opt.keep_supp_mapq; j++)
			if (ps->part[j].mapq > res[k].mapq)
				ps->part[j].mapq = res[k].mapq;
		for (int j = 1; j < ps->n; j++)
			for (int i = j; i > 0 && (ps->part[i].score > ps->part[i - 1].score ||
						  (ps->part[i].score == ps->part[i - 1].score &&
						   ps->part[i].from < ps->part[i - 1].from)); i--) {
				part_t t = ps->part[i];

				ps->part[i] = ps->part[i - 1];
				ps->part[i - 1] = t;
			}
	}
	return 0;
oom:
	sm_log(SM_LOG_ERROR, "out of memory looking for split reads");
	return -1;
}

int sm_split_is_part(const sm_tbuf_t *ws, int k, int is_rev, const sm_aln_t *aln)
{
	const sm_split_t *s = ws->split;

	if (!s || k >= s->m_parts)
		return 0;
	for (int j = 0; j < s->parts[k].n; j++) {
		const part_t *pt = &s->parts[k].part[j];

		if (pt->is_rev == is_rev && pt->aln.ref_start < aln->ref_end &&
		    aln->ref_start < pt->aln.ref_end)
			return 1;
	}
	return 0;
}

void sm_split_add_tail(sm_tbuf_t *ws, int k, int32_t tail)
{
	sm_split_t *s = ws->split;

	if (!s || k >= s->m_parts)
		return;
	for (int j = 0; j < s->parts[k].n; j++) {
		part_t *pt = &s->parts[k].part[j];

		if (pt->is_rev) {
			pt->aln.q_start += tail;
			pt->aln.q_end += tail;
		}
	}
}

/* SA:Z of record `self` of a split read: every other part's. */
static int sa_tag(const sm_ctx_t *ctx, bam1_t *const *rec, const sm_aln_t *const *aln, int n,
		  int self, int32_t len)
{
	kstring_t s = KS_INITIALIZE;
	int rc = 0;

	for (int j = 0; j < n && rc == 0; j++) {
		if (j == self)
			continue;
		rc = sm_tags_sa_entry(&s, ctx->ref, bam_is_rev(rec[j]), aln[j], len, rec[j]->core.qual,
				      (int32_t)bam_aux2i(bam_aux_get(rec[j], "NM")));
	}
	if (rc == 0)
		rc = bam_aux_append(rec[self], "SA", 'Z', (int)s.l + 1, (const uint8_t *)s.s);
	free(s.s);
	return rc;
}

int sm_split_emit(const sm_ctx_t *ctx, sm_tbuf_t *ws, sm_batch_t *b, int k, bam1_t *prim,
		  const sm_read_t *r, const sm_query_t *q, res_t *res, int e, int n_unit,
		  const sm_rec_extra_t *x)
{
	const sm_split_t *s = ws->split;
	const parts_t *ps;
	const res_t *mate = n_unit > 1 ? &res[!e] : NULL;
	const cand_t *mc = mate && mate->prim >= 0 ? &mate->cand[mate->prim] : NULL;
	bam1_t *rec[SM_SPLIT_MAX_PARTS];
	const sm_aln_t *aln[SM_SPLIT_MAX_PARTS];
	int n = 1;

	if (!s || k >= s->m_parts || (ps = &s->parts[k])->n == 0)
		return 0;
	rec[0] = prim;
	aln[0] = &res[e].cand[res[e].prim].aln;
	for (int j = 0; j < ps->n; j++, n++) {
		const part_t *pt = &ps->part[j];
		sm_rec_extra_t px = *x;
		sm_hit_t hit;

		memset(&hit, 0, sizeof hit);
		hit.mapped = 1;
		hit.is_rev = pt->is_rev;
		hit.best.score = pt->score;
		hit.xs = pt->xs;
		px.flag |= ctx->opt.supp_as_secondary ? BAM_FSECONDARY : BAM_FSUPPLEMENTARY;
		px.mapq = pt->mapq;
		px.hard_clip = !ctx->opt.supp_soft_clip;
		px.keep_seq = 1;
		px.tlen = 0;
		if (mc && sm_ref_contig_of(ctx->ref, pt->aln.ref_start) == x->mate_tid)
			px.tlen = sm_pair_five_prime(mc) -
				  (pt->is_rev ? pt->aln.ref_end : pt->aln.ref_start);
		if (!(rec[n] = sm_batch_next_rec(b))) {
			sm_log(SM_LOG_ERROR, "out of memory building records");
			return -1;
		}
		aln[n] = &pt->aln;
		if (sm_record_build(rec[n], &r[e], ctx->ref, &ctx->opt.score, &hit, &pt->aln, &px,
				    ctx->opt.rg_id, &ws->rws) < 0 ||
		    sm_split_tags(ctx, ws, rec[n], r, q, res, e, n_unit, 0) < 0)
			return -1;
	}
	for (int j = 0; j < n; j++)
		if (sa_tag(ctx, rec, aln, n, j, r[e].len) < 0) {
			sm_log(SM_LOG_ERROR, "read %lld '%s': out of memory adding SA:Z",
			       (long long)r[e].index + 1, r[e].name);
			return -1;
		}
	return 0;
}
