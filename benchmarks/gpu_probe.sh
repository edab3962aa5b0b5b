#!/usr/bin/env bash
# gpu_probe.sh DATA OUT REPS [OPTION...] — on the GPU machine: builds
# ./scanmap with the carried htslib, makes REPS copies of the chr20 pairs
# (as gpu_seeded_bench.sh does) unless OUT already has them, and maps them
# once with the GPU engine at 16 threads (SM_PROBE_THREADS) and -v 4 while
# nvidia-smi dmon samples the GPU; OPTIONs go to scanmap map (e.g.
# --gpu-tune slots=1).  Logs: OUT/map.log, OUT/dmon.log; prints the last
# lines of both.
set -uo pipefail
data=${1:?usage: gpu_probe.sh DATA OUT REPS [OPTION...]}
out=${2:?usage: gpu_probe.sh DATA OUT REPS [OPTION...]}
reps=${3:?usage: gpu_probe.sh DATA OUT REPS [OPTION...]}
shift 3
. "$(dirname "$0")/gpu_env.sh"
mkdir -p "$out"
gpu_build . "$out/build.log" || exit 1
# The index, as gpu_seeded_bench.sh makes it (else each run builds it).
[[ -s $data/chr20.fa.gz.smi ]] || ./scanmap index "$data/chr20.fa.gz" 2>"$out/index.log" ||
	{ cat "$out/index.log"; exit 1; }
for m in 1 2; do
	[[ -s $out/r$m.fq.gz ]] && continue
	for ((i = 0; i < reps; i++)); do cat "$data/chr20.r$m.fq.gz"; done >"$out/r$m.fq.gz"
done
benchmarks/gpu_util_run.sh "$out/dmon.log" ./scanmap map -t "${SM_PROBE_THREADS:-16}" \
	-v 4 "$@" "$data/chr20.fa.gz" "$out/r1.fq.gz" "$out/r2.fq.gz" 2>"$out/map.log" >/dev/null
rc=$?
grep -v 'set-up\|insert size\|loaded index\|seeded mode' "$out/map.log" | tail -n 6
awk 'NR <= 2 || $3 > 0' "$out/dmon.log"
exit $rc
