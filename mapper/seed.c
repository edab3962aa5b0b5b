/* seed.c — minimizer votes, clusters and window references (see seed.h); the
 * completion and neighbour passes are complete.c's. */
#include "mapper/seed.h"

#include <stdlib.h>
#include <string.h>

#include "io/log.h"
#include "mapper/grow.h"
#include "mapper/radix.h"
#include "mapper/seed_impl.h"

/* A seed hit (seed_hit_t, seed_impl.h) packs its strand and diagonal so
 * that hits sort by strand then diagonal as plain integers: bit 63 the
 * strand (0: read forward, 1: reverse complement), bits 0-62 the diagonal
 * (reference position of the oriented read's base 0, >= -read length) plus
 * HIT_DIAG_BIAS. */
#define HIT_STRAND_SHIFT 63
#define HIT_DIAG_BIAS ((int64_t)1 << 40)
/* Runs this short are sorted by insertion. */
#define HIT_SORT_SMALL 16

static seed_hit_t hit_pack(int32_t strand, int64_t diag)
{
	return (uint64_t)strand << HIT_STRAND_SHIFT | (uint64_t)(diag + HIT_DIAG_BIAS);
}

static int32_t hit_strand(seed_hit_t h)
{
	return (int32_t)(h >> HIT_STRAND_SHIFT);
}

static int64_t hit_diag(seed_hit_t h)
{
	return (int64_t)(h & ~((uint64_t)1 << HIT_STRAND_SHIFT)) - HIT_DIAG_BIAS;
}

void sm_seed_opt_init(sm_seed_opt_t *o)
{
	o->max_occ = SM_SEED_DEFAULT_MAX_OCC;
	o->max_windows = SM_SEED_DEFAULT_MAX_WINDOWS;
	o->band = SM_SEED_DEFAULT_BAND;
	o->max_hits = SM_SEED_MAX_HITS;
	o->pool = SM_COMPLETE_POOL;
	o->copy_occ = SM_COPY_MAX_OCC;
	o->copy_compared = SM_COPY_MAX_COMPARED;
}

sm_seeder_t *sm_seeder_create(void)
{
	return calloc(1, sizeof(sm_seeder_t));
}

void sm_seeder_destroy(sm_seeder_t *s)
{
	if (!s)
		return;
	free(s->mini);
	free(s->hit);
	free(s->hit_tmp);
	free(s->cl);
	free(s->cl_a);
	free(s->occ);
	free(s->pos);
	free(s->wmin);
	free(s->wocc);
	free(s->wdp);
	free(s->wkey);
	sm_complete_ws_free(s->cw);
	free(s);
}

void sm_wref_free(sm_wref_t *w)
{
	free(w->ref.seq);
	free(w->ref.len);
	free(w->ref.offset);
	free(w->start);
	free(w->win);
	memset(w, 0, sizeof *w);
}

/* Looks the hashes of m[0..n_mini) up (s->occ, s->pos). */
int sm_seeder_look_up(sm_seeder_t *s, const sm_index_t *idx, const sm_mini_t *m, int64_t n_mini)
{
	int64_t cap = s->cap_look;

	if (sm_grow((void **)&s->occ, &cap, n_mini, sizeof *s->occ) < 0)
		return -1;
	cap = s->cap_look;
	if (sm_grow((void **)&s->pos, &cap, n_mini, sizeof *s->pos) < 0)
		return -1;
	s->cap_look = cap;
	sm_index_get_many(idx, n_mini, m, s->occ, s->pos);
	return 0;
}

/* Collects the hits of minimizers with at most max_occ occurrences (after
 * sm_seeder_look_up). */
int sm_seeder_collect_hits(sm_seeder_t *s, const sm_index_t *idx, int64_t n_mini, int32_t n,
			   int64_t max_occ)
{
	s->n_hit = 0;
	for (int64_t t = 0; t < n_mini; t++) {
		const sm_mini_t *m = &s->mini[t];
		const int64_t *pos = s->pos[t];
		int64_t occ = s->occ[t];

		if (occ == 0 || occ > max_occ)
			continue;
		if (sm_grow((void **)&s->hit, &s->cap_hit, s->n_hit + occ, sizeof *s->hit) < 0)
			return -1;
		for (int64_t u = 0; u < occ; u++) {
			int64_t g = pos[u] >> 1;
			int32_t strand = (int32_t)((pos[u] & 1) ^ m->strand);

			/* On the reverse strand the k-mer ending at read position p
			 * ends at n - p + k - 2 in the reverse-complemented read. */
			s->hit[s->n_hit++] = hit_pack(strand, strand ? g - (n - m->pos + idx->k - 2) :
						      g - m->pos);
		}
	}
	return 0;
}

/* Sorts h[0..n) ascending: quicksort (median of three) down to short runs,
 * then insertion.  Equal hits are indistinguishable, so the result is that
 * of any sort. */
void sm_seeder_sort_hits(seed_hit_t *h, int64_t n)
{
	while (n > HIT_SORT_SMALL) {
		seed_hit_t a = h[0], b = h[n / 2], c = h[n - 1], pivot, t;
		int64_t i = 0, j = n - 1;

		pivot = a < b ? (b < c ? b : a < c ? c : a) : (a < c ? a : b < c ? c : b);
		for (;;) {   /* Hoare partition: h[0..j] <= pivot <= h[j+1..n) */
			while (h[i] < pivot)
				i++;
			while (h[j] > pivot)
				j--;
			if (i >= j)
				break;
			t = h[i], h[i] = h[j], h[j] = t;
			i++, j--;
		}
		/* Recurse into the smaller side, loop on the larger. */
		if (j + 1 < n - j - 1) {
			sm_seeder_sort_hits(h, j + 1);
			h += j + 1;
			n -= j + 1;
		} else {
			sm_seeder_sort_hits(h + j + 1, n - j - 1);
			n = j + 1;
		}
	}
	for (int64_t i = 1; i < n; i++) {
		seed_hit_t x = h[i];
		int64_t j = i;

		for (; j > 0 && h[j - 1] > x; j--)
			h[j] = h[j - 1];
		h[j] = x;
	}
}

