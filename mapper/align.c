/* align.c — banded Smith-Waterman over the hit window, and traceback
 * (see align.h for the tie-break rules; align_impl.h for the band and its
 * layouts).  The band is filled by the scalar recurrence below (32-bit
 * cells, rows) or, when the CPU has SSE4.1 and the band fits, by
 * align_sse41.c, align_avx2.c or align_avx512.c (16-bit cells, wavefront);
 * all give the same values, so the traceback, which reads any, takes the
 * same steps. */
#include "mapper/align.h"

#include <stdlib.h>
#include <string.h>

#include <htslib/sam.h>

#include "io/log.h"
#include "mapper/align_impl.h"
#include "mapper/grow.h"

#define NEG_INF (-(1 << 29))
/* Base codes 0..SM_BASE_N of sm_score_matrix(). */
#define SM_SUBST_CODES (SM_BASE_N + 1)
/* The 16-bit fill is used while a read's best score n * match stays below
 * this (the largest substitution score, SM_MAX_MATCH, still fits above it),
 * and while its steps and columns stay below SM_ALIGN16_MAX_INDEX. */
#define SM_ALIGN16_MAX_SCORE (INT16_MAX - 2 * SM_MAX_MATCH)
#define SM_ALIGN16_MAX_INDEX 16384
/* Alignment of the matrices: an SSE vector (the AVX2 and AVX-512 fills store
 * unaligned). */
#define SM_ALIGN_BYTES 16
/* Code of the padding around the read and the window (an N). */
#define SM_PAD_CODE SM_BASE_N

/* Three matrices in `mem` (int32_t cells, or int16_t when the SIMD fill
 * made them); `pad` holds the reversed read and the window's reference
 * codes that the SIMD fill reads. */
struct sm_align_ws_s {
	void *mem;
	size_t cap;      /* bytes allocated in mem */
	uint8_t *pad;
	int64_t m_pad;
	int simd;        /* the SSE4.1 fill may be used */
	int avx2;        /* and the AVX2 one */
	int avx512;      /* and the AVX-512BW one */
	int shortcut;    /* alignments that cannot hold a gap are traced without a fill */
	sm_align_stats_t st;
};

sm_align_stats_t sm_align_ws_stats(const sm_align_ws_t *ws)
{
	return ws->st;
}

sm_align_ws_t *sm_align_ws_create(sm_cpu_isa_t isa)
{
	sm_align_ws_t *ws = calloc(1, sizeof(sm_align_ws_t));

	if (ws) {
		if (isa == SM_CPU_ISA_AUTO)
			isa = sm_cpu_isa_best();
		ws->simd = isa >= SM_CPU_ISA_SSE41 && sm_cpu_isa_supported(SM_CPU_ISA_SSE41);
		ws->avx2 = isa >= SM_CPU_ISA_AVX2 && sm_cpu_isa_supported(SM_CPU_ISA_AVX2);
		ws->avx512 = isa >= SM_CPU_ISA_AVX512 && sm_cpu_isa_supported(SM_CPU_ISA_AVX512);
		ws->shortcut = isa != SM_CPU_ISA_SCALAR;
	}
	return ws;
}

void sm_align_ws_destroy(sm_align_ws_t *ws)
{
	if (!ws)
		return;
	free(ws->mem);
	free(ws->pad);
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
	/* `score` is the objective: the alignment's own score is at least
	 * score - clip5 - clip3. */
	int64_t slack = sm_best_possible(sc, n) - score - sc->gap_open;

	return n + (slack > 0 ? slack / sc->gap_ext : 0);
}

/* The matrices as the fills write them and the traceback reads them. */
typedef struct {
	void *h, *e, *f;
	int narrow;   /* int16_t cells (wavefront layout), else int32_t (rows) */
} mats_t;

/* Points m's three matrices, `cells` cells each, at the workspace (grown
 * if needed), each SM_ALIGN_BYTES-aligned. */
