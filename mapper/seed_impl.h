/* seed_impl.h — the seeder's state and the steps that seed.c (first pass,
 * windows, copies) and complete.c (completion and neighbour passes) share,
 * and the completion pass's score bound; private to those two and their
 * unit test (tests/unit/test_seed.c).  Not for use outside mapper/.
 *
 * The support lemma (seed.h) works on windows of k + w - 1 read bases,
 * named by x, the end of their first k-mer: window x spans read bases
 * [x - k + 1, x + w - 1] and holds the k-mers ending at x .. x + w - 1.  A
 * window "counts" at a locus when none of its k-mers supports the locus
 * and it holds no ambiguous base: an alignment there then has a difference
 * or a clipped end inside it.  The windows that count are kept as a bit
 * set over x (bit x of word x / 64, bits at and past n - w + 1 zero), so
 * that a cluster's k-mers remove theirs with a few word operations and the
 * greedy stabbing of the rest jumps from window to window. */
#ifndef SM_SEED_IMPL_H
#define SM_SEED_IMPL_H

#include <stdint.h>

#include "io/ref.h"
#include "mapper/index.h"
#include "mapper/score.h"
#include "mapper/seed.h"

/* The least a difference costs per window that it breaks: a mismatch or a
 * deletion breaks the windows that hold it; an insertion of l bases
 * (gap_open + l x (gap_ext + match)) breaks two disjoint windows with 2
 * bases, m > 2 only with at least (m - 2) x (k + w - 1) + 2. */
int64_t sm_bound_break_cost(int k, int w, const sm_score_t *sc);

/* Words of a window set for a read of length n. */
#define SM_BOUND_WORDS(n) (((int64_t)(n) + 63) / 64)

/* Sets ok (SM_BOUND_WORDS(n) words) to the windows of a read of length n
 * that count when the k-mers ending at the read positions i with mark[i]
 * != 0 are the only supporting ones; sum_amb[0..n]: prefix counts of the
 * read's ambiguous bases. */
void sm_bound_windows(int k, int w, int32_t n, const uint8_t *mark, const int32_t *sum_amb,
		      uint64_t *ok);

/* Removes from ok the windows that a supporting k-mer ending at read
 * position p (0 <= p < n) spares: those holding it, x in [p - w + 1, p]. */
static inline void sm_bound_support(uint64_t *ok, int w, int32_t p)
{
	int32_t lo = p - w + 1 < 0 ? 0 : p - w + 1;

	for (int32_t i = lo >> 6; i <= p >> 6; i++) {
		uint64_t m = ~(uint64_t)0;

		if (i == lo >> 6)
			m &= ~(uint64_t)0 << (lo & 63);
		if (i == p >> 6)
			m &= ~(uint64_t)0 >> (63 - (p & 63));
		ok[i] &= ~m;
	}
}

/* The best objective (scan.h: score plus end bonuses) that an alignment of
 * a read of length n may have at a locus where the windows of ok count
 * (brk: the least a difference costs per window it breaks,
 * sm_bound_break_cost).  The windows need at least as many differences as
 * a greedy stabbing of them counts (the size of a set of disjoint ones);
 * clipping a bases on the left and b on the right costs (a + b) x match
 * and the bonus of each clipped end, and spares the windows it cuts. */
int32_t sm_bound_score(const uint64_t *ok, int k, int w, int32_t n, const sm_score_t *sc,
		       int64_t brk);

