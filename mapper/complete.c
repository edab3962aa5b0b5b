/* complete.c — the completion pass (sm_seed_complete and its rounds), the
 * neighbour pass and the bounds that say whether a read's seeding left a
 * better locus out (see seed.h; the shared seeder state is seed_impl.h's). */
#include "mapper/seed.h"

#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "io/log.h"
#include "mapper/grow.h"
#include "mapper/radix.h"
#include "mapper/seed_impl.h"

/* Completion (sm_seed_complete).  A hit of the completion pass carries the
 * read position of its k-mer, so that a cluster's support is known k-mer by
 * k-mer: bits QHIT_POS_BITS..63 its strand and diagonal as one number,
 * diagonal + bias + strand x span (qhit_key_t), bits 0..QHIT_POS_BITS-1
 * the read position of the k-mer's last base (< SM_MAX_READ_LEN_LIMIT,
 * cli.h).  Sorted as integers they come by strand, then diagonal. */
#define QHIT_POS_BITS 20
#define QHIT_POS_MASK (((uint64_t)1 << QHIT_POS_BITS) - 1)

/* A read's diagonals (either strand: g - qpos, or g - (n - qpos + k - 2)
 * with k - 1 <= qpos < n, for reference positions 0 <= g < total) lie in
 * [1 - n, total): bias = n makes them positive, span = total + n puts
 * strand 1's after strand 0's, and 2 x span < 2^(64 - QHIT_POS_BITS) for
 * any reference of less than 2^42 bases. */
typedef struct {
	int64_t bias, span;
} qhit_key_t;

static uint64_t qhit_pack(const qhit_key_t *q, int32_t strand, int64_t diag, int64_t qpos)
{
	return (uint64_t)(diag + q->bias + strand * q->span) << QHIT_POS_BITS | (uint64_t)qpos;
}

static int32_t qhit_strand(const qhit_key_t *q, uint64_t h)
{
	return (int64_t)(h >> QHIT_POS_BITS) >= q->span;
}

static int64_t qhit_diag(const qhit_key_t *q, uint64_t h)
{
	int64_t v = (int64_t)(h >> QHIT_POS_BITS);

	return v - q->bias - (v >= q->span ? q->span : 0);
}

/* Digits of sort_qhits' radix passes have at most this many bits. */
#define QHIT_DIGIT_BITS 11

/* Sorts the completion's hits h[0..n) by strand, then diagonal (tmp: room
 * for n), by radix over the bits of their strand-and-diagonal number
 * (below 2 x q->span) only, at most QHIT_DIGIT_BITS a pass (3 passes for a
 * 63 Mbp reference, against the 6 bytes of a hit that vary).  Within a
 * diagonal the read positions stay unsorted: nothing reads that order (a
 * cluster's votes and bound depend on the set of its read positions).
 * Returns 0 when the sorted hits are in h, 1 when they are in tmp. */
static int sort_qhits(const qhit_key_t *q, uint64_t *h, uint64_t *tmp, int64_t n)
{
	int bits = 0;

	while ((uint64_t)(2 * q->span - 1) >> bits)
		bits++;
	return sm_radix_sort_bits(h, tmp, n, QHIT_POS_BITS, bits, QHIT_DIGIT_BITS);
}

/* A candidate of the completion pass: a cluster (votes: its support) and
 * the best score an alignment there may have. */
typedef struct {
	sm_cluster_t c;
	int32_t contig;
	int32_t bound;
	int32_t ties;   /* what breaks a tie of bounds: the hits on its most frequent
			   diagonal (complete_ws_t.cl_ties), 0 for one read position */
	int32_t diag;   /* how well its diagonals align the read (choose_by_diagonal) */
	int64_t at;     /* the cluster's place among the read's */
} cand_cl_t;

/* A neighbour pass's window chosen by diagonal (best_by_diagonal). */
typedef struct {
	sm_window_t x;
	sm_cluster_t c;
	int32_t diag;   /* sm_diag_score along its first and last diagonals */
} diag_pick_t;

/* Completion workspace (sm_seeder_t's cw). */
typedef struct complete_ws_s {
	uint64_t *hit, *tmp;       /* hits (qhit_pack) and the radix sort's other buffer */
	int64_t cap_hit, cap_tmp;
	int32_t *one;              /* [n] the bound of a locus supported by one read
				    * position besides the skipped k-mers (bound_one) */
	int64_t *stamp;            /* [n] the last cluster that counted each read position */
	uint8_t *mark;             /* [n] 1: a k-mer ending there supports the locus */
	int32_t *sum_amb;          /* [n + 1] prefix counts of ambiguous bases */
	int64_t cap_n;
	uint64_t *ok, *ok_cl;      /* windows that count (seed_impl.h) with mark's k-mers
				    * supporting, and with a cluster's too */
	int64_t *cl_at;            /* first hit of each cluster */
	int64_t cap_cl_at;
	int32_t *cl_contig;        /* the contig of each cluster's hits */
	int64_t cap_cl_contig;
	int64_t *cl_mode;          /* each cluster's most frequent hit diagonal (the lowest of equals) */
	int64_t cap_cl_mode;
	int32_t *cl_ties;          /* and its hits (cand_cl_t.ties) */
	int64_t cap_cl_ties;
	cand_cl_t *cand;
	int64_t cap_cand;
	cand_cl_t *cand_tmp;       /* choose_by_diagonal's reordering */
	int64_t cap_cand_tmp;
	uint8_t *strand_read;      /* [2n] the read's codes on either strand (choose_by_diagonal) */
	int64_t cap_strand_read;
	int32_t *diag_buf;         /* [9n + 9] sm_diag_score's workspace */
	int64_t cap_diag_buf;
	int32_t *diag_heap;        /* choose_by_diagonal's best scores so far, least first */
	int64_t cap_diag_heap;
	diag_pick_t *pick;         /* best_by_diagonal's best so far, best first */
	int64_t cap_pick;
	uint8_t *cl_pooled;        /* [clusters] 1: in the bound's pool (ties_pool) */
	int64_t cap_cl_pooled;
	int64_t *tie_count;        /* [n + 2] ties_pool's clusters per count of hits */
	int64_t cap_tie_count;
	int64_t *tie_order;        /* [clusters] ties_pool's clusters by that count */
	int64_t cap_tie_order;
	int64_t *occ_sorted;       /* the read's k-mers' occurrences, most first */
	int64_t cap_occ_sorted;
	uint8_t *skip;             /* [k-mers] 1: skipped, counted as supporting everywhere */
	int64_t cap_skip;
	int64_t *win_cost;         /* [n] keep_rare_windows: a window's hits, -1: no window */
	int64_t *row_cost;         /* [2 (n + 1)] its least costs of j and j - 1 windows */
	int32_t *row_from;         /* [(j + 1)(n + 1)] the last window of each of those */
	int64_t cap_win_cost, cap_row_cost, cap_row_from;
	uint64_t *qg_in;           /* [2 x 4^SM_QGRAM bits] the read's q-grams as each
				    * strand reads on the reference (qgram_prepare) */
	uint64_t *qg_pos;          /* [3n] (code << 32 | last base) of each, per strand
				    * (at st x qg_m), sorted; qg_n[st] of them; the
				    * sort's buffer last */
	int64_t qg_m;
	int32_t qg_n[2];
	uint64_t *qg_valid;        /* [2 words(n)] q-grams without an N, by last base */
	uint64_t *ok_q;            /* window_bound's unsupported q-grams */
	int64_t cap_qg_valid, cap_ok_q;
} complete_ws_t;

static int cmp_occ_desc(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x < y) - (x > y);
}

static int cmp_occ_asc(const void *a, const void *b)
{
	return -cmp_occ_desc(a, b);
}

int32_t sm_seed_support_min(const sm_index_t *idx, const sm_score_t *sc, int band, int32_t n,
			    int32_t n_amb, int64_t score)
{
	const int64_t perfect = sm_best_possible(sc, n);
	const int64_t d = perfect - score;
	const int64_t split = sc->match + sc->mismatch < sc->gap_open + sc->gap_ext ?
			      sc->match + sc->mismatch : sc->gap_open + sc->gap_ext;
	int64_t events, kept, need;

	if (score > perfect)
		return SM_SEED_UNREACHABLE;
	if (d >= sc->gap_open + (int64_t)(band + 1) * sc->gap_ext)
		return 0;   /* a gap longer than the band may split its seeds' cluster */
	/* At most d / split differences (the cheapest one that splits an exact
	 * run: a mismatch or a deletion), at most d / match read bases outside
	 * the runs (clipped, mismatched or inserted: each costs at least one
	 * match, a clipped end its bonus too), and each ambiguous read base
	 * both. */
	events = d / split + n_amb;
	kept = n - d / sc->match - n_amb;
	/* Runs r_1..r_{events+1} of total length >= kept: each holds at least
	 * (r - k + 1) / w hits, rounded down, so at least (r - k - w + 2) / w. */
	need = kept - (events + 1) * (idx->k + idx->w - 2);
	if (need <= 0)
		return 0;
	return (int32_t)((need + idx->w - 1) / idx->w);
}

int64_t sm_bound_break_cost(int k, int w, const sm_score_t *sc)
{
	int64_t a = sc->match, c = a + sc->mismatch, ins = sc->gap_ext + a;
	int64_t span = k + w - 1;

	if (sc->gap_open + sc->gap_ext < c)
		c = sc->gap_open + sc->gap_ext;
	if ((sc->gap_open + 2 * ins) / 2 < c)
		c = (sc->gap_open + 2 * ins) / 2;
	if (span * ins / 3 < c)
		c = span * ins / 3;
	return c;
}

void sm_bound_windows(int k, int w, int32_t n, const uint8_t *mark, const int32_t *sum_amb,
		      uint64_t *ok)
{
	int32_t in = 0;   /* marks among the k-mer ends x .. x + w - 1 */

	memset(ok, 0, (size_t)SM_BOUND_WORDS(n) * sizeof *ok);
	for (int32_t i = k - 1; i < k + w - 2 && i < n; i++)
		in += mark[i] != 0;
	for (int32_t x = k - 1; x + w - 1 < n; x++) {
		in += mark[x + w - 1] != 0;
		if (in == 0 && sum_amb[x + w] - sum_amb[x - k + 1] == 0)
			ok[x >> 6] |= (uint64_t)1 << (x & 63);
		in -= mark[x] != 0;
	}
}

