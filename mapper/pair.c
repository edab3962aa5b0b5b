/* pair.c — pairing the two reads of a template (see map_impl.h). */
#include "mapper/map_impl.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Reference span [s, e) of the template part that a candidate stands for,
 * clipped to its contig, and that contig (which holds s). */
typedef struct {
	int64_t s, e;
	int32_t contig;
} span_t;

/* The span of candidate c: its alignment's when traced, extended over the
 * read's clipped ends (the fragment goes on there, whatever the
 * alignment), else the read length ending at its end column.  s lies in
 * the contig: it is at most the alignment's start or the end column, which
 * the contig holds, and at least the contig's start. */
static span_t cand_span(const sm_ctx_t *ctx, const cand_t *c)
{
	int32_t contig = sm_ref_contig_of(ctx->ref, c->traced ? c->aln.ref_start : c->end);
	int64_t lo = ctx->ref->offset[contig], hi = lo + ctx->ref->len[contig];
	span_t x = { .contig = contig };

	if (c->traced) {
		x.s = c->aln.ref_start - c->aln.q_start;
		x.e = c->aln.ref_end + (c->qlen - c->aln.q_end);
	} else {
		x.e = c->end + 1;
		x.s = x.e - c->qlen;
	}
	x.s = x.s < lo ? lo : x.s;
	x.e = x.e > hi ? hi : x.e;
	return x;
}

/* 5' end of an alignment (samtools' convention): its first base on the
 * forward strand, one past its last on the reverse. */
int64_t sm_pair_five_prime(const cand_t *c)
{
	return c->is_rev ? c->aln.ref_end : c->aln.ref_start;
}

/* Insert size of candidates a and b (spans sa, sb) if they face each other
 * on one contig (forward read left of the reverse one), else -1. */
static int64_t span_insert(const cand_t *a, span_t sa, const cand_t *b, span_t sb)
{
	int64_t fs = a->is_rev ? sb.s : sa.s, re = a->is_rev ? sa.e : sb.e;

	if (a->is_rev == b->is_rev || sa.contig != sb.contig)
		return -1;
	return re > fs ? re - fs : -1;
}

/* span_insert() with a moved by a_shift reference columns. */
static int64_t insert_shifted(const sm_ctx_t *ctx, const cand_t *a, int64_t a_shift, const cand_t *b)
{
	span_t sa, sb;

	if (a->is_rev == b->is_rev)
		return -1;
	sa = cand_span(ctx, a);
	sb = cand_span(ctx, b);
	if (a_shift != 0) {
		sa.s += a_shift;
		sa.e += a_shift;
		sa.contig = sm_ref_contig_of(ctx->ref, sa.s);
	}
	return span_insert(a, sa, b, sb);
}

int64_t sm_pair_insert(const sm_ctx_t *ctx, const cand_t *a, const cand_t *b)
{
	return insert_shifted(ctx, a, 0, b);
}

static int insert_proper(const sm_ctx_t *ctx, int64_t ins)
{
	return ctx->ins.ok && ins >= ctx->ins.lo && ins <= ctx->ins.hi;
}

static int is_proper(const sm_ctx_t *ctx, const cand_t *a, const cand_t *b)
{
	return insert_proper(ctx, sm_pair_insert(ctx, a, b));
}

/* 1 if candidates a and b (spans sa, sb) of one read are the same
 * placement: one strand, spans (clips undone) starting less than
 * SM_TANDEM_SHIFT apart (a seeded candidate's partial alignment and its
 * full one found by rescue, say). */
static int span_same_place(const cand_t *a, span_t sa, const cand_t *b, span_t sb)
{
	return a->is_rev == b->is_rev && sa.s - sb.s < SM_TANDEM_SHIFT && sb.s - sa.s < SM_TANDEM_SHIFT;
}

static int same_place(const sm_ctx_t *ctx, const cand_t *a, const cand_t *b)
{
	return a->is_rev == b->is_rev &&
	       span_same_place(a, cand_span(ctx, a), b, cand_span(ctx, b));
}

/* What an insert adds to a pair's score: the Phred value of its likelihood
 * under a normal distribution, relative to the mean's (10 log10(e) z^2 / 2,
 * z its distance from the mean in sd), in score units at MAPQ's rate of
 * SM_MAPQ_PER_MISMATCH per mismatch's worth (A + B), so that a pair's MAPQ
 * weighs the insert's likelihood as it weighs the alignments': 0 at the
 * mean, -0.54 at 1 sd, -2.2 at 2 sd, -8.7 at 4 sd (bwa scoring).  It tells
 * apart the copies of a tandem repeat, which a unique mate pairs with at
 * inserts as far apart as the copies are.  Not the Phred value of the
 * chance of an insert at least that far out (bwa mem's term): that claims
 * 4-5 more at 3 sd than the likelihoods' ratio, which is what tells two
 * placements apart (a 2x75 chr20 pair in a VNTR, its read 2 placed at an
 * insert of 0.4 sd, was wrong at MAPQ 22: its origin's insert, 2.9 sd out,
 * is 62 times less likely, MAPQ 18, where the tails' ratio said 22.7). */
static double insert_score_of(const sm_ctx_t *ctx, int64_t ins)
{
	const sm_score_t *sc = &ctx->opt.score;
	double sd = ctx->ins.sd > SM_INSERT_MIN_SD ? ctx->ins.sd : SM_INSERT_MIN_SD;
	double z = fabs((double)ins - ctx->ins.mean) / sd;

	return -10.0 * M_LOG10E * z * z / 2 * (sc->match + sc->mismatch) / SM_MAPQ_PER_MISMATCH;
}

static double insert_score(const sm_ctx_t *ctx, int64_t ins)
{
	return ins >= 0 && ins < ctx->ins.n_score ? ctx->ins.score[ins] : insert_score_of(ctx, ins);
}

int sm_pair_insert_table(sm_ctx_t *ctx)
{
	int64_t n = ctx->ins.ok ? 2 * ctx->ins.hi + 1 : 0;

	ctx->ins.score = malloc((size_t)(n ? n : 1) * sizeof *ctx->ins.score);
	if (!ctx->ins.score) {
		sm_log(SM_LOG_ERROR, "out of memory tabulating insert sizes");
		return -1;
	}
	for (int64_t k = 0; k < n; k++)
		ctx->ins.score[k] = insert_score_of(ctx, k);
	ctx->ins.n_score = n;
	return 0;
}

/* Score of the proper pair a, b at insert size ins: the two alignment
 * scores plus the insert's. */
static double pair_score_at(const sm_ctx_t *ctx, const cand_t *a, const cand_t *b, int64_t ins)
{
	return a->score + b->score + insert_score(ctx, ins);
}

/* The same, the insert from their placements. */
static double pair_score(const sm_ctx_t *ctx, const cand_t *a, const cand_t *b)
{
	return pair_score_at(ctx, a, b, sm_pair_insert(ctx, a, b));
}

/* What the soft clips of candidate c (query q, in its strand's orientation)
 * hide, as bwa mem's clipping penalty sees it: per clipped end, the loss of
 * extending the alignment to the read's end without gaps (matches and
 * mismatches of the clipped bases against the reference beside it; bases
 * past the contig's edge count as mismatches), capped at one mismatch's
 * worth (A + B).  A base where two copies of a repeat differ, within B / A
 * bases of a read end, costs the copy it mismatches only the bases clipped
 * there (1-4 with bwa scoring), not a mismatch: the read's evidence against
 * that copy is still one disagreeing base, which this adds back.  0 for an
 * untraced candidate. */
