#!/usr/bin/env bash
# variant_sum.sh MAPPER DIR... — one mapper's variant calls summed over several runs of
# benchmarks/variant_bench.sh (e.g. the same genome at three dwgsim seeds), per coverage and type:
# truth, calls, true positives, false negatives and positives, recall and precision. Each DIR
# holds COVERAGE/truth.vcf.gz and COVERAGE/MAPPER.vcf.gz (MAPPER: scanmap-seeded, bwa,
# minimap2); variants match as variant_bench.sh scores them (benchmarks/variant_score.awk). One
# cell's recall or precision moves by a call or two between seeds at repeat sites; summed over
# seeds, two mappers' differences are the calls.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
mapper=${1:?usage: variant_sum.sh MAPPER DIR...}
shift
(($#)) || { echo "usage: variant_sum.sh MAPPER DIR..." >&2; exit 1; }
printf 'mapper\tcoverage\ttype\ttruth\tcalls\ttp\tfn\tfp\trecall\tprecision\n'
for cov in $(cd "$1" && ls -d [0-9]* | sort -n); do
	for dir in "$@"; do
		[[ -s $dir/$cov/$mapper.vcf.gz ]] || { echo "variant_sum.sh: $dir/$cov/$mapper.vcf.gz missing" >&2; exit 1; }
		awk -f "$here/variant_score.awk" <(zcat "$dir/$cov/truth.vcf.gz") <(zcat "$dir/$cov/$mapper.vcf.gz")
	done | awk -v m="$mapper" -v c="$cov" '{ nt[$1] += $2; nc[$1] += $3; tp[$1] += $4 }
		END { for (ty in nt) printf "%s\t%s\t%s\t%d\t%d\t%d\t%d\t%d\t%.4f\t%.4f\n", m, c, ty, nt[ty],
			nc[ty], tp[ty], nt[ty] - tp[ty], nc[ty] - tp[ty], tp[ty] / nt[ty], nc[ty] ? tp[ty] / nc[ty] : 0 }' | sort -k3,3r
done
