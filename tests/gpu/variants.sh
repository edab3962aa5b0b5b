#!/usr/bin/env bash
# variants.sh — on a GPU machine: builds the GPU engine's kernels
# (gpu/gpu_kernels.cu) once per variant and runs one benchmark with each,
# so that kernel changes are compared in one run on one card.  Needs
# build/gpu-tests from tests/gpu/build.sh (for the objects other than the
# kernels: the host driver, the planning, the benchmark).
#
#   tests/gpu/variants.sh BENCH NAME=FLAGS [NAME=FLAGS...]
#
# FLAGS: extra nvcc flags (e.g. "-DSM_ROW_UNROLL=2"), or "src:DIR" to build
# the copy of gpu/ kept under DIR (e.g. the previous commit's kernel).
# Logs under $OUT/variants; prints "variant <TAB> bench line" for each.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
out=${OUT:-tests/out/gpu}/variants
bench=$1
shift
mkdir -p "$out"
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
objs=build/gpu-tests
for v in "$@"; do
	name=${v%%=*}
	flags=${v#*=}
	(
		d=build/variants/$name
		mkdir -p "$d"
		src=gpu/gpu_kernels.cu
		inc=()
		if [[ $flags == src:* ]]; then
			inc=(-I"${flags#src:}")
			src=${flags#src:}/gpu/gpu_kernels.cu
			flags=
		fi
		# shellcheck disable=SC2086
		"$NVCC" -O3 -lineinfo -std=c++17 "${inc[@]}" -I. -Xptxas -v \
			-gencode=arch=compute_90,code=sm_90 $flags -c "$src" -o "$d/gpu_kernels.o" \
			2>"$out/$name.ptxas.log" &&
			"$NVCC" -gencode=arch=compute_90,code=sm_90 -o "$d/gpu_bench" "$objs/gpu_bench.o" \
				"$d/gpu_kernels.o" "$objs"/{gpu_engine,gpu_copy,gpu_plan,scan,score,base,log,trace}.o -lpthread ||
			echo "variant $name: build failed (see $out/$name.ptxas.log)"
	) &
done
wait
for v in "$@"; do
	name=${v%%=*}
	regs=$(grep -A2 'strip_kernelILi16ELb0ELi32' "$out/$name.ptxas.log" | grep -o 'Used [0-9]* registers' | head -n 1)
	spill=$(grep -A1 'strip_kernelILi16ELb0ELi32' "$out/$name.ptxas.log" | grep -o '[0-9]* bytes spill stores' | head -n 1)
	echo "# variant $name: ${v#*=} | 16-bit C=32 kernel: $regs, $spill" | tee -a "$out/summary.txt"
	[[ -x build/variants/$name/gpu_bench ]] || continue
	build/variants/$name/gpu_bench "$bench" --quick 2>&1 | tee "$out/$name.tsv" |
		awk -v n="$name" '!/^#/ {print n "\t" $0}' | tee -a "$out/summary.txt"
done
