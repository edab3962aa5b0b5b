/* align.c — full-matrix Smith-Waterman over the hit window, and traceback
 * (see align.h for the tie-break rules). */
#include "mapper/align.h"

#include <stdlib.h>
#include <string.h>

#include <htslib/sam.h>

#include "mapper/log.h"

#define NEG_INF (-(1 << 29))
/* Base codes 0..SM_BASE_N of sm_score_matrix(). */
#define SM_SUBST_CODES (SM_BASE_N + 1)

/* Matrices of (n+1) x (w+1) cells, row-major; row 0 and column 0 are the
 * zero boundary of the window. */
struct sm_align_ws_s {
	int32_t *h, *e, *f;
	size_t cap;   /* cells allocated in each matrix */
	sm_align_stats_t st;
};

sm_align_stats_t sm_align_ws_stats(const sm_align_ws_t *ws)
{
	return ws->st;
}

sm_align_ws_t *sm_align_ws_create(void)
{
	return calloc(1, sizeof(sm_align_ws_t));
}

void sm_align_ws_destroy(sm_align_ws_t *ws)
{
	if (!ws)
		return;
	free(ws->h);
	free(ws);
}

void sm_aln_free(sm_aln_t *a)
{
	free(a->cigar);
	memset(a, 0, sizeof *a);
}

/* Widest reference span of an alignment of a read of length n that scores
 * `score`: M aligned columns and D deleted ones, with M <= n and
 * score <= match*n - (gap_open + gap_ext*D) when D > 0.  Any cell of the end
 * column that reaches `score` (the column maximum) does so by an alignment
 * this narrow, so the window below yields the same end cell as the whole
 * reference, at a fraction of sm_max_span() for good hits. */
static int64_t align_span(const sm_score_t *sc, int n, int32_t score)
{
	int64_t slack = (int64_t)sc->match * n - score - sc->gap_open;

	return n + (slack > 0 ? slack / sc->gap_ext : 0);
}

static int ws_reserve(sm_align_ws_t *ws, size_t cells)
{
	int32_t *p;

	if (cells <= ws->cap)
		return 0;
	p = realloc(ws->h, 3 * cells * sizeof *p);
	if (!p)
		return -1;
	ws->h = p;
	ws->e = p + cells;
	ws->f = p + 2 * cells;
	ws->cap = cells;
	return 0;
}

/* Appends one operation to a CIGAR built backwards (merged with the last). */
static int cigar_push(sm_aln_t *a, int op)
{
	if (a->n_cigar > 0 && bam_cigar_op(a->cigar[a->n_cigar - 1]) == (uint32_t)op) {
		a->cigar[a->n_cigar - 1] += 1u << BAM_CIGAR_SHIFT;
		return 0;
	}
	if (a->n_cigar == a->m_cigar) {
		int32_t m = a->m_cigar ? 2 * a->m_cigar : 16;
		uint32_t *c = realloc(a->cigar, (size_t)m * sizeof *c);
		if (!c)
			return -1;
		a->cigar = c;
		a->m_cigar = m;
	}
	a->cigar[a->n_cigar++] = bam_cigar_gen(1, op);
	return 0;
}

/* The diagonal band (d = column - row, window coordinates) of every
 * alignment that scores `score` and ends in the window's last column w:
 * its end row is at least n - c with c = (n*match - score) / match read
 * bases left unaligned, and along it d moves by one per gap column, of
 * which there are at most align_span()'s slack. */
static void align_band(const sm_score_t *sc, int n, int32_t score, int64_t w,
		       int64_t *dlo, int64_t *dhi)
{
	int64_t slack = align_span(sc, n, score) - n;
	int64_t clip = ((int64_t)sc->match * n - score) / sc->match;

	*dlo = w - n - slack;
	*dhi = w - n + clip + slack;
}