/* How well diagonals d[0..3) of one strand align a read, the completion's
 * order among candidates beyond those kept by bound (choose_by_diagonal,
 * complete.c): the best ungapped local alignment along d[0] (a cluster's most
 * frequent hit diagonal, its mode), d[1] or d[2] (its first and last), or
 * a two-piece one that runs along d[0] up to some read position and along
 * d[1] or d[2] after it (or the other way round), less a gap of their
 * distance (gap_open + length x gap_ext).  The two-piece ones are what a
 * read with an indel aligns as: by its best piece alone, an origin with an
 * indel in the middle of the read scores half its length and loses to
 * repeat copies with a longer ungapped run; and a cluster's first and last
 * diagonals may be those of stray repeat hits a band away from it
 * (docs/seeded.md, "Which candidates are scanned first").  Reference base
 * d + j against q[j], the read's codes on that strand with an ambiguous
 * base coded as UINT8_MAX; past the reference's ends nothing matches.
 * A score below least need not be exact: then a value below least and at
 * most the score is returned (a caller after the best few passes the least
 * of those it holds).  buf: 9 x (n + 1) integers of workspace. */
int32_t sm_diag_score(const sm_ref_t *ref, const sm_score_t *sc, const uint8_t *q, int32_t n,
		      const int64_t d[3], int32_t least, int32_t *buf);

/* A seed hit: its strand and diagonal packed into one integer so that hits
 * sort by strand, then diagonal (seed.c, hit_pack). */
typedef uint64_t seed_hit_t;
/* Hit lists this long are sorted by radix (radix.h), shorter ones by
 * sm_seeder_sort_hits; equal hits are equal integers, so both give the same
 * list. */
#define SM_HIT_RADIX_MIN 256

struct complete_ws_s;   /* complete.c's workspace */

/* A seeder (seed.h): one thread's buffers, grown as reads need them and
 * kept from read to read. */
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
	struct complete_ws_s *cw;  /* sm_seed_complete's, made on first use */
	uint32_t *wmin;            /* read_windows: the least hash of each window */
	int64_t cap_wmin;
	int64_t *wocc;             /* and its occurrences */
	int64_t cap_wocc;
	sm_mini_t *wkey;           /* the distinct least hashes, window order */
	int64_t cap_wkey;
	int64_t *wdp;              /* pick_windows' table, then sm_seed_copy_windows'
				    * substitutions per locus */
	int64_t cap_wdp;
};

/* Looks the hashes of m[0..n_mini) up (s->occ, s->pos).  0, or -1 when
 * out of memory. */
int sm_seeder_look_up(sm_seeder_t *s, const sm_index_t *idx, const sm_mini_t *m, int64_t n_mini);

/* Collects into s->hit[0..s->n_hit) the hits of the minimizers
 * s->mini[0..n_mini) of a read of length n that have at most max_occ
 * occurrences (after sm_seeder_look_up).  0, or -1 when out of memory. */
int sm_seeder_collect_hits(sm_seeder_t *s, const sm_index_t *idx, int64_t n_mini, int32_t n,
			   int64_t max_occ);

/* Sorts h[0..n) ascending (any sort gives the same list). */
void sm_seeder_sort_hits(seed_hit_t *h, int64_t n);

/* Sorts w's windows and merges those that overlap (sm_windows_merge). */
void sm_seeder_merge_windows(sm_wref_t *w, const sm_ref_t *ref);

/* Clusters of the hits s->hit[0..n_hit) (sorted here) into s->cl, by
 * strand, then ascending disjoint diagonal ranges, hits at most band
 * apart joined.  Returns their number, -1 when out of memory. */
int64_t sm_seeder_build_clusters(sm_seeder_t *s, int band);

/* sm_seeder_build_clusters, then the `keep` best of them
 * (sm_cluster_before) in s->cl[0..), best first.  Returns how many are
 * kept, -1 when out of memory. */
int64_t sm_seeder_make_clusters(sm_seeder_t *s, int band, int64_t keep);

/* sm_cluster_window on ref's contigs. */
static inline int sm_seeder_cluster_window(const sm_ref_t *ref, const sm_cluster_t *c, int32_t n,
					   int64_t margin, sm_window_t *x)
{
	return sm_cluster_window(ref->offset, ref->len, ref->n_contig, ref->total, c, n, margin, x);
}

/* Frees complete.c's workspace (NULL: nothing). */
void sm_complete_ws_free(struct complete_ws_s *cw);

#endif
