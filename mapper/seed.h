/* seed.h — candidate windows for seeded mapping.
 *
 * A read's minimizers (index.h) are looked up in the reference index; each
 * hit votes for a diagonal (the reference position of the read's first base
 * on that strand).  Hits on nearby diagonals form a cluster, and each of the
 * best clusters becomes a reference window wide enough to hold any
 * positive-scoring alignment of the read around it.  Each strand of the
 * read is then aligned exactly (the same scan engines) against the windows
 * that its own clusters made (overlapping windows merge, with both
 * strands), laid end to end as the contigs of a small "window reference"
 * so that the scan restarts at every window.
 *
 * Repetitive minimizers (more than max_occ hits) are skipped; if that leaves
 * a read with no cluster, every minimizer is used (the fallback for reads
 * whose seeds are all repetitive). */
#ifndef SM_SEED_H
#define SM_SEED_H

#include <stdint.h>

#include "io/hd.h"
#include "io/ref.h"
#include "mapper/index.h"
#include "mapper/scan.h"
#include "mapper/score.h"

#define SM_SEED_DEFAULT_MAX_OCC 200
#define SM_SEED_DEFAULT_MAX_WINDOWS 8
#define SM_SEED_DEFAULT_BAND 32

/* Second chances: a search that the default limits may have failed (a
 * read whose best hit is poor, map.c; a pair with no confident proper
 * pair, pair.c) runs again with SM_SEED_RETRY_OCC times --max-occ and, for
 * a read alone, SM_SEED_RETRY_WINDOWS times --max-windows. */
#define SM_SEED_RETRY_OCC 10
#define SM_SEED_RETRY_WINDOWS 4

typedef struct {
	int max_occ;       /* minimizers with more hits are repetitive */
	int max_windows;   /* clusters kept per read (both strands together) */
	int band;          /* hits within this many diagonals join one cluster */
	int64_t max_hits;  /* hits a completion pass collects at most (SM_SEED_MAX_HITS) */
	int64_t pool;      /* completion: candidates past its lists that the share by
			    * diagonal picks from (SM_COMPLETE_POOL; 0: that) */
	int64_t copy_occ;  /* copies pass: a window's occurrences at most (SM_COPY_MAX_OCC) */
	int64_t copy_compared;   /* and loci compared one by one at most
				  * (SM_COPY_MAX_COMPARED; sm_seed_copy_windows) */
} sm_seed_opt_t;

void sm_seed_opt_init(sm_seed_opt_t *o);

typedef struct {
	int64_t start, end;  /* global coordinates, [start, end), inside one contig */
	int32_t votes;
	int32_t strands;     /* bit s set: a cluster of strand s made it; the
			      * mapper scans strand s only in such windows */
} sm_window_t;

/* Seed hits of one strand on nearby diagonals (diagonal: the reference
 * position of the oriented read's first base). */
typedef struct {
	int64_t lo, hi;   /* diagonal range */
	int32_t strand, votes;
} sm_cluster_t;

/* The steps below are inline so that the GPU seeder (gpu/gpu_seed.cu)
 * runs these very lines: its windows must equal the CPU's. */

/* 1 if cluster a ranks before b: more votes, then strand, then diagonal (a
 * total order: clusters of a strand have disjoint diagonal ranges). */
SM_HD static inline int sm_cluster_before(const sm_cluster_t *a, const sm_cluster_t *b)
{
	if (a->votes != b->votes)
		return a->votes > b->votes;
	if (a->strand != b->strand)
		return a->strand < b->strand;
	return a->lo < b->lo;
}

/* Inserts c into best[0..*k), the best (sm_cluster_before) of at most
 * `keep` clusters seen so far, best first. */
SM_HD static inline void sm_cluster_keep(sm_cluster_t *best, int64_t *k, int64_t keep,
					 const sm_cluster_t *c)
{
	int64_t at = *k;

	while (at > 0 && sm_cluster_before(c, &best[at - 1]))
		at--;
	if (at >= keep)
		return;
	if (*k < keep)
		(*k)++;
	for (int64_t t = *k - 1; t > at; t--)
		best[t] = best[t - 1];
	best[at] = *c;
}

