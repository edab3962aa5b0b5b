/* test_scan.c — the oracle (scan.c) and the traceback (align.c) against an
 * independent brute force: the paper's three-step formulation (Eqs. 5-8)
 * with the horizontal gap taken as a literal maximum over every k (Eq. 6),
 * whole matrices, and the locus list built by sorting every bin. */
#include "tests/unit/unit.h"

#include <htslib/sam.h>

#include "io/ref.h"
#include "mapper/align.h"
#include "mapper/scan.h"

/* H(i,j) of one contig by Eqs. 5-8 literally.  h is (n+1) x (m+1). */
static void brute_matrix(const uint8_t *r, int m, const uint8_t *q, int n,
			 const sm_score_t *sc, int32_t *h)
{
	const int gs = sc->gap_open + sc->gap_ext, ge = sc->gap_ext;
	int32_t *f = calloc((size_t)(m + 1), sizeof *f), *ht = calloc((size_t)(m + 1), sizeof *ht);

	for (int j = 0; j <= m; j++) {
		h[j] = 0;
		f[j] = -(1 << 28);
	}
	for (int i = 1; i <= n; i++) {
		int32_t *row = h + (size_t)i * (m + 1), *up = row - (m + 1);
		row[0] = 0;
		for (int j = 1; j <= m; j++) {
			int32_t d = up[j - 1] + sm_subst(sc, r[j - 1], q[i - 1]);
			f[j] = (f[j] - ge > up[j] - gs) ? f[j] - ge : up[j] - gs;
			ht[j] = d > f[j] ? d : f[j];
			if (ht[j] < 0)
				ht[j] = 0;
		}
		for (int j = 1; j <= m; j++) {
			int32_t best = ht[j];
			for (int k = 1; k < j; k++) {   /* gap of length k from column j-k */
				int32_t v = ht[j - k] - sc->gap_open - k * ge;
				if (v > best)
					best = v;
			}
			row[j] = best;
		}
	}
	free(f);
	free(ht);
}

#define BRUTE_NEG (-(1 << 28))

/* G(i,j) of one contig: the best alignment ending at (i,j) that starts
 * with read base 0 aligned to a reference base A/C/G/T (no floor at 0),
 * by the same literal equations; BRUTE_NEG where there is none.  The
 * objective with a clipping penalty (score.h) is max(H, G + clip5), plus
 * clip3 in row n: computed this way, it is independent of the oracle's one
 * recurrence (which gives row 1 the bonus in its substitution scores). */
static void brute_anchored(const uint8_t *r, int m, const uint8_t *q, int n,
			   const sm_score_t *sc, int32_t *g)
{
	const int gs = sc->gap_open + sc->gap_ext, ge = sc->gap_ext;
	int32_t *f = calloc((size_t)(m + 1), sizeof *f), *gt = calloc((size_t)(m + 1), sizeof *gt);

	for (int j = 0; j <= m; j++)
		f[j] = g[j] = BRUTE_NEG;
	for (int i = 1; i <= n; i++) {
		int32_t *row = g + (size_t)i * (m + 1), *up = row - (m + 1);
		row[0] = BRUTE_NEG;
		for (int j = 1; j <= m; j++) {
			int32_t d = i == 1 ? (r[j - 1] < SM_BASE_N ? sm_subst(sc, r[j - 1], q[0]) : BRUTE_NEG)
					   : up[j - 1] > BRUTE_NEG ? up[j - 1] + sm_subst(sc, r[j - 1], q[i - 1])
					   : BRUTE_NEG;
			f[j] = (f[j] - ge > up[j] - gs) ? f[j] - ge : up[j] - gs;
			if (f[j] < BRUTE_NEG)
				f[j] = BRUTE_NEG;
			gt[j] = d > f[j] ? d : f[j];
		}
		for (int j = 1; j <= m; j++) {
			int32_t best = gt[j];
			for (int k = 1; k < j; k++) {
				int32_t v = gt[j - k] - sc->gap_open - k * ge;
				if (gt[j - k] > BRUTE_NEG && v > best)
					best = v;
			}
			row[j] = best;
		}
	}
	free(f);
	free(gt);
}

