/* map.c — mapping a batch of reads, read by read (see map_impl.h). */
#include "mapper/map_impl.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mapper/grow.h"
#include "mapper/split.h"

static int ws_reserve(sm_tbuf_t *ws, size_t n_q, size_t n_codes)
{
	if (n_q > ws->m_q) {
		sm_query_t *q = realloc(ws->q, n_q * sizeof *q);
		sm_scan_t *s;
		int *todo;

		if (!q)
			return -1;
		ws->q = q;
		s = realloc(ws->scan, n_q * sizeof *s);
		if (!s)
			return -1;
		ws->scan = s;
		todo = realloc(ws->todo, n_q * sizeof *todo);
		if (!todo)
			return -1;
		ws->todo = todo;
		ws->m_q = n_q;
	}
	if (n_codes > ws->m_codes) {
		uint8_t *c = realloc(ws->codes, n_codes);

		if (!c)
			return -1;
		ws->codes = c;
		ws->m_codes = n_codes;
	}
	return 0;
}

sm_tbuf_t *sm_tbuf_create(const sm_ctx_t *ctx)
{
	sm_tbuf_t *ws = calloc(1, sizeof *ws);

	if (!ws)
		goto fail;
	ws->aws = sm_align_ws_create(ctx->isa);
	if (!ws->aws)
		goto fail;
	if (ctx->seeded && !(ws->seeder = sm_seeder_create()))
		goto fail;
	/* With the GPU, the batch's scan lists hold no reference bases: the GPU
	 * copies them from the reference it keeps (wscan.h). */
	ws->jobs.spans = sm_engine_reads_src(ctx->engine);
	return ws;
fail:
	sm_log(SM_LOG_ERROR, "cannot create a mapping thread's buffers");
	sm_tbuf_destroy(ws);
	return NULL;
}

void sm_tbuf_destroy(sm_tbuf_t *ws)
{
	if (!ws)
		return;
	free(ws->q);
	free(ws->scan);
	free(ws->codes);
	free(ws->todo);
	sm_align_ws_destroy(ws->aws);
	sm_record_ws_free(&ws->rws);
	sm_seeder_destroy(ws->seeder);
	sm_wref_free(&ws->wref);
	sm_wscan_free(&ws->jobs);
	sm_wscan_free(&ws->one);
	for (int k = 0; k < SM_STRANDS * ws->m_reads; k++)
		sm_wref_free(&ws->wrefs[k]);
	free(ws->wrefs);
	free(ws->strand_job);
	free(ws->strand_win);
	free(ws->sub_count);
	free(ws->sides);
	free(ws->seed_todo);
	free(ws->seed_read);
	free(ws->seed_len);
	free(ws->seed_nwin);
	free(ws->seed_left);
	free(ws->seed_skip);
	free(ws->seed_skip_at);
	free(ws->retry_how);
	free(ws->retry_level);
	free(ws->retry_best);
	free(ws->mate_win);
	free(ws->seed_margin);
	free(ws->seed_win);
	free(ws->seed_gap);
	free(ws->next);
	free(ws->tb_job);
	free(ws->tb_q);
	free(ws->tb_win);
	free(ws->tb_res);
	free(ws->tb_ops);
	free(ws->tb_start);
	free(ws->tb_at);
	sm_split_free(ws->split);
	sm_tbuf_destroy(ws->whole);
	free(ws);
}

void sm_tbuf_stats_add(const sm_tbuf_t *ws, sm_map_stats_t *st)
{
	for (int k = 0; k < PH_N; k++)
		st->ph[k] += ws->ph[k];
	for (int k = 0; k < LIST_N; k++) {
		st->list_n[k] += ws->list_n[k];
		st->list_jobs[k] += ws->list_jobs[k];
		st->list_cols[k] += ws->list_cols[k];
	}
	st->completed += ws->completed;
	st->completed_same += ws->completed_same;
	st->completed_more += ws->completed_more;
	st->completed_hits += ws->completed_hits;
	st->completed_again += ws->completed_again;
	st->neighboured += ws->neighboured;
	st->neighbour_hits += ws->neighbour_hits;
	st->neighbour_better += ws->neighbour_better;
	st->cut += ws->cut;
	st->uncut += ws->uncut;
	st->refined += ws->refined;
	st->refined_sure += ws->refined_sure;
	st->copied += ws->copied;
	st->copies_found += ws->copies_found;
	st->copy_better += ws->copy_better;
	st->mated += ws->mated;
	st->mate_better += ws->mate_better;
	st->tie_reads += ws->tie_reads;
	st->tie_scans += ws->tie_scans;
	st->tie_added += ws->tie_added;
	if (ws->aws) {
		sm_align_stats_t a = sm_align_ws_stats(ws->aws);

		st->aln.calls += a.calls;
		st->aln.cells += a.cells;
		st->aln.narrow += a.narrow;
		st->aln.ungapped += a.ungapped;
		st->aln.batched += a.batched;
		for (int k = 0; k < SM_ALIGN_N_ISA; k++)
			st->aln.fills[k] += a.fills[k];
	}
}

const char *const sm_ph_name[PH_N] = { "seeding", "window scans", "candidates", "exhaustive",
					"tandem", "pairing+records", "SAM text" };

/* Adds the seconds since *t to phase ph and restarts *t. */
void sm_ph_add(sm_tbuf_t *ws, int ph, double *t)
{
	double now = sm_seconds();

	ws->ph[ph] += now - *t;
	if (sm_trace_on)
		sm_trace_span(sm_ph_name[ph], *t, now);
	*t = now;
}

/* Room for n reads' window references, jobs and sides. */
static int ws_reserve_reads(sm_tbuf_t *ws, int n)
{
	sm_wref_t *w;

	if (n <= ws->m_reads)
		return 0;
	w = realloc(ws->wrefs, (size_t)n * SM_STRANDS * sizeof *w);
	if (!w)
		goto oom;
	ws->wrefs = w;
	memset(w + SM_STRANDS * ws->m_reads, 0, (size_t)(n - ws->m_reads) * SM_STRANDS * sizeof *w);
	ws->m_reads = n;
	if (!(ws->strand_job = realloc(ws->strand_job, (size_t)n * SM_STRANDS * sizeof *ws->strand_job)) ||
	    !(ws->sides = realloc(ws->sides, (size_t)n * SM_STRANDS * sizeof *ws->sides)) ||
	    !(ws->seed_todo = realloc(ws->seed_todo, (size_t)n * sizeof *ws->seed_todo)) ||
	    !(ws->seed_read = realloc(ws->seed_read, (size_t)n * sizeof *ws->seed_read)) ||
	    !(ws->seed_len = realloc(ws->seed_len, (size_t)n * sizeof *ws->seed_len)) ||
	    !(ws->seed_nwin = realloc(ws->seed_nwin, (size_t)n * sizeof *ws->seed_nwin)) ||
	    !(ws->seed_left = realloc(ws->seed_left, (size_t)n * sizeof *ws->seed_left)) ||
	    !(ws->seed_skip_at = realloc(ws->seed_skip_at, (size_t)n * sizeof *ws->seed_skip_at)) ||
	    !(ws->retry_how = realloc(ws->retry_how, (size_t)n * sizeof *ws->retry_how)) ||
	    !(ws->retry_level = realloc(ws->retry_level, (size_t)n * sizeof *ws->retry_level)) ||
	    !(ws->retry_best = realloc(ws->retry_best, (size_t)n * sizeof *ws->retry_best)) ||
	    !(ws->mate_win = realloc(ws->mate_win, (size_t)n * sizeof *ws->mate_win)) ||
	    !(ws->seed_margin = realloc(ws->seed_margin, (size_t)n * sizeof *ws->seed_margin)))
		goto oom;
	return 0;
oom:
	sm_log(SM_LOG_ERROR, "out of memory mapping a batch of %d reads", n);
	return -1;
}

/* Base codes of the read (fwd) and of its reverse complement (rev). */
static void encode_read(const sm_read_t *r, uint8_t *restrict fwd, uint8_t *restrict rev)
{
	sm_codes_of_letters(fwd, r->seq, r->len);
	sm_codes_reverse(rev, fwd, r->len, 1);
}

static int cand_before(const cand_t *a, const cand_t *b)
{
	if (a->score != b->score)
		return a->score > b->score;
	if (a->end != b->end)
		return a->end < b->end;
	return a->is_rev < b->is_rev;
}

/* Read r's tie key for sm_hit_choose() on the lists s[0], s[1], or 0 when
 * no more than one of their loci reaches the best score: one tied hit
 * takes no key, and hashing the name is most of a choice's cost. */
static uint64_t hit_tie_key(const sm_scan_t *s, const sm_read_t *r)
{
	int32_t best = 0;
	int n = 0;

	for (int st = 0; st < SM_STRANDS; st++)
		if (s[st].n > 0 && s[st].top[0].score > best)
			best = s[st].top[0].score;
	for (int st = 0; st < SM_STRANDS; st++)   /* each list is best first */
		for (int k = 0; k < s[st].n && s[st].top[k].score == best; k++)
			n++;
	return n > 1 ? sm_tie_key(r->name) : 0;
}

/* Fills res's candidates from the two strands' lists (global coordinates)
 * of read r: the loci scoring at least -T, cand[0] being sm_hit_choose()'s
 * hit (with r's tie key).  MAPQ is left at 0: tandem_batch sets it once XS
 * knows the tandem copies.  Returns the tied hits the hit was chosen among
 * (sm_hit_t.n_tied; 0 when unmapped). */
static int make_cands(const sm_ctx_t *ctx, const sm_scan_t *s, const sm_read_t *r, res_t *res)
{
	int32_t n = r->len;
	int shift = sm_locus_shift(&ctx->opt.score, n);
	sm_hit_t hit;

	sm_hit_choose(&s[0], &s[1], shift, (int64_t)n + sm_reach(&ctx->opt.score, n),
		      ctx->opt.min_score, hit_tie_key(s, r), &hit);
	res->n_cand = 0;
	res->prim = -1;
	res->proper = 0;
	res->mapq = 0;
	res->sub_odds = 0;
	res->ties_cut = 0;
	if (!hit.mapped)
		return 0;
	for (int st = 0; st < SM_STRANDS; st++)
		for (int k = 0; k < s[st].n; k++) {
			cand_t c = { .score = s[st].top[k].score, .is_rev = st, .end = s[st].top[k].end,
				     .near = 0, .near_done = 0, .rescued = 0, .qlen = n, .traced = 0 };
			int at;

			if (c.score < ctx->opt.min_score)
				continue;
			for (at = res->n_cand; at > 0 && cand_before(&c, &res->cand[at - 1]); at--) {
				sm_aln_t keep = res->cand[at].aln;

				res->cand[at] = res->cand[at - 1];
				res->cand[at - 1].aln = keep;
			}
			c.aln = res->cand[at].aln;
			c.aln.n_cigar = 0;
			res->cand[at] = c;
			res->n_cand++;
		}
	/* The hit first, the others staying in order (whole slots swap, so
	 * each keeps its own traceback buffer). */
	for (int at = 0; at < res->n_cand; at++)
		if (res->cand[at].is_rev == hit.is_rev && res->cand[at].end == hit.best.end) {
			for (; at > 0; at--) {
				cand_t t = res->cand[at];

				res->cand[at] = res->cand[at - 1];
				res->cand[at - 1] = t;
			}
			break;
		}
	res->cand[0].xs = hit.xs;
	for (int k = 1; k < res->n_cand; k++)
		res->cand[k].xs = res->cand[0].score;
	res->prim = 0;
	for (int st = 0; st < SM_STRANDS; st++)   /* a list full of ties may have left some out */
		res->ties_cut |= s[st].n >= SM_TOPK && s[st].top[SM_TOPK - 1].score >= res->cand[0].score;
	return hit.n_tied;
}

