#!/usr/bin/env bash
# clip_rate.sh — soft-clipped primary alignments of scanmap (-L 0, the
# default -L 5,5) and bwa mem on the same simulated E. coli pairs: the
# clipping penalty's target (docs/cli.md, "Clipping penalty").
#
#   benchmarks/clip_rate.sh [-t THREADS] [-n PAIRS] [OUT.md]
#
# Reads: 2x150 bp from E. coli K-12 (benchmarks/genomes.sh), PAIRS pairs
# each from dwgsim (1% errors R1, 2% R2, 0.1% mutations, 10% of them
# indels; seed 11) and from ART (HiSeq 2500 profile, insert 400 +- 50,
# seed 7; skipped when art_illumina is missing).  A primary is a record
# without flags 0x4, 0x100, 0x800; soft-clipped when its CIGAR has an S.
# Markdown to OUT.md [stdout].
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
threads=2 pairs=10000
while getopts "t:n:" o; do
	case $o in
	t) threads=$OPTARG ;;
	n) pairs=$OPTARG ;;
	*) echo "usage: $0 [-t THREADS] [-n PAIRS] [OUT.md]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
out=${1:-/dev/stdout}
for tool in dwgsim bwa samtools; do
	command -v "$tool" >/dev/null || { echo "$0: $tool is needed" >&2; exit 1; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$here/genomes.sh" "$root/benchmarks/work" >/dev/null
ref=$root/benchmarks/work/ecoli.fa
bwa index -p "$work/ecoli" "$ref" 2>/dev/null

rate() {  # rate SAM: "soft-clipped / primaries (percent)"
	samtools view -F 0x904 "$1" | awk '{ n++; if ($6 ~ /S/) c++ }
		END { printf "%d / %d (%.2f%%)", c, n, n ? 100 * c / n : 0 }'
}
sets=(dwgsim)
dwgsim -z 11 -N "$pairs" -1 150 -2 150 -e 0.01 -E 0.02 -r 0.001 -R 0.1 "$ref" "$work/dw" >/dev/null 2>&1
ln -s "$work/dw.bwa.read1.fastq.gz" "$work/dwgsim_1.fq.gz"
ln -s "$work/dw.bwa.read2.fastq.gz" "$work/dwgsim_2.fq.gz"
if command -v art_illumina >/dev/null; then
	# Fold coverage for PAIRS pairs of 2 x 150 bases.
	fold=$(awk -v p="$pairs" -v g="$(grep -v '^>' "$ref" | tr -d '\n' | wc -c)" 'BEGIN { printf "%.4f", p * 300 / g }')
	art_illumina -ss HS25 -i "$ref" -p -l 150 -f "$fold" -m 400 -s 50 -rs 7 -na -o "$work/art" >/dev/null 2>&1
	gzip -c "$work/art1.fq" >"$work/art_1.fq.gz"
	gzip -c "$work/art2.fq" >"$work/art_2.fq.gz"
	sets+=(art)
fi
{
	echo "| reads | scanmap -L 0 | scanmap (-L 5,5) | bwa mem |"
	echo "|---|---|---|---|"
	for s in "${sets[@]}"; do
		r1=$work/${s}_1.fq.gz r2=$work/${s}_2.fq.gz
		"$root/scanmap" map -t "$threads" -L 0 -o "$work/l0.sam" "$ref" "$r1" "$r2" 2>/dev/null
		"$root/scanmap" map -t "$threads" -o "$work/l5.sam" "$ref" "$r1" "$r2" 2>/dev/null
		bwa mem -t "$threads" "$work/ecoli" "$r1" "$r2" >"$work/bwa.sam" 2>/dev/null
		echo "| $s | $(rate "$work/l0.sam") | $(rate "$work/l5.sam") | $(rate "$work/bwa.sam") |"
	done
} >"$out"
