#!/usr/bin/env bash
# read_lengths.sh — placement accuracy across read lengths: scanmap (seeded mode, CPU engine)
# beside bwa mem and minimap2 -ax sr on the same simulated reads and cores.
#
#   benchmarks/read_lengths.sh [-t THREADS] [-n PAIRS] [-l "36 50 75 100 150 250"] [-s SEED] REF.fa OUT
#
# Reads: dwgsim pairs from REF (bwa-indexed beside it, or indexed here), 0.5% / 1% errors (R1 / R2),
# 0.1% mutations, insert 300 +- 50 below 100 bp and 500 +- 50 from 100 bp, seed SEED (7).
# Each length is mapped as pairs and, R1 alone, single-end. A primary record is correct within
# 20 bp of its origin (benchmarks/accuracy_eval.py). Writes OUT/read-lengths.tsv (length, mode,
# mapper, reads, correct at MAPQ >= 10, wrong at MAPQ >= 20, mapping seconds) and prints it.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
threads=2
pairs=20000
lengths="36 50 75 100 150 250"
seed=7
while getopts "t:n:l:s:" o; do
	case $o in
	t) threads=$OPTARG ;;
	n) pairs=$OPTARG ;;
	l) lengths=$OPTARG ;;
	s) seed=$OPTARG ;;
	*) echo "usage: $0 [-t THREADS] [-n PAIRS] [-l LENGTHS] [-s SEED] REF.fa OUT" >&2; exit 1 ;;
	esac
done
shift $((OPTIND - 1))
ref=${1:?usage: $0 [options] REF.fa OUT}
out=${2:?usage: $0 [options] REF.fa OUT}
for tool in dwgsim bwa minimap2; do
	command -v "$tool" >/dev/null || { echo "read_lengths.sh: $tool is not on PATH" >&2; exit 1; }
done
mkdir -p "$out"
[[ -s $ref.bwt ]] || bwa index "$ref" 2>"$out/bwa-index.log"
[[ -s $ref.smi && $ref.smi -nt $top/scanmap ]] || "$top/scanmap" index "$ref" 2>"$out/scanmap-index.log"

tsv=$out/read-lengths.tsv
printf 'length\tmode\tmapper\treads\tcorrect_q10\twrong_q20\tseconds\n' >"$tsv"
for len in $lengths; do
	insert=$((len < 100 ? 300 : 500))
	sim=$out/r$len
	[[ -s $sim.bwa.read1.fastq.gz ]] ||
		dwgsim -N "$pairs" -1 "$len" -2 "$len" -e 0.005 -E 0.01 -r 0.001 -d "$insert" -s 50 -y 0 \
			-z "$seed" "$ref" "$sim" >"$sim.log" 2>&1
	for mode in pe se; do
		reads=("$sim.bwa.read1.fastq.gz" "$sim.bwa.read2.fastq.gz")
		[[ $mode == se ]] && reads=("$sim.bwa.read1.fastq.gz")
		for mapper in scanmap bwa minimap2; do
			sam=$out/$mapper.$len.$mode.sam
			s=$(date +%s.%N)
			case $mapper in
			scanmap) "$top/scanmap" map -t "$threads" --mode seeded "$ref" "${reads[@]}" ;;
			bwa) bwa mem -t "$threads" "$ref" "${reads[@]}" ;;
			minimap2) minimap2 -ax sr -t "$threads" "$ref" "${reads[@]}" ;;
			esac >"$sam" 2>"$sam.log"
			e=$(date +%s.%N)
			python3 "$here/accuracy_eval.py" "$sam" |
				awk -v l="$len" -v m="$mode" -v p="$mapper" -v s="$(echo "$e - $s" | bc)" 'NR == 1 {
					match($0, /^[0-9]+ reads/); n = substr($0, 1, RLENGTH - 6)
					match($0, /[0-9]+ correct at MAPQ>=10/); c = substr($0, RSTART, RLENGTH - 20)
					match($0, /[0-9]+ wrong of/); w = substr($0, RSTART, RLENGTH - 9)
					printf "%s\t%s\t%s\t%s\t%s\t%s\t%.1f\n", l, m, p, n, c, w, s }' >>"$tsv"
		done
	done
done
column -t "$tsv"
