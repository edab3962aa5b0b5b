#!/usr/bin/env bash
# gpu_slots_bench.sh DATA OUT [CONFIG...] — on the GPU machine: builds
# ./scanmap with the carried htslib (tests/gpu/prepare.sh) and runs
# gpu_seeded_bench.sh's GPU engine once per CONFIG: SLOTS (GPU calls in
# flight per GPU, --gpu-tune slots=N, with 16 worker threads) or THREADSxSLOTS
# (default 2 4 8), on SM_E2E_REPS (default 20) copies of the chr20 pairs;
# keeps each run's -v 4 log in OUT and prints its throughput row and where
# the time went.
set -uo pipefail
data=${1:?usage: gpu_slots_bench.sh DATA OUT [CONFIG...]}
out=${2:?usage: gpu_slots_bench.sh DATA OUT [CONFIG...]}
shift 2
slots=("$@")
((${#slots[@]})) || slots=(2 4 8)
. "$(dirname "$0")/gpu_env.sh"
mkdir -p "$out"
gpu_build . "$out/build.log" || exit 1
fail=0
for c in "${slots[@]}"; do
	t=16 s=$c
	[[ $c == *x* ]] && t=${c%x*} s=${c#*x}
	SM_BENCH_MAP_ARGS="--gpu-tune slots=$s" SM_E2E_REPS=${SM_E2E_REPS:-20} SM_BENCH_ENGINES=gpu \
		benchmarks/gpu_seeded_bench.sh "$data" "$out/t${t}s$s" "$t" >"$out/bench-t${t}s$s.log" 2>&1 || fail=1
	echo "threads $t, slots $s: $(tail -n 1 "$out/bench-t${t}s$s.log")"
	grep -h 'debug: \(seconds\|threads\|GPU\|set-up\)' "$out/t${t}s$s/gpu-t$t.log"
done
exit $fail
