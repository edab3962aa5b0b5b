/* scan.h — what a scoring engine computes for one query, and the scalar
 * oracle that defines it.
 *
 * For a query q of length n (base codes) and the whole reference, let H(i,j)
 * be the Smith-Waterman local score (affine gaps, score.h) of the best
 * alignment ending at read base i and global reference column j, restarting
 * at every contig's first column.  The column score is C(j) = max_i H(i,j).
 * With a clipping penalty (score.h) row 1's substitution scores carry the
 * 5' bonus, so H(i,j) is the best objective without the 3' bonus, and
 * C(j) = max(max_{i<n} H(i,j), H(n,j) + clip3) (the bonus only where
 * H(n,j) > 0: an alignment ends there).
 *
 * Loci.  Column j lies in locus bin j >> s, where s = sm_locus_shift(sc, n)
 * (bins are the smallest power of two >= max(n, reach), at least 64 columns
 * wide, so that neither a read's own shifted sub-alignments nor the decaying
 * tail of a deletion run after a hit reach beyond the next bin).  A
 * bin's score is the maximum C(j) over its columns; its end is the smallest
 * column that reaches it.  An engine returns the SM_TOPK best bins with a
 * positive score, ordered by score descending then bin ascending.
 *
 * That list is exactly mergeable (the top K of a union of disjoint column
 * ranges is found in the top K of the parts) and carries what the mapper
 * needs: its loci at the top score are the best hits (record.h chooses
 * among them), and the best score outside a hit's bin and its neighbours
 * (the XS of SAM) is in it, since at most three bins are excluded.  Every
 * engine must produce the very same sm_scan_t as sm_scan_oracle() for every
 * input. */
#ifndef SM_SCAN_H
#define SM_SCAN_H

#include <stdint.h>

#include "io/ref.h"
#include "mapper/score.h"

#define SM_TOPK 4
#define SM_LOCUS_MIN_SHIFT 6

typedef struct {
	const uint8_t *seq;  /* base codes 0..4, host memory */
	int32_t len;         /* n >= 1 */
} sm_query_t;

typedef struct {
	int32_t score;   /* > 0 */
	int64_t end;     /* global column where the score is reached (leftmost) */
} sm_locus_t;

typedef struct {
	int32_t n;                  /* entries used, 0..SM_TOPK */
	sm_locus_t top[SM_TOPK];
} sm_scan_t;

/* log2 of the locus bin width for a query of length n. */
static inline int sm_locus_shift(const sm_score_t *sc, int32_t n)
{
	int64_t width = sm_reach(sc, n) > n ? sm_reach(sc, n) : n;
	int s = SM_LOCUS_MIN_SHIFT;

	while (((int64_t)1 << s) < width)
		s++;
	return s;
}

/* Offers column `end` with score C(end) to a top list built for bin width
 * 1 << shift.  Columns may be offered in any order; for one column at most
 * once.  Keeps the invariant described above. */
void sm_scan_offer(sm_scan_t *t, int shift, int32_t score, int64_t end);

/* Merges src into dst (both built with the same shift). */
void sm_scan_merge(sm_scan_t *dst, const sm_scan_t *src, int shift);

/* 1 if a and b hold the same loci in the same order, else 0: what every
 * engine test asks of an engine against the oracle. */
int sm_scan_equal(const sm_scan_t *a, const sm_scan_t *b);

/* The oracle: plain Gotoh recurrence, column by column, one cell at a time.
 * Slow and obviously correct.  Returns the number of cells computed
 * (0, with an empty result, if memory ran out: logged). */
uint64_t sm_scan_oracle(const sm_ref_t *ref, const sm_score_t *sc,
			const sm_query_t *q, sm_scan_t *out);

#endif
