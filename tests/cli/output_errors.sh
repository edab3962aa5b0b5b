#!/usr/bin/env bash
# output_errors.sh — a failed write fails the run loudly (non-zero exit, message),
# whether it happens at the header, at a record or at the final close; a failed
# run leaves no output file that looks complete.
source "$(dirname "$0")/lib.bash"

refseq=$(random_seq 2000 21)
printf '>chr1\n%s\n' "$refseq" >"$tmp/ref.fa"
fastq_record one "${refseq:500:80}" >"$tmp/one.fq"
for ((k = 0; k < 400; k++)); do
	fastq_record "r$k" "${refseq:$((k * 3)):100}"
done >"$tmp/many.fq"
if [[ ! -w /dev/full ]]; then
	echo "skip: no writable /dev/full"
	exit 77
fi
ln -s /dev/full "$tmp/full.bam"
ln -s /dev/full "$tmp/full.sam"

run "$SCANMAP" map -o /dev/full "$tmp/ref.fa" "$tmp/one.fq"
expect_failure "-o /dev/full"
expect_err "No space left on device" "-o /dev/full: message"

bash -c "'$SCANMAP' map '$tmp/ref.fa' '$tmp/many.fq' >/dev/full 2>'$tmp/err'"
status=$?
expect_failure "SAM on stdout to /dev/full"
expect_err "standard output" "stdout to /dev/full: message names standard output"

# One small SAM record: header and record stay in the writer's buffer until
# the close, whose failure is reported as such.
run "$SCANMAP" map -o "$tmp/full.sam" "$tmp/ref.fa" "$tmp/one.fq"
expect_failure "SAM to a full disk, failing at close"
expect_err "the output is incomplete" "SAM close failure: message"

# One small BAM record: everything stays in htslib's buffer until the close.
run "$SCANMAP" map -o "$tmp/full.bam" "$tmp/ref.fa" "$tmp/one.fq"
expect_failure "BAM to a full disk, failing at close"
expect_err "the output is incomplete" "BAM close failure: message"

# Many records: a record write fails.
run "$SCANMAP" map -o "$tmp/full.bam" "$tmp/ref.fa" "$tmp/many.fq"
expect_failure "BAM to a full disk, failing at a record"
run "$SCANMAP" map -o "$tmp/full.sam" "$tmp/ref.fa" "$tmp/many.fq"
expect_failure "SAM file to a full disk"
check "the device behind the link is left alone" test -c /dev/full

run "$SCANMAP" map -o "$tmp/no/such/dir/out.sam" "$tmp/ref.fa" "$tmp/one.fq"
expect_failure "output in a missing directory"
expect_err "no/such/dir/out.sam" "missing directory: message names the output"

# A run that fails on its input removes the output it had started.
cp "$tmp/many.fq" "$tmp/bad.fq"
printf '@bad\nACGTACGT\n+\nIIII\n' >>"$tmp/bad.fq"
for ext in sam bam; do
	echo stale >"$tmp/out.$ext"
	run "$SCANMAP" map -o "$tmp/out.$ext" "$tmp/ref.fa" "$tmp/bad.fq"
	expect_failure "bad input with -o out.$ext"
	expect_err "out.$ext not written: the run failed" "bad input: failure reported ($ext)"
	check "bad input: out.$ext (stale) removed, no temporary file" bash -c "! compgen -G '$tmp/*out.$ext*'"
done

# An output that is one of the inputs is refused before anything is written.
cp "$tmp/one.fq" "$tmp/keep.fq"
run "$SCANMAP" map -o "$tmp/keep.fq" "$tmp/ref.fa" "$tmp/keep.fq"
expect_failure "-o the reads file"
expect_err "would overwrite the input" "-o the reads file: message"
check "-o the reads file: reads untouched" cmp -s "$tmp/keep.fq" "$tmp/one.fq"
run "$SCANMAP" map -o "$tmp/ref.fa" "$tmp/ref.fa" "$tmp/keep.fq"
expect_failure "-o the reference"
check "-o the reference: reference untouched" grep -q '^>chr1' "$tmp/ref.fa"

# The same run with good input succeeds and keeps its output.
run "$SCANMAP" map -o "$tmp/out.bam" "$tmp/ref.fa" "$tmp/many.fq"
expect_status 0 "good input with -o out.bam"
check "out.bam kept" test -s "$tmp/out.bam"

finish
