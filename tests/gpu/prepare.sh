#!/usr/bin/env bash
# prepare.sh — run HERE (not on the GPU machine) before a device run that should
# include the end-to-end part of tests/gpu/run.sh.  The GPU machine has nvcc but
# no htslib, zlib or network, so this copies htslib's (and ISA-L's) headers and
# the shared libraries scanmap links into carry/cli_hts, and makes the genomes
# and reads of benchmarks/gpu_e2e_data.sh in carry/e2e.  carry/ is git-ignored: name
# carry/cli_hts and carry/e2e in the device call's `carry`.
set -euo pipefail
cd "$(dirname "$0")/../.."
hts=carry/cli_hts
mkdir -p "$hts/include" "$hts/lib"
cp -r /usr/include/htslib "$hts/include/"
lib=$(ldconfig -p | awk '/libhts\.so\.[0-9]+ .*x86-64/ { print $NF; exit }')
[ -n "$lib" ] || { echo "prepare.sh: libhts not found (apt-get install libhts-dev)" >&2; exit 1; }
cp -L "$lib" "$hts/lib/"
cp -L "$lib" "$hts/lib/libhts.so"
# htslib's own dependencies, and zlib for scanmap itself.
ldd "$lib" | awk '/=> \// { print $3 }' | grep -E 'lib(z|bz2|lzma|deflate|htscodecs)\.' |
	while read -r dep; do cp -L "$dep" "$hts/lib/"; done
cp -L "$(ldconfig -p | awk '/libz\.so\.1 .*x86-64/ { print $NF; exit }')" "$hts/lib/libz.so"
# ISA-L (io/inflate.h), when installed here: the build uses it when its
# header is found.
isal=$(ldconfig -p | awk '/libisal\.so\.[0-9]+ .*x86-64/ { print $NF; exit }')
if [ -n "$isal" ] && [ -d /usr/include/isa-l ]; then
	cp -r /usr/include/isa-l /usr/include/isa-l.h "$hts/include/"
	cp -L "$isal" "$hts/lib/"
	cp -L "$isal" "$hts/lib/libisal.so"
fi
# The peers of benchmarks/gpu_seeded_bench.sh (Debian's bwa and minimap2: small,
# linked against libc, libm and zlib only), when installed here.
mkdir -p "$hts/bin"
for tool in bwa minimap2; do
	if command -v $tool >/dev/null; then cp -L "$(command -v $tool)" "$hts/bin/"; fi
done
benchmarks/gpu_e2e_data.sh carry/e2e
du -sh carry/cli_hts carry/e2e
