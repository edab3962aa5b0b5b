/* wscan.c — a batch's small scans (see wscan.h). */
#include "mapper/wscan.h"

#include <stdlib.h>
#include <string.h>

#include "io/base.h"
#include "io/log.h"
#include "mapper/grow.h"

/* Room for one more job: job[] and the arrays beside it (out, refs, qs)
 * share the capacity w->m, raised only once all of them have grown. */
static int grow_jobs(sm_wscan_t *w)
{
	int64_t m = w->m;
	void *p;

	if (w->n < w->m)
		return 0;
	if (sm_grow((void **)&w->job, &m, w->n + 1, sizeof *w->job) < 0)
		return -1;
	if (!(p = realloc(w->out, (size_t)m * sizeof *w->out)))
		return -1;
	w->out = p;
	if (!(p = realloc(w->refs, (size_t)m * sizeof *w->refs)))
		return -1;
	w->refs = p;
	if (!(p = realloc(w->qs, (size_t)m * sizeof *w->qs)))
		return -1;
	w->qs = p;
	if (!(p = realloc(w->srcs, (size_t)m * sizeof *w->srcs)))
		return -1;
	w->srcs = p;
	w->m = m;
	return 0;
}

/* Reserves n owned bytes; returns their offset in w->bytes, or -1. */
static int64_t take_bytes(sm_wscan_t *w, size_t n)
{
	size_t at = w->n_bytes;

	if (at + n > w->m_bytes) {
		size_t m = w->m_bytes ? w->m_bytes : 1 << 16;
		uint8_t *b;

		while (m < at + n)
			m *= 2;
		b = realloc(w->bytes, m);
		if (!b)
			return -1;
		w->bytes = b;
		w->m_bytes = m;
	}
	w->n_bytes += n;
	return (int64_t)at;
}

void sm_wscan_clear(sm_wscan_t *w)
{
	w->n = 0;
	w->n_own = 0;
	w->n_bytes = 0;
}

int sm_wscan_add(sm_wscan_t *w, const sm_query_t *q, const sm_ref_t *ref, const int64_t *start)
{
	if (grow_jobs(w) < 0) {
		sm_log(SM_LOG_ERROR, "out of memory listing window scans");
		return -1;
	}
	w->job[w->n] = (sm_wscan_job_t){ .q = *q, .ref = ref, .start = start, .q_at = 0, .own = -1 };
	return w->n++;
}

int sm_wscan_add_part(sm_wscan_t *w, const sm_query_t *q, int rev_query, const sm_ref_t *ref,
		      int64_t lo, int64_t hi, int rev_ref, int64_t lead)
{
	int64_t len = hi - lo, r_at, q_at = 0;
	sm_wscan_job_t *j;
	uint8_t *b;

	if (grow_jobs(w) < 0 ||
	    sm_grow((void **)&w->own, &w->m_own, w->n_own + 1, sizeof *w->own) < 0 ||
	    (r_at = w->spans ? 0 : take_bytes(w, (size_t)(lead + len))) < 0 ||
	    (rev_query && (q_at = take_bytes(w, (size_t)q->len)) < 0)) {
		sm_log(SM_LOG_ERROR, "out of memory listing window scans");
		return -1;
	}
	if (!w->spans) {
		memset(w->bytes + r_at, SM_BASE_N, (size_t)lead);   /* never scanned: not a contig */
		b = w->bytes + r_at + lead;
		if (rev_ref)
			sm_codes_reverse(b, ref->seq + lo, len, 0);
		else
			memcpy(b, ref->seq + lo, (size_t)len);
	}
	if (rev_query)
		sm_codes_reverse(w->bytes + q_at, q->seq, q->len, 0);
	w->own[w->n_own].len = len;
	w->own[w->n_own].lo = lo;
	w->own[w->n_own].lead = lead;
	w->own[w->n_own].rev = rev_ref;
	w->own[w->n_own].at = (size_t)r_at;
	j = &w->job[w->n];
	*j = (sm_wscan_job_t){ .q = *q, .ref = NULL, .q_at = (size_t)q_at, .own = w->n_own++ };
	if (rev_query)
		j->q.seq = NULL;
	return w->n++;
}

/* Points the owned references and queries at their bases (w->bytes may
 * have moved while the list grew) and fills w->refs and w->qs. */
static void resolve(sm_wscan_t *w)
{
	for (int k = 0; k < w->n_own; k++) {
		sm_wscan_part_t *o = &w->own[k];

		memset(&o->ref, 0, sizeof o->ref);
		o->ref.n_contig = 1;
		o->ref.len = &o->len;
		o->ref.offset = &o->lead;
		o->ref.total = o->lead + o->len;
		o->ref.seq = w->spans ? NULL : w->bytes + o->at;
	}
	for (int k = 0; k < w->n; k++) {
		const sm_wscan_job_t *j = &w->job[k];

		w->refs[k] = j->own >= 0 ? &w->own[j->own].ref : j->ref;
		w->qs[k] = j->q;
		if (!j->q.seq)
			w->qs[k].seq = w->bytes + j->q_at;
		w->srcs[k] = j->own >= 0 ? (sm_ref_src_t){ &w->own[j->own].lo, w->own[j->own].rev } :
					   (sm_ref_src_t){ j->start, 0 };
	}
}

int sm_wscan_run(sm_wscan_t *w, sm_engine_t *engine, sm_engine_stats_t *st)
{
	if (w->n == 0)
		return 0;
	resolve(w);
	return sm_engine_scan_refs(engine, w->n, w->qs, w->refs, w->spans ? w->srcs : NULL, w->out,
				   st);
}

int64_t sm_wscan_columns(const sm_wscan_t *w)
{
	int64_t cols = 0;

	for (int k = 0; k < w->n; k++)
		cols += w->job[k].ref ? w->job[k].ref->total : w->own[w->job[k].own].len;
	return cols;
}

void sm_wscan_free(sm_wscan_t *w)
{
	free(w->job);
	free(w->out);
	free(w->refs);
	free(w->qs);
	free(w->srcs);
	free(w->own);
	free(w->bytes);
	memset(w, 0, sizeof *w);
}
