#!/usr/bin/env bash
# index.sh — `scanmap index`: the default and -o paths, a progress line per
# stage, build time and peak memory on stderr, the same file with -t 1 and
# -t 2, option errors; `scanmap map --mode seeded` loading REF.smi and the
# reference it holds (and refusing a wrong, truncated, other-version or
# mismatched one with a message naming the file: truncated, damaged
# (checksum), old version, built from a FASTA that has changed since),
# mapping with the index alone when the FASTA is gone, accepting a FASTA
# touched but not changed, building in memory without an index, and giving
# the same records with a loaded and an in-memory index.
source "$(dirname "$0")/lib.bash"

c1=$(random_seq 5000 61)
c2=$(random_seq 3000 62)
printf '>chr1\n%s\n>chr2\n%s\n' "$c1" "$c2" >"$tmp/ref.fa"
printf '>other\n%s\n' "$(random_seq 8000 63)" >"$tmp/other.fa"
{
	fastq_record r1 "${c1:1000:100}"
	fastq_record r2 "$(revcomp "${c2:500:120}")"
	fastq_record r3 "$(random_seq 90 64)"
} >"$tmp/reads.fq"

run "$SCANMAP" index "$tmp/ref.fa"
expect_status 0 "index with the default path"
check "default path is REF.smi" test -s "$tmp/ref.fa.smi"
expect_err "peak memory" "build time and peak memory reported"
expect_err "k=15 w=10" "default k and w reported"
expect_err "index: read $tmp/ref.fa: 8000 bases in 2 contigs" "progress: reference read"
expect_err "minimizers counted" "progress: minimizers counted"
expect_err "placed and sorted" "progress: minimizers sorted"
expect_err "index: wrote $tmp/ref.fa.smi" "progress: file written"

# Threads do not change the file (pieces of 4 Mbp: a reference of 9 Mbp
# in three contigs has pieces that cut contigs).
awk 'BEGIN {
	srand(71)
	split("5000000 3000 4000000", len, " ")
	for (c = 1; c <= 3; c++) {
		print ">big" c
		for (i = 0; i < len[c]; i += 60) {
			s = ""
			for (j = i; j < i + 60 && j < len[c]; j++) s = s substr("ACGT", int(rand() * 4) + 1, 1)
			print s
		}
	}
}' >"$tmp/big.fa"
run "$SCANMAP" index -t 1 -o "$tmp/big1.smi" "$tmp/big.fa"
expect_status 0 "index -t 1"
run "$SCANMAP" index -t 2 -o "$tmp/big2.smi" "$tmp/big.fa"
expect_status 0 "index -t 2"
expect_err "building with 2 threads" "-t 2 reported"
check "-t 1 and -t 2 give the same file" cmp -s "$tmp/big1.smi" "$tmp/big2.smi"
run "$SCANMAP" index -t 0 "$tmp/ref.fa"
expect_status 1 "-t 0"
expect_err "-t (threads) must be between 1 and" "-t range message"

run "$SCANMAP" index -o "$tmp/custom.idx" -k 12 -w 5 "$tmp/ref.fa"
expect_status 0 "index with -o -k -w"
check "-o path written" test -s "$tmp/custom.idx"
expect_err "k=12 w=5" "-k -w reported"

run "$SCANMAP" index -k 17 "$tmp/ref.fa"
expect_status 1 "-k out of range"
expect_err "-k (minimizer length) must be between 4 and 16" "-k range message"
run "$SCANMAP" index
expect_status 1 "no reference"
expect_err "expected <ref.fa>" "no reference message"
run "$SCANMAP" index -o "$tmp/x.smi" "$tmp/missing.fa"
expect_failure "missing reference"
check "no index left for a missing reference" test ! -e "$tmp/x.smi"
run "$SCANMAP" index -h
expect_status 0 "index -h"
expect_out "Usage: scanmap index" "index usage text"

run "$SCANMAP" map --mode seeded "$tmp/ref.fa" "$tmp/reads.fq"
expect_status 0 "seeded map with REF.smi"
expect_err "loaded index $tmp/ref.fa.smi" "REF.smi loaded"
grep -v '^@PG' "$tmp/out" >"$tmp/loaded.sam"
check "r1 placed" grep -qP '^r1\t0\tchr1\t1001\t' "$tmp/loaded.sam"
check "r2 placed on the reverse strand" grep -qP '^r2\t16\tchr2\t501\t' "$tmp/loaded.sam"
check "r3 unmapped" grep -qP '^r3\t4\t' "$tmp/loaded.sam"

mv "$tmp/ref.fa.smi" "$tmp/good.smi"
run "$SCANMAP" map --mode seeded "$tmp/ref.fa" "$tmp/reads.fq"
expect_status 0 "seeded map without an index"
expect_err "built the index in memory" "index built in memory"
check "same records with a loaded and a built index" \
	cmp -s "$tmp/loaded.sam" <(grep -v '^@PG' "$tmp/out")