/* The first window of ok at or after x, n if none (ok has none past n). */
static inline int32_t next_window(const uint64_t *ok, int32_t x, int32_t n)
{
	int64_t i = x >> 6, words = SM_BOUND_WORDS(n);
	uint64_t v;

	if (x >= n)
		return n;
	v = ok[i] & ~(uint64_t)0 << (x & 63);
	while (!v) {
		if (++i >= words)
			return n;
		v = ok[i];
	}
	return (int32_t)(i * 64 + __builtin_ctzll(v));
}

/* The windows, in order, need at least as many differences as the greedy
 * stabbing of them counts: it picks the first window, then the first that
 * starts after the last pick ends (x' >= x + k + w - 1, all windows being
 * that long), and so on; picks 0..P-1, window i spanning [lo_i, hi_i].
 * G(a), the picks starting before a, is the greedy count of the windows
 * starting before a (a prefix of them is stabbed by the same picks).
 * Clipping a bases on the left and b on the right leaves at least
 * G(n - b - (k + w - 1) + 1) - G(a) differences among the windows
 * between (a window set's greedy count is at most that of a part plus
 * that of the rest), so
 *   d = min_a [a x match + (a > 0) clip5 - brk G(a)]
 *     + min_b [b x match + (b > 0) clip3 + brk G(n - b - k - w + 2)],
 * a, b in 0..n (G of a start <= 0: 0), and the bound is perfect - d.
 * Each term is constant in its G and clip bonus on pieces of a (of b) and
 * grows with a (with b) inside a piece (match > 0), so its least value is
 * at a piece's first value: a = 0, a = 1 and a = lo_i + 1 (G = i + 1); b =
 * 0, b = 1 and b = n - hi_i (pick j counts for b iff b <= n - 1 - hi_j: P
 * at b = 0, i at b = n - hi_i).  a = 1 is lo_0 + 1 when lo_0 = 0, else it
 * costs match + clip5 > 0, a = 0's cost, and b = 1 likewise (ctx.c: match
 * >= 1, clip bonuses >= 0): only a = 0, b = 0 and the picks' remain. */
int32_t sm_bound_score(const uint64_t *ok, int k, int w, int32_t n, const sm_score_t *sc,
		       int64_t brk)
{
	const int64_t a1 = sc->match + sc->clip5, b1 = sc->match + sc->clip3;
	int64_t left = 0, right = INT64_MAX, d;   /* left: a = 0 */
	int32_t picks = 0;

	for (int32_t x = next_window(ok, k - 1, n); x < n; x = next_window(ok, x + k + w - 1, n)) {
		int64_t l = (int64_t)(x - k + 1) * sc->match + a1 - brk * (picks + 1);
		int64_t r = (int64_t)(n - x - w) * sc->match + b1 + brk * picks;

		left = l < left ? l : left;
		right = r < right ? r : right;
		picks++;
	}
	if (brk * picks < right)   /* b = 0 */
		right = brk * picks;
	d = left + right;
	if (d < 0)
		d = 0;
	return (int32_t)(sm_best_possible(sc, n) - d);
}

void sm_complete_ws_free(complete_ws_t *cw)
{
	if (!cw)
		return;
	free(cw->hit);
	free(cw->tmp);
	free(cw->one);
	free(cw->stamp);
	free(cw->mark);
	free(cw->sum_amb);
	free(cw->ok);
	free(cw->ok_cl);
	free(cw->cl_at);
	free(cw->cl_contig);
	free(cw->cl_mode);
	free(cw->cl_ties);
	free(cw->cand);
	free(cw->cand_tmp);
	free(cw->strand_read);
	free(cw->diag_buf);
	free(cw->diag_heap);
	free(cw->pick);
	free(cw->cl_pooled);
	free(cw->tie_count);
	free(cw->tie_order);
	free(cw->occ_sorted);
	free(cw->skip);
	free(cw->win_cost);
	free(cw->row_cost);
	free(cw->row_from);
	free(cw->qg_in);
	free(cw->qg_pos);
	free(cw->qg_valid);
	free(cw->ok_q);
	free(cw);
}

/* Room for a read of length n in cw.  0 or -1 when out of memory. */
static int complete_ws_reserve(complete_ws_t *cw, int32_t n)
{
	int64_t m = n + 2, words = SM_BOUND_WORDS(m);

	if (m <= cw->cap_n)
		return 0;
	free(cw->stamp);
	free(cw->one);
	free(cw->mark);
	free(cw->sum_amb);
	free(cw->ok);
	free(cw->ok_cl);
	cw->stamp = malloc((size_t)m * sizeof *cw->stamp);
	cw->one = malloc((size_t)m * sizeof *cw->one);
	cw->mark = malloc((size_t)m);
	cw->sum_amb = malloc((size_t)m * sizeof *cw->sum_amb);
	cw->ok = malloc((size_t)words * sizeof *cw->ok);
	cw->ok_cl = malloc((size_t)words * sizeof *cw->ok_cl);
	cw->cap_n = 0;
	if (!cw->stamp || !cw->one || !cw->mark || !cw->sum_amb || !cw->ok || !cw->ok_cl)
		return -1;
	cw->cap_n = m;
	return 0;
}

/* Marks in cw->mark the read positions of the minimizers s->mini[0..n_mini)
 * that cw->skip skips, and sets cw->ok from them (cw->sum_amb set);
 * returns their number. */
static int32_t mark_skip(sm_seeder_t *s, const sm_index_t *idx, int64_t n_mini, int32_t n)
{
	int32_t skipped = 0;

	memset(s->cw->mark, 0, (size_t)n);
	for (int64_t t = 0; t < n_mini; t++)
		if (s->cw->skip[t]) {
			s->cw->mark[s->mini[t].pos] = 1;
			skipped++;
		}
	sm_bound_windows(idx->k, idx->w, n, s->cw->mark, s->cw->sum_amb, s->cw->ok);
	return skipped;
}

/* Skips (cw->skip) the minimizers s->mini[0..n_mini) (looked up) with more
 * than max_occ occurrences, then marks them (mark_skip); returns their
 * number. */
static int32_t mark_skipped(sm_seeder_t *s, const sm_index_t *idx, int64_t n_mini, int32_t n,
			    int64_t max_occ)
{
	for (int64_t t = 0; t < n_mini; t++)
		s->cw->skip[t] = s->occ[t] > max_occ;
	return mark_skip(s, idx, n_mini, n);
}

/* The largest occurrence limit v at which the k-mers not skipped (skip[],
 * occurrences occ[], n_mini of them) with at most v occurrences hold at
 * most max_hits hits together; INT64_MAX when all of them do.  sorted:
 * room for n_mini values. */
static int64_t within_budget(const int64_t *occ, const uint8_t *skip, int64_t n_mini,
			     int64_t max_hits, int64_t *sorted)
{
	int64_t m = 0, sum = 0, limit = 0;

	for (int64_t t = 0; t < n_mini; t++)
		if (!skip[t]) {
			sorted[m++] = occ[t];
			sum += occ[t];
		}
	if (sum <= max_hits)
		return INT64_MAX;
	qsort(sorted, (size_t)m, sizeof *sorted, cmp_occ_asc);
	sum = 0;
	for (int64_t t = 0; t < m; t++) {
		int64_t u = t;

		while (u + 1 < m && sorted[u + 1] == sorted[t])   /* equal values go together */
			u++;
		sum += sorted[t] * (u - t + 1);
		if (sum > max_hits)
			break;
		limit = sorted[t];
		t = u;
	}
	return limit;
}

/* Rare windows.  A skipped k-mer counts as supporting everywhere, so
 * skipping one more only raises bounds (they stay sound) and saves its
 * hits.  A locus that no kept k-mer supports pays for the windows of
 * kept k-mers (w consecutive k-mer ends, k + w - 1 read bases, sm_bound_score),
 * so keeping only the k-mers of a few disjoint windows bounds it as well as
 * keeping all, as long as those windows are enough.  For j = 1, 2, ...
 * this finds the j disjoint windows of unskipped k-mers (starts k + w - 1
 * apart at least, as sm_bound_score stabs them) with the fewest
 * occurrences (the earliest last window among equals, and so on back),
 * and takes the first j for which skipping every k-mer outside them leaves
 * the bound of a locus without support at `target` or below, provided
 * they have fewer hits than all unskipped k-mers.  Reads longer than
 * RARE_READ_MAX keep all (the table below grows with j x n), and j stops
 * at RARE_WINDOWS_MAX.  Returns the skipped k-mers' number (cw->skip,
 * cw->mark, cw->ok set; unchanged when no j does), or -1 when out of
 * memory. */
enum { RARE_READ_MAX = 4096, RARE_WINDOWS_MAX = 32 };