static int32_t clip_cost(const sm_ctx_t *ctx, const cand_t *c, const sm_query_t *q)
{
	const sm_score_t *sc = &ctx->opt.score;
	int32_t contig, cap = sc->match + sc->mismatch, cost = 0, g;
	int64_t lo, hi, x;

	if (!c->traced)
		return 0;
	contig = sm_ref_contig_of(ctx->ref, c->aln.ref_start);
	lo = ctx->ref->offset[contig];
	hi = lo + ctx->ref->len[contig];
	g = 0;   /* left end: read bases q_start - 1 .. 0 leftwards of ref_start */
	for (int32_t i = c->aln.q_start - 1; i >= 0; i--) {
		x = c->aln.ref_start - (c->aln.q_start - i);
		g += x >= lo ? sm_subst(sc, ctx->ref->seq[x], q->seq[i]) : -sc->mismatch;
	}
	cost += g < 0 ? (-g < cap ? -g : cap) : 0;
	g = 0;   /* right end: read bases q_end .. qlen - 1 from ref_end on */
	for (int32_t i = c->aln.q_end; i < q->len; i++) {
		x = c->aln.ref_end + (i - c->aln.q_end);
		g += x < hi ? sm_subst(sc, ctx->ref->seq[x], q->seq[i]) : -sc->mismatch;
	}
	cost += g < 0 ? (-g < cap ? -g : cap) : 0;
	return cost;
}

/* The unsure level (map_impl.h) of candidate c that pairing adds to read
 * res (mate rescue, pair re-seeding): what the read's own seeding could
 * not rule out holds for c's locus too, but a perfect score cannot be
 * beaten, only tied; a read without candidates had its other loci never
 * looked for. */
static int added_unsure(const sm_ctx_t *ctx, const res_t *res, const cand_t *c)
{
	int level = res->n_cand ? SM_SURE : SM_UNSURE_RIVAL;

	for (int k = 0; k < res->n_cand; k++)
		if (res->cand[k].unsure > level)
			level = res->cand[k].unsure;
	if (level == SM_UNSURE_BETTER && c->score >= sm_best_possible(&ctx->opt.score, c->qlen))
		level = SM_UNSURE_RIVAL;
	return level;
}

/* A locus found is a locus of the read, however found: rescued candidate
 * c (traced) competes with the read's candidates whose spans it does not
 * overlap (bwa mem's XS counts rescued hits too), so that a read of a
 * duplicated pair does not keep the MAPQ of its own seeding beside an
 * equal copy that rescue found.  Overlapping spans are one locus aligned two
 * ways (a seeded window's cut alignment and the rescue window's whole one),
 * not a rival. */
static void rival_of_others(const sm_ctx_t *ctx, res_t *res, const cand_t *c)
{
	const span_t sc = cand_span(ctx, c);

	for (int k = 0; k < res->n_cand; k++) {
		cand_t *o = &res->cand[k];
		const span_t so = cand_span(ctx, o);

		if (o->is_rev == c->is_rev && so.contig == sc.contig && so.s < sc.e && sc.s < so.e)
			continue;
		if (o->xs < c->score)
			o->xs = c->score;
	}
}

/* The best score of res's candidates that make a proper pair with a, -1
 * if none does. */
static int32_t proper_mate_score(const sm_ctx_t *ctx, const cand_t *a, const res_t *res)
{
	int32_t best = -1;

	for (int k = 0; k < res->n_cand; k++)
		if (res->cand[k].score > best && is_proper(ctx, a, &res->cand[k]))
			best = res->cand[k].score;
	return best;
}

/* held_at's answer for a locus res holds with as much already. */
#define HELD (-2)

/* Where res holds locus c (same_place): HELD when a candidate there scores
 * as much or more, else the first there that scores less, -1 for none. */
static int held_at(const sm_ctx_t *ctx, const res_t *res, const cand_t *c)
{
	int same = -1;

	for (int k = 0; k < res->n_cand; k++)
		if (same_place(ctx, &res->cand[k], c)) {
			if (res->cand[k].score >= c->score)
				return HELD;
			if (same < 0)
				same = k;
		}
	return same;
}

/* A mate placement that rescue_scan found, until rescue_add adds it: its
 * locus, the window it was found in, how well it pairs with its anchor,
 * and the anchor's rank among the read's tied candidates (the order they
 * join in). */
typedef struct {
	int32_t score;
	int is_rev;
	int64_t end, lo, hi;
	double pair;
	int order;
} rescued_t;

int sm_pair_mate_window(const sm_ctx_t *ctx, const cand_t *a, int64_t reach, sm_window_t *w)
{
	const span_t sa = cand_span(ctx, a);
	int64_t lo, hi, c_lo = ctx->ref->offset[sa.contig], c_hi = c_lo + ctx->ref->len[sa.contig];

	if (a->is_rev) {
		lo = sa.e - reach - SM_RESCUE_SLACK;
		hi = sa.e + SM_RESCUE_SLACK;
	} else {
		lo = sa.s - SM_RESCUE_SLACK;
		hi = sa.s + reach + SM_RESCUE_SLACK;
	}
	lo = lo < c_lo ? c_lo : lo;
	hi = hi > c_hi ? c_hi : hi;
	if (lo >= hi)
		return 0;
	*w = (sm_window_t){ .start = lo, .end = hi, .strands = 1 << !a->is_rev };
	return 1;
}

/* The least score of a read placed by its pair (mate rescue): -T, or the
 * score of SM_PAIR_MIN_BASES bases matched end to end when that is less.
 * bwa mem writes a proper pair's reads whatever -T, its rescue keeping
 * alignments of its minimum seed length (19) or more; after quality
 * trimming, mates of 15-29 bases are common, and -T leaves them unmapped
 * where the mate's window holds them.  Bases matched end to end, not a
 * score alone: the clipping bonuses would let a 9-base match score 19,
 * which a window of a few hundred bases holds by chance.  A read below -T
 * is written only as a proper pair's (own_best passes over it). */
static int32_t pair_min_score(const sm_ctx_t *ctx)
{
	const sm_score_t *sc = &ctx->opt.score;
	const int32_t floor = SM_PAIR_MIN_BASES * sc->match + sc->clip5 + sc->clip3;

	return floor < ctx->opt.min_score ? floor : ctx->opt.min_score;
}

/* Mate rescue: aligns read r (queries q) within the window where a proper
 * mate of candidate a lies; of the loci there reaching pair_min_score, the
 * one that pairs best with a (pair_score) in x[0], and the one that pairs next best
 * beyond the first one's tandem scan in x[1]: a copy of the mate in the
 * same window (a tandem repeat whose unit is longer than the read) is the
 * first one's rival, and the tandem scan (sm_map_tandem), which weighs the
 * copies nearer, reaches only sm_tandem_reach from it.
 * Returns how many of them res does not hold already with as much (in
 * x[0..n), best first), -1 on error. */
static int rescue_scan(const sm_ctx_t *ctx, sm_tbuf_t *ws, const cand_t *a, const sm_read_t *r,
		       const sm_query_t *q, const res_t *res, rescued_t x[2])
{
	int st = !a->is_rev, pick[2] = { -1, -1 }, n = 0;
	const int64_t span = sm_tandem_reach(&ctx->opt.score, r->len);
	const int32_t least = pair_min_score(ctx);
	double best[2] = { 0, 0 };
	sm_scan_t local, global;
	sm_window_t w;

	if (!sm_pair_mate_window(ctx, a, ctx->ins.hi, &w))
		return 0;
	if (sm_wref_set_window(&ws->wref, ctx->ref, w.start, w.end) < 0 ||
	    sm_map_scan_one(ctx, ws, &ws->wref.ref, &q[st], &local) < 0)
		return -1;
	sm_wref_scan_to_global(&ws->wref, &local, sm_locus_shift(&ctx->opt.score, r->len), &global);
	for (int i = 0; i < 2 && (i == 0 || pick[0] >= 0); i++)
		for (int k = 0; k < global.n; k++) {
			cand_t t = { .score = global.top[k].score, .is_rev = st, .end = global.top[k].end,
				     .qlen = r->len };
			const int64_t from_first = i == 0 ? 0 : t.end - global.top[pick[0]].end;
			double s;

			if (t.score < least || !is_proper(ctx, a, &t) ||
			    (i == 1 && from_first <= span && -from_first <= span))
				continue;   /* the second: beyond the first one's tandem reach */
			s = pair_score(ctx, a, &t);
			if (pick[i] < 0 || s > best[i]) {
				best[i] = s;
				pick[i] = k;
			}
		}
	for (int i = 0; i < 2 && pick[i] >= 0; i++) {
		const cand_t t = { .score = global.top[pick[i]].score, .is_rev = st,
				   .end = global.top[pick[i]].end, .qlen = r->len };

		if (held_at(ctx, res, &t) != HELD)
			x[n++] = (rescued_t){ t.score, st, t.end, w.start, w.end, best[i], 0 };
	}
	return n;
}

