#!/usr/bin/env bash
# gpu_e2e_data.sh DIR — prepares, on this machine, what tests/gpu/e2e.sh needs on
# the GPU machine (which has no network and no dwgsim): the lambda phage and
# E. coli genomes, and 150 bp single-end reads simulated from each by dwgsim
# with fixed seeds (2% errors, 0.1% mutations), gzipped.
set -euo pipefail
dir=${1:?usage: gpu_e2e_data.sh DIR}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$dir"
"$here/genomes.sh" "$dir/genomes"
for spec in lambda:100000 ecoli:20000; do
	g=${spec%%:*} n=${spec#*:}
	cp "$dir/genomes/$g.fa" "$dir/$g.fa"
	[ -s "$dir/$g.fq.gz" ] && continue
	dwgsim -z 11 -N "$n" -1 150 -2 150 -e 0.02 -E 0.02 -r 0.001 -y 0 "$dir/$g.fa" "$dir/sim" >/dev/null 2>&1
	zcat "$dir/sim.bwa.read1.fastq.gz" | awk 'NR % 4 == 1 { sub(/\/1$/, "") } { print }' | gzip -1 > "$dir/$g.fq.gz"
	rm -f "$dir"/sim.*
done
rm -rf "$dir/genomes"