/* The locus list by definition: every column's max, bins, full sort. */
static void brute_scan(const sm_ref_t *ref, const sm_score_t *sc, const sm_query_t *q,
		       sm_scan_t *out)
{
	const int n = q->len, shift = sm_locus_shift(sc, n);
	int64_t nbins = (ref->total >> shift) + 1;
	sm_locus_t *bins = calloc((size_t)nbins, sizeof *bins);

	for (int c = 0; c < ref->n_contig; c++) {
		int m = (int)ref->len[c];
		int32_t *h = malloc((size_t)(n + 1) * (m + 1) * sizeof *h);
		int32_t *ga = malloc((size_t)(n + 1) * (m + 1) * sizeof *ga);
		brute_matrix(ref->seq + ref->offset[c], m, q->seq, n, sc, h);
		brute_anchored(ref->seq + ref->offset[c], m, q->seq, n, sc, ga);
		for (int j = 1; j <= m; j++) {
			int32_t cm = 0;
			int64_t g = ref->offset[c] + j - 1;
			for (int i = 1; i <= n; i++) {
				size_t at = (size_t)i * (m + 1) + j;
				int32_t v = h[at];
				if (ga[at] > BRUTE_NEG && ga[at] + sc->clip5 > v)
					v = ga[at] + sc->clip5;
				if (i == n && v > 0)
					v += sc->clip3;
				if (v > cm)
					cm = v;
			}
			if (cm > bins[g >> shift].score) {  /* columns visited left to right */
				bins[g >> shift].score = cm;
				bins[g >> shift].end = g;
			}
		}
		free(h);
		free(ga);
	}
	memset(out, 0, sizeof *out);
	for (int k = 0; k < SM_TOPK; k++) {
		int64_t best = -1;
		for (int64_t b = 0; b < nbins; b++)
			if (bins[b].score > 0 && (best < 0 || bins[b].score > bins[best].score))
				best = b;
		if (best < 0)
			break;
		out->top[out->n++] = bins[best];
		bins[best].score = 0;
	}
	free(bins);
}

static void random_seq(char *s, int len, int n_rate_pct)
{
	for (int k = 0; k < len; k++)
		s[k] = (int)rnd(100) < n_rate_pct ? 'N' : "ACGT"[rnd(4)];
	s[len] = 0;
}

/* Rescores an alignment from its CIGAR. */
static int32_t rescore(const sm_ref_t *ref, const sm_score_t *sc, const sm_query_t *q,
		       const sm_aln_t *a, int *ok)
{
	int64_t r = a->ref_start;
	int32_t qi = a->q_start, s = 0;

	*ok = a->n_cigar > 0 && bam_cigar_op(a->cigar[0]) == BAM_CMATCH;
	for (int k = 0; k < a->n_cigar; k++) {
		int op = bam_cigar_op(a->cigar[k]), len = bam_cigar_oplen(a->cigar[k]);
		if (op == BAM_CMATCH)
			for (int t = 0; t < len; t++)
				s += sm_subst(sc, ref->seq[r++], q->seq[qi++]);
		else if (op == BAM_CDEL)
			s -= sc->gap_open + len * sc->gap_ext, r += len;
		else
			s -= sc->gap_open + len * sc->gap_ext, qi += len;
	}
	*ok = *ok && r == a->ref_end && qi == a->q_end;
	return s;
}