static int cmp_window(const void *a, const void *b)
{
	const sm_window_t *x = a, *y = b;

	return (x->start > y->start) - (x->start < y->start);
}

/* Sorts win[0..n) by start (win may be NULL when n is 0: qsort must not see it). */
static void sort_windows(sm_window_t *win, int64_t n)
{
	if (n > 1)
		qsort(win, (size_t)n, sizeof *win, cmp_window);
}

/* Sorts w's windows and merges those that overlap (sm_windows_merge). */
void sm_seeder_merge_windows(sm_wref_t *w, const sm_ref_t *ref)
{
	sort_windows(w->win, w->n_win);
	w->n_win = sm_windows_merge(w->win, w->n_win, ref->offset, ref->n_contig);
}

/* Keeps the `keep` best clusters of cl[0..n) (sm_cluster_before, a total
 * order) in cl[0..), best first, by insertion: what qsort followed by a cut
 * would leave, without sorting the many one-vote clusters of a repetitive
 * read.  Returns how many are kept. */
static int64_t best_clusters(sm_cluster_t *cl, int64_t n, int64_t keep)
{
	int64_t k = 0;

	for (int64_t t = 0; t < n; t++) {
		sm_cluster_t c = cl[t];   /* k <= t: the list reaches cl[t] at most */

		sm_cluster_keep(cl, &k, keep, &c);
	}
	return k;
}

/* Clusters of the hits s->hit[0..n_hit) into s->cl, in the order of the
 * sorted hits (strand, then diagonal: the clusters of a strand come in
 * ascending, disjoint diagonal ranges).  Returns their number, -1 when out
 * of memory. */
int64_t sm_seeder_build_clusters(sm_seeder_t *s, int band)
{
	int64_t n_cl = 0;

	if (s->n_hit < SM_HIT_RADIX_MIN) {
		sm_seeder_sort_hits(s->hit, s->n_hit);
	} else {
		if (sm_grow((void **)&s->hit_tmp, &s->cap_hit_tmp, s->n_hit, sizeof *s->hit_tmp) < 0)
			return -1;
		sm_radix_sort_u64(s->hit, s->hit_tmp, s->n_hit);
	}
	for (int64_t t = 0; t < s->n_hit; t++) {
		int32_t strand = hit_strand(s->hit[t]);
		int64_t diag = hit_diag(s->hit[t]);
		sm_cluster_t *c = n_cl ? &s->cl[n_cl - 1] : NULL;

		if (c && c->strand == strand && diag - c->hi <= band) {
			c->hi = diag;
			c->votes++;
			continue;
		}
		if (sm_grow((void **)&s->cl, &s->cap_cl, n_cl + 1, sizeof *s->cl) < 0)
			return -1;
		s->cl[n_cl++] = (sm_cluster_t){ diag, diag, strand, 1 };
	}
	return n_cl;
}

int64_t sm_seeder_make_clusters(sm_seeder_t *s, int band, int64_t keep)
{
	int64_t n_cl = sm_seeder_build_clusters(s, band);

	return n_cl < 0 ? -1 : best_clusters(s->cl, n_cl, keep);
}

/* Elements that a window reference's arrays start with: a mapping thread
 * keeps two window references per read of its batch (thousands), most
 * with a few windows, which arrays of 64 would spread over tens of
 * megabytes of memory touched once per thread. */
#define SM_WREF_FIRST_CAP 8

/* Lays out w's windows as contigs (offsets, lengths, global starts) and,
 * when bases, copies their bases from ref.  0 or -1 when out of memory. */
static int wref_layout(sm_wref_t *w, const sm_ref_t *ref, int bases)
{
	int64_t total = 0;
	int32_t n_win = w->n_win;

	for (int32_t t = 0; t < n_win; t++)
		total += w->win[t].end - w->win[t].start;
	if ((bases && sm_grow((void **)&w->ref.seq, &w->cap_seq, total + 1, 1) < 0))
		return -1;
	if (n_win + 1 > w->cap_contig) {   /* three arrays of the same capacity */
		int64_t **arr[] = { &w->ref.len, &w->ref.offset, &w->start };
		int64_t m = w->cap_contig;

		for (int a = 0; a < 3; a++) {
			m = w->cap_contig;
			if (sm_grow_from((void **)arr[a], &m, n_win + 1, sizeof(int64_t),
					 SM_WREF_FIRST_CAP) < 0)
				return -1;
		}
		w->cap_contig = m;
	}
	w->ref.n_contig = n_win;
	w->ref.total = 0;
	for (int32_t t = 0; t < n_win; t++) {
		int64_t len = w->win[t].end - w->win[t].start;

		if (bases)
			memcpy(w->ref.seq + w->ref.total, ref->seq + w->win[t].start, (size_t)len);
		w->ref.offset[t] = w->ref.total;
		w->ref.len[t] = len;
		w->start[t] = w->win[t].start;
		w->ref.total += len;
	}
	return 0;
}

