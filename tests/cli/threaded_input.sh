#!/usr/bin/env bash
# threaded_input.sh — gzip read files of many decompression blocks (each file
# inflates in a thread of its own into 1 MiB blocks, io/lines.c): a gzip
# pair maps as the plain pair does, from files and through stdin, with
# -t 1 and -t 2; pair files of different lengths, a cut gzip file and a
# bad gzip checksum fail naming the file and the record or line, and remove
# the output.
source "$(dirname "$0")/lib.bash"

pairs=16000
refseq=$(random_seq 3000 81)
printf '>chr1\n%s\n' "$refseq" >"$tmp/ref.fa"
# Pairs facing each other 300 bp apart, 150 bp reads with a few substitutions.
awk -v n="$pairs" -v ref="$refseq" -v r1="$tmp/r1.fq" -v r2="$tmp/r2.fq" 'BEGIN {
	srand(82); q = sprintf("%150s", ""); gsub(/ /, "I", q)
	c["A"] = "T"; c["C"] = "G"; c["G"] = "C"; c["T"] = "A"
	for (i = 0; i < n; i++) {
		s = 1 + int(rand() * (length(ref) - 450)); a = substr(ref, s, 150)
		b = substr(ref, s + 300, 150); rb = ""
		for (k = 150; k > 0; k--) rb = rb c[substr(b, k, 1)]
		p = 1 + int(rand() * 150); a = substr(a, 1, p - 1) "N" substr(a, p + 1)
		printf "@p%d/1\n%s\n+\n%s\n", i, a, q >r1
		printf "@p%d/2\n%s\n+\n%s\n", i, rb, q >r2
	} }'
gzip -c "$tmp/r1.fq" >"$tmp/r1.fq.gz"
gzip -c "$tmp/r2.fq" >"$tmp/r2.fq.gz"
check "R1 inflates to several 1 MiB blocks" test "$(stat -c %s "$tmp/r1.fq")" -gt $((4 << 20))

run "$SCANMAP" map -t 2 "$tmp/ref.fa" "$tmp/r1.fq" "$tmp/r2.fq"
expect_status 0 "plain pair"
grep -v '^@PG' "$tmp/out" >"$tmp/plain.sam"
check "plain pair: every read written" test "$(grep -vc '^@' "$tmp/plain.sam")" -eq $((2 * pairs))
for t in 1 2; do
	run "$SCANMAP" map -t $t "$tmp/ref.fa" "$tmp/r1.fq.gz" "$tmp/r2.fq.gz"
	expect_status 0 "gzip pair, -t $t"
	check "gzip pair, -t $t: same SAM as the plain pair" cmp -s <(grep -v '^@PG' "$tmp/out") "$tmp/plain.sam"
done
run bash -c "'$SCANMAP' map -t 2 '$tmp/ref.fa' - '$tmp/r2.fq.gz' <'$tmp/r1.fq.gz'"
expect_status 0 "gzip R1 on stdin"
check "gzip R1 on stdin: same SAM" cmp -s <(grep -v '^@PG' "$tmp/out") "$tmp/plain.sam"

# Files of different lengths: the message names both files and the record.
head -n $((4 * (pairs - 1000))) "$tmp/r2.fq" | gzip -c >"$tmp/short.fq.gz"
run "$SCANMAP" map -t 2 -o "$tmp/out.sam" "$tmp/ref.fa" "$tmp/r1.fq.gz" "$tmp/short.fq.gz"
expect_failure "R2 shorter than R1"
expect_err "$tmp/short.fq.gz has fewer reads than $tmp/r1.fq.gz: read pairs out of sync at record $((pairs - 999))" \
	"R2 shorter: message names the files and the record"
check "R2 shorter: output removed" test ! -e "$tmp/out.sam"
run "$SCANMAP" map -t 2 "$tmp/ref.fa" "$tmp/short.fq.gz" "$tmp/r1.fq.gz"
expect_failure "R1 shorter than R2"
expect_err "$tmp/short.fq.gz has fewer reads than $tmp/r1.fq.gz: read pairs out of sync at record $((pairs - 999))" \
	"R1 shorter: message names the files and the record"

# A cut gzip file: the error names it and a line (test_fastq checks which).
size=$(stat -c %s "$tmp/r2.fq.gz")
head -c $((size * 3 / 5)) "$tmp/r2.fq.gz" >"$tmp/cut.fq.gz"
run "$SCANMAP" map -t 2 -o "$tmp/out.sam" "$tmp/ref.fa" "$tmp/r1.fq.gz" "$tmp/cut.fq.gz"
expect_failure "cut R2"
expect_err "$tmp/cut.fq.gz: line " "cut R2: message names the file and a line"
expect_err "truncated gzip file" "cut R2: message says truncated gzip"
check "cut R2: output removed" test ! -e "$tmp/out.sam"
run "$SCANMAP" map -t 2 "$tmp/ref.fa" "$tmp/cut.fq.gz" "$tmp/r2.fq.gz"
expect_failure "cut R1"
expect_err "$tmp/cut.fq.gz: line " "cut R1: message names the file"

# A wrong CRC in the gzip trailer is found only at the end of the stream.
cp "$tmp/r2.fq.gz" "$tmp/crc.fq.gz"
printf '\x00\x00\x00\x00' | dd of="$tmp/crc.fq.gz" bs=1 seek=$((size - 8)) conv=notrunc 2>/dev/null
run "$SCANMAP" map -t 2 "$tmp/ref.fa" "$tmp/r1.fq.gz" "$tmp/crc.fq.gz"
expect_failure "bad CRC in R2"
expect_err "$tmp/crc.fq.gz: line " "bad CRC: message names the file and a line"
expect_err "corrupt gzip data: incorrect data check" "bad CRC: message says corrupt gzip data"

finish
