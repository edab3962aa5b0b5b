#!/usr/bin/env bash
# api_example.sh — examples/example.c, built against the public header
# (mapper/scanmap.h) and the library, maps the bundled example: its records
# (and @SQ lines) equal `scanmap map`'s on the same reads, single-threaded
# and with -t 3.  The API's error paths return without exiting: a missing
# reference and a malformed read fail with a message and status 1.
source "$(dirname "$0")/lib.bash"

example=${EXAMPLE:-build/examples/example}
if [[ ! -x $example ]]; then
	echo "skip: $example is not built (run make)"
	exit 77
fi
ref=examples/lambda_8k.fa.gz
reads=examples/reads.fq

run "$example" "$ref" "$reads"
expect_status 0 "example maps the bundled reads"
grep -v '^@' "$tmp/out" >"$tmp/api.rec"
grep '^@SQ' "$tmp/out" >"$tmp/api.sq"
check "example wrote one record per read" \
	test "$(wc -l <"$tmp/api.rec")" -eq "$(awk 'NR % 4 == 1' "$reads" | wc -l)"
for t in 1 3; do
	run "$SCANMAP" map -v 1 -t $t "$ref" "$reads"
	expect_status 0 "scanmap map -t $t"
	grep -v '^@' "$tmp/out" >"$tmp/cli.rec"
	check "records equal scanmap map -t $t's" cmp "$tmp/api.rec" "$tmp/cli.rec"
	grep '^@SQ' "$tmp/out" >"$tmp/cli.sq"
	check "@SQ lines equal scanmap map -t $t's" cmp "$tmp/api.sq" "$tmp/cli.sq"
done

run "$example" "$tmp/no-such.fa" "$reads"
expect_status 1 "a missing reference fails"
expect_err "no-such.fa" "the error names the reference"
printf '@r1\nACGTXACGT\n+\nIIIIIIIII\n' >"$tmp/bad.fq"
run "$example" "$ref" "$tmp/bad.fq"
expect_status 1 "a read with a non-IUPAC letter fails"
expect_err "'X'" "the error names the letter"
finish
