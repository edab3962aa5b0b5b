/* test_trace_rows.c — the GPU traceback kernel's row formulation against
 * the scalar fill, without a GPU.
 *
 * gpu/gpu_trace.cu's trace_job fills a band a warp at a time: lane l holds
 * M consecutive offsets of a row, and the row's E recurrence runs as a
 * max-plus scan of the lanes' carry functions (E_out = max(E_in - a, b)).
 * Here the same steps run lane by lane on the host (each step of the
 * kernel for all 32 lanes before the next, as the warp's shuffles order
 * them), and every decision byte and the end row must equal
 * trace_band.h's sm_tb_run's on random jobs: scores, gap costs with
 * go == ge among them, clipping bonuses, N bases, bands from 1 to 900
 * offsets (every M class), windows that end inside the band.  A change to
 * the scalar fill's decisions that the kernel does not follow fails here;
 * the kernel itself runs in test_gpu_trace (GPU machines). */
#include "tests/unit/unit.h"

#include "gpu/gpu_trace.h"
#include "mapper/trace_band.h"

#define LANES 32
#define MAX_M 32
#define CUT (1 << 30)   /* trace_job's TRACE_CUT */

/* One lane's registers in trace_job. */
typedef struct {
	int32_t hp[MAX_M], fp[MAX_M], ht[MAX_M], fv[MAX_M], dg[MAX_M];
	uint32_t wr[MAX_M], dd[MAX_M], fo, cut;
	int32_t a, b, hl, el, i_end;
} lane_t;

static uint32_t code_at(const sm_tb_job_t *j, const uint8_t *win, int32_t col)
{
	return col >= 1 && col <= j->w ? win[col - 1] : SM_BASE_N;
}

/* The kernel's fill of job j with M cells a lane: decision bytes of cell
 * (i, k) at dir[(i - 1) * (32 M + 1) + k]; returns the end row (0: none). */
static int32_t rows_fill(const sm_tb_job_t *j, const sm_tb_score_t *sc, const uint8_t *q,
			 const uint8_t *win, int M, lane_t *L, uint8_t *dir)
{
	const int32_t S = sm_tb_stride(j), P = 32 * M + 1, NEG = SM_TB_NEG;
	const int32_t go = sc->go, ge = sc->ge;
	int32_t i_end = 0;

	for (int l = 0; l < LANES; l++) {
		L[l].i_end = 0;
		for (int x = 0; x < M; x++) {
			L[l].hp[x] = 0;
			L[l].fp[x] = NEG;
			L[l].wr[x] = code_at(j, win, j->dlo + 1 + l * M + x);
		}
	}
	for (int32_t i = 1; i <= j->n; i++) {
		int32_t uh[LANES], uf[LANES], pa[LANES], pb[LANES];

		for (int l = 0; l < LANES; l++) {   /* __shfl_down_sync(hp[0], fp[0]) */
			uh[l] = L[l < LANES - 1 ? l + 1 : l].hp[0];
			uf[l] = L[l < LANES - 1 ? l + 1 : l].fp[0];
		}
		for (int l = 0; l < LANES; l++) {
			lane_t *t = &L[l];
			const int32_t k0 = 1 + l * M, col0 = i + j->dlo + k0 - 1;

			t->a = 0;
			t->b = NEG;
			t->fo = t->cut = 0;
			for (int x = 0; x < M; x++) {
				const int32_t col = col0 + x;
				const int in = k0 + x <= S - 2 && col >= 1 && col <= j->w;
				const int last = l == LANES - 1;
				const int32_t hu = x + 1 < M ? t->hp[x + 1] : last ? 0 : uh[l];
				const int32_t fu = x + 1 < M ? t->fp[x + 1] : last ? NEG : uf[l];
				const int32_t diag = t->hp[x] +
						     sm_tb_subst(sc, (uint8_t)t->wr[x], q[i - 1], i == 1);
				int32_t f = fu - ge, h;

				if (hu - go > f) {
					f = hu - go;
					t->fo |= 1u << x;
				}
				h = diag > f ? diag : f;
				h = h > 0 ? h : 0;
				if (!in) {
					h = 0;
					f = NEG;
					t->cut |= 1u << x;
					t->a = CUT;
					t->b = -go;
				} else {
					t->a = t->a >= CUT - ge ? CUT : t->a + ge;
					t->b = t->b - ge > h - go ? t->b - ge : h - go;
				}
				t->ht[x] = h;
				t->fv[x] = f;
				t->dg[x] = diag;
			}
		}
		for (int s = 1; s < LANES; s <<= 1) {   /* the inclusive scan */
			for (int l = 0; l < LANES; l++) {
				pa[l] = L[l >= s ? l - s : l].a;
				pb[l] = L[l >= s ? l - s : l].b;
			}
			for (int l = s; l < LANES; l++) {
				lane_t *t = &L[l];

				t->b = pb[l] - t->a > t->b ? pb[l] - t->a : t->b;
				t->a = pa[l] >= CUT - t->a ? CUT : pa[l] + t->a;
			}
		}
		for (int l = LANES - 1; l >= 0; l--) {   /* E of each lane's first cell */
			const int32_t ea = L[l ? l - 1 : 0].a, eb = L[l ? l - 1 : 0].b;
			lane_t *t = &L[l];
			const int32_t col0 = i + j->dlo + l * M;
			int32_t e = l == 0 ? -go : (-go - ea > eb ? -go - ea : eb), open = 0;

			for (int x = 0; x < M; x++) {
				const int32_t ev = e;
				int32_t hv;

				if (t->cut >> x & 1) {
					hv = 0;
					t->el = NEG;
					t->dd[x] = 0;
				} else {
					hv = t->ht[x] > ev ? t->ht[x] : ev;
					t->el = ev;
					t->dd[x] = (hv == 0 ? 0 : hv == t->dg[x] ? 1 :
						    hv == ev ? 2 : 3) |
						   (open ? 4 : 0) | (t->fo >> x & 1 ? 8 : 0);
					if (col0 + x == j->w && !t->i_end &&
					    (i == j->n && hv > 0 ? hv + sc->clip3 : hv) == j->score)
						t->i_end = i;
				}
				t->hl = hv;
				open = t->hl - go > t->el - ge;
				e = t->el - ge > t->hl - go ? t->el - ge : t->hl - go;
				t->hp[x] = hv;
				t->fp[x] = t->fv[x];
			}
		}
		for (int l = LANES - 1; l >= 0; l--) {   /* bit 2 of each lane's first cell */
			const lane_t *left = &L[l ? l - 1 : 0];

			if (!(L[l].cut & 1) && (l == 0 || left->hl - go > left->el - ge))
				L[l].dd[0] |= 4;
		}
		for (int l = 0; l < LANES; l++) {
			lane_t *t = &L[l];

			for (int x = 0; x < M; x++)
				dir[(size_t)(i - 1) * P + 1 + l * M + x] = (uint8_t)t->dd[x];
			for (int x = 0; x + 1 < M; x++)
				t->wr[x] = t->wr[x + 1];
			t->wr[M - 1] = code_at(j, win, i + j->dlo + l * M + M);
		}
	}
	for (int l = 0; l < LANES; l++)
		if (L[l].i_end && (!i_end || L[l].i_end < i_end))
			i_end = L[l].i_end;
	return i_end;
}

