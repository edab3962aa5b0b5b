/* scan.c — the top-K locus list and the scalar oracle (see scan.h). */
#include "mapper/scan.h"

#include <stdlib.h>
#include <string.h>

#include "io/log.h"

/* Ranks a before b: higher score first, then the lower bin. */
static int ranks_before(const sm_locus_t *a, const sm_locus_t *b, int shift)
{
	if (a->score != b->score)
		return a->score > b->score;
	return (a->end >> shift) < (b->end >> shift);
}

/* Moves entry k towards the front until the list is ordered again (an
 * entry only ever improves, so it only moves up). */
static void bubble_up(sm_scan_t *t, int k, int shift)
{
	while (k > 0 && ranks_before(&t->top[k], &t->top[k - 1], shift)) {
		sm_locus_t tmp = t->top[k];
		t->top[k] = t->top[k - 1];
		t->top[k - 1] = tmp;
		k--;
	}
}

void sm_scan_offer(sm_scan_t *t, int shift, int32_t score, int64_t end)
{
	sm_locus_t cand = { score, end };
	int64_t bin = end >> shift;
	int k;

	if (score <= 0)
		return;
	for (k = 0; k < t->n; k++) {
		sm_locus_t *e = &t->top[k];
		if ((e->end >> shift) != bin)
			continue;
		if (score > e->score || (score == e->score && end < e->end)) {
			*e = cand;
			bubble_up(t, k, shift);
		}
		return;
	}
	/* A bin not in the list: it enters if it outranks the last entry.  (If
	 * it had been in the list and was pushed out, K entries outrank every
	 * value of that bin seen so far, and still do.) */
	if (t->n < SM_TOPK) {
		t->top[t->n++] = cand;
	} else if (ranks_before(&cand, &t->top[SM_TOPK - 1], shift)) {
		t->top[SM_TOPK - 1] = cand;
	} else {
		return;
	}
	bubble_up(t, t->n - 1, shift);
}

void sm_scan_merge(sm_scan_t *dst, const sm_scan_t *src, int shift)
{
	for (int k = 0; k < src->n; k++)
		sm_scan_offer(dst, shift, src->top[k].score, src->top[k].end);
}

int sm_scan_equal(const sm_scan_t *a, const sm_scan_t *b)
{
	if (a->n != b->n)
		return 0;
	for (int k = 0; k < a->n; k++)
		if (a->top[k].score != b->top[k].score || a->top[k].end != b->top[k].end)
			return 0;
	return 1;
}

/* Below any reachable score, far from int32 overflow when decremented. */
#define NEG_INF (-(1 << 29))

uint64_t sm_scan_oracle(const sm_ref_t *ref, const sm_score_t *sc,
			const sm_query_t *q, sm_scan_t *out)
{
	const int n = q->len;
	const int shift = sm_locus_shift(sc, n);
	const int gap_open = sc->gap_open + sc->gap_ext;  /* first gap cell */
	const int gap_ext = sc->gap_ext;
	/* H(i, j-1) and E(i, j-1) for i = 0..n */
	int32_t *hcol = malloc(2 * (size_t)(n + 1) * sizeof *hcol);
	int32_t *ecol = hcol + n + 1;

	memset(out, 0, sizeof *out);
	if (!hcol) {
		sm_log(SM_LOG_ERROR, "oracle: out of memory for a read of length %d", n);
		return 0;
	}
	for (int32_t c = 0; c < ref->n_contig; c++) {
		const uint8_t *r = ref->seq + ref->offset[c];

		/* Column 0 of every contig: nothing to the left. */
		for (int i = 0; i <= n; i++) {
			hcol[i] = 0;
			ecol[i] = NEG_INF;
		}
		for (int64_t j = 0; j < ref->len[c]; j++) {
			int32_t diag = 0;     /* H(i-1, j-1); row 0 is all zeros */
			int32_t up = 0;       /* H(i-1, j) */
			int32_t f = NEG_INF;  /* F(i-1, j) */
			int32_t colmax = 0;

			for (int i = 1; i <= n; i++) {
				int32_t e = ecol[i] - gap_ext;
				int32_t h, hc;

				if (hcol[i] - gap_open > e)
					e = hcol[i] - gap_open;
				f -= gap_ext;
				if (up - gap_open > f)
					f = up - gap_open;
				h = diag + (i == 1 ? sm_subst_first(sc, r[j], q->seq[0])
						   : sm_subst(sc, r[j], q->seq[i - 1]));
				if (e > h)
					h = e;
				if (f > h)
					h = f;
				if (h < 0)
					h = 0;
				diag = hcol[i];
				hcol[i] = h;
				ecol[i] = e;
				up = h;
				/* The 3' bonus counts in the column maximum only. */
				hc = i == n && h > 0 ? h + sc->clip3 : h;
				if (hc > colmax)
					colmax = hc;
			}
			sm_scan_offer(out, shift, colmax, ref->offset[c] + j);
		}
	}
	free(hcol);
	return (uint64_t)n * (uint64_t)ref->total;
}