static int32_t keep_rare_windows(sm_seeder_t *s, const sm_index_t *idx, const sm_score_t *sc,
				 int64_t brk, int64_t n_mini, int32_t n, int64_t target)
{
	complete_ws_t *cw = s->cw;
	const int k = idx->k, w = idx->w, span = idx->k + idx->w - 1;
	const int64_t inf = INT64_MAX / 4;
	const int32_t jmax = n / span + 1 < RARE_WINDOWS_MAX ? n / span + 1 : RARE_WINDOWS_MAX;
	int64_t all = 0, *cur, *prev;

	if (n > RARE_READ_MAX)
		return mark_skip(s, idx, n_mini, n);
	if (sm_grow((void **)&cw->win_cost, &cw->cap_win_cost, n + 1, sizeof *cw->win_cost) < 0 ||
	    sm_grow((void **)&cw->row_cost, &cw->cap_row_cost, 2 * ((int64_t)n + 1),
		    sizeof *cw->row_cost) < 0 ||
	    sm_grow((void **)&cw->row_from, &cw->cap_row_from, ((int64_t)jmax + 1) * (n + 1),
		    sizeof *cw->row_from) < 0)
		return -1;
	/* Hits per read position (win_cost as scratch), inf where a skipped
	 * k-mer ends: no window holds it. */
	for (int32_t x = 0; x < n; x++)
		cw->win_cost[x] = 0;
	for (int64_t t = 0; t < n_mini; t++) {
		int64_t *c = &cw->win_cost[s->mini[t].pos];

		*c = cw->skip[t] ? inf : *c + s->occ[t];
		all += cw->skip[t] ? 0 : s->occ[t];
	}
	/* win_cost[x]: the hits of the window of k-mer ends x .. x + w - 1, -1
	 * when it is none (an ambiguous base, a skipped k-mer, the read's end).
	 * In place: window x reads positions x and up only. */
	for (int32_t x = 0; x < n; x++) {
		int64_t c = 0;

		if (x < k - 1 || x + w > n || cw->sum_amb[x + w] - cw->sum_amb[x - k + 1] != 0) {
			cw->win_cost[x] = -1;
			continue;
		}
		for (int32_t y = x; y < x + w && c < inf; y++)
			c += cw->win_cost[y];
		cw->win_cost[x] = c < inf ? c : -1;
	}
	/* Row j, cur[x]: the fewest hits of j disjoint windows starting before
	 * x; row_from[j (n + 1) + x]: the start of the last of them (-1: none). */
	prev = cw->row_cost;
	cur = cw->row_cost + n + 1;
	for (int32_t x = 0; x <= n; x++)
		prev[x] = 0;
	for (int32_t j = 1; j <= jmax; j++) {
		int32_t *from = cw->row_from + (int64_t)j * (n + 1), x;
		int64_t *t;

		cur[0] = inf;
		from[0] = -1;
		for (x = 1; x <= n; x++) {
			const int32_t st = x - 1, pre = st - span + 1;
			const int64_t before = pre > 0 ? prev[pre] : j == 1 ? 0 : inf;

			cur[x] = cur[x - 1];
			from[x] = from[x - 1];
			if (cw->win_cost[st] >= 0 && before < inf && before + cw->win_cost[st] < cur[x]) {
				cur[x] = before + cw->win_cost[st];
				from[x] = st;
			}
		}
		if (cur[n] >= all)   /* no window set of j or more saves hits */
			break;
		/* Keep the j windows' k-mers, skip the others, and bound. */
		memset(cw->mark, 1, (size_t)n);
		for (int32_t jj = j, at = n; jj >= 1; jj--) {
			const int32_t st = cw->row_from[(int64_t)jj * (n + 1) + at];

			memset(cw->mark + st, 0, (size_t)w);
			at = st - span + 1 > 0 ? st - span + 1 : 0;
		}
		sm_bound_windows(k, w, n, cw->mark, cw->sum_amb, cw->ok);
		if (sm_bound_score(cw->ok, k, w, n, sc, brk) <= target) {
			for (int64_t u = 0; u < n_mini; u++)
				cw->skip[u] |= cw->mark[s->mini[u].pos];
			return mark_skip(s, idx, n_mini, n);
		}
		t = prev, prev = cur, cur = t;
	}
	return mark_skip(s, idx, n_mini, n);
}

/* Collects into cw->hit the hits of minimizers s->mini[0..n_mini) (looked
 * up) that cw->skip keeps.  Returns the hit count or -1 when out of
 * memory. */
static int64_t collect_qhits(sm_seeder_t *s, const sm_index_t *idx, const qhit_key_t *q,
			     int64_t n_mini, int32_t n)
{
	complete_ws_t *cw = s->cw;
	int64_t n_hit = 0;

	for (int64_t t = 0; t < n_mini; t++) {
		const sm_mini_t *m = &s->mini[t];
		const int64_t *pos = s->pos[t];
		int64_t occ = s->occ[t];
		uint64_t key[2];

		if (cw->skip[t])
			continue;
		if (sm_grow((void **)&cw->hit, &cw->cap_hit, n_hit + occ, sizeof *cw->hit) < 0)
			return -1;
		/* A hit at g is qhit_pack(strand, g - off, m->pos), which is
		 * g << QHIT_POS_BITS plus the same for g = 0 (positive: off <
		 * bias), by the position's strand bit: no branch per hit. */
		for (int b = 0; b < 2; b++) {
			const int32_t strand = b ^ (int32_t)m->strand;

			key[b] = qhit_pack(q, strand, strand ? -(n - m->pos + idx->k - 2) : -m->pos,
					   m->pos);
		}
		for (int64_t u = 0; u < occ; u++)
			cw->hit[n_hit++] = ((uint64_t)(pos[u] >> 1) << QHIT_POS_BITS) + key[pos[u] & 1];
	}
	return n_hit;
}

/* sm_bound_score() of the read with the k-mers of cw->mark (cw->ok) and
 * those of hits hit[from..to) (read positions) supporting. */
static int32_t bound_with(complete_ws_t *cw, const sm_index_t *idx, const sm_score_t *sc,
			  int32_t n, int64_t brk, int64_t from, int64_t to)
{
	const uint64_t *ok = cw->ok;

	if (from < to) {
		memcpy(cw->ok_cl, cw->ok, (size_t)SM_BOUND_WORDS(n) * sizeof *cw->ok);
		for (int64_t t = from; t < to; t++)
			sm_bound_support(cw->ok_cl, idx->w, (int32_t)(cw->hit[t] & QHIT_POS_MASK));
		ok = cw->ok_cl;
	}
	return sm_bound_score(ok, idx->k, idx->w, n, sc, brk);
}

/* bound_with() for the one read position p, computed once per read
 * (cw->one[p] is INT32_MIN until then). */
static int32_t bound_one(complete_ws_t *cw, const sm_index_t *idx, const sm_score_t *sc, int32_t n,
			 int64_t brk, int32_t p)
{
	if (cw->one[p] == INT32_MIN) {
		memcpy(cw->ok_cl, cw->ok, (size_t)SM_BOUND_WORDS(n) * sizeof *cw->ok);
		sm_bound_support(cw->ok_cl, idx->w, p);
		cw->one[p] = sm_bound_score(cw->ok_cl, idx->k, idx->w, n, sc, brk);
	}
	return cw->one[p];
}

/* The window of cluster c of contig `contig` (its hits' contig: a cluster
 * of the completion pass never spans two), as sm_cluster_window makes it.
 * Returns 0 when it is empty. */
static int contig_window(const sm_ref_t *ref, const sm_cluster_t *c, int32_t contig, int32_t n,
			 int64_t margin, sm_window_t *x)
{
	int64_t lo = ref->offset[contig], hi = lo + ref->len[contig];

	x->start = c->lo - margin < lo ? lo : c->lo - margin;
	x->end = c->hi + n + margin > hi ? hi : c->hi + n + margin;
	x->votes = c->votes;
	x->strands = 1 << c->strand;
	return x->start < x->end;
}

/* A read q-gram holding an ambiguous base (it supports nowhere). */
#define QG_NONE UINT32_MAX
#define QG_MASK (((uint32_t)1 << (2 * SM_QGRAM)) - 1)

/* Sets cw's q-grams of read (base codes, length n): for each strand st the
 * q-grams of bases i - SM_QGRAM + 1 .. i as they read on the reference when
 * the read is forward (st 0) or reverse-complemented (st 1), in the set
 * qg_in + st x 4^SM_QGRAM / 64 and in qg_pos with their i; qg_valid: the i
 * whose q-gram holds no N.  The previous read's are cleared first.
 * Returns 0 or -1 when out of memory. */
static int qgram_prepare(complete_ws_t *cw, const uint8_t *read, int32_t n)
{
	const int64_t set_words = ((int64_t)QG_MASK + 1) / 64, words = SM_BOUND_WORDS(n);
	uint32_t f = 0, r = 0;
	int32_t run = 0;

	if (!cw->qg_in && !(cw->qg_in = calloc((size_t)(2 * set_words), sizeof *cw->qg_in)))
		return -1;
	for (int st = 0; st < 2; st++)
		for (int32_t t = 0; t < cw->qg_n[st]; t++) {
			const uint32_t v = (uint32_t)(cw->qg_pos[st * cw->qg_m + t] >> 32);

			cw->qg_in[st * set_words + (v >> 6)] = 0;
		}
	cw->qg_n[0] = cw->qg_n[1] = 0;
	if (n > cw->qg_m) {
		free(cw->qg_pos);
		cw->qg_m = 0;
		if (!(cw->qg_pos = malloc((size_t)(3 * n) * sizeof *cw->qg_pos)))
			return -1;
		cw->qg_m = n;
	}
	if (sm_grow((void **)&cw->qg_valid, &cw->cap_qg_valid, words + 1, sizeof *cw->qg_valid) < 0 ||
	    sm_grow((void **)&cw->ok_q, &cw->cap_ok_q, words + 1, sizeof *cw->ok_q) < 0)
		return -1;
	memset(cw->qg_valid, 0, (size_t)words * sizeof *cw->qg_valid);
	for (int32_t i = 0; i < n; i++) {
		const uint32_t c = read[i] & 3;

		run = read[i] > 3 ? 0 : run + 1;
		f = ((f << 2) | c) & QG_MASK;
		r = (r >> 2) | (3 - c) << (2 * (SM_QGRAM - 1));
		if (run < SM_QGRAM)
			continue;
		cw->qg_valid[i >> 6] |= (uint64_t)1 << (i & 63);
		for (int st = 0; st < 2; st++) {
			const uint32_t v = st ? r : f;

			cw->qg_in[st * set_words + (v >> 6)] |= (uint64_t)1 << (v & 63);
			cw->qg_pos[st * cw->qg_m + cw->qg_n[st]++] = (uint64_t)v << 32 | (uint32_t)i;
		}
	}
	for (int st = 0; st < 2; st++)
		sm_radix_sort_u64(cw->qg_pos + st * cw->qg_m, cw->qg_pos + 2 * cw->qg_m, cw->qg_n[st]);
	return 0;
}

/* Crosses off in ok the read's q-grams of the given code (pos[0..n_pos):
 * sorted (code << 32 | last base)). */
static void cross_off(uint64_t *ok, const uint64_t *pos, int32_t n_pos, uint32_t code)
{
	int32_t lo = 0, hi = n_pos;

	while (lo < hi) {
		const int32_t mid = (lo + hi) / 2;

		if ((uint32_t)(pos[mid] >> 32) < code)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < n_pos && (uint32_t)(pos[lo] >> 32) == code; lo++)
		ok[(uint32_t)pos[lo] >> 6] &= ~((uint64_t)1 << ((uint32_t)pos[lo] & 63));
}

/* The code of a q-gram with one base more (high bits: the earliest). */
#define QG_ROLL(code, c) ((((code) << 2) | ((c) & 3)) & QG_MASK)
#define QG_HAS(in, v) ((in)[(v) >> 6] >> ((v) & 63) & 1)

/* The window's bound from its own bases (seed.h, SM_QGRAM): every
 * alignment of the read's strand st inside window x (of ref) scores at
 * most this.  A read q-gram that occurs nowhere in the window holds a
 * difference in any such alignment or lies outside it, as a window of
 * k + w - 1 read bases without a seed does, so sm_bound_score bounds it
 * with those q-grams as its windows (k = SM_QGRAM, w = 1) and brk their
 * break cost.  One pass over the window: each of its q-grams is looked up
 * in the read's set (qgram_prepare), and the read's q-grams it matches
 * are crossed off. */
