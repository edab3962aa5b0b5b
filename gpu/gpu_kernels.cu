/* gpu_kernels.cu — instantiates the GPU engine's kernels (gpu_kernels.h):
 * the strip kernels of sw_kernel.cuh per class, the merge kernel, and the
 * gather kernel that builds per-group references from the resident
 * reference. */
#include "gpu/gpu_kernels.h"

#include "gpu/gpu_plan.h"
#include "gpu/sw_kernel.cuh"

/* Warps per block on the whole reference: independent ranges that share
 * the group's rows. */
#define SM_GPU_WARPS 4
/* A per-group reference (a read's windows, a few thousand columns) is
 * split into few ranges: one warp per block, or the block's other warps
 * would sit idle holding their registers. */
#define SM_GPU_WARPS_GREF 1
/* Columns per lane of the 16-bit plain kernel on the whole reference: 16
 * runs as fast as 32 with bwa scoring and faster where rows need the E
 * scan more often, with 163 registers instead of 255 (docs/gpu.md). */
#define SM_GPU_COLS16 16
/* The same on per-group references (the seeded mapper's windows): strips
 * of 256 columns waste less past a group's end, and 95 registers let 21
 * single-warp blocks share a multiprocessor (docs/gpu.md). */
#define SM_GPU_COLS16_GREF 8

template <int B, bool LAD, int C, int NW, bool GREF>
static void sm_launch_strip(dim3 grid, size_t smem, cudaStream_t s, const smk::Params &p)
{
	/* A per-group separator always holds a whole aligned lane: a barrier. */
	static_assert(!GREF || 2 * C - 1 <= SM_GPU_GREF_SEP, "lanes too wide for the separators");
	smk::strip_kernel<B, LAD, C, NW, GREF><<<grid, NW * smk::WARP, smem, s>>>(p);
}

