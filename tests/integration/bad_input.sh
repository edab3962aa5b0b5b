#!/usr/bin/env bash
# bad_input.sh — one case per kind of bad input (issue 2, item 6): scanmap
# must exit non-zero, say what is wrong naming the file and the record/line,
# and leave no output file that could pass for a complete one.
# (Failed output writes are tested by tests/cli/.)
source "$(dirname "$0")/common.bash"

need_tool samtools samtools

d=$WORK
ref=$d/ref.fa
zcat examples/lambda_8k.fa.gz >"$ref"
good=$d/good.fq
head -n 8 examples/reads.fq >"$good"
r1=$(sed -n 2p "$good")   # a 150 bp read
q1=$(sed -n 4p "$good")
n_cases=0

# expect_fail NAME REF READS NEEDLE...: the run fails, stderr holds every NEEDLE.
expect_fail() {
	local name=$1 r=$2 q=$3 status
	shift 3
	rm -f "$d/out.sam"
	status=0
	"$SCANMAP" map -o "$d/out.sam" "$r" "$q" >"$d/$name.out" 2>"$d/$name.err" || status=$?
	((status != 0)) || fail "$name: exit status 0"
	local needle
	for needle in "$@"; do
		grep -qF -- "$needle" "$d/$name.err" || {
			cat "$d/$name.err" >&2
			fail "$name: the message does not say '$needle'"
		}
	done
	[[ ! -e $d/out.sam ]] || fail "$name: left $d/out.sam behind"
	[[ ! -s $d/$name.out ]] || fail "$name: wrote to stdout although -o was given"
	note "$name: exit $status, $(grep -m1 'error' "$d/$name.err")"
	n_cases=$((n_cases + 1))
}

# --- reads ------------------------------------------------------------------
printf '@r1\n%s\n@r2\n%s\n+\n%s\n' "$r1" "$r1" "$q1" >"$d/missing_plus.fq"
expect_fail missing_plus "$ref" "$d/missing_plus.fq" "$d/missing_plus.fq" "line 3" "record 1" "missing '+'"

printf '@r1\n%s\n+\n%s\n@r2\n%s\n+\n%s\n' "$r1" "$q1" "$r1" "${q1:0:100}" >"$d/length.fq"
expect_fail seq_qual_length "$ref" "$d/length.fq" "$d/length.fq" "line 8" "record 2" "SEQ/QUAL length mismatch"

{ cat "$good"; printf '@r3\n%s\n' "$r1"; } >"$d/truncated.fq"
expect_fail truncated_record "$ref" "$d/truncated.fq" "$d/truncated.fq" "line 10" "record 3" "truncated record"

gzip -c examples/reads.fq >"$d/cut.fq.gz"
truncate -s $(($(stat -c %s "$d/cut.fq.gz") / 2)) "$d/cut.fq.gz"
expect_fail truncated_gzip_reads "$ref" "$d/cut.fq.gz" "$d/cut.fq.gz" "line " "truncated gzip"

printf '@r1\n%s\n+\n%s\n@empty\n\n+\nII\n' "$r1" "$q1" >"$d/zero.fq"
expect_fail zero_length_read_with_qualities "$ref" "$d/zero.fq" "$d/zero.fq" "line 8" "record 2" \
	"0 bases but 2 quality values"

printf '@r1\n%s\n+\n%s\n@r2\nACGT1ACGT\n+\nIIIIIIIII\n' "$r1" "$q1" >"$d/chars.fq"
expect_fail read_bad_characters "$ref" "$d/chars.fq" "$d/chars.fq" "line 6" "record 2" "invalid character '1'"

printf '@r1\n%s\n+\n%s\n' "$r1" "${q1:0:149} " >"$d/qual.fq"
expect_fail qual_bad_characters "$ref" "$d/qual.fq" "$d/qual.fq" "line 4" "record 1" "invalid quality character"

expect_fail reads_missing "$ref" "$d/no-such.fq" "$d/no-such.fq" "No such file"
expect_fail reads_directory "$ref" "$d" "$d"

# --- reference ----------------------------------------------------------------
printf '>a\n>b\nACGTACGT\n' >"$d/noseq.fa"
expect_fail ref_contig_without_sequence "$d/noseq.fa" "$good" "$d/noseq.fa" "line 1" "'a' has no sequence"

: >"$d/empty.fa"
expect_fail ref_empty "$d/empty.fa" "$good" "$d/empty.fa" "no contig"

{ cat "$ref"; printf '>lambda_10001_18000 again\nACGT\n'; } >"$d/dup.fa"
dup_line=$(grep -c '' "$ref")
expect_fail ref_duplicate_names "$d/dup.fa" "$good" "$d/dup.fa" "line $((dup_line + 1))" \
	"duplicate contig name 'lambda_10001_18000'" "first at line 1"

{ head -n 20 "$ref"; echo "ACGTACGT5ACGT"; tail -n +21 "$ref"; } >"$d/chars.fa"
expect_fail ref_bad_characters "$d/chars.fa" "$good" "$d/chars.fa" "line 21" "invalid character '5'"

gzip -c "$ref" >"$d/cut.fa.gz"
truncate -s $(($(stat -c %s "$d/cut.fa.gz") - 20)) "$d/cut.fa.gz"
expect_fail ref_truncated_gzip "$d/cut.fa.gz" "$good" "$d/cut.fa.gz" "truncated gzip"

expect_fail ref_missing "$d/no-such.fa" "$good" "$d/no-such.fa" "No such file"
expect_fail ref_is_fastq "$good" "$good" "$good" "line 1" "text before the first '>'"

# --- an empty reads file is not an error: header-only SAM, exit 0 --------------
: >"$d/empty.fq"
"$SCANMAP" map -o "$d/empty.sam" "$ref" "$d/empty.fq" 2>"$d/empty.err" || fail "empty reads file: non-zero exit"
samtools quickcheck "$d/empty.sam" || fail "empty reads file: samtools quickcheck rejects the SAM"
[[ $(grep -vc '^@' "$d/empty.sam") == 0 && $(grep -c '^@SQ' "$d/empty.sam") == 1 ]] ||
	fail "empty reads file: expected a header-only SAM"
note "empty reads file: header-only SAM, exit 0"

echo "PASS: $n_cases bad inputs rejected with file and line; empty input gives a header-only SAM"