static int32_t window_bound(complete_ws_t *cw, const sm_ref_t *ref, const sm_score_t *sc,
			    int32_t n, int64_t brk, const sm_window_t *x, int st)
{
	const int64_t set_words = ((int64_t)QG_MASK + 1) / 64, words = SM_BOUND_WORDS(n);
	const uint64_t *in = cw->qg_in + st * set_words;
	const uint64_t *pos = cw->qg_pos + st * cw->qg_m;
	const int32_t n_pos = cw->qg_n[st];
	const uint8_t *seq = ref->seq + x->start;
	const int64_t len = x->end - x->start;
	uint64_t *ok = cw->ok_q;
	uint32_t code = 0;
	int32_t run = 0;

	memcpy(ok, cw->qg_valid, (size_t)words * sizeof *ok);
	for (int64_t p = 0; p < len; p++) {
		code = QG_ROLL(code, seq[p]);
		run = seq[p] > 3 ? 0 : run + 1;
		if (run >= SM_QGRAM && QG_HAS(in, code))
			cross_off(ok, pos, n_pos, code);
	}
	return sm_bound_score(ok, SM_QGRAM, 1, n, sc, brk);
}

int32_t sm_seed_window_bound(sm_seeder_t *s, const sm_ref_t *ref, const sm_score_t *sc,
			     const uint8_t *read, int32_t n, int st, int64_t start, int64_t end)
{
	const sm_window_t x = { .start = start, .end = end, .strands = 1 << st };

	if ((!s->cw && !(s->cw = calloc(1, sizeof *s->cw))) || qgram_prepare(s->cw, read, n) < 0)
		return -1;
	return window_bound(s->cw, ref, sc, n, sm_bound_break_cost(SM_QGRAM, 1, sc), &x, st);
}

/* 1 if window x lies inside one of done[0..n_done) that its strands are
 * scanned in. */
static int scanned_already(const sm_window_t *x, const sm_window_t *done, int32_t n_done)
{
	for (int32_t t = 0; t < n_done; t++)
		if ((done[t].strands & x->strands) == x->strands && done[t].start <= x->start &&
		    x->end <= done[t].end)
			return 1;
	return 0;
}

/* 1 if candidate x ranks before y: higher bound, then more hits on one
 * diagonal (bounds tie by the thousand among a repeat's copies, and the
 * support that comes next, read positions anywhere in the cluster,
 * prefers copies whose stray hits a band away add up over an origin whose
 * hits line up), then sm_cluster_before (support), then the earlier
 * cluster (a total order: what a stable sort of the clusters in their
 * order by the first three leaves). */
static inline int cand_before(const cand_cl_t *x, const cand_cl_t *y)
{
	if (x->bound != y->bound)
		return x->bound > y->bound;
	if (x->ties != y->ties)
		return x->ties > y->ties;
	/* sm_cluster_before's keys, written out: it is a total order but for
	 * clusters equal in all three. */
	if (x->c.votes != y->c.votes)
		return x->c.votes > y->c.votes;
	if (x->c.strand != y->c.strand)
		return x->c.strand < y->c.strand;
	if (x->c.lo != y->c.lo)
		return x->c.lo < y->c.lo;
	return x->at < y->at;
}

/* Candidates best first (cand_before). */
static int cmp_cand(const void *a, const void *b)
{
	return cand_before(a, b) ? -1 : cand_before(b, a) ? 1 : 0;
}

/* Offers x to h[0..*n), a heap of the best `top` candidates offered
 * (cand_before) whose root h[0] ranks last. */
static void cand_offer(cand_cl_t *h, int64_t *n, int64_t top, const cand_cl_t *x)
{
	int64_t i;

	if (*n < top) {   /* sift up from a new leaf */
		for (i = (*n)++; i > 0 && cand_before(&h[(i - 1) / 2], x); i = (i - 1) / 2)
			h[i] = h[(i - 1) / 2];
		h[i] = *x;
		return;
	}
	if (!cand_before(x, &h[0]))
		return;
	for (i = 0;;) {   /* x replaces the root: sift down */
		int64_t c = 2 * i + 1;

		if (c >= *n)
			break;
		if (c + 1 < *n && cand_before(&h[c], &h[c + 1]))
			c++;
		if (!cand_before(x, &h[c]))
			break;
		h[i] = h[c];
		i = c;
	}
	h[i] = *x;
}

/* What scoring a candidate's diagonals needs (cluster_diag_score): the
 * pass's workspace and read. */
typedef struct {
	complete_ws_t *cw;
	const sm_ref_t *ref;
	const sm_score_t *sc;
	const uint8_t *read;
	int32_t n;
} diag_ctx_t;

/* One diagonal of a candidate as sm_diag_score sees it: where the
 * read mismatches it, and the local scores at those places. */
typedef struct {
	int32_t m;      /* mismatches */
	int32_t *pos;   /* [m + 1] their read positions, ascending; pos[m] = n */
	int32_t *fwd;   /* [m] the best piece ending at pos[k] (0: none) */
	int32_t *bwd;   /* [m + 1] the best piece starting at pos[k] (bwd[m] = 0) */
	int32_t best;   /* the best piece anywhere */
} diag_runs_t;

/* Where the read mismatches diagonal d (reference base d + j against q[j]:
 * the read's codes on that strand, an ambiguous base coded so that it
 * matches nothing; past the reference's ends nothing matches) into
 * r->pos, sixteen bases a compare where SSE2 has them.  A read is mostly
 * matches along a good candidate's diagonals and its scores change only
 * at mismatches, so what follows works on these alone. */
static void diag_mismatches(const sm_ref_t *ref, const uint8_t *q, int32_t n, int64_t d,
			    diag_runs_t *r)
{
	const int32_t from = d < 0 ? (int32_t)(d < -n ? n : -d) : 0;
	const int32_t to = d + n > ref->total ? (int32_t)(ref->total - d) : n;
	int32_t m = 0, j = 0;

	for (; j < from; j++)
		r->pos[m++] = j;
#if defined(__SSE2__)
	for (; j + 16 <= to; j += 16) {
		const __m128i x = _mm_loadu_si128((const __m128i *)(ref->seq + d + j));
		const __m128i y = _mm_loadu_si128((const __m128i *)(q + j));
		uint32_t miss = ~(uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(x, y)) & 0xffffu;

		for (; miss; miss &= miss - 1)
			r->pos[m++] = j + __builtin_ctz(miss);
	}
#endif
	for (; j < to; j++)
		if (ref->seq[d + j] != q[j])
			r->pos[m++] = j;
	for (j = j > to ? j : to; j < n; j++)
		r->pos[m++] = j;
	r->pos[m] = n;
	r->m = m;
}

/* Ungapped local scores from the mismatches (a: match, miss: mismatch
 * score, both positive): r->best and r->fwd.  Between mismatches every
 * base matches, so the per-base recurrence (run = max(0, run + score))
 * steps from one mismatch to the next. */
static void diag_pieces(diag_runs_t *r, int32_t n, int32_t a, int32_t miss)
{
	int32_t run = 0, prev = -1, best = 0, v;

	for (int32_t k = 0; k < r->m; k++) {
		v = run + a * (r->pos[k] - prev - 1);
		best = v > best ? v : best;
		run = v > miss ? v - miss : 0;
		r->fwd[k] = run;
		prev = r->pos[k];
	}
	v = run + a * (n - prev - 1);
	r->best = v > best ? v : best;
}

/* The same backwards, for the two-piece ones: r->bwd. */
static void diag_pieces_back(diag_runs_t *r, int32_t a, int32_t miss)
{
	r->bwd[r->m] = 0;
	for (int32_t k = r->m - 1; k >= 0; k--) {
		const int32_t v = r->bwd[k + 1] + a * (r->pos[k + 1] - r->pos[k] - 1);

		r->bwd[k] = v > miss ? v - miss : 0;
	}
}

/* The best two-piece alignment along x up to read position j - 1 and
 * along y from j, before the gap: the best over j of F_x(j - 1) +
 * B_y(j), F the best piece ending at a position and B the best starting
 * there (either may be empty).  Where both diagonals match at j, moving
 * from j to j + 1 adds a to F and takes a from B, so the sum changes only
 * one past a mismatch of either: those places and j = 1 are the ones
 * looked at. */
static int32_t diag_two_pieces(const diag_runs_t *x, const diag_runs_t *y, int32_t n, int32_t a)
{
	int32_t best = 0, kx = 0, ky = 0;

	for (int32_t j = 1; j < n;) {
		int32_t f, b;

		while (x->pos[kx] < j)   /* the first mismatch of each at j or after */
			kx++;
		while (y->pos[ky] < j)
			ky++;
		f = kx ? x->fwd[kx - 1] + a * (j - 1 - x->pos[kx - 1]) : a * j;
		b = y->bwd[ky] + a * (y->pos[ky] - j);
		best = f + b > best ? f + b : best;
		j = 1 + (x->pos[kx] < y->pos[ky] ? x->pos[kx] : y->pos[ky]);
	}
	return best;
}

int32_t sm_diag_score(const sm_ref_t *ref, const sm_score_t *sc, const uint8_t *q, int32_t n,
		      const int64_t d[3], int32_t least, int32_t *buf)
{
	const int32_t a = sc->match, miss = sc->mismatch;
	diag_runs_t r[3];
	int32_t gap[3], two[3] = { 0, 0, 0 }, top = 0;

	/* Each diagonal scored once; where the first or the last is the mode,
	 * a two-piece one along it is one piece less a gap, never better than
	 * the piece alone. */
	for (int i = 0; i < 3; i++) {
		const int same = i > 0 && d[i] == d[0] ? 0 : i == 2 && d[2] == d[1] ? 1 : -1;

		r[i] = (diag_runs_t){ .pos = buf + (3 * i + 0) * (n + 1),
				      .fwd = buf + (3 * i + 1) * (n + 1),
				      .bwd = buf + (3 * i + 2) * (n + 1) };
		gap[i] = sc->gap_open + sc->gap_ext * (int32_t)(d[i] > d[0] ? d[i] - d[0] : d[0] - d[i]);
		if (same >= 0) {
			r[i].best = r[same].best;
			continue;
		}
		diag_mismatches(ref, q, n, d[i], &r[i]);
		diag_pieces(&r[i], n, a, miss);
		top = r[i].best > top ? r[i].best : top;
	}
	/* The two-piece ones only where a pair's two best pieces, less the
	 * gap, could beat the best single one and reach least. */
	two[1] = d[1] != d[0] && r[0].best + r[1].best - gap[1] > top &&
		 r[0].best + r[1].best - gap[1] >= least;
	two[2] = d[2] != d[0] && d[2] != d[1] && r[0].best + r[2].best - gap[2] > top &&
		 r[0].best + r[2].best - gap[2] >= least;
	if (!two[1] && !two[2])
		return top;
	diag_pieces_back(&r[0], a, miss);
	for (int i = 1; i < 3; i++) {
		int32_t s;

		if (!two[i])
			continue;
		diag_pieces_back(&r[i], a, miss);
		s = diag_two_pieces(&r[0], &r[i], n, a);
		top = s - gap[i] > top ? s - gap[i] : top;
		s = diag_two_pieces(&r[i], &r[0], n, a);
		top = s - gap[i] > top ? s - gap[i] : top;
	}
	return top;
}