int sm_wref_set_window(sm_wref_t *w, const sm_ref_t *ref, int64_t start, int64_t end)
{
	sm_window_t one = { start, end, 0, 3 };

	return sm_wref_set_windows(w, ref, &one, 1);
}

static int wref_set(sm_wref_t *w, const sm_ref_t *ref, const sm_window_t *win, int32_t n,
		    int bases)
{
	if (sm_grow_from((void **)&w->win, &w->cap_win, n, sizeof *w->win, SM_WREF_FIRST_CAP) < 0)
		goto oom;
	w->n_win = 0;
	for (int32_t t = 0; t < n; t++)
		if (win[t].start < win[t].end)
			w->win[w->n_win++] = win[t];
	if (wref_layout(w, ref, bases) < 0)
		goto oom;
	return 0;
oom:
	sm_log(SM_LOG_ERROR, "seeding: out of memory");
	return -1;
}

int sm_wref_set_windows(sm_wref_t *w, const sm_ref_t *ref, const sm_window_t *win, int32_t n)
{
	return wref_set(w, ref, win, n, 1);
}

int sm_wref_place_windows(sm_wref_t *w, const sm_ref_t *ref, const sm_window_t *win,
			  int32_t n)
{
	return wref_set(w, ref, win, n, 0);
}

/* 1 if sorted hit h lies in one of the clusters kept[0..n) (in hit
 * order); *c: the first that may still hold h or a later hit, advanced. */
static int hit_kept(seed_hit_t h, const sm_cluster_t *kept, int64_t n, int64_t *c)
{
	while (*c < n && (kept[*c].strand < hit_strand(h) ||
			  (kept[*c].strand == hit_strand(h) && kept[*c].hi < hit_diag(h))))
		(*c)++;
	return *c < n && kept[*c].strand == hit_strand(h) && kept[*c].lo <= hit_diag(h);
}

/* sm_seed_left_t's dropped: the most hits outside the kept clusters
 * s->cl[0..n_cl) that one alignment can hold, bounded from above by the
 * most such hits of one strand within `reach` diagonals from one of them
 * (an alignment's diagonals differ by its gaps, less than reach).  A
 * cluster holds every hit of its strand within its diagonals, so a sorted
 * hit is kept when it falls in one; the dropped hits' count is a sliding
 * window over the sorted hits.  Sorts s->cl[0..n_cl) by strand and
 * diagonal. */
static int cmp_cluster_hits(const void *a, const void *b)
{
	const sm_cluster_t *x = a, *y = b;

	if (x->strand != y->strand)
		return x->strand - y->strand;
	return (x->lo > y->lo) - (x->lo < y->lo);
}

static int32_t dropped_near(sm_seeder_t *s, int64_t n_cl, int64_t reach)
{
	int64_t most = 0, in = 0, u = 0, cu = 0, ct = 0;
	const sm_cluster_t *kept = s->cl;

	/* The kept clusters in hit order (strand, then diagonal; disjoint);
	 * none (s->cl may be NULL) for a read without a hit. */
	if (n_cl > 0)
		qsort(s->cl, (size_t)n_cl, sizeof *s->cl, cmp_cluster_hits);
	for (int64_t t = 0; t < s->n_hit; t++) {
		seed_hit_t h = s->hit[t];

		if (hit_kept(h, kept, n_cl, &ct))
			continue;
		/* in: the dropped hits in [t, u); extend u while within reach. */
		if (u <= t) {
			u = t;
			in = 0;
			cu = ct;
		}
		while (u < s->n_hit && hit_strand(s->hit[u]) == hit_strand(h) &&
		       hit_diag(s->hit[u]) - hit_diag(h) <= reach)
			in += !hit_kept(s->hit[u++], kept, n_cl, &cu);
		most = in > most ? in : most;
		in--;   /* hit t leaves the window */
	}
	return most < INT32_MAX ? (int32_t)most : INT32_MAX;
}

int sm_seed_find(sm_seeder_t *s, const sm_index_t *idx, const sm_ref_t *ref,
		 const sm_score_t *sc, const sm_seed_opt_t *opt,
		 const uint8_t *read, int32_t n, sm_wref_t *w, sm_seed_left_t *left,
		 uint8_t *skip)
{
	const int64_t margin = sm_reach(sc, n) + opt->band;
	int64_t n_mini = sm_minimizers(read, n, idx->k, 1, &s->mini, &s->cap_mini);
	int64_t n_cl;
	int32_t n_win = 0, skipped = 0;

	if (n_mini < 0 || sm_seeder_look_up(s, idx, s->mini, n_mini) < 0 ||
	    sm_seeder_collect_hits(s, idx, n_mini, n, opt->max_occ) < 0)
		goto oom;
	if (skip)
		memset(skip, 0, (size_t)n);
	for (int64_t t = 0; t < n_mini; t++) {
		skipped += s->occ[t] > opt->max_occ;
		if (skip && s->occ[t] > opt->max_occ)
			skip[s->mini[t].pos] = 1;
	}
	if (s->n_hit == 0) {   /* every seed repetitive: use them all */
		if (sm_seeder_collect_hits(s, idx, n_mini, n, INT64_MAX) < 0)
			goto oom;
		skipped = 0;
	}
	n_cl = sm_seeder_make_clusters(s, opt->band, opt->max_windows);
	if (n_cl < 0)
		goto oom;
	if (sm_grow((void **)&w->win, &w->cap_win, n_cl, sizeof *w->win) < 0)
		goto oom;

	/* Cluster -> window, clipped to the contig of its first diagonal. */
	for (int64_t t = 0; t < n_cl; t++)
		n_win += sm_seeder_cluster_window(ref, &s->cl[t], n, margin, &w->win[n_win]);
	/* Overlapping windows of one contig merge (qsort's order of ties does
	 * not matter: sm_windows_merge). */
	sort_windows(w->win, n_win);
	w->n_win = sm_windows_merge(w->win, n_win, ref->offset, ref->n_contig);
	if (left) {
		left->skipped = skipped;
		left->dropped = dropped_near(s, n_cl, sm_reach(sc, n));
	}
	return w->n_win;
oom:
	sm_log(SM_LOG_ERROR, "seeding: out of memory");
	return -1;
}

