/* pipeline.h — a whole `scanmap map` run: reference and reads in, SAM out.
 *
 *   reader thread ──► batches ──► -t worker threads ──► ordered writer
 *   (io/fastq.h)                  (sm_map_batch of       (io/sam_out.h,
 *                                  scanmap.h; SAM text)   the calling thread)
 *
 * A thin driver over the library's API (mapper/scanmap.h): the mapping
 * itself knows nothing of files, threads or queues.  In paired runs the
 * first SM_INSERT_SAMPLE_PAIRS pairs go to the workers first, one job per
 * worker, mapped read by read; one worker estimates the insert sizes from
 * them, and only then is any pair resolved.
 *
 * Reads are cut into batches of at most SM_BATCH_MAX_READS reads (fewer
 * for the CPU engine) whose scan (read length x 2 strands x reference
 * length cells) stays within a per-engine cell budget, so a batch takes
 * seconds whatever the reference; -K caps a batch's bases as well.
 * A fixed pool of batches circulates (SM_BATCHES_PER_WORKER per worker plus
 * SM_BATCHES_SPARE), so memory does not grow with the input.  The writer
 * emits batches in input order, so the output does not depend on -t.
 *
 * On stderr (verbosity 3 and up): a progress line every
 * SM_PROGRESS_SECONDS while reads are mapped, and a summary at the end. */
#ifndef SM_PIPELINE_H
#define SM_PIPELINE_H

#include "mapper/cli.h"

#define SM_BATCH_MAX_READS 4096
#define SM_BATCHES_PER_WORKER 2
#define SM_BATCHES_SPARE 2
#define SM_PROGRESS_SECONDS 10

/* Runs the mapping that o describes (validated by sm_opt_validate).
 * Returns 0 when every read was written and the output closed cleanly; -1
 * after logging the first error (bad input, failed write, engine error), in
 * which case a regular output file is removed (io/sam_out.h). */
int sm_map_run(const sm_opt_t *o);

#endif
