#!/usr/bin/env bash
# formats.sh — -o picks SAM, BAM or CRAM by extension; all hold the same records;
# gzip inputs give the same output as plain ones; the output is deterministic.
source "$(dirname "$0")/lib.bash"
if ! command -v samtools >/dev/null; then
	echo "skip: samtools is not installed"
	exit 77
fi

refseq=$(random_seq 3000 61)
printf '>chrA\n%s\n>chrB\n%s\n' "${refseq:0:2000}" "${refseq:2000}" >"$tmp/ref.fa"
for ((k = 0; k < 60; k++)); do
	s=${refseq:$((k * 45)):90}
	((k % 2)) && s=$(revcomp "$s")
	((k % 10 == 3)) && s=$(random_seq 90 $((100 + k)))
	fastq_record "q$k" "$s"
done >"$tmp/reads.fq"
gzip -c "$tmp/ref.fa" >"$tmp/ref.fa.gz"
gzip -c "$tmp/reads.fq" >"$tmp/reads.fq.gz"
cp "$tmp/ref.fa" "$tmp/cram_ref.fa"

run "$SCANMAP" map "$tmp/ref.fa" "$tmp/reads.fq"
expect_status 0 "SAM to stdout"
grep -v '^@PG' "$tmp/out" >"$tmp/stdout.sam"
# CRAM regenerates MD and NM and puts them last: compare records with sorted tags.
sort_tags() {
	awk -F '\t' -v OFS='\t' '{
		n = 0
		for (i = 12; i <= NF; i++) {
			t = $i
			for (j = n; j > 0 && tag[j] > t; j--) tag[j + 1] = tag[j]
			tag[j + 1] = t
			n++
		}
		s = $1
		for (i = 2; i <= 11; i++) s = s OFS $i
		for (i = 1; i <= n; i++) s = s OFS tag[i]
		print s
	}'
}
grep -v '^@' "$tmp/out" | sort_tags >"$tmp/records.sam"
check "60 records" test "$(wc -l <"$tmp/records.sam")" = 60

for ext in sam bam cram SAM BAM; do
	ref=$tmp/ref.fa
	[[ $ext == cram ]] && ref=$tmp/cram_ref.fa
	run "$SCANMAP" map -o "$tmp/out.$ext" "$ref" "$tmp/reads.fq"
	expect_status 0 "-o out.$ext"
	check "out.$ext: samtools quickcheck" samtools quickcheck "$tmp/out.$ext"
	samtools view -T "$ref" "$tmp/out.$ext" | sort_tags >"$tmp/view.sam"
	check "out.$ext: same records as the SAM on stdout" cmp -s "$tmp/view.sam" "$tmp/records.sam"
done
check "BAM magic" bash -c "gzip -dc '$tmp/out.bam' | head -c 4 | grep -q BAM"
check "CRAM magic" bash -c "head -c 4 '$tmp/out.cram' | grep -q CRAM"
check "SAM is text" bash -c "head -c 3 '$tmp/out.sam' | grep -q '@HD'"

# --compression-level: BAM and CRAM at levels 0-9, the same records; SAM ignores it.
for level in 0 9; do
	run "$SCANMAP" map --compression-level $level -o "$tmp/level$level.bam" "$tmp/ref.fa" "$tmp/reads.fq"
	expect_status 0 "--compression-level $level"
	samtools view "$tmp/level$level.bam" | sort_tags >"$tmp/view.sam"
	check "BAM at level $level: same records" cmp -s "$tmp/view.sam" "$tmp/records.sam"
done
check "BAM at level 0 larger than at level 9" \
	test "$(wc -c <"$tmp/level0.bam")" -gt "$(wc -c <"$tmp/level9.bam")"
run "$SCANMAP" map --compression-level 1 -o "$tmp/level1.cram" "$tmp/cram_ref.fa" "$tmp/reads.fq"
expect_status 0 "--compression-level 1, CRAM"
samtools view -T "$tmp/cram_ref.fa" "$tmp/level1.cram" | sort_tags >"$tmp/view.sam"
check "CRAM at level 1: same records" cmp -s "$tmp/view.sam" "$tmp/records.sam"
run "$SCANMAP" map --compression-level 1 "$tmp/ref.fa" "$tmp/reads.fq"
expect_status 0 "--compression-level with SAM"
check "SAM: the level ignored" cmp -s <(grep -v '^@PG' "$tmp/out") "$tmp/stdout.sam"
run "$SCANMAP" map --compression-level 10 -o "$tmp/level10.bam" "$tmp/ref.fa" "$tmp/reads.fq"
expect_status 1 "--compression-level 10"
expect_err "--compression-level must be between 0 and 9" "--compression-level 10: the range named"
check "--compression-level 10: no output file" test ! -e "$tmp/level10.bam"

run "$SCANMAP" map "$tmp/ref.fa.gz" "$tmp/reads.fq.gz"
expect_status 0 "gzip reference and reads"
grep -v '^@' "$tmp/out" | sort_tags >"$tmp/view.sam"
check "gzip inputs: same records" cmp -s "$tmp/view.sam" "$tmp/records.sam"

# A CRAM against a gzip (not bgzip) reference cannot use it: reference-free CRAM.
run "$SCANMAP" map -o "$tmp/gz.cram" "$tmp/ref.fa.gz" "$tmp/reads.fq"
expect_status 0 "CRAM with a gzip reference"
expect_err "reference-free CRAM" "CRAM with a gzip reference: warning"
samtools view "$tmp/gz.cram" | sort_tags >"$tmp/view.sam"
check "reference-free CRAM: same records without a reference" cmp -s "$tmp/view.sam" "$tmp/records.sam"

# Reads from standard input.
run bash -c "'$SCANMAP' map '$tmp/ref.fa' - <'$tmp/reads.fq'"
expect_status 0 "reads from stdin"
grep -v '^@' "$tmp/out" | sort_tags >"$tmp/view.sam"
check "stdin: same records" cmp -s "$tmp/view.sam" "$tmp/records.sam"

# Deterministic: the same command twice gives the same bytes (no timestamps).
run "$SCANMAP" map -o "$tmp/again1.bam" "$tmp/ref.fa" "$tmp/reads.fq"
run "$SCANMAP" map -o "$tmp/again2.bam" "$tmp/ref.fa" "$tmp/reads.fq"
check "two runs: identical BAM bytes apart from @PG CL" bash -c \
	"cmp -s <(samtools view -h --no-PG '$tmp/again1.bam' | grep -v '^@PG') <(samtools view -h --no-PG '$tmp/again2.bam' | grep -v '^@PG')"
run "$SCANMAP" map "$tmp/ref.fa" "$tmp/reads.fq"
check "two runs to stdout: identical bytes" bash -c "grep -v '^@PG' '$tmp/out' | cmp -s - '$tmp/stdout.sam'"

finish