/* Keeps x among the SM_MAX_RESCUE placements kept[0..*n) that pair best,
 * one per locus (the better pair of two; of equals, the first found). */
static void keep_rescued(rescued_t *kept, int *n, const rescued_t *x)
{
	int worst = -1;

	for (int t = 0; t < *n; t++)
		if (kept[t].is_rev == x->is_rev && kept[t].end == x->end) {
			if (x->pair > kept[t].pair)
				kept[t] = *x;
			return;
		}
	if (*n < SM_MAX_RESCUE) {
		kept[(*n)++] = *x;
		return;
	}
	for (int t = 0; t < *n; t++)
		if (worst < 0 || kept[t].pair < kept[worst].pair ||
		    (kept[t].pair == kept[worst].pair && kept[t].order > kept[worst].order))
			worst = t;
	if (x->pair > kept[worst].pair)
		kept[worst] = *x;
}

/* Adds rescued placement x of read r (queries q) to its candidates res,
 * traced in its window, unless res holds its locus already with as much
 * or has no room. */
static int rescue_add(const sm_ctx_t *ctx, sm_tbuf_t *ws, const rescued_t *x, const sm_read_t *r,
		      const sm_query_t *q, res_t *res)
{
	cand_t *c;
	int same;

	if (res->n_cand == SM_MAX_CAND)
		return 0;
	c = &res->cand[res->n_cand];
	*c = (cand_t){ .score = x->score, .is_rev = x->is_rev, .end = x->end, .qlen = r->len,
		       .aln = c->aln };
	same = held_at(ctx, res, c);
	if (same == HELD)
		return 0;
	if (sm_wref_set_window(&ws->wref, ctx->ref, x->lo, x->hi) < 0)
		return -1;
	if (same >= 0) {
		/* The same locus scores more over the whole window: its seeded
		 * window cut the alignment short (the window of a cluster off
		 * the read's diagonal).  It keeps what seeding knew of the
		 * read's other loci; the best candidate stays first. */
		cand_t *o = &res->cand[same];

		o->score = c->score;
		o->end = c->end;
		if (sm_map_trace(ctx, ws, ws->wref.win, ws->wref.n_win, q, o, r) < 0)
			return -1;
		if (same > 0 && o->score > res->cand[0].score) {
			cand_t t = res->cand[0];

			res->cand[0] = *o;
			*o = t;
		}
		return 0;
	}
	c->xs = res->n_cand > 0 ? res->cand[0].score : 0;
	c->rescued = 1;
	c->unsure = added_unsure(ctx, res, c);
	if (sm_map_trace(ctx, ws, ws->wref.win, ws->wref.n_win, q, c, r) < 0)
		return -1;
	rival_of_others(ctx, res, c);
	res->n_cand++;
	return 0;
}

/* Rescue of read r's mate (read m, queries q, candidates mate) around each
 * of r's candidates res that tie its best, where the mate's best does not
 * pair with it already, its seeding could not rule out a better one (a
 * window may have cut it short), or its lists were full of ties (ties_cut:
 * a copy of the mate beside the anchor may pair better than the one in
 * view, a 2x36 chr20 VNTR pair at an insert 2.6 sd out where its origin's
 * was 0.9, MAPQ 40): every such anchor is scanned, and the
 * SM_MAX_RESCUE placements that pair best join the mate's candidates, in
 * their anchors' order.  A read of a repeat can tie at many copies, and
 * its mate's origin pairs with one of them only. */
static int rescue_mate(const sm_ctx_t *ctx, sm_tbuf_t *ws, const res_t *res, const sm_read_t *m,
		       const sm_query_t *q, res_t *mate)
{
	const int32_t mate_best = mate->n_cand ? mate->cand[0].score : 0;
	rescued_t kept[SM_MAX_RESCUE];
	int n_kept = 0;

	for (int k = 0; k < res->n_cand && res->cand[k].score >= res->cand[0].score; k++) {
		const cand_t *c = &res->cand[k];
		rescued_t x[2];
		int n;

		if (proper_mate_score(ctx, c, mate) >= mate_best && !mate->ties_cut &&
		    !(mate->n_cand && mate->cand[0].unsure == SM_UNSURE_BETTER))
			continue;
		if ((n = rescue_scan(ctx, ws, c, m, q, mate, x)) < 0)
			return -1;
		for (int i = 0; i < n; i++) {
			x[i].order = k;
			keep_rescued(kept, &n_kept, &x[i]);
		}
	}
	for (int t = 1; t < n_kept; t++)   /* by anchor: insertion */
		for (int u = t; u > 0 && kept[u - 1].order > kept[u].order; u--) {
			rescued_t y = kept[u];

			kept[u] = kept[u - 1];
			kept[u - 1] = y;
		}
	for (int t = 0; t < n_kept; t++)
		if (rescue_add(ctx, ws, &kept[t], m, q, mate) < 0)
			return -1;
	return 0;
}

/* Candidate c's lead over the loci in view (sm_unsure_cap): none for a
 * rescued placement, whose competitors elsewhere were never looked for. */
static int32_t own_lead(const cand_t *c)
{
	return c->rescued ? 0 : c->score - c->xs;
}

/* The unsure level of read rs placed at c as its mate's voucher: its
 * candidate's, or SM_UNSURE_RIVAL when a locus out of view may tie it
 * (res_t.ties_open). */
static int voucher_unsure(const res_t *rs, const cand_t *c)
{
	return c->unsure == SM_SURE && rs->ties_open ? SM_UNSURE_RIVAL : c->unsure;
}

/* 1 if every locus tying read rs's best at c is among its candidates: c
 * ties its own best (not below it, not rescued), and neither its seeding
 * (voucher_unsure) nor its lists' room (res_t.ties_cut) leaves one out. */
static int ties_in_view(const res_t *rs, const cand_t *c)
{
	return !c->rescued && c->score == c->xs && !rs->ties_cut &&
	       voucher_unsure(rs, c) == SM_SURE;
}

/* The unsure level (map_impl.h) of the pair of read 0 at candidate bi and
 * read 1 at bj: the lower of theirs (a sure mate vouches for an unsure
 * read), but
 * - SM_UNSURE_RIVAL at least when each read ties elsewhere, unless each
 *   read's ties are all in view (ties_in_view): the insert tells their
 *   pair from the other pairs their candidates make, not from those that
 *   copies beyond their candidates make (36 bp pairs in repeats), and a
 *   pair unique among its reads' every tie is unique (E. coli's IS
 *   copies: bwa mem gives such pairs 40);
 * - when one read is below its own best (a candidate of its own seeding
 *   scores more: its mate, not its sequence, places it, by rescue or
 *   pairing), the other's own level, counting a locus out of view that
 *   may tie it (voucher_unsure): the pair then stands on that read's
 *   placement alone, and a copy of it beside one of the first read's
 *   better loci would make a better pair (36 bp pairs in Alu repeats). */