static void one_case(int n_contig, int max_m, int n, const sm_score_t *sc, int n_pct,
		     int plant)
{
	char *seqs[8], names[8][16], qs[1100];
	const char *np[8];
	const char *sp[8];
	uint8_t qc[1100];
	sm_ref_t *ref;
	sm_scan_t got, want;
	sm_query_t q = { qc, n };

	for (int c = 0; c < n_contig; c++) {
		int m = 1 + (int)rnd((uint32_t)max_m);
		seqs[c] = malloc((size_t)m + 1);
		random_seq(seqs[c], m, n_pct);
		snprintf(names[c], sizeof names[c], "c%d", c);
		np[c] = names[c];
		sp[c] = seqs[c];
	}
	random_seq(qs, n, n_pct);
	if (plant) {   /* copy a mutated piece of contig 0 into the read */
		int m = (int)strlen(seqs[0]);
		int from = (int)rnd((uint32_t)m);
		for (int k = 0; k < n && from + k < m; k++)
			qs[k] = rnd(10) ? seqs[0][from + k] : "ACGT"[rnd(4)];
	}
	for (int k = 0; k < n; k++)
		qc[k] = sm_nt4_table[(uint8_t)qs[k]];
	if (sm_ref_from_strings(n_contig, np, sp, &ref) < 0) {
		CHECK(0, "sm_ref_from_strings failed");
		return;
	}
	sm_scan_oracle(ref, sc, &q, &got);
	brute_scan(ref, sc, &q, &want);
	CHECK(sm_scan_equal(&got, &want), "oracle != brute force (n=%d contigs=%d total=%lld; "
	      "top0 %d@%lld vs %d@%lld)", n, n_contig, (long long)ref->total,
	      got.n ? got.top[0].score : 0, got.n ? (long long)got.top[0].end : -1,
	      want.n ? want.top[0].score : 0, want.n ? (long long)want.top[0].end : -1);

	/* Traceback of every reported locus: the alignment must end there,
	 * rescore to its own score (AS), and that plus the end bonuses it
	 * earns must be the reported objective.  A bin's best may be the tail
	 * of a deletion run from a better hit to its left (C(j) is the maximum
	 * of H, which includes alignments ending in a gap); the best hit never
	 * is, nor does it end in an insertion unless the 3' bonus pays it. */
	sm_align_ws_t *ws = sm_align_ws_create(SM_CPU_ISA_AUTO);
	for (int k = 0; k < got.n; k++) {
		sm_aln_t a = { 0 };
		int ok = 0;
		int rc = sm_align(ws, ref, sc, &q, got.top[k].end, got.top[k].score, &a);
		int32_t s = rc == 0 ? rescore(ref, sc, &q, &a, &ok) : -1, obj = s;
		if (k == 0 && rc == 0 && sc->clip3 <= sc->gap_open + sc->gap_ext)
			ok = ok && bam_cigar_op(a.cigar[a.n_cigar - 1]) == BAM_CMATCH;
		if (rc == 0) {
			ok = ok && a.score == s;
			obj += a.q_start == 0 && ref->seq[a.ref_start] < SM_BASE_N ? sc->clip5 : 0;
			obj += a.q_end == n ? sc->clip3 : 0;
		}
		CHECK(rc == 0 && ok && obj == got.top[k].score && a.ref_end == got.top[k].end + 1 &&
		      sm_ref_contig_of(ref, a.ref_start) == sm_ref_contig_of(ref, got.top[k].end),
		      "traceback of %d@%lld: rc=%d ok=%d rescored=%d end=%lld", got.top[k].score,
		      (long long)got.top[k].end, rc, ok, s, (long long)a.ref_end);
		sm_aln_free(&a);
	}
	sm_align_ws_destroy(ws);
	sm_ref_destroy(ref);
	for (int c = 0; c < n_contig; c++)
		free(seqs[c]);
}

/* A SIMD band fill (16-bit cells, wavefront) against the scalar one: for reads cut
 * from a random contig with substitutions, insertions, deletions and Ns,
 * every locus the oracle lists is traced by both; score, coordinates and
 * CIGAR must agree.  Read lengths straddle the 16-cell vector, and loci near
 * the contig's start clip the window.  One case in 26 has no mutation rate
 * (exact copies, which the SIMD workspace traces without a fill). */
static const sm_score_t trace_schemes[] = {
	{ 1, 4, 6, 1, 0, 0 }, { 2, 3, 5, 2, 0, 0 }, { 1, 2, 4, 1, 0, 0 }, { 5, 4, 2, 3, 0, 0 },
	{ 1, 4, 6, 1, 5, 5 }, { 2, 3, 5, 2, 1, 30 }, { 1, 2, 4, 1, 20, 0 }, { 5, 4, 2, 3, 9, 9 } };

/* Case `rep` of the traceback tests: a random contig (seq, ref, m bases)
 * and a read cut from it (qc, n bases), scored by trace_schemes[rep % 8].
 * The read is a piece of the contig (often its start) mutated at a
 * per-case rate of up to 1 in 4.  Returns 0, or -1 (checked) when the
 * reference could not be made. */