/* Cluster x's diagonal score (sm_diag_score, exact from least up) along its most
 * frequent hit diagonal, its first and its last.  cw->strand_read and
 * diag_buf ready. */
static int32_t cluster_diag_score(const diag_ctx_t *dc, const cand_cl_t *x, int32_t least)
{
	const int64_t d[3] = { dc->cw->cl_mode[x->at], x->c.lo, x->c.hi };

	return sm_diag_score(dc->ref, dc->sc, dc->cw->strand_read + (x->c.strand ? dc->n : 0), dc->n,
			     d, least, dc->cw->diag_buf);
}

/* Candidates choose_by_diagonal fetches the reference of ahead of the one
 * it scores. */
#define SM_DIAG_AHEAD 4

/* A binary min-heap of h[0..*n): adds v. */
static void heap_push_min(int32_t *h, int64_t *n, int32_t v)
{
	int64_t i = (*n)++;

	for (; i > 0 && h[(i - 1) / 2] > v; i = (i - 1) / 2)
		h[i] = h[(i - 1) / 2];
	h[i] = v;
}

/* The same, n values: replaces the least with v. */
static void heap_replace_min(int32_t *h, int64_t n, int32_t v)
{
	int64_t i = 0;

	for (;;) {
		int64_t c = 2 * i + 1;

		if (c >= n)
			break;
		if (c + 1 < n && h[c + 1] < h[c])
			c++;
		if (h[c] >= v)
			break;
		h[i] = h[c];
		i = c;
	}
	h[i] = v;
}

/* Fetches the reference bases under cluster c's diagonals for a read of
 * length n into the cache ahead of their use: between its first diagonal
 * and its last plus n (the mode in between).  Each cluster's bases lie at
 * a random place in the reference. */
static inline void prefetch_cluster(const sm_ref_t *ref, const sm_cluster_t *c, int32_t n)
{
	const int64_t to = c->hi + n < ref->total ? c->hi + n : ref->total;

	for (int64_t p = c->lo < 0 ? 0 : c->lo; p < to; p += 64)
		__builtin_prefetch(ref->seq + p);
}

/* Readies cw->strand_read and cw->diag_buf for sm_diag_score on read (base
 * codes, length n): the read on each strand, forward then reverse
 * complement, an ambiguous base never matching.  0, or -1 when out of
 * memory. */
static int diag_ready(complete_ws_t *cw, const uint8_t *read, int32_t n)
{
	if (sm_grow((void **)&cw->strand_read, &cw->cap_strand_read, 2 * (int64_t)n, 1) < 0 ||
	    sm_grow((void **)&cw->diag_buf, &cw->cap_diag_buf, 9 * ((int64_t)n + 1),
		    sizeof *cw->diag_buf) < 0)
		return -1;
	for (int32_t j = 0; j < n; j++) {
		const uint8_t f = read[j], r = read[n - 1 - j];

		cw->strand_read[j] = f < SM_BASE_N ? f : UINT8_MAX;
		cw->strand_read[n + j] = r < SM_BASE_N ? (uint8_t)(3 - r) : UINT8_MAX;
	}
	return 0;
}

/* Reorders cand[0..n_cand) (sorted by cand_before) so that its first
 * `kept` are the ones the pass scans now: the first kept - by_diag in
 * that order, then the by_diag of the others whose cluster's diagonals
 * align the read best (cluster_diag_score; ties: the first in cand_before
 * order); the others follow in that order.  By bound alone a divergent
 * read's origin, whose few exact k-mers give it no more support than
 * thousands of repeat copies that align far worse, can rank past every
 * round (seed.h; docs/seeded.md, "Which candidates are scanned first").
 * Returns 0, or -1 when out of memory. */
static int choose_by_diagonal(const diag_ctx_t *dc, cand_cl_t *cand, int64_t n_cand, int64_t kept,
			      int64_t by_diag)
{
	complete_ws_t *cw = dc->cw;
	const int32_t n = dc->n;
	int64_t first = kept - by_diag, at, above = 0;
	int32_t least;

	if (n_cand <= kept || by_diag <= 0)
		return 0;
	if (sm_grow((void **)&cw->cand_tmp, &cw->cap_cand_tmp, n_cand, sizeof *cw->cand_tmp) < 0 ||
	    sm_grow((void **)&cw->diag_heap, &cw->cap_diag_heap, by_diag, sizeof *cw->diag_heap) < 0 ||
	    diag_ready(cw, dc->read, n) < 0)
		return -1;
	/* Scored in order, with the least of the by_diag best so far as
	 * least: a candidate that cannot reach it is not chosen, and its score
	 * needs no more than a lower bound (sm_diag_score's two-piece ones
	 * skipped).  The reference under the candidate a few places on is
	 * fetched ahead: each candidate's bases lie at a random place in it. */
	for (int64_t t = first, held = 0; t < n_cand; t++) {
		least = held == by_diag ? cw->diag_heap[0] : 0;

		if (t + SM_DIAG_AHEAD < n_cand)
			prefetch_cluster(dc->ref, &cand[t + SM_DIAG_AHEAD].c, n);
		cand[t].diag = cluster_diag_score(dc, &cand[t], least);
		if (held < by_diag)
			heap_push_min(cw->diag_heap, &held, cand[t].diag);
		else if (cand[t].diag > least)
			heap_replace_min(cw->diag_heap, held, cand[t].diag);
	}
	/* The chosen: the by_diag best by score, ties to the earlier, in that
	 * order.  Those above the least held all are, then as many of those at
	 * it as are left, in their order; each is marked (diag -1) once taken. */
	least = cw->diag_heap[0];
	for (int64_t t = first; t < n_cand; t++)
		above += cand[t].diag > least;
	at = 0;
	for (int64_t t = first, level = 0; t < n_cand && at < by_diag; t++)
		if (cand[t].diag > least || (cand[t].diag == least && level++ < by_diag - above)) {
			cw->cand_tmp[at++] = cand[t];
			cand[t].diag = -1;
		}
	for (int64_t t = 1; t < at; t++) {   /* by score, stable: ties keep their order */
		const cand_cl_t x = cw->cand_tmp[t];
		int64_t u = t;

		for (; u > 0 && cw->cand_tmp[u - 1].diag < x.diag; u--)
			cw->cand_tmp[u] = cw->cand_tmp[u - 1];
		cw->cand_tmp[u] = x;
	}
	for (int64_t t = first; t < n_cand; t++)
		if (cand[t].diag >= 0)
			cw->cand_tmp[at++] = cand[t];
	memcpy(cand + first, cw->cand_tmp, (size_t)(n_cand - first) * sizeof *cand);
	return 0;
}

/* What ties_pool looks at besides the pass's read (diag_ctx_t). */
typedef struct {
	const sm_cluster_t *cl;   /* the pass's clusters, cl[0..n_cl) */
	int64_t n_cl;
	const sm_index_t *idx;
	int64_t brk, margin;
	int32_t best;             /* a candidate's bound beats it */
	int32_t min_votes;        /* and its read positions reach this */
	int64_t base;             /* a bound is at most base + brk x read positions */
	const sm_window_t *done;  /* windows scanned already */
	int32_t n_done;
} ties_view_t;

/* 1 if cluster t may be one of ties_pool's: outside the pool, of more
 * than one read position and enough of them, with room for a bound above
 * best. */
static inline int ties_may_qualify(const complete_ws_t *cw, const ties_view_t *v, int64_t t)
{
	return !cw->cl_pooled[t] && v->cl[t].votes > 1 && v->cl[t].votes >= v->min_votes &&
	       v->base + v->brk * v->cl[t].votes > v->best;
}

/* Cluster t's place in ties_pool's counting sort: most hits on one
 * diagonal first (levels - 1: the count of those of n + 1 or more). */
static inline int64_t tie_level(const complete_ws_t *cw, int64_t t, int64_t levels)
{
	return levels - 1 - (cw->cl_ties[t] < levels - 1 ? cw->cl_ties[t] : levels - 1);
}

/* Appends to cand[n_top..) the clusters outside the bound's pool
 * cand[0..n_top) with the most hits on their most frequent diagonal
 * (cl_ties; the earlier cluster on a tie): up to SM_COMPLETE_TIES_POOL of
 * those that would be candidates (more than one read position, a window
 * not scanned, a bound above best), in cand_before order, for
 * choose_by_diagonal to pick from as well.  The bound ranks an origin in a
 * repeat behind copies whose skipped k-mers count as support everywhere,
 * while its hits line up better than any copy's (seed.h).  Returns how
 * many, or -1 when out of memory. */
