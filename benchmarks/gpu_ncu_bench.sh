#!/usr/bin/env bash
# gpu_ncu_bench.sh OUT — on the GPU machine (after tests/gpu/build.sh):
# Nsight Compute on one launch each of the 16-bit strip kernel scanning
# per-read windows (gpu_bench windows: 4,096 reads x 7 windows) and scanning
# the whole reference (gpu_bench target), with the warp stall reasons, so
# the two can be compared line by line.  Reports: OUT/*.txt.
set -uo pipefail
out=${1:?usage: gpu_ncu_bench.sh OUT}
mkdir -p "$out"
ncu_bin=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -n 1)
run() {   # NAME KERNEL-REGEX SKIP BENCH
	"$ncu_bin" --clock-control none --kernel-name-base mangled -k "regex:$2" --launch-skip "$3" \
		-c 1 --section SpeedOfLight --section Occupancy --section LaunchStats \
		--section WarpStateStats --section InstructionStats \
		--metrics 'regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio' \
		build/gpu-tests/gpu_bench "$4" --quick >"$out/$1.txt" 2>&1
	echo "== $1"
	grep -E 'Duration|Grid Size|Registers Per|Achieved Occupancy|Executed Ipc Active|Warp Cycles Per Issued|Eligible Warps|Executed Instructions  ' "$out/$1.txt"
	grep -E 'issue_stalled' "$out/$1.txt" | awk '{print $NF, $1}' | sort -rn | head -n 6
}
run windows strip_kernelILi16ELb0ELi16ELi1ELb1E 3 windows
run whole strip_kernelILi16ELb0ELi16ELi4ELb0E 3 target