static int trace_case(int rep, char **seq, sm_ref_t **ref, uint8_t *qc, sm_query_t *q)
{
	static const int lens[] = { 1, 2, 15, 16, 17, 31, 33, 100, 151, 250, 600 };
	int n = lens[rep % 11], m = 1 + (int)rnd(2500), from, k = 0;
	const char *name = "c0", *sp;
	char qs[1100];

	*seq = xmalloc((size_t)m + 1);
	random_seq(*seq, m, rep % 7 == 0 ? 5 : 0);
	sp = *seq;
	from = rep % 3 == 0 ? 0 : (int)rnd((uint32_t)m);
	for (int t = from; t < m && k < n; t++) {
		int what = (int)rnd(100), rate = rep % 26;
		if (what < rate / 3 + 1 && rnd(2))
			continue;   /* deletion from the read */
		if (what < rate / 3 + 1)
			qs[k++] = "ACGT"[rnd(4)];   /* insertion */
		if (k < n)
			qs[k++] = what < rate ? "ACGTN"[rnd(5)] : (*seq)[t];
	}
	while (k < n)
		qs[k++] = "ACGT"[rnd(4)];
	q->seq = qc;
	q->len = n;
	for (int t = 0; t < n; t++)
		qc[t] = sm_nt4_table[(uint8_t)qs[t]];
	if (sm_ref_from_strings(1, &name, &sp, ref) < 0) {
		CHECK(0, "sm_ref_from_strings failed");
		free(*seq);
		return -1;
	}
	return 0;
}

static int same_aln(int ra, const sm_aln_t *a, int rb, const sm_aln_t *b)
{
	return ra == rb && (ra < 0 ||
		(a->score == b->score && a->ref_start == b->ref_start && a->ref_end == b->ref_end &&
		 a->q_start == b->q_start && a->q_end == b->q_end && a->n_cigar == b->n_cigar &&
		 !memcmp(a->cigar, b->cigar, (size_t)a->n_cigar * sizeof *a->cigar)));
}

/* A way of tracing a locus, checked against the scalar sm_align: what
 * sm_align returns, the alignment in out. */
typedef int (*trace_fn)(void *arg, const sm_ref_t *ref, const sm_score_t *sc,
			const sm_query_t *q, int64_t end, int32_t score, int rep, sm_aln_t *out);

/* Traces every locus the oracle lists for the 800 cases of trace_case
 * with the scalar sm_align and with fn; *traced counts the loci, *failed
 * the scalar failures; returns how many differ (the first 5 reported). */
static int traces_against_scalar(const char *what, trace_fn fn, void *arg, int *traced,
				 int *failed)
{
	sm_align_ws_t *scalar = sm_align_ws_create(SM_CPU_ISA_SCALAR);
	int differ = 0;

	*traced = *failed = 0;
	for (int rep = 0; rep < 800; rep++) {
		const sm_score_t *sc = &trace_schemes[rep % 8];
		char *seq;
		uint8_t qc[1100];
		sm_query_t q;
		sm_ref_t *ref;
		sm_scan_t loci;

		if (trace_case(rep, &seq, &ref, qc, &q) < 0)
			continue;
		sm_scan_oracle(ref, sc, &q, &loci);
		for (int t = 0; t < loci.n; t++) {
			sm_aln_t a = { 0 }, b = { 0 };
			int ra = sm_align(scalar, ref, sc, &q, loci.top[t].end, loci.top[t].score, &a);
			int rb = fn(arg, ref, sc, &q, loci.top[t].end, loci.top[t].score, rep, &b);

			(*traced)++;
			*failed += ra < 0;
			if (!same_aln(ra, &a, rb, &b) && differ++ < 5)
				CHECK(0, "%s and the scalar traceback differ: n=%d m=%lld scheme %d, "
				      "%d@%lld: rc %d/%d score %d/%d start %lld/%lld q %d-%d/%d-%d "
				      "cigars %d/%d", what, q.len, (long long)ref->total, rep % 8,
				      loci.top[t].score, (long long)loci.top[t].end, ra, rb, a.score,
				      b.score, (long long)a.ref_start, (long long)b.ref_start, a.q_start,
				      a.q_end, b.q_start, b.q_end, a.n_cigar, b.n_cigar);
			sm_aln_free(&a);
			sm_aln_free(&b);
		}
		sm_ref_destroy(ref);
		free(seq);
	}
	sm_align_ws_destroy(scalar);
	return differ;
}

static int trace_ws(void *arg, const sm_ref_t *ref, const sm_score_t *sc, const sm_query_t *q,
		    int64_t end, int32_t score, int rep, sm_aln_t *out)
{
	return sm_align(arg, ref, sc, q, end, score, out);
}

