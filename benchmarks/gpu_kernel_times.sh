#!/usr/bin/env bash
# gpu_kernel_times.sh DATA OUT [KERNELS]
# gpu_kernel_times.sh --map OUT BIN MAP-ARGS...
#   — on the GPU machine: one `scanmap map` run under Nsight Compute, its
# kernel launches timed one by one (gpu__time_duration; ncu runs them
# serialised), and the summed time, launches and mean per kernel name,
# largest first.  The first form maps the chr20 pairs of DATA with ./scanmap
# at 16 threads, the first KERNELS (default 600) launches; the second runs
# `BIN map -t 16 -o /dev/null MAP-ARGS...` with every launch timed (e.g.
# `--mode exhaustive --engine gpu small.fa reads.fq.gz`: results/small-ref.md's
# kernels per 100,000 reads).  Raw CSV: OUT/kernels.csv.
set -uo pipefail
if [[ ${1:-} == --map ]]; then
	out=${2:?usage: gpu_kernel_times.sh --map OUT BIN MAP-ARGS...}
	bin=${3:?usage: gpu_kernel_times.sh --map OUT BIN MAP-ARGS...}
	shift 3
	cmd=("$bin" map -t 16 -o /dev/null "$@")
	limit=()
else
	data=${1:?usage: gpu_kernel_times.sh DATA OUT [KERNELS]}
	out=${2:?usage: gpu_kernel_times.sh DATA OUT [KERNELS]}
	cmd=(./scanmap map -t 16 -o /dev/null "$data/chr20.fa.gz" "$data/chr20.r1.fq.gz"
	     "$data/chr20.r2.fq.gz")
	limit=(-c "${3:-600}")
fi
. "$(dirname "$0")/gpu_env.sh"
mkdir -p "$out"
ncu_bin=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -n 1)
"$ncu_bin" --clock-control none --metrics gpu__time_duration.sum --print-units base "${limit[@]}" --csv \
	"${cmd[@]}" >"$out/kernels.csv" 2>"$out/ncu.log"
rc=$?
# CSV fields are quoted; the kernel name is field 5 ("Kernel Name"), the
# value the last field.  Names are cut at the first '(' (template args kept).
awk -F'","' 'NR > 1 && $0 ~ /gpu__time_duration/ {
		name = $5; sub(/\(.*/, "", name); v = $NF; gsub(/[",]/, "", v)
		t[name] += v; n[name]++; tot += v }
	END { for (k in t) printf "%12.3f ms %6d launches %9.1f us each %5.1f%%  %s\n",
		t[k] / 1e6, n[k], t[k] / n[k] / 1e3, 100 * t[k] / tot, k
	      printf "%12.3f ms in all\n", tot / 1e6 }' "$out/kernels.csv" |
	sort -rn
grep -m1 "Kernel Name" "$out/kernels.csv" | cut -c1-300
tail -n 3 "$out/ncu.log"
exit $rc