int sm_pair_unsure(const res_t *res, int bi, int bj)
{
	const cand_t *a = &res[0].cand[bi], *b = &res[1].cand[bj];
	int level = a->unsure < b->unsure ? a->unsure : b->unsure;

	if (own_lead(a) <= 0 && own_lead(b) <= 0)
		return level == SM_SURE && !(ties_in_view(&res[0], a) && ties_in_view(&res[1], b)) ?
			       SM_UNSURE_RIVAL : level;
	if (a->score < a->xs)
		return voucher_unsure(&res[1], b);
	if (b->score < b->xs)
		return voucher_unsure(&res[0], a);
	return level;
}

/* A read's own MAPQ at candidate c: 0 for a rescued placement; capped when
 * seeding could not rule out a rival or a better locus (sm_unsure_cap). */
int sm_pair_read_mapq(const sm_ctx_t *ctx, const cand_t *c, int32_t len)
{
	return sm_unsure_cap(&ctx->opt.score, c->unsure,
			     c->rescued ? 0 : sm_mapq(&ctx->opt.score, c->score, c->xs, len), own_lead(c),
			     0);
}

/* sm_pair_read_mapq of candidate c of read r (queries q, results res),
 * capped by its base qualities against rivals one substitution away
 * (sm_sub_rival_mapq). */
static int own_mapq(const sm_ctx_t *ctx, const res_t *res, const cand_t *c, const sm_read_t *r,
		    const sm_query_t *q)
{
	int score_q = sm_pair_read_mapq(ctx, c, r->len), qual_q = sm_sub_rival_mapq(ctx, res, c, r, q);

	return score_q < qual_q ? score_q : qual_q;
}

/* A pair of candidates: res[0].cand[i] and res[1].cand[j]. */
typedef struct {
	int i, j;
} pair_at_t;

/* 1 if pair a comes before pair b in the order of tied pairs: the first
 * read's end, then its strand (forward first), then the same of the second
 * read, then the candidates' order in the lists. */
static int pair_before(const res_t *res, pair_at_t a, pair_at_t b)
{
	const cand_t *a0 = &res[0].cand[a.i], *b0 = &res[0].cand[b.i];
	const cand_t *a1 = &res[1].cand[a.j], *b1 = &res[1].cand[b.j];

	if (a0->end != b0->end)
		return a0->end < b0->end;
	if (a0->is_rev != b0->is_rev)
		return a0->is_rev < b0->is_rev;
	if (a1->end != b1->end)
		return a1->end < b1->end;
	if (a1->is_rev != b1->is_rev)
		return a1->is_rev < b1->is_rev;
	return a.i != b.i ? a.i < b.i : a.j < b.j;
}

/* The proper pair of res[0], res[1] with the highest pair score: its
 * candidates pick[0], pick[1] (-1: none) and its score *best; pick[2],
 * pick[3] and *second: the same for the best pair that places the reads
 * elsewhere, one read at least (-1: none).  Pairs that tie for the best
 * (the copies of a repeat that hold both reads) are chosen among by the
 * pair's tie key (record.h: sm_tie_key of the first read's name `name`,
 * hashed only when pairs tie), in pair_before's order; of tied pairs
 * at the same places (same_place, both reads) only the first found counts,
 * and the second pair is never one of them. */
static void best_pair(const sm_ctx_t *ctx, const res_t *res, const char *name,
		      int pick[2 * SM_STRANDS], double *best, double *second)
{
	pair_at_t tied[SM_MAX_CAND * SM_MAX_CAND];
	span_t sp[SM_STRANDS][SM_MAX_CAND];   /* each candidate's, for every pair it is in */
	int n_tied = 0;

	for (int e = 0; e < SM_STRANDS; e++)
		for (int k = 0; k < res[e].n_cand; k++)
			sp[e][k] = cand_span(ctx, &res[e].cand[k]);
	for (int k = 0; k < 2 * SM_STRANDS; k++)
		pick[k] = -1;
	*best = *second = -1;
	for (int i = 0; i < res[0].n_cand; i++)
		for (int j = 0; j < res[1].n_cand; j++) {
			const cand_t *a = &res[0].cand[i], *b = &res[1].cand[j];
			int64_t ins = span_insert(a, sp[0][i], b, sp[1][j]);
			double s;
			int dup = 0;

			if (!insert_proper(ctx, ins))
				continue;
			s = pair_score_at(ctx, a, b, ins);
			if (n_tied > 0 && s < *best)
				continue;
			if (n_tied == 0 || s > *best) {
				*best = s;
				n_tied = 0;
			}
			for (int t = 0; t < n_tied && !dup; t++) {
				int ti = tied[t].i, tj = tied[t].j;

				dup = span_same_place(a, sp[0][i], &res[0].cand[ti], sp[0][ti]) &&
				      span_same_place(b, sp[1][j], &res[1].cand[tj], sp[1][tj]);
			}
			if (!dup)
				tied[n_tied++] = (pair_at_t){ i, j };
		}
	if (n_tied == 0)
		return;
	for (int t = 1; t < n_tied; t++)
		for (int u = t; u > 0 && pair_before(res, tied[u], tied[u - 1]); u--) {
			pair_at_t x = tied[u];

			tied[u] = tied[u - 1];
			tied[u - 1] = x;
		}
	{
		const pair_at_t *p = &tied[n_tied > 1 ? sm_tie_pick(sm_tie_key(name), n_tied) : 0];

		pick[0] = p->i;
		pick[1] = p->j;
	}
	for (int i = 0; i < res[0].n_cand; i++)
		for (int j = 0; j < res[1].n_cand; j++) {
			const cand_t *a = &res[0].cand[i], *b = &res[1].cand[j];
			int64_t ins;
			double s;

			if (span_same_place(a, sp[0][i], &res[0].cand[pick[0]], sp[0][pick[0]]) &&
			    span_same_place(b, sp[1][j], &res[1].cand[pick[1]], sp[1][pick[1]]))
				continue;
			ins = span_insert(a, sp[0][i], b, sp[1][j]);
			if (!insert_proper(ctx, ins))
				continue;
			s = pair_score_at(ctx, a, b, ins);
			if (pick[2] < 0 || s > *second) {
				*second = s;
				pick[2] = i;
				pick[3] = j;
			}
		}
}

/* best_pair() on traced spans (clips undone), tracing no more than it
 * must: an untraced candidate's span, the read length up to its end
 * column, is off by whatever its alignment clips at that end, so the best
 * pair's candidates, and the second's unless its scores cannot reach
 * `floor` (the insert only lowers a pair's score), are traced and the
 * pairs chosen again until those are all traced. */
static int best_traced_pair(const sm_ctx_t *ctx, sm_tbuf_t *ws, const sm_read_t *r,
			    const sm_query_t *q, res_t *res, double floor,
			    int pick[2 * SM_STRANDS], double *best, double *second)
{
	for (;;) {
		int traced = 0;

		best_pair(ctx, res, r[0].name, pick, best, second);
		for (int k = 0; k < 2 * SM_STRANDS; k++) {
			int e = k % SM_STRANDS;
			cand_t *c = pick[k] >= 0 ? &res[e].cand[pick[k]] : NULL;

			if (!c || c->traced || (k >= SM_STRANDS &&
			    res[0].cand[pick[2]].score + res[1].cand[pick[3]].score <= floor))
				continue;
			if (sm_map_ensure_traced(ctx, ws, &res[e], &r[e], &q[SM_STRANDS * e], c) < 0)
				return -1;
			traced = 1;
		}
		if (!traced)
			return 0;
	}
}

/* The best pair that a copy of candidate c (sm_map_tandem) makes with the
 * mate's candidate m, copy *k (-1: no copy makes a proper pair with m). */