int32_t sm_seed_subs_at(const sm_ref_t *ref, const uint8_t *read, int32_t n, int st, int64_t d,
			int32_t most, int32_t *first)
{
	const uint8_t *g = ref->seq + d;
	int32_t c, subs = 0;

	if (d < 0 || d + n > ref->total)
		return most + 1;
	c = sm_ref_contig_of(ref, d);
	if (d + n > ref->offset[c] + ref->len[c])
		return most + 1;
	for (int32_t i = 0; i < n && subs <= most; i++)   /* the complement of code c is 3 - c */
		if (g[i] != (st ? 3 - read[n - 1 - i] : read[i]) && subs++ == 0 && first)
			*first = i;
	return subs;
}

/* What collect_copies may look up: copies_one's windows with at most
 * one_occ occurrences each and one_sum in all; copies_two's with at most
 * two_occ each (0: that route is not taken). */
typedef struct {
	int64_t one_occ, one_sum, two_occ;
} copy_caps_t;

/* A locus compared costs about as much as this many sort keys (a cache
 * and TLB miss in the reference against a few passes over a sequential
 * array; at 3 Gbp on the build VM ~150 ns against ~60 ns a key, the key's
 * share of the sort and its own comparisons included; of 4, 16 and 64, 4
 * took the least time there): collect_copies' choice of route for m > 0
 * substitutions, which changes its time only. */
#define SM_COPY_COMPARE_COST 4

/* Occurrences ahead whose reference bases sm_seed_near_copies prefetches. */
#define SM_COPY_AHEAD 8

/* The diagonal (read start) and strand *st of the read placed by k-mer m
 * (length k, of a read of length n) at its index occurrence p (position
 * and strand bit). */
static inline int64_t copy_diag(const sm_mini_t *m, int64_t p, int32_t n, int k, int *st)
{
	int64_t g = p >> 1;

	*st = (int)((p & 1) ^ m->strand);
	return *st ? g - (n - m->pos + k - 2) : g - m->pos;
}

/* 1 if one of win[0..n_win) of strand st holds the locus of a read of
 * length n at diagonal d whole. */
static int window_holds(const sm_window_t *win, int32_t n_win, int st, int64_t d, int32_t n)
{
	for (int32_t v = 0; v < n_win; v++)
		if ((win[v].strands >> st & 1) && win[v].start <= d && d + n <= win[v].end)
			return 1;
	return 0;
}

/* Windows pick[0..m) of a read's n_win windows (occurrences s->wocc[];
 * those with more than cap are not taken) whose starts lie at least span
 * apart (they share no base), with the fewest occurrences in all:
 * least[t][j], the least sum of t + 1 such windows the last of which is
 * j, from the best at or before j - span of t (the earliest of equals);
 * *sum: theirs.  Returns 1, 0 when the read holds no m such windows, -1
 * when out of memory. */
static int pick_windows(sm_seeder_t *s, int64_t n_win, int64_t span, int64_t cap, int m,
			int64_t *pick, int64_t *sum)
{
	int64_t *least, *from;

	if (sm_grow((void **)&s->wdp, &s->cap_wdp, 2 * (int64_t)m * n_win, sizeof *s->wdp) < 0)
		return -1;
	least = s->wdp;
	from = s->wdp + (int64_t)m * n_win;
	for (int t = 0; t < m; t++) {
		int64_t best_i = -1;   /* the best of row t - 1 at or before j - span */

		for (int64_t j = 0; j < n_win; j++) {
			int64_t *v = &least[t * n_win + j];

			if (t > 0 && j - span >= 0) {
				const int64_t i = j - span;

				if (least[(t - 1) * n_win + i] >= 0 &&
				    (best_i < 0 || least[(t - 1) * n_win + i] < least[(t - 1) * n_win + best_i]))
					best_i = i;
			}
			*v = -1;
			from[t * n_win + j] = -1;
			if (s->wocc[j] > cap || (t > 0 && best_i < 0))
				continue;
			*v = s->wocc[j] + (t > 0 ? least[(t - 1) * n_win + best_i] : 0);
			from[t * n_win + j] = best_i;
		}
	}
	{
		int64_t j = -1;

		for (int64_t x = 0; x < n_win; x++)
			if (least[(m - 1) * n_win + x] >= 0 &&
			    (j < 0 || least[(m - 1) * n_win + x] < least[(m - 1) * n_win + j]))
				j = x;
		if (j < 0)
			return 0;
		*sum = least[(m - 1) * n_win + j];
		for (int t = m - 1; t >= 0; t--) {
			pick[t] = j;
			j = from[t * n_win + j];
		}
	}
	return 1;
}