template <int B, bool LAD, int C, int NW, bool GREF>
static cudaError_t sm_attr_strip(size_t smem)
{
	return cudaFuncSetAttribute(smk::strip_kernel<B, LAD, C, NW, GREF>,
				    cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
}

template <int B, bool LAD, int C, int NW>
static size_t sm_smem_strip(int rows)
{
	return smk::strip_smem<B, LAD, C, NW>(rows);
}

/* C columns per lane on the whole reference, CG on per-group ones. */
#define SM_KCLASS(B, LAD, C, CG, NW) \
	{ B, LAD, C, CG, NW, SM_GPU_WARPS_GREF, sm_launch_strip<B, LAD, C, NW, false>, \
	  sm_launch_strip<B, LAD, CG, SM_GPU_WARPS_GREF, true>, \
	  sm_attr_strip<B, LAD, C, NW, false>, sm_attr_strip<B, LAD, CG, SM_GPU_WARPS_GREF, true>, \
	  sm_smem_strip<B, LAD, C, NW>, sm_smem_strip<B, LAD, CG, SM_GPU_WARPS_GREF> }
/* Benchmark variants: whole reference only. */
#define SM_KCLASS_WHOLE(B, LAD, C, NW) \
	{ B, LAD, C, 0, NW, 0, sm_launch_strip<B, LAD, C, NW, false>, NULL, \
	  sm_attr_strip<B, LAD, C, NW, false>, NULL, sm_smem_strip<B, LAD, C, NW>, NULL }

/* Plain classes run groups whose scores cannot overflow their lanes;
 * ladder classes the others (their wide rows hold Q words per column, so
 * they keep fewer columns per lane).  Indexed [bits class][ladder]; 32-bit
 * lanes never overflow, so both entries are plain. */
static const sm_kclass_t sm_kclasses[3][2] = {
	{ SM_KCLASS(8, false, 16, 16, SM_GPU_WARPS), SM_KCLASS(8, true, 8, 8, SM_GPU_WARPS) },
	{ SM_KCLASS(16, false, SM_GPU_COLS16, SM_GPU_COLS16_GREF, SM_GPU_WARPS),
	  SM_KCLASS(16, true, 16, 16, SM_GPU_WARPS) },
	{ SM_KCLASS(32, false, 16, 16, SM_GPU_WARPS), SM_KCLASS(32, false, 16, 16, SM_GPU_WARPS) },
};

/* Lane widths of the 16-bit plain class that the benchmark compares. */
static const sm_kclass_t sm_kvariants16[] = {
	SM_KCLASS_WHOLE(16, false, 8, SM_GPU_WARPS),
	SM_KCLASS_WHOLE(16, false, 16, SM_GPU_WARPS),
	SM_KCLASS_WHOLE(16, false, 32, SM_GPU_WARPS),
	SM_KCLASS_WHOLE(16, false, SM_GPU_COLS16, 1),   /* sm_kclass_one16 */
};

const sm_kclass_t *sm_kclass(int bits, int ladder)
{
	return &sm_kclasses[bits == 8 ? 0 : bits == 16 ? 1 : 2][ladder ? 1 : 0];
}

const sm_kclass_t *sm_kclass_plain16(int cols, int warps)
{
	for (size_t k = 0; k < sizeof sm_kvariants16 / sizeof *sm_kvariants16; k++)
		if (sm_kvariants16[k].cols == cols && sm_kvariants16[k].warps == warps)
			return &sm_kvariants16[k];
	return NULL;
}

/* The 16-bit plain class in one-warp blocks on the whole reference, each
 * group's reference one range (sm_gpu_whole_one_range): the variant above. */
const sm_kclass_t *sm_kclass_one16(void)
{
	return sm_kclass_plain16(SM_GPU_COLS16, 1);
}

/* Threads of a gather block (one block per group). */
#define SM_GATHER_THREADS 256

/* Per-group references whose bases lie in the whole reference
 * (sm_ref_src_t): block g writes group g's region of the layout that
 * sm_gpu_layout_refs makes, [gref[g], gref[g] + its length rounded up to
 * 64).  Contig slot c starts at its group-relative dstart[c]; lane l's
 * tables are lt[(4l + 0..3) * nc]: its contig's start, length, source
 * column in the device reference and direction (read backwards when set).
 * A column holds each lane's code (sw_kernel.cuh's code_pair): the base,
 * or a separator (CODE_PAD) outside the lane's contig. */
__global__ static void sm_gather_refs(const uint8_t *__restrict__ ref, const int64_t *gref,
				      const int64_t *gdev_len, const int64_t *dstart,
				      const int32_t *gcontig, const int64_t *lt, int64_t nc,
				      uint8_t *out)
{
	const int gi = blockIdx.x;
	const int64_t region = (gdev_len[gi] + SM_GPU_PAD_ALIGN - 1) / SM_GPU_PAD_ALIGN * SM_GPU_PAD_ALIGN;
	const int32_t c0 = gcontig[gi], c1 = gcontig[gi + 1];
	uint8_t *o = out + gref[gi];

	for (int64_t x = threadIdx.x; x < region; x += blockDim.x) {
		int32_t lo = c0, hi = c1 - 1;
		uint8_t v[2] = { smk::CODE_PAD, smk::CODE_PAD };

		while (lo < hi) {   /* the last slot starting at or before x */
			const int32_t mid = lo + (hi - lo + 1) / 2;

			if (dstart[mid] <= x)
				lo = mid;
			else
				hi = mid - 1;
		}
		for (int l = 0; lo < c1 && l < 2; l++) {
			const int64_t *t = lt + (int64_t)4 * l * nc + lo;
			const int64_t start = t[0], len = t[nc], src = t[2 * nc], rev = t[3 * nc];

			if (x >= start && x < start + len)
				v[l] = ref[src + (rev ? len - 1 - (x - start) : x - start)];
		}
		o[x] = smk::code_pair(v[0], v[1]);
	}
}

cudaError_t sm_launch_gather(cudaStream_t s, int ngroups, const uint8_t *ref, const int64_t *gref,
			     const int64_t *gdev_len, const int64_t *dstart, const int32_t *gcontig,
			     const int64_t *lt, int64_t nc, uint8_t *out)
{
	sm_gather_refs<<<(unsigned)ngroups, SM_GATHER_THREADS, 0, s>>>(ref, gref, gdev_len, dstart,
									gcontig, lt, nc, out);
	return cudaGetLastError();
}

cudaError_t sm_launch_merge(cudaStream_t s, int n_lists, const uint64_t *range_out, int nranges,
			    const int32_t *shift, uint64_t *res)
{
	smk::merge_kernel<<<(unsigned)n_lists, smk::MERGE_THREADS, 0, s>>>(range_out, nranges, shift,
									     res);
	return cudaGetLastError();
}
