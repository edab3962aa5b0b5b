/* seed_impl.h — the completion pass's score bound (seed.c), private to
 * seed.c and its unit test (tests/unit/test_seed.c).  Not for use outside
 * mapper/.
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
#include "mapper/score.h"

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
 * seed.c): the best ungapped local alignment along d[0] (a cluster's most
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

#endif