/* Every k-mer's hash of read (base codes, length n, no N; k-mer t ends at
 * read position t + k - 1) in s->mini[0..*n_kmer), the least hash of each
 * window of w of them in s->wmin and its occurrences in s->wocc.
 * Neighbouring windows mostly share their least hash (a new one comes
 * every (w + 1) / 2 windows on average): each run's hash is looked up
 * once, all of them together so that their cache misses overlap.  Returns
 * the windows' number (0: the read is shorter than one), -1 when out of
 * memory. */
static int64_t read_windows(sm_seeder_t *s, const sm_index_t *idx, const uint8_t *read, int32_t n,
			    int64_t *n_kmer)
{
	const int w = idx->w;
	int64_t n_win, n_key = 0;

	*n_kmer = sm_minimizers(read, n, idx->k, 1, &s->mini, &s->cap_mini);
	if (*n_kmer < 0)
		return -1;
	n_win = *n_kmer - w + 1;
	if (n_win <= 0)
		return 0;
	if (sm_grow((void **)&s->wmin, &s->cap_wmin, n_win, sizeof *s->wmin) < 0 ||
	    sm_grow((void **)&s->wocc, &s->cap_wocc, n_win, sizeof *s->wocc) < 0 ||
	    sm_grow((void **)&s->wkey, &s->cap_wkey, n_win, sizeof *s->wkey) < 0)
		return -1;
	for (int64_t j = 0; j < n_win; j++) {
		uint32_t h = s->mini[j].hash;

		for (int t = 1; t < w; t++)
			h = s->mini[j + t].hash < h ? s->mini[j + t].hash : h;
		s->wmin[j] = h;
	}
	for (int64_t j = 0; j < n_win; j++)
		if (j == 0 || s->wmin[j] != s->wmin[j - 1])
			s->wkey[n_key++].hash = s->wmin[j];
	if (sm_seeder_look_up(s, idx, s->wkey, n_key) < 0)
		return -1;
	for (int64_t j = 0, run = -1; j < n_win; j++) {
		run += j == 0 || s->wmin[j] != s->wmin[j - 1];
		s->wocc[j] = s->occ[run];
	}
	return n_win;
}

/* copies_one: every k-mer of the read (s->mini[0..n_kmer)) with the least
 * hash of a picked window pick[0..n_pick), against every occurrence of
 * that hash, whose locus is within `most` substitutions, in
 * s->hit[0..return) (unsorted, repeats possible).  A locus that leaves one
 * of the windows alone is among them.  Returns -1 when out of memory. */
static int64_t copies_one(sm_seeder_t *s, const sm_index_t *idx, const sm_ref_t *ref,
			  const uint8_t *read, int32_t n, int64_t n_kmer, const int64_t *pick,
			  int n_pick, int most)
{
	const int k = idx->k;
	int64_t n_copy = 0;

	for (int x = 0; x < n_pick; x++) {
		const uint32_t h = s->wmin[pick[x]];
		const int64_t *pos;
		int64_t occ;
		int again = 0;

		for (int y = 0; y < x; y++)   /* a hash picked twice is looked at once */
			again |= s->wmin[pick[y]] == h;
		if (again)
			continue;
		occ = sm_index_get(idx, h, &pos);
		for (int64_t t = 0; t < n_kmer; t++) {
			const sm_mini_t *m = &s->mini[t];

			if (m->hash != h)
				continue;
			for (int64_t u = 0; u < occ; u++) {
				int st;
				int64_t d = copy_diag(m, pos[u], n, k, &st);

				/* The occurrences lie anywhere in the reference:
				 * fetch the bases of one a few ahead. */
				if (u + SM_COPY_AHEAD < occ) {
					int st_ahead;
					int64_t ahead = copy_diag(m, pos[u + SM_COPY_AHEAD], n, k, &st_ahead);

					if (ahead >= 0 && ahead < ref->total)
						__builtin_prefetch(ref->seq + ahead);
				}
				if (sm_seed_subs_at(ref, read, n, st, d, most, NULL) > most)
					continue;
				if (sm_grow((void **)&s->hit, &s->cap_hit, n_copy + 1, sizeof *s->hit) < 0)
					return -1;
				s->hit[n_copy++] = hit_pack(st, d);
			}
		}
	}
	return n_copy;
}

/* copies_two's keys: a locus (strand, diagonal) above the picked window
 * that found it (below 1 << PAIR_TAG_BITS), so that sorting brings a
 * locus's finds together. */
#define PAIR_TAG_BITS 3
#define PAIR_STRAND_SHIFT (62 - PAIR_TAG_BITS)
_Static_assert(SM_COPY_MAX_SUBS + 2 <= 1 << PAIR_TAG_BITS, "copies_two tags a key by its window");

/* copies_two: the loci within `most` substitutions where two of the
 * picked windows pick[0..n_pick) (at most 1 << PAIR_TAG_BITS) find the
 * read, each through its own k-mers that carry its least hash, in
 * s->hit[0..return), sorted, each once.  A locus that leaves two of the
 * windows alone is among them.  Every occurrence costs a key and a sort,
 * not a reference access: windows too frequent for copies_one serve here.
 * Returns -1 when out of memory. */
