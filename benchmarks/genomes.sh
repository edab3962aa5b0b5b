#!/usr/bin/env bash
# genomes.sh DIR — unpacks the benchmark genomes from Debian data packages into DIR
# (apt-get download + dpkg -x: nothing is installed) and prints nothing on success.
#   DIR/lambda.fa   lambda phage, 48,502 bp      (bowtie2-examples)
#   DIR/ecoli.fa    E. coli K-12 MG1655, 4.6 Mbp (ragout-examples)
#   DIR/chr20.fa    human chromosome 20, GRCh37, 63 Mbp (vt-examples; only with CHR20=1)
set -euo pipefail
dir=${1:?usage: genomes.sh DIR}
mkdir -p "$dir"
cd "$dir"
fetch() {  # fetch PACKAGE: download and unpack once
	local pkg=$1
	[ -d "x-$pkg" ] && return
	rm -f "$pkg"_*.deb
	apt-get download "$pkg" >/dev/null 2>&1 || {
		echo "genomes.sh: 'apt-get download $pkg' failed (run 'apt-get update' first?)" >&2
		exit 1
	}
	dpkg -x "$pkg"_*.deb "x-$pkg"
	rm -f "$pkg"_*.deb
}
if [ ! -s lambda.fa ]; then
	fetch bowtie2-examples
	zcat x-bowtie2-examples/usr/share/doc/bowtie2/examples/reference/lambda_virus.fa.gz > lambda.fa
fi
if [ ! -s ecoli.fa ]; then
	fetch ragout-examples
	zcat x-ragout-examples/usr/share/doc/ragout/examples/E.Coli/references/MG1655-K12.fasta.gz > ecoli.fa
fi
if [ "${CHR20:-0}" = 1 ] && [ ! -s chr20.fa ]; then
	fetch vt-examples
	zcat x-vt-examples/usr/share/doc/vt/examples/ref/20.fa.gz > chr20.fa
fi
