#!/usr/bin/env bash
# layering.sh — the dependency rule of docs/design.md ("Layers"), checked on
# every #include of io/, gpu/, mapper/ and examples/: dependencies point down.
#
#   mapper/scanmap.h  the public header: no project header (it is installed
#              alone); any layer above io/ may include it
#   io/        includes io/ only (formats and leaf utilities: the ground floor)
#   contract   mapper/{score,scan,engine_types,engine_ops,index,seed,radix}.h,
#              the types, inline rules and the engine interface the engines
#              share with the mapper: io/, scanmap.h and each other only
#   gpu/       io/, scanmap.h, the contract and gpu/; no other mapper/ header
#   mapper/    anything below, but of gpu/ only its public headers
#              (gpu_engine.h, gpu_seed.h); X_impl.h only from mapper/
#   examples/  the public header mapper/scanmap.h only
# Quoted includes name a path from the repository root.
#
# The check runs on the tree, then on copies with one planted violation of
# each kind, which it must reject (so the check itself cannot rot).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1

contract="mapper/score.h mapper/scan.h mapper/engine_types.h mapper/engine_ops.h mapper/index.h
	mapper/seed.h mapper/radix.h"
gpu_public="gpu/gpu_engine.h gpu/gpu_seed.h"

in_list() {  # in_list WORD LIST...
	local w=$1 x
	shift
	for x in "$@"; do [[ $x == "$w" ]] && return 0; done
	return 1
}

# allowed FILE INC: 0 if FILE (a path from the root) may include INC.
allowed() {
	local f=$1 inc=$2
	[[ $inc == */* ]] || return 1
	[[ $f == mapper/scanmap.h ]] && return 1
	case $f in
	io/*) [[ $inc == io/* ]] ;;
	examples/*) [[ $inc == mapper/scanmap.h ]] ;;
	gpu/*) [[ $inc == io/* || $inc == gpu/* || $inc == mapper/scanmap.h ]] ||
		in_list "$inc" $contract ;;
	mapper/*)
		if in_list "$f" $contract; then
			[[ $inc == io/* || $inc == mapper/scanmap.h ]] || in_list "$inc" $contract
		else
			case $inc in
			io/* | mapper/*) return 0 ;;
			gpu/*) in_list "$inc" $gpu_public ;;
			*) return 1 ;;
			esac
		fi
		;;
	*) return 0 ;;
	esac
}

# check_tree DIR: prints every violation under DIR; returns 1 if any.
check_tree() {
	local dir=$1 bad=0 f line inc
	while IFS= read -r f; do
		while IFS= read -r line; do
			inc=${line#*\"}
			inc=${inc%%\"*}
			if [[ $inc == *_impl.h && $f != mapper/* && $f != tests/* ]]; then
				echo "$f: includes $inc (private to mapper/)"
				bad=1
			elif ! allowed "$f" "$inc"; then
				echo "$f: includes $inc (docs/design.md, Layers)"
				bad=1
			fi
		done < <(grep -E '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$dir/$f")
	done < <(cd "$dir" && find io gpu mapper examples -type f \
		\( -name '*.c' -o -name '*.h' -o -name '*.cu' -o -name '*.cuh' \) | sort)
	return $bad
}

fails=0
if check_tree .; then
	echo "ok   the tree follows the layering"
else
	echo "FAIL the tree breaks the layering (above)"
	fails=1
fi

# plant FILE LINE: a copy of the tree with LINE added to FILE must fail.
tmp=$(mktemp -d "${TMPDIR:-/tmp}/scanmap-layering.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
plant() {
	local f=$1 line=$2
	rm -rf "$tmp/t"
	mkdir -p "$tmp/t"
	cp -r io gpu mapper examples "$tmp/t/"
	printf '%s\n' "$line" >>"$tmp/t/$f"
	if check_tree "$tmp/t" >/dev/null; then
		echo "FAIL planted '$line' in $f was not caught"
		fails=1
	else
		echo "ok   catches '$line' in $f"
	fi
}
plant io/fastq.c '#include "mapper/log.h"'
plant io/ref.h '#include "gpu/gpu_engine.h"'
plant gpu/gpu_engine.h '#include "mapper/engine.h"'
plant gpu/gpu_seed.cu '#include "mapper/pipeline.h"'
plant mapper/scan.h '#include "mapper/cpu_scan.h"'
plant mapper/map.c '#include "gpu/cuda_check.h"'
plant gpu/gpu_stub.c '#include "mapper/map_impl.h"'
plant mapper/scanmap.h '#include "io/log.h"'
plant examples/example.c '#include "mapper/map_impl.h"'
plant mapper/align.c '#include "align.h"'
((fails == 0))
