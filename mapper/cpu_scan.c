/* cpu_scan.c — the CPU scan: ISA detection and dispatch, the compiled
 * scoring, workspaces and the scalar fallback of the tiled algorithm.
 * The SIMD kernels are in cpu_scan_simd.h (one source, three ISAs). */
#include <stdlib.h>
#include <string.h>

#include "io/log.h"
#include "mapper/cpu_scan_impl.h"

static const char *const isa_names[] = {
	[SM_CPU_ISA_AUTO] = "auto",
	[SM_CPU_ISA_SCALAR] = "scalar",
	[SM_CPU_ISA_SSE41] = "sse41",
	[SM_CPU_ISA_AVX2] = "avx2",
	[SM_CPU_ISA_AVX512] = "avx512",
};
#define N_ISA ((int)(sizeof(isa_names) / sizeof(isa_names[0])))

static const sm_cpu_kernel_fn isa_kernels[] = {
	[SM_CPU_ISA_SSE41] = sm_cpu_kernel_sse41,
	[SM_CPU_ISA_AVX2] = sm_cpu_kernel_avx2,
	[SM_CPU_ISA_AVX512] = sm_cpu_kernel_avx512,
};

int sm_cpu_isa_supported(sm_cpu_isa_t isa)
{
	__builtin_cpu_init();
	switch (isa) {
	case SM_CPU_ISA_AUTO:
	case SM_CPU_ISA_SCALAR:
		return 1;
	case SM_CPU_ISA_SSE41:
		return __builtin_cpu_supports("sse4.1") != 0;
	case SM_CPU_ISA_AVX2:
		return __builtin_cpu_supports("avx2") != 0;
	case SM_CPU_ISA_AVX512:
		return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw");
	}
	return 0;
}

sm_cpu_isa_t sm_cpu_isa_best(void)
{
	for (int isa = SM_CPU_ISA_AVX512; isa > SM_CPU_ISA_SCALAR; isa--)
		if (sm_cpu_isa_supported((sm_cpu_isa_t)isa))
			return (sm_cpu_isa_t)isa;
	return SM_CPU_ISA_SCALAR;
}

const char *sm_cpu_isa_name(sm_cpu_isa_t isa)
{
	return (int)isa >= 0 && (int)isa < N_ISA ? isa_names[isa] : "unknown";
}

int sm_cpu_isa_parse(const char *name, sm_cpu_isa_t *isa)
{
	if (!name) {
		*isa = SM_CPU_ISA_AUTO;
		return 0;
	}
	for (int k = 0; k < N_ISA; k++)
		if (strcmp(name, isa_names[k]) == 0) {
			*isa = (sm_cpu_isa_t)k;
			return 0;
		}
	sm_log(SM_LOG_ERROR, "unknown CPU instruction set '%s' (expected auto, scalar, "
	       "sse41, avx2 or avx512)", name);
	return -1;
}

/* Bit k set: cells of 8 << k bits may be used.  32-bit cells always are. */
static int allowed_widths(sm_cpu_isa_t isa, sm_cells_t cells)
{
	if (isa == SM_CPU_ISA_SCALAR)
		return 4;
	switch (cells) {
	case SM_CELLS_8: return 1 | 4;
	case SM_CELLS_16: return 2 | 4;
	case SM_CELLS_32: return 4;
	case SM_CELLS_AUTO: break;
	}
	return 1 | 2 | 4;
}

static int grow_rows(sm_cpu_scan_t *ws, int32_t n)
{
	if (n <= ws->cap_rows)
		return 0;
	int32_t *hb = realloc(ws->hb, sizeof(*hb) * ((size_t)n + 1));
	if (!hb)
		goto oom;
	ws->hb = hb;
	int32_t *eb = realloc(ws->eb, sizeof(*eb) * ((size_t)n + 1));
	if (!eb)
		goto oom;
	ws->eb = eb;
	/* The read's codes padded to whole stripes, plus one vector read past
	 * the last stripe (cpu_scan_simd.h, "Short contigs"): n + 2 L bytes. */
	uint8_t *dq = realloc(ws->dq, (size_t)n + 2 * SM_CPU_ALIGN);
	if (!dq)
		goto oom;
	ws->dq = dq;
	ws->cap_rows = n;
	return 0;
oom:
	sm_log(SM_LOG_ERROR, "out of memory for a CPU workspace of %d rows", (int)n);
	return -1;
}

