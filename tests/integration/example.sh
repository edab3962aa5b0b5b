#!/usr/bin/env bash
# example.sh — the bundled example, run as a new user would: examples/run.sh
# succeeds and says where the SAM went, and that SAM opens in samtools view,
# sort and index, and passes the checks every test SAM passes.
source "$(dirname "$0")/common.bash"

need_tool samtools samtools
out=$WORK/example.sam
examples/run.sh "$out" >"$WORK/run.out" 2>"$WORK/run.err" || {
	cat "$WORK/run.out" "$WORK/run.err" >&2
	fail "examples/run.sh failed"
}
grep -q "SAM written to $out" "$WORK/run.out" || fail "examples/run.sh did not say where the SAM went"
n_reads=$(awk 'NR % 4 == 1' examples/reads.fq | wc -l)
[[ $(samtools view -c "$out") == "$n_reads" ]] || fail "samtools view counts $(samtools view -c "$out") records, expected $n_reads"
samtools sort -o "$WORK/example.sorted.bam" "$out" || fail "samtools sort failed"
samtools index "$WORK/example.sorted.bam" || fail "samtools index failed"
contig=$(samtools view -H "$out" | awk -F'\t' '$1 == "@SQ" { sub(/^SN:/, "", $2); print $2; exit }')
[[ $(samtools view -c "$WORK/example.sorted.bam" "$contig:1-8000") -gt 0 ]] || fail "region query on the indexed BAM found nothing"
zcat examples/lambda_8k.fa.gz >"$WORK/ref.fa"
sam_checks "$out" "$WORK/ref.fa" "$n_reads"
mapped=$(samtools view -c -F 4 "$out")
((mapped == n_reads)) || fail "only $mapped of $n_reads example reads mapped"
echo "PASS: example mapped ($mapped/$n_reads), samtools view/sort/index accept it"
