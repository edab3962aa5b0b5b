#!/usr/bin/env bash
# run.sh — on a GPU machine: builds the GPU engine's test and benchmark
# programs (tests/gpu/build.sh), runs every GPU test and the GPU
# benchmarks, keeps every log under $OUT (default tests/out/gpu) and prints
# a short table last.
#
#   tests/gpu/run.sh [--quick] [BENCH...]   BENCH: fig5 fig6 table1 target ... (default
#                                           all; none: tests and end to end only)
#
# Exits 1 if a test failed; without a CUDA device the tests report a skip.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
out=${OUT:-tests/out/gpu}
quick=
if [[ ${1:-} == --quick ]]; then
	quick=--quick
	shift
fi
benches=("$@")
((${#benches[@]})) || benches=(all)
mkdir -p "$out"
{
	echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet 2>/dev/null || echo -dirty)"
	nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,memory.total --format=csv 2>&1
	nvcc --version 2>&1 | tail -n 2
} | tee "$out/env.txt"

if ! tests/gpu/build.sh build/gpu-tests >"$out/build.log" 2>&1; then
	cat "$out/build.log"
	echo "FAIL build"
	exit 1
fi
cp build/gpu-tests/ptxas.log "$out/ptxas.log"

build/gpu-tests/test_gpu >"$out/test_gpu.log" 2>&1
test_rc=$?
cat "$out/test_gpu.log"

build/gpu-tests/gpu_ceiling 2>&1 | tee "$out/ceiling.txt"
# The engine's machine code: instruction mix of the 16-bit plain kernel.
if command -v cuobjdump >/dev/null; then
	cuobjdump -sass build/gpu-tests/gpu_kernels.o 2>/dev/null |
		awk '/Function : .*strip_kernelILi16ELb0ELi32/ {on = 1; next} /Function :/ {on = 0}
		     on && /\/\*[0-9a-f]+\*\// {for (i = 1; i <= NF; i++) if ($i ~ /^[A-Z][A-Z0-9_]+(\.[A-Za-z0-9_]+)*$/ && $i !~ /^(R|UR|P|UP)[0-9Z]/) {split($i, a, "."); n[a[1]]++; break}}
		     END {for (k in n) print n[k], k}' | sort -rn >"$out/sass16.txt"
	head -n 12 "$out/sass16.txt"
fi

: >"$out/bench.tsv"
for b in "${benches[@]}"; do
	[[ $b == none ]] && continue
	build/gpu-tests/gpu_bench "$b" $quick 2>&1 | tee -a "$out/bench.tsv"
done

# SM_GPU_NCU=1: hardware counters of one 16-bit strip kernel launch.
if [[ ${SM_GPU_NCU:-0} == 1 ]]; then
	ncu_bin=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -n 1)
	"$ncu_bin" --clock-control none -k regex:strip_kernel -c 1 \
		--section SpeedOfLight --section Occupancy --section WarpStateStats \
		--section SchedulerStats --section ComputeWorkloadAnalysis --section LaunchStats \
		build/gpu-tests/gpu_bench target --quick >"$out/ncu.txt" 2>&1
	grep -E "Issue Slots Busy|Issued Ipc|Achieved Occupancy|Registers Per|No Eligible|Stall|Compute \(SM\) Throughput|Duration|Theoretical Occupancy|Block Limit" "$out/ncu.txt" | head -n 40
fi

# End to end, FASTQ to SAM (tests/gpu/e2e.sh): needs the whole mapper, hence
# htslib, which the GPU machine lacks; tests/gpu/prepare.sh (run beforehand,
# here) puts it and the reads in carry/.
e2e_rc=0
if [[ -d carry/cli_hts && -d carry/e2e ]]; then
	hts=$PWD/carry/cli_hts
	export LD_LIBRARY_PATH=$hts/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
	if make -j"$(nproc)" scanmap CUDA_ARCHS=90 CUDA_PTX=90 HTSLIB_CFLAGS="-I$hts/include" \
		HTSLIB_LIBS="-L$hts/lib -lhts" LDFLAGS="-L$hts/lib" >"$out/e2e-build.log" 2>&1; then
		# GPU seeding against CPU seeding, GPU tracebacks against sm_align
		# (unit tests that need the mapper's library).
		seed_rc=0
		for t in test_gpu_seed test_gpu_trace; do
			if make build/tests/unit/$t CUDA_ARCHS=90 CUDA_PTX=90 \
				HTSLIB_CFLAGS="-I$hts/include" HTSLIB_LIBS="-L$hts/lib -lhts" \
				LDFLAGS="-L$hts/lib" >>"$out/e2e-build.log" 2>&1; then
				build/tests/unit/$t >"$out/$t.log" 2>&1 || seed_rc=1
			else
				echo "FAIL build $t" >"$out/$t.log"
				seed_rc=1
			fi
			cat "$out/$t.log"
		done
		tests/gpu/e2e.sh carry/e2e "$out/e2e" 2>&1 | tee "$out/e2e.txt"
		e2e_rc=${PIPESTATUS[0]}
		((seed_rc == 0)) || e2e_rc=1
	else
		tail -n 20 "$out/e2e-build.log"
		echo "FAIL e2e build"
		e2e_rc=1
	fi
else
	echo "e2e: skipped (run tests/gpu/prepare.sh here and carry carry/cli_hts carry/e2e)"
fi

echo
echo "== summary =="
grep -E '^(ok|FAIL)' "$out/test_gpu.log" | awk '{print $1}' | sort | uniq -c
tail -n 1 "$out/test_gpu.log"
for t in test_gpu_seed test_gpu_trace; do
	[[ -s $out/$t.log ]] && echo "$t: $(tail -n 1 "$out/$t.log")"
done
awk -F'\t' '$1 ~ /^(target|ablation|target_cells|variant)/ {printf "%-13s n=%-4s m=%-9s reads=%-5s cells=%-6s kernel %.4fs  %8.1f GCUPS (kernel)  %8.1f GCUPS (wall)  r8=%.2f r16=%.2f r32=%.2f\n", $1, $2, $3, $4, $5, $7, $9, $8, $10, $11, $12}' "$out/bench.tsv"
if [[ -s $out/e2e.txt ]]; then
	sed -n '/== end to end/,$p' "$out/e2e.txt"
	grep -c '^ok' "$out/e2e.txt" | sed 's/$/ e2e comparisons ok/'
fi
if ((test_rc == 77)); then
	exit 0
fi
exit $((test_rc != 0 || e2e_rc != 0))