static double best_copy_pair(const sm_ctx_t *ctx, const cand_t *c, const cand_t *m, int *k)
{
	double best = -1;

	*k = -1;
	for (int t = 0; t < c->n_copy; t++) {
		int64_t ins = insert_shifted(ctx, c, c->copy[t].shift, m);
		double s;

		if (!insert_proper(ctx, ins))
			continue;
		s = c->copy[t].score + m->score + insert_score(ctx, ins);
		if (*k < 0 || s > best) {
			best = s;
			*k = t;
		}
	}
	return best;
}

/* Adds copy k of read r's candidate res->cand[ci] (traced, sm_map_tandem done)
 * to res: the read is aligned (scan and traceback, same strand) within the
 * copy's span widened by SM_TANDEM_SHIFT - 1 on each side, which leaves out
 * the whole of the candidate itself, and the best locus there at least
 * SM_TANDEM_SHIFT from the candidate's end is taken.  A copy has this to
 * do when it lies in a locus bin that another column of the read tops (in
 * the seeded windows or the rescue window), so it is not a candidate of its
 * own.  Returns 1 when a candidate was added, 0 when none was (no room, no
 * such locus, already there), -1 on error. */
static int adopt_copy(const sm_ctx_t *ctx, sm_tbuf_t *ws, const sm_read_t *r, const sm_query_t *q,
		      res_t *res, int ci, int k)
{
	const sm_score_t *sc = &ctx->opt.score;
	const cand_t *c = &res->cand[ci];
	int64_t shift = c->copy[k].shift, lo, hi, c_lo, c_hi, end = -1;
	int32_t contig = sm_ref_contig_of(ctx->ref, c->aln.ref_start), score = 0, xs = 0;
	sm_scan_t local, global;
	cand_t *n;

	if (res->n_cand == SM_MAX_CAND)
		return 0;
	c_lo = ctx->ref->offset[contig];
	c_hi = c_lo + ctx->ref->len[contig];
	lo = c->aln.ref_start + shift - (SM_TANDEM_SHIFT - 1);
	hi = c->aln.ref_end + shift + (SM_TANDEM_SHIFT - 1);
	lo = lo < c_lo ? c_lo : lo;
	hi = hi > c_hi ? c_hi : hi;
	if (lo >= hi)
		return 0;
	if (sm_wref_set_window(&ws->wref, ctx->ref, lo, hi) < 0 ||
	    sm_map_scan_one(ctx, ws, &ws->wref.ref, &q[c->is_rev], &local) < 0)
		return -1;
	sm_wref_scan_to_global(&ws->wref, &local, sm_locus_shift(sc, r->len), &global);
	for (int t = 0; t < global.n && end < 0; t++)
		if (global.top[t].end - c->end >= SM_TANDEM_SHIFT ||
		    c->end - global.top[t].end >= SM_TANDEM_SHIFT) {
			score = global.top[t].score;
			end = global.top[t].end;
		}
	if (end < 0 || score < ctx->opt.min_score)
		return 0;
	n = &res->cand[res->n_cand];
	*n = (cand_t){ .score = score, .is_rev = c->is_rev, .end = end, .qlen = r->len,
		       .aln = n->aln };
	for (int t = 0; t < res->n_cand; t++) {
		if (res->cand[t].score >= score && same_place(ctx, &res->cand[t], n))
			return 0;
		xs = res->cand[t].score > xs ? res->cand[t].score : xs;
	}
	n->xs = xs;          /* the read's other loci, the candidate among them */
	if (sm_map_trace(ctx, ws, ws->wref.win, ws->wref.n_win, q, n, r) < 0)
		return -1;
	res->n_cand++;
	return 1;
}

/* The read's own best placement: its best candidate not found by rescue
 * (the first of equals), -1 if none. */
static int own_best(const res_t *res)
{
	int best = -1;

	for (int k = 0; k < res->n_cand; k++)
		if (!res->cand[k].rescued && (best < 0 || res->cand[k].score > res->cand[best].score))
			best = k;
	return best;
}

/* Adds f, the best locus of read r in window w (sm_map_window_best, strand
 * f->is_rev), to res as a seeded candidate, unless it is there already:
 * its XS is the best of the read's other candidates, and it becomes theirs
 * when it is better.  Returns 0 or -1 on error. */
static int add_window_cand(const sm_ctx_t *ctx, sm_tbuf_t *ws, const sm_read_t *r, const sm_query_t *q,
			   const sm_window_t *w, const cand_t *f, res_t *res)
{
	cand_t *n = &res->cand[res->n_cand];

	if (res->n_cand == SM_MAX_CAND)
		return 0;
	*n = (cand_t){ .score = f->score, .is_rev = f->is_rev, .end = f->end, .qlen = f->qlen,
		       .aln = n->aln };
	n->unsure = added_unsure(ctx, res, n);
	if (held_at(ctx, res, n) == HELD)
		return 0;
	/* The window as sm_map_window_best scanned it: one reference of its own. */
	if (sm_map_trace(ctx, ws, w, 1, q, n, r) < 0)
		return -1;
	for (int k = 0; k < res->n_cand; k++) {
		cand_t *c = &res->cand[k];

		if (same_place(ctx, c, n))
			continue;
		n->xs = c->score > n->xs ? c->score : n->xs;
		c->xs = n->score > c->xs ? n->score : c->xs;
	}
	res->n_cand++;
	return 0;
}

/* 1 if window w lies within one of the read's seeded windows that was
 * scanned already with strand st. */
static int seeded_already(const res_t *res, const sm_window_t *w, int st)
{
	for (int k = 0; res->from_windows && k < res->n_win; k++)
		if (w->start >= res->win[k].start && w->end <= res->win[k].end &&
		    (res->win[k].strands >> st & 1))
			return 1;
	return 0;
}

/* What reseed_pair learnt of read e in window w, strand st: sm_map_window_best's
 * return rc and its candidate c. */
typedef struct {
	int e, st, rc;
	int64_t start, end;
	cand_t c;
} reseed_scan_t;

/* sm_map_window_best of read e (r, q) in window w, strand st, unless done[0..*n)
 * holds it already (the window pairs share windows: the same scan gives the
 * same locus); the result is added to done.  Returns done's entry, NULL on
 * error. */
static const reseed_scan_t *reseed_best(const sm_ctx_t *ctx, sm_tbuf_t *ws, const sm_read_t *r,
					const sm_query_t *q, int e, int st, const sm_window_t *w,
					reseed_scan_t *done, int *n)
{
	reseed_scan_t *x = &done[*n];

	for (int k = 0; k < *n; k++)
		if (done[k].e == e && done[k].st == st && done[k].start == w->start &&
		    done[k].end == w->end)
			return &done[k];
	*x = (reseed_scan_t){ .e = e, .st = st, .start = w->start, .end = w->end };
	x->rc = sm_map_window_best(ctx, ws, &r[e], &q[SM_STRANDS * e], st, w, &x->c);
	if (x->rc < 0)
		return NULL;
	(*n)++;
	return x;
}

/* Seeds the pair as a pair (sm_seed_pair_windows): both reads are scanned
 * in the SM_RESEED_SCAN window pairs with the most votes (votes tell the
 * true pair from a repeat's other copies poorly), but for those that the
 * reads' own seeding scanned already, and the best loci of the
 * SM_RESEED_PAIRS window pairs whose loci pair best (pair_score) join the
 * reads' candidates.  Scans that cannot change which pairs are kept are
 * left out: once SM_RESEED_PAIRS pairs are kept, a pair enters only with a
 * score above the last one's, and a pair scores at most its reads' scores
 * (the insert's term is at most 0, at the mean), each at most
 * sm_best_possible; so read B's window is not scanned when read A's score
 * plus B's best possible cannot pass it, nor either window when both best
 * possible scores cannot.  Returns 0 or -1 on error. */
