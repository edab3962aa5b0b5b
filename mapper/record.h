/* record.h — from a read and its best hit to a SAM record.
 *
 * A read is scored on both strands: the forward query is the read, the
 * reverse query its reverse complement.  sm_hit_choose() picks the hit and
 * its competitor (XS) from the two engines' lists, sm_align() traces it back
 * and sm_record_build() writes the bam1_t:
 *
 *   FLAG   0, or 16 for a hit of the reverse complement, or 4 (unmapped),
 *          plus the pair and secondary bits of sm_rec_extra_t
 *   POS    1-based, on the contig holding the alignment's first base
 *   MAPQ   sm_mapq(AS, XS): never 255
 *   CIGAR  S for the read ends outside the local alignment, then M/I/D
 *   SEQ    the read, reverse-complemented (IUPAC-aware) on the reverse
 *          strand, QUAL reversed with it; unmapped reads as given
 *   RNEXT, PNEXT, TLEN  from sm_rec_extra_t (paired reads); an unmapped
 *          read with a mapped mate takes its mate's RNAME and POS
 *   tags   NM MD AS XS, then RG when a read group is set (unmapped: RG only)
 *
 * NM and MD follow samtools calmd: an aligned position is a match when the
 * read and reference letters are the same IUPAC code (case-insensitive)
 * other than N; anything else, N against N included, is a mismatch and MD
 * names the reference letter (uppercase).  NM adds inserted and deleted
 * bases.  (docs/cli.md discusses where picard's NM check differs.) */
#ifndef SM_RECORD_H
#define SM_RECORD_H

#include <htslib/kstring.h>
#include <htslib/sam.h>
#include <stdint.h>

#include "io/fastq.h"
#include "io/ref.h"
#include "mapper/align.h"
#include "mapper/scan.h"
#include "mapper/score.h"

/* MAPQ, from AS, XS and the read length n (A, B: match score and mismatch
 * penalty):
 *   lead = (AS - XS) / (A + B)          the lead in mismatches' worth
 *   k    = (n*A - AS) / (A + B)         the alignment's differences, roughly
 *   mapq = SM_MAPQ_PER_MISMATCH * lead - 10 log10(1 + k / SM_MAPQ_DIFF_SCALE)
 * floored, clamped to 0..SM_MAPQ_MAX, and 0 when XS >= AS.  Each
 * mismatch's worth of lead over the competitor adds SM_MAPQ_PER_MISMATCH
 * (a 1% chance that the read's true origin is one more mismatch away); the
 * second term says that the more differences a read carries, the likelier
 * some fall where its true locus and a similar one differ, turning the lead
 * around.  Fitted on simulated reads (benchmarks/results/accuracy-*.md). */
#define SM_MAPQ_MAX 60
#define SM_MAPQ_PER_MISMATCH 20
#define SM_MAPQ_DIFF_SCALE 4.0

/* The chosen hit of a read. */
typedef struct {
	int mapped;        /* best score >= the -T threshold */
	int is_rev;        /* hit of the reverse complement */
	sm_locus_t best;   /* score (AS) and end column of the hit */
	int32_t xs;        /* best score at another locus, either strand (0: none) */
	int n_tied;        /* the tied hits it was chosen among (0: none) */
} sm_hit_t;

/* What a paired or secondary record adds to sm_record_build()'s defaults. */
typedef struct {
	uint16_t flag;       /* BAM_FPAIRED BAM_FPROPER_PAIR BAM_FMUNMAP BAM_FMREVERSE
	                        BAM_FREAD1 BAM_FREAD2 BAM_FSECONDARY, as they apply */
	int mapq;            /* MAPQ of a mapped record */
	int32_t mate_tid;    /* the mate's contig, -1 when unmapped or no mate */
	int64_t mate_pos;    /* the mate's 0-based POS, -1 when none */
	int64_t tlen;        /* TLEN (0 unless both mapped on one contig) */
	int hard_clip;       /* the clipped ends as H, SEQ and QUAL only the aligned part
	                        (a split read's supplementary part, bwa mem without -Y) */
	int keep_seq;        /* SEQ and QUAL written even with BAM_FSECONDARY (a split
	                        read's part flagged secondary, bwa mem -M) */
} sm_rec_extra_t;

/* Scratch buffers reused from record to record by one thread. */
typedef struct {
	kstring_t seq, qual, md;
	uint32_t *cigar;
	size_t m_cigar;
} sm_record_ws_t;

