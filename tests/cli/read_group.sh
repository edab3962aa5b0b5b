#!/usr/bin/env bash
# read_group.sh — -R: the @RG header line and RG:Z on every record; bad lines refused.
source "$(dirname "$0")/lib.bash"

refseq=$(random_seq 400 11)
printf '>chr1\n%s\n' "$refseq" >"$tmp/ref.fa"
{
	fastq_record hit "${refseq:100:60}"
	fastq_record nohit "$(random_seq 60 12)"
} >"$tmp/reads.fq"

run "$SCANMAP" map -R '@RG\tID:grp1\tSM:sample\tPL:ILLUMINA' "$tmp/ref.fa" "$tmp/reads.fq"
expect_status 0 "-R with \\t escapes"
check "@RG header line with real tabs" grep -qxP '@RG\tID:grp1\tSM:sample\tPL:ILLUMINA' "$tmp/out"
check "@RG comes after @SQ and before @PG" \
	bash -c "grep '^@' '$tmp/out' | cut -c1-3 | tr '\n' ' ' | grep -qx '@HD @SQ @RG @PG '"
check "every record (mapped or not) has RG:Z:grp1" \
	bash -c "grep -v '^@' '$tmp/out' | awk '!/\tRG:Z:grp1(\t|\$)/ { bad = 1 } END { exit bad || NR != 2 }'"

run "$SCANMAP" map -R "$(printf '@RG\tID:x2\tSM:s')" "$tmp/ref.fa" "$tmp/reads.fq"
expect_status 0 "-R with real tabs"
check "real tabs kept" grep -qxP '@RG\tID:x2\tSM:s' "$tmp/out"

run "$SCANMAP" map "$tmp/ref.fa" "$tmp/reads.fq"
check "no -R: no @RG line" bash -c "! grep -q '^@RG' '$tmp/out'"
check "no -R: no RG tag" bash -c "! grep -q 'RG:Z:' '$tmp/out'"

# bad_rg WHAT MESSAGE ARG
bad_rg() {
	run "$SCANMAP" map -R "$3" "$tmp/ref.fa" "$tmp/reads.fq"
	expect_status 1 "$1"
	expect_err "$2" "$1: message"
	check "$1: no output" test ! -s "$tmp/out"
}
bad_rg "-R without @RG" "must start with '@RG\\t'" 'ID:foo'
bad_rg "-R with another header type" "must start with '@RG\\t'" '@PG\tID:foo'
bad_rg "-R without ID" "has no ID field" '@RG\tSM:foo'
bad_rg "-R with only @RG" "must start with '@RG\\t'" '@RG'
bad_rg "-R with an empty field" "is not TAG:VALUE" '@RG\tID:foo\t\tSM:x'
bad_rg "-R with an empty ID" "is not TAG:VALUE" '@RG\tID:\tSM:x'
bad_rg "-R with a newline" "control character" "$(printf '@RG\\tID:a\nSM:b')"

finish
