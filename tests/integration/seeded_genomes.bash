# seeded_genomes.bash — sourced by the seeded_*.sh and paired_*.sh tests
# (not a test itself), after common.bash.

# ecoli_fasta: prints the path of E. coli K-12 MG1655 (4.6 Mbp, one contig,
# gzip) from Debian's ragout-examples, fetched once into tests/out/cache with
# apt-get download (nothing installed).  Skips the test when the package
# cannot be had.
ecoli_fasta() {
	local fa=$CACHE/ecoli_k12.fa.gz deb
	if [[ ! -s $fa ]]; then
		need_tool apt-get apt
		(cd "$CACHE" && rm -f ragout-examples_*.deb &&
			apt-get download -q ragout-examples >download-ragout.log 2>&1) ||
			skip "cannot download Debian package ragout-examples (see $CACHE/download-ragout.log)"
		deb=$(ls "$CACHE"/ragout-examples_*.deb)
		rm -rf "$CACHE/deb-ragout"
		dpkg -x "$deb" "$CACHE/deb-ragout"
		cp "$(find "$CACHE/deb-ragout" -name MG1655-K12.fasta.gz | head -n 1)" "$fa.tmp"
		mv "$fa.tmp" "$fa"
		rm -rf "$CACHE/deb-ragout" "$deb"
	fi
	echo "$fa"
}

# sam_scores SAM: prints "QNAME FLAG AS" for each primary record (AS 0 when
# unmapped), in input order.
sam_scores() {
	awk -F '\t' '!/^@/ && !and($2, 256) {
		as = 0
		for (i = 12; i <= NF; i++) if ($i ~ /^AS:i:/) as = substr($i, 6)
		print $1, $2, as }' "$1"
}