/* The window of cluster c of a read of length n over a reference of
 * n_contig contigs (offset[], len[], total bases): the cluster's diagonals
 * plus the read, widened by `margin` on both sides, clipped to the contig
 * of its first diagonal.  Returns 0 when it is empty. */
SM_HD static inline int sm_cluster_window(const int64_t *offset, const int64_t *len,
					  int32_t n_contig, int64_t total, const sm_cluster_t *c,
					  int32_t n, int64_t margin, sm_window_t *x)
{
	int64_t anchor = c->lo < 0 ? 0 : c->lo >= total ? total - 1 : c->lo;
	int32_t contig = sm_offset_find(offset, n_contig, anchor);
	int64_t lo = offset[contig], hi = lo + len[contig];

	x->start = c->lo - margin < lo ? lo : c->lo - margin;
	x->end = c->hi + n + margin > hi ? hi : c->hi + n + margin;
	x->votes = c->votes;
	x->strands = 1 << c->strand;
	return x->start < x->end;
}

/* Merges the overlapping windows of one contig among w[0..n) (sorted by
 * start; windows with equal starts merge into the same one in either
 * order) in place, with the strands of both; returns how many are left. */
SM_HD static inline int32_t sm_windows_merge(sm_window_t *w, int32_t n, const int64_t *offset,
					     int32_t n_contig)
{
	int32_t m = 0;

	for (int32_t t = 0; t < n; t++) {
		sm_window_t *last = m ? &w[m - 1] : NULL;

		if (last && w[t].start <= last->end &&
		    sm_offset_find(offset, n_contig, w[t].start) ==
		    sm_offset_find(offset, n_contig, last->start)) {
			if (w[t].end > last->end)
				last->end = w[t].end;
			last->votes += w[t].votes;
			last->strands |= w[t].strands;
		} else {
			w[m++] = w[t];
		}
	}
	return m;
}

/* A window reference: windows as contigs, and the way back. */
typedef struct {
	sm_ref_t ref;          /* contigs = windows; names are NULL */
	int32_t n_win;
	sm_window_t *win;      /* global extent of each contig */
	int64_t *start;        /* win[c].start for each contig (sm_ref_src_t) */
	int64_t cap_seq, cap_win, cap_contig;
} sm_wref_t;

typedef struct sm_seeder_s sm_seeder_t;

/* Per-thread workspace. */
sm_seeder_t *sm_seeder_create(void);
void sm_seeder_destroy(sm_seeder_t *s);

/* What a first pass left out of its windows: the read positions whose
 * k-mer was skipped as repetitive (more than max_occ occurrences; none
 * when every k-mer was, since then all count), and the hits of the
 * clusters beyond the max_windows kept.  sm_seed_settled() reads it. */
typedef struct {
	int32_t skipped;
	int32_t dropped;
} sm_seed_left_t;

/* Finds the windows of a read (base codes, forward strand), in
 * w->win[0..w->n_win) only (w->ref is left as it was; w is reused between
 * calls, free it with sm_wref_free): ascending, overlapping ones merged;
 * *left (when not NULL) says what they leave out, and skip[i] (n bytes,
 * when not NULL) is 1 where the k-mer ending at read base i has more than
 * opt->max_occ occurrences (counted in left->skipped unless every k-mer
 * has), else 0.  Returns their number (0
 * if no seed hit), or -1 when out of memory (logged).  gpu/gpu_seed.h
 * finds the same windows for a batch of reads on the GPU. */
int sm_seed_find(sm_seeder_t *s, const sm_index_t *idx, const sm_ref_t *ref,
		 const sm_score_t *sc, const sm_seed_opt_t *opt,
		 const uint8_t *read, int32_t n, sm_wref_t *w, sm_seed_left_t *left,
		 uint8_t *skip);

/* Adds windows more[0..m) (sorted, merged, as sm_seed_find leaves them) to
 * w->win[0..w->n_win), sorted and merged again.  Returns the new count, or
 * -1 when out of memory (logged). */
int32_t sm_windows_add(sm_wref_t *w, const sm_ref_t *ref, const sm_window_t *more, int32_t m);

/* The windows among win[0..n) that strand st's clusters made (the ones
 * that strand is scanned in), in order, into out (room for n); returns
 * their number. */
int32_t sm_windows_of_strand(const sm_window_t *win, int32_t n, int st, sm_window_t *out);

