#!/usr/bin/env bash
# run.sh — maps the bundled example and prints where the SAM went.
#
#   examples/run.sh [OUT.sam|OUT.bam]     (default build/example/lambda.sam)
#
# Data: lambda_8k.fa.gz is bases 10001-18000 of phage lambda (NC_001416.1,
# from Debian's bowtie2-examples); reads.fq holds 200 reads of 150 bp
# simulated from it, both strands, made with
#   dwgsim -z 7 -N 100 -1 150 -2 150 -e 0.005 -E 0.005 -r 0.001 -y 0 -H -o 1 lambda_8k.fa sim
# (read 1 and read 2 files concatenated).  A read's name holds its true
# origin: contig_START1_START2_STRAND1_STRAND2_..., 1-based, /1 or /2.
#
# Installs what is missing (as root; otherwise prints the apt-get command),
# builds scanmap if needed, and maps with the default scoring.
set -euo pipefail

if (($# > 0)); then
	out=$(realpath -m -- "$1")
fi
cd "$(dirname "$0")/.."
out=${out:-build/example/lambda.sam}
log=build/example/build.log

tests/install-deps.sh build
mkdir -p build/example "$(dirname "$out")"
echo "example: building scanmap (make -j2 scanmap; log: $log)"
if ! make -j2 scanmap >"$log" 2>&1; then
	tail -n 30 "$log" >&2
	echo "example: build failed (full log: $log)" >&2
	exit 1
fi
./scanmap map -t 2 -o "$out" examples/lambda_8k.fa.gz examples/reads.fq
echo "SAM written to $out"
