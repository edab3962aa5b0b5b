#!/usr/bin/env bash
# index_checks.sh REF.fa[.gz] OUT [COPIES...] — what the index file's checks, and
# the checksum among them, add to its load (issue 21; results/genome-scale.md,
# "What the checksum adds"): the index of REF.fa, and of a reference of
# COPIES diverged copies of it for each COPIES given (benchmarks/diverge.c,
# seed 7: 16 copies of chr20 make 1 Gbp, 48 make 3 Gbp), each loaded by
# build/benchmarks/index_load with THREADS (default "1 4 16") threads in the
# page cache and, for the largest thread count, from the disk.
#
#   ROUNDS (21; 7 for copies)  COLD_ROUNDS (11; 3 for copies)
#
# Each index_load line gives the medians of the unchecked load, the load
# with the structural checks alone and with every check; "checksum +X%" is
# what the checksum adds to the structurally checked load.
set -euo pipefail
ref=${1:?usage: index_checks.sh REF.fa OUT [COPIES...]}
out=${2:?usage: index_checks.sh REF.fa OUT [COPIES...]}
shift 2
top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck disable=SC2206  # a list of thread counts
threads=(${THREADS:-1 4 16})
max=${threads[-1]}
make -s -C "$top" cuda="${cuda:-}" scanmap build/benchmarks/index_load build/benchmarks/diverge >/dev/null
mkdir -p "$out"
# load_grid INDEX ROUNDS COLD_ROUNDS
load_grid() {
	for t in "${threads[@]}"; do
		"$top/build/benchmarks/index_load" "$1" "$2" "$t" | tail -n 1
	done
	"$top/build/benchmarks/index_load" "$1" "$3" "$max" cold | tail -n 1
}
echo "$(nproc) cores: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-)"
zcat -f "$ref" >"$out/ref.fa"
"$top/scanmap" index -t "$max" "$out/ref.fa" 2>&1 | tail -n 1
load_grid "$out/ref.fa.smi" "${ROUNDS:-21}" "${COLD_ROUNDS:-11}"
for c in "$@"; do
	"$top/build/benchmarks/diverge" "$out/ref.fa" "$c" 7 >"$out/copies$c.fa"
	"$top/scanmap" index -t "$max" "$out/copies$c.fa" 2>&1 | tail -n 1
	load_grid "$out/copies$c.fa.smi" "${ROUNDS:-7}" "${COLD_ROUNDS:-3}"
	rm -f "$out/copies$c.fa" "$out/copies$c.fa.smi"
done
