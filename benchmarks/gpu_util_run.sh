#!/usr/bin/env bash
# gpu_util_run.sh LOG CMD... — on the GPU machine: runs CMD while
# `nvidia-smi dmon` samples the GPU's utilisation every second into LOG
# (sm%: share of the time a kernel ran; mem%: memory controller busy).
set -uo pipefail
log=${1:?usage: gpu_util_run.sh LOG CMD...}
shift
nvidia-smi dmon -s u -d 1 >"$log" 2>&1 &
mon=$!
"$@"
rc=$?
kill "$mon" 2>/dev/null
wait "$mon" 2>/dev/null
exit $rc
