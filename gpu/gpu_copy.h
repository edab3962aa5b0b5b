/* gpu_copy.h — large host-to-device copies (the GPU engine's reference,
 * the seeder's index) on a few threads, each through two pinned staging
 * buffers that it fills while the other one is copied.  The content is
 * written as the copy goes, so the reference's device layout (contigs with
 * pads between them) needs no whole host copy.  The reference used to be
 * laid out in a malloc'd copy and sent by cudaMemcpy from pageable memory:
 * at 3 Gbp the engine took 2.1 s to create, one staging thread 0.5 s,
 * with 3 GB less host memory; the index's 5.9 GB took 0.70 s by
 * cudaMemcpy, 0.82 s staged by one thread (results/genome-scale.md).  For
 * gpu/ sources only. */
#ifndef SM_GPU_COPY_H
#define SM_GPU_COPY_H

#include <stddef.h>
#include <stdint.h>

#include "io/ref.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bytes of one staging buffer. */
#define SM_GPU_STAGE_BYTES ((size_t)8 << 20)
/* Copiers at most, each a thread with two staging buffers and a stream of
 * its own over a slice of the copy; each has at least SM_GPU_COPY_MIN_CHUNKS
 * chunks to copy (small copies run on the caller's thread alone). */
#define SM_GPU_COPY_THREADS 4
#define SM_GPU_COPY_MIN_CHUNKS 4

/* Writes the host's content of bytes [off, off + len) of the copy to buf. */
typedef void sm_gpu_fill_fn(const void *arg, uint8_t *buf, size_t off, size_t len);

/* Copies `bytes` bytes to device memory dst on the current device, their
 * content written chunk by chunk by fill(arg, ...); chunk: the staging
 * buffers' size (0: SM_GPU_STAGE_BYTES; tests pass small odd ones).  Where
 * pinned memory is refused, one malloc'd buffer and synchronous copies.
 * Returns 0, or -1 after logging. */
int sm_gpu_copy_up(void *dst, size_t bytes, sm_gpu_fill_fn *fill, const void *arg, size_t chunk);

/* fill for a plain host array: arg is its first byte. */
void sm_gpu_fill_array(const void *arg, uint8_t *buf, size_t off, size_t len);

/* The reference as the device holds it: contig c's bases at dstart[c]
 * (sm_gpu_place_contigs, increasing), `pad` code everywhere else. */
typedef struct {
	const sm_ref_t *ref;
	const int64_t *dstart;
	uint8_t pad;
} sm_gpu_ref_image_t;

/* fill for a sm_gpu_ref_image_t. */
void sm_gpu_fill_ref(const void *arg, uint8_t *buf, size_t off, size_t len);

#ifdef __cplusplus
}
#endif

#endif
