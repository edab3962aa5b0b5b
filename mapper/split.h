/* split.h — a read's alignments beyond its primary one, as bwa mem writes
 * them: alternative hits (XA:Z on the primary record), and the tags a
 * record adds to sm_record_build's (MC:Z, the FASTQ comment).
 *
 * Private to the pipeline (mapper/pipeline.c calls it as it writes a
 * read's records); docs/cli.md describes the output. */
#ifndef SM_SPLIT_H
#define SM_SPLIT_H

#include "mapper/pipe_impl.h"

/* An alternative hit scores at least this fraction of the primary's (bwa
 * mem's XA drop ratio, 0.80). */
#define SM_XA_DROP_RATIO 0.80
/* Another candidate is an alternative to the primary (rather than another
 * part of the read) when their read intervals overlap by at least this
 * fraction of the shorter one (bwa mem's mask level, 0.50). */
#define SM_MASK_LEVEL 0.50

/* Appends to rec, the record just built for read e of a unit of n_unit
 * reads (r, queries q, results res: as pipeline.c's emit_read has them),
 * the tags bwa mem's output adds: MC (a paired read whose mate is mapped:
 * the mate's primary CIGAR); on the primary record (primary 1) XA, unless
 * -a or -h 0; the FASTQ comment with -C.  Returns 0 or -1 (logged). */
int sm_split_tags(pipe_t *p, worker_ws_t *ws, bam1_t *rec, const sm_read_t *r,
		  const sm_query_t *q, res_t *res, int e, int n_unit, int primary);

#endif
