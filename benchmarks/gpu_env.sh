# gpu_env.sh — sourced by the GPU machine's benchmark scripts: the htslib
# that tests/gpu/prepare.sh carries (carry/cli_hts) on the library path, and
# gpu_build DIR LOG [MAKE ARGS...], which builds DIR's scanmap against it for
# sm_90 + PTX (prints the log's tail and returns 1 on failure).
hts=$PWD/carry/cli_hts
export LD_LIBRARY_PATH=$hts/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

gpu_build() {
	local dir=$1 log=$2
	shift 2
	make -C "$dir" -j"$(nproc)" scanmap CUDA_ARCHS=90 CUDA_PTX=90 HTSLIB_CFLAGS="-I$hts/include" \
		HTSLIB_LIBS="-L$hts/lib -lhts" LDFLAGS="-L$hts/lib" "$@" >"$log" 2>&1 ||
		{ tail -n 20 "$log"; return 1; }
}