/* Pair-consistent windows (mapper/pair.c asks for them when a pair's
 * reads, seeded one by one, found no confident proper pair): the clusters of
 * both reads are paired when their strands face each other and their
 * diagonals allow an insert within [ins_lo, ins_hi] (give or take the
 * band), and the pairs with the most votes (both clusters' together) become
 * window pairs.  Two clusters that agree on the insert are far less likely
 * to meet by chance than one cluster is to form, so seeds up to
 * SM_SEED_RETRY_OCC times more repetitive than --max-occ vote here, and no
 * cluster needs to be among the read's best. */

typedef struct {
	sm_window_t a, b;    /* the window of read A, of read B */
	int32_t strand_a;    /* 0: read A forward (B reverse), 1: the other way */
	int32_t votes;       /* the two clusters' votes */
} sm_window_pair_t;

/* Up to max_pairs window pairs of reads A and B (base codes, forward
 * strand) into out[], most votes first (ties in the order of A's then B's
 * clusters by strand and diagonal).  Returns their number, or -1 when out
 * of memory (logged). */
int sm_seed_pair_windows(sm_seeder_t *s, const sm_index_t *idx, const sm_ref_t *ref,
			 const sm_score_t *sc, const sm_seed_opt_t *opt,
			 const uint8_t *read_a, int32_t na, const uint8_t *read_b, int32_t nb,
			 int64_t ins_lo, int64_t ins_hi, int max_pairs, sm_window_pair_t *out);

/* Completion: what the seeding limits may have hidden, and the guarantee.
 *
 * Support lemma.  Every k-mer of a read is looked up, and every w
 * consecutive k-mers of the reference hold one of its minimizers, so a run
 * of k + w - 1 read bases that matches the reference exactly (no mismatch,
 * gap or ambiguous base inside) holds a k-mer that is in the index at that
 * locus: a "supporting" k-mer.  Read backwards: wherever w consecutive read
 * k-mers (their last bases) have no supporting k-mer at a locus, the
 * alignment there has a difference or a clipped end within those k + w - 1
 * bases.  Counting the disjoint such windows bounds the best objective
 * (score plus end bonuses, scan.h) an alignment at the locus may have
 * (seed_impl.h, sm_bound_score), from the read positions of its seeds
 * alone; a run of r exact bases holds at
 * least floor((r - k + 1) / w) supporting k-mers (sm_seed_support_min).
 *
 * sm_seed_complete() looks every k-mer up again, keeps the read position
 * of each hit, clusters the hits with a band as wide as the gap reach (all
 * the seeds of one alignment then fall in one cluster), and returns as
 * windows those already scanned plus the clusters whose bound beats the
 * best score found, highest bound first, at most opt->max_windows of them.
 * K-mers over opt->max_occ occurrences (the retry limits:
 * SM_SEED_RETRY_OCC x --max-occ) are skipped, and count as supporting
 * everywhere, unless they alone could make a better locus; then every
 * k-mer counts (the fallback for reads whose every minimizer is frequent),
 * up to SM_SEED_MAX_HITS hits.  Where the skipped k-mers alone leave a
 * break cost of room below `best`, only the k-mers of the rarest disjoint
 * windows that keep it so are looked at, the others skipped too (complete.c,
 * keep_rare_windows); where that leaves more candidates than the lists
 * hold, the pass runs again without it.  Where there are more candidates
 * than it returns, a share of those it returns (one in
 * SM_COMPLETE_BY_DIAG_SHARE) are not the next by bound but, among the
 * SM_COMPLETE_POOL next by bound and the SM_COMPLETE_TIES_POOL past them
 * with the most hits on one diagonal, those whose cluster's diagonals
 * align the read best (its most supported one alone or joined to its first
 * or last across a gap: sm_diag_score, seed_impl.h): a divergent read's
 * origin can have less exact support than thousands of repeat copies
 * that align far worse.  Candidates of equal bound rank by their hits on
 * their most frequent diagonal (0 for a cluster of one read position),
 * then by support.  What is left out is the bound of
 * the best candidate not returned (or of the skipped k-mers alone): when
 * it beats the best score found in the windows, the read is unsure. */