static int reseed_pair(const sm_ctx_t *ctx, sm_tbuf_t *ws, const sm_read_t *r, const sm_query_t *q,
		       res_t *res)
{
	const sm_score_t *sc = &ctx->opt.score;
	const int64_t best_a = sm_best_possible(sc, r[0].len), best_b = sm_best_possible(sc, r[1].len);
	sm_window_pair_t wp[SM_RESEED_SCAN];
	reseed_scan_t done[SM_STRANDS * SM_RESEED_SCAN];
	struct {
		double score;                          /* pair_score */
		int k;                                 /* wp[k] */
		const reseed_scan_t *scan[SM_STRANDS]; /* its loci */
	} kept[SM_RESEED_PAIRS];                       /* best first */
	int n_keep = 0, n_done = 0;
	int n = sm_seed_pair_windows(ws->seeder, ctx->index, ctx->ref, sc, &ctx->seed_opt,
				     q[0].seq, r[0].len, q[SM_STRANDS].seq, r[1].len, ctx->ins.lo,
				     ctx->ins.hi, SM_RESEED_SCAN, wp);

	if (n < 0)
		return -1;
	for (int k = 0; k < n; k++) {
		const reseed_scan_t *a, *b;
		const double last = n_keep == SM_RESEED_PAIRS ? kept[n_keep - 1].score : -INFINITY;
		int64_t ins;
		int at;
		double s;

		if (seeded_already(&res[0], &wp[k].a, wp[k].strand_a) &&
		    seeded_already(&res[1], &wp[k].b, !wp[k].strand_a))
			continue;
		if (best_a + best_b <= last)
			continue;
		a = reseed_best(ctx, ws, r, q, 0, wp[k].strand_a, &wp[k].a, done, &n_done);
		if (!a)
			return -1;
		if (a->rc == 0 || a->c.score + best_b <= last)
			continue;
		b = reseed_best(ctx, ws, r, q, 1, !wp[k].strand_a, &wp[k].b, done, &n_done);
		if (!b)
			return -1;
		if (b->rc == 0)
			continue;
		ins = sm_pair_insert(ctx, &a->c, &b->c);
		if (!insert_proper(ctx, ins))
			continue;
		s = pair_score_at(ctx, &a->c, &b->c, ins);
		for (at = n_keep; at > 0 && kept[at - 1].score < s; at--)
			;
		if (at == SM_RESEED_PAIRS)
			continue;
		n_keep += n_keep < SM_RESEED_PAIRS;
		memmove(&kept[at + 1], &kept[at], (size_t)(n_keep - 1 - at) * sizeof *kept);
		kept[at].score = s;
		kept[at].k = k;
		kept[at].scan[0] = a;
		kept[at].scan[1] = b;
	}
	for (int t = 0; t < n_keep; t++) {
		const sm_window_pair_t *x = &wp[kept[t].k];

		if (add_window_cand(ctx, ws, &r[0], &q[0], &x->a, &kept[t].scan[0]->c, &res[0]) < 0 ||
		    add_window_cand(ctx, ws, &r[1], &q[SM_STRANDS], &x->b, &kept[t].scan[1]->c,
				    &res[1]) < 0)
			return -1;
	}
	return 0;
}

/* The rivals of the best pair, summed as its MAPQ sees them: each weighs
 * 10^(-SM_MAPQ_PER_MISMATCH d / 10), d its score's distance below the best
 * pair's in mismatches' worth (A + B), so that the best pair's MAPQ is
 * -10 log10 of its rivals' share and n equal rivals cost 10 log10(n) (bwa
 * mem's n_sub term).  moved[e]: whether read e is placed elsewhere, scoring
 * less, in the heaviest rival (any of the heaviest, when they tie), whose
 * differences could turn the lead around (sm_mapq_lead). */
typedef struct {
	double best;               /* the best pair's score (clips charged) */
	double sum;                /* the rivals' weights */
	double top;                /* the heaviest rival's score */
	int n;                     /* rivals added */
	int moved[SM_STRANDS];
	int top_by_quality;        /* every rival at top weighed by base qualities */
	double unit;               /* A + B */
} rivals_t;

/* A rival's weight from its score alone. */
static double rival_weight(const rivals_t *v, double s)
{
	return pow(10.0, -SM_MAPQ_PER_MISMATCH * (v->best - s) / (10.0 * v->unit));
}

/* Adds a rival of score s and weight w (rival_weight, or what the reads'
 * base qualities say: rival_quality_weight). */
static void rival_add_weighed(rivals_t *v, double s, double w, int by_quality, int moved0,
			      int moved1)
{
	v->sum += w;
	if (v->n == 0 || s > v->top) {
		v->top = s;
		v->moved[0] = moved0;
		v->moved[1] = moved1;
		v->top_by_quality = by_quality;
	} else if (s == v->top) {
		v->moved[0] |= moved0;
		v->moved[1] |= moved1;
		v->top_by_quality &= by_quality;
	}
	v->n++;
}

static void rival_add(rivals_t *v, double s, int moved0, int moved1)
{
	rival_add_weighed(v, s, rival_weight(v, s), 0, moved0, moved1);
}

/* The weight of the rival pair (a, b) of score s when the base qualities
 * tell it: each read that the rival moves is aligned whole at its pick and
 * at the rival, without a gap (sm_ungapped_odds) or with the same gaps
 * (sm_aligned_odds), and the odds of its bases where the two loci differ (at a
 * base that matches the pick and not the rival, the rival holds only if
 * that base is a sequencing error; docs/cli.md "MAPQ") stand for what the
 * scores would give those differences.  What the scores do not owe to them
 * (the inserts' likelihoods) weighs as in rival_weight.  whole[e]: read
 * e's pick is aligned whole without a gap (sm_whole_ungapped, taken once for
 * all rivals).  lone[e]: the best score of read e's other places that pair
 * with none of its mate's (lone_place).  Returns the weight, or -1 when a
 * moved read is not of that kind, or has a place as good as the rival's
 * that pairs with nothing in view (the score decides: such a place shows
 * copies of the rival whose mates lie out of view, which the one rival's
 * odds do not price). */
static double rival_quality_weight(const sm_ctx_t *ctx, const rivals_t *v, const sm_read_t *r,
				   const sm_query_t *q, const res_t *res, const int pick[SM_STRANDS],
				   const int whole[SM_STRANDS], const int32_t lone[SM_STRANDS],
				   const cand_t *const rival[SM_STRANDS], double s)
{
	double odds = 1, reads_lead = 0;

	for (int e = 0; e < SM_STRANDS; e++) {
		const cand_t *p = &res[e].cand[pick[e]], *o = rival[e];
		double o_odds;

		if (o == p)
			continue;
		if (lone[e] >= o->score)
			return -1;
		o_odds = whole[e] ? sm_ungapped_odds(ctx, &r[e], q[SM_STRANDS * e].seq, p, o) : -1;
		if (o_odds < 0 && (o_odds = sm_aligned_odds(ctx, &r[e], q[SM_STRANDS * e].seq, p, o)) < 0)
			return -1;
		odds *= o_odds;
		reads_lead += p->score - o->score;
	}
	return odds * pow(10.0, -SM_MAPQ_PER_MISMATCH * (v->best - s - reads_lead) / (10.0 * v->unit));
}

/* The best score among read e's places at[e][1..n_at[e]) that make a
 * proper pair with none of its mate's places at[!e][0..n_at[!e]) (INT32_MIN
 * when every one does). */
static int32_t lone_place(const sm_ctx_t *ctx, const res_t *res, int e,
			  const int at[SM_STRANDS][SM_MAX_CAND], const int n_at[SM_STRANDS])
{
	int32_t best = INT32_MIN;

	for (int i = 1; i < n_at[e]; i++) {
		const cand_t *c = &res[e].cand[at[e][i]];
		int paired = 0;

		for (int j = 0; j < n_at[!e] && !paired; j++)
			paired = is_proper(ctx, c, &res[!e].cand[at[!e][j]]);
		if (!paired && c->score > best)
			best = c->score;
	}
	return best;
}