int main(void)
{
	static lane_t lanes[LANES];
	int jobs = 0, differ = 0, ends = 0, wide = 0;

	unit_begin("test_trace_rows");
	for (int it = 0; it < 3000; it++) {
		const int32_t n = 1 + (int32_t)rnd(60), w = 1 + (int32_t)rnd(it % 4 ? 120 : 900);
		const int32_t gap_open = (int32_t)rnd(6), gap_ext = 1 + (int32_t)rnd(2);
		sm_tb_score_t sc = { 1 + (int32_t)rnd(3), 1 + (int32_t)rnd(4), -1, gap_open + gap_ext,
				     gap_ext, (int32_t)rnd(6), (int32_t)rnd(6) };
		sm_tb_job_t j = { n, w, -(int32_t)rnd(20) - n / 2,
				  it % 4 ? (int32_t)rnd(40) : (int32_t)rnd(900), 0 };
		uint8_t q[64], win[1024], *dir, *rows;
		int32_t S = sm_tb_stride(&j), M, *hrow, *frow, i_end;
		uint32_t ops[SM_TB_MAX_OPS];
		sm_tb_res_t res = { 0 };

		/* The band must hold a cell of column w. */
		if (S < 3 || S > SM_TB_MAX_STRIDE || w - j.dhi > n || w - j.dlo < 1)
			continue;
		for (int x = 0; x < n; x++)
			q[x] = rnd(17) == 0 ? SM_BASE_N : (uint8_t)rnd(4);
		for (int x = 0; x < w; x++)
			win[x] = rnd(17) == 0 ? SM_BASE_N : (uint8_t)rnd(4);
		for (int x = 0; x < n && x < w; x++)   /* the read's bases in the window, mostly */
			if (rnd(3))
				win[(x + (w > n ? w - n : 0)) % w] = q[x];
		M = sm_gpu_trace_lane_cells(S);
		hrow = xmalloc((size_t)S * sizeof *hrow);
		frow = xmalloc((size_t)S * sizeof *frow);
		dir = xmalloc((size_t)n * S);
		rows = xmalloc((size_t)n * (32 * M + 1));
		/* A score some cell of column w has (the scalar fill finds it):
		 * the lowest, or for every other job the highest. */
		for (int32_t t = 0; t < 3 * 60 + 12; t++) {
			j.score = it % 2 ? 1 + t : 3 * 60 + 12 - t;
			sm_tb_run(&j, &sc, q, win, hrow, frow, dir, (size_t)S, ops, &res);
			if (res.status != SM_TB_NO_CELL)
				break;
		}
		if (res.status != SM_TB_NO_CELL) {
			int bad = 0;

			jobs++;
			wide += M > 8;
			i_end = rows_fill(&j, &sc, q, win, M, lanes, rows);
			for (int32_t i = 1; i <= n; i++)
				for (int32_t k = 1; k <= S - 2; k++)
					bad += dir[(size_t)(i - 1) * S + k] !=
					       rows[(size_t)(i - 1) * (32 * M + 1) + k];
			/* The end row: sm_tb_run reports it when the walk is whole. */
			if (res.status == SM_TB_OK) {
				ends++;
				bad += i_end != res.i_end;
			}
			if (bad && differ++ < 5)
				CHECK(0, "job %d (n %d, w %d, band %d..%d, M %d, go %d ge %d): "
				      "%d cells or the end differ", it, n, w, j.dlo, j.dhi, M, sc.go,
				      sc.ge, bad);
		}
		free(hrow);
		free(frow);
		free(dir);
		free(rows);
	}
	CHECK(differ == 0 && jobs > 1000 && wide > 200 && ends > 1000,
	      "row formulation: %d jobs (%d of M > 8, %d ends compared), every decision byte and "
	      "end row the scalar fill's (%d differ)", jobs, wide, ends, differ);
	return unit_end();
}