/* Hits a completion pass collects at most, per read and pass: beyond, the
 * most frequent k-mers stay skipped and the read may be unsure.  About 30
 * times what a completed read of chr20 collects on average (1,100-3,300);
 * on 3 Gbp of close copies of chr20 (every k-mer in 48 copies) the
 * completed reads collected 30,000 on average, and the workers' seeding
 * took 549 s against 14 s without the pass (results/gpu-2026-11-27.md,
 * Z5). */
#define SM_SEED_MAX_HITS 100000
/* Candidates ranked past a pass's lists from which it picks by diagonal
 * (above), and the share of its windows picked so: of the 20,000
 * high-divergence chr20 reads 26 stayed below their origin without, 10
 * with, 7 with the ties of bounds broken by the hits on one diagonal
 * (docs/seeded.md, "Which candidates are scanned first"). */
#define SM_COMPLETE_POOL 1024
#define SM_COMPLETE_BY_DIAG_SHARE 4
/* Clusters past that pool the share also picks from: those with the most
 * hits on one diagonal.  A read in an Alu whose k-mers are too frequent to
 * look up has every copy's bound raised by them (they count as support
 * everywhere) above its origin's, whose hits line up on one diagonal
 * better than any copy's (docs/seeded.md). */
#define SM_COMPLETE_TIES_POOL 64
/* With refine, the completion pass bounds each candidate a second time
 * from its window's bases (sm_seed_window_bound): a read q-gram of
 * SM_QGRAM bases found nowhere in the window holds a difference in every
 * alignment there, and the tighter of the two bounds counts.  Seeds say
 * where a read could align; they bound loosely where a cluster is a chance
 * hit or two and the rest of the read is simply not there (a clipped
 * adapter or poly-G tail leaves every such locus a bound above a clean
 * partial best, and the reads' chance hits make hundreds of such loci).
 * 8: the read's q-grams, a 65,536-bit set a strand, stay in L1, and a
 * 300-base window holds a given other 8-mer by chance 0.5% of the time. */
#define SM_QGRAM 8
/* Candidates a read may have for refine to bound them: reads with more (a
 * read in a repeat family, a clipped read whose chance hits are many) keep
 * the seeds' bounds.  On benchmarks/polyg_tails.sh's 5,000 chr20 reads with
 * 31-60 bases of poly-G, 1,078 take the refined completion and 4,096
 * settles 556 of them (-v 4); 8,192 settles 718 for 7% more CPU there,
 * 16,384 999 for 73% more (builds with this constant changed). */
#define SM_REFINE_MOST 4096
/* sm_seed_support_min() of a score above a perfect match. */
#define SM_SEED_UNREACHABLE INT32_MAX

/* Least support (see above) of an alignment of a read of length n with
 * n_amb ambiguous bases scoring at least `score`, whose seeds fall in one
 * cluster unless a gap is longer than `band` (0: a locus without any seed
 * may have it; SM_SEED_UNREACHABLE above a perfect score). */
int32_t sm_seed_support_min(const sm_index_t *idx, const sm_score_t *sc, int band, int32_t n,
			    int32_t n_amb, int64_t score);

/* What a completion pass left out. */
typedef struct {
	int32_t left;    /* best score a seeded locus outside its windows may have (0: none) */
	int32_t n_new;   /* clusters added to the windows scanned before */
	int32_t n_next;  /* candidates left out kept for a later round (sm_seed_next_t) */
	int32_t beyond;  /* the most that a locus outside the windows and those
			  * candidates may score (0: none) */
	int64_t hits;    /* hits collected, by every pass */
	int64_t passes;  /* 2 when it ran again with every k-mer after the rare
			  * windows, 1 otherwise (0: sm_seed_complete_next) */
} sm_seed_gap_t;

/* A candidate that a completion pass ranked after those it returned: its
 * window and the bound of its cluster, for a later round
 * (sm_seed_complete_next). */
typedef struct {
	sm_window_t win;
	int32_t bound;
} sm_seed_next_t;

