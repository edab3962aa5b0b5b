#!/usr/bin/env bash
# gpu_trace.sh DATA OUT REPS [THREADS...] — on the GPU machine: builds
# ./scanmap with the carried htslib, makes REPS copies of the chr20 pairs
# (as gpu_seeded_bench.sh does), maps them with the GPU engine at each
# thread count (default 16), -v 4, SAM to /dev/null, with SCANMAP_TRACE
# (io/trace.h), and prints benchmarks/trace_summary.py's report of each
# run.  With SM_TRACE_PLAIN=1 each thread count also maps uncompressed
# copies of the same reads (the reader without zlib).  SM_MAP_ARGS: more
# options for scanmap map (e.g. "--gpu-tune slots=4").  OUT gets each run's
# log (map-*.log), trace (*.tsv) and plot (*.png, where matplotlib is).
set -uo pipefail
data=${1:?usage: gpu_trace.sh DATA OUT REPS [THREADS...]}
out=${2:?usage: gpu_trace.sh DATA OUT REPS [THREADS...]}
reps=${3:?usage: gpu_trace.sh DATA OUT REPS [THREADS...]}
shift 3
threads=("$@")
((${#threads[@]})) || threads=(16)
. "$(dirname "$0")/gpu_env.sh"
mkdir -p "$out"
gpu_build . "$out/build.log" || exit 1
[[ -s $data/chr20.fa.gz.smi ]] || ./scanmap index "$data/chr20.fa.gz" 2>"$out/index.log" ||
	{ cat "$out/index.log"; exit 1; }
work=${TMPDIR:-/tmp}/gpu_trace.$$
mkdir -p "$work"
trap 'rm -rf "$work"' EXIT
inputs=(gz)
for m in 1 2; do
	for ((i = 0; i < reps; i++)); do cat "$data/chr20.r$m.fq.gz"; done >"$work/r$m.fq.gz"
done
if [[ ${SM_TRACE_PLAIN:-0} == 1 ]]; then
	inputs+=(plain)
	for m in 1 2; do zcat "$work/r$m.fq.gz" >"$work/r$m.fq"; done
fi
rc=0
for t in "${threads[@]}"; do
	for in in "${inputs[@]}"; do
		name=t$t-$in
		fq=("$work/r1.fq.gz" "$work/r2.fq.gz")
		[[ $in == plain ]] && fq=("$work/r1.fq" "$work/r2.fq")
		echo "== $name: threads $t, input $in"
		# shellcheck disable=SC2086
		SCANMAP_TRACE=$out/$name.tsv ./scanmap map -t "$t" -v 4 ${SM_MAP_ARGS:-} -o /dev/null \
			"$data/chr20.fa.gz" "${fq[@]}" 2>"$out/map-$name.log" || { rc=1; tail -n 3 "$out/map-$name.log"; continue; }
		grep 'reads/s,\|seconds:\|threads:\|GPU (summed' "$out/map-$name.log"
		python3 benchmarks/trace_summary.py "$out/$name.tsv" "$out/$name.png"
	done
done
exit $rc
