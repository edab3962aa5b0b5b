#!/usr/bin/env bash
# accuracy_variant.sh TAG "OPTIONS" [SET...] — maps the simulated pairs that
# accuracy_bench.sh left in benchmarks/work (SM_BENCH_WORK) with ./scanmap
# (seeded, CPU engine, -t 2, plus OPTIONS) and prints, per set, the
# accuracy_eval.py line and the window scan list (runs, jobs, reference
# columns per job) of -v 4.  SETs: e-normal e-hd c-normal c-hd (default all:
# E. coli and chr20, normal and high divergence).  Output in
# benchmarks/work/variants/SET-TAG.{sam,log,eval}.  For trying a seeding or
# MAPQ change against the accepted numbers before the full benchmark.
set -uo pipefail
tag=${1:?usage: accuracy_variant.sh TAG "OPTIONS" [SET...]}
opts=${2?usage: accuracy_variant.sh TAG "OPTIONS" [SET...]}
shift 2
sets=("$@")
((${#sets[@]})) || sets=(e-normal e-hd c-normal c-hd)
top=$(cd "$(dirname "$0")/.." && pwd)
work=${SM_BENCH_WORK:-$top/benchmarks/work}
out=$work/variants
mkdir -p "$out"
rc=0
for s in "${sets[@]}"; do
	case $s in
	e-normal) ref=$work/accuracy/ecoli.fa r=$work/accuracy/normal ;;
	e-hd) ref=$work/accuracy/ecoli.fa r=$work/accuracy/hd ;;
	c-normal) ref=$work/accuracy-chr20/chr20.fa r=$work/accuracy-chr20/normal ;;
	c-hd) ref=$work/accuracy-chr20/chr20.fa r=$work/accuracy-chr20/hd ;;
	*) echo "accuracy_variant.sh: unknown set $s" >&2; exit 1 ;;
	esac
	[[ -s $r.r1.fq ]] || { echo "accuracy_variant.sh: $r.r1.fq missing: run accuracy_bench.sh first" >&2; exit 1; }
	# shellcheck disable=SC2086 # OPTIONS are words
	"$top/scanmap" map -t 2 -v 4 --mode seeded --engine cpu $opts "$ref" "$r.r1.fq" "$r.r2.fq" \
		>"$out/$s-$tag.sam" 2>"$out/$s-$tag.log" || { echo "$s $tag: scanmap failed"; rc=1; continue; }
	"$top/benchmarks/accuracy_eval.py" "$out/$s-$tag.sam" >"$out/$s-$tag.eval"
	echo "$s $tag: $(head -n 1 "$out/$s-$tag.eval" | sed 's/.*mapped, //') |" \
		"$(grep -o 'windows [0-9]*, [0-9]*, [0-9]*' "$out/$s-$tag.log")"
done
exit $rc