# bad_index WHAT MESSAGE: REF.smi as prepared must be refused.
bad_index() {
	run "$SCANMAP" map --mode seeded "$tmp/ref.fa" "$tmp/reads.fq"
	expect_status 1 "$1"
	expect_err "$2" "$1: message"
	check "$1: no SAM written" test ! -s "$tmp/out"
}
printf 'not an index at all\n' >"$tmp/ref.fa.smi"
bad_index "not an index" "$tmp/ref.fa.smi: not a scanmap index"
head -c 100 "$tmp/good.smi" >"$tmp/ref.fa.smi"
bad_index "truncated index" "$tmp/ref.fa.smi: truncated or corrupt index"
head -c 20000 "$tmp/good.smi" >"$tmp/ref.fa.smi"
bad_index "index cut in its tables" "truncated or corrupt index"
{ printf 'SMIDX\377'; tail -c +7 "$tmp/good.smi"; } >"$tmp/ref.fa.smi"
bad_index "other index version" "index version 255"
{ printf 'SMIDX\001'; tail -c +7 "$tmp/good.smi"; } >"$tmp/ref.fa.smi"
bad_index "version-1 index (no checksum)" "index version 1, this scanmap reads version 4: rebuild it"
{ printf 'SMIDX\002'; tail -c +7 "$tmp/good.smi"; } >"$tmp/ref.fa.smi"
bad_index "version-2 index (no reference)" "index version 2, this scanmap reads version 4: rebuild it"
{ printf 'SMIDX\003'; tail -c +7 "$tmp/good.smi"; } >"$tmp/ref.fa.smi"
bad_index "version-3 index (older checksums)" "index version 3, this scanmap reads version 4: rebuild it with 'scanmap index'"
# One flipped bit of k (the header's first byte after the version): the
# checksum catches what the range check cannot.
cp "$tmp/good.smi" "$tmp/ref.fa.smi"
printf '\x0e' | dd of="$tmp/ref.fa.smi" bs=1 seek=6 conv=notrunc 2>/dev/null
bad_index "flipped bit of k" "$tmp/ref.fa.smi: corrupt index: its checksum does not match"
cp "$tmp/good.smi" "$tmp/ref.fa.smi"
size=$(stat -c %s "$tmp/ref.fa.smi")
printf '\xff' | dd of="$tmp/ref.fa.smi" bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null
bad_index "damaged byte in the positions" "its checksum does not match"
"$SCANMAP" index -v 0 -o "$tmp/ref.fa.smi" "$tmp/other.fa"
bad_index "index of another reference" "built from another reference"

# A stale index: the FASTA changed after the index was built.  Another
# size is refused at once; the same size with other bases is read and
# compared, and refused; the same bases at another time are accepted.
cp "$tmp/ref.fa" "$tmp/ref.fa.orig"
cp -p "$tmp/good.smi" "$tmp/ref.fa.smi"
printf '>chr3\nACGT\n' >>"$tmp/ref.fa"
bad_index "stale index (FASTA grown)" "$tmp/ref.fa.smi: the index was built from another reference than $tmp/ref.fa (a file of"
cp "$tmp/ref.fa.orig" "$tmp/ref.fa"
sed -i '2s/^./N/' "$tmp/ref.fa"
bad_index "stale index (one base changed)" "the index was built from another reference than $tmp/ref.fa: rebuild it"
cp "$tmp/ref.fa.orig" "$tmp/ref.fa"
run "$SCANMAP" map --mode seeded "$tmp/ref.fa" "$tmp/reads.fq"
expect_status 0 "FASTA copied (another time), same contents"
expect_err "its contents match" "same contents: compared and accepted"
check "same records after a copy of the FASTA" cmp -s "$tmp/loaded.sam" <(grep -v '^@PG' "$tmp/out")
"$SCANMAP" index -v 0 "$tmp/ref.fa"
mv "$tmp/ref.fa" "$tmp/ref.fa.away"
run "$SCANMAP" map --mode seeded "$tmp/ref.fa" "$tmp/reads.fq"
expect_status 0 "FASTA gone: the index alone"
expect_err "the reference held in the index is used" "FASTA gone: noted"
check "same records from the index alone" cmp -s "$tmp/loaded.sam" <(grep -v '^@PG' "$tmp/out")
mv "$tmp/ref.fa.away" "$tmp/ref.fa"

cp "$tmp/good.smi" "$tmp/ref.fa.smi"
run "$SCANMAP" map --mode seeded -k 13 "$tmp/ref.fa" "$tmp/reads.fq"
expect_status 0 "-k unlike the index's"
expect_err "building the index in memory" "-k unlike the index's: rebuilt in memory"

run "$SCANMAP" map "$tmp/ref.fa" "$tmp/reads.fq"
expect_status 0 "auto mode on a small reference"
expect_err "exhaustive mode" "auto mode: exhaustive under the bound"
finish