static void fills_against_scalar(sm_cpu_isa_t isa, const char *name)
{
	sm_align_ws_t *simd = sm_align_ws_create(isa);
	int traced, failed, differ;

	if (!sm_cpu_isa_supported(isa)) {
		printf("skip band fill %s vs scalar: this CPU has no %s\n", name, name);
		sm_align_ws_destroy(simd);
		return;
	}
	differ = traces_against_scalar(name, trace_ws, simd, &traced, &failed);
	CHECK(differ == 0 && failed == 0 && traced > 1000 && sm_align_ws_stats(simd).ungapped > 100,
	      "band fill: %s and scalar give the same %d tracebacks (%d differ, %d failed; "
	      "%lld ungapped ones traced without a fill)", name, traced, differ, failed,
	      (long long)sm_align_ws_stats(simd).ungapped);
	/* Every fill up to isa ran (each takes the bands up to twice its
	 * vector's cells, the widest every wider band), and the scalar one
	 * took the bands over the SIMD fills' widest. */
	{
		sm_align_stats_t st = sm_align_ws_stats(simd);
		int all = st.fills[SM_CPU_ISA_SCALAR] > 0;

		for (int k = SM_CPU_ISA_SSE41; k <= (int)isa; k++)
			all &= st.fills[k] > 0;
		CHECK(all, "band fill: %s ran every fill up to its own (scalar %lld, SSE4.1 %lld, "
		      "AVX2 %lld, AVX-512 %lld)", name, (long long)st.fills[SM_CPU_ISA_SCALAR],
		      (long long)st.fills[SM_CPU_ISA_SSE41], (long long)st.fills[SM_CPU_ISA_AVX2],
		      (long long)st.fills[SM_CPU_ISA_AVX512]);
	}
	sm_align_ws_destroy(simd);
}

/* sm_align() in halves (sm_align_prepare, trace_band.h's sm_tb_run on this
 * thread, sm_align_finish), as an engine's batched tracebacks run it; with
 * `lay` the decision rows 5 bytes wider than the band.  *path counts what
 * the halves did: [0] traced by prepare, [1] filled, [2] handed back to
 * sm_align(). */
static int align_halves(sm_align_ws_t *ws, const sm_ref_t *ref, const sm_score_t *sc,
			const sm_query_t *q, int64_t end, int32_t score, sm_aln_t *out,
			int lay, int path[3])
{
	sm_tb_job_t job;
	sm_tb_score_t ts;
	sm_tb_res_t res;
	uint32_t ops[SM_TB_MAX_OPS];
	int64_t start;
	int rc = sm_align_prepare(ws, ref, sc, q, end, score, out, &job, &start);
	size_t S, pitch;
	int32_t *hrow, *frow;
	uint8_t *dir;

	if (rc == SM_ALIGN_DONE || rc < 0) {
		path[0]++;
		return rc < 0 ? -1 : 0;
	}
	if (rc == SM_ALIGN_JOB) {
		S = (size_t)sm_tb_stride(&job);
		pitch = S + (lay ? 5 : 0);
		hrow = xmalloc(S * sizeof *hrow);
		frow = xmalloc(S * sizeof *frow);
		dir = xmalloc((size_t)q->len * pitch + 1);
		ts = sm_tb_score(sc);
		sm_tb_run(&job, &ts, q->seq, ref->seq + start, hrow, frow, dir, pitch, ops, &res);
		rc = sm_align_finish(ws, ref, sc, q, start, &job, &res, ops, out);
		free(hrow);
		free(frow);
		free(dir);
		if (rc != SM_ALIGN_SELF) {
			path[1]++;
			return rc < 0 ? -1 : 0;
		}
	}
	path[2]++;
	return sm_align(ws, ref, sc, q, end, score, out);
}

/* The halves against the scalar sm_align() on the cases of the fill
 * tests: the same score, coordinates and CIGAR for every locus the oracle
 * lists, most of them through a batched fill, some through each other
 * path (ungapped ones traced by prepare; CIGARs longer than SM_TB_MAX_OPS
 * handed back). */
/* align_halves for traces_against_scalar: arg is a halves_t. */
typedef struct {
	sm_align_ws_t *ws;
	int path[3];
} halves_t;

static int trace_halves(void *arg, const sm_ref_t *ref, const sm_score_t *sc, const sm_query_t *q,
			int64_t end, int32_t score, int rep, sm_aln_t *out)
{
	halves_t *h = arg;

	return align_halves(h->ws, ref, sc, q, end, score, out, rep & 1, h->path);
}

