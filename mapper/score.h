/* score.h — the scoring scheme shared by every engine.
 *
 * Bases are coded as io/base.h says.  An ambiguous base, in the
 * read or the reference, never matches and scores SM_SCORE_AMBIG (-1), as in
 * bwa.  A gap of length k costs o + k*e (bwa's convention).
 *
 * Clipping penalty (bwa mem's -L, an end bonus).  The objective every engine
 * maximises is the alignment's score plus clip5 if it starts with read base
 * 0 aligned (a diagonal step) to a reference A/C/G/T, plus clip3 if it ends
 * at the read's last base.  As a recurrence (scan.h): row 1's substitution
 * score gains clip5 against a reference base A/C/G/T (a reference N, and so
 * every separator and padding column, gains nothing), and the column
 * maximum takes H(n, j) + clip3 for the last row.  clip5 = clip3 = 0 is
 * plain local alignment.  The reported score (AS) is the alignment's own. */
#ifndef SM_SCORE_H
#define SM_SCORE_H

#include <stdint.h>

#include "io/base.h"
#include "mapper/scanmap.h"

#define SM_SCORE_AMBIG (-1)

/* sm_score_t, the defaults and the bounds the option checker accepts:
 * scanmap.h. */

/* Substitution score of reference code r against read code q. */
static inline int sm_subst(const sm_score_t *s, uint8_t r, uint8_t q)
{
	if (r >= SM_BASE_N || q >= SM_BASE_N)
		return SM_SCORE_AMBIG;
	return r == q ? s->match : -s->mismatch;
}

/* Row 1's substitution score against reference code r (0..SM_BASE_N) for
 * read code q: sm_subst() plus the 5' bonus against a base A/C/G/T. */
static inline int sm_subst_first(const sm_score_t *s, uint8_t r, uint8_t q)
{
	return sm_subst(s, r, q) + (r < SM_BASE_N ? s->clip5 : 0);
}

/* The largest value of the objective for a read of length n (every H is
 * at most n * match + clip5, a column maximum n * match + clip5 + clip3). */
static inline int64_t sm_best_possible(const sm_score_t *s, int n)
{
	return (int64_t)n * s->match + s->clip5 + s->clip3;
}

/* What a substitution at read position i (of n, in the orientation
 * scanned) takes from a perfect read's objective: the substitution, or
 * clipping the bases up to it with that end's bonus, whichever costs less.
 * Least at an end (i = 0 or n - 1). */
static inline int32_t sm_sub_loss(const sm_score_t *s, int32_t n, int32_t i)
{
	int32_t loss = s->match + s->mismatch;
	int32_t left = (i + 1) * s->match + s->clip5, right = (n - i) * s->match + s->clip3;

	loss = left < loss ? left : loss;
	return right < loss ? right : loss;
}

/* The least a substitution anywhere in a read of length n takes from a
 * perfect objective (sm_sub_loss at the cheaper end). */
static inline int32_t sm_sub_loss_least(const sm_score_t *s, int32_t n)
{
	const int32_t a = sm_sub_loss(s, n, 0), b = sm_sub_loss(s, n, n - 1);

	return a < b ? a : b;
}

/* Reach of a horizontal or vertical gap run (the paper's Eq. 11 with our gap
 * convention): no alignment of a read of length n with positive objective
 * has a gap run longer than this many cells, so no value travels further
 * along a row.  p = floor((n * match + clip5 + clip3) / gap_ext). */
static inline int64_t sm_reach(const sm_score_t *s, int n)
{
	return sm_best_possible(s, n) / s->gap_ext;
}

/* Longest reference span of a positive-scoring local alignment of a read of
 * length n: its matched/mismatched columns plus a deletion run (< reach). */
static inline int64_t sm_max_span(const sm_score_t *s, int n)
{
	return (int64_t)n + sm_reach(s, n);
}

/* 5x5 substitution matrix, row-major [r*5+q]. */
void sm_score_matrix(const sm_score_t *s, int8_t mat[25]);

#endif