double sm_sub_odds(const sm_read_t *r, int32_t p)
{
	double e;

	if (!r->qual)
		return pow(10.0, -SM_MAPQ_PER_MISMATCH / 10.0);
	/* Q0-Q1 would make an error likelier than the base itself: at most 3/4. */
	e = pow(10.0, -(r->qual[p] - 33) / 10.0);

	e = e > 0.75 ? 0.75 : e;
	return e / 3 / (1 - e);
}

/* 1 if candidate c of a read of n bases is traced and matches base for
 * base (the best possible objective). */
static int cand_perfect(const sm_ctx_t *ctx, const cand_t *c, int32_t n)
{
	return c->traced && c->score >= sm_best_possible(&ctx->opt.score, n);
}

/* For read r (forward codes q0), perfect where it lies: sm_sub_odds of the
 * one base at which the reference at diagonal d of strand st (the column
 * of the read's first base) differs from it, or -1 when that is not
 * exactly one base. */
static double sub_odds_at(const sm_ctx_t *ctx, const sm_read_t *r, const uint8_t *q0, int st,
			  int64_t d)
{
	int32_t at;

	if (sm_seed_subs_at(ctx->ref, q0, r->len, st, d, 1, &at) != 1)
		return -1;
	return sm_sub_odds(r, st ? r->len - 1 - at : at);
}

int sm_sub_rival_mapq(const sm_ctx_t *ctx, const res_t *res, const cand_t *c, const sm_read_t *r,
		      const sm_query_t *q)
{
	const int32_t n = r->len;
	const int32_t floor_score = c->score - (ctx->opt.score.match + ctx->opt.score.mismatch);
	int64_t seen[SM_MAX_CAND + SM_MAX_COPIES];
	int n_seen = 0;
	double odds = res->sub_odds;

	if (!cand_perfect(ctx, c, n))
		return SM_MAPQ_MAX;
	/* Rivals in view: the read's other candidates, and the copies beside
	 * the hit (tandem checks); each diagonal once. */
	for (int k = 0; k < res->n_cand + c->n_copy; k++) {
		const cand_t *o = k < res->n_cand ? &res->cand[k] : NULL;
		int st = o ? o->is_rev : c->is_rev;
		int32_t score = o ? o->score : c->copy[k - res->n_cand].score;
		int64_t d = o ? o->end - n + 1 : c->aln.ref_start + c->copy[k - res->n_cand].shift;
		double o_odds;
		int dup = 0;

		if (o == c || score < floor_score || score >= c->score)
			continue;
		for (int t = 0; t < n_seen && !dup; t++)
			dup = seen[t] == 2 * d + st;
		if (dup || (o_odds = sub_odds_at(ctx, r, q[0].seq, st, d)) < 0)
			continue;
		seen[n_seen++] = 2 * d + st;
		odds += o_odds;
	}
	return sm_odds_mapq(odds);
}

/* 1 if candidate c's end lies in window w (global coordinates). */
static int cand_in_window(const cand_t *c, const sm_window_t *w)
{
	return c->end >= w->start && c->end < w->end;
}

/* The reference that candidate c is traced against: the whole reference
 * (win NULL), or, when it was found in the windows win[0..n_win), the one
 * that holds its end, as a reference of its own (a window reference's
 * contig is exactly that: the window's bases, the alignment clipped at its
 * start), read in place from the whole reference.  view and *len hold that
 * window's reference, *shift is its first base's global column.  NULL when
 * no window holds c's end. */
static const sm_ref_t *trace_ref(const sm_ctx_t *ctx, const sm_window_t *win, int32_t n_win,
				 const cand_t *c, sm_ref_t *view, int64_t *len, int64_t *shift)
{
	static const int64_t zero = 0;
	int32_t t = 0;

	*shift = 0;
	if (!win)
		return ctx->ref;
	while (t < n_win && !cand_in_window(c, &win[t]))
		t++;
	if (t == n_win)
		return NULL;
	*len = win[t].end - win[t].start;
	memset(view, 0, sizeof *view);
	view->n_contig = 1;
	view->len = len;
	view->offset = (int64_t *)&zero;
	view->total = *len;
	view->seq = ctx->ref->seq + win[t].start;
	*shift = win[t].start;
	return view;
}

/* The windows res's candidates were found in (trace_ref's win), NULL when
 * they come from the whole reference. */
static const sm_window_t *cand_windows(const res_t *res)
{
	return res->from_windows ? res->win : NULL;
}

/* Moves c's alignment, traced against trace_ref's reference, to global
 * columns and marks c traced. */
static void traced_at(cand_t *c, int64_t shift)
{
	c->aln.ref_start += shift;
	c->aln.ref_end += shift;
	c->traced = 1;
}

/* Logs that read r's traceback failed.  Returns -1. */
static int trace_failed(const sm_read_t *r)
{
	sm_log(SM_LOG_ERROR, "read %lld '%s': traceback failed", (long long)r->index + 1, r->name);
	return -1;
}

/* Traces candidate c of read query q (q[0] forward, q[1] reverse) against
 * trace_ref's reference: the whole one (win NULL) or the window that holds
 * its end. */
int sm_map_trace(const sm_ctx_t *ctx, sm_tbuf_t *ws, const sm_window_t *win, int32_t n_win,
		 const sm_query_t *q, cand_t *c, const sm_read_t *r)
{
	sm_ref_t view;
	int64_t len, shift;
	const sm_ref_t *tref = trace_ref(ctx, win, n_win, c, &view, &len, &shift);

	if (!tref || sm_align(ws->aws, tref, &ctx->opt.score, &q[c->is_rev], c->end - shift,
			      c->score, &c->aln) < 0)
		return trace_failed(r);
	traced_at(c, shift);
	return 0;
}

/* Traces candidate c of the read (res, r, queries q) unless it is traced:
 * within the read's windows when it was found there, else against the
 * whole reference.  Candidates are traced only when their alignment is
 * needed (the best one, the chosen ones, secondaries); pairing works on the
 * span that a candidate's end and the read length imply (cand_span). */
int sm_map_ensure_traced(const sm_ctx_t *ctx, sm_tbuf_t *ws, const res_t *res, const sm_read_t *r,
			 const sm_query_t *q, cand_t *c)
{
	return c->traced ? 0 : sm_map_trace(ctx, ws, cand_windows(res), res->n_win, q, c, r);
}

/* Keeps windows win[0..n_win) in res (for sm_map_ensure_traced).  Returns 0
 * or -1 when out of memory (logged). */
static int keep_windows(const sm_window_t *win, int32_t n_win, res_t *res)
{
	if (n_win > res->m_win) {
		sm_window_t *w = realloc(res->win, (size_t)n_win * sizeof *w);

		if (!w) {
			sm_log(SM_LOG_ERROR, "out of memory keeping a read's windows");
			return -1;
		}
		res->win = w;
		res->m_win = n_win;
	}
	if (n_win > 0)   /* win may be NULL when empty */
		memcpy(res->win, win, (size_t)n_win * sizeof *res->win);
	res->n_win = n_win;
	res->from_windows = 1;
	return 0;
}

/* Resizes *p to `bytes` (contents kept).  0 or -1. */
static int resize(void **p, size_t bytes)
{
	void *t = realloc(*p, bytes);

	if (!t)
		return -1;
	*p = t;
	return 0;
}

/* Room for n batched tracebacks.  0 or -1. */
static int tb_reserve(sm_tbuf_t *ws, int n)
{
	const size_t m = (size_t)(n < 2 * ws->m_tb ? 2 * ws->m_tb : n);

	if (n <= ws->m_tb)
		return 0;
	if (resize((void **)&ws->tb_job, m * sizeof *ws->tb_job) < 0 ||
	    resize((void **)&ws->tb_q, m * sizeof *ws->tb_q) < 0 ||
	    resize((void **)&ws->tb_win, m * sizeof *ws->tb_win) < 0 ||
	    resize((void **)&ws->tb_res, m * sizeof *ws->tb_res) < 0 ||
	    resize((void **)&ws->tb_start, m * sizeof *ws->tb_start) < 0 ||
	    resize((void **)&ws->tb_at, m * sizeof *ws->tb_at) < 0 ||
	    resize((void **)&ws->tb_ops, m * SM_TB_MAX_OPS * sizeof *ws->tb_ops) < 0)
		return -1;
	ws->m_tb = (int)m;
	return 0;
}

/* A batched traceback that sm_align_prepare() or sm_align_finish() left
 * with rc: SM_ALIGN_SELF is traced alone (sm_map_ensure_traced), -1 was an
 * error. */
static int trace_alone(const sm_ctx_t *ctx, sm_tbuf_t *ws, int rc, const res_t *rs, cand_t *c,
		       const sm_read_t *r, const sm_query_t *q)
{
	return rc < 0 ? trace_failed(r) : sm_map_ensure_traced(ctx, ws, rs, r, q, c);
}

/* Traces candidate 0 of every read todo[0..n_todo) that has one and is
 * not traced (reads mapped exhaustively after seeding aside), as
 * sm_map_ensure_traced() would, with the band fills the engine runs in one
 * call (the reads' queries in ws->q). */
static int trace_batch(const sm_ctx_t *ctx, sm_tbuf_t *ws, const sm_read_t *reads, int n_todo,
		       const int *todo, res_t *res)
{
	const sm_score_t *sc = &ctx->opt.score;
	sm_ref_t view;
	int64_t len, shift;
	int n_job = 0;

	if (tb_reserve(ws, n_todo) < 0) {
		sm_log(SM_LOG_ERROR, "out of memory tracing a batch of %d reads", n_todo);
		return -1;
	}
	for (int t = 0; t < n_todo; t++) {
		const int k = todo[t];
		res_t *rs = &res[k];
		cand_t *c = &rs->cand[0];
		const sm_query_t *q = &ws->q[SM_STRANDS * k];
		const sm_ref_t *tref;
		int rc = -1;

		if (rs->exhaustive || rs->n_cand == 0 || c->traced)
			continue;
		tref = trace_ref(ctx, cand_windows(rs), rs->n_win, c, &view, &len, &shift);
		if (tref)
			rc = sm_align_prepare(ws->aws, tref, sc, &q[c->is_rev], c->end - shift, c->score,
					      &c->aln, &ws->tb_job[n_job], &ws->tb_start[n_job]);
		if (rc == SM_ALIGN_JOB) {
			ws->tb_q[n_job] = q[c->is_rev].seq;
			ws->tb_win[n_job] = tref->seq + ws->tb_start[n_job];
			ws->tb_at[n_job++] = k;
		} else if (rc == SM_ALIGN_DONE) {
			traced_at(c, shift);
		} else if (trace_alone(ctx, ws, rc, rs, c, &reads[k], q) < 0) {
			return -1;
		}
	}
	if (n_job > 0 && sm_engine_trace(ctx->engine, n_job, ws->tb_job, ws->tb_q, ws->tb_win,
					 ws->tb_res, ws->tb_ops) < 0)
		return -1;
	for (int x = 0; x < n_job; x++) {
		const int k = ws->tb_at[x];
		res_t *rs = &res[k];
		cand_t *c = &rs->cand[0];
		const sm_query_t *q = &ws->q[SM_STRANDS * k];
		const sm_ref_t *tref = trace_ref(ctx, cand_windows(rs), rs->n_win, c, &view, &len, &shift);
		int rc = sm_align_finish(ws->aws, tref, sc, &q[c->is_rev], ws->tb_start[x],
					 &ws->tb_job[x], &ws->tb_res[x],
					 ws->tb_ops + (size_t)x * SM_TB_MAX_OPS, &c->aln);

		if (rc == SM_ALIGN_DONE)
			traced_at(c, shift);
		else if (trace_alone(ctx, ws, rc, rs, c, &reads[k], q) < 0)
			return -1;
	}
	return 0;
}

