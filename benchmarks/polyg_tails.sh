#!/usr/bin/env bash
# polyg_tails.sh — single reads whose fragment ends before the read does and which go on in
# poly-G (two-colour instruments), as scanmap's refined completion settles them (docs/seeded.md,
# "Reads that go on past their fragment").
#
#   benchmarks/polyg_tails.sh [-r REF.fa] [-n READS] [-S SEED] [-t THREADS] [-b BIN] [-P PEERS] OUT
#
# READS (default 5,000) fragments of 90-119 bp from REF's first contig (default: chr20 of Debian's
# vt-examples, unpacked by genomes.sh into OUT) with 200 G after each (polyg_sim.py), read 150 bp
# single-end by `art_illumina -amp -ss HS25` (seed SEED, default 7); mapped by ./scanmap (-v 4:
# its refined completion's count), by BIN too when given (an older build), and by PEERS (default
# "bwa"; "" for none) on THREADS (default 2) threads; judged by polyg_eval.py: reads, at MAPQ
# >= 20, wrong at MAPQ >= 20, correct at MAPQ >= 10, unmapped; then each mapper's CPU seconds.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
ref="" n=5000 seed=7 threads=2 old="" peers="bwa"
while getopts "r:n:S:t:b:P:" o; do
	case $o in
	r) ref=$OPTARG ;; n) n=$OPTARG ;; S) seed=$OPTARG ;; t) threads=$OPTARG ;; b) old=$OPTARG ;;
	P) peers=$OPTARG ;;
	*) sed -n '2,14p' "$0" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
out=${1:?usage: benchmarks/polyg_tails.sh [options] OUT}
mkdir -p "$out"
out=$(cd "$out" && pwd)
for tool in art_illumina python3 $peers; do
	command -v "$tool" >/dev/null || { echo "polyg_tails.sh: $tool not installed" >&2; exit 1; }
done
if [[ -z $ref ]]; then
	CHR20=1 "$root/benchmarks/genomes.sh" "$out/genomes"
	ref=$out/genomes/chr20.fa
fi
python3 "$root/benchmarks/polyg_sim.py" "$ref" "$n" "$seed" 31 60 "$out"
art_illumina -ss HS25 -amp -na -i "$out/amp.fa" -l 150 -f 1 -rs "$seed" -o "$out/se" >"$out/art.log" 2>&1
cpu() {  # cpu LABEL CMD...: stdout to LABEL.sam, stderr to LABEL.log, user+sys seconds to LABEL.cpu
	local label=$1
	shift
	/usr/bin/time -f "%U %S" -o "$out/$label.time" "$@" >"$out/$label.sam" 2>"$out/$label.log"
	awk '{ printf "%.1f\n", $1 + $2 }' "$out/$label.time" >"$out/$label.cpu"
}
[[ -s $ref.smi ]] || "$root/scanmap" index -t "$threads" "$ref" 2>/dev/null
labels=(scanmap)
cpu scanmap "$root/scanmap" map -v 4 -t "$threads" "$ref" "$out/se.fq"
if [[ -n $old ]]; then
	cpu scanmap-old "$old" map -v 4 -t "$threads" "$ref" "$out/se.fq"
	labels+=(scanmap-old)
fi
for p in $peers; do
	case $p in
	bwa)
		[[ -s $ref.bwt ]] || bwa index "$ref" >"$out/bwa-index.log" 2>&1
		cpu bwa bwa mem -t "$threads" "$ref" "$out/se.fq" ;;
	*) echo "polyg_tails.sh: unknown peer $p" >&2; exit 2 ;;
	esac
	labels+=("$p")
done
printf 'mapper\treads\tq>=20\twrong q>=20\tcorrect q>=10\tunmapped\n'
for l in "${labels[@]}"; do
	python3 "$root/benchmarks/polyg_eval.py" "$out/truth.tsv" "$l" "$out/$l.sam"
done
for l in "${labels[@]}"; do
	echo "$l CPU s: $(cat "$out/$l.cpu") $(grep -o 'refined completion.*' "$out/$l.log" || true)"
done