static int64_t ties_pool(const diag_ctx_t *dc, const ties_view_t *v, cand_cl_t *cand, int64_t n_top)
{
	complete_ws_t *cw = dc->cw;
	const int64_t levels = (int64_t)dc->n + 2;
	int64_t got = 0;

	if (sm_grow((void **)&cw->cl_pooled, &cw->cap_cl_pooled, v->n_cl, 1) < 0 ||
	    sm_grow((void **)&cw->tie_count, &cw->cap_tie_count, levels, sizeof *cw->tie_count) < 0 ||
	    sm_grow((void **)&cw->tie_order, &cw->cap_tie_order, v->n_cl, sizeof *cw->tie_order) < 0)
		return -1;
	memset(cw->cl_pooled, 0, (size_t)v->n_cl);
	for (int64_t t = 0; t < n_top; t++)
		cw->cl_pooled[cand[t].at] = 1;
	/* The clusters that may qualify (their bound could beat best), by
	 * their hits on one diagonal, most first, in their order within a count
	 * (a counting sort: tie_order[0..tie_count[levels - 1])). */
	memset(cw->tie_count, 0, (size_t)levels * sizeof *cw->tie_count);
	for (int64_t t = 0; t < v->n_cl; t++)
		if (ties_may_qualify(cw, v, t))
			cw->tie_count[tie_level(cw, t, levels)]++;
	for (int64_t l = 0, sum = 0; l < levels; l++) {
		const int64_t c = cw->tie_count[l];

		cw->tie_count[l] = sum;
		sum += c;
	}
	for (int64_t t = 0; t < v->n_cl; t++)
		if (ties_may_qualify(cw, v, t))
			cw->tie_order[cw->tie_count[tie_level(cw, t, levels)]++] = t;
	for (int64_t u = 0; got < SM_COMPLETE_TIES_POOL && u < cw->tie_count[levels - 1]; u++) {
		const int64_t t = cw->tie_order[u];
		cand_cl_t x = { .c = v->cl[t], .contig = cw->cl_contig[t], .ties = cw->cl_ties[t],
				.at = t };
		sm_window_t win;

		if (!contig_window(dc->ref, &v->cl[t], cw->cl_contig[t], dc->n, v->margin, &win) ||
		    scanned_already(&win, v->done, v->n_done))
			continue;
		x.bound = bound_with(cw, v->idx, dc->sc, dc->n, v->brk, cw->cl_at[t], cw->cl_at[t + 1]);
		if (x.bound > v->best)
			cand[n_top + got++] = x;
	}
	qsort(cand + n_top, (size_t)got, sizeof *cand, cmp_cand);
	return got;
}

int sm_seed_complete(sm_seeder_t *s, const sm_index_t *idx, const sm_ref_t *ref,
		     const sm_score_t *sc, const sm_seed_opt_t *opt, const uint8_t *read,
		     int32_t n, int32_t best, const sm_window_t *done, int32_t n_done,
		     int32_t max_next, int refine, sm_seed_next_t *next, sm_wref_t *w,
		     sm_seed_gap_t *gap)
{
	/* Clusters as wide as a gap run can be: all the seeds of one alignment
	 * fall in one cluster (sorted, its diagonals step by at most a gap). */
	const int64_t band = sm_reach(sc, n);
	const int64_t margin = sm_reach(sc, n) + opt->band;
	const int64_t brk = sm_bound_break_cost(idx->k, idx->w, sc);
	const int64_t brk_q = sm_bound_break_cost(SM_QGRAM, 1, sc);
	/* The most gap bases of an alignment that beats best: it leaves its
	 * seeds' diagonals by no more. */
	const int64_t shift = (sm_best_possible(sc, n) - best) / sc->gap_ext;
	int refine_now;  /* refine, unless the read has too many candidates */
	const int64_t top = (int64_t)opt->max_windows + max_next + 1;
	/* The heap holds SM_COMPLETE_POOL more, from which choose_by_diagonal
	 * takes a share of the windows scanned now (seed.h). */
	const int64_t pool = top + (opt->pool > 0 ? opt->pool : SM_COMPLETE_POOL);
	const qhit_key_t q = { n, ref->total + n };
	const int multi = ref->n_contig > 1;
	sm_cluster_t cur;
	int32_t cur_contig;
	int64_t n_mini = sm_minimizers(read, n, idx->k, 1, &s->mini, &s->cap_mini);
	int64_t n_hit, n_cl, n_top, kept, max_occ, limit;
	int32_t skipped = 0, floor, base, n_amb = 0;
	int rare = 1, rare_kept;   /* keep_rare_windows may run; it did */
	complete_ws_t *cw;

	if (!s->cw && !(s->cw = calloc(1, sizeof *s->cw)))
		goto oom;
	cw = s->cw;
	if (n_mini < 0 || complete_ws_reserve(cw, n) < 0 || (refine && qgram_prepare(cw, read, n) < 0) ||
	    sm_seeder_look_up(s, idx, s->mini, n_mini) < 0 ||
	    sm_grow((void **)&cw->skip, &cw->cap_skip, n_mini + 1, sizeof *cw->skip) < 0)
		goto oom;
	cw->sum_amb[0] = 0;
	for (int32_t i = 0; i < n; i++) {
		n_amb += read[i] >= SM_BASE_N;
		cw->sum_amb[i + 1] = n_amb;
	}
	/* A locus that beats `best` has that many supporting k-mers or more (at
	 * least one: a locus without any seed is beyond seeding). */
	floor = sm_seed_support_min(idx, sc, (int)band, n, n_amb, (int64_t)best + 1);
	floor = floor > 0 ? floor : 1;
	gap->hits = gap->passes = 0;
	/* The pass: with the rare windows first, then, where their looser
	 * bounds made more candidates than the lists hold, again with every
	 * k-mer's hits. */
pass:
	n_cl = n_top = 0;
	max_occ = opt->max_occ;
	cur = (sm_cluster_t){ 0, 0, 0, 0 };
	cur_contig = 0;
	gap->left = 0;
	/* The k-mers over the retry limit, skipped, could hold a better locus
	 * by themselves: then only the floor - 1 most frequent stay skipped
	 * (fewer than a better locus needs, so none hides among them alone),
	 * up to opt->max_hits hits in all. */
	skipped = mark_skipped(s, idx, n_mini, n, max_occ);
	if (sm_grow((void **)&cw->occ_sorted, &cw->cap_occ_sorted, n_mini + 1,
		    sizeof *cw->occ_sorted) < 0)
		goto oom;
	if (skipped >= floor && bound_with(cw, idx, sc, n, brk, 0, 0) > best) {
		int64_t keep = 0;

		memcpy(cw->occ_sorted, s->occ, (size_t)n_mini * sizeof *s->occ);
		qsort(cw->occ_sorted, (size_t)n_mini, sizeof *cw->occ_sorted, cmp_occ_desc);
		/* Skip those above the floor-th most frequent; keep lowering the
		 * limit's reach while the hits stay within opt->max_hits. */
		for (int64_t t = floor - 1; t < n_mini; t++)
			keep += cw->occ_sorted[t];
		if (keep <= opt->max_hits) {
			max_occ = floor - 1 < n_mini ? cw->occ_sorted[floor - 1] : 0;
			skipped = mark_skipped(s, idx, n_mini, n, max_occ);
		}
	}
	/* The budget: where the k-mers kept hold more than opt->max_hits
	 * hits, the most frequent of them are skipped too, down to a limit
	 * whose k-mers hold at most that many.  Skipping keeps the bounds
	 * sound (looser: the read may stay unsure), and caps the pass's work
	 * per read where every k-mer recurs in many copies. */
	limit = within_budget(s->occ, cw->skip, n_mini, opt->max_hits, cw->occ_sorted);
	if (limit < max_occ) {
		max_occ = limit;
		skipped = mark_skipped(s, idx, n_mini, n, max_occ);
	}
	/* The bound of a locus supported by the skipped k-mers alone; each
	 * more supporting read position raises it by brk at most (one mark
	 * removes windows that all hold it: one of a disjoint set at most).
	 * While it stays a break below best with fewer k-mers kept, only the
	 * rare windows' are (keep_rare_windows): a locus then needs two kept
	 * read positions to beat best, and the lone hits that most k-mers'
	 * occurrences make are never bounded. */
	base = bound_with(cw, idx, sc, n, brk, 0, 0);
	rare_kept = 0;
	if (rare && base <= (int64_t)best - brk) {
		int32_t more = keep_rare_windows(s, idx, sc, brk, n_mini, n, (int64_t)best - brk);

		if (more < 0)
			goto oom;
		rare_kept = more != skipped;
		skipped = more;
		base = bound_with(cw, idx, sc, n, brk, 0, 0);
	}
	n_hit = collect_qhits(s, idx, &q, n_mini, n);
	if (n_hit < 0)
		goto oom;
	gap->hits += n_hit;
	gap->passes++;
	if (skipped >= floor)
		gap->left = base;
	if (n_hit >= SM_HIT_RADIX_MIN) {
		if (sm_grow((void **)&cw->tmp, &cw->cap_tmp, n_hit, sizeof *cw->tmp) < 0)
			goto oom;
		if (sort_qhits(&q, cw->hit, cw->tmp, n_hit)) {   /* trade the buffers */
			uint64_t *h = cw->hit;
			int64_t cap = cw->cap_hit;

			cw->hit = cw->tmp, cw->cap_hit = cw->cap_tmp;
			cw->tmp = h, cw->cap_tmp = cap;
		}
	} else {
		sm_seeder_sort_hits(cw->hit, n_hit);
	}
	for (int32_t i = 0; i < n; i++) {
		cw->stamp[i] = -1;
		cw->one[i] = INT32_MIN;
	}
	/* Clusters as sm_seeder_build_clusters makes them (band: the gap reach), never
	 * across contigs (a hit's contig: that of its k-mer's reference
	 * position); votes: the distinct read k-mers among their hits, which
	 * start at cl_at[] (room for a cluster per hit: no growing inside the
	 * loop). */
	if (sm_grow((void **)&s->cl, &s->cap_cl, n_hit + 1, sizeof *s->cl) < 0 ||
	    sm_grow((void **)&cw->cl_at, &cw->cap_cl_at, n_hit + 2, sizeof *cw->cl_at) < 0 ||
	    sm_grow((void **)&cw->cl_contig, &cw->cap_cl_contig, n_hit + 1, sizeof *cw->cl_contig) < 0 ||
	    sm_grow((void **)&cw->cl_mode, &cw->cap_cl_mode, n_hit + 1, sizeof *cw->cl_mode) < 0 ||
	    sm_grow((void **)&cw->cl_ties, &cw->cap_cl_ties, n_hit + 1, sizeof *cw->cl_ties) < 0)
		goto oom;
	/* run: the cluster's hits so far on diagonal prev (hits of a cluster
	 * come sorted by diagonal), for its mode. */
	int64_t prev = 0;
	int32_t run = 0;
	for (int64_t t = 0; t < n_hit; t++) {   /* cur: cluster n_cl - 1, stored when closed */
		const uint64_t h = cw->hit[t];
		const int32_t strand = qhit_strand(&q, h), qpos = (int32_t)(h & QHIT_POS_MASK);
		const int64_t diag = qhit_diag(&q, h);
		int32_t contig = 0;

		if (multi)
			contig = sm_offset_find(ref->offset, ref->n_contig,
						strand ? diag + n - qpos + idx->k - 2 : diag + qpos);
		if (t == 0 || cur.strand != strand || diag - cur.hi > band || cur_contig != contig) {
			if (t > 0)
				s->cl[n_cl - 1] = cur;
			cw->cl_at[n_cl] = t;
			cw->cl_contig[n_cl] = contig;
			cw->cl_ties[n_cl++] = 0;
			cur = (sm_cluster_t){ diag, diag, strand, 0 };
			cur_contig = contig;
			run = 0;
		}
		run = run > 0 && diag == prev ? run + 1 : 1;
		prev = diag;
		if (run > cw->cl_ties[n_cl - 1]) {
			cw->cl_ties[n_cl - 1] = run;
			cw->cl_mode[n_cl - 1] = diag;
		}
		cur.hi = diag;
		cur.votes += cw->stamp[qpos] != n_cl - 1;   /* no branch: votes come unordered */
		cw->stamp[qpos] = n_cl - 1;
	}
	if (n_cl > 0) {
		s->cl[n_cl - 1] = cur;
		cw->cl_at[n_cl] = n_hit;
	}
	/* Candidates: clusters not inside a window scanned already whose
	 * support (with the skipped k-mers) reaches the floor and whose
	 * sm_bound_score beats `best` (it cannot when base + brk x votes does
	 * not).  Only the first max_windows + max_next + 1 (cand_before)
	 * matter to the bound's order: those kept, those for later rounds,
	 * and the best one left out (gap->left, gap->beyond); the heap holds
	 * SM_COMPLETE_POOL more for choose_by_diagonal, then is sorted.  Once
	 * it is full, a cluster whose base + brk x votes is below the bound of
	 * the last one in it is not bounded: its
	 * own bound is lower, so it ranks after all of them (each supporting
	 * read position beyond the skipped k-mers' moves the bound by brk at
	 * most: it removes windows that all hold it, one of a disjoint set at
	 * most). */
	if (sm_grow((void **)&cw->cand, &cw->cap_cand, pool + SM_COMPLETE_TIES_POOL,
		    sizeof *cw->cand) < 0)
		goto oom;
	/* Refining costs a pass over each candidate's window: a read with more
	 * candidates than SM_REFINE_MOST (counted as the loop below admits
	 * them, multi-vote clusters by votes alone) is left to the seeds'
	 * bounds, which its candidates would keep unsure anyway. */
	refine_now = refine;
	for (int64_t t = 0, count = 0; refine_now && t < n_cl; t++) {
		if (s->cl[t].votes + skipped < floor || base + brk * s->cl[t].votes <= best ||
		    (s->cl[t].votes == 1 &&
		     bound_one(cw, idx, sc, n, brk,
			       (int32_t)(cw->hit[cw->cl_at[t]] & QHIT_POS_MASK)) <= best))
			continue;
		if (++count > SM_REFINE_MOST)
			refine_now = 0;
	}
	if (refine && !refine_now) {
		/* Nothing to refine: the windows done stand, and so does the
		 * doubt (the seeds' bounds alone left the read unsure). */
		if (sm_grow((void **)&w->win, &w->cap_win, n_done + 1, sizeof *w->win) < 0)
			goto oom;
		if (n_done > 0)
			memcpy(w->win, done, (size_t)n_done * sizeof *w->win);
		w->n_win = n_done;
		gap->left = gap->beyond = SM_SEED_UNREACHABLE;
		gap->n_new = gap->n_next = 0;
		return w->n_win;
	}
	for (int64_t t = 0; t < n_cl; t++) {
		const int64_t most = base + brk * s->cl[t].votes;
		cand_cl_t x = { .c = s->cl[t], .contig = cw->cl_contig[t], .at = t };
		sm_window_t win;

		if (s->cl[t].votes + skipped < floor || most <= best ||
		    (n_top == pool && most < cw->cand[0].bound))
			continue;
		/* A cluster of one read position has its bound at hand (bound_one):
		 * it is ranked before its window is made and compared. */
		if (x.c.votes == 1) {
			x.bound = bound_one(cw, idx, sc, n, brk,
					    (int32_t)(cw->hit[cw->cl_at[t]] & QHIT_POS_MASK));
			if (x.bound <= best || (n_top == pool && !cand_before(&x, &cw->cand[0])))
				continue;
		}
		if (!contig_window(ref, &s->cl[t], cw->cl_contig[t], n, margin, &win) ||
		    scanned_already(&win, done, n_done))
			continue;
		if (x.c.votes > 1)
			x.bound = bound_with(cw, idx, sc, n, brk, cw->cl_at[t], cw->cl_at[t + 1]);
		if (x.bound <= best)
			continue;
		if (x.c.votes > 1)
			x.ties = cw->cl_ties[t];
		if (refine_now) {
			/* Bounded again from its window's bases, as far as an
			 * alignment that beats best can reach (window_bound). */
			sm_window_t xq = win;
			int32_t b;

			if (xq.start < x.c.lo - shift)
				xq.start = x.c.lo - shift;
			if (xq.end > x.c.hi + n + shift)
				xq.end = x.c.hi + n + shift;
			b = window_bound(cw, ref, sc, n, brk_q, &xq, x.c.strand);
			if (b < x.bound)
				x.bound = b;
			if (x.bound <= best)
				continue;
		}
		cand_offer(cw->cand, &n_top, pool, &x);
	}
	qsort(cw->cand, (size_t)n_top, sizeof *cw->cand, cmp_cand);
	kept = n_top < opt->max_windows ? n_top : opt->max_windows;
	if (n_top > kept) {
		/* The share by diagonal picks from the pool and from the clusters
		 * with the most hits on one diagonal (ties_pool); those of the
		 * latter not picked leave again, from the tail (choose_by_diagonal
		 * keeps the order of the rest). */
		const diag_ctx_t dc = { cw, ref, sc, read, n };
		const ties_view_t v = { s->cl, n_cl, idx, brk, margin, best, floor - skipped, base,
					done, n_done };
		const int64_t by = (kept + SM_COMPLETE_BY_DIAG_SHARE - 1) / SM_COMPLETE_BY_DIAG_SHARE;
		const int64_t extra = ties_pool(&dc, &v, cw->cand, n_top);

		if (extra < 0 || choose_by_diagonal(&dc, cw->cand, n_top + extra, kept, by) < 0)
			goto oom;
		for (int64_t t = kept - by; t < kept; t++)
			n_top += !cw->cl_pooled[cw->cand[t].at];
	}
	if (n_top > kept && cw->cand[kept].bound > gap->left)
		gap->left = cw->cand[kept].bound;
	/* Later rounds' candidates; every other one ranks after the heap's
	 * last (the heap drops nothing before it is full), so that one's bound
	 * covers them. */
	gap->n_next = (int32_t)(n_top - kept < max_next ? n_top - kept : max_next);
	for (int32_t t = 0; t < gap->n_next; t++) {
		const cand_cl_t *x = &cw->cand[kept + t];

		contig_window(ref, &x->c, x->contig, n, margin, &next[t].win);
		next[t].bound = x->bound;
	}
	gap->beyond = skipped >= floor ? base : 0;
	if (n_top > kept + gap->n_next && cw->cand[kept + gap->n_next].bound > gap->beyond)
		gap->beyond = cw->cand[kept + gap->n_next].bound;
	if (rare_kept && gap->beyond > best) {
		rare = 0;
		goto pass;
	}
	if (sm_grow((void **)&w->win, &w->cap_win, kept + n_done, sizeof *w->win) < 0)
		goto oom;
	if (n_done > 0)
		memcpy(w->win, done, (size_t)n_done * sizeof *w->win);
	w->n_win = n_done;
	for (int64_t t = 0; t < kept; t++)
		w->n_win += contig_window(ref, &cw->cand[t].c, cw->cand[t].contig, n, margin,
					  &w->win[w->n_win]);
	sm_seeder_merge_windows(w, ref);
	gap->n_new = (int32_t)kept;
	return w->n_win;
oom:
	sm_log(SM_LOG_ERROR, "seeding: out of memory");
	return -1;
}

