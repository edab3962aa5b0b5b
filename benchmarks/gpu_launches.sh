#!/usr/bin/env bash
# gpu_launches.sh DATA OUT [KERNELS] [THREADS] — on the GPU machine (after
# gpu_build has made ./scanmap): maps the chr20 pairs of DATA with the GPU
# engine under Nsight Compute and lists the first KERNELS (default 200)
# launches one by one, in launch order: name, grid, waves per
# multiprocessor, achieved occupancy, registers and duration.  With THREADS 1 (the
# default) the launches follow one batch's calls in order (seeding, first
# window pass, second pass, tandem), which shows the shape of each call.
# Raw CSV: OUT/launches.csv.
set -uo pipefail
data=${1:?usage: gpu_launches.sh DATA OUT [KERNELS] [THREADS]}
out=${2:?usage: gpu_launches.sh DATA OUT [KERNELS] [THREADS]}
count=${3:-200}
threads=${4:-1}
. "$(dirname "$0")/gpu_env.sh"
mkdir -p "$out"
ncu_bin=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -n 1)
metrics=gpu__time_duration.sum,launch__grid_size,launch__waves_per_multiprocessor
metrics=$metrics,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread
"$ncu_bin" --clock-control none --metrics "$metrics" --print-units base -c "$count" --csv \
	./scanmap map -t "$threads" -o /dev/null "$data/chr20.fa.gz" "$data/chr20.r1.fq.gz" \
	"$data/chr20.r2.fq.gz" >"$out/launches.csv" 2>"$out/ncu.log"
rc=$?
# One CSV row per launch and metric: field 1 is the launch ID, 5 the kernel
# name, the metric name the third-last field, its value the last.
awk -F'","' 'NR > 1 && NF > 8 {
		id = $1; gsub(/"/, "", id); name = $5; sub(/\(.*/, "", name); sub(/^void /, "", name)
		m = $(NF - 2); v = $NF; gsub(/[",]/, "", v)
		if (!(id in nm)) { order[n++] = id; nm[id] = name; grid[id] = $9 }
		val[id, m] = v }
	END { printf "%5s %-40s %-16s %7s %7s %5s %10s\n", "id", "kernel", "grid", "waves", "occ%", "regs", "us"
		for (k = 0; k < n; k++) { id = order[k]
			printf "%5s %-40s %-16s %7.2f %7.1f %5s %10.1f\n", id, substr(nm[id], 1, 40),
				grid[id], val[id, "launch__waves_per_multiprocessor"],
				val[id, "sm__warps_active.avg.pct_of_peak_sustained_active"],
				val[id, "launch__registers_per_thread"], val[id, "gpu__time_duration.sum"] / 1e3 } }' \
	"$out/launches.csv"
tail -n 3 "$out/ncu.log"
exit $rc