static int ws_matrices(sm_align_ws_t *ws, size_t cells, mats_t *m)
{
	size_t each = cells * (m->narrow ? sizeof(int16_t) : sizeof(int32_t));
	size_t stride = (each + SM_ALIGN_BYTES - 1) / SM_ALIGN_BYTES * SM_ALIGN_BYTES;
	void *p;

	if (3 * stride > ws->cap) {
		if (posix_memalign(&p, SM_ALIGN_BYTES, 3 * stride) != 0)
			return -1;
		free(ws->mem);
		ws->mem = p;
		ws->cap = 3 * stride;
	}
	m->h = ws->mem;
	m->e = (char *)ws->mem + stride;
	m->f = (char *)ws->mem + 2 * stride;
	return 0;
}

static inline int32_t cell(const mats_t *m, const void *mat, size_t at)
{
	return m->narrow ? ((const int16_t *)mat)[at] : ((const int32_t *)mat)[at];
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
 * alignment that scores `score` and ends in the window's last column w.
 * Such an alignment leaves c read bases after its end row n - c, inserts I
 * read bases and deletes D reference bases; each of the c + I read bases
 * forgoes a match, and a gap costs gap_open once and gap_ext per base, so
 * with R = sm_best_possible() - score:
 *   c*match + I*(match + gap_ext) + D*gap_ext + (I + D > 0)*gap_open <= R.
 * It ends on diagonal w - n + c, and walking back a deletion lowers d by
 * one, an insertion raises it by one, so d lies in
 * [w - n + c - D, w - n + c + I]: at least w - n - slack (D is at most
 * align_span()'s slack) and at most w - n + R/match (c + I <= R/match). */
static void align_band(const sm_score_t *sc, int n, int32_t score, int64_t w,
		       int64_t *dlo, int64_t *dhi)
{
	int64_t slack = align_span(sc, n, score) - n;
	int64_t clip = (sm_best_possible(sc, n) - score) / sc->match;

	*dlo = w - n - slack;
	*dhi = w - n + clip;
}

/* The textbook recurrence over band b (32-bit cells, rows layout):
 * E from the left, F from above, H the best of them, the diagonal and 0.
 * rb0[x] is the reference code of window column x + 1; lut1 row 1's
 * scores (the 5' bonus, score.h). */
static void fill32(const sm_band_t *b, const sm_query_t *q, const uint8_t *rb0,
		   const int8_t *lut, const int8_t *lut1, int32_t go, int32_t ge,
		   int32_t *H, int32_t *E, int32_t *F)
{
	const size_t stride = b->stride;

	for (size_t k = 0; k < stride; k++) {
		H[k] = 0;
		E[k] = F[k] = NEG_INF;
	}
	for (int i = 1; i <= b->n; i++) {
		int32_t *h = H + i * stride, *e = E + i * stride, *f = F + i * stride;
		const int32_t *hu = h - stride, *fu = f - stride;
		/* Offsets k_lo..k_hi of the row are columns 1..w (col = i + dlo
		 * + k - 1) away from the band's boundary offsets; rb[k] is the
		 * reference base of offset k, sub[] the scores against the read's. */
		int64_t k_lo = 2 - i - b->dlo, k_hi = b->w + 1 - i - b->dlo;
		const uint8_t *rb = rb0 + i + b->dlo - 2;
		const int8_t *sub = i == 1 ? lut1 : lut + (size_t)q->seq[i - 1] * SM_SUBST_CODES;
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
}

/* The cells per vector of the SIMD fill that takes a band of `stride`
 * offsets: the widest vector the workspace may use that the band needs
 * more than one of at the next narrower width (two offsets per lane).
 * Measured per fill on an AVX-512 Zen 4 (benchmarks/results/host-cpu.md):
 * from 33 offsets one AVX-512 vector beats two AVX2 ones, and every wider
 * band is faster on AVX-512 too; up to 32, one AVX2 vector beats one
 * AVX-512 vector of which half the lanes lie outside the band. */
static int64_t wave_vec(const sm_align_ws_t *ws, size_t stride)
{
	if (ws->avx512 && stride > 2 * SM_ALIGN_AVX2_CELLS)
		return SM_ALIGN_AVX512_CELLS;
	if (ws->avx2 && stride > 2 * SM_ALIGN_VEC_CELLS)
		return SM_ALIGN_AVX2_CELLS;
	return SM_ALIGN_VEC_CELLS;
}

/* The wavefront's cells per step for band b (half its offsets, whole
 * vectors of wave_vec()), or 0 when the 16-bit SIMD fill cannot take it:
 * no SSE4.1, scores or indices that would not fit, or a band too wide. */
static size_t wave_lanes(const sm_align_ws_t *ws, const sm_score_t *sc, const sm_band_t *b)
{
	int64_t vec = wave_vec(ws, b->stride);
	int64_t lanes = ((int64_t)b->stride + 2 * vec - 1) / (2 * vec) * vec;
	int64_t reach = b->n + 2 * lanes + (b->dlo < 0 ? -b->dlo : b->dlo);

	if (!ws->simd || (int64_t)b->n * sc->match + sc->clip5 >= SM_ALIGN16_MAX_SCORE ||
	    lanes > SM_ALIGN_VEC_CELLS * SM_ALIGN_MAX_VECS || reach >= SM_ALIGN16_MAX_INDEX)
		return 0;
	return (size_t)lanes;
}

/* The 16-bit SIMD fill of band b (lanes set): lays out the reversed read
 * and the reference codes it reads (align_impl.h). */
static int fill16(sm_align_ws_t *ws, const sm_band_t *b, const sm_query_t *q,
		  const uint8_t *rb0, const sm_score_t *sc, int32_t go, int32_t ge,
		  int16_t *H, int16_t *E, int16_t *F)
{
	const int64_t n = b->n, lanes = (int64_t)b->lanes, m = n + 2 * lanes;
	const int16_t sub[4] = { (int16_t)sc->match, (int16_t)-sc->mismatch, SM_SCORE_AMBIG,
				 (int16_t)sc->clip5 };
	uint8_t *qpad, *rpad;
	int64_t lo, hi;
	int has_n = 0;

	if (sm_grow((void **)&ws->pad, &ws->m_pad, 2 * m, 1) < 0)
		return -1;
	qpad = ws->pad;
	rpad = ws->pad + m;
	/* qpad[x] = read base n - 1 - (x - lanes); rpad[x] = window column
	 * x + dlo - 1 (1-based); padding elsewhere. */
	memset(qpad, SM_PAD_CODE, (size_t)lanes);
	for (int64_t i = 0; i < n; i++) {
		qpad[lanes + n - 1 - i] = q->seq[i];
		has_n |= q->seq[i] >= SM_BASE_N;
	}
	memset(qpad + lanes + n, SM_PAD_CODE, (size_t)lanes);
	/* x in [lo, hi) lies in the window (0 <= lo <= hi <= m). */
	lo = b->dlo < 2 ? 2 - b->dlo : 0;
	lo = lo < m ? lo : m;
	hi = b->w + 2 - b->dlo;
	hi = hi < lo ? lo : hi < m ? hi : m;
	memset(rpad, SM_PAD_CODE, (size_t)lo);
	if (hi > lo)
		memcpy(rpad + lo, rb0 + lo + b->dlo - 2, (size_t)(hi - lo));
	for (int64_t x = lo; x < hi; x++)
		has_n |= rpad[x] >= SM_BASE_N;
	memset(rpad + hi, SM_PAD_CODE, (size_t)(m - hi));
	switch (wave_vec(ws, b->stride)) {
	case SM_ALIGN_AVX512_CELLS:
		sm_align_fill_wave_avx512(b, qpad, rpad, sub, has_n, go, ge, H, E, F);
		ws->st.fills[SM_CPU_ISA_AVX512]++;
		break;
	case SM_ALIGN_AVX2_CELLS:
		sm_align_fill_wave_avx2(b, qpad, rpad, sub, has_n, go, ge, H, E, F);
		ws->st.fills[SM_CPU_ISA_AVX2]++;
		break;
	default:
		sm_align_fill_wave_sse41(b, qpad, rpad, sub, has_n, go, ge, H, E, F);
		ws->st.fills[SM_CPU_ISA_SSE41]++;
	}
	return 0;
}

/* The length of the run of matches (equal codes 0-3; an N matches nothing)
 * ending at read base a and going back, no further than a_min: r[x] is the
 * reference base facing read base q[x].  Eight bases at a time, the bytes
 * that differ or hold an N found as the word's highest set byte. */
static inline int match_run(const uint8_t *r, const uint8_t *q, int a, int a_min)
{
	int m = 0;

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	for (; a - m - 7 >= a_min; m += 8) {
		uint64_t x, y, bad;

		memcpy(&x, r + a - m - 7, sizeof x);
		memcpy(&y, q + a - m - 7, sizeof y);
		bad = (x ^ y) | (y & SM_NOT_ACGT_BITS);
		if (bad)
			return m + (__builtin_clzll(bad) >> 3);
	}
#endif
	while (a - m >= a_min && r[a - m] == q[a - m] && q[a - m] < SM_BASE_N)
		m++;
	return m;
}

/* The traceback without a fill, for an alignment that cannot hold a gap:
 * one gap costs at least gap_open + gap_ext and each row adds at most
 * match (the objective at most sm_best_possible()), so when `score`
 * exceeds sm_best_possible() minus that, no alignment with a gap reaches
 * it, and the fill's answer follows from the diagonals alone.  Its end
 * cell is the smallest row i of column `end` whose best run of
 * substitution scores ending there (the ungapped Smith-Waterman value,
 * which the fill's H equals on every cell of that alignment, or the end
 * would exceed `score`; a run from read base 0 against a reference base
 * gains the 5' bonus, and row n's value the 3' bonus) is `score`; its trace
 * is diagonal steps back to the first cell where the run's remainder is 0
 * (or to read base 0, when only the bonus makes up the remainder).  A run is
 * walked back only while it could still reach `score` (each mismatch or N
 * costs match - subst below the all-match line).  Columns before `lo` are
 * the window's zero border.  Returns 1 (traced into out), 0 when no row
 * qualifies (the fill decides, and reports the disagreement) or -1 when
 * out of memory. */
static int trace_ungapped(const sm_ref_t *ref, const sm_score_t *sc, const sm_query_t *q,
			  int64_t lo, int64_t end, int32_t score, sm_aln_t *out)
{
	const int n = q->len;
	const int32_t match = sc->match, mismatch = -sc->mismatch;
	int64_t i0 = (score - sc->clip5 - sc->clip3 + match - 1) / match;

	for (int i = i0 > 1 ? (int)i0 : 1; i <= n; i++) {
		/* r[a]: the reference base facing read base a on the diagonal
		 * through (i, end); sum: the run over rows a+1..i, which must
		 * reach target (score less row n's 3' bonus); below: how far it
		 * fell below the all-match line, at most room to matter. */
		const uint8_t *r = ref->seq + end - (i - 1);
		const int32_t target = score - (i == n ? sc->clip3 : 0);
		int64_t room = (int64_t)i * match + sc->clip5 - target, below = 0;
		int64_t a_lo = lo - (end - (i - 1));
		int32_t sum = 0, best = 0, own;
		int a_start = -1, whole = 0;

		int a = i - 1, a_min = a_lo > 0 ? (int)a_lo : 0;

		while (a >= a_min) {
			/* A run of m matches raises sum by match each: it meets
			 * target at its k-th base if target - sum = k * match. */
			int m = match_run(r, q->seq, a, a_min);
			int32_t s;

			if (m > 0) {
				int32_t need = target - sum;

				if (a_start < 0 && need > 0 && need % match == 0 && need / match <= m)
					a_start = a - (need / match - 1);
				sum += m * match;
				best = sum > best ? sum : best;
				a -= m;
				if (a < a_min)
					break;
			}
			/* r[a], q->seq[a]: a mismatch or an N (sm_subst()). */
			s = (r[a] | q->seq[a]) >= SM_BASE_N ? SM_SCORE_AMBIG : mismatch;
			sum += s;
			below += match - s;
			if (sum > best)
				best = sum;
			if (sum == target && a_start < 0)
				a_start = a;
			if (below > room)
				break;
			a--;
		}
		whole = a < a_min && a_min == 0;
		own = target;
		/* The run from read base 0 (sum) with the 5' bonus. */
		if (whole && r[0] < SM_BASE_N && sc->clip5) {
			if (sum + sc->clip5 > best)
				best = sum + sc->clip5;
			if (a_start < 0 && sum + sc->clip5 == target) {
				a_start = 0;
				own = sum;
			}
		}
		if (best != target || a_start < 0)
			continue;
		out->score = own;
		out->q_start = a_start;
		out->q_end = i;
		out->ref_start = end + 1 - (i - a_start);
		out->ref_end = end + 1;
		out->n_cigar = 0;
		if (cigar_push(out, BAM_CMATCH) < 0)
			return -1;
		out->cigar[0] = bam_cigar_gen((uint32_t)(i - a_start), BAM_CMATCH);
		return 1;
	}
	return 0;
}

/* The window of a traceback ending at `end`: its first global column
 * (*start) and its columns (returned). */
static int64_t align_window(const sm_ref_t *ref, const sm_score_t *sc, int n, int64_t end,
			    int32_t score, int64_t *start)
{
	const int32_t contig = sm_ref_contig_of(ref, end);
	int64_t w = align_span(sc, n, score);

	*start = end - w + 1;
	if (*start < ref->offset[contig])
		*start = ref->offset[contig];
	return end - *start + 1;
}

/* sm_align's shortcut: 1 if the alignment was traced without a fill, 0 if
 * it needs one, -1 when out of memory (logged). */
static int align_shortcut(sm_align_ws_t *ws, const sm_ref_t *ref, const sm_score_t *sc,
			  const sm_query_t *q, int64_t start, int64_t end, int32_t score,
			  sm_aln_t *out)
{
	int rc = 0;

	if (ws->shortcut && score > 0 &&
	    score > sm_best_possible(sc, q->len) - sc->gap_open - sc->gap_ext) {
		rc = trace_ungapped(ref, sc, q, start, end, score, out);
		if (rc < 0) {
			sm_log(SM_LOG_ERROR, "traceback: out of memory");
			return -1;
		}
		if (rc > 0) {
			ws->st.calls++;
			ws->st.ungapped++;
		}
	}
	return rc;
}

int sm_align_prepare(sm_align_ws_t *ws, const sm_ref_t *ref, const sm_score_t *sc,
		     const sm_query_t *q, int64_t end, int32_t score, sm_aln_t *out,
		     sm_tb_job_t *job, int64_t *start)
{
	int64_t w = align_window(ref, sc, q->len, end, score, start), dlo, dhi;
	int rc = align_shortcut(ws, ref, sc, q, *start, end, score, out);

	if (rc != 0)
		return rc < 0 ? -1 : SM_ALIGN_DONE;
	align_band(sc, q->len, score, w, &dlo, &dhi);
	/* sm_tb_run's 32-bit cells hold scores up to the best possible and a
	 * minus infinity of -2^29 less gap penalties without overflow. */
	if (dhi - dlo + 3 > SM_TB_MAX_STRIDE ||
	    (int64_t)(q->len + 1) * (dhi - dlo + 3) > SM_TB_MAX_CELLS ||
	    (int64_t)q->len * sc->match + sc->clip5 + sc->clip3 > INT32_MAX / 4)
		return SM_ALIGN_SELF;
	job->n = q->len;
	job->w = (int32_t)w;
	job->dlo = (int32_t)dlo;
	job->dhi = (int32_t)dhi;
	job->score = score;
	return SM_ALIGN_JOB;
}

int sm_align_finish(sm_align_ws_t *ws, const sm_ref_t *ref, const sm_score_t *sc,
		    const sm_query_t *q, int64_t start, const sm_tb_job_t *job,
		    const sm_tb_res_t *res, const uint32_t *ops, sm_aln_t *out)
{
	if (res->status == SM_TB_NO_CELL) {
		sm_log(SM_LOG_ERROR, "traceback: no cell of column %lld has score %d "
		       "(engine and traceback disagree)", (long long)(start + job->w - 1),
		       job->score);
		return -1;
	}
	if (res->status != SM_TB_OK)
		return SM_ALIGN_SELF;
	if (res->n_ops > out->m_cigar) {
		uint32_t *c = realloc(out->cigar, (size_t)res->n_ops * sizeof *c);

		if (!c) {
			sm_log(SM_LOG_ERROR, "traceback: out of memory");
			return -1;
		}
		out->cigar = c;
		out->m_cigar = res->n_ops;
	}
	/* The objective less its bonuses: row n's 3' one, and the 5' one of a
	 * first step from read base 0 against a base A/C/G/T. */
	out->score = job->score - (res->i_end == q->len ? sc->clip3 : 0);
	if (res->i_start == 0)
		out->score -= sm_subst_first(sc, ref->seq[start + res->j_start], q->seq[0]) -
			      sm_subst(sc, ref->seq[start + res->j_start], q->seq[0]);
	out->q_start = res->i_start;
	out->q_end = res->i_end;
	out->ref_start = start + res->j_start;
	out->ref_end = start + job->w;
	out->n_cigar = res->n_ops;
	/* Walked from the end: reverse into reading order. */
	for (int32_t a = 0; a < res->n_ops; a++)
		out->cigar[a] = ops[res->n_ops - 1 - a];
	ws->st.calls++;
	ws->st.cells += (int64_t)((size_t)(q->len + 1) * (size_t)sm_tb_stride(job));
	ws->st.batched++;
	return SM_ALIGN_DONE;
}

int sm_align(sm_align_ws_t *ws, const sm_ref_t *ref, const sm_score_t *sc,
	     const sm_query_t *q, int64_t end, int32_t score, sm_aln_t *out)
{
	const int n = q->len;
	const int32_t go = sc->gap_open + sc->gap_ext, ge = sc->gap_ext;
	int64_t start, w = align_window(ref, sc, n, end, score, &start), dhi;
	sm_band_t b;
	mats_t m;
	size_t cells;
	int64_t i, j;
	int8_t lut[SM_SUBST_CODES * SM_SUBST_CODES], lut1[SM_SUBST_CODES];
	enum { IN_H, IN_E, IN_F } state = IN_H;
	int rc = align_shortcut(ws, ref, sc, q, start, end, score, out);

	if (rc != 0)
		return rc < 0 ? -1 : 0;
	/* Only the band is computed.  Every alignment scoring `score` lies in
	 * it, so its cells have their whole-window values and the traceback
	 * takes the same steps as over the full window. */
	align_band(sc, n, score, w, &b.dlo, &dhi);
	b.n = n;
	b.w = w;
	b.stride = (size_t)(dhi - b.dlo + 1) + 2;
	ws->st.calls++;
	ws->st.cells += (int64_t)((size_t)(n + 1) * b.stride);
	ws->st.narrow += b.stride <= 5;
	b.lanes = wave_lanes(ws, sc, &b);
	m.narrow = b.lanes != 0;
	cells = m.narrow ? (2 * (size_t)n + 2 * b.lanes) * b.lanes : (size_t)(n + 1) * b.stride;
	if (ws_matrices(ws, cells, &m) < 0) {
		sm_log(SM_LOG_ERROR, "traceback: out of memory (%zu cells)", cells);
		return -1;
	}
	if (m.narrow) {
		if (fill16(ws, &b, q, ref->seq + start, sc, go, ge, m.h, m.e, m.f) < 0) {
			sm_log(SM_LOG_ERROR, "traceback: out of memory");
			return -1;
		}
	} else {
		for (int qc = 0; qc < SM_SUBST_CODES; qc++)   /* lut[read code][reference code] */
			for (int rc = 0; rc < SM_SUBST_CODES; rc++)
				lut[qc * SM_SUBST_CODES + rc] =
					(int8_t)sm_subst(sc, (uint8_t)rc, (uint8_t)qc);
		for (int rc = 0; rc < SM_SUBST_CODES; rc++)
			lut1[rc] = (int8_t)sm_subst_first(sc, (uint8_t)rc, q->seq[0]);
		fill32(&b, q, ref->seq + start, lut, lut1, go, ge, m.h, m.e, m.f);
		ws->st.fills[SM_CPU_ISA_SCALAR]++;
	}
#define AT(i, j) sm_band_at(&b, (i), (j) - (i) - b.dlo + 1)

	/* End cell: column `end`, smallest row with the reported score (the
	 * last row's with the 3' bonus, scan.h). */
	j = w;
	for (i = 1; i <= n; i++) {
		int64_t d = j - i;
		int32_t h;
		if (d < b.dlo || d > dhi)
			continue;
		h = cell(&m, m.h, AT(i, j));
		if ((i == n && h > 0 ? h + sc->clip3 : h) == score)
			break;
	}
	if (i > n || score <= 0) {
		sm_log(SM_LOG_ERROR, "traceback: no cell of column %lld has score %d "
		       "(engine and traceback disagree)", (long long)end, score);
		return -1;
	}
	/* The alignment's own score: the objective less its bonuses. */
	out->score = score - (i == n ? sc->clip3 : 0);
	out->q_end = (int32_t)i;
	out->ref_end = start + j;
	out->n_cigar = 0;

	for (;;) {
		size_t at = AT(i, j);
		int32_t h = cell(&m, m.h, at);
		int op;

		if (state == IN_H) {
			if (h == 0)
				break;
			if (h == cell(&m, m.h, AT(i - 1, j - 1)) +
			    (i == 1 ? sm_subst_first(sc, ref->seq[start + j - 1], q->seq[0])
				    : sm_subst(sc, ref->seq[start + j - 1], q->seq[i - 1]))) {
				if (i == 1)
					out->score -= sm_subst_first(sc, ref->seq[start + j - 1], q->seq[0]) -
						      sm_subst(sc, ref->seq[start + j - 1], q->seq[0]);
				op = BAM_CMATCH;
				i--, j--;
			} else if (h == cell(&m, m.e, at)) {
				state = IN_E;
				continue;
			} else {
				state = IN_F;
				continue;
			}
		} else if (state == IN_E) {
			op = BAM_CDEL;
			if (cell(&m, m.e, at) != cell(&m, m.e, AT(i, j - 1)) - ge)
				state = IN_H;  /* opened here from H(i, j-1) */
			j--;
		} else {
			op = BAM_CINS;
			if (cell(&m, m.f, at) != cell(&m, m.f, AT(i - 1, j)) - ge)
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
	for (int a = 0, z = out->n_cigar - 1; a < z; a++, z--) {
		uint32_t t = out->cigar[a];
		out->cigar[a] = out->cigar[z];
		out->cigar[z] = t;
	}
	return 0;
#undef AT
}