/* The windows of a completion pass for a read (base codes, forward strand,
 * length n) whose best score so far is `best` (0: none) in the windows
 * done[0..n_done) (sm_seed_find's), with the limits opt (the retry limits):
 * those windows and the windows of at most opt->max_windows clusters
 * outside them that could beat `best`, merged, in w->win[0..w->n_win) (as
 * sm_seed_find leaves them); *gap says what was left out.  The next
 * candidates, at most max_next of them, best first, go to next[0..
 * gap->n_next) for later rounds.  refine: each candidate's bound is also
 * bounded from its window's bases (sm_seed_window_bound, the tighter
 * counts), for reads that the seeds' bounds alone leave unsure: it costs a
 * pass over each candidate's window, so a read with more than
 * SM_REFINE_MOST candidates gets done[] back unchanged and gap->left
 * SM_SEED_UNREACHABLE (still unsure).  Returns the windows' number, or -1
 * when out of memory (logged). */
int sm_seed_complete(sm_seeder_t *s, const sm_index_t *idx, const sm_ref_t *ref,
		     const sm_score_t *sc, const sm_seed_opt_t *opt, const uint8_t *read,
		     int32_t n, int32_t best, const sm_window_t *done, int32_t n_done,
		     int32_t max_next, int refine, sm_seed_next_t *next, sm_wref_t *w,
		     sm_seed_gap_t *gap);

/* The most that an alignment of read (base codes, length n; st 1: its
 * reverse complement) lying inside [start, end) of ref can score, from the
 * read q-grams the window holds (SM_QGRAM): what refine adds to each
 * candidate of sm_seed_complete.  Returns it, or -1 when out of memory. */
int32_t sm_seed_window_bound(sm_seeder_t *s, const sm_ref_t *ref, const sm_score_t *sc,
			     const uint8_t *read, int32_t n, int st, int64_t start, int64_t end);

/* A later round of a completion pass, from the candidates next[0..*n_next)
 * that an earlier round left out (best first; beyond: its gap's) for a read
 * whose best score is now `best` in the windows done[0..n_done) (all it
 * has scanned): those that still beat `best` and lie outside those
 * windows, at most max_windows of them, added to them as sm_seed_complete
 * adds its own (w->win[0..w->n_win)); next[] keeps the rest, compacted.
 * *gap as sm_seed_complete leaves it.  A locus that beats `best` beat the
 * earlier round's best too, so it is in next[] or covered by `beyond`
 * (which gap->left includes): a read is never called settled that a new
 * look-up would leave unsure.  Returns the windows' number or -1 when out
 * of memory (logged). */
int sm_seed_complete_next(const sm_ref_t *ref, int32_t max_windows, int32_t best,
			  const sm_window_t *done, int32_t n_done, sm_seed_next_t *next,
			  int32_t *n_next, int32_t beyond, sm_wref_t *w, sm_seed_gap_t *gap);

/* The best objective a locus could reach where no k-mer of read (base
 * codes, length n) is in the index: every window of w k-mers then holds a
 * difference (sm_bound_score with no k-mer supporting).  A read that scores
 * less could be beaten by a locus that no seed of any pass finds.  s: the
 * workspace.  Returns the bound (0 or more) or -1 when out of memory. */
int32_t sm_seed_unseeded_bound(sm_seeder_t *s, const sm_index_t *idx, const sm_score_t *sc,
			       const uint8_t *read, int32_t n);

/* 1 if an alignment of read bases [q_start, q_end) of a read of length n
 * with objective `score` is at least as divergent as a locus without seeds:
 * it loses at least a difference's least cost (the bound's break cost) in
 * every k + w - 1 aligned bases; 0 if not (or nothing is aligned). */
int sm_seed_divergent(const sm_index_t *idx, const sm_score_t *sc, int32_t n, int32_t score,
		      int32_t q_start, int32_t q_end);

/* Neighbour seeds, for a read (base codes, length n) that scores below
 * sm_seed_unseeded_bound: every k-mer of the read and its 3k
 * one-substitution neighbours are looked up (k-mers of more than
 * opt->max_occ occurrences skipped, and the most frequent beyond
 * opt->max_hits hits in all), so a locus where some k + w - 1 read bases
 * differ by at most one substitution has a hit; the opt->max_windows
 * clusters with the most hits whose windows lie outside done[0..n_done)
 * (all the read's windows so far) are added to them, merged, in
 * w->win[0..w->n_win); *hits: the hits collected.  Neighbours whose
 * minimizer hash is above max_hash are not looked up (UINT32_MAX: every
 * one): the index holds a k-mer of the reference only where its hash is
 * the least of w k-mers', so a share q of the hash range keeps 1 - (1 -
 * q)^w of the reference's minimizers a read's neighbours could hit (q =
 * 1/16, w = 10: 48%) at q of the look-ups; and clusters of fewer than
 * min_votes read positions make no window.  With by_diag the clusters are
 * ranked by how well their diagonals align the read (ungapped, as the
 * completion's choose_by_diagonal) instead of by hits: a short read's
 * origin one substitution away has one or two hits, as have dozens of
 * chance neighbours.  Returns the windows' number or -1 when out of memory
 * (logged). */
