#!/usr/bin/env bash
# trace.sh — SCANMAP_TRACE=FILE (io/trace.h): the output is the same with
# and without it; the file holds one span per line (thread, what, start,
# end) from the reader, the inflate threads, every worker and the writer; a
# trace that cannot be written is a warning, not a failed run.
source "$(dirname "$0")/lib.bash"

refseq=$(random_seq 4000 41)
printf '>chr1\n%s\n' "$refseq" >"$tmp/ref.fa"
awk -v ref="$refseq" 'BEGIN {
	srand(42)
	for (k = 0; k < 600; k++) {
		s = substr(ref, 1 + int(rand() * 3800), 100)
		q = ""; for (i = 0; i < 100; i++) q = q "I"
		printf "@r%d\n%s\n+\n%s\n", k, s, q
	} }' | gzip >"$tmp/reads.fq.gz"

run "$SCANMAP" map -t 2 "$tmp/ref.fa" "$tmp/reads.fq.gz"
expect_status 0 "without a trace"
grep -v '^@PG' "$tmp/out" >"$tmp/plain.sam"
SCANMAP_TRACE=$tmp/trace.tsv run "$SCANMAP" map -t 2 "$tmp/ref.fa" "$tmp/reads.fq.gz"
expect_status 0 "with SCANMAP_TRACE"
grep -v '^@PG' "$tmp/out" >"$tmp/traced.sam"
check "the same SAM with and without a trace" cmp -s "$tmp/plain.sam" "$tmp/traced.sam"
check "every line: thread, what, start <= end" awk -F '\t' \
	'NF != 4 || $3 + 0 > $4 + 0 || $3 < 0 { bad = 1 } END { exit bad || NR == 0 }' "$tmp/trace.tsv"
for thread in reader writer "worker 0" "worker 1" "inflate 1"; do
	check "spans of thread '$thread'" grep -q "^$thread	" "$tmp/trace.tsv"
done
check "workers' phases are spans" grep -q "^worker [01]	exhaustive	" "$tmp/trace.tsv"
check "the set-up is a span" grep -q "	set-up	" "$tmp/trace.tsv"
check "the reader's batches are spans" grep -q "^reader	read batch	" "$tmp/trace.tsv"

SCANMAP_TRACE=$tmp/no/such/dir/trace.tsv run "$SCANMAP" map -t 2 "$tmp/ref.fa" "$tmp/reads.fq.gz"
expect_status 0 "a trace that cannot be written"
check "... is a warning naming the file" grep -q "cannot write the trace to $tmp/no/such/dir/trace.tsv" "$tmp/err"
grep -v '^@PG' "$tmp/out" >"$tmp/untraced.sam"
check "... and the SAM is whole" cmp -s "$tmp/plain.sam" "$tmp/untraced.sam"

finish