/* AUTO becomes the widest ISA of this CPU; an ISA it lacks is an error. */
static int resolve_isa(sm_cpu_isa_t *isa)
{
	if (*isa == SM_CPU_ISA_AUTO)
		*isa = sm_cpu_isa_best();
	if (!sm_cpu_isa_supported(*isa)) {
		sm_log(SM_LOG_ERROR, "this CPU does not support the '%s' instruction set",
		       sm_cpu_isa_name(*isa));
		return -1;
	}
	return 0;
}

sm_cpu_scan_t *sm_cpu_scan_create(sm_cpu_isa_t isa, sm_cells_t cells, const sm_cpu_score_t *k,
				  int max_query_len)
{
	if (resolve_isa(&isa) < 0)
		return NULL;
	sm_cpu_scan_t *ws = calloc(1, sizeof(*ws));
	if (!ws) {
		sm_log(SM_LOG_ERROR, "out of memory for a CPU workspace");
		return NULL;
	}
	ws->isa = isa;
	ws->sc = k;
	ws->allowed = allowed_widths(isa, cells) & k->allowed;
	ws->kernel = SM_CPU_KERNEL_AUTO;
	/* sref, CODES profile rows, and H, F, column maxima at 1, 2, 4 bytes;
	 * the anti-diagonal kernel's reversed contig and 2 x 3 boundary rows
	 * of 4-byte elements. */
	const size_t tile = SM_CPU_TILE_COLS;
	const size_t drow = (tile + SM_CPU_DIAG_MARGIN) * sizeof(int32_t);
	size_t total = tile * (1 + SM_CPU_N_PROF) + 2 * SM_CPU_STAGGER;
	for (int k = 0; k < SM_CPU_N_WIDTHS; k++)
		total += 3 * ((tile << k) + SM_CPU_STAGGER);
	total += tile + SM_CPU_DIAG_MARGIN + SM_CPU_STAGGER + 6 * (drow + SM_CPU_STAGGER);
	void *mem = NULL;
	if (posix_memalign(&mem, SM_CPU_ALIGN, total) != 0) {
		sm_log(SM_LOG_ERROR, "out of memory for a CPU workspace");
		free(ws);
		return NULL;
	}
	ws->mem = mem;
	uint8_t *p = ws->mem;
	ws->sref = p;
	p += tile + SM_CPU_STAGGER;
	ws->prof = p;
	p += tile * SM_CPU_N_PROF + SM_CPU_STAGGER;
	for (int k = 0; k < SM_CPU_N_WIDTHS; k++) {
		ws->hp[k] = p;
		p += (tile << k) + SM_CPU_STAGGER;
		ws->f[k] = p;
		p += (tile << k) + SM_CPU_STAGGER;
		ws->cm[k] = p;
		p += (tile << k) + SM_CPU_STAGGER;
	}
	ws->drev = p;
	p += tile + SM_CPU_DIAG_MARGIN + SM_CPU_STAGGER;
	for (int par = 0; par < 2; par++)
		for (int b = 0; b < 3; b++) {
			ws->dbuf[par][b] = p;
			p += drow + SM_CPU_STAGGER;
		}
	if (grow_rows(ws, max_query_len > 0 ? max_query_len : 1) != 0) {
		sm_cpu_scan_destroy(ws);
		return NULL;
	}
	return ws;
}

sm_cpu_isa_t sm_cpu_scan_isa(const sm_cpu_scan_t *ws)
{
	return ws->isa;
}

void sm_cpu_scan_set_kernel(sm_cpu_scan_t *ws, sm_cpu_kernel_t kernel)
{
	ws->kernel = kernel;
}

