/* gpu_seed.h — seeding on the GPU: a batch of reads' candidate windows.
 *
 * For every read, the windows sm_seed_find() (mapper/seed.h) finds, the
 * same ones: all of the read's k-mers looked up in a device copy of the
 * index, hits of minimizers with at most max_occ occurrences (all of them
 * when that leaves none), hits sorted, clustered by diagonal, the best
 * max_windows clusters made windows, overlapping windows merged.  The
 * seeder only replaces the CPU's memory-latency-bound look-ups and sorts;
 * the mapper lays the windows out and scans them as before.
 *
 * Built from gpu_seed.cu with CUDA; gpu_stub.c otherwise (create fails). */
#ifndef SM_GPU_SEED_H
#define SM_GPU_SEED_H

#include <stdint.h>

#include "gpu/gpu_engine.h"
#include "io/ref.h"
#include "mapper/index.h"
#include "mapper/seed.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sm_gpu_seed_s sm_gpu_seed_t;

/* Uploads idx (and ref's contig offsets; ref's bases stay on the host) to
 * every device of opt->gpus (gpu_engine.h; its wait mode applies too):
 * each call goes to the device with the fewest calls in flight.  Both
 * must outlive the seeder.  Returns NULL after logging an error. */
sm_gpu_seed_t *sm_gpu_seed_create(const sm_index_t *idx, const sm_ref_t *ref,
				  const sm_gpu_opt_t *opt);

/* Windows of reads[0..n) (base codes, forward strand, lengths len[]) with
 * limits opt; margin[k] is read k's window margin (sm_reach + band, as
 * sm_seed_find takes it).  Read k's windows go to win[k * opt->max_windows
 * ..], their number to n_win[k], what they leave out to left[k] and
 * skip[] (sm_seed_find's, seed.h; skip holds the reads' flags one after
 * the other, len[0] + ... + len[n - 1] bytes).  Thread-safe: concurrent
 * calls run on streams of their own.  Returns 0, or -1 after logging an
 * error (with the device, which then takes no more calls). */
int sm_gpu_seed_find(sm_gpu_seed_t *g, const sm_seed_opt_t *opt, int n,
		     const uint8_t *const *reads, const int32_t *len, const int64_t *margin,
		     sm_window_t *win, int32_t *n_win, sm_seed_left_t *left, uint8_t *skip);

/* Hits one chunk of a call may hold (0: the default, 16 Mi); tests set
 * small ones to cut calls into many chunks.  Call before any seeding. */
void sm_gpu_seed_set_chunk(sm_gpu_seed_t *g, int64_t hits);

/* Seconds spent inside sm_gpu_seed_find (summed over threads) and reads seeded. */
void sm_gpu_seed_stats(const sm_gpu_seed_t *g, double *seconds, int64_t *reads);

void sm_gpu_seed_destroy(sm_gpu_seed_t *g);

#ifdef __cplusplus
}
#endif
#endif
