/* tags.h — the SAM tags bwa mem writes beyond scanmap's own (NM MD AS XS
 * RG, record.h), in bwa mem's formats:
 *
 *   MC:Z  the mate's CIGAR (soft clips), on paired records with a mapped mate
 *   XA:Z  alternative hits:  RNAME,(+|-)POS,CIGAR,NM;  ...  (POS 1-based,
 *         CIGAR with soft clips, '-' for the reverse strand)
 *   SA:Z  the other parts of a split read:  RNAME,POS,(+|-),CIGAR,MAPQ,NM;
 *         ...  (the SAM specification's form; CIGAR with soft clips)
 *   the FASTQ comment (-C), when it holds SAM tags TAG:TYPE:VALUE
 *
 * Every function appends to b (or to a string) and returns 0, or -1 when
 * out of memory or, for sm_tags_comment, on a comment that is not tags
 * (logged, naming the read). */
#ifndef SM_TAGS_H
#define SM_TAGS_H

#include <htslib/kstring.h>
#include <htslib/sam.h>
#include <stdint.h>

#include "io/fastq.h"
#include "io/ref.h"
#include "mapper/align.h"

/* The CIGAR of alignment aln of a read of qlen bases as text: its clipped
 * ends as S (or H when hard), then the alignment's M/I/D. */
int sm_tags_cigar_text(kstring_t *s, const sm_aln_t *aln, int32_t qlen, int hard);

/* MC:Z from the mate's alignment (mate_len: the mate's length). */
int sm_tags_mc(bam1_t *b, const sm_aln_t *mate, int32_t mate_len);

/* One XA:Z entry for alignment aln (strand is_rev, read length qlen,
 * edit distance nm) appended to s. */
int sm_tags_xa_entry(kstring_t *s, const sm_ref_t *ref, int is_rev, const sm_aln_t *aln,
		     int32_t qlen, int32_t nm);

/* One SA:Z entry (MAPQ mapq) appended to s. */
int sm_tags_sa_entry(kstring_t *s, const sm_ref_t *ref, int is_rev, const sm_aln_t *aln,
		     int32_t qlen, int mapq, int32_t nm);

/* Appends the tags of read r's FASTQ comment (bwa mem -C): whitespace-
 * separated fields TAG:TYPE:VALUE with TYPE one of A i f Z H, or B with
 * its array (B:c,1,2).  A comment that is not such tags (Illumina's
 * "1:N:0:ACGT", say) is an error naming the read: bwa would copy it into
 * the SAM line, which tools then refuse.  Does nothing when r has none. */
int sm_tags_comment(bam1_t *b, const sm_read_t *r);

#endif
