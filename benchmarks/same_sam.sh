#!/usr/bin/env bash
# same_sam.sh — maps a fixed set of configurations and writes each SAM (its
# @PG line, which names the commit, left out) to a directory, so that the
# output before and after a change can be compared byte for byte:
#
#   benchmarks/same_sam.sh [-b SCANMAP] DIR      # e.g. before/ and after/
#   diff -r before after
#
# Configurations: seeded single-end and paired E. coli (normal and high
# divergence sets of benchmarks/accuracy_bench.sh, 10,000 reads or pairs),
# -N 3, custom scoring, chr20 pairs (when benchmarks/work/accuracy-chr20
# holds them), exhaustive lambda (examples/ and the 4,000 reads of
# map_bench.sh).  Run benchmarks/accuracy_bench.sh (ecoli, chr20) first.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
scanmap=$top/scanmap
while getopts "b:" o; do
	case $o in
	b) scanmap=$OPTARG ;;
	*) echo "usage: $0 [-b SCANMAP] DIR" >&2; exit 1 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 1 ] || { echo "usage: $0 [-b SCANMAP] DIR" >&2; exit 1; }
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
