#!/usr/bin/env bash
# speed_bench.sh — mapping speed of scanmap's seeded mode against bwa mem and
# minimap2 -ax sr on the same simulated reads, cores and run, single-end and
# paired-end.  Writes a Markdown table to stdout.
#
#   benchmarks/speed_bench.sh [-t THREADS] [-r REPEATS] [-b SCANMAP] [GENOME:PAIRS ...]
#
# GENOME is ecoli (benchmarks/genomes.sh) or chr20 (fetched by
# benchmarks/accuracy_bench.sh -g chr20); default ecoli:100000 chr20:50000.
# Reads: dwgsim 2x150 bp, insert 500 +- 50, fixed seed, 0.5%/1% sequencing
# errors, 0.1% mutations (15% indels); single-end runs map R1 alone.  Every
# index is built beforehand (bwa index, minimap2 -d, scanmap index), so a
# run is loading the index plus mapping.  Per run: wall seconds, user+system
# CPU seconds (/usr/bin/time), reads/s, reads per CPU second, and scanmap's
# ratio to bwa mem on both; with -r N each mapper runs N times and the
# fastest run (least CPU time) is kept.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
threads=2
reps=1
scanmap=$top/scanmap
while getopts "t:r:b:" o; do
	case $o in
	t) threads=$OPTARG ;;
	r) reps=$OPTARG ;;
	b) scanmap=$OPTARG ;;
	*) echo "usage: $0 [-t THREADS] [-r REPEATS] [-b SCANMAP] [GENOME:PAIRS ...]" >&2; exit 1 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || set -- ecoli:100000 chr20:50000
work=${SM_BENCH_WORK:-$top/benchmarks/work}
for tool in bwa minimap2 dwgsim /usr/bin/time; do
	command -v $tool >/dev/null || { echo "speed_bench.sh: $tool not found" >&2; exit 1; }
done
[ -x "$scanmap" ] || { echo "speed_bench.sh: build scanmap first (make)" >&2; exit 1; }

# timed CMD...: runs CMD reps times (SAM to $out), keeps the run with the
# least CPU time in $wall and $cpu.
timed() {
	local t w c
	cpu=""
	for ((i = 0; i < reps; i++)); do
		t=$(mktemp)
		/usr/bin/time -f '%e %U %S' -o "$t" "$@" >"$out" 2>/dev/null
		w=$(awk '{ print $1 }' "$t"); c=$(awk '{ print $2 + $3 }' "$t")
		rm -f "$t"
		if [ -z "$cpu" ] || awk -v a="$c" -v b="$cpu" 'BEGIN { exit !(a < b) }'; then
			cpu=$c; wall=$w
		fi
	done
}

echo "| genome | reads | mapper | wall s | CPU s | reads/s | reads/CPU-s | vs bwa mem (wall) | vs bwa mem (CPU) |"
echo "|---|---|---|---|---|---|---|---|---|"
for spec in "$@"; do
	g=${spec%%:*}; pairs=${spec#*:}
	case $g in
	ecoli) "$here/genomes.sh" "$work"; ref=$work/speed/ecoli.fa; src=$work/ecoli.fa ;;
	chr20) ref=$work/speed/chr20.fa; src=$work/accuracy-chr20/chr20.fa
	       [ -s "$src" ] || { echo "speed_bench.sh: $src missing: run benchmarks/accuracy_bench.sh -g chr20 -n 1000 -x 0 first" >&2; exit 1; } ;;
	*) echo "speed_bench.sh: unknown genome '$g'" >&2; exit 1 ;;
	esac
	mkdir -p "$work/speed"
	[ -s "$ref" ] || cp "$src" "$ref"
	[ -s "$ref.bwt" ] || bwa index "$ref" 2>/dev/null
	[ -s "$ref.mmi" ] || minimap2 -x sr -d "$ref.mmi" "$ref" 2>/dev/null
	[ -s "$ref.smi" ] || "$scanmap" index "$ref" 2>/dev/null
	sim=$work/speed/$g.$pairs
	if [ ! -s "$sim.r2.fq" ]; then
		dwgsim -z 21 -e 0.005 -E 0.01 -r 0.001 -R 0.15 -N "$pairs" -1 150 -2 150 -d 500 -s 50 -y 0 "$ref" "$sim" >/dev/null 2>&1
		zcat "$sim.bwa.read1.fastq.gz" >"$sim.r1.fq"
		zcat "$sim.bwa.read2.fastq.gz" >"$sim.r2.fq.tmp"
		mv "$sim.r2.fq.tmp" "$sim.r2.fq"
	fi
	out=$work/speed/out.sam
	for layout in single paired; do
		if [ $layout = single ]; then reads=("$sim.r1.fq"); n=$pairs; else reads=("$sim.r1.fq" "$sim.r2.fq"); n=$((2 * pairs)); fi
		timed bwa mem -t "$threads" "$ref" "${reads[@]}"
		bwa_wall=$wall bwa_cpu=$cpu
		for m in bwa mm2 sm; do
			case $m in
			bwa) label="bwa mem"; wall=$bwa_wall; cpu=$bwa_cpu ;;
			mm2) label="minimap2 -ax sr"; timed minimap2 -ax sr -t "$threads" "$ref.mmi" "${reads[@]}" ;;
			sm) label="scanmap seeded"; timed "$scanmap" map -t "$threads" --mode seeded --engine cpu "$ref" "${reads[@]}" ;;
			esac
			awk -v g="$g $layout" -v n="$n" -v l="$label" -v w="$wall" -v c="$cpu" -v bw="$bwa_wall" -v bc="$bwa_cpu" 'BEGIN {
				printf "| %s | %d | %s | %.2f | %.2f | %.0f | %.0f | %.2fx | %.2fx |\n",
					g, n, l, w, c, n / w, n / c, bw / w, bc / c }'
		done
	done
done