/* Read e's places among its candidates res->cand (spans sp): at[0] = pick,
 * then one candidate for each other place (same_place), the best scoring
 * there (the first of equals).  Returns how many. */
static int read_places(const res_t *res, const span_t *sp, int pick, int at[SM_MAX_CAND])
{
	int n = 0;

	at[n++] = pick;
	for (int k = 0; k < res->n_cand; k++) {
		const cand_t *c = &res->cand[k];
		int dup = k == pick;

		for (int t = 0; t < res->n_cand && !dup; t++) {
			const cand_t *o = &res->cand[t];

			dup = t != k && span_same_place(o, sp[t], c, sp[k]) &&
			      (t == pick || o->score > c->score || (o->score == c->score && t < k));
		}
		if (!dup)
			at[n++] = k;
	}
	return n;
}

/* Candidate k of read e with what its clips hide charged (clip_cost),
 * traced first when it is untraced. */
static int charged_score(const sm_ctx_t *ctx, sm_tbuf_t *ws, const sm_read_t *r, const sm_query_t *q,
			 res_t *res, int e, int k, double *s)
{
	cand_t *c = &res[e].cand[k];

	if (sm_map_ensure_traced(ctx, ws, &res[e], &r[e], &q[SM_STRANDS * e], c) < 0)
		return -1;
	*s = c->score - clip_cost(ctx, c, &q[SM_STRANDS * e + c->is_rev]);
	return 0;
}

/* 1 if read e has a candidate where copy t of candidate c lies (an adopted
 * copy, or one that seeding found), which pairs as a candidate already. */
static int copy_is_cand(const res_t *res, const cand_t *c, int t)
{
	int64_t end = c->end + c->copy[t].shift;

	for (int k = 0; k < res->n_cand; k++)
		if (res->cand[k].is_rev == c->is_rev && res->cand[k].end - end < SM_TANDEM_SHIFT &&
		    end - res->cand[k].end < SM_TANDEM_SHIFT)
			return 1;
	return 0;
}

/* MAPQ *q_pe of the best pair (candidates bi, bj, pair score best; unpaired:
 * the reads' own best scores summed), from all its rivals that the
 * candidates show (rivals_t), its own and theirs with clips charged
 * (clip_cost) where they come within SM_RIVAL_REACH mismatches' worth:
 * - the reads at their own best placements, not as a proper pair (less
 *   the unpaired penalty, -U);
 * - every other proper pair of the reads' places (read_places);
 * - each tandem copy of a placement that pairs with the other read's and
 *   is no candidate.
 * A rival beyond SM_RIVAL_REACH is charged what the best pair's own clips
 * cost, read by read (the read's own errors near its ends, which clip it
 * alike at every copy), so that the lead over it is the raw one.  Copies
 * that no candidate shows are not guessed at: rivals made up for them (a
 * read with SM_TOPK or more places within a mismatch, or a near place with
 * no candidate mate) cost hundreds of reads at MAPQ >= 10 and were 5-60
 * times under-confident on the accuracy sets (accuracy-2026-11-21-s4.md).
 * Returns 0 or -1 on error. */
static int pair_mapq(const sm_ctx_t *ctx, sm_tbuf_t *ws, const sm_read_t *r, const sm_query_t *q,
		     res_t *res, int bi, int bj, double best, int32_t unpaired, int *q_pe)
{
	const sm_score_t *sc = &ctx->opt.score;
	int pick[SM_STRANDS] = { bi, bj }, at[SM_STRANDS][SM_MAX_CAND], n_at[SM_STRANDS];
	int whole[SM_STRANDS], n_moved = 0;
	int32_t len[SM_STRANDS], lone[SM_STRANDS];
	double own[SM_STRANDS], charge[SM_STRANDS], as[SM_STRANDS], reach;
	rivals_t v = { .unit = sc->match + sc->mismatch };
	int32_t pen = ctx->opt.pen_unpaired;

	for (int e = 0; e < SM_STRANDS; e++) {
		span_t sp[SM_MAX_CAND];

		for (int k = 0; k < res[e].n_cand; k++)
			sp[k] = cand_span(ctx, &res[e].cand[k]);
		n_at[e] = read_places(&res[e], sp, pick[e], at[e]);
		if (charged_score(ctx, ws, r, q, res, e, pick[e], &own[e]) < 0)
			return -1;
		charge[e] = res[e].cand[pick[e]].score - own[e];
		whole[e] = sm_whole_ungapped(ctx, &res[e].cand[pick[e]], q[SM_STRANDS * e].seq, r[e].len);
	}
	for (int e = 0; e < SM_STRANDS; e++)
		lone[e] = lone_place(ctx, res, e, at, n_at);
	v.best = best - charge[0] - charge[1];
	reach = v.best - SM_RIVAL_REACH * v.unit;
	rival_add(&v, (unpaired - pen > 0 ? unpaired - pen : 0) -
		  charge[0] - charge[1], 1, 1);
	for (int i = 0; i < n_at[0]; i++)
		for (int j = i == 0; j < n_at[1]; j++) {
			const cand_t *a = &res[0].cand[at[0][i]], *b = &res[1].cand[at[1][j]];
			double s, sa, sb;

			if (!is_proper(ctx, a, b))
				continue;
			s = pair_score(ctx, a, b) - charge[0] - charge[1];
			if (s >= reach) {
				if (charged_score(ctx, ws, r, q, res, 0, at[0][i], &sa) < 0 ||
				    charged_score(ctx, ws, r, q, res, 1, at[1][j], &sb) < 0)
					return -1;
				s += charge[0] + sa - a->score + charge[1] + sb - b->score;
			}
			{
				const cand_t *const rival[SM_STRANDS] = { a, b };
				double w = rival_quality_weight(ctx, &v, r, q, res, pick, whole, lone, rival,
								s);

				rival_add_weighed(&v, s, w >= 0 ? w : rival_weight(&v, s), w >= 0,
						  a->score < res[0].cand[bi].score,
						  b->score < res[1].cand[bj].score);
			}
		}
	for (int e = 0; e < SM_STRANDS; e++) {
		const cand_t *c = &res[e].cand[pick[e]], *m = &res[!e].cand[pick[!e]];

		for (int t = 0; t < c->n_copy; t++) {
			int64_t ins = insert_shifted(ctx, c, c->copy[t].shift, m);
			int mv = c->copy[t].score < c->score;

			if (!insert_proper(ctx, ins) || copy_is_cand(&res[e], c, t))
				continue;
			rival_add(&v, c->copy[t].score - charge[e] + own[!e] + insert_score(ctx, ins), e ? 0 : mv,
				  e ? mv : 0);
		}
	}
	/* The moved reads' differences (sm_mapq_lead's k) could turn the lead
	 * around by falling where the loci differ; a top rival weighed by base
	 * qualities has priced exactly that. */
	for (int e = 0; e < SM_STRANDS && !v.top_by_quality; e++)
		if (v.moved[e]) {
			as[n_moved] = res[e].cand[pick[e]].score;
			len[n_moved++] = r[e].len;
		}
	*q_pe = sm_mapq_lead(sc, -10.0 * log10(v.sum) * v.unit / SM_MAPQ_PER_MISMATCH, n_moved,
			     as, len);
	return 0;
}

/* The best proper pair of the candidates (pair_score), unless the two
 * reads' own best placements, taken apart, score more than
 * the unpaired penalty (-U) above it: sets *bi, *bj and its MAPQ *q_pe (pair_mapq)
 * and returns 1, or returns 0 when there is none, -1 on error. */