/* Reads whose candidates seed_batch makes before it traces the first of
 * them: a trace reads the reference at the hit, which the host has not
 * touched (the scans ran on copies of the windows, or on the GPU), so
 * seeded_cands fetches those bases this many reads ahead of the trace. */
#define SM_TRACE_AHEAD 8

/* Bytes of a cache line, the prefetch step. */
#define SM_CACHE_LINE 64

/* Seeded mode, after make_cands: where a strand's list is full of loci
 * tying the read's best (s[st], global coordinates; the engines' lists
 * hold SM_TOPK a strand), that strand's windows (wr[st]) may hold more
 * copies of the read than the list had room for.  Each of its windows
 * without a candidate is scanned alone on this thread
 * (sm_map_window_best), and a locus there that ties the best becomes a
 * candidate, up to SM_MAX_TIES of them; then the hit is chosen again, by
 * the read's tie key, among the n_tied loci sm_hit_choose chose from and
 * these (an added one taking cand[0]).  So the reads of a repeat with more
 * copies on a strand than the lists hold spread over every copy in their
 * windows, as bwa mem's spread over its hits, instead of never reaching
 * the copies beyond the lists (docs/design.md, "Deterministic
 * tie-breaks"; results/variants.md).  The read stays ties_cut all the
 * same (make_cands): a window holding a candidate may hold another copy,
 * and at most SM_MAX_TIES are added.  Returns 0 or -1 (logged). */
static int more_ties(const sm_ctx_t *ctx, sm_tbuf_t *ws, const sm_read_t *r, const sm_query_t *q,
		     const sm_wref_t *wr, const sm_scan_t *s, int n_tied, res_t *res)
{
	const int32_t best = res->cand[0].score;
	const int first = res->n_cand;
	int pick, looked = 0;

	for (int st = 0; st < SM_STRANDS; st++) {
		if (s[st].n < SM_TOPK || s[st].top[SM_TOPK - 1].score < best)
			continue;   /* the list had room: it holds every tie */
		looked = 1;
		for (int32_t w = 0; w < wr[st].n_win && res->n_cand < SM_MAX_CAND &&
				    res->n_cand - first < SM_MAX_TIES; w++) {
			cand_t *c = &res->cand[res->n_cand];
			int held = 0, rc;

			for (int k = 0; k < res->n_cand && !held; k++)
				held = res->cand[k].is_rev == st && cand_in_window(&res->cand[k], &wr[st].win[w]);
			if (held)
				continue;
			rc = sm_map_window_best(ctx, ws, r, q, st, &wr[st].win[w], c);
			if (rc < 0)
				return -1;
			ws->tie_scans++;
			if (rc == 0 || c->score < best)
				continue;
			c->xs = best;
			res->n_cand++;
		}
	}
	ws->tie_reads += looked;
	if (res->n_cand == first)
		return 0;
	ws->tie_added += res->n_cand - first;
	/* Whole slots swap: each keeps its own traceback buffer. */
	pick = sm_tie_pick(sm_tie_key(r->name), n_tied + res->n_cand - first);
	if (pick >= n_tied) {   /* an added locus is the hit */
		cand_t t = res->cand[0];

		res->cand[0] = res->cand[first + pick - n_tied];
		res->cand[first + pick - n_tied] = t;
	}
	res->cand[0].xs = best;
	/* The others in make_cands's order again. */
	for (int k = 2; k < res->n_cand; k++)
		for (int at = k; at > 1 && cand_before(&res->cand[at], &res->cand[at - 1]); at--) {
			cand_t t = res->cand[at];

			res->cand[at] = res->cand[at - 1];
			res->cand[at - 1] = t;
		}
	return 0;
}

/* Seeded mode, after the window scans: candidates of read r (queries q,
 * windows win[0..n_win)) from its strands' scans local[st] over their
 * window references wr[st] (local[st] NULL: no window of that strand),
 * tied loci beyond a full list added (more_ties),
 * with the reference bases under the best one's alignment prefetched for
 * its trace (sm_map_ensure_traced, the caller's).  Sets res->exhaustive
 * when the read must be scanned against the whole reference instead. */
static int seeded_cands(const sm_ctx_t *ctx, sm_tbuf_t *ws, const sm_read_t *r, const sm_query_t *q,
			const sm_window_t *win, int32_t n_win, const sm_wref_t *wr,
			const sm_scan_t *const *local, res_t *res)
{
	int shift = sm_locus_shift(&ctx->opt.score, r->len), n_tied;
	sm_scan_t global[SM_STRANDS];

	res->exhaustive = 0;
	res->from_windows = 0;
	memset(global, 0, sizeof global);
	for (int st = 0; st < SM_STRANDS; st++)
		if (local[st])
			sm_wref_scan_to_global(&wr[st], local[st], shift, &global[st]);
	n_tied = make_cands(ctx, global, r, res);
	if (res->prim < 0 && ctx->fallback) {
		res->exhaustive = 1;
		return 0;
	}
	/* The windows do not overlap, so the one that holds a candidate's end
	 * is the one its strand's scan found it in. */
	if (keep_windows(win, n_win, res) < 0)
		return -1;
	if (res->prim >= 0 && more_ties(ctx, ws, r, q, wr, global, n_tied, res) < 0)
		return -1;
	if (res->n_cand > 0) {   /* the read's length up to the hit's end, as without gaps */
		int64_t end = res->cand[0].end, lo = end - r->len + 1;

		for (int64_t x = lo > 0 ? lo : 0; x < end + SM_CACHE_LINE; x += SM_CACHE_LINE)
			__builtin_prefetch(ctx->ref->seq + (x < end ? x : end));
	}
	return 0;
}

/* Lays out the window references of read k (seeded in this pass as
 * seed_todo[t]: its windows in ws->seed_win) with `lay`, one per strand
 * (ws->wrefs[2k + st]: the windows that strand's clusters made), and lists
 * each strand's scan against its own in ws->jobs (ws->strand_job[2k + st],
 * -1 when the strand has no window).  Returns 0 or -1 (logged). */
static int add_window_scans(const sm_ctx_t *ctx, sm_tbuf_t *ws, int t, int k, int keep,
			    int (*lay)(sm_wref_t *, const sm_ref_t *, const sm_window_t *, int32_t))
{
	const sm_query_t *q = &ws->q[SM_STRANDS * k];
	const sm_window_t *win = ws->seed_win + (int64_t)t * keep;

	for (int st = 0; st < SM_STRANDS; st++) {
		sm_wref_t *wr = &ws->wrefs[SM_STRANDS * k + st];
		int32_t n = sm_windows_of_strand(win, ws->seed_nwin[t], st, ws->strand_win);

		ws->strand_job[SM_STRANDS * k + st] = -1;
		if (lay(wr, ctx->ref, ws->strand_win, n) < 0)
			return -1;
		if (n > 0 && (ws->strand_job[SM_STRANDS * k + st] =
				      sm_wscan_add(&ws->jobs, &q[st], &wr->ref, wr->start)) < 0)
			return -1;
	}
	return 0;
}

/* Runs list `jobs` (counted at -v 4 as list kind `kind`). */
static int run_list(const sm_ctx_t *ctx, sm_tbuf_t *ws, sm_wscan_t *jobs, int kind)
{
	if (sm_log_get_level() >= SM_LOG_DEBUG) {
		ws->list_n[kind]++;
		ws->list_jobs[kind] += jobs->n;
		ws->list_cols[kind] += sm_wscan_columns(jobs);
	}
	return sm_wscan_run(jobs, ctx->engine, &ws->seed_st);
}

/* Seeds reads ws->seed_todo[0..n) of the batch with limits opt into
 * ws->seed_win (at most opt->max_windows each) and their strands' window
 * references ws->wrefs[], and lists their scans: with ctx->seeder, on the
 * GPU in one call or with the CPU engine read by read on this thread (the
 * same windows either way, gpu_seed.h).  Returns 0 or -1 (logged). */
static int seed_reads(const sm_ctx_t *ctx, sm_tbuf_t *ws, const sm_read_t *reads, int n,
		      const sm_seed_opt_t *opt)
{
	int keep = opt->max_windows;
	int (*lay)(sm_wref_t *, const sm_ref_t *, const sm_window_t *, int32_t);

	int64_t bases = 0;

	for (int t = 0; t < n; t++) {
		ws->seed_skip_at[t] = bases;
		bases += reads[ws->seed_todo[t]].len;
	}
	if (sm_grow((void **)&ws->seed_win, &ws->m_seed_win, (int64_t)n * keep,
		    sizeof *ws->seed_win) < 0 ||
	    sm_grow((void **)&ws->seed_skip, &ws->m_seed_skip, bases + 1, 1) < 0 ||
	    sm_grow((void **)&ws->strand_win, &ws->m_strand_win, keep, sizeof *ws->strand_win) < 0) {
		sm_log(SM_LOG_ERROR, "out of memory seeding a batch of %d reads", n);
		return -1;
	}
	for (int t = 0; t < n; t++) {
		int k = ws->seed_todo[t];

		ws->seed_read[t] = ws->q[SM_STRANDS * k].seq;
		ws->seed_len[t] = reads[k].len;
		ws->seed_margin[t] = sm_reach(&ctx->opt.score, reads[k].len) + opt->band;
	}
	if (sm_engine_seed(ctx->seeder, opt, n, ws->seed_read, ws->seed_len, ws->seed_margin,
			   ws->seed_win, ws->seed_nwin, ws->seed_left, ws->seed_skip) < 0)
		return -1;
	/* The GPU scans windows from its own reference: no bases to copy. */
	lay = ws->jobs.spans ? sm_wref_place_windows : sm_wref_set_windows;
	for (int t = 0; t < n; t++)
		if (add_window_scans(ctx, ws, t, ws->seed_todo[t], keep, lay) < 0)
			return -1;
	return 0;
}

/* What the second pass does for a read (needs_retry): nothing; the
 * completion pass (KEPT, set by complete_reads: one that added no window,
 * whose first scans, candidates and trace stand); seeding again with the
 * relaxed limits (retry_opt), as a read without a hit or under half a
 * perfect score always was, its first windows kept (RESEED_UNSURE: and the
 * read is unsure after); or only the unsure mark (TIE: a perfect read's,
 * SM_UNSURE_RIVAL; COPY: the same for a perfect read with an exact copy
 * out of view, whose XS is then its AS); or only a competitor (NEAR: a
 * perfect read's copy out of view one substitution away, whose score XS
 * becomes); after the completion, the refined completion (REFINE: a read
 * left unsure below a perfect match, needs_copies: the completion again,
 * each candidate also bounded from its window's bases), the copies pass
 * (COPIES: a read still so) and the neighbour pass (NEIGHBOURS: a read
 * below what a locus without any seed could score, needs_neighbours);
 * before them all, the mate pass (MATE: its mate's window, mate_window). */