static int64_t copies_two(sm_seeder_t *s, const sm_index_t *idx, const sm_ref_t *ref,
			  const uint8_t *read, int32_t n, const int64_t *pick, int n_pick, int most)
{
	const int k = idx->k, w = idx->w;
	int64_t n_key = 0, n_copy = 0;

	for (int x = 0; x < n_pick; x++) {
		const uint32_t h = s->wmin[pick[x]];
		const int64_t *pos;
		const int64_t occ = sm_index_get(idx, h, &pos);

		for (int64_t t = pick[x]; t < pick[x] + w; t++) {
			if (s->mini[t].hash != h)
				continue;
			if (sm_grow((void **)&s->hit, &s->cap_hit, n_key + occ, sizeof *s->hit) < 0)
				return -1;
			for (int64_t u = 0; u < occ; u++) {
				int st;
				const int64_t d = copy_diag(&s->mini[t], pos[u], n, k, &st);

				s->hit[n_key++] = (uint64_t)st << 62 |
						  (uint64_t)(d + HIT_DIAG_BIAS) << PAIR_TAG_BITS | (uint64_t)x;
			}
		}
	}
	if (sm_grow((void **)&s->hit_tmp, &s->cap_hit_tmp, n_key, sizeof *s->hit_tmp) < 0)
		return -1;
	sm_radix_sort_u64(s->hit, s->hit_tmp, n_key);
	/* A locus's run of keys; each locus found is written over keys already read. */
	for (int64_t t = 0, e; t < n_key; t = e) {
		const uint64_t locus = s->hit[t] >> PAIR_TAG_BITS;
		int windows = 1;

		for (e = t + 1; e < n_key && s->hit[e] >> PAIR_TAG_BITS == locus; e++)
			windows += s->hit[e] != s->hit[e - 1];
		if (windows >= 2) {
			const int st = (int)(locus >> PAIR_STRAND_SHIFT);
			const int64_t d =
				(int64_t)(locus & (((uint64_t)1 << PAIR_STRAND_SHIFT) - 1)) - HIT_DIAG_BIAS;

			if (sm_seed_subs_at(ref, read, n, st, d, most, NULL) <= most)
				s->hit[n_copy++] = hit_pack(st, d);
		}
	}
	return n_copy;
}

/* The loci of read (base codes, length n, no N) on either strand with at
 * most `most` substitutions (1 to SM_COPY_MAX_SUBS), each once, sorted, in
 * s->hit[0..return); *complete: the substitutions m <= most for which every
 * locus with m is among them (0: only the exact copies are sure to be).
 * SM_SEED_UNDECIDED when not even the exact copies can be found; -1 when
 * out of memory.
 * Exact through windows of w k-mers that share no base: m substitutions
 * leave all but m of them alone, and a window left alone holds the same
 * k-mers at the locus as in the read, so the same least hash, which the
 * index holds there.  The largest m the read's windows allow (caps), by
 * the cheaper route: m + 1 windows, every occurrence's locus compared
 * (copies_one), or m + 2, the loci where two of them agree compared
 * (copies_two: the windows of a read of a young repeat can all be too
 * frequent to compare every occurrence).  With neither for one
 * substitution: the exact copies and some loci one away, from one window
 * or two. */
static int64_t collect_copies(sm_seeder_t *s, const sm_index_t *idx, const sm_ref_t *ref,
			      const uint8_t *read, int32_t n, const copy_caps_t *caps, int most,
			      int *complete)
{
	const int64_t span = idx->w + idx->k - 1;   /* bases a window covers */
	int64_t n_kmer, n_win, n_copy = SM_SEED_UNDECIDED;
	int64_t one[SM_COPY_MAX_SUBS + 1], two[SM_COPY_MAX_SUBS + 2];

	n_win = read_windows(s, idx, read, n, &n_kmer);
	if (n_win <= 0)
		return n_win < 0 ? -1 : SM_SEED_UNDECIDED;
	for (*complete = most; *complete >= 0; --*complete) {
		/* m + 1 and m + 2 windows; the exact copies from one and two */
		const int m = *complete, n_one = m > 0 ? m + 1 : 1, n_two = n_one + 1;
		const int verify = m > 0 ? m : 1;
		int64_t sum_one = -1, sum_two = -1;
		int rc = pick_windows(s, n_win, span, caps->one_occ, n_one, one, &sum_one);

		if (rc < 0)
			return -1;
		if (rc == 0 || sum_one > caps->one_sum)
			sum_one = -1;
		if (caps->two_occ > 0 &&
		    (rc = pick_windows(s, n_win, span, caps->two_occ, n_two, two, &sum_two)) <= 0) {
			if (rc < 0)
				return -1;
			sum_two = -1;
		}
		/* Either finds every locus within m > 0; the exact copies'
		 * fallback keeps the one-window route where it can, whose loci a
		 * substitution away are the ones sm_seed_near_copies counts. */
		if (sum_one >= 0 &&
		    (sum_two < 0 || m == 0 || sum_one * SM_COPY_COMPARE_COST <= sum_two)) {
			n_copy = copies_one(s, idx, ref, read, n, n_kmer, one, n_one, verify);
			break;
		}
		if (sum_two >= 0) {
			n_copy = copies_two(s, idx, ref, read, n, two, n_two, verify);
			break;
		}
	}
	if (n_copy < 0)
		return n_copy;
	/* A copy counts once however many windows found it. */
	sm_seeder_sort_hits(s->hit, n_copy);
	{
		int64_t m = 0;

		for (int64_t t = 0; t < n_copy; t++)
			if (t == 0 || s->hit[t] != s->hit[t - 1])
				s->hit[m++] = s->hit[t];
		n_copy = m;
	}
	return n_copy;
}

