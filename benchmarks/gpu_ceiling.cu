/* gpu_ceiling.cu — the card's packed-integer ceilings, measured (the
 * reference for the engine's TCUPS; cf. ../shared/gpu/simd-rates.md).
 *
 *   gpu_ceiling
 *
 * Each kernel runs 8 independent accumulator chains per thread over many
 * iterations on every multiprocessor; one line per operation: instructions
 * per second and packed lane-operations per second (best of REPEATS).
 * Built only by tests/gpu/build.sh (the Makefile builds benchmarks/*.c). */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdint.h>

#define ITERS 4096
#define CHAINS 8
#define THREADS 256
#define BLOCKS_PER_SM 8
#define REPEATS 5

#define CHECK(call)                                                                    \
	do {                                                                           \
		cudaError_t e_ = (call);                                               \
		if (e_ != cudaSuccess) {                                               \
			fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(e_));   \
			return 1;                                                      \
		}                                                                      \
	} while (0)

enum { OP_DPX16, OP_DPX16_RELU, OP_MAX3_16, OP_ADD_MAX_32, OP_VADD4_VMAX4 };

/* One step per chain and iteration; the step is one instruction for the
 * DPX forms, two for the plain 32-bit add + max and the 8-bit intrinsics. */
template <int OP> __global__ void spin(uint32_t *out, uint32_t seed)
{
	uint32_t acc[CHAINS], b = seed * 0x01000193u + threadIdx.x, c = seed ^ 0x5bd1e995u;
#pragma unroll
	for (int k = 0; k < CHAINS; k++)
		acc[k] = seed + (uint32_t)k * 0x9e3779b9u + threadIdx.x;
	for (int it = 0; it < ITERS; it++) {
#pragma unroll
		for (int k = 0; k < CHAINS; k++) {
			if (OP == OP_DPX16)
				acc[k] = __viaddmax_s16x2(acc[k], b, c);
			else if (OP == OP_DPX16_RELU)
				acc[k] = __viaddmax_s16x2_relu(acc[k], b, c);
			else if (OP == OP_MAX3_16)
				acc[k] = __vimax3_s16x2_relu(acc[k], b, c);
			else if (OP == OP_ADD_MAX_32)
				acc[k] = (uint32_t)max((int)(acc[k] + b), (int)c);
			else
				acc[k] = __vmaxu4(__vaddus4(acc[k], b), c);
		}
	}
	uint32_t x = 0;
#pragma unroll
	for (int k = 0; k < CHAINS; k++)
		x ^= acc[k];
	if (x == 0x12345678u)
		out[0] = x;
}

template <int OP> static int run(const char *name, int instr_per_step, int lanes, int sms, uint32_t *d)
{
	cudaEvent_t a, z;
	float best = 1e30f;
	const dim3 grid(sms * BLOCKS_PER_SM);
	const double steps = (double)grid.x * THREADS * ITERS * CHAINS;

	CHECK(cudaEventCreate(&a));
	CHECK(cudaEventCreate(&z));
	spin<OP><<<grid, THREADS>>>(d, 1);
	CHECK(cudaGetLastError());
	CHECK(cudaDeviceSynchronize());
	for (int r = 0; r < REPEATS; r++) {
		float ms;
		CHECK(cudaEventRecord(a));
		spin<OP><<<grid, THREADS>>>(d, (uint32_t)r + 2);
		CHECK(cudaEventRecord(z));
		CHECK(cudaEventSynchronize(z));
		CHECK(cudaGetLastError());
		CHECK(cudaEventElapsedTime(&ms, a, z));
		best = ms < best ? ms : best;
	}
	printf("ceiling\t%s\t%.2f T instr/s\t%.2f T lane-steps/s\n", name,
	       steps * instr_per_step / (best * 1e-3) * 1e-12, steps * lanes / (best * 1e-3) * 1e-12);
	CHECK(cudaEventDestroy(a));
	CHECK(cudaEventDestroy(z));
	return 0;
}

int main(void)
{
	cudaDeviceProp prop;
	uint32_t *d;
	int n = 0, khz = 0;

	if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
		printf("gpu_ceiling: skipped (no CUDA device)\n");
		return 0;
	}
	CHECK(cudaGetDeviceProperties(&prop, 0));
	CHECK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0));
	CHECK(cudaMalloc(&d, sizeof *d));
	printf("# %s, %d SMs, %d MHz\n", prop.name, prop.multiProcessorCount, khz / 1000);
	if (run<OP_DPX16>("viaddmax_s16x2 (DPX add+max, 2 lanes)", 1, 2, prop.multiProcessorCount, d) ||
	    run<OP_DPX16_RELU>("viaddmax_s16x2_relu", 1, 2, prop.multiProcessorCount, d) ||
	    run<OP_MAX3_16>("vimax3_s16x2_relu", 1, 2, prop.multiProcessorCount, d) ||
	    run<OP_ADD_MAX_32>("int32 add + max", 2, 1, prop.multiProcessorCount, d) ||
	    run<OP_VADD4_VMAX4>("__vaddus4 + __vmaxu4 (8-bit x4)", 2, 4, prop.multiProcessorCount, d))
		return 1;
	CHECK(cudaFree(d));
	return 0;
}
