#!/usr/bin/env bash
# layering.sh — the dependency rule of docs/design.md ("Layers"), checked on
# every #include of io/, gpu/, mapper/ and examples/, and on the symbols the
# built objects use: dependencies point down.
#
#   mapper/scanmap.h  the public header: no project header (it is installed
#              alone); any layer above io/ may include it
#   io/        includes io/ only (formats and leaf utilities: the ground floor)
#   contract   mapper/{score,scan,engine_types,engine_ops,index,seed,radix,trace_band}.h,
#              the types, inline rules and the engine interface the engines
#              share with the mapper: io/, scanmap.h and each other only
#   gpu/       io/, scanmap.h, the contract and gpu/; no other mapper/ header
#   mapper/    anything below, but of gpu/ only its public headers
#              (gpu_engine.h, gpu_seed.h); X_impl.h only from mapper/
#   examples/  the public header mapper/scanmap.h only
# Quoted includes name a path from the repository root.
#
# Calls follow the same rule (a contract header may declare a function the
# mapper defines): when the build's objects are there (BUILD, default
# build/), no object of io/ may use a symbol that an object of mapper/ or
# gpu/ defines, and no object of gpu/ one that an object of mapper/ defines.
#
# The checks run on the tree, then on copies with one planted violation of
# each kind, which they must reject (so the checks themselves cannot rot).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1

contract="mapper/score.h mapper/scan.h mapper/engine_types.h mapper/engine_ops.h mapper/index.h
	mapper/seed.h mapper/radix.h mapper/trace_band.h"
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
plant gpu/gpu_ops.c '#include "mapper/engine.h"'
plant mapper/engine_ops.h '#include "mapper/cpu_scan.h"'

# ---- symbols: what the built objects of each layer use ----

build=${BUILD:-build}
# objects LAYER: the build's objects of LAYER's current sources.
objects() {
	local src o
	for src in "$1"/*.c "$1"/*.cu; do
		o=$build/${src%.*}.o
		[[ -f $src && -f $o ]] && echo "$o"
	done
}
# defined OBJ...: the external symbols the objects define.
defined() {
	(($# == 0)) || nm --defined-only "$@" 2>/dev/null | awk 'NF == 3 && $2 ~ /[A-Z]/ { print $3 }' | sort -u
}
# check_calls LAYER ABOVE...: prints each symbol an object of LAYER uses that
# an object of a layer above defines; returns 1 if any.  Extra objects of
# LAYER may follow "--" (the planted ones).
check_calls() {
	local layer=$1 o l out bad=0 above=() extra=() above_objs=()
	shift
	while (($#)) && [[ $1 != -- ]]; do above+=("$1"); shift; done
	(($#)) && shift && extra=("$@")
	for l in "${above[@]}"; do mapfile -t -O ${#above_objs[@]} above_objs < <(objects "$l"); done
	defined "${above_objs[@]}" >"$tmp/defs"
	for o in $(objects "$layer") "${extra[@]}"; do
		out=$(nm -u "$o" 2>/dev/null | awk '{ print $NF }' | sort -u | comm -12 - "$tmp/defs")
		[[ -z $out ]] && continue
		sed "s|^|$o: uses |; s|\$|, defined above $layer/ (docs/design.md, Layers)|" <<<"$out"
		bad=1
	done
	return $bad
}

if ! command -v nm >/dev/null || [[ -z $(objects mapper) || -z $(objects gpu) ]]; then
	echo "skip symbols: no built objects in $build/ (or no nm)"
else
	if check_calls io mapper gpu && check_calls gpu mapper; then
		echo "ok   the objects of io/ and gpu/ use nothing defined above them"
	else
		echo "FAIL an object uses a symbol of a layer above it (above)"
		fails=1
	fi
	# A planted gpu/ object calling the mapper's window scans must fail.
	printf 'int sm_wscan_run(void);\nint planted(void) { return sm_wscan_run(); }\n' >"$tmp/planted.c"
	if ! ${CC:-cc} -c -o "$tmp/planted.o" "$tmp/planted.c" 2>/dev/null; then
		echo "FAIL cannot compile the planted object"
		fails=1
	elif check_calls gpu mapper -- "$tmp/planted.o" >/dev/null; then
		echo "FAIL a planted gpu/ object calling sm_wscan_run was not caught"
		fails=1
	else
		echo "ok   catches a gpu/ object calling sm_wscan_run"
	fi
fi
((fails == 0))
