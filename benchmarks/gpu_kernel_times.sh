#!/usr/bin/env bash
# gpu_kernel_times.sh DATA OUT [KERNELS] — on the GPU machine (after
# gpu_probe.sh has built ./scanmap): maps the chr20 pairs of DATA with the
# GPU engine at 16 threads under Nsight Compute, timing the first KERNELS
# (default 600) kernel launches one by one (gpu__time_duration; ncu runs
# them serialised), and prints the summed time, launches and mean per
# kernel name, largest first.  Raw CSV: OUT/kernels.csv.
set -uo pipefail
data=${1:?usage: gpu_kernel_times.sh DATA OUT [KERNELS]}
out=${2:?usage: gpu_kernel_times.sh DATA OUT [KERNELS]}
count=${3:-600}
. "$(dirname "$0")/gpu_env.sh"
mkdir -p "$out"
ncu_bin=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -n 1)
"$ncu_bin" --clock-control none --metrics gpu__time_duration.sum --print-units base -c "$count" --csv \
	./scanmap map -t 16 -o /dev/null "$data/chr20.fa.gz" "$data/chr20.r1.fq.gz" "$data/chr20.r2.fq.gz" \
	>"$out/kernels.csv" 2>"$out/ncu.log"
rc=$?
# CSV fields are quoted; the kernel name is field 5 ("Kernel Name"), the
# value the last field.  Names are cut at the first '(' (template args kept).
awk -F'","' 'NR > 1 && $0 ~ /gpu__time_duration/ {
		name = $5; sub(/\(.*/, "", name); v = $NF; gsub(/[",]/, "", v)
		t[name] += v; n[name]++; tot += v }
	END { for (k in t) printf "%12.3f ms %6d launches %9.1f us each %5.1f%%  %s\n",
		t[k] / 1e6, n[k], t[k] / n[k] / 1e3, 100 * t[k] / tot, k }' "$out/kernels.csv" |
	sort -rn
grep -m1 "Kernel Name" "$out/kernels.csv" | cut -c1-300
tail -n 3 "$out/ncu.log"
exit $rc