int sm_seed_near_copies(sm_seeder_t *s, const sm_index_t *idx, const sm_ref_t *ref,
			const sm_score_t *sc, const uint8_t *read, int32_t n, int64_t max_occ,
			const sm_window_t *win, int32_t n_win, int64_t away[3], int32_t *loss,
			int32_t *sub_count)
{
	const copy_caps_t caps = { max_occ, INT64_MAX, 0 };   /* one window of two, compared */
	int64_t n_copy;
	int complete;

	away[0] = away[1] = 0;
	away[2] = 1;
	*loss = INT32_MAX;
	if (sub_count)
		memset(sub_count, 0, (size_t)n * sizeof *sub_count);
	for (int32_t i = 0; i < n; i++)
		if (read[i] >= SM_BASE_N)
			return 0;   /* an N matches nothing: no copy anywhere */
	n_copy = collect_copies(s, idx, ref, read, n, &caps, 1, &complete);
	if (n_copy < 0)
		return (int)n_copy;
	for (int64_t t = 0; t < n_copy; t++) {
		int st = hit_strand(s->hit[t]);
		int64_t d = hit_diag(s->hit[t]);
		int32_t at = 0, l;

		if (window_holds(win, n_win, st, d, n))
			continue;
		if (sm_seed_subs_at(ref, read, n, st, d, 1, &at) == 0) {
			away[0]++;
			continue;
		}
		if (sub_count)
			sub_count[st ? n - 1 - at : at]++;
		away[1]++;
		l = sm_sub_loss(sc, n, at);
		*loss = l < *loss ? l : *loss;
	}
	s->n_hit = 0;
	/* One substitution changes the windows over it only: of two windows
	 * that share no base, one finds every such copy; with one window, a
	 * copy found is one, but none found proves nothing. */
	away[2] = complete >= 1;
	if (!away[2] && away[1] == 0)
		away[1] = -1;
	return 0;
}

int32_t sm_windows_add(sm_wref_t *w, const sm_ref_t *ref, const sm_window_t *more, int32_t m)
{
	if (sm_grow((void **)&w->win, &w->cap_win, (int64_t)w->n_win + m, sizeof *w->win) < 0) {
		sm_log(SM_LOG_ERROR, "seeding: out of memory");
		return -1;
	}
	if (m > 0)
		memcpy(w->win + w->n_win, more, (size_t)m * sizeof *more);
	sort_windows(w->win, (int64_t)w->n_win + m);
	w->n_win = sm_windows_merge(w->win, w->n_win + m, ref->offset, ref->n_contig);
	return w->n_win;
}

int32_t sm_windows_of_strand(const sm_window_t *win, int32_t n, int st, sm_window_t *out)
{
	int32_t m = 0;

	for (int32_t t = 0; t < n; t++)
		if (win[t].strands >> st & 1)
			out[m++] = win[t];
	return m;
}

/* Seeds read (base codes, length n) with minimizers of at most max_occ
 * hits and clusters them all into s->cl.  Returns the number of clusters,
 * -1 when out of memory. */
static int64_t all_clusters(sm_seeder_t *s, const sm_index_t *idx, const sm_seed_opt_t *opt,
			    const uint8_t *read, int32_t n, int64_t max_occ)
{
	int64_t n_mini = sm_minimizers(read, n, idx->k, 1, &s->mini, &s->cap_mini);

	if (n_mini < 0 || sm_seeder_look_up(s, idx, s->mini, n_mini) < 0 ||
	    sm_seeder_collect_hits(s, idx, n_mini, n, max_occ) < 0)
		return -1;
	return sm_seeder_build_clusters(s, opt->band);
}

/* Offers window pair x to the top list out[0..*n) of at most max entries,
 * most votes first, earlier offers first among equals. */
static void offer_pair(sm_window_pair_t *out, int *n, int max, const sm_window_pair_t *x)
{
	int at = *n;

	while (at > 0 && out[at - 1].votes < x->votes)
		at--;
	if (at >= max)
		return;
	if (*n < max)
		(*n)++;
	memmove(&out[at + 1], &out[at], (size_t)(*n - 1 - at) * sizeof *out);
	out[at] = *x;
}

int sm_seed_pair_windows(sm_seeder_t *s, const sm_index_t *idx, const sm_ref_t *ref,
			 const sm_score_t *sc, const sm_seed_opt_t *opt,
			 const uint8_t *read_a, int32_t na, const uint8_t *read_b, int32_t nb,
			 int64_t ins_lo, int64_t ins_hi, int max_pairs, sm_window_pair_t *out)
{
	int64_t max_occ = (int64_t)opt->max_occ * SM_SEED_RETRY_OCC;
	int64_t n_a, n_b, first[2] = { 0, 0 }, end[2] = { 0, 0 };
	int n = 0;

	n_a = all_clusters(s, idx, opt, read_a, na, max_occ);
	if (n_a < 0 || sm_grow((void **)&s->cl_a, &s->cap_cl_a, n_a, sizeof *s->cl_a) < 0)
		goto oom;
	if (n_a > 0)   /* s->cl may be NULL when empty */
		memcpy(s->cl_a, s->cl, (size_t)n_a * sizeof *s->cl_a);
	n_b = all_clusters(s, idx, opt, read_b, nb, max_occ);
	if (n_b < 0)
		goto oom;
	/* B's clusters of each strand: cl[first[st] .. end[st]), diagonals ascending. */
	for (int64_t t = 0; t < n_b; t++) {
		int32_t st = s->cl[t].strand;

		if (end[st] == 0)
			first[st] = t;
		end[st] = t + 1;
	}
	for (int64_t i = 0; i < n_a; i++) {
		const sm_cluster_t *a = &s->cl_a[i];
		int32_t sb = !a->strand;
		int64_t lo, hi, from = first[sb], to = end[sb];

		/* B's diagonals that put the insert (the forward read's start to
		 * the reverse read's end) within [ins_lo, ins_hi], give or take
		 * the band. */
		if (a->strand == 0) {
			lo = a->lo + ins_lo - nb - opt->band;
			hi = a->hi + ins_hi - nb + opt->band;
		} else {
			lo = a->lo + na - ins_hi - opt->band;
			hi = a->hi + na - ins_lo + opt->band;
		}
		while (from < to) {   /* first cluster of B ending at or after lo */
			int64_t mid = from + (to - from) / 2;

			if (s->cl[mid].hi < lo)
				from = mid + 1;
			else
				to = mid;
		}
		for (int64_t j = from; j < end[sb] && s->cl[j].lo <= hi; j++) {
			sm_window_pair_t x;

			if (!sm_seeder_cluster_window(ref, a, na, sm_reach(sc, na) + opt->band, &x.a) ||
			    !sm_seeder_cluster_window(ref, &s->cl[j], nb, sm_reach(sc, nb) + opt->band, &x.b))
				continue;
			x.strand_a = a->strand;
			x.votes = a->votes + s->cl[j].votes;
			offer_pair(out, &n, max_pairs, &x);
		}
	}
	return n;
oom:
	sm_log(SM_LOG_ERROR, "seeding: out of memory");
	return -1;
}