int sm_align(sm_align_ws_t *ws, const sm_ref_t *ref, const sm_score_t *sc,
	     const sm_query_t *q, int64_t end, int32_t score, sm_aln_t *out)
{
	const int n = q->len;
	const int32_t go = sc->gap_open + sc->gap_ext, ge = sc->gap_ext;
	const int32_t contig = sm_ref_contig_of(ref, end);
	int64_t w = align_span(sc, n, score), start, dlo, dhi;
	size_t stride, cells;
	int32_t *H, *E, *F;
	int64_t i, j;
	int8_t lut[SM_SUBST_CODES * SM_SUBST_CODES];
	enum { IN_H, IN_E, IN_F } state = IN_H;

	start = end - w + 1;
	if (start < ref->offset[contig])
		start = ref->offset[contig];
	w = end - start + 1;
	/* Only the band is computed.  Row i holds columns j = i + dlo + k for
	 * k = 0..band-1 at offset k + 1; offsets 0 and band + 1, and columns
	 * outside 1..w, hold the boundary (H = 0, no gap), so the left,
	 * upper and diagonal neighbours of cell `at` are at - 1,
	 * at - stride + 1 and at - stride.  Every alignment scoring `score`
	 * lies in the band, so its cells have their whole-window values and
	 * the traceback takes the same steps as over the full window. */
	align_band(sc, n, score, w, &dlo, &dhi);
	stride = (size_t)(dhi - dlo + 1) + 2;
	cells = (size_t)(n + 1) * stride;
	ws->st.calls++;
	ws->st.cells += (int64_t)cells;
	ws->st.narrow += stride <= 5;
	if (ws_reserve(ws, cells) < 0) {
		sm_log(SM_LOG_ERROR, "traceback: out of memory (%zu cells)", cells);
		return -1;
	}
	H = ws->h, E = ws->e, F = ws->f;
#define AT(i, j) ((size_t)(i) * stride + (size_t)((j) - (i) - dlo + 1))

	for (int qc = 0; qc < SM_SUBST_CODES; qc++)   /* lut[read code][reference code] */
		for (int rc = 0; rc < SM_SUBST_CODES; rc++)
			lut[qc * SM_SUBST_CODES + rc] = (int8_t)sm_subst(sc, (uint8_t)rc, (uint8_t)qc);
	for (size_t k = 0; k < stride; k++) {
		H[k] = 0;
		E[k] = F[k] = NEG_INF;
	}
	for (i = 1; i <= n; i++) {
		int32_t *h = H + i * stride, *e = E + i * stride, *f = F + i * stride;
		const int32_t *hu = h - stride, *fu = f - stride;
		/* Offsets k_lo..k_hi of the row are columns 1..w (col = i + dlo
		 * + k - 1) away from the band's boundary offsets; rb[k] is the
		 * reference base of offset k, sub[] the scores against the read's. */
		int64_t k_lo = 2 - i - dlo, k_hi = w + 1 - i - dlo;
		const uint8_t *rb = ref->seq + start + i + dlo - 2;
		const int8_t *sub = lut + (size_t)q->seq[i - 1] * SM_SUBST_CODES;
		int32_t hl, el;

		k_lo = k_lo < 1 ? 1 : k_lo;
		k_hi = k_hi > (int64_t)stride - 2 ? (int64_t)stride - 2 : k_hi;
		for (int64_t k = 0; k < (int64_t)stride; k++) {
			if (k == k_lo && k_lo <= k_hi)
				k = k_hi + 1;
			if (k >= (int64_t)stride)
				break;
			h[k] = 0;
			e[k] = f[k] = NEG_INF;
		}
		if (k_lo > k_hi)
			continue;
		hl = h[k_lo - 1];
		el = e[k_lo - 1];
		/* The recurrence of the textbook: E from the left, F from above,
		 * H the best of them, the diagonal and 0. */
		for (int64_t k = k_lo; k <= k_hi; k++) {
			int32_t ev = el - ge, fv = fu[k + 1] - ge, hv = hu[k] + sub[rb[k]];

			ev = hl - go > ev ? hl - go : ev;
			fv = hu[k + 1] - go > fv ? hu[k + 1] - go : fv;
			hv = ev > hv ? ev : hv;
			hv = fv > hv ? fv : hv;
			hv = hv > 0 ? hv : 0;
			h[k] = hl = hv;
			e[k] = el = ev;
			f[k] = fv;
		}
	}

	/* End cell: column `end`, smallest row with the reported score. */
	j = w;
	for (i = 1; i <= n; i++) {
		int64_t d = j - i;
		if (d >= dlo && d <= dhi && H[AT(i, j)] == score)
			break;
	}
	if (i > n || score <= 0) {
		sm_log(SM_LOG_ERROR, "traceback: no cell of column %lld has score %d "
		       "(engine and traceback disagree)", (long long)end, score);
		return -1;
	}
	out->score = score;
	out->q_end = (int32_t)i;
	out->ref_end = start + j;
	out->n_cigar = 0;

	for (;;) {
		size_t at = AT(i, j);
		int op;

		if (state == IN_H) {
			if (H[at] == 0)
				break;
			if (H[at] == H[at - stride] +
			    sm_subst(sc, ref->seq[start + j - 1], q->seq[i - 1])) {
				op = BAM_CMATCH;
				i--, j--;
			} else if (H[at] == E[at]) {
				state = IN_E;
				continue;
			} else {
				state = IN_F;
				continue;
			}
		} else if (state == IN_E) {
			op = BAM_CDEL;
			if (E[at] != E[at - 1] - ge)
				state = IN_H;  /* opened here from H(i, j-1) */
			j--;
		} else {
			op = BAM_CINS;
			if (F[at] != F[at - stride + 1] - ge)
				state = IN_H;
			i--;
		}
		if (cigar_push(out, op) < 0) {
			sm_log(SM_LOG_ERROR, "traceback: out of memory");
			return -1;
		}
	}
	out->q_start = (int32_t)i;
	out->ref_start = start + j;
	/* Built from the end backwards: reverse into reading order. */
	for (int a = 0, b = out->n_cigar - 1; a < b; a++, b--) {
		uint32_t t = out->cigar[a];
		out->cigar[a] = out->cigar[b];
		out->cigar[b] = t;
	}
	return 0;
#undef AT
}
