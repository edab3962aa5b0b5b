#!/usr/bin/env bash
# gpu_options.sh — --gpu, --gpus and --gpu-tune (docs/cli.md): malformed
# values are refused with the option named; a device that is not there is an
# error naming the option, also with --engine auto (where a machine without a
# GPU would otherwise fall back to the CPU); the CPU engine ignores them and
# writes the same records.  Runs on any machine (GPU device 99 never exists).
source "$(dirname "$0")/lib.bash"

printf '>chr1\n%s\n' "$(random_seq 3000 81)" >"$tmp/ref.fa"
seq=$(random_seq 3000 81)
for i in $(seq 0 9); do fastq_record "r$i" "${seq:i*200:120}"; done >"$tmp/reads.fq"

run "$SCANMAP" map --gpus x "$tmp/ref.fa" "$tmp/reads.fq"
expect_status 1 "--gpus x refused"
expect_err "--gpus: 'x' is not all, a count" "--gpus x: the message says what is accepted"
run "$SCANMAP" map --gpus 0,,1 "$tmp/ref.fa" "$tmp/reads.fq"
expect_status 1 "--gpus 0,,1 refused"
run "$SCANMAP" map --gpu -1 "$tmp/ref.fa" "$tmp/reads.fq"
expect_status 1 "--gpu -1 refused"
run "$SCANMAP" map --gpu-tune slots=99 "$tmp/ref.fa" "$tmp/reads.fq"
expect_status 1 "--gpu-tune slots=99 refused"
expect_err "--gpu-tune: bad value in 'slots=99'" "--gpu-tune: the bad pair named"
run "$SCANMAP" map --gpu-tune speed=1 "$tmp/ref.fa" "$tmp/reads.fq"
expect_err "unknown key 'speed'" "--gpu-tune: an unknown key named"

run "$SCANMAP" map --gpu 99 -o "$tmp/no.sam" "$tmp/ref.fa" "$tmp/reads.fq"
expect_status 1 "--gpu 99 (not present) fails with --engine auto"
expect_err "--gpu(s):" "--gpu 99: the error names the option"
check "--gpu 99: no output written" test ! -e "$tmp/no.sam"
run "$SCANMAP" map --engine gpu --gpus 99,0 "$tmp/ref.fa" "$tmp/reads.fq"
expect_status 1 "--engine gpu --gpus 99,0 fails"

run "$SCANMAP" map --engine cpu "$tmp/ref.fa" "$tmp/reads.fq"
grep -v '^@PG' "$tmp/out" >"$tmp/plain.sam"
run "$SCANMAP" map --engine cpu --gpus 0,0 --gpu-tune slots=2,wait=block "$tmp/ref.fa" "$tmp/reads.fq"
expect_status 0 "--engine cpu ignores --gpus and --gpu-tune"
check "--engine cpu: the same records with GPU options" cmp -s "$tmp/plain.sam" <(grep -v '^@PG' "$tmp/out")
finish