enum { RETRY_NONE, RETRY_COMPLETE, RETRY_KEPT, RETRY_RESEED, RETRY_RESEED_UNSURE, RETRY_UNSURE,
       RETRY_TIE, RETRY_COPY, RETRY_NEAR, RETRY_NEAR_SOME, RETRY_REFINE, RETRY_COPIES,
       RETRY_NEIGHBOURS, RETRY_MATE };

/* How far below a read's best a locus must be ruled out for its MAPQ:
 * a single-end read's completion looks for loci that tie it as well as
 * better ones (an unseen equal copy makes any MAPQ false; map_impl.h), a
 * pair read's only for better ones (its mate's insert tells copies
 * apart). */
static inline int32_t tie_slack(const sm_ctx_t *ctx)
{
	return ctx->pairing ? 0 : 1;
}

/* Substitutions the copies pass looks for in a read of length n whose best
 * so far is `best`: as many as a locus could have and still beat it, at
 * most SM_COPY_MAX_SUBS; one for a read of a pair (its mate's rescue scans
 * the window at the insert, a second chance a single read lacks; the
 * search costs more the more substitutions it allows). */
static int copy_subs(const sm_ctx_t *ctx, int32_t n, int32_t best)
{
	const sm_score_t *sc = &ctx->opt.score;
	const int64_t room = sm_best_possible(sc, n) - best;
	const int32_t least = sm_sub_loss_least(sc, n);
	const int64_t subs = least > 0 ? (room + least - 1) / least - 1 : SM_COPY_MAX_SUBS;

	if (ctx->pairing || subs <= 1)
		return 1;
	return subs > SM_COPY_MAX_SUBS ? SM_COPY_MAX_SUBS : (int)subs;
}

/* Keeps a completion round's candidates for later rounds next[0..gap->
 * n_next) in res.  Returns 0 or -1 when out of memory (logged). */
static int keep_next(const sm_seed_next_t *next, const sm_seed_gap_t *gap, res_t *res)
{
	if (sm_grow((void **)&res->next, &res->m_next, gap->n_next, sizeof *res->next) < 0) {
		sm_log(SM_LOG_ERROR, "out of memory keeping a read's completion candidates");
		return -1;
	}
	if (gap->n_next > 0)
		memcpy(res->next, next, (size_t)gap->n_next * sizeof *res->next);
	res->n_next = gap->n_next;
	res->next_beyond = gap->beyond;
	return 0;
}

/* Bases of one minimizer window, k + w - 1 (24): an exact run that long
 * holds a seed wherever it lies. */
static int32_t window_bases(const sm_ctx_t *ctx)
{
	return ctx->index->k + ctx->index->w - 1;
}

/* 1 if a read of length n is shorter than one minimizer window: no seed
 * is guaranteed anywhere, not even at a copy equal to it, so seeding, and
 * every pass built on it, can rule out no locus: one as good may lie out of
 * view (fastp-trimmed 20-22 base reads at MAPQ 20-60 beside an equal
 * origin; seeded.md "Quality-trimmed reads").  Longer reads keep an exact
 * copy's seed. */
static int seedless_rival(const sm_ctx_t *ctx, int32_t n)
{
	return n < window_bases(ctx);
}

/* 1 if a read of length n is a single read under two windows (48 bases): one
 * difference there can leave a locus without an exact run of a window, so a
 * sequencing error may hide its origin or an equal copy, and the neighbour
 * pass looks for them (needs_neighbours), its clusters ranked by diagonal.
 * A read of a pair is left to its mate's insert. */
static int short_single(const sm_ctx_t *ctx, int32_t n)
{
	return !ctx->pairing && n < 2 * window_bases(ctx);
}

/* The completion pass (seed.h) of reads ws->seed_todo[0..n) of the batch,
 * whose first pass left res: their windows (at most `stride` each) in
 * ws->seed_win, what those leave out in ws->seed_gap, their strands' window
 * references and scans as seed_reads lists them.  It runs on this thread
 * whatever the engine, so its windows do not depend on the engine. */
static int complete_reads(const sm_ctx_t *ctx, sm_tbuf_t *ws, const sm_read_t *reads, int n,
			  res_t *res, int stride, int round)
{
	int (*lay)(sm_wref_t *, const sm_ref_t *, const sm_window_t *, int32_t);

	/* The first round keeps the candidates of the later ones. */
	const int32_t max_next = (SM_COMPLETE_ROUNDS - 1) * ctx->retry_opt.max_windows;

	if (sm_grow((void **)&ws->seed_win, &ws->m_seed_win, (int64_t)n * stride,
		    sizeof *ws->seed_win) < 0 ||
	    sm_grow((void **)&ws->next, &ws->m_next, max_next, sizeof *ws->next) < 0 ||
	    sm_grow((void **)&ws->strand_win, &ws->m_strand_win, stride, sizeof *ws->strand_win) < 0 ||
	    sm_grow((void **)&ws->seed_gap, &ws->m_seed_gap, n, sizeof *ws->seed_gap) < 0) {
		sm_log(SM_LOG_ERROR, "out of memory seeding a batch of %d reads", n);
		return -1;
	}
	for (int t = 0; t < n; t++) {
		int k = ws->seed_todo[t];
		res_t *rs = &res[k];
		const int32_t best = rs->prim >= 0 ? rs->cand[0].score - tie_slack(ctx) : 0;
		const int neighbours = ws->retry_how[t] == RETRY_NEIGHBOURS;
		const int copies = ws->retry_how[t] == RETRY_COPIES;
		const int refine = ws->retry_how[t] == RETRY_REFINE;
		const int mate = ws->retry_how[t] == RETRY_MATE;
		int64_t hits = 0;
		int nw;

		if (mate) {
			ws->wref.n_win = 0;
			nw = sm_windows_add(&ws->wref, ctx->ref, &ws->mate_win[t], 1);
			if (nw >= 0)
				nw = sm_windows_add(&ws->wref, ctx->ref, rs->win, rs->n_win);
			memset(&ws->seed_gap[t], 0, sizeof ws->seed_gap[t]);
		} else if (neighbours) {
			/* A short single read's every look-up, ranked by diagonal, hit
			 * or no hit (needs_neighbours); a longer one without a hit
			 * looks up a share (SM_NEIGHBOUR_UNMAPPED_HASH). */
			const int by_diag = short_single(ctx, reads[k].len);
			const int share = rs->prim < 0 && !by_diag;

			nw = sm_seed_neighbours(ws->seeder, ctx->index, ctx->ref, &ctx->opt.score,
						&ctx->seed_opt, ws->q[SM_STRANDS * k].seq, reads[k].len,
						rs->win, rs->n_win,
						share ? SM_NEIGHBOUR_UNMAPPED_HASH : UINT32_MAX,
						share ? SM_NEIGHBOUR_UNMAPPED_VOTES : 1, by_diag,
						&ws->wref, &hits);
			memset(&ws->seed_gap[t], 0, sizeof ws->seed_gap[t]);
		} else if (copies) {
			const int32_t from = rs->copy_slack > 0 ? rs->cand[0].score - rs->copy_slack : best;

			nw = sm_seed_copy_windows(ws->seeder, ctx->index, ctx->ref, &ctx->opt.score,
						  &ctx->retry_opt, ws->q[SM_STRANDS * k].seq, reads[k].len,
						  from, copy_subs(ctx, reads[k].len, from), rs->win,
						  rs->n_win, &ws->wref, &hits);
			memset(&ws->seed_gap[t], 0, sizeof ws->seed_gap[t]);
		} else if (ws->retry_how[t] == RETRY_COMPLETE && round > 1) {
			nw = sm_seed_complete_next(ctx->ref, ctx->retry_opt.max_windows, best, rs->win,
						   rs->n_win, rs->next, &rs->n_next, rs->next_beyond,
						   &ws->wref, &ws->seed_gap[t]);
		} else if (ws->retry_how[t] == RETRY_COMPLETE || refine) {
			/* The refined pass is the last round: no candidates kept. */
			nw = sm_seed_complete(ws->seeder, ctx->index, ctx->ref, &ctx->opt.score,
					      &ctx->retry_opt, ws->q[SM_STRANDS * k].seq, reads[k].len,
					      best, rs->win, rs->n_win, refine ? 0 : max_next, refine,
					      ws->next, &ws->wref, &ws->seed_gap[t]);
			if (nw >= 0 && keep_next(ws->next, &ws->seed_gap[t], rs) < 0)
				return -1;
		} else {
			nw = sm_seed_find(ws->seeder, ctx->index, ctx->ref, &ctx->opt.score,
					  &ctx->retry_opt, ws->q[SM_STRANDS * k].seq, reads[k].len,
					  &ws->wref, NULL, NULL);
			if (nw >= 0)
				nw = sm_windows_add(&ws->wref, ctx->ref, rs->win, rs->n_win);
			memset(&ws->seed_gap[t], 0, sizeof ws->seed_gap[t]);
			ws->seed_gap[t].left = ws->retry_how[t] == RETRY_RESEED_UNSURE ?
					       SM_SEED_UNREACHABLE : 0;
		}
		if (nw < 0)
			return -1;
		ws->completed_hits += ws->seed_gap[t].hits;
		ws->completed_again += ws->seed_gap[t].passes > 1;
		/* The same windows as the first pass scanned (none added, the
		 * same merged into the same): the same scans, so the same
		 * candidates; they stand, and only ws->seed_gap[t] is new. */
		if ((ws->retry_how[t] == RETRY_COMPLETE || refine || neighbours || copies || mate) &&
		    nw == rs->n_win &&
		    (nw == 0 || memcmp(ws->wref.win, rs->win, (size_t)nw * sizeof *rs->win) == 0))
			ws->retry_how[t] = RETRY_KEPT;
		if (mate) {
			ws->mated++;
		} else if (neighbours) {
			ws->neighboured++;
			ws->neighbour_hits += hits;
		} else if (copies) {
			ws->copied++;
			ws->copies_found += hits;
		} else if (refine) {
			ws->refined++;
		} else if (round > 1) {
			ws->completed_more++;
		} else if (ws->retry_how[t] != RETRY_RESEED && ws->retry_how[t] != RETRY_RESEED_UNSURE) {
			ws->completed++;
			ws->completed_same += ws->retry_how[t] == RETRY_KEPT;
		}
		if (nw > 0)
			memcpy(ws->seed_win + (int64_t)t * stride, ws->wref.win,
			       (size_t)nw * sizeof *ws->seed_win);
		ws->seed_nwin[t] = nw;
	}
	lay = ws->jobs.spans ? sm_wref_place_windows : sm_wref_set_windows;
	for (int t = 0; t < n; t++)
		if (ws->retry_how[t] != RETRY_KEPT &&
		    add_window_scans(ctx, ws, t, ws->seed_todo[t], stride, lay) < 0)
			return -1;
	return 0;
}

/* RETRY_COMPLETE if read r's first seeded result res (its first pass's
 * skipped k-mers: skip, as sm_seed_find leaves them) could be beaten at a
 * locus that its seeding limits left out and the read takes the completion
 * pass: it has no hit, or scores below a perfect match (the best
 * objective, end bonuses included) while what the first pass left out
 * could hold a better locus (sm_seed_settled), and --completion asks for
 * it (map_impl.h, SM_RETRY_BELOW); RETRY_RESEED(_UNSURE) for one without a
 * hit or under half a perfect score under weak and off; RETRY_UNSURE for an
 * unsettled read left as it is; RETRY_COPY for a perfect read with an
 * exact copy out of view, RETRY_NEAR for one with a copy one substitution
 * away out of view (RETRY_NEAR_SOME: some, where more may be), RETRY_TIE
 * for one that may have an exact copy where the copies were not looked up
 * (SM_EXACT_MAX_OCC, SM_TIE_CHECK_BELOW), or copies one substitution away
 * where they could not be counted;
 * RETRY_NONE otherwise; -1 when out of memory.  (needs_retry adds the
 * seedless_rival mark.) */