int sm_seed_neighbours(sm_seeder_t *s, const sm_index_t *idx, const sm_ref_t *ref,
		       const sm_score_t *sc, const sm_seed_opt_t *opt, const uint8_t *read,
		       int32_t n, const sm_window_t *done, int32_t n_done, uint32_t max_hash,
		       int32_t min_votes, int by_diag, sm_wref_t *w, int64_t *hits);

/* sm_seed_neighbours' max_hash and min_votes for a read without a hit
 * (map.c): such reads are more often foreign or random than divergent, so
 * a sixteenth of the look-ups, and windows only where three read positions
 * agree (on 20,000 random 150 bp reads against chr20: +0.075 ms a read;
 * the four of 20,000 high-divergence reads left unmapped before all reach
 * their origin). */
#define SM_NEIGHBOUR_UNMAPPED_HASH (UINT32_MAX >> 4)
#define SM_NEIGHBOUR_UNMAPPED_VOTES 3

/* 1 if no locus outside a first pass's windows win[0..n_win) (*left and
 * skip: what they left out, as sm_seed_find gives them) can score more
 * than `best`, the best
 * objective found in them, for a read (base codes, length n): then a
 * completion pass could add nothing; 0 if one may; -1 when out of memory.
 * By the support lemma a better locus holds at least
 * sm_seed_support_min(best + 1) supporting k-mers (one at least: a locus
 * without any is beyond seeding); each is a skipped k-mer or a hit, and a
 * hit lies in a kept cluster, whose window holds the whole alignment, or
 * in a dropped one.  So fewer skipped k-mers and dropped hits than that
 * settle it; so does a score bound from the skipped k-mers' read positions,
 * raised for each dropped hit as sm_seed_complete raises it, that does not
 * beat best.  s: the workspace.
 * Unless a window ends at the end of its contig: its cluster's hits may
 * go on in the next (sm_cluster_window clips to one contig). */
int sm_seed_settled(sm_seeder_t *s, const sm_index_t *idx, const sm_ref_t *ref,
		    const sm_score_t *sc, const sm_seed_left_t *left, const uint8_t *skip,
		    const sm_window_t *win, int32_t n_win, const uint8_t *read, int32_t n,
		    int32_t best);

/* The copies of a read (base codes, length n) outside its windows: loci
 * where the reference, on either strand, equals the read base for base
 * (away[0]; for a perfect read the only loci that score its best) or but
 * for one substitution (away[1]; *loss: the least that one takes from a
 * perfect objective under sc, INT32_MAX for none; sub_count, when not
 * NULL, n entries: how many of them have their substitution at each read
 * position, in the read's own orientation), counted when no window
 * win[0..n_win) of that strand holds them whole.  Returns 0; SM_SEED_UNDECIDED when no
 * window of the read has a least hash with at most max_occ occurrences;
 * -1 when out of memory.  away[2] is 1 when away[1] counts every copy one
 * substitution away, 0 when it may fall short (no two such windows share
 * no base: always so for a read under 2 (k + w - 1) bases); away[1] is
 * then -1 (undecided) when it found none.
 * Exact, not a bound: a window of w k-mers of a copy that the substitution
 * (if any) leaves alone holds the same k-mers as the read's window there,
 * so the same least hash, and the index holds that minimizer at the copy;
 * every occurrence of such a hash, against every read position of a k-mer
 * with that hash, gives a diagonal, and the copy is one of them. */
#define SM_SEED_UNDECIDED (-2)
int sm_seed_near_copies(sm_seeder_t *s, const sm_index_t *idx, const sm_ref_t *ref,
			const sm_score_t *sc, const uint8_t *read, int32_t n, int64_t max_occ,
			const sm_window_t *win, int32_t n_win, int64_t away[3], int32_t *loss,
			int32_t *sub_count);

