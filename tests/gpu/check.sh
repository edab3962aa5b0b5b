#!/usr/bin/env bash
# check.sh — the GPU tests as tests/run.sh runs them: builds them (which
# also proves the CUDA code compiles wherever nvcc exists) and runs them
# against the oracle; without a CUDA device prints the skip line and exits
# 77 (tests/run.sh's skip status).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
skip_status=77
nvcc_bin=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
if [[ -x $nvcc_bin ]]; then
	NVCC=$nvcc_bin tests/gpu/build.sh build/gpu-tests || exit 1
else
	echo "gpu tests: skipped (no CUDA device)"
	echo "(and no nvcc: the CUDA code was not compiled)"
	exit $skip_status
fi
if ! nvidia-smi -L >/dev/null 2>&1; then
	echo "gpu tests: skipped (no CUDA device)"
	exit $skip_status
fi
build/gpu-tests/test_gpu
