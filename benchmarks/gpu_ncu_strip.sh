#!/usr/bin/env bash
# gpu_ncu_strip.sh DATA OUT [REGEX] [SKIP] — on the GPU machine (./scanmap
# built as gpu_probe.sh builds it): Nsight Compute's throughput, occupancy,
# launch and warp-state sections for one launch of the kernels matching
# REGEX (a mangled name; default: the 16-bit per-group-reference strip kernel) after SKIP
# (default 4) matching launches, while mapping DATA's chr20 pairs at 16
# threads.  Report: OUT/ncu.txt; prints its main lines.
set -uo pipefail
data=${1:?usage: gpu_ncu_strip.sh DATA OUT [REGEX] [SKIP]}
out=${2:?usage: gpu_ncu_strip.sh DATA OUT [REGEX] [SKIP]}
regex=${3:-strip_kernelILi16ELb0ELi16ELi1ELb1E}
skip=${4:-4}
. "$(dirname "$0")/gpu_env.sh"
mkdir -p "$out"
ncu_bin=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -n 1)
"$ncu_bin" --clock-control none --kernel-name-base mangled -k "regex:$regex" --launch-skip "$skip" -c 1 \
	--section SpeedOfLight --section Occupancy --section LaunchStats \
	--section WarpStateStats --section SchedulerStats --section InstructionStats \
	./scanmap map -t 16 -o /dev/null "$data/chr20.fa.gz" "$data/chr20.r1.fq.gz" "$data/chr20.r2.fq.gz" \
	>"$out/ncu.txt" 2>"$out/ncu.log"
rc=$?
grep -E 'strip_kernel|Duration|Registers|Achieved Occupancy|Theoretical Occupancy|Block Limit|Grid Size|Executed Ipc A|Issue Slots Busy|Stall|Warp Cycles Per Issued|Eligible Warps|No Eligible|Compute \(SM\) Throughput|Memory Throughput|Executed Instructions  |Waves Per SM|Dynamic Shared' "$out/ncu.txt" | head -n 60
exit $rc