static int first_retry(const sm_ctx_t *ctx, sm_tbuf_t *ws, const sm_read_t *r,
		       const uint8_t *seq, const uint8_t *skip, const res_t *res, int32_t *near,
		       double *odds)
{
	const int all = ctx->opt.completion == SM_COMPLETE_ALL;
	int32_t best;
	int settled, low;

	if (res->exhaustive)
		return RETRY_NONE;
	if (res->prim < 0)
		return all ? RETRY_COMPLETE : RETRY_RESEED;
	best = res->cand[0].score;
	if (best >= sm_best_possible(&ctx->opt.score, r->len)) {
		/* Nothing beats a perfect match; an unseen equal copy ties it,
		 * an unseen copy one substitution away is its competitor
		 * (map_impl.h, SM_EXACT_MAX_OCC). */
		const sm_score_t *sc = &ctx->opt.score;
		int64_t away[3];
		int32_t loss;
		int rc;

		if (ctx->opt.completion == SM_COMPLETE_OFF)
			return RETRY_NONE;
		/* No unseen locus within a substitution's least cost (at an end)? */
		settled = sm_seed_settled(ws->seeder, ctx->index, ctx->ref, sc, &res->left, skip,
					  res->win, res->n_win, seq, r->len,
					  best - sm_sub_loss_least(sc, r->len) - 1);
		if (settled != 0)
			return settled < 0 ? -1 : RETRY_NONE;
		if (sm_grow((void **)&ws->sub_count, &ws->m_sub_count, r->len, sizeof *ws->sub_count) < 0)
			return -1;
		rc = sm_seed_near_copies(ws->seeder, ctx->index, ctx->ref, sc, seq, r->len,
					 SM_EXACT_MAX_OCC, res->win, res->n_win, away, &loss, ws->sub_count);
		if (rc == -1)
			return -1;
		/* Copies one substitution away that could not all be counted (a
		 * read under two windows' length, 48 bases with k 15 and w 10,
		 * holds no two disjoint ones): MAPQ 20 prices one such rival, and
		 * a short read of a repeat has several (36 bp chr20 reads: 2.5%
		 * of MAPQ 20-29 wrong).  Those found are rivals, and the read is
		 * unsure of the others; none found is as where none could be
		 * looked up (unsure when a near locus is in view). */
		if (rc == 0) {
			*near = best - loss;
			for (int32_t p = 0; p < r->len && away[1] > 0; p++)
				*odds += ws->sub_count[p] * sm_sub_odds(r, p);
			if (away[0] > 0)
				return RETRY_COPY;
			if (away[2])
				return away[1] > 0 ? RETRY_NEAR : RETRY_NONE;
			if (away[1] > 0)
				return RETRY_NEAR_SOME;
			return sm_mapq(&ctx->opt.score, best, res->cand[0].xs, r->len) >=
			       SM_TIE_CHECK_BELOW ? RETRY_NONE : RETRY_TIE;
		}
		settled = sm_seed_settled(ws->seeder, ctx->index, ctx->ref, &ctx->opt.score, &res->left,
					  skip, res->win, res->n_win, seq, r->len, best - 1);
		if (settled != 0)
			return settled < 0 ? -1 : RETRY_NONE;
		return sm_mapq(&ctx->opt.score, best, res->cand[0].xs, r->len) >= SM_TIE_CHECK_BELOW ?
		       RETRY_NONE : RETRY_TIE;
	}
	low = (int64_t)SM_RETRY_BELOW * best < (int64_t)r->len * ctx->opt.score.match;
	if (ctx->opt.completion == SM_COMPLETE_OFF)
		return low ? RETRY_RESEED : RETRY_NONE;
	settled = sm_seed_settled(ws->seeder, ctx->index, ctx->ref, &ctx->opt.score, &res->left, skip,
				  res->win, res->n_win, seq, r->len, best - (all ? tie_slack(ctx) : 0));
	if (settled < 0)
		return -1;
	if (all)
		return settled ? RETRY_NONE : RETRY_COMPLETE;
	if (low)
		return settled ? RETRY_RESEED : RETRY_RESEED_UNSURE;
	return settled ? RETRY_NONE : RETRY_UNSURE;
}

/* first_retry's answer, but a single read it settles that a locus without
 * any seed could tie (seedless_rival) is unsure of it (TIE): no pass can
 * look where no seed is.  A read of a pair counts its ties as open instead
 * (pair_ties_open): its mate's insert tells copies apart when it has one. */
static int needs_retry(const sm_ctx_t *ctx, sm_tbuf_t *ws, const sm_read_t *r,
		       const uint8_t *seq, const uint8_t *skip, const res_t *res, int32_t *near,
		       double *odds)
{
	int todo = first_retry(ctx, ws, r, seq, skip, res, near, odds);

	if (todo == RETRY_NONE && !ctx->pairing && !res->exhaustive && res->prim >= 0 &&
	    ctx->opt.completion != SM_COMPLETE_OFF && seedless_rival(ctx, r->len))
		return RETRY_TIE;
	return todo;
}

/* 1 if read r of a pair (base codes seq; skip and res: its first pass, as
 * for needs_retry, which answered todo) is below a perfect match and its
 * first seeding could not rule out a locus out of view that ties its best:
 * the completion rules out better loci only for a read of a pair
 * (tie_slack), as its mate's insert tells copies apart, which holds only
 * while the mate is placed by its own sequence (pair.c, sm_pair_unsure;
 * and, with no proper pair, not at all: sm_pair_resolve).  A read that took
 * the completion (not settled even for better loci) counts as open, so does
 * one without a first-pass hit (whatever the completion finds) or shorter
 * than one minimizer window (seedless_rival), and so does
 * every read under --completion off, which looks for no locus out of view
 * (not even a perfect read's copies).  -1 when out of memory. */
static int pair_ties_open(const sm_ctx_t *ctx, sm_tbuf_t *ws, const sm_read_t *r,
			  const uint8_t *seq, const uint8_t *skip, const res_t *res, int todo)
{
	int32_t best;
	int settled;

	if (!ctx->pairing || res->exhaustive)
		return 0;
	/* No first-pass hit: what the completion finds, it looked for better
	 * loci than only, not ties. */
	if (ctx->opt.completion == SM_COMPLETE_OFF || res->prim < 0 || seedless_rival(ctx, r->len))
		return 1;
	best = res->cand[0].score;
	if (best >= sm_best_possible(&ctx->opt.score, r->len))
		return 0;   /* its copies are looked up instead (needs_retry) */
	if (todo != RETRY_NONE)
		return 1;
	settled = sm_seed_settled(ws->seeder, ctx->index, ctx->ref, &ctx->opt.score, &res->left,
				  skip, res->win, res->n_win, seq, r->len, best - 1);
	return settled < 0 ? -1 : !settled;
}

/* 1 if read r (base codes seq), after its completion rounds (res), takes
 * the neighbour pass, with --completion all: a read without a hit on a
 * reference over the exhaustive fallback's bound (with a sixteenth of the
 * look-ups and windows where 3 read positions or more agree,
 * SM_NEIGHBOUR_UNMAPPED_HASH and _VOTES: such reads are more often random
 * or foreign than divergent, and every look-up and window is paid); or
 * one whose best objective is below what a locus that no k-mer of the read
 * seeds could score (sm_seed_unseeded_bound), so that the exact k-mers of
 * every pass could have missed a better locus, and whose best alignment
 * (traced) is at least as divergent as such a locus (sm_seed_divergent):
 * the read comes from sequence that far from the reference.  Not one whose
 * best alignment is clean but partial (an adapter, a chimera): a locus that
 * divergent is unlikely for it, and the whole pass's look-ups cost ~0.6 ms
 * a read.  A short single read (short_single) takes it whenever an
 * unseeded locus could tie or beat it, divergent or not: one sequencing
 * error hides its origin or an equal copy (a 35-base read 25M10S at MAPQ 60
 * with its origin one substitution away unseen); pair reads keep the rule
 * above (docs/seeded.md, "Short single reads").  A perfect one (nothing
 * beats it) takes it when the nearest locus in view is two substitutions
 * behind: the read lies in a repeat family, and a copy one substitution
 * away, which its seeding cannot rule out, would price its MAPQ at one
 * substitution's lead, not two (36 bp reads at MAPQ 40-49 with their
 * origin unseen one substitution behind).  0 if not, -1 when out of
 * memory. */
static int needs_neighbours(const sm_ctx_t *ctx, sm_tbuf_t *ws, const sm_read_t *r,
			    const uint8_t *seq, const res_t *res)
{
	const sm_score_t *sc = &ctx->opt.score;
	const int32_t sub = sc->match + sc->mismatch;   /* a substitution's cost */
	const cand_t *c;
	int32_t bound;
	int short_read;

	if (ctx->opt.completion != SM_COMPLETE_ALL || res->exhaustive)
		return 0;
	if (res->prim < 0)
		return 1;
	c = &res->cand[0];
	short_read = short_single(ctx, r->len);
	if (short_read && cand_perfect(ctx, c, r->len))
		return c->xs < c->score - sub && c->xs >= c->score - 2 * sub;
	/* The divergence first: it is O(1), and most reads are not. */
	if (!c->traced || (!short_read && !sm_seed_divergent(ctx->index, sc, r->len, c->score,
							     c->aln.q_start, c->aln.q_end)))
		return 0;
	bound = sm_seed_unseeded_bound(ws->seeder, ctx->index, sc, seq, r->len);
	return bound < 0 ? -1 : short_read ? c->score <= bound : c->score < bound;
}

/* How far below its best a single-end read's copies pass looks for loci
 * out of view once its completion rounds leave it sure of no better one
 * (res), 0 when it need not: ties (1) where a locus out of view could
 * still tie it (could_tie); where the loci in view leave it a lead of more
 * than a substitution's worth, loci a substitution behind too (that worth
 * and 1), as such a locus unseen would leave its MAPQ 39-60 where its lead
 * makes it about 20 (docs/seeded.md).  The rounds rule out only loci that
 * could tie (tie_slack); the copies pass lists loci within the
 * substitutions that reach the score asked, exactly, and bounds nothing.
 * Pair reads: 0 (their completion rules out better loci only). */
static int32_t copy_slack(const sm_ctx_t *ctx, const res_t *res, int could_tie)
{
	const int32_t sub = ctx->opt.score.match + ctx->opt.score.mismatch;

	if (!tie_slack(ctx) || res->prim < 0)
		return 0;
	if (res->cand[0].xs < res->cand[0].score - sub)
		return sub + tie_slack(ctx);
	return could_tie ? tie_slack(ctx) : 0;
}

/* 1 if read r, after its completion rounds (res), takes the copies pass
 * (sm_seed_copy_windows), with --completion all: it is below a perfect
 * match and a better locus may be unseen, or, with `ties`, a single-end
 * read's equal one.  The completion's budget of hits skips the most
 * frequent k-mers, which for a read of a young repeat are all of them; its
 * origin then hides among thousands of copies that the bounds cannot tell
 * apart, and a few rare windows find it.  An equal locus out of view makes
 * any MAPQ false, and after its rounds a read whose loci in view leave it
 * MAPQ 40 or more is not capped (SM_TIE_CHECK_BELOW): there the copies pass
 * is what finds a tie, or a near locus (copy_slack).  The refined
 * completion is for reads unsure of a better locus only (ties false): it
 * bounds candidates for that. */
