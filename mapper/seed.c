/* seed.c — minimizer votes, clusters and window references (see seed.h). */
#include "mapper/seed.h"

#include <stdlib.h>
#include <string.h>

#include "io/log.h"
#include "mapper/grow.h"
#include "mapper/radix.h"

/* A seed hit, packed so that hits sort by strand then diagonal as plain
 * integers: bit 63 the strand (0: read forward, 1: reverse complement),
 * bits 0-62 the diagonal (reference position of the oriented read's base 0,
 * >= -read length) plus HIT_DIAG_BIAS. */
typedef uint64_t seed_hit_t;
#define HIT_STRAND_SHIFT 63
#define HIT_DIAG_BIAS ((int64_t)1 << 40)
/* Runs this short are sorted by insertion. */
#define HIT_SORT_SMALL 16
/* Lists this long are sorted by radix (radix.h), shorter ones by sort_hits;
 * equal hits are equal integers, so both give the same list. */
#define HIT_RADIX_MIN 256

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

struct sm_seeder_s {
	sm_mini_t *mini;
	int64_t cap_mini;
	seed_hit_t *hit;
	int64_t n_hit, cap_hit;
	seed_hit_t *hit_tmp;          /* the radix sort's other buffer */
	int64_t cap_hit_tmp;
	sm_cluster_t *cl;
	int64_t cap_cl;
	sm_cluster_t *cl_a;           /* read A's clusters (sm_seed_pair_windows) */
	int64_t cap_cl_a;
	int64_t *occ;              /* [cap_look] occurrences of each minimizer */
	const int64_t **pos;       /* [cap_look] and where they are */
	int64_t cap_look;
};

void sm_seed_opt_init(sm_seed_opt_t *o)
{
	o->max_occ = SM_SEED_DEFAULT_MAX_OCC;
	o->max_windows = SM_SEED_DEFAULT_MAX_WINDOWS;
	o->band = SM_SEED_DEFAULT_BAND;
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

/* Looks the read's minimizers s->mini[0..n_mini) up (s->occ, s->pos). */
static int look_up(sm_seeder_t *s, const sm_index_t *idx, int64_t n_mini)
{
	int64_t cap = s->cap_look;

	if (sm_grow((void **)&s->occ, &cap, n_mini, sizeof *s->occ) < 0)
		return -1;
	cap = s->cap_look;
	if (sm_grow((void **)&s->pos, &cap, n_mini, sizeof *s->pos) < 0)
		return -1;
	s->cap_look = cap;
	sm_index_get_many(idx, n_mini, s->mini, s->occ, s->pos);
	return 0;
}

/* Collects the hits of minimizers with at most max_occ occurrences (after
 * look_up). */
static int collect_hits(sm_seeder_t *s, const sm_index_t *idx, int64_t n_mini, int32_t n,
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
static void sort_hits(seed_hit_t *h, int64_t n)
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
			sort_hits(h, j + 1);
			h += j + 1;
			n -= j + 1;
		} else {
			sort_hits(h + j + 1, n - j - 1);
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
static int64_t build_clusters(sm_seeder_t *s, int band)
{
	int64_t n_cl = 0;

	if (s->n_hit < HIT_RADIX_MIN) {
		sort_hits(s->hit, s->n_hit);
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

static int64_t make_clusters(sm_seeder_t *s, int band, int64_t keep)
{
	int64_t n_cl = build_clusters(s, band);

	return n_cl < 0 ? -1 : best_clusters(s->cl, n_cl, keep);
}

static int cluster_window(const sm_ref_t *ref, const sm_cluster_t *c, int32_t n, int64_t margin,
			  sm_window_t *x)
{
	return sm_cluster_window(ref->offset, ref->len, ref->n_contig, ref->total, c, n, margin, x);
}

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
			if (sm_grow((void **)arr[a], &m, n_win + 1, sizeof(int64_t)) < 0)
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
	if (sm_grow((void **)&w->win, &w->cap_win, n, sizeof *w->win) < 0)
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

int sm_seed_find(sm_seeder_t *s, const sm_index_t *idx, const sm_ref_t *ref,
		 const sm_score_t *sc, const sm_seed_opt_t *opt,
		 const uint8_t *read, int32_t n, sm_wref_t *w)
{
	const int64_t margin = sm_reach(sc, n) + opt->band;
	int64_t n_mini = sm_minimizers(read, n, idx->k, 1, &s->mini, &s->cap_mini);
	int64_t n_cl;
	int32_t n_win = 0;

	if (n_mini < 0 || look_up(s, idx, n_mini) < 0 ||
	    collect_hits(s, idx, n_mini, n, opt->max_occ) < 0)
		goto oom;
	if (s->n_hit == 0 && collect_hits(s, idx, n_mini, n, INT64_MAX) < 0)
		goto oom;   /* every seed repetitive: use them all */
	n_cl = make_clusters(s, opt->band, opt->max_windows);
	if (n_cl < 0)
		goto oom;
	if (sm_grow((void **)&w->win, &w->cap_win, n_cl, sizeof *w->win) < 0)
		goto oom;

	/* Cluster -> window, clipped to the contig of its first diagonal. */
	for (int64_t t = 0; t < n_cl; t++)
		n_win += cluster_window(ref, &s->cl[t], n, margin, &w->win[n_win]);
	/* Overlapping windows of one contig merge (qsort's order of ties does
	 * not matter: sm_windows_merge). */
	qsort(w->win, (size_t)n_win, sizeof *w->win, cmp_window);
	w->n_win = sm_windows_merge(w->win, n_win, ref->offset, ref->n_contig);
	return w->n_win;
oom:
	sm_log(SM_LOG_ERROR, "seeding: out of memory");
	return -1;
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

	if (n_mini < 0 || look_up(s, idx, n_mini) < 0 ||
	    collect_hits(s, idx, n_mini, n, max_occ) < 0)
		return -1;
	return build_clusters(s, opt->band);
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

			if (!cluster_window(ref, a, na, sm_reach(sc, na) + opt->band, &x.a) ||
			    !cluster_window(ref, &s->cl[j], nb, sm_reach(sc, nb) + opt->band, &x.b))
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
	int32_t c = sm_ref_contig_of(&w->ref, p);

	return w->win[c].start + (p - w->ref.offset[c]);
}

void sm_wref_scan_to_global(const sm_wref_t *w, const sm_scan_t *in, int shift, sm_scan_t *out)
{
	memset(out, 0, sizeof *out);
	for (int k = 0; k < in->n; k++)
		sm_scan_offer(out, shift, in->top[k].score, sm_wref_to_global(w, in->top[k].end));
}
