#!/usr/bin/env bash
# same_sam.sh — maps a fixed set of configurations and writes each SAM (its
# @PG line, which names the commit, left out) to a directory, so that the
# output before and after a change can be compared byte for byte:
#
#   benchmarks/same_sam.sh [-b SCANMAP] [-x] DIR      # e.g. before/ and after/
#   diff -r before after
#
# Configurations: seeded single-end and paired E. coli (normal and high
# divergence sets of benchmarks/accuracy_bench.sh, 10,000 reads or pairs),
# -N 3, custom scoring, chr20 pairs (when benchmarks/work/accuracy-chr20
# holds them), exhaustive lambda (examples/ and the 4,000 reads of
# map_bench.sh).  Run benchmarks/accuracy_bench.sh (ecoli, chr20) first.
#
# -x adds the CPU engine's matrix: each instruction set this CPU has
# (--cpu-isa sse41, avx2, avx512; scalar on fewer reads) with -t 1 and 2,
# single-end and paired, seeded and exhaustive, the cell ladders (--cells
# 8, 16, 32), seeded mode falling back to the whole reference (lambda), and
# the oracle engine on the example.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
scanmap=$top/scanmap
matrix=0
while getopts "b:x" o; do
	case $o in
	b) scanmap=$OPTARG ;;
	x) matrix=1 ;;
	*) echo "usage: $0 [-b SCANMAP] [-x] DIR" >&2; exit 1 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 1 ] || { echo "usage: $0 [-b SCANMAP] [-x] DIR" >&2; exit 1; }
out=$1
work=${SM_BENCH_WORK:-$top/benchmarks/work}
acc=$work/accuracy
chr=$work/accuracy-chr20
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$out"

head_reads() {  # head_reads FQ N -> first N records
	head -n $((4 * $2)) "$1"
}
for set in normal hd; do
	head_reads "$acc/$set.r1.fq" 10000 > "$tmp/$set.1.fq"
	head_reads "$acc/$set.r2.fq" 10000 > "$tmp/$set.2.fq"
done
run() {  # run NAME ARGS...
	local name=$1; shift
	"$scanmap" map -v 1 -t 2 "$@" | grep -v '^@PG' > "$out/$name.sam"
	echo "$name: $(grep -vc '^@' "$out/$name.sam") records"
}
run se-ecoli --mode seeded "$acc/ecoli.fa" "$tmp/normal.1.fq"
run se-ecoli-hd --mode seeded "$acc/ecoli.fa" "$tmp/hd.1.fq"
run se-ecoli-hd-scoring --mode seeded -A 2 -B 3 -O 5 -E 2 -T 20 "$acc/ecoli.fa" "$tmp/hd.1.fq"
run pe-ecoli --mode seeded "$acc/ecoli.fa" "$tmp/normal.1.fq" "$tmp/normal.2.fq"
run pe-ecoli-hd --mode seeded "$acc/ecoli.fa" "$tmp/hd.1.fq" "$tmp/hd.2.fq"
run pe-ecoli-hd-N3 --mode seeded -N 3 "$acc/ecoli.fa" "$tmp/hd.1.fq" "$tmp/hd.2.fq"
if [ -s "$chr/chr20.fa" ] && [ -s "$chr/normal.r1.fq" ]; then
	head_reads "$chr/normal.r1.fq" 5000 > "$tmp/chr.1.fq"
	head_reads "$chr/normal.r2.fq" 5000 > "$tmp/chr.2.fq"
	run pe-chr20 --mode seeded "$chr/chr20.fa" "$tmp/chr.1.fq" "$tmp/chr.2.fq"
fi
run ex-lambda-example "$top/examples/lambda_8k.fa.gz" "$top/examples/reads.fq"
run ex-lambda-example-N3 -N 3 -A 2 -B 3 -O 5 -E 2 -T 20 "$top/examples/lambda_8k.fa.gz" "$top/examples/reads.fq"
if [ -s "$work/lambda.4000.fq" ]; then
	run ex-lambda-4000 --mode exhaustive "$work/lambda.fa" "$work/lambda.4000.fq"