static int needs_copies(const sm_ctx_t *ctx, const sm_read_t *r, const res_t *res, int ties)
{
	return ctx->opt.completion == SM_COMPLETE_ALL && !res->exhaustive && res->prim >= 0 &&
	       (res->cand[0].unsure == SM_UNSURE_BETTER || (ties && res->copy_slack > 0)) &&
	       res->cand[0].score < sm_best_possible(&ctx->opt.score, r->len);
}

/* Marks every candidate of res unsure at `level` (map_impl.h): a better
 * locus (SM_UNSURE_BETTER) or an equal one (SM_UNSURE_RIVAL) may be unseen. */
static void mark_unsure(res_t *res, int level)
{
	for (int c = 0; c < res->n_cand; c++)
		res->cand[c].unsure = level;
}

/* A locus out of view scores `score` (an exact copy of a perfect read, or
 * one a substitution away): every candidate's competitor, XS, is at least
 * that. */
static void rival_unseen(res_t *res, int32_t score)
{
	for (int c = 0; c < res->n_cand; c++)
		if (res->cand[c].xs < score)
			res->cand[c].xs = score;
}

/* 1 if res's best is none, or SM_MATE_PASS_BELOW or more under a perfect
 * match for a read of length n (mate_window). */
static int poor_best(const sm_ctx_t *ctx, const res_t *res, int32_t n)
{
	return res->prim < 0 ||
	       res->cand[0].score < sm_best_possible(&ctx->opt.score, n) - SM_MATE_PASS_BELOW;
}

/* The mate pass: read k of a pair (its mate k ^ 1) whose first pass found
 * only a poor best (SM_MATE_PASS_BELOW or more under a perfect match, or
 * nothing: typically a repeat copy's, its origin's k-mers all skipped as
 * too frequent) and that would take the completion pass, while its mate's
 * best is good and leads, is first scanned in the window where it would
 * lie with an insert up to SM_MATE_PASS_REACH from that mate (window *w),
 * unless its best lies there already.  The completion then starts from the
 * best found there (its origin, most often): a locus must beat that, so
 * most repetitive k-mers stay skipped (sm_seed_support_min) and the pass
 * collects a fraction of the hits.  It gives up no guarantee: the window is
 * one more that the read's candidates come from, and the completion still
 * rules out every better locus.  The window does not depend on the insert
 * model, so the insert-size sample's reads, mapped before the model exists,
 * take it too.  Returns 1 when read k takes it, 0 when not, -1 when out of
 * memory (logged). */
static int mate_window(const sm_ctx_t *ctx, sm_tbuf_t *ws, const sm_read_t *reads,
		       const res_t *res, int k, sm_window_t *w)
{
	const res_t *r = &res[k], *m = &res[k ^ 1];
	int32_t near = 0;
	double odds = 0;
	int todo;

	if (ctx->opt.completion != SM_COMPLETE_ALL || r->exhaustive || m->exhaustive ||
	    m->prim < 0 || m->cand[0].score <= m->cand[0].xs ||
	    poor_best(ctx, m, reads[k ^ 1].len) || !poor_best(ctx, r, reads[k].len) ||
	    !sm_pair_mate_window(ctx, &m->cand[0], SM_MATE_PASS_REACH, w))
		return 0;
	/* A best already where the mate puts it (a read with many errors) gains nothing. */
	if (r->prim >= 0 && (w->strands >> r->cand[0].is_rev & 1) && r->cand[0].end >= w->start &&
	    r->cand[0].end < w->end)
		return 0;
	/* Last, as it costs most: would the read take the completion at all? */
	todo = needs_retry(ctx, ws, &reads[k], ws->q[SM_STRANDS * k].seq,
			   ws->seed_skip + ws->seed_skip_at[k], r, &near, &odds);
	if (todo < 0) {
		sm_log(SM_LOG_ERROR, "out of memory seeding a read ('%s')", reads[k].name);
		return -1;
	}
	return todo == RETRY_COMPLETE;
}

/* seed_batch's passes, in order; the completion's rounds follow
 * PASS_COMPLETE (its first). */
enum {
	PASS_FIRST,
	PASS_MATE,
	PASS_COMPLETE,
	PASS_REFINE = PASS_COMPLETE + SM_COMPLETE_ROUNDS,
	PASS_COPIES,
	PASS_NEIGHBOURS,
	N_PASSES
};

/* 1 if read k of reads (results res) takes pass `pass` of seed_batch: then
 * what it takes is set in slot t of ws->retry_how, retry_level, retry_best
 * and mate_win (the mate pass's window; with `mates` only); 0 if not; -1
 * when out of memory (logged).  The completion's first round marks here
 * the reads that it settles without a pass (unsure, or a rival out of
 * view). */
static int takes_pass(const sm_ctx_t *ctx, sm_tbuf_t *ws, const sm_read_t *reads, res_t *res,
		      int k, int pass, int mates, int t)
{
	const sm_read_t *r = &reads[k];
	res_t *rs = &res[k];
	const uint8_t *seq = ws->q[SM_STRANDS * k].seq;
	int todo;

	switch (pass) {
	case PASS_FIRST:
		rs->more = 0;
		rs->copy_slack = 0;
		rs->n_next = 0;
		rs->ties_open = 0;
		return 1;
	case PASS_MATE:
		if (!mates || (todo = mate_window(ctx, ws, reads, res, k, &ws->mate_win[t])) == 0)
			return 0;
		if (todo < 0)
			return -1;
		ws->retry_how[t] = RETRY_MATE;
		ws->retry_best[t] = rs->prim >= 0 ? rs->cand[0].score : 0;
		return 1;
	case PASS_COMPLETE: {
		int32_t near = 0;
		double odds = 0;
		int near_found;

		todo = needs_retry(ctx, ws, r, seq, ws->seed_skip + ws->seed_skip_at[k], rs, &near,
				   &odds);
		if (todo >= 0)
			rs->ties_open = pair_ties_open(ctx, ws, r, seq,
						       ws->seed_skip + ws->seed_skip_at[k], rs, todo);
		if (todo < 0 || rs->ties_open < 0)
			goto oom;
		/* NEAR: the competitor is known, nothing more; NEAR_SOME: some
		 * of them, and the read unsure of the others. */
		near_found = todo == RETRY_NEAR || todo == RETRY_NEAR_SOME;
		if (todo == RETRY_COPY || near_found)
			rival_unseen(rs, todo == RETRY_COPY ? rs->cand[0].score : near);
		if (near_found)
			rs->sub_odds = odds;
		if (todo == RETRY_UNSURE || todo == RETRY_TIE || todo == RETRY_COPY ||
		    todo == RETRY_NEAR_SOME) {
			mark_unsure(rs, todo == RETRY_UNSURE ? SM_UNSURE_BETTER : SM_UNSURE_RIVAL);
			return 0;
		}
		if (todo == RETRY_NONE || todo == RETRY_NEAR)
			return 0;
		ws->retry_how[t] = (uint8_t)todo;
		return 1;
	}
	case PASS_REFINE:
		if (!needs_copies(ctx, r, rs, 0))
			return 0;
		ws->retry_how[t] = RETRY_REFINE;
		return 1;
	case PASS_COPIES:
		if (!needs_copies(ctx, r, rs, 1))
			return 0;
		ws->retry_how[t] = RETRY_COPIES;
		ws->retry_level[t] = (uint8_t)rs->cand[0].unsure;
		ws->retry_best[t] = rs->cand[0].score;
		return 1;
	case PASS_NEIGHBOURS:
		if ((todo = needs_neighbours(ctx, ws, r, seq, rs)) <= 0) {
			if (todo < 0)
				goto oom;
			return 0;
		}
		ws->retry_how[t] = RETRY_NEIGHBOURS;
		ws->retry_level[t] = rs->prim >= 0 ? (uint8_t)rs->cand[0].unsure : SM_SURE;
		ws->retry_best[t] = rs->prim >= 0 ? rs->cand[0].score : 0;
		return 1;
	default:   /* a later round: a read still unsure whose kept candidates may beat it */
		if (!rs->more)
			return 0;
		ws->retry_how[t] = RETRY_COMPLETE;
		return 1;
	}
oom:
	sm_log(SM_LOG_ERROR, "out of memory seeding a read ('%s')", r->name);
	return -1;
}

/* What read r's result rs after pass `pass` of seed_batch (it was the
 * pass's u-th read) says: whether a better or an equal locus may still be
 * unseen (its unsure level), whether it takes the next round (rs->more),
 * and the workspace's counts. */
static void judge_pass(const sm_ctx_t *ctx, sm_tbuf_t *ws, const sm_read_t *r, res_t *rs, int u,
		       int pass)
{
	const int32_t best = rs->prim >= 0 ? rs->cand[0].score : 0;

	if (pass == PASS_FIRST) {
		rs->left = ws->seed_left[u];
	} else if (pass == PASS_MATE) {
		/* Candidates only: needs_retry judges them next. */
		ws->mate_better += rs->prim >= 0 && best > ws->retry_best[u];
	} else if (rs->exhaustive) {
		/* Aligned against the whole reference: exact as it is. */
	} else if (pass == PASS_NEIGHBOURS) {
		const int better = best > ws->retry_best[u];

		ws->neighbour_better += better;
		mark_unsure(rs, better ? SM_UNSURE_BETTER : ws->retry_level[u]);
		rs->more = 0;
	} else if (pass == PASS_COPIES) {
		/* It bounds nothing: the read stays as unsure. */
		ws->copy_better += rs->prim >= 0 && best > ws->retry_best[u];
		mark_unsure(rs, ws->retry_level[u]);
		rs->more = 0;
	} else {
		const int unsure = sm_seed_unsure(&ws->seed_gap[u], best);
		const int could_tie = !unsure && rs->prim >= 0 &&
				      sm_seed_unsure(&ws->seed_gap[u], best - tie_slack(ctx));
		const int tie = (could_tie && sm_mapq(&ctx->opt.score, best, rs->cand[0].xs, r->len) <
					      SM_TIE_CHECK_BELOW) ||
				(!ctx->pairing && !unsure && rs->prim >= 0 &&
				 seedless_rival(ctx, r->len));

		/* A later round's kept candidates carry the last round's mark. */
		mark_unsure(rs, unsure ? SM_UNSURE_BETTER : tie ? SM_UNSURE_RIVAL : SM_SURE);
		rs->copy_slack = unsure ? 0 : copy_slack(ctx, rs, could_tie);
		ws->refined_sure += pass == PASS_REFINE && !unsure && !tie;
		rs->more = (unsure || tie) && pass + 1 < N_PASSES && rs->n_next > 0 &&
			   rs->next[0].bound > best - tie_slack(ctx);
	}
}

/* Seeded mode for reads[0..n) (queries in ws->q): every read's windows,
 * then the scans of both strands against them for the whole batch at once
 * (one GPU call, or the worker's CPU scan), then each read's candidates;
 * when `mates` (reads 2j, 2j + 1 a pair's), the mate pass of the reads that
 * mate_window picks, in one more engine call;
 * then the completion pass of the reads that needs_retry picks, over their
 * first windows and every cluster that could still beat them: its result
 * replaces the first, and says whether the read is unsure; a read left
 * unsure while candidates it kept for later could still beat it takes the
 * next of them in up to SM_COMPLETE_ROUNDS - 1 more rounds (one engine
 * call each, for the batch's such reads); then, for the reads that
 * needs_copies picks (unsure below a perfect match), the refined completion
 * (the completion again with each candidate also bounded from its window's
 * bases: it settles a read that no candidate could beat after all), and
 * the copies pass of those still unsure (their loci a few substitutions
 * away that could beat them: it bounds nothing, so a read keeps its unsure
 * level); last,
 * the neighbour pass of the reads that needs_neighbours picks: it adds windows and may raise their
 * best, but it bounds nothing, so a read keeps the unsure level it had, and
 * one whose best it raised is unsure (a better locus was beyond its exact
 * seeds: others may be). */
