#!/usr/bin/env bash
# build.sh — builds the GPU test and benchmark programs with nvcc and cc
# alone (no htslib, no zlib: the GPU machine has neither).
#
#   tests/gpu/build.sh [OUTDIR]      (default build/gpu-tests)
#
# Knobs: NVCC, CC, SM_GPU_ARCHS (default "90"; CI may pass "70 80 86 89 90").
# ptxas's register/spill report goes to OUTDIR/ptxas.log.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:-build/gpu-tests}
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
CC=${CC:-cc}
archs=${SM_GPU_ARCHS:-90}
gencode=()
for a in $archs; do
	gencode+=("-gencode=arch=compute_$a,code=sm_$a")
done
mkdir -p "$out"
# test_gpu.c calls the CUDA runtime itself (staged copies read back): its
# headers are where nvcc itself looks (its dry run's INCLUDES), which is not
# always beside nvcc (a symlinked or wrapped nvcc on PATH).
cuda_inc=$("$NVCC" --dryrun -c -x cu /dev/null -o /dev/null 2>&1 |
	sed -n 's/^#\$ INCLUDES="-I\([^"]*\)".*/\1/p' | head -n 1)
if [[ ! -f $cuda_inc/cuda_runtime.h ]]; then
	nvcc_dir=$(dirname "$(readlink -f "$NVCC")")
	for d in "$nvcc_dir"/../include "$nvcc_dir"/../targets/*/include /usr/include; do
		[[ -f $d/cuda_runtime.h ]] && { cuda_inc=$d; break; }
	done
fi
cflags=(-O2 -g -std=gnu11 -Wall -Wextra -Wno-unused-parameter -pthread -I.
	-I"$cuda_inc")
# The kernels (their ptxas report) and the engine's host driver; the
# planning is plain C.
"$NVCC" -O3 -lineinfo -std=c++17 -I. -Xcompiler -Wall -Xptxas -v "${gencode[@]}" \
	-c gpu/gpu_kernels.cu -o "$out/gpu_kernels.o" 2>"$out/ptxas.log" || {
	cat "$out/ptxas.log"
	exit 1
}
for f in gpu/gpu_engine.cu gpu/gpu_copy.cu; do
	"$NVCC" -O3 -lineinfo -std=c++17 -I. -Xcompiler -Wall "${gencode[@]}" \
		-c "$f" -o "$out/$(basename "${f%.cu}").o"
done
lib=("$out/gpu_engine.o" "$out/gpu_copy.o" "$out/gpu_kernels.o")
for f in gpu/gpu_plan.c mapper/scan.c mapper/score.c io/base.c io/log.c io/trace.c; do
	o=$out/$(basename "${f%.c}").o
	"$CC" "${cflags[@]}" -c "$f" -o "$o"
	lib+=("$o")
done
for prog in tests/gpu/test_gpu.c benchmarks/gpu_bench.c; do
	name=$(basename "${prog%.c}")
	"$CC" "${cflags[@]}" -c "$prog" -o "$out/$name.o"
	"$NVCC" "${gencode[@]}" -o "$out/$name" "$out/$name.o" "${lib[@]}" -lpthread
done
"$NVCC" -O3 -std=c++17 "${gencode[@]}" -o "$out/gpu_ceiling" benchmarks/gpu_ceiling.cu
echo "built $out/test_gpu $out/gpu_bench $out/gpu_ceiling (archs: $archs)"
