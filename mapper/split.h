/* split.h — a read's alignments beyond its primary one, as bwa mem writes
 * them: the other parts of a split (chimeric) read as supplementary records
 * with SA:Z, alternative hits (XA:Z on the primary record), and the tags a
 * record adds to sm_record_build's (MC:Z, the FASTQ comment).
 *
 * Split reads.  After pairing has chosen each read's primary alignment,
 * the parts of the read outside it (each clipped end, reaching
 * SM_SPLIT_SHARE bases into the primary's, long enough to reach -T) are
 * mapped as reads of their own, with the same engine and mode as
 * every read (sm_map_reads: whole reference, or seeded windows): a part
 * whose best hit's AS reaches -T becomes a supplementary alignment, and what it
 * leaves of its part is mapped again, up to SM_SPLIT_MAX_PARTS parts per
 * read.  So each part is the exact optimum of its bases within what the
 * mode searches, and every engine writes the same records.
 *
 * Private to the mapper core (batch.c and emit.c call it as they make a
 * batch's records); docs/cli.md describes the output. */
#ifndef SM_SPLIT_H
#define SM_SPLIT_H

#include "mapper/map_impl.h"

/* An alternative hit scores at least this fraction of the primary's (bwa
 * mem's XA drop ratio, 0.80). */
#define SM_XA_DROP_RATIO 0.80
/* Another candidate is an alternative to the primary (rather than another
 * part of the read) when their read intervals overlap by at least this
 * fraction of the shorter one (bwa mem's mask level, 0.50). */
#define SM_MASK_LEVEL 0.50

/* Alignments of a split read, the primary's included (bwa mem has no
 * limit; 8 parts of a 150 bp read are 19 bases each, near the -T floor). */
#define SM_SPLIT_MAX_PARTS 8

/* A part may reach this many bases into the primary's (split.c ends_add):
 * the bases next to a junction that match at both loci. */
#define SM_SPLIT_SHARE 10

/* A worker's split-read state (split.c), created on first use. */
typedef struct sm_split_s sm_split_t;
void sm_split_free(sm_split_t *s);

/* Finds the supplementary parts of reads[0..n) (results res, queries
 * ws->q, as sm_map_batch has them once pairing is done) and keeps them in
 * ws->split for sm_split_emit; lowers a split read's XS to the hits that
 * cover its primary's part of the read (the other parts are no rivals),
 * raising its MAPQ to match.  Returns 0 or -1 (logged). */
int sm_split_batch(const sm_ctx_t *ctx, sm_tbuf_t *ws, const sm_read_t *reads, int n, res_t *res);

/* 1 if alignment aln (strand is_rev) of batch read k shares reference
 * bases with one of its supplementary parts: a secondary record (-N, -a)
 * would repeat it. */
int sm_split_is_part(const sm_tbuf_t *ws, int k, int is_rev, const sm_aln_t *aln);

/* Batch read k was mapped without its last `tail` bases (a read that
 * reads through its fragment, batch.c): moves its reverse-strand parts'
 * query coordinates onto the whole read's reverse complement, whose first
 * `tail` bases are the ones left out. */
void sm_split_add_tail(sm_tbuf_t *ws, int k, int32_t tail);

/* Writes the supplementary records of batch read k (read e of its unit,
 * whose primary record, prim, was just written with the FLAG bits and mate
 * fields x) after it, and SA:Z on all of them.  Returns 0 or -1 (logged). */
int sm_split_emit(const sm_ctx_t *ctx, sm_tbuf_t *ws, sm_batch_t *b, int k, bam1_t *prim,
		  const sm_read_t *r, const sm_query_t *q, res_t *res, int e, int n_unit,
		  const sm_rec_extra_t *x);

/* Appends to rec, the record just built for read e of a unit of n_unit
 * reads (r, queries q, results res: as sm_emit_read has them),
 * the tags bwa mem's output adds: MC (a paired read whose mate is mapped:
 * the mate's primary CIGAR); on the primary record (primary 1) XA, unless
 * -a or -h 0; the FASTQ comment with -C.  Returns 0 or -1 (logged). */
int sm_split_tags(const sm_ctx_t *ctx, sm_tbuf_t *ws, bam1_t *rec, const sm_read_t *r,
		  const sm_query_t *q, res_t *res, int e, int n_unit, int primary);

#endif