void sm_cpu_scan_destroy(sm_cpu_scan_t *ws)
{
	if (!ws)
		return;
	free(ws->hb);
	free(ws->eb);
	free(ws->dq);
	free(ws->mem);
	free(ws);
}

static int32_t max32(int32_t a, int32_t b)
{
	return a > b ? a : b;
}

/* The scalar fallback: the same tiles, boundaries and recurrence as the
 * SIMD kernels (cpu_scan_simd.h) with one segment per tile, one cell at a
 * time in 32-bit. */
static int scan_scalar(sm_cpu_scan_t *ws, const sm_ref_t *ref, const sm_query_t *q,
		       sm_scan_t *out, sm_engine_stats_t *st)
{
	const sm_cpu_score_t *sc = ws->sc;
	const int shift = sm_locus_shift(&sc->score, q->len);
	const int wide = SM_CPU_N_WIDTHS - 1;
	int32_t *hp = (int32_t *)(void *)ws->hp[wide];
	int32_t *f = (int32_t *)(void *)ws->f[wide];
	int32_t *cm = (int32_t *)(void *)ws->cm[wide];
	const int32_t e_ext = sc->gap_ext, oe = sc->gap_open + sc->gap_ext;
	uint64_t cells = 0;

	out->n = 0;
	for (int32_t c = 0; c < ref->n_contig; c++) {
		const uint8_t *seq = ref->seq + ref->offset[c];
		memset(ws->hb, 0, sizeof(*ws->hb) * ((size_t)q->len + 1));
		memset(ws->eb, 0, sizeof(*ws->eb) * ((size_t)q->len + 1));
		for (int64_t off = 0; off < ref->len[c]; off += SM_CPU_TILE_COLS) {
			int64_t left = ref->len[c] - off;
			int cols = left < SM_CPU_TILE_COLS ? (int)left : SM_CPU_TILE_COLS;
			const uint8_t *ts = seq + off;
			int32_t hin = 0;
			memset(hp, 0, sizeof(*hp) * (size_t)cols);
			memset(f, 0, sizeof(*f) * (size_t)cols);
			memset(cm, 0, sizeof(*cm) * (size_t)cols);
			for (int32_t i = 1; i <= q->len; i++) {
				uint8_t code = q->seq[i - 1] < SM_BASE_N ? q->seq[i - 1] : SM_BASE_N;
				const int8_t *lut = i == 1 ? ws->lut1 : sc->lut[code];
				/* Along the row the scan form keeps the dependency chain
				 * short: s = E~ = max(H~, E~ - E), H = max(H~, E~ - O).
				 * E(i, j) = E~(i, j-1) - O - E; a zero E from the left
				 * means an E~ that no cell can use. */
				int32_t diag = hin, s = ws->eb[i] > 0 ? ws->eb[i] + oe : 0;
				for (int j = 0; j < cols; j++) {
					int32_t up = hp[j];
					int32_t ht = max32(max32(0, diag + lut[ts[j]]), f[j]);
					s = max32(ht, s - e_ext);
					int32_t h = max32(ht, s - sc->gap_open);
					f[j] = max32(f[j] - e_ext, h - oe);
					hp[j] = h;
					cm[j] = max32(cm[j], h);
					diag = up;
				}
				hin = ws->hb[i];
				ws->hb[i] = hp[cols - 1];
				ws->eb[i] = max32(s - oe, 0);
			}
			cells += (uint64_t)cols * (uint64_t)q->len;
			/* hp holds the last row: the 3' bonus (scan.h). */
			for (int j = 0; j < cols; j++)
				if (hp[j] > 0)
					cm[j] = max32(cm[j], hp[j] + sc->clip3);
			for (int j = 0; j < cols; j++)
				sm_cpu_offer(out, shift, cm[j], ref->offset[c] + off + j);
		}
	}
	if (st) {
		st->cells += cells;
		st->cells_w[wide] += cells;
		st->queries++;
	}
	return 0;
}

/* Largest score a lane may have to hold: every column maximum is <=
 * n * match + clip5 + clip3 (sm_best_possible()). */
#define SM_CPU_SCORE_LIMIT (INT32_MAX / 2)

