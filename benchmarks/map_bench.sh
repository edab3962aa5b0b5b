#!/usr/bin/env bash
# map_bench.sh — end-to-end mapping throughput (FASTQ to SAM) of scanmap against
# bwa mem, minimap2 -ax sr and bowtie2, on the same simulated reads, the same
# threads, in the same run.  Writes a Markdown table to stdout.
#
#   benchmarks/map_bench.sh [-t THREADS] [-e ENGINE] [-m MODE] [GENOME:NREADS ...]
#
# GENOME is lambda or ecoli (benchmarks/genomes.sh); reads are 150 bp, simulated
# by dwgsim with a fixed seed (2% errors, 0.1% mutations, no random reads).
# "correct" = placed within 10 bp of the simulated origin (soft clips undone).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
threads=2
engine=auto
mode=exhaustive
while getopts "t:e:m:" o; do
	case $o in
	t) threads=$OPTARG ;;
	e) engine=$OPTARG ;;
	m) mode=$OPTARG ;;
	*) echo "usage: $0 [-t THREADS] [-e ENGINE] [-m MODE] [GENOME:NREADS ...]" >&2; exit 1 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || set -- lambda:2000 ecoli:100
work=${SM_BENCH_WORK:-$top/benchmarks/work}
mkdir -p "$work"
"$here/genomes.sh" "$work"
for tool in bwa minimap2 bowtie2 bowtie2-build dwgsim samtools; do
	command -v $tool >/dev/null || { echo "map_bench.sh: $tool not found (apt-get install bwa minimap2 bowtie2 dwgsim samtools)" >&2; exit 1; }
done

now() { date +%s.%N; }
# accuracy SAM: fraction of primary mapped records within 10 bp of the dwgsim origin.
accuracy() {
	samtools view -F 0x904 "$1" | awk '
	{ n = split($1, f, "_"); truth = f[n-8]; pos = $4;
	  if (match($6, /^[0-9]+S/)) pos -= substr($6, 1, RLENGTH - 1);
	  d = pos - truth; if (d < 0) d = -d; if (d <= 10) ok++; total++ }
	END { printf "%.1f", total ? 100 * ok / total : 0 }'
}
row() {  # row TOOL GENOME NREADS SECONDS SAM
	local rps; rps=$(awk -v n="$3" -v s="$4" 'BEGIN { printf "%.0f", n / s }')
	printf '| %s | %s | %s | %.2f | %s | %s |\n' "$1" "$2" "$3" "$4" "$rps" "$(accuracy "$5")"
}

echo "| mapper | genome | reads | seconds | reads/s | % correct |"
echo "|---|---|---|---|---|---|"
# scanmap's Gcells/s (scan cells over the run's wall time) is in its summary
# line, benchmarks/work/scanmap.log.
for spec in "$@"; do
	g=${spec%%:*}; nreads=${spec#*:}
	ref=$work/$g.fa
	reads=$work/$g.$nreads.fq
	if [ ! -s "$reads" ]; then
		dwgsim -z 7 -N "$nreads" -1 150 -2 150 -e 0.02 -E 0.02 -r 0.001 -y 0 "$ref" "$work/$g.$nreads.sim" >/dev/null 2>&1
		# dwgsim names end in /1: drop it from the name lines only.
		zcat "$work/$g.$nreads.sim.bwa.read1.fastq.gz" | awk 'NR % 4 == 1 { sub(/\/1$/, "") } { print }' > "$reads"
	fi
	[ -s "$ref.bwt" ] || bwa index "$ref" 2>/dev/null
	[ -s "$work/$g.1.bt2" ] || bowtie2-build -q "$ref" "$work/$g" >/dev/null
	t0=$(now); "$top/scanmap" map -t "$threads" --engine "$engine" --mode "$mode" -o "$work/out.scanmap.sam" "$ref" "$reads" 2>"$work/scanmap.log"; t1=$(now)
	row "scanmap $mode ($(grep -o 'engine [^ ,]*' "$work/scanmap.log" | tail -1 | cut -d' ' -f2))" "$g" "$nreads" "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" "$work/out.scanmap.sam"
	t0=$(now); bwa mem -t "$threads" "$ref" "$reads" > "$work/out.bwa.sam" 2>/dev/null; t1=$(now)
	row "bwa mem" "$g" "$nreads" "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" "$work/out.bwa.sam"
	t0=$(now); minimap2 -ax sr -t "$threads" "$ref" "$reads" > "$work/out.mm2.sam" 2>/dev/null; t1=$(now)
	row "minimap2 -ax sr" "$g" "$nreads" "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" "$work/out.mm2.sam"
	t0=$(now); bowtie2 -p "$threads" --local -x "$work/$g" -U "$reads" > "$work/out.bt2.sam" 2>/dev/null; t1=$(now)
	row "bowtie2 --local" "$g" "$nreads" "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" "$work/out.bt2.sam"
done
