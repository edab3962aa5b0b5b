/* gpu_profile.h — where the last sm_gpu_scan() spent its time (benchmarks).
 *
 * Private to gpu/ and benchmarks/: the paper's Table 1 splits a run into
 * GPU time, CPU time and transfer time; these are the same parts, measured
 * with CUDA events on the engine's stream and a host clock. */
#ifndef SM_GPU_PROFILE_H
#define SM_GPU_PROFILE_H

#include <stdint.h>

#include "gpu/gpu_engine.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
	double host_prep_s;   /* sorting and packing queries on the CPU */
	double upload_s;      /* host -> device copies, per-read references gathered */
	double kernel_s;      /* strip and merge kernels */
	double download_s;    /* device -> host copies */
	double host_post_s;   /* unpacking results on the CPU */
	double total_s;       /* the whole call */
	uint64_t cells_w[3];  /* cells computed in 8-, 16-, 32-bit lanes */
	int64_t groups;       /* groups of Q queries scanned */
	int64_t lane_pairs;   /* of which two queries with their own references */
	int64_t one_range;    /* of which whole-reference groups scanned one range each
			       * (sm_gpu_whole_one_range) */
	int64_t contig_ranges; /* whole reference: ranges a group that follow the contigs
				* (sm_gpu_contig_ranges), 0: none */
} sm_gpu_profile_t;

/* Copies the profile of g's last scan; returns 0, or -1 without CUDA. */
int sm_gpu_profile(const sm_gpu_t *g, sm_gpu_profile_t *p);

/* Benchmarks only: the 16-bit plain kernel with `cols` (8, 16 or 32)
 * columns per lane and `warps` (1 or 4) warps a block on the whole
 * reference instead of the default.  Returns 0 or -1. */
int sm_gpu_set_cols(sm_gpu_t *g, int cols, int warps);

/* Benchmarks only: at most n calls in flight at once on each engine (1
 * serialises them; the default is the device's tuning row).  Returns 0 or -1. */
int sm_gpu_set_slots(sm_gpu_t *g, int n);

#ifdef __cplusplus
}
#endif
#endif