sm_cpu_score_t *sm_cpu_score_create(const sm_score_t *sc)
{
	sm_cpu_score_t *k = calloc(1, sizeof *k);

	if (!k) {
		sm_log(SM_LOG_ERROR, "out of memory for the CPU engine's scoring tables");
		return NULL;
	}
	k->score = *sc;
	k->match = sc->match;
	k->gap_open = sc->gap_open;
	k->gap_ext = sc->gap_ext;
	k->clip5 = sc->clip5;
	k->clip3 = sc->clip3;
	k->n_prof = sc->clip5 ? SM_CPU_N_PROF : SM_CPU_N_CODES;
	/* 8-bit lanes subtract O + E in one saturating instruction. */
	k->allowed = sc->gap_open + sc->gap_ext > INT8_MAX ? ~1 : ~0;
	for (int qc = 0; qc < SM_CPU_N_CODES; qc++)
		for (int rc = 0; rc < SM_CPU_N_CODES; rc++) {
			k->lut[qc][rc] = (int8_t)sm_subst(sc, (uint8_t)rc, (uint8_t)qc);
			k->lut1[qc][rc] = (int8_t)sm_subst_first(sc, (uint8_t)rc, (uint8_t)qc);
		}
	/* xtab5: the bonus against a reference base, whatever the read's
	 * (indices 0-3 and 8-11); nothing against a reference N (4-7, 12). */
	for (int t = 0; t < 16; t++)
		k->xtab5[t] = (int8_t)((t & 7) < SM_BASE_N && t <= SM_CPU_XOR_N + 3 ? sc->clip5 : 0);
	/* The anti-diagonal kernel's table: x(q) ^ r is 0 for a match, 1-3 for
	 * a mismatch, 4-7 for a reference N and 8-12 for a read N.  It gives the
	 * same scores as lut as long as sm_subst() has that shape (checked). */
	for (int t = 0; t < 16; t++)
		k->xtab[t] = t < SM_BASE_N ? k->lut[0][t] :
			t < SM_CPU_XOR_N ? k->lut[0][SM_BASE_N] : k->lut[SM_BASE_N][0];
	/* Padding rows and columns (read and reference N) must stay at 0. */
	k->xtab_ok = k->lut[0][SM_BASE_N] <= 0 && k->lut[SM_BASE_N][0] <= 0;
	for (int qc = 0; qc < SM_CPU_N_CODES; qc++)
		for (int rc = 0; rc < SM_CPU_N_CODES; rc++) {
			int x = qc < SM_BASE_N ? qc : SM_CPU_XOR_N;
			k->xtab_ok &= k->xtab[x ^ rc] == k->lut[qc][rc];
		}
	return k;
}

void sm_cpu_score_destroy(sm_cpu_score_t *k)
{
	free(k);
}

/* Largest score a lane may have to hold: every column maximum is <=
 * n * match + clip5 + clip3 (sm_best_possible()). */
#define SM_CPU_SCORE_LIMIT (INT32_MAX / 2)

int sm_cpu_scan(sm_cpu_scan_t *ws, const sm_ref_t *ref, const sm_query_t *q, sm_scan_t *out,
		sm_engine_stats_t *st)
{
	const sm_score_t *sc = &ws->sc->score;

	out->n = 0;
	if (sm_best_possible(sc, q->len) + sc->match > SM_CPU_SCORE_LIMIT) {
		sm_log(SM_LOG_ERROR, "query of length %d: scores could exceed %d with match "
		       "score %d", (int)q->len, SM_CPU_SCORE_LIMIT, sc->match);
		return -1;
	}
	if (grow_rows(ws, q->len) != 0)
		return -1;
	/* Codes above N are N (io/base.h). */
	ws->lut1 = ws->sc->lut1[q->seq[0] < SM_BASE_N ? q->seq[0] : SM_BASE_N];
	if (ws->isa == SM_CPU_ISA_SCALAR)
		return scan_scalar(ws, ref, q, out, st);
	return isa_kernels[ws->isa](ws, ref, q, out, st);
}