fi
if [ "$matrix" = 1 ]; then
	ex_ref=$top/examples/lambda_8k.fa.gz ex_reads=$top/examples/reads.fq
	for set in normal hd; do
		head -n 8000 "$tmp/$set.1.fq" > "$tmp/$set.2k.1.fq"
		head -n 8000 "$tmp/$set.2.fq" > "$tmp/$set.2k.2.fq"
	done
	head -n 400 "$ex_reads" > "$tmp/ex.1.fq"   # the example's reads: R1s, then R2s
	tail -n 400 "$ex_reads" > "$tmp/ex.2.fq"
	head -n 2000 "$tmp/hd.1.fq" > "$tmp/hd.500.1.fq"
	head -n 2000 "$tmp/hd.2.fq" > "$tmp/hd.500.2.fq"
	lambda=$work/lambda.fa lreads=$tmp/lambda.1k.fq
	if [ -s "$work/lambda.4000.fq" ]; then
		head -n 4000 "$work/lambda.4000.fq" > "$lreads"
	else   # the example's genome and reads
		lambda=$ex_ref lreads=$ex_reads
	fi
	isas=()
	for isa in sse41 avx2 avx512; do
		flag=$(case $isa in sse41) echo sse4_1 ;; avx2) echo avx2 ;; *) echo avx512bw ;; esac)
		grep -qw "$flag" /proc/cpuinfo && isas+=("$isa")
	done
	for isa in "${isas[@]}"; do
		c="--engine cpu --cpu-isa $isa"
		run "cpu-$isa-pe-ecoli-hd-t1" $c -t 1 --mode seeded "$acc/ecoli.fa" "$tmp/hd.2k.1.fq" "$tmp/hd.2k.2.fq"
		run "cpu-$isa-pe-ecoli-t2" $c -t 2 --mode seeded "$acc/ecoli.fa" "$tmp/normal.2k.1.fq" "$tmp/normal.2k.2.fq"
		run "cpu-$isa-se-ecoli-hd-t1" $c -t 1 --mode seeded "$acc/ecoli.fa" "$tmp/hd.2k.1.fq"
		run "cpu-$isa-se-ecoli-t2" $c -t 2 --mode seeded "$acc/ecoli.fa" "$tmp/normal.2k.1.fq"
		for cells in 8 16 32; do
			run "cpu-$isa-c$cells-ex-lambda-t2" $c --cells $cells -t 2 --mode exhaustive "$lambda" "$lreads"
			run "cpu-$isa-c$cells-se-lambda-fallback-t1" $c --cells $cells -t 1 --mode seeded "$lambda" "$lreads"
			run "cpu-$isa-c$cells-pe-ecoli-hd-t2" $c --cells $cells -t 2 --mode seeded "$acc/ecoli.fa" "$tmp/hd.500.1.fq" "$tmp/hd.500.2.fq"
		done
		run "cpu-$isa-ex-example-pe-t1" $c -t 1 --mode exhaustive "$ex_ref" "$tmp/ex.1.fq" "$tmp/ex.2.fq"
	done
	c="--engine cpu --cpu-isa scalar"
	run cpu-scalar-ex-example-t2 $c -t 2 --mode exhaustive "$ex_ref" "$ex_reads"
	run cpu-scalar-se-example-t1 $c -t 1 --mode seeded "$ex_ref" "$ex_reads"
	run cpu-scalar-pe-ecoli-hd-t2 $c -t 2 --mode seeded "$acc/ecoli.fa" "$tmp/hd.500.1.fq" "$tmp/hd.500.2.fq"
	run oracle-se-example-t2 --engine oracle -t 2 --mode seeded "$ex_ref" "$ex_reads"
	run oracle-ex-example-t1 --engine oracle -t 1 --mode exhaustive "$ex_ref" "$ex_reads"
fi