int sm_seed_complete_next(const sm_ref_t *ref, int32_t max_windows, int32_t best,
			  const sm_window_t *done, int32_t n_done, sm_seed_next_t *next,
			  int32_t *n_next, int32_t beyond, sm_wref_t *w, sm_seed_gap_t *gap)
{
	int32_t kept = 0, n_left = 0;

	if (sm_grow((void **)&w->win, &w->cap_win, (int64_t)n_done + max_windows,
		    sizeof *w->win) < 0) {
		sm_log(SM_LOG_ERROR, "seeding: out of memory");
		return -1;
	}
	if (n_done > 0)
		memcpy(w->win, done, (size_t)n_done * sizeof *w->win);
	w->n_win = n_done;
	gap->left = beyond;
	gap->hits = gap->passes = 0;   /* no look-up */
	/* What sm_seed_complete's candidate loop keeps of them, in their order. */
	for (int32_t t = 0; t < *n_next; t++) {
		const sm_seed_next_t x = next[t];

		if (x.bound <= best || scanned_already(&x.win, done, n_done))
			continue;
		if (kept < max_windows) {
			w->win[w->n_win++] = x.win;
			kept++;
			continue;
		}
		if (n_left == 0 && x.bound > gap->left)
			gap->left = x.bound;
		next[n_left++] = x;
	}
	*n_next = n_left;
	sm_seeder_merge_windows(w, ref);
	gap->n_new = kept;
	gap->n_next = n_left;
	gap->beyond = beyond;
	return w->n_win;
}


/* Every k-mer of read (base codes, length n; as sm_minimizers gives them
 * with w = 1: end position, canonical strand and hash) and then those of
 * its 3k one-substitution neighbours whose hash is at most max_hash, at
 * the same end position, into s->mini.  Returns their number or -1 when
 * out of memory. */
static int64_t neighbour_kmers(sm_seeder_t *s, const uint8_t *read, int32_t n, int k,
			       uint32_t max_hash)
{
	int64_t n_exact = sm_minimizers(read, n, k, 1, &s->mini, &s->cap_mini), m;

	if (n_exact < 0 || sm_grow((void **)&s->mini, &s->cap_mini, n_exact * (1 + 3 * k),
				   sizeof *s->mini) < 0)
		return -1;
	m = n_exact;
	for (int64_t t = 0; t < n_exact; t++) {
		const uint8_t *b = read + s->mini[t].pos - k + 1;
		uint64_t fwd = 0, rev = 0;   /* base j at bits 2(k-1-j), its complement at 2j */

		for (int j = 0; j < k; j++) {
			fwd = fwd << 2 | b[j];
			rev |= (uint64_t)(3 - b[j]) << (2 * j);
		}
		for (int j = 0; j < k; j++)
			for (uint64_t x = 1; x < 4; x++) {   /* b[j] ^ x: the other three bases */
				uint64_t f = fwd ^ x << (2 * (k - 1 - j)), r = rev ^ x << (2 * j);
				const uint32_t h = (uint32_t)sm_mix64(r < f ? r : f);

				if (h > max_hash)
					continue;
				s->mini[m].strand = r < f;
				s->mini[m].hash = h;
				s->mini[m].pos = s->mini[t].pos;
				m++;
			}
	}
	return m;
}

