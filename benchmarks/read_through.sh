#!/usr/bin/env bash
# read_through.sh — pairs of fragments shorter than the reads (adapter read-through): where each
# mapper places them, with what MAPQ, and whether it clips the adapter (docs/cli.md,
# "--read-through"; results in benchmarks/results/read-through.md).
#
#   benchmarks/read_through.sh [-r REF.fa] [-n PAIRS] [-m MEAN] [-s SD] [-S SEED]
#                              [-p ART_PROFILE] [-l LEN] [-a truseq|nextera] [-t THREADS]
#                              [-P PEERS] [-g] [-1] OUT
#
# Fragments from REF (default: chr20 of Debian's vt-examples, unpacked by genomes.sh into OUT)
# with lengths ~ normal(MEAN, SD) (default 180, 60: a cell-free-DNA-like library, a third of
# its fragments under 150 bp), each read's molecule the fragment then the adapter
# (read_through_sim.py), read by art_illumina's amplicon mode (its error profile; default HS25,
# LEN 150 bp); then mapped by scanmap seeded (default --read-through clip, and whole), bwa mem and
# minimap2 -ax sr (PEERS, default "bwa minimap2"; "" for scanmap alone) on THREADS threads, and
# judged by read_through_eval.py. Prints the table, the detection's own count and cost
# (build/benchmarks/read_through_count, built by make) and each mapper's CPU seconds.
# -g: poly-G past the adapter (two-colour instruments) instead of poly-A. -1: read 1 alone,
# mapped single-end (no mate to show the fragment: scanmap's refined completion, docs/seeded.md,
# is what settles such reads; no "whole" row).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
ref="" n=20000 mean=180 sd=60 seed=1 prof=HS25 len=150 adapters=truseq threads=2
peers="bwa minimap2" tail=A single=0
while getopts "r:n:m:s:S:p:l:a:t:P:g1" o; do
	case $o in
	r) ref=$OPTARG ;; n) n=$OPTARG ;; m) mean=$OPTARG ;; s) sd=$OPTARG ;; S) seed=$OPTARG ;;
	p) prof=$OPTARG ;; l) len=$OPTARG ;; a) adapters=$OPTARG ;; t) threads=$OPTARG ;;
	P) peers=$OPTARG ;; g) tail=G ;; 1) single=1 ;;
	*) sed -n '2,20p' "$0" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
out=${1:?usage: benchmarks/read_through.sh [options] OUT}
mkdir -p "$out"
out=$(cd "$out" && pwd)
scanmap=$root/scanmap
[[ -x $scanmap ]] || { echo "read_through.sh: build scanmap first (make)" >&2; exit 1; }
for tool in art_illumina python3 $peers; do
	command -v "$tool" >/dev/null || { echo "read_through.sh: $tool not installed" >&2; exit 1; }
done
if [[ -z $ref ]]; then
	CHR20=1 "$root/benchmarks/genomes.sh" "$out/genomes"
	ref=$out/genomes/chr20.fa
fi
genome=$(basename "$ref")
set_dir=$out/$prof-$len-$mean-$sd-$seed-$adapters-${genome%%.*}
[[ $tail == G ]] && set_dir+=-polyG
mkdir -p "$set_dir"
python3 "$root/benchmarks/read_through_sim.py" "$ref" "$n" "$mean" "$sd" "$seed" "$adapters" \
	"$set_dir" "$tail"
for e in 1 2; do
	art_illumina -amp -ss "$prof" -l "$len" -c 1 -na -q -i "$set_dir/amp$e.fa" \
		-rs $((seed * 2 + e)) -o "$set_dir/r$e" >"$set_dir/art$e.log" 2>&1
done

cpu() {  # cpu LABEL CMD...: runs CMD, stdout to $set_dir/LABEL.sam, user+sys seconds to LABEL.cpu
	local label=$1
	shift
	/usr/bin/time -f "%U %S" -o "$set_dir/$label.time" "$@" >"$set_dir/$label.sam" 2>"$set_dir/$label.log"
	awk '{ printf "%.1f\n", $1 + $2 }' "$set_dir/$label.time" >"$set_dir/$label.cpu"
}
[[ -s $ref.smi ]] || "$scanmap" index -t "$threads" "$ref" 2>/dev/null
reads=("$set_dir/r1.fq" "$set_dir/r2.fq") sfx=""
((single)) && reads=("$set_dir/r1.fq") sfx=-se
cpu scanmap$sfx "$scanmap" map -t "$threads" --mode seeded "$ref" "${reads[@]}"
labels=("scanmap$sfx" "$set_dir/scanmap$sfx.sam")
if ((!single)); then
	cpu scanmap-whole "$scanmap" map -t "$threads" --mode seeded --read-through whole "$ref" \
		"${reads[@]}"
	labels+=(scanmap-whole "$set_dir/scanmap-whole.sam")
fi
for p in $peers; do
	case $p in
	bwa)
		[[ -s $ref.bwt ]] || bwa index "$ref" >"$out/bwa-index.log" 2>&1
		cpu "bwa$sfx" bwa mem -t "$threads" "$ref" "${reads[@]}" ;;
	minimap2)   # its index built once per OUT, outside the timing
		mmi=$out/$(basename "$ref").sr.mmi
		[[ -s $mmi ]] || minimap2 -x sr -d "$mmi" "$ref" >"$out/minimap2-index.log" 2>&1
		cpu "minimap2$sfx" minimap2 -t "$threads" -ax sr "$mmi" "${reads[@]}" ;;
	*) echo "read_through.sh: unknown peer $p" >&2; exit 2 ;;
	esac
	labels+=("$p$sfx" "$set_dir/$p$sfx.sam")
done
# table.tsv: the table with the set's name first (benchmarks/results/read-through.tsv is such
# tables one after another, one header; read_through_plot.py draws it).
python3 "$root/benchmarks/read_through_eval.py" "$set_dir/truth.tsv" "${labels[@]}" |
	tee >(awk -v s="$(basename "$set_dir")" '{ print (NR == 1 ? "set" : s) "\t" $0 }' \
		>"$set_dir/table$sfx.tsv")
# The detection alone: pairs found against those it can see, and its cost.
count=$root/build/benchmarks/read_through_count
[[ -x $count ]] && ((!single)) && "$count" "$set_dir/r1.fq" "$set_dir/r2.fq" "$set_dir/truth.tsv"
for ((i = 0; i < ${#labels[@]}; i += 2)); do
	echo "${labels[i]} CPU s: $(cat "$set_dir/${labels[i]}.cpu")"
done