/* The windows of the copies pass (map.c) for a read (base codes, length
 * n) left unsure below a perfect match whose best objective so far is
 * `best`: the loci that equal it on either strand but for at most `most`
 * substitutions (1 to SM_COPY_MAX_SUBS; fewer where the read lacks the
 * windows for most: below), whose objective under sc could beat best, outside the
 * windows done[0..n_done); at most opt->max_windows of them (by their
 * substitutions, exact copies first), with opt->band as sm_seed_find's
 * margin, added to done as sm_seed_complete adds its own (w->win[0..
 * w->n_win)); *found: how many such loci there were.  Why: a read whose
 * every k-mer recurs in thousands of copies can lose its origin to the
 * completion's budget of hits (SM_SEED_MAX_HITS), while most + 1 windows
 * of the read that share no base (one of them the substitutions leave
 * alone) find every locus within `most` substitutions, as
 * sm_seed_near_copies finds one away, where every occurrence of their
 * least hashes is compared with the read.  Returns the windows' number, or
 * -1 when out of memory (logged). */
#define SM_COPY_MAX_SUBS 6
/* The windows it looks up have at most opt->copy_occ occurrences each;
 * where every occurrence's locus is compared, opt->copy_compared in all.
 * A young repeat's windows can all be frequent (at 3 Gbp of close copies a
 * 100 bp read of an Alu-like family has none under 19,000, some over
 * 300,000): most + 2 of them, sorted by locus, find the loci where two
 * agree, the only ones compared. */
#define SM_COPY_MAX_OCC ((int64_t)1 << 19)
#define SM_COPY_MAX_COMPARED ((int64_t)1 << 18)
int sm_seed_copy_windows(sm_seeder_t *s, const sm_index_t *idx, const sm_ref_t *ref,
			 const sm_score_t *sc, const sm_seed_opt_t *opt, const uint8_t *read,
			 int32_t n, int32_t best, int most, const sm_window_t *done,
			 int32_t n_done, sm_wref_t *w, int64_t *found);

/* Substitutions between read (base codes, length n, no N) and the
 * reference at diagonal d (the column of the read's first base) of strand
 * st (1: the read reverse-complemented), counted up to most + 1 (also when
 * the span leaves the reference or its contig); *first (when not NULL):
 * the offset of the first one from d, in the reference's orientation. */
int32_t sm_seed_subs_at(const sm_ref_t *ref, const uint8_t *read, int32_t n, int st, int64_t d,
			int32_t most, int32_t *first);

/* 1 if a seeded locus outside the windows of a completion pass (gap) could
 * still score more than `best`, the best score found in them: the read's
 * placement is not known to be optimal (its MAPQ says so). */
int sm_seed_unsure(const sm_seed_gap_t *gap, int32_t best);

/* Makes w the window reference of the one window [start, end) (global
 * coordinates inside one contig of ref; empty when start >= end).  Returns
 * 0, or -1 when out of memory (logged). */
int sm_wref_set_window(sm_wref_t *w, const sm_ref_t *ref, int64_t start, int64_t end);

/* Makes w the window reference of win[0..n) (each inside one contig of
 * ref, in the order given, not overlapping; empty ones dropped).  Returns 0,
 * or -1 when out of memory (logged). */
int sm_wref_set_windows(sm_wref_t *w, const sm_ref_t *ref, const sm_window_t *win, int32_t n);

/* As sm_wref_set_windows, without copying the bases: w->ref.seq is not
 * valid afterwards.  For a scan engine that reads them from its
 * own copy of ref (sm_ref_src_t, engine.h). */
int sm_wref_place_windows(sm_wref_t *w, const sm_ref_t *ref, const sm_window_t *win,
			  int32_t n);

/* Global coordinate of window-reference coordinate p. */
int64_t sm_wref_to_global(const sm_wref_t *w, int64_t p);

/* Re-expresses a scan over the window reference in global coordinates
 * (loci re-binned with global bins). */
void sm_wref_scan_to_global(const sm_wref_t *w, const sm_scan_t *in, int shift, sm_scan_t *out);

void sm_wref_free(sm_wref_t *w);

#endif