int64_t sm_wref_to_global(const sm_wref_t *w, int64_t p)
{
	/* inline: called for every locus of every window scan */
	int32_t c = sm_offset_find(w->ref.offset, w->ref.n_contig, p);

	return w->win[c].start + (p - w->ref.offset[c]);
}

void sm_wref_scan_to_global(const sm_wref_t *w, const sm_scan_t *in, int shift, sm_scan_t *out)
{
	memset(out, 0, sizeof *out);
	for (int k = 0; k < in->n; k++)
		sm_scan_offer(out, shift, in->top[k].score, sm_wref_to_global(w, in->top[k].end));
}
int sm_seed_copy_windows(sm_seeder_t *s, const sm_index_t *idx, const sm_ref_t *ref,
			 const sm_score_t *sc, const sm_seed_opt_t *opt, const uint8_t *read,
			 int32_t n, int32_t best, int most, const sm_window_t *done,
			 int32_t n_done, sm_wref_t *w, int64_t *found)
{
	const int64_t perfect = sm_best_possible(sc, n), margin = sm_reach(sc, n) + opt->band;
	const int32_t least = sm_sub_loss_least(sc, n);
	const copy_caps_t caps = { opt->copy_occ, opt->copy_compared, opt->copy_occ };
	int64_t n_copy = SM_SEED_UNDECIDED, m = 0;
	int64_t *subs_of;
	int32_t kept = 0;
	int complete = 0, no_n = 1;

	*found = 0;
	if (sm_grow((void **)&w->win, &w->cap_win, (int64_t)n_done + opt->max_windows,
		    sizeof *w->win) < 0)
		goto oom;
	if (n_done > 0)
		memcpy(w->win, done, (size_t)n_done * sizeof *w->win);
	w->n_win = n_done;
	for (int32_t i = 0; i < n; i++)
		no_n &= read[i] < SM_BASE_N;   /* an N matches nothing: no copy anywhere */
	most = most < 1 ? 1 : most > SM_COPY_MAX_SUBS ? SM_COPY_MAX_SUBS : most;
	/* A read too short or too repetitive for most + 1 rare windows looks
	 * for fewer substitutions; what it finds is within one at least. */
	if (no_n)
		n_copy = collect_copies(s, idx, ref, read, n, &caps, most, &complete);
	most = complete > 1 ? complete : 1;
	if (n_copy == -1 ||
	    (n_copy > 0 && sm_grow((void **)&s->wdp, &s->cap_wdp, n_copy, sizeof *s->wdp) < 0))
		goto oom;
	subs_of = s->wdp;   /* pick_windows is done with it */
	/* Those that beat best outside the windows scanned, compacted, with
	 * their substitutions. */
	for (int64_t t = 0; t < n_copy; t++) {
		const int st = hit_strand(s->hit[t]);
		const int64_t d = hit_diag(s->hit[t]);
		int32_t at = 0, subs = sm_seed_subs_at(ref, read, n, st, d, most, &at);
		/* Its objective, or at most that (substitutions cost least at
		 * an end, sm_sub_loss). */
		const int64_t score = subs == 0 ? perfect : subs == 1 ? perfect - sm_sub_loss(sc, n, at) :
				      perfect - (int64_t)subs * least;

		if (score > best && !window_holds(done, n_done, st, d, n)) {
			subs_of[m] = subs;
			s->hit[m++] = s->hit[t];
		}
	}
	*found = m;
	/* Exact copies first, then by their substitutions, each in diagonal
	 * order (a copy lies inside its contig: its window is never empty). */
	for (int32_t subs = 0; subs <= most; subs++)
		for (int64_t t = 0; t < m && kept < opt->max_windows; t++) {
			const int st = hit_strand(s->hit[t]);
			const int64_t d = hit_diag(s->hit[t]);
			const sm_cluster_t c = { d, d, st, 1 };

			if (subs_of[t] == subs && sm_seeder_cluster_window(ref, &c, n, margin, &w->win[w->n_win]))
				w->n_win++, kept++;
		}
	s->n_hit = 0;
	sm_seeder_merge_windows(w, ref);
	return w->n_win;
oom:
	sm_log(SM_LOG_ERROR, "seeding: out of memory");
	return -1;
}