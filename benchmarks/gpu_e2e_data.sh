#!/usr/bin/env bash
# gpu_e2e_data.sh DIR — prepares, on this machine, what tests/gpu/e2e.sh needs on
# the GPU machine (which has no network and no dwgsim): the lambda phage and
# E. coli genomes (E. coli gzipped), and 150 bp single-end reads simulated from
# each by dwgsim with fixed seeds (2% errors, 0.1% mutations; 50,000 and
# 20,000), gzipped; human chromosome 20
# (GRCh37, Debian vt-examples, gzipped as shipped) and 50,000 2x150 bp pairs
# from it (insert 500 +- 50, the normal set of accuracy_bench.sh); and
# high-divergence single-end reads (the hd set of accuracy_bench.sh, 5-10%
# differences) for benchmarks/optimum_bench.sh: 10,000 from E. coli, 2,000
# from chr20.  With the tree it stays under a device call's 64 MiB carry.
set -euo pipefail
dir=${1:?usage: gpu_e2e_data.sh DIR}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$dir"
"$here/genomes.sh" "$dir/genomes"
for spec in lambda:50000 ecoli:20000; do
	g=${spec%%:*} n=${spec#*:}
	[ -s "$dir/$g.fa" ] || [ -s "$dir/$g.fa.gz" ] || cp "$dir/genomes/$g.fa" "$dir/$g.fa"
	[ -s "$dir/$g.fq.gz" ] && continue
	dwgsim -z 11 -N "$n" -1 150 -2 150 -e 0.02 -E 0.02 -r 0.001 -y 0 "$dir/$g.fa" "$dir/sim" >/dev/null 2>&1
	zcat "$dir/sim.bwa.read1.fastq.gz" | awk 'NR % 4 == 1 { sub(/\/1$/, "") } { print }' | gzip -1 > "$dir/$g.fq.gz"
	rm -f "$dir"/sim.*
done
rm -rf "$dir/genomes"

if [ ! -s "$dir/chr20.fa.gz" ]; then
	tmp=$(mktemp -d)
	(cd "$tmp" && apt-get download vt-examples >/dev/null 2>&1) ||
		{ echo "gpu_e2e_data.sh: apt-get download vt-examples failed" >&2; exit 1; }
	dpkg -x "$tmp"/vt-examples_*.deb "$tmp/x"
	cp "$tmp/x/usr/share/doc/vt/examples/ref/20.fa.gz" "$dir/chr20.fa.gz"
	rm -rf "$tmp"
fi
if [ ! -s "$dir/chr20.r2.fq.gz" ]; then
	zcat "$dir/chr20.fa.gz" >"$dir/chr20.fa"
	dwgsim -z 11 -N 50000 -1 150 -2 150 -d 500 -s 50 -e 0.005 -E 0.01 -r 0.001 -R 0.15 -y 0 \
		"$dir/chr20.fa" "$dir/sim" >/dev/null 2>&1
	for m in 1 2; do
		zcat "$dir/sim.bwa.read$m.fastq.gz" | awk 'NR % 4 == 1 { sub(/\/[12]$/, "") } { print }' |
			gzip -1 >"$dir/chr20.r$m.fq.gz"
	done
	rm -f "$dir"/sim.* "$dir/chr20.fa"
fi
for spec in ecoli:10000 chr20:2000; do
	g=${spec%%:*} n=${spec#*:}
	[ -s "$dir/$g.hd.fq.gz" ] && continue
	case $g in
	ecoli) zcat -f "$dir"/ecoli.fa* >"$dir/hd.fa" ;;
	chr20) zcat "$dir/chr20.fa.gz" >"$dir/hd.fa" ;;
	esac
	dwgsim -z 12 -N $((n / 2)) -1 150 -2 150 -d 500 -s 50 -e 0.02 -E 0.02 -r 0.05 -R 0.2 -y 0 \
		"$dir/hd.fa" "$dir/sim" >/dev/null 2>&1
	for m in 1 2; do
		zcat "$dir/sim.bwa.read$m.fastq.gz" | awk -v m=$m 'NR % 4 == 1 { sub(/\/[12]$/, "/" m) } { print }'
	done | gzip -1 >"$dir/$g.hd.fq.gz"
	rm -f "$dir"/sim.* "$dir/hd.fa"
done
[ -s "$dir/ecoli.fa" ] && gzip -9f "$dir/ecoli.fa"
exit 0