static int choose_pair(const sm_ctx_t *ctx, sm_tbuf_t *ws, const sm_read_t *r, const sm_query_t *q,
		       res_t *res, int *bi, int *bj, int *q_pe)
{
	double best, second;
	int32_t unpaired = 0;

	for (int e = 0; e < SM_STRANDS; e++) {
		int own = own_best(&res[e]);

		unpaired += own >= 0 ? res[e].cand[own].score : 0;
	}
	/* The best pair, its placements checked for copies; a copy that pairs
	 * better becomes a candidate and the choice is made again. */
	for (int round = 0; ; round++) {
		int pick[2 * SM_STRANDS], adopted = 0;

		if (best_traced_pair(ctx, ws, r, q, res, unpaired - ctx->opt.pen_unpaired, pick, &best,
				     &second) < 0)
			return -1;
		*bi = pick[0];
		*bj = pick[1];
		if (*bi < 0 || best + ctx->opt.pen_unpaired < unpaired)
			return 0;
		for (int e = 0; e < SM_STRANDS; e++) {
			cand_t *c = &res[e].cand[pick[e]];

			if (!c->near_done && sm_map_tandem(ctx, ws, &q[SM_STRANDS * e], c) < 0)
				return -1;
		}
		for (int e = 0; e < SM_STRANDS && !adopted && round < SM_MAX_ADOPT; e++) {
			int k, rc;
			double s = best_copy_pair(ctx, &res[e].cand[pick[e]], &res[!e].cand[pick[!e]], &k);

			if (k < 0 || s <= best)
				continue;
			rc = adopt_copy(ctx, ws, &r[e], &q[SM_STRANDS * e], &res[e], pick[e], k);
			if (rc < 0)
				return -1;
			adopted = rc;
		}
		if (!adopted)
			break;
	}
	return pair_mapq(ctx, ws, r, q, res, *bi, *bj, best, unpaired, q_pe) < 0 ? -1 : 1;
}

/* 1 if the proper pair of res[0].prim and res[1].prim stands on read !e's
 * sequence alone: read e was placed by its mate's rescue, or ties elsewhere
 * with a tie that may lie out of view (not ties_in_view), while read !e
 * leads its own candidates.  Read e then tells none of its mate's near
 * rivals apart: a copy of it may lie beside each of them, and no candidate
 * shows it, so neither read may claim more than read !e's own MAPQ (a
 * chr20 75 bp pair in an L1: read 1 perfect at several copies, read 2 one
 * Q14 substitution from its origin and perfect at another copy, where
 * rescue found read 1, was placed there at MAPQ 40-45; read 2's own MAPQ
 * is 5, bwa mem gives 16). */
static int stands_on_mate(const res_t *res, int e)
{
	const cand_t *a = &res[e].cand[res[e].prim], *b = &res[!e].cand[res[!e].prim];

	return own_lead(b) > 0 && (a->rescued || a->score == a->xs) && !ties_in_view(&res[e], a);
}

/* Chooses the placements of pair (reads r[0], r[1], results res[0], res[1]):
 * mate rescue, then the best proper pair or the two best hits.  In seeded
 * mode a pair left without a proper pair, with one below MAPQ
 * SM_RESEED_MAPQ or of two unsure reads, is seeded again as a pair and
 * chosen again: its reads' own best windows may all have missed it
 * (repeats with few exact seeds left at the true locus, in reads with many
 * differences; a read tying at more copies than its candidates hold). */
int sm_pair_resolve(const sm_ctx_t *ctx, sm_tbuf_t *ws, const sm_read_t *r, const sm_query_t *q,
		    res_t *res)
{
	int bi, bj, q_pe = 0, q_se[SM_STRANDS], rc;

	for (int e = 0; e < SM_STRANDS; e++)
		res[e].mapq = res[e].prim >= 0 ?
			      own_mapq(ctx, &res[e], &res[e].cand[0], &r[e], &q[SM_STRANDS * e]) : 0;
	/* A read without bases has no placement to pair or rescue: its mate
	 * stays at its own best. */
	if (!ctx->ins.ok || r[0].len == 0 || r[1].len == 0)
		return 0;
	for (int e = 0; e < SM_STRANDS && !ctx->opt.no_rescue; e++)
		if (rescue_mate(ctx, ws, &res[e], &r[!e], &q[SM_STRANDS * !e], &res[!e]) < 0)
			return -1;
	rc = choose_pair(ctx, ws, r, q, res, &bi, &bj, &q_pe);
	/* Seeded again: no proper pair, one below SM_RESEED_MAPQ, or an unsure
	 * pair (capped below it at the end: a read that ties at more copies
	 * than its candidates hold may have left its origin, and with it the
	 * mate's, out of view). */
	if (rc >= 0 && ctx->index &&
	    (rc == 0 || q_pe < SM_RESEED_MAPQ ||
	     sm_pair_unsure(res, bi, bj) != SM_SURE)) {
		if (reseed_pair(ctx, ws, r, q, res) < 0)
			return -1;
		rc = choose_pair(ctx, ws, r, q, res, &bi, &bj, &q_pe);
	}
	if (rc < 0)
		return -1;
	if (rc == 0) {   /* each read at its own best */
		for (int e = 0; e < SM_STRANDS; e++) {
			int own = own_best(&res[e]);

			if (own >= 0 && own != res[e].prim) {   /* found by seeding the pair */
				cand_t *c = &res[e].cand[own];

				res[e].prim = own;
				if (sm_map_ensure_traced(ctx, ws, &res[e], &r[e], &q[SM_STRANDS * e], c) < 0 ||
				    (!c->near_done && sm_map_tandem(ctx, ws, &q[SM_STRANDS * e], c) < 0))
					return -1;
			}
			/* No insert tells its copies apart now: a tie its seeding
			 * left open (it looked for better loci only) may lie out
			 * of view, as for a single read (voucher_unsure). */
			if (res[e].prim >= 0) {
				const cand_t *c = &res[e].cand[res[e].prim];

				res[e].mapq = sm_unsure_cap(&ctx->opt.score, voucher_unsure(&res[e], c),
							    own_mapq(ctx, &res[e], c, &r[e],
								     &q[SM_STRANDS * e]),
							    own_lead(c), 0);
			} else {
				res[e].mapq = 0;
			}
		}
		return 0;
	}
	res[0].prim = bi;
	res[1].prim = bj;
	for (int e = 0; e < SM_STRANDS; e++) {
		q_se[e] = own_mapq(ctx, &res[e], &res[e].cand[res[e].prim], &r[e], &q[SM_STRANDS * e]);
		res[e].proper = 1;
		res[e].mapq = q_pe > q_se[e] ? (q_pe < q_se[e] + SM_PAIR_MAPQ_BOOST ? q_pe :
						q_se[e] + SM_PAIR_MAPQ_BOOST) : q_se[e];
		if (res[e].mapq > SM_MAPQ_MAX)
			res[e].mapq = SM_MAPQ_MAX;
	}
	/* The pair's evidence lifts an unsure read only when its mate is sure:
	 * when both are unsure, an unseen pair of loci may be as good (the
	 * lesser of their leads says how likely). */
	{
		int32_t la = own_lead(&res[0].cand[bi]), lb = own_lead(&res[1].cand[bj]);
		int level = sm_pair_unsure(res, bi, bj);

		for (int e = 0; e < SM_STRANDS; e++)
			res[e].mapq = sm_unsure_cap(&ctx->opt.score, level, res[e].mapq,
						    la < lb ? la : lb, 0);
	}
	for (int e = 0; e < SM_STRANDS; e++)
		if (stands_on_mate(res, e))
			for (int t = 0; t < SM_STRANDS; t++)
				if (res[t].mapq > q_se[!e])
					res[t].mapq = q_se[!e];
	return 0;
}