static void halves_against_scalar(void)
{
	halves_t h = { sm_align_ws_create(SM_CPU_ISA_AUTO), { 0, 0, 0 } };
	int traced, failed, differ = traces_against_scalar("batched", trace_halves, &h, &traced,
							   &failed);
	const int *path = h.path;

	CHECK(differ == 0 && failed == 0 && traced > 1000 && path[0] > 100 && path[1] > 1000 &&
	      path[2] > 0,
	      "batched tracebacks: the same %d as the scalar sm_align (%d differ, %d failed; "
	      "%d traced by prepare, %d filled, %d handed back)", traced, differ, failed, path[0],
	      path[1], path[2]);
	sm_align_ws_destroy(h.ws);
}

/* One gapped alignment at the 16-bit fills' limits, traced by the scalar
 * and the isa workspaces: a read of n bases copied from a random contig at
 * 100, less the base at n / 2 (one deletion) and with `mism` mismatches
 * (every 97 bases from 50), so its score, the end in the last copied
 * column, is the scheme's for n - mism matches, mism mismatches, one gap
 * base and the 5' bonus.  want_simd: 1 if the 16-bit fill should take it
 * (counted in the isa workspace's fills), 0 if the scalar one should. */
static void fill_at_limit(sm_cpu_isa_t isa, const char *name, const sm_score_t *sc, int n,
			  int mism, int want_simd)
{
	const int m = n + 300, from = 100;
	char *seq = xmalloc((size_t)m + 1);
	uint8_t *qc = xmalloc((size_t)n);
	const char *cname = "c0", *sp = seq;
	sm_align_ws_t *scalar = sm_align_ws_create(SM_CPU_ISA_SCALAR);
	sm_align_ws_t *simd = sm_align_ws_create(isa);
	sm_aln_t a = { 0 }, b = { 0 };
	int32_t score = (n - mism) * sc->match - mism * sc->mismatch - sc->gap_open - sc->gap_ext +
			sc->clip5 + sc->clip3;
	int64_t end = from + n;   /* n + 1 reference bases, one deleted from the read */
	sm_ref_t *ref;
	int ra, rb, k = 0;

	random_seq(seq, m, 0);
	for (int t = from; k < n; t++) {
		if (t == from + n / 2)
			continue;
		qc[k] = sm_nt4_table[(uint8_t)seq[t]];
		if (k % 97 == 50 && k / 97 < mism)
			qc[k] = (qc[k] + 1) & 3;
		k++;
	}
	if (sm_ref_from_strings(1, &cname, &sp, &ref) < 0) {
		CHECK(0, "sm_ref_from_strings failed");
	} else {
		sm_query_t q = { qc, n };
		sm_align_stats_t st;

		ra = sm_align(scalar, ref, sc, &q, end, score, &a);
		rb = sm_align(simd, ref, sc, &q, end, score, &b);
		st = sm_align_ws_stats(simd);
		CHECK(ra == 0 && rb == 0 && a.score == b.score && a.ref_start == b.ref_start &&
		      a.q_start == b.q_start && a.q_end == b.q_end && a.n_cigar == 3 &&
		      a.n_cigar == b.n_cigar &&
		      !memcmp(a.cigar, b.cigar, (size_t)a.n_cigar * sizeof *a.cigar) &&
		      bam_cigar_op(a.cigar[1]) == BAM_CDEL &&
		      st.fills[SM_CPU_ISA_SCALAR] == !want_simd,
		      "band fill at the limits: %s (%s fill) and scalar agree, n=%d, score %d: "
		      "rc %d/%d, cigars %d/%d", name, want_simd ? "16-bit" : "scalar", n, score,
		      ra, rb, a.n_cigar, b.n_cigar);
		sm_ref_destroy(ref);
	}
	sm_aln_free(&a);
	sm_aln_free(&b);
	sm_align_ws_destroy(scalar);
	sm_align_ws_destroy(simd);
	free(qc);
	free(seq);
}

/* The 16-bit fills' limits (align.c's wave_lanes) on each side: a read
 * whose best score n * match + clip5 is just below 32,767 less twice the
 * largest match (cells near the top of int16_t) and just above it; steps
 * and columns n + 2 * lanes + |dlo| just below 16,384 and just above, with
 * a band of 111 offsets (64 lanes on AVX2 and AVX-512, 56 on SSE4.1). */