/* Equal-best hits.  When several loci of a read reach its best score (the
 * copies of a repeat), the hit is chosen among them by the read's tie key,
 * a hash of its name, as bwa mem and minimap2 choose among equal hits by a
 * hash of the read: the reads of a repeat spread over its copies (each with
 * MAPQ 0, XS = AS) instead of piling onto one, so that variants in every
 * copy get their reads, and a read goes to the same copy in every run,
 * whatever the threads, batches or engine.  The key is the 64-bit FNV-1a
 * hash of the name, less a trailing "/1" or "/2" (the two reads of a pair
 * share it), put through MurmurHash3's 64-bit finaliser so that its low
 * bits (the modulo of sm_tie_pick) depend on every byte. */
uint64_t sm_tie_key(const char *name);

/* Which of n >= 1 equal choices, listed in a fixed order, key takes. */
static inline int sm_tie_pick(uint64_t key, int n)
{
	return (int)(key % (uint64_t)n);
}

/* Picks the hit from the forward and reverse lists (both built with the
 * same shift).  The loci of both lists with the highest score, ordered by
 * end, then forward strand first, are the tied hits, but for any at the
 * same place as an earlier one; the hit is tied hit sm_tie_pick(tie, n)
 * (one tied hit: the smallest end, then the forward strand).  XS is the
 * best score of either list elsewhere than the hit's place, the hit's own
 * score when there are several tied hits.  A locus is at the same place
 * as the hit when it lies in the hit's bin or a neighbour and ends at most
 * `apart` columns from it (the read's length plus sm_reach(): the hit's
 * own truncations, shifted sub-alignments and deletion tail end there; a
 * locus further away is another alignment, and a rival).  mapped is set
 * when the score reaches min_score (-T). */
void sm_hit_choose(const sm_scan_t *fwd, const sm_scan_t *rev, int shift, int64_t apart,
		   int32_t min_score, uint64_t tie, sm_hit_t *hit);

/* Mapping quality from the alignment score, XS and the read length (see
 * above). */
int sm_mapq(const sm_score_t *sc, int32_t as, int32_t xs, int32_t len);

/* MAPQ that claims a placement: the usual bar of a confident one. */
#define SM_MAPQ_CLAIM 20

/* The same from a lead (AS - XS, or a pair's score less its rival's: need
 * not be whole) and the alignments whose differences could turn it around:
 * scores as[0..n) of reads of lengths len[0..n), their differences k
 * summed (a pair: the reads that its rival places elsewhere).  0 when
 * lead <= 0. */
int sm_mapq_lead(const sm_score_t *sc, double lead, int n, const double *as,
		 const int32_t *len);

/* MD string (appended to md, NUL-terminated) and NM of an alignment whose
 * first aligned base lies at global coordinate ref_start: cigar holds only
 * M/I/D operations and seq the aligned read letters in reference
 * orientation (the first letter is the first aligned one).  Returns 0, or
 * -1 on out of memory. */
int sm_md_nm(const sm_ref_t *ref, int64_t ref_start, const uint32_t *cigar, int n_cigar,
	     const char *seq, kstring_t *md, int32_t *nm);

/* Writes read r's record into b (allocated with bam_init1()).  aln is the
 * traceback of hit (ignored, may be NULL, when !hit->mapped); rg_id the read
 * group ID or NULL.  x NULL means a single-end primary record with MAPQ
 * sm_mapq(AS, XS); otherwise x gives the FLAG bits, MAPQ and mate fields
 * (a secondary record, BAM_FSECONDARY, gets SEQ and QUAL '*' unless
 * x->keep_seq) and the clips' kind (x->hard_clip).  Returns 0,
 * or -1 after logging an error naming the read (a name longer than SAM
 * allows, out of memory). */
int sm_record_build(bam1_t *b, const sm_read_t *r, const sm_ref_t *ref,
		    const sm_score_t *sc, const sm_hit_t *hit, const sm_aln_t *aln,
		    const sm_rec_extra_t *x, const char *rg_id, sm_record_ws_t *ws);

/* NM of alignment aln of read r on strand is_rev (as sm_md_nm counts it),
 * for tags naming other alignments of the read (XA, SA).  Returns 0, or -1
 * when out of memory. */
int sm_record_nm(const sm_read_t *r, const sm_ref_t *ref, int is_rev, const sm_aln_t *aln,
		 sm_record_ws_t *ws, int32_t *nm);

void sm_record_ws_free(sm_record_ws_t *ws);

#endif
