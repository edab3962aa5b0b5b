#!/usr/bin/env bash
# hic_bench.sh — scanmap and bwa mem on Hi-C-like pairs, both run as Hi-C
# pipelines run bwa mem (-5SP): chimeric R1s and far-apart partners made from
# simulated pairs with known origins (benchmarks/hic_like.py), then where
# each mapper's primaries land.
#
#   benchmarks/hic_bench.sh REF.fa PE1.fq PE2.fq TRUTH.tsv OUT [PAIRS [THREADS]]
#
# PE1/PE2 and TRUTH.tsv: an ART pair set and its truth (benchmarks/art_truth.py),
# e.g. WORK/hs125-9/pe.{1,2}.fq and pe.truth.tsv as `benchmarks/seeded_misses.sh
# -n 100000 -s 9 -p hs125,hsx150 -w WORK` leaves them.  REF needs a bwa index beside it
# (scanmap uses REF.smi when present).  PAIRS [20000], THREADS [2].  Writes
# OUT/h1.fq, OUT/h2.fq, OUT/{scanmap,bwa}.sam and .log, and the table to
# OUT/table.md (also on stdout).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
[[ $# -ge 5 ]] || { sed -n '2,14p' "$0"; exit 2; }
ref=$1 pe1=$2 pe2=$3 truth=$4 out=$5 pairs=${6:-20000} threads=${7:-2}
mkdir -p "$out"
python3 "$here/hic_like.py" make "$pe1" "$pe2" "$pairs" "$out/h1.fq" "$out/h2.fq"
/usr/bin/time -f '%e s wall, %U s user, %M KB' "$top/scanmap" map -5SP -t "$threads" "$ref" \
	"$out/h1.fq" "$out/h2.fq" >"$out/scanmap.sam" 2>"$out/scanmap.log"
/usr/bin/time -f '%e s wall, %U s user, %M KB' bwa mem -5SP -t "$threads" "$ref" \
	"$out/h1.fq" "$out/h2.fq" >"$out/bwa.sam" 2>"$out/bwa.log"
(cd "$out" && python3 "$here/hic_like.py" eval "$pe1" "$pe2" "$pairs" "$truth" \
	bwa.sam scanmap.sam) | tee "$out/table.md"
for m in scanmap bwa; do echo "$m: $(tail -n 1 "$out/$m.log")"; done | tee -a "$out/table.md"