/* The workspace of a bound for read (base codes, length n) whose k-mers
 * ending at the positions that skip marks (none when skip is NULL) count
 * as supporting everywhere: cw->sum_amb, cw->mark and cw->ok set
 * (sm_bound_windows).  NULL when out of memory. */
static complete_ws_t *bound_ws(sm_seeder_t *s, const sm_index_t *idx, const uint8_t *read,
			       int32_t n, const uint8_t *skip)
{
	complete_ws_t *cw;

	if (!s->cw && !(s->cw = calloc(1, sizeof *s->cw)))
		return NULL;
	cw = s->cw;
	if (complete_ws_reserve(cw, n) < 0)
		return NULL;
	cw->sum_amb[0] = 0;
	for (int32_t i = 0; i < n; i++) {
		cw->sum_amb[i + 1] = cw->sum_amb[i] + (read[i] >= SM_BASE_N);
		cw->mark[i] = skip && skip[i];
	}
	sm_bound_windows(idx->k, idx->w, n, cw->mark, cw->sum_amb, cw->ok);
	return cw;
}

int32_t sm_seed_unseeded_bound(sm_seeder_t *s, const sm_index_t *idx, const sm_score_t *sc,
			       const uint8_t *read, int32_t n)
{
	complete_ws_t *cw = bound_ws(s, idx, read, n, NULL);
	int32_t bound;

	if (!cw)
		return -1;
	bound = sm_bound_score(cw->ok, idx->k, idx->w, n, sc, sm_bound_break_cost(idx->k, idx->w, sc));
	return bound > 0 ? bound : 0;
}

int sm_seed_divergent(const sm_index_t *idx, const sm_score_t *sc, int32_t n, int32_t score,
		      int32_t q_start, int32_t q_end)
{
	const int64_t span = q_end - q_start;
	const int64_t loss = span * sc->match + (q_start == 0 ? sc->clip5 : 0) +
			     (q_end == n ? sc->clip3 : 0) - score;

	return span > 0 &&
	       loss * (idx->k + idx->w - 1) >= sm_bound_break_cost(idx->k, idx->w, sc) * span;
}

/* 1 if a goes before b: the better diagonal score, then as
 * sm_cluster_before (a total order). */
static int pick_before(const diag_pick_t *a, const diag_pick_t *b)
{
	return a->diag != b->diag ? a->diag > b->diag : sm_cluster_before(&a->c, &b->c);
}

/* The up to `keep` windows of the clusters s->cl[0..n_cl) with at least
 * min_votes hits, outside done[0..n_done), whose first and last diagonals
 * align read (base codes, length n) best (sm_diag_score), into w->win[0..)
 * in that order (pick_before); margin as sm_seeder_cluster_window's.  Returns their
 * number, or -1 when out of memory. */
static int32_t best_by_diagonal(sm_seeder_t *s, const sm_ref_t *ref, const sm_score_t *sc,
				const uint8_t *read, int32_t n, int64_t n_cl, int32_t min_votes,
				int64_t margin, const sm_window_t *done, int32_t n_done,
				int32_t keep, sm_wref_t *w)
{
	complete_ws_t *cw = s->cw ? s->cw : (s->cw = calloc(1, sizeof *s->cw));
	diag_pick_t *top;
	int32_t held = 0;

	if (keep <= 0)
		return 0;
	if (!cw || sm_grow((void **)&cw->pick, &cw->cap_pick, keep, sizeof *cw->pick) < 0 ||
	    diag_ready(cw, read, n) < 0)
		return -1;
	top = cw->pick;
	for (int64_t t = 0; t < n_cl; t++) {
		const sm_cluster_t *c = &s->cl[t];
		const int64_t d[3] = { c->lo, c->lo, c->hi };
		diag_pick_t p = { .c = *c };
		int32_t at;

		if (t + SM_DIAG_AHEAD < n_cl)
			prefetch_cluster(ref, &s->cl[t + SM_DIAG_AHEAD], n);
		if (c->votes < min_votes || !sm_seeder_cluster_window(ref, c, n, margin, &p.x) ||
		    scanned_already(&p.x, done, n_done))
			continue;
		p.diag = sm_diag_score(ref, sc, cw->strand_read + (c->strand ? n : 0), n, d, 0,
				       cw->diag_buf);
		if (held == keep && !pick_before(&p, &top[held - 1]))
			continue;
		at = held < keep ? held++ : held - 1;
		for (; at > 0 && pick_before(&p, &top[at - 1]); at--)
			top[at] = top[at - 1];
		top[at] = p;
	}
	for (int32_t t = 0; t < held; t++)
		w->win[t] = top[t].x;
	return held;
}

int sm_seed_neighbours(sm_seeder_t *s, const sm_index_t *idx, const sm_ref_t *ref,
		       const sm_score_t *sc, const sm_seed_opt_t *opt, const uint8_t *read,
		       int32_t n, const sm_window_t *done, int32_t n_done, uint32_t max_hash,
		       int32_t min_votes, int by_diag, sm_wref_t *w, int64_t *hits)
{
	const int64_t margin = sm_reach(sc, n) + opt->band;
	int64_t n_mini = neighbour_kmers(s, read, n, idx->k, max_hash);
	int64_t limit = opt->max_occ, sum = 0, n_cl;

	if (n_mini < 0 || sm_seeder_look_up(s, idx, s->mini, n_mini) < 0)
		goto oom;
	/* The budget of hits, as the completion's (within_budget): the most
	 * frequent k-mers beyond it are left out. */
	for (int64_t t = 0; t < n_mini; t++)
		sum += s->occ[t] <= limit ? s->occ[t] : 0;
	if (sum > opt->max_hits) {
		complete_ws_t *cw = s->cw ? s->cw : (s->cw = calloc(1, sizeof *s->cw));

		if (!cw || sm_grow((void **)&cw->skip, &cw->cap_skip, n_mini, 1) < 0 ||
		    sm_grow((void **)&cw->occ_sorted, &cw->cap_occ_sorted, n_mini,
			    sizeof *cw->occ_sorted) < 0)
			goto oom;
		for (int64_t t = 0; t < n_mini; t++)
			cw->skip[t] = s->occ[t] > limit;
		limit = within_budget(s->occ, cw->skip, n_mini, opt->max_hits, cw->occ_sorted);
	}
	if (sm_seeder_collect_hits(s, idx, n_mini, n, limit) < 0)
		goto oom;
	*hits = s->n_hit;
	/* Twice the clusters kept, as those already scanned take places; by
	 * diagonal, every one looked at. */
	n_cl = by_diag ? sm_seeder_build_clusters(s, opt->band)
		       : sm_seeder_make_clusters(s, opt->band, 2 * (int64_t)opt->max_windows);
	if (n_cl < 0 || sm_grow((void **)&w->win, &w->cap_win, (int64_t)n_done + opt->max_windows,
				sizeof *w->win) < 0)
		goto oom;
	w->n_win = 0;
	if (by_diag) {
		w->n_win = best_by_diagonal(s, ref, sc, read, n, n_cl, min_votes, margin, done, n_done,
					    opt->max_windows, w);
		if (w->n_win < 0)
			goto oom;
	} else {
		for (int64_t t = 0; t < n_cl && w->n_win < opt->max_windows; t++) {
			sm_window_t x;

			if (s->cl[t].votes < min_votes)
				break;   /* by votes, most first */
			if (sm_seeder_cluster_window(ref, &s->cl[t], n, margin, &x) &&
			    !scanned_already(&x, done, n_done))
				w->win[w->n_win++] = x;
		}
	}
	if (n_done > 0)
		memcpy(w->win + w->n_win, done, (size_t)n_done * sizeof *w->win);
	w->n_win += n_done;
	sm_seeder_merge_windows(w, ref);
	return w->n_win;
oom:
	sm_log(SM_LOG_ERROR, "seeding: out of memory");
	return -1;
}

/* 1 if a window among win[0..n_win) ends at the end of its contig. */
static int window_at_contig_end(const sm_ref_t *ref, const sm_window_t *win, int32_t n_win)
{
	for (int32_t t = 0; t < n_win; t++) {
		int32_t c = sm_offset_find(ref->offset, ref->n_contig, win[t].start);

		if (win[t].end == ref->offset[c] + ref->len[c])
			return 1;
	}
	return 0;
}

int sm_seed_settled(sm_seeder_t *s, const sm_index_t *idx, const sm_ref_t *ref,
		    const sm_score_t *sc, const sm_seed_left_t *left, const uint8_t *skip,
		    const sm_window_t *win, int32_t n_win, const uint8_t *read, int32_t n,
		    int32_t best)
{
	const int64_t brk = sm_bound_break_cost(idx->k, idx->w, sc);
	int32_t n_amb = 0, floor;
	complete_ws_t *cw;

	/* Nothing left out (most reads): the support test below passes. */
	if (left->skipped == 0 && left->dropped == 0)
		return !window_at_contig_end(ref, win, n_win);
	for (int32_t i = 0; i < n; i++)
		n_amb += read[i] >= SM_BASE_N;
	floor = sm_seed_support_min(idx, sc, (int)sm_reach(sc, n), n, n_amb, (int64_t)best + 1);
	if ((int64_t)left->skipped + left->dropped < (floor > 0 ? floor : 1))
		return !window_at_contig_end(ref, win, n_win);
	/* Only skipped k-mers and at most `dropped` hits can support a locus
	 * outside the windows: bound its objective by the skipped k-mers'
	 * read positions (sm_bound_score), plus brk for each hit (as in
	 * sm_seed_complete). */
	if (!(cw = bound_ws(s, idx, read, n, left->skipped > 0 ? skip : NULL)))
		return -1;
	if (bound_with(cw, idx, sc, n, brk, 0, 0) + brk * left->dropped > best)
		return 0;
	return !window_at_contig_end(ref, win, n_win);
}

int sm_seed_unsure(const sm_seed_gap_t *gap, int32_t best)
{
	return gap->left > best;
}