static int seed_batch(const sm_ctx_t *ctx, sm_tbuf_t *ws, const sm_read_t *reads, int n, res_t *res,
		      int mates)
{
	sm_wscan_t *jobs = &ws->jobs;
	int stride[N_PASSES];
	const int batched = sm_engine_traces(ctx->engine);   /* the engine runs the tracebacks */
	double t = sm_seconds();

	for (int pass = 0; pass < N_PASSES; pass++)
		stride[pass] = ctx->seed_opt.max_windows + pass * ctx->retry_opt.max_windows;
	if (ws_reserve_reads(ws, n) < 0)
		return -1;
	for (int pass = 0; pass < N_PASSES; pass++) {
		int n_todo = 0;

		sm_wscan_clear(jobs);
		for (int k = 0; k < n; k++) {
			int todo = takes_pass(ctx, ws, reads, res, k, pass, mates, n_todo);

			if (todo < 0)
				return -1;
			if (todo)
				ws->seed_todo[n_todo++] = k;
		}
		if (n_todo == 0 && pass != PASS_FIRST && pass != PASS_COMPLETE) {
			if (pass == PASS_NEIGHBOURS)
				break;
			if (pass > PASS_COMPLETE && pass < PASS_REFINE)
				pass = PASS_REFINE - 1;   /* no later round: on to the refined pass */
			continue;
		}
		if ((pass == PASS_FIRST ? seed_reads(ctx, ws, reads, n_todo, &ctx->seed_opt) :
		     complete_reads(ctx, ws, reads, n_todo, res, stride[pass], pass - PASS_MATE)) < 0)
			return -1;
		sm_ph_add(ws, PH_SEED, &t);
		if (run_list(ctx, ws, jobs, pass ? LIST_RETRY : LIST_WINDOWS) < 0)
			return -1;
		sm_ph_add(ws, PH_WSCAN, &t);
		/* Read u's candidates, then the trace of read u - SM_TRACE_AHEAD's
		 * best (reads are independent: the order is free), or every
		 * read's in one engine call after them. */
		for (int u = 0; u < n_todo + SM_TRACE_AHEAD; u++) {
			if (u < n_todo) {
				int k = ws->seed_todo[u];
				const sm_scan_t *local[SM_STRANDS];
				res_t *rs = &res[k];

				/* KEPT: not scanned again, its first candidates stand (traced). */
				if (pass == PASS_FIRST || ws->retry_how[u] != RETRY_KEPT) {
					for (int st = 0; st < SM_STRANDS; st++) {
						int j = ws->strand_job[SM_STRANDS * k + st];

						local[st] = j >= 0 ? &jobs->out[j] : NULL;
					}
					if (seeded_cands(ctx, ws, &reads[k], &ws->q[SM_STRANDS * k],
							 ws->seed_win + (int64_t)u * stride[pass],
							 ws->seed_nwin[u], &ws->wrefs[SM_STRANDS * k], local,
							 rs) < 0)
						return -1;
				}
				judge_pass(ctx, ws, &reads[k], rs, u, pass);
			}
			if (!batched && u >= SM_TRACE_AHEAD) {
				int k = ws->seed_todo[u - SM_TRACE_AHEAD];
				res_t *rs = &res[k];

				if (!rs->exhaustive && rs->n_cand > 0 &&
				    sm_map_ensure_traced(ctx, ws, rs, &reads[k], &ws->q[SM_STRANDS * k],
							 &rs->cand[0]) < 0)
					return -1;
			}
		}
		if (batched && trace_batch(ctx, ws, reads, n_todo, ws->seed_todo, res) < 0)
			return -1;
		sm_ph_add(ws, PH_CANDS, &t);
	}
	return 0;
}

/* Tandem copies: a locus bin's neighbours are left out of XS (scan.h), and
 * a bin shows only its best column, so a copy of the hit a few hundred
 * bases away would not lower MAPQ.  The read is scanned (same strand)
 * against the reference right of the hit's start, up to as far as an
 * alignment reaches: there, a locus ending SM_TANDEM_SHIFT or more columns
 * away from the hit's end is a copy shifted right (what ends near the end is
 * the hit itself, realigned without its first bases).  Copies shifted left
 * are found the same way by the reversed read against the reversed
 * reference left of the hit's end (alignment scores do not change when both
 * sequences are reversed), where an "end" is a start.  The best copy's
 * score (c->near) raises the hit's XS; pairing weighs every copy found
 * (c->copy) by the insert it would make.  A bin shows its best column
 * only, the first of equals, so each side's scan starts its bins (a lead of
 * columns without bases, wscan.h) where a bin begins SM_TANDEM_SHIFT
 * columns beyond the hit's end (start): the hit's remnants and its shifts
 * by a short tandem repeat's unit, which tie it, fill the bins before, and
 * cannot hide a copy behind them (a 19-base (CA)n mate placed 28 bases
 * from its origin at MAPQ 40: every copy shared the shifts' bin). */

/* Adds the best SM_COPIES_PER_SIDE loci of `scan` (bins over side's
 * window [lo, hi) of the forward or reversed reference, after its lead of
 * columns without bases) whose column lies at least SM_TANDEM_SHIFT from
 * `avoid` (the hit's own end, or its start on the reversed side) to c's
 * copies, with their column's offset from `avoid` as the copy's shift;
 * returns the best such locus' score, 0 if none.  On a side whose bins
 * are aligned (side->aligned), what scores `tail` or less may be the hit's
 * own remnant followed by a deletion run, which decays from the first
 * column at SM_TANDEM_SHIFT, a bin's first there: not a copy (elsewhere
 * the remnant's own bin hides it). */
static int32_t copies_away(const sm_scan_t *scan, const side_t *side, int reversed,
			   int64_t avoid, int32_t tail, cand_t *c)
{
	int32_t best = 0;
	int n = 0;

	for (int k = 0; k < scan->n; k++) {
		const int64_t at = scan->top[k].end - side->lead;
		const int64_t col = reversed ? side->hi - 1 - at : side->lo + at;

		if ((col - avoid < SM_TANDEM_SHIFT && avoid - col < SM_TANDEM_SHIFT) ||
		    (side->aligned && scan->top[k].score <= tail))
			continue;
		if (scan->top[k].score > best)
			best = scan->top[k].score;
		if (n++ < SM_COPIES_PER_SIDE)   /* the list is best first */
			c->copy[c->n_copy++] = (copy_t){ scan->top[k].score, (int32_t)(col - avoid) };
	}
	return best;
}

/* The two sides of hit c (read length len) where a copy can lie: right,
 * from one base after its start; left (scanned reversed), up to one base
 * before its end.  Each reaches as far as an alignment can, inside the
 * hit's contig, and where the hit reaches the read's end on that side, its
 * lead puts a bin's first column SM_TANDEM_SHIFT beyond the hit's end
 * (right) or start (left). */
static void tandem_sides(const sm_ctx_t *ctx, const cand_t *c, int32_t len, side_t side[2])
{
	int32_t contig = sm_ref_contig_of(ctx->ref, c->aln.ref_start);
	int64_t c_lo = ctx->ref->offset[contig], c_hi = c_lo + ctx->ref->len[contig];
	const int64_t reach = sm_tandem_reach(&ctx->opt.score, len);
	const int64_t bin = (int64_t)1 << sm_locus_shift(&ctx->opt.score, len);
	int64_t near[2];

	side[0].lo = c->aln.ref_start + 1;
	side[0].hi = c->aln.ref_end + reach > c_hi ? c_hi : c->aln.ref_end + reach;
	side[1].lo = c->aln.ref_start - reach < c_lo ? c_lo : c->aln.ref_start - reach;
	side[1].hi = c->aln.ref_end - 1;
	/* Columns of each scan from its start to the first copy column.  A side
	 * where the hit clips the read keeps bins from its start (lead 0): the
	 * hit itself, aligned on through its clipped bases, ends past the mark. */
	near[0] = c->aln.ref_end - 1 + SM_TANDEM_SHIFT - side[0].lo;
	near[1] = side[1].hi - 1 - (c->aln.ref_start - SM_TANDEM_SHIFT);
	side[0].aligned = c->aln.q_end == len;
	side[1].aligned = c->aln.q_start == 0;
	for (int s = 0; s < 2; s++)
		side[s].lead = side[s].aligned ? (bin - near[s] % bin) % bin : 0;
}

/* Lists the scans of c's sides (q: the read's two strands) in jobs. */
static int tandem_add(const sm_ctx_t *ctx, sm_wscan_t *jobs, const sm_query_t *q, const cand_t *c,
		      side_t side[2])
{
	const sm_query_t *oq = &q[c->is_rev];

	tandem_sides(ctx, c, oq->len, side);
	for (int s = 0; s < 2; s++) {
		side[s].job = -1;
		if (side[s].lo < side[s].hi &&
		    (side[s].job = sm_wscan_add_part(jobs, oq, s, ctx->ref, side[s].lo, side[s].hi, s,
						     side[s].lead)) < 0)
			return -1;
	}
	return 0;
}

/* c's tandem copies from its sides' scans (out: the list's results). */
static void tandem_finish(const sm_ctx_t *ctx, cand_t *c, const side_t side[2],
			  const sm_scan_t *out)
{
	const sm_score_t *sc = &ctx->opt.score;
	/* The hit followed by a deletion to SM_TANDEM_SHIFT columns away. */
	const int32_t tail = c->score - sc->gap_open - SM_TANDEM_SHIFT * sc->gap_ext;

	c->near_done = 1;
	c->near = 0;
	c->n_copy = 0;
	for (int s = 0; s < 2; s++) {
		int32_t best;

		if (side[s].job < 0)
			continue;
		best = copies_away(&out[side[s].job], &side[s], s,
				   s ? c->aln.ref_start : c->aln.ref_end - 1, tail, c);
		c->near = best > c->near ? best : c->near;
	}
	if (c->near > c->xs)
		c->xs = c->near;
}

/* Tandem copies of one candidate c, scanned now on the CPU (pairing). */
int sm_map_tandem(const sm_ctx_t *ctx, sm_tbuf_t *ws, const sm_query_t *q, cand_t *c)
{
	side_t side[2];

	sm_wscan_clear(&ws->one);
	if (tandem_add(ctx, &ws->one, q, c, side) < 0 ||
	    sm_wscan_run(&ws->one, ctx->cpu, &ws->seed_st) < 0)
		return -1;
	tandem_finish(ctx, c, side, ws->one.out);
	return 0;
}

/* Scans q against the small reference ref now (pairing's scans: a mate's
 * rescue window, a copy's window, a re-seeded window), with the CPU
 * engine, adding the cells to ws->seed_st.  Returns 0 or -1 (logged). */
int sm_map_scan_one(const sm_ctx_t *ctx, sm_tbuf_t *ws, const sm_ref_t *ref, const sm_query_t *q,
		    sm_scan_t *out)
{
	return sm_engine_scan_refs(ctx->cpu, 1, q, &ref, NULL, out, &ws->seed_st);
}

