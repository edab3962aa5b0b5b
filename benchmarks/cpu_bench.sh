#!/usr/bin/env bash
# cpu_bench.sh — the CPU engine benchmark of docs/cpu-engine.md, recorded in
# benchmarks/results/cpu-<date>.md.
#
#   benchmarks/cpu_bench.sh [OUT.md]
#
# Data (fetched once into benchmarks/work/ with `apt-get download`, no root
# needed): the lambda phage of Debian's bowtie2-examples (48.5 kbp) and
# E. coli K-12 MG1655 of ragout-examples (4.6 Mbp).  Baselines: parasail
# (libparasail8) and SSW (libssw0), loaded by build/benchmarks/cpu_bench at
# run time.  For each reference and read length (150, 250 bp) it runs every
# method on 1 thread and on all cores, in one process, on the same reads.
# Knobs (environment): READS_PHAGE (1000), READS_ECOLI (40), BUDGET (4 s per
# baseline row), THREADS ("1,<cores>"), BUILD_DIR (build).
set -euo pipefail

cd "$(dirname "$0")/.."
root=$PWD
work=$root/benchmarks/work
out=${1:-$root/benchmarks/results/cpu-$(date -u +%Y-%m-%d).md}
reads_phage=${READS_PHAGE:-1000}
reads_ecoli=${READS_ECOLI:-40}
budget=${BUDGET:-4}
cores=$(nproc)
threads=${THREADS:-1,$cores}
build=${BUILD_DIR:-build}

fetch() {   # package file-inside-package destination
	local pkg=$1 inner=$2 dest=$3
	[ -s "$dest" ] && return 0
	mkdir -p "$work/deb"
	(cd "$work/deb" && apt-get download "$pkg" >/dev/null)
	dpkg -x "$work"/deb/"$pkg"_*.deb "$work/deb/x"
	zcat "$work/deb/x/$inner" >"$dest"
}

mkdir -p "$work"
fetch bowtie2-examples usr/share/doc/bowtie2/examples/reference/lambda_virus.fa.gz \
	"$work/lambda_virus.fa"
fetch ragout-examples usr/share/doc/ragout/examples/E.Coli/references/MG1655-K12.fasta.gz \
	"$work/ecoli_k12.fa"

make -j"$cores" BUILD="$build" "$build/benchmarks/cpu_bench" >/dev/null

commit=$(git describe --always --dirty 2>/dev/null || echo unknown)
cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')
{
	echo "# CPU engine benchmark, $(date -u +%Y-%m-%d)"
	echo
	echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "- git commit: $commit"
	echo "- CPU: $cpu, $cores cores ($(grep -m1 -o 'avx512bw' /proc/cpuinfo || echo 'no avx512bw'))"
	echo "- parasail: $(dpkg-query -W -f '${Version}' libparasail8 2>/dev/null || echo 'not installed');" \
	     "SSW: $(dpkg-query -W -f '${Version}' libssw0 2>/dev/null || echo 'not installed');" \
	     "compiler: $(${CC:-cc} --version | head -n1)"
	echo "- command: benchmarks/cpu_bench.sh (READS_PHAGE=$reads_phage READS_ECOLI=$reads_ecoli" \
	     "BUDGET=$budget THREADS=$threads)"
	echo
	echo "GCUPS = read length x reference length / seconds.  'wall' columns use elapsed"
	echo "time; 'per CPU-second' divides by the CPU time of the worker threads, which"
	echo "is what one core delivers when the machine is shared with other work."
	echo
} >"$out"
for ref in lambda_virus ecoli_k12; do
	n=$reads_phage
	[ "$ref" = ecoli_k12 ] && n=$reads_ecoli
	for len in 150 250; do
		echo "## $ref, $len bp reads" >>"$out"
		echo >>"$out"
		echo '```' >>"$out"
		echo "build/benchmarks/cpu_bench -r $ref.fa -n $n -l $len -t $threads -b $budget" >>"$out"
		echo '```' >>"$out"
		"$build/benchmarks/cpu_bench" -r "$work/$ref.fa" -n "$n" -l "$len" -t "$threads" \
			-b "$budget" >>"$out"
		echo >>"$out"
	done
done
# Scores past 255 (match 2, 250 bp): rows switch to 16-bit cells where a
# read aligns, and back.
echo "## lambda_virus, 250 bp reads, match score 2 (mixed cell widths)" >>"$out"
echo >>"$out"
echo '```' >>"$out"
echo "build/benchmarks/cpu_bench -r lambda_virus.fa -n $reads_phage -l 250 -t 1 -b $budget -A 2" >>"$out"
echo '```' >>"$out"
"$build/benchmarks/cpu_bench" -r "$work/lambda_virus.fa" -n "$reads_phage" -l 250 -t 1 \
	-b "$budget" -A 2 >>"$out"
echo "wrote $out"