static void fills_at_limits(sm_cpu_isa_t isa, const char *name)
{
	static const sm_score_t high = { 54, 60, 80, 30, 73, 0 }, bwa = { 1, 4, 6, 1, 0, 0 };

	if (!sm_cpu_isa_supported(isa))
		return;
	fill_at_limit(isa, name, &high, 600, 5, 1);    /* 600 * 54 + 73 = 32,473 */
	fill_at_limit(isa, name, &high, 604, 5, 0);    /* 32,689 */
	fill_at_limit(isa, name, &bwa, 16200, 10, 1);  /* 16,200 + 128 */
	fill_at_limit(isa, name, &bwa, 16300, 10, 0);  /* 16,300 + 112 */
}

/* The SSE4.1 fill (8 cells per vector), the AVX2 one (16) that takes the
 * bands wider than 16 offsets, and the AVX-512 one (32) that takes the
 * widest, each where the CPU has it. */
static void test_fills(void)
{
	fills_against_scalar(SM_CPU_ISA_SSE41, "SSE4.1");
	fills_against_scalar(SM_CPU_ISA_AVX2, "AVX2");
	fills_against_scalar(SM_CPU_ISA_AVX512, "AVX-512");
	fills_at_limits(SM_CPU_ISA_SSE41, "SSE4.1");
	fills_at_limits(SM_CPU_ISA_AVX2, "AVX2");
	fills_at_limits(SM_CPU_ISA_AVX512, "AVX-512");
	halves_against_scalar();
}

/* Offering columns in any order, or merging parts, gives the same list. */
static void test_merge(void)
{
	for (int rep = 0; rep < 200; rep++) {
		int shift = 6 + (int)rnd(3), m = 1 + (int)rnd(3000), parts = 1 + (int)rnd(5);
		int32_t *score = malloc((size_t)m * sizeof *score);
		sm_scan_t whole = { 0 }, part[5] = { { 0 } }, merged = { 0 };

		for (int j = 0; j < m; j++)
			score[j] = (int32_t)rnd(12);  /* many ties */
		for (int j = 0; j < m; j++)
			sm_scan_offer(&whole, shift, score[j], j);
		for (int k = 0; k < m; k++) {   /* a random order, split at random */
			int j = (int)((k * 7919ull + (uint64_t)rep) % (uint64_t)m);
			if (m % 7919 == 0)
				j = k;
			sm_scan_offer(&part[rnd((uint32_t)parts)], shift, score[j], j);
		}
		for (int p = 0; p < parts; p++)
			sm_scan_merge(&merged, &part[p], shift);
		CHECK(sm_scan_equal(&whole, &merged), "merge order dependence (m=%d parts=%d)", m, parts);
		free(score);
	}
}

int main(void)
{
	const sm_score_t bwa = { 1, 4, 6, 1, 0, 0 }, other = { 2, 3, 5, 2, 0, 0 }, paper = { 1, 2, 4, 1, 0, 0 };
	unit_begin("scan");

	test_merge();
	test_fills();
	for (int rep = 0; rep < 300; rep++) {
		const sm_score_t *sc = rep % 3 == 0 ? &bwa : rep % 3 == 1 ? &other : &paper;
		one_case(1 + (int)rnd(4), 1 + (int)rnd(200), 1 + (int)rnd(60), sc,
			 rep % 5 == 0 ? 20 : 0, rep % 2);
	}
	for (int rep = 0; rep < 10; rep++)   /* reads past the 64-column minimum bin */
		one_case(2, 600, 65 + (int)rnd(200), &bwa, 1, 1);
	/* Edge cases: a read longer than the reference, one-base contigs. */
	one_case(3, 1, 30, &bwa, 0, 1);
	one_case(1, 5, 50, &other, 0, 1);
	/* Clipping penalties (-L) that keep, force and forbid clipping, against
	 * the brute force's independent formulation (brute_anchored). */
	{
		static const sm_score_t clip[] = {
			{ 1, 4, 6, 1, 5, 5 }, { 1, 4, 6, 1, 1, 1 }, { 1, 4, 6, 1, 30, 30 },
			{ 1, 4, 6, 1, 0, 9 }, { 2, 3, 5, 2, 9, 0 }, { 1, 2, 4, 1, 20, 3 },
			{ 1, 4, 0, 1, 126, 126 },
		};
		for (int rep = 0; rep < 350; rep++)
			one_case(1 + (int)rnd(4), 1 + (int)rnd(200), 1 + (int)rnd(60), &clip[rep % 7],
				 rep % 5 == 0 ? 20 : 0, rep % 3 != 0);
	}
	return unit_end();
}
