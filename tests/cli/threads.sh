#!/usr/bin/env bash
# threads.sh — the output is the same whatever -t (several batches in flight)
# and batch size (-K), records come in input order, one primary per read.
source "$(dirname "$0")/lib.bash"

refseq=$(random_seq 3000 31)
printf '>chr1\n%s\n>chr2\n%s\n' "${refseq:0:1800}" "${refseq:1800}" >"$tmp/ref.fa"
n_reads=1100
awk -v ref="$refseq" -v n="$n_reads" 'BEGIN {
	srand(32)
	for (k = 0; k < n; k++) {
		len = 40 + int(rand() * 80)
		s = substr(ref, 1 + int(rand() * (length(ref) - len)), len)
		if (k % 5 == 0) s = substr(s, 1, 10) "T" substr(s, 12)
		if (k % 13 == 0) { t = ""; for (i = 0; i < len; i++) t = t substr("ACGT", 1 + int(rand() * 4), 1); s = t }
		q = ""; for (i = 0; i < length(s); i++) q = q "I"
		printf "@read%d comment\n%s\n+\n%s\n", k, s, q
	} }' >"$tmp/reads.fq"

for t in 1 2 3; do
	run "$SCANMAP" map -t "$t" "$tmp/ref.fa" "$tmp/reads.fq"
	expect_status 0 "-t $t"
	grep -v '^@PG' "$tmp/out" >"$tmp/t$t.sam"
done
check "-t 1 and -t 2 give identical SAM" cmp -s "$tmp/t1.sam" "$tmp/t2.sam"
check "-t 1 and -t 3 give identical SAM" cmp -s "$tmp/t1.sam" "$tmp/t3.sam"
# -K: batches of one read (-K 1) and of a few (-K 500) instead of 256.
for k in 1 500; do
	run "$SCANMAP" map -t 3 -K "$k" -v 4 "$tmp/ref.fa" "$tmp/reads.fq"
	expect_status 0 "-K $k"
	check "-t 3 -K $k gives identical SAM" cmp -s "$tmp/t1.sam" <(grep -v '^@PG' "$tmp/out")
done
# (reads across the two contigs' junction are split reads: their supplementary
# records, 0x800, follow their primary)
check "one primary record per read, in input order, names cut at the space" bash -c \
	"grep -v '^@' '$tmp/t2.sam' | awk -F '\t' '!and(\$2, 2048)' | cut -f1 | diff -q - <(seq 0 $((n_reads - 1)) | sed 's/^/read/') >/dev/null"
check "summary line on stderr" grep -qE "\] $n_reads reads, [0-9]+ mapped" "$tmp/err"

finish
