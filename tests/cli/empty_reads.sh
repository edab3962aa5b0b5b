#!/usr/bin/env bash
# empty_reads.sh — an empty reads file (plain or gzip) gives a header-only SAM and exit 0.
source "$(dirname "$0")/lib.bash"

printf '>chr1\n%s\n>chr2 second contig\n%s\n' "$(random_seq 300 41)" "$(random_seq 120 42)" >"$tmp/ref.fa"
: >"$tmp/empty.fq"
gzip -c "$tmp/empty.fq" >"$tmp/empty.fq.gz"

for reads in empty.fq empty.fq.gz; do
	run "$SCANMAP" map "$tmp/ref.fa" "$tmp/$reads"
	expect_status 0 "$reads"
	check "$reads: only header lines" bash -c "! grep -qv '^@' '$tmp/out'"
	check "$reads: @HD VN:1.6 SO:unsorted" grep -qxP '@HD\tVN:1.6\tSO:unsorted' "$tmp/out"
	check "$reads: @SQ for each contig" bash -c \
		"[[ \$(grep -P '^@SQ\t' '$tmp/out') == \$(printf '@SQ\tSN:chr1\tLN:300\n@SQ\tSN:chr2\tLN:120') ]]"
	check "$reads: @PG with ID, PN, VN and CL" \
		grep -qP "^@PG\tID:scanmap\tPN:scanmap\tVN:[^\t]+\tCL:$SCANMAP map " "$tmp/out"
	check "$reads: summary counts 0 reads" grep -qF "] 0 reads, 0 mapped" "$tmp/err"
done
run "$SCANMAP" map -o "$tmp/empty.bam" "$tmp/ref.fa" "$tmp/empty.fq"
expect_status 0 "empty reads to BAM"
if command -v samtools >/dev/null; then
	check "empty BAM passes samtools quickcheck" samtools quickcheck "$tmp/empty.bam"
	check "empty BAM has no records" test "$(samtools view -c "$tmp/empty.bam")" = 0
fi

finish
