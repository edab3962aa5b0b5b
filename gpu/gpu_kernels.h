/* gpu_kernels.h — the kernels the GPU engine launches, by class (private to
 * gpu/: C++ for the CUDA sources).  gpu_kernels.cu instantiates the strip
 * kernels of sw_kernel.cuh once per (lane width, ladder, columns per lane,
 * warps per block, reference kind) the engine uses, and the gather kernel
 * that builds per-group references on the device; the engine only sees
 * these tables and launchers. */
#ifndef SM_GPU_KERNELS_H
#define SM_GPU_KERNELS_H

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

#include "gpu/sw_params.cuh"

typedef void (*sm_launch_fn)(dim3 grid, size_t smem, cudaStream_t s, const smk::Params &p);
typedef cudaError_t (*sm_attr_fn)(size_t smem);
typedef size_t (*sm_smem_fn)(int rows);

/* A kernel class: the strip kernels of one lane width and ladder, on the
 * whole reference and on per-group references. */
typedef struct {
	int bits;       /* narrow lane width */
	int ladder;     /* has the 32-bit wide path */
	int cols;       /* columns per lane (C) */
	int cols_gref;  /* the same for per-group references */
	int warps;      /* per block, each on its own range */
	int warps_gref; /* the same for per-group references */
	sm_launch_fn launch, launch_gref;  /* whole reference; per-group ones (or NULL) */
	sm_attr_fn set_smem, set_smem_gref;
	sm_smem_fn smem, smem_gref;
} sm_kclass_t;

/* The class for narrow lanes of `bits` bits (8, 16, 32), with the ladder
 * or plain (groups whose scores cannot overflow). */
const sm_kclass_t *sm_kclass(int bits, int ladder);

/* Benchmarks: the 16-bit plain class with `cols` (8, 16, 32) columns per
 * lane on the whole reference, or NULL. */
const sm_kclass_t *sm_kclass_plain16(int cols, int warps);

/* The default 16-bit plain class in one-warp blocks, whole reference only:
 * a short reference's groups one range each (sm_gpu_whole_one_range). */
const sm_kclass_t *sm_kclass_one16(void);

/* Launches sm_gather_refs on s: builds ngroups per-group references at
 * out from the device reference ref (tables: gpu_plan.h's
 * sm_gpu_ref_layout_t, on the device). */
cudaError_t sm_launch_gather(cudaStream_t s, int ngroups, const uint8_t *ref, const int64_t *gref,
			     const int64_t *gdev_len, const int64_t *dstart, const int32_t *gcontig,
			     const int64_t *lt, int64_t nc, uint8_t *out);

/* Launches the merge of a launch's per-range lists: n_lists lists of
 * nranges ranges each (shift: per list) into res. */
cudaError_t sm_launch_merge(cudaStream_t s, int n_lists, const uint64_t *range_out, int nranges,
			    const int32_t *shift, uint64_t *res);

#endif