int sm_map_window_best(const sm_ctx_t *ctx, sm_tbuf_t *ws, const sm_read_t *r, const sm_query_t *q,
		       int st, const sm_window_t *w, cand_t *c)
{
	const sm_score_t *sc = &ctx->opt.score;
	sm_scan_t local, global;

	if (sm_wref_set_window(&ws->wref, ctx->ref, w->start, w->end) < 0 ||
	    sm_map_scan_one(ctx, ws, &ws->wref.ref, &q[st], &local) < 0)
		return -1;
	sm_wref_scan_to_global(&ws->wref, &local, sm_locus_shift(sc, r->len), &global);
	if (global.n == 0 || global.top[0].score < ctx->opt.min_score)
		return 0;
	*c = (cand_t){ .score = global.top[0].score, .is_rev = st, .end = global.top[0].end,
		       .qlen = r->len, .aln = c->aln };
	return 1;
}

/* Tandem copies of every mapped read's best hit, scanned for the batch at
 * once (one GPU call, or the worker's CPU scan), and the reads' MAPQ. */
static int tandem_batch(const sm_ctx_t *ctx, sm_tbuf_t *ws, const sm_read_t *reads, int n, res_t *res)
{
	sm_wscan_t *jobs = &ws->jobs;
	double t = sm_seconds();

	if (ws_reserve_reads(ws, n) < 0)
		return -1;
	sm_wscan_clear(jobs);
	for (int k = 0; k < n; k++)
		if (res[k].prim >= 0 && tandem_add(ctx, jobs, &ws->q[SM_STRANDS * k], &res[k].cand[0],
						   &ws->sides[SM_STRANDS * k]) < 0)
			return -1;
	if (run_list(ctx, ws, jobs, LIST_TANDEM) < 0)
		return -1;
	for (int k = 0; k < n; k++) {
		res_t *rs = &res[k];
		int q_sub;

		if (rs->prim < 0)
			continue;
		tandem_finish(ctx, &rs->cand[0], &ws->sides[SM_STRANDS * k], jobs->out);
		rs->mapq = sm_unsure_cap(&ctx->opt.score, rs->cand[0].unsure,
					 sm_mapq(&ctx->opt.score, rs->cand[0].score, rs->cand[0].xs,
						 reads[k].len),
					 rs->cand[0].score - rs->cand[0].xs, !ctx->pairing);
		q_sub = sm_sub_rival_mapq(ctx, rs, &rs->cand[0], &reads[k], &ws->q[SM_STRANDS * k]);
		rs->mapq = rs->mapq < q_sub ? rs->mapq : q_sub;
		/* A single read's every base where its loci differ too (a pair
		 * weighs its rivals so in pair.c). */
		if (!ctx->pairing) {
			q_sub = sm_single_odds_mapq(ctx, rs, &rs->cand[0], &reads[k],
						    &ws->q[SM_STRANDS * k]);
			rs->mapq = rs->mapq < q_sub ? rs->mapq : q_sub;
		}
	}
	sm_ph_add(ws, PH_TANDEM, &t);
	return 0;
}

static int map_exhaustive(const sm_ctx_t *ctx, sm_tbuf_t *ws, const sm_read_t *reads, int n,
			  size_t n_codes, int n_todo, res_t *res);

/* ws->q[2k], ws->q[2k + 1]: read k forward and reverse-complemented.
 * Sets *n_codes to the bases they hold; returns 0 or -1 (logged). */
int sm_map_encode(sm_tbuf_t *ws, const sm_read_t *reads, int n, size_t *n_codes)
{
	size_t off = 0;

	*n_codes = 0;
	for (int k = 0; k < n; k++)
		*n_codes += SM_STRANDS * (size_t)reads[k].len;
	/* At least a byte: the queries of reads without bases point into it. */
	if (ws_reserve(ws, SM_STRANDS * (size_t)n, *n_codes ? *n_codes : 1) < 0) {
		sm_log(SM_LOG_ERROR, "out of memory mapping a batch of %d reads", n);
		return -1;
	}
	for (int k = 0; k < n; k++) {
		const sm_read_t *r = &reads[k];
		sm_query_t *q = &ws->q[SM_STRANDS * k];

		q[0].seq = ws->codes + off;
		q[1].seq = ws->codes + off + r->len;
		q[0].len = q[1].len = r->len;
		encode_read(r, ws->codes + off, ws->codes + off + r->len);
		off += SM_STRANDS * (size_t)r->len;
	}
	return 0;
}

/* Reads per part of sm_map_reads when seeded window scans copy their
 * bases (the CPU engine): each read's window references (~35 KB of bases
 * for 150 bp) live until the part's scans are done, and the first batch
 * of a paired run (the insert-size sample, 4,096 reads on one worker)
 * would touch 140 MB of fresh memory for them at once.  A part of a CPU
 * batch's size reuses the same ~9 MB. */
#define SM_MAP_PART_READS 256
_Static_assert(SM_MAP_PART_READS % 2 == 0, "a part holds whole pairs (the mate pass reads k ^ 1)");

/* sm_map_reads for one part: reads[0..n) into res[0..n), queries in
 * ws->q[0..2n). */
static int map_part(const sm_ctx_t *ctx, sm_tbuf_t *ws, const sm_read_t *reads, int n, res_t *res,
		    int mates)
{
	size_t n_codes;
	int n_todo = 0;

	if (sm_map_encode(ws, reads, n, &n_codes) < 0)
		return -1;
	if (ctx->seeded && seed_batch(ctx, ws, reads, n, res, mates) < 0)
		return -1;
	for (int k = 0; k < n; k++)
		if (!ctx->seeded || res[k].exhaustive)
			ws->todo[n_todo++] = k;
	if (n_todo > 0) {
		double t = sm_seconds();

		if (map_exhaustive(ctx, ws, reads, n, n_codes, n_todo, res) < 0)
			return -1;
		sm_ph_add(ws, PH_EXHAUSTIVE, &t);
	}
	return tandem_batch(ctx, ws, reads, n, res);
}

static void res_swap(res_t *a, res_t *b)
{
	res_t t = *a;

	*a = *b;
	*b = t;
}

/* sm_map_reads when some of reads[0..n) have no bases (trimmed away): the
 * others are mapped as a batch of their own, whole pairs as pairs (mates)
 * and a read whose mate has no bases as a single read, their result slots
 * lent to that batch (swapped in and back, so each buffer keeps one
 * owner); the reads without bases are left unmapped. */
static int map_around_empty(const sm_ctx_t *ctx, sm_tbuf_t *ws, const sm_read_t *reads, int n,
			    res_t *res, int mates)
{
	const int unit = mates ? SM_STRANDS : 1;
	sm_read_t *sub = malloc((size_t)n * sizeof *sub);
	res_t *sub_res = calloc((size_t)n, sizeof *sub_res);
	int *from = malloc((size_t)n * sizeof *from), rc = -1;
	size_t n_codes;

	if (!sub || !sub_res || !from) {
		sm_log(SM_LOG_ERROR, "out of memory mapping a batch of %d reads", n);
		goto out;
	}
	/* Pass 0: the units whose reads all have bases; pass 1: the reads
	 * with bases of the other pairs, each on its own. */
	for (int pass = 0; pass < (mates ? 2 : 1); pass++) {
		int m = 0, got;

		for (int k = 0; k < n; k += unit) {
			int whole = 1;

			for (int e = 0; e < unit; e++)
				whole &= reads[k + e].len > 0;
			for (int e = 0; e < unit; e++)
				if (reads[k + e].len > 0 && whole == (pass == 0)) {
					from[m] = k + e;
					sub[m++] = reads[k + e];
				}
		}
		for (int i = 0; i < m; i++)
			res_swap(&sub_res[i], &res[from[i]]);
		got = m > 0 ? sm_map_reads(ctx, ws, sub, m, sub_res, mates && pass == 0) : 0;
		for (int i = 0; i < m; i++)
			res_swap(&sub_res[i], &res[from[i]]);
		if (got < 0)
			goto out;
	}
	for (int k = 0; k < n; k++)
		if (reads[k].len == 0) {
			res_t *rs = &res[k];

			rs->n_cand = rs->n_win = rs->n_next = 0;
			rs->prim = -1;
			rs->mapq = rs->proper = rs->exhaustive = rs->from_windows = rs->more = 0;
			rs->copy_slack = 0;
			rs->sub_odds = 0;
			rs->ties_open = 0;
			rs->ties_cut = 0;
		}
	/* The caller reads every read's queries (pairing, records). */
	rc = sm_map_encode(ws, reads, n, &n_codes);
out:
	free(sub);
	free(sub_res);
	free(from);
	return rc;
}

/* Maps reads[0..n) read by read (no pairing) into res[0..n), in parts
 * when the window scans copy their bases; a read depends on no other but
 * its mate (`mates`), and a part holds whole pairs, so the records do not
 * depend on the parts. */
int sm_map_reads(const sm_ctx_t *ctx, sm_tbuf_t *ws, const sm_read_t *reads, int n, res_t *res,
		 int mates)
{
	const int part = ctx->seeded && !ws->jobs.spans ? SM_MAP_PART_READS : n;
	size_t n_codes;

	for (int k = 0; k < n; k++)
		if (reads[k].len == 0)
			return map_around_empty(ctx, ws, reads, n, res, mates);
	if (n <= part)
		return map_part(ctx, ws, reads, n, res, mates);
	for (int off = 0; off < n; off += part)
		if (map_part(ctx, ws, reads + off, n - off < part ? n - off : part, res + off,
			     mates) < 0)
			return -1;
	/* The caller reads every read's queries (pairing, records). */
	return sm_map_encode(ws, reads, n, &n_codes);
}

/* The whole reference: the engine scans the reads ws->todo[0..n_todo) of
 * reads[0..n) (queries already in ws->q). */
static int map_exhaustive(const sm_ctx_t *ctx, sm_tbuf_t *ws, const sm_read_t *reads, int n,
			  size_t n_codes, int n_todo, res_t *res)
{
	sm_query_t *q;   /* compacted after the batch's own queries */
	const int batched = sm_engine_traces(ctx->engine);   /* the engine runs the tracebacks */

	if (ws_reserve(ws, SM_STRANDS * (size_t)(n + n_todo), n_codes) < 0) {
		sm_log(SM_LOG_ERROR, "out of memory mapping a batch of %d reads", n);
		return -1;
	}
	q = ws->q + SM_STRANDS * (size_t)n;
	for (int t = 0; t < n_todo; t++) {
		q[SM_STRANDS * t] = ws->q[SM_STRANDS * ws->todo[t]];
		q[SM_STRANDS * t + 1] = ws->q[SM_STRANDS * ws->todo[t] + 1];
	}
	if (sm_engine_scan(ctx->engine, SM_STRANDS * n_todo, q, ws->scan) < 0)
		return -1;
	for (int t = 0; t < n_todo; t++) {
		int k = ws->todo[t];
		res_t *rs = &res[k];

		make_cands(ctx, &ws->scan[SM_STRANDS * t], &reads[k], rs);
		rs->exhaustive = 0;
		rs->from_windows = 0;
		if (!batched && rs->n_cand > 0 &&
		    sm_map_trace(ctx, ws, NULL, 0, &q[SM_STRANDS * t], &rs->cand[0], &reads[k]) < 0)
			return -1;
	}
	return batched ? trace_batch(ctx, ws, reads, n_todo, ws->todo, res) : 0;
}

