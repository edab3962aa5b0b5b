#!/usr/bin/env bash
# insert_model.sh — -I mean[,std[,max[,min]]], a fixed insert-size model (bwa mem's -I):
# the defaults of the omitted values as bwa's (std mean/10, max/min mean +- 4 std
# rounded, min >= 1); bad values refused naming -I; the estimate logged as the -I
# value that sets it exactly ("insert size model: -I ..."), so that a run with that
# value gives the same records as the estimating run, and a read set mapped in two
# parts with it gives the same records as one run (each part alone would estimate
# its own model).  Reads: 2500 pairs simulated by dwgsim from the bundled lambda
# example (exhaustive mode).
source "$(dirname "$0")/lib.bash"

if ! command -v dwgsim >/dev/null; then
	echo "skip: dwgsim not installed (tests/install-deps.sh installs it)"
	exit 77
fi
zcat examples/lambda_8k.fa.gz >"$tmp/ref.fa"
dwgsim -z 13 -N 2500 -1 150 -2 150 -d 400 -s 40 -e 0.005 -E 0.005 -r 0.001 -y 0 \
	"$tmp/ref.fa" "$tmp/sim" >/dev/null 2>&1 || { echo "dwgsim failed"; exit 1; }
zcat "$tmp/sim.bwa.read1.fastq.gz" >"$tmp/r1.fq"
zcat "$tmp/sim.bwa.read2.fastq.gz" >"$tmp/r2.fq"

# Values and their defaults: the model the log reports.
model_of() {
	run "$SCANMAP" map -t 2 -I "$1" "$tmp/ref.fa" "$tmp/r1.fq" "$tmp/r2.fq"
	expect_status 0 "-I $1"
	expect_err "insert size from -I: $2" "-I $1: $2"
}
model_of 500 "mean 500, sd 50; proper pairs 300..700"
model_of 500,20 "mean 500, sd 20; proper pairs 420..580"
model_of 500,20,650 "mean 500, sd 20; proper pairs 420..650"
model_of 500,20,650,100 "mean 500, sd 20; proper pairs 100..650"
model_of 400.5,10.25,441.6,359.2 "mean 400.5, sd 10.25; proper pairs 359..442"
model_of 10,10 "mean 10, sd 10; proper pairs 1..50"

for bad in abc 500x 500,,50 500,50,600,700 500,50,600,700,1 0 500,-5 500,50,2000000 ""; do
	run "$SCANMAP" map -I "$bad" "$tmp/ref.fa" "$tmp/r1.fq" "$tmp/r2.fq"
	expect_status 1 "-I '$bad' refused"
	expect_err "error: -I" "-I '$bad': the message names -I"
done

# Single reads: -I is accepted and changes nothing.
run "$SCANMAP" map -I 500 "$tmp/ref.fa" "$tmp/r1.fq"
grep -v '^@PG' "$tmp/out" >"$tmp/se_I.sam"
run "$SCANMAP" map "$tmp/ref.fa" "$tmp/r1.fq"
check "single reads: -I changes nothing" cmp -s "$tmp/se_I.sam" <(grep -v '^@PG' "$tmp/out")

# The estimate, logged as an -I value, sets exactly the estimated model.
run "$SCANMAP" map -t 2 "$tmp/ref.fa" "$tmp/r1.fq" "$tmp/r2.fq"
expect_status 0 "estimating run"
grep -v '^@PG' "$tmp/out" >"$tmp/est.sam"
model=$(sed -n 's/.*insert size model: -I \([^ ]*\)$/\1/p' "$tmp/err")
check "estimate logged as an -I value" test -n "$model"
run "$SCANMAP" map -t 2 -I "$model" "$tmp/ref.fa" "$tmp/r1.fq" "$tmp/r2.fq"
expect_status 0 "run with -I $model"
check "-I <logged model> gives the estimating run's records" cmp -s "$tmp/est.sam" <(grep -v '^@PG' "$tmp/out")

# Two parts with that model give the records of one run.
head -n 4000 "$tmp/r1.fq" >"$tmp/a1.fq"
head -n 4000 "$tmp/r2.fq" >"$tmp/a2.fq"
tail -n +4001 "$tmp/r1.fq" >"$tmp/b1.fq"
tail -n +4001 "$tmp/r2.fq" >"$tmp/b2.fq"
: >"$tmp/parts.sam"
for part in a b; do
	run "$SCANMAP" map -I "$model" "$tmp/ref.fa" "$tmp/${part}1.fq" "$tmp/${part}2.fq"
	expect_status 0 "part $part with -I"
	grep -v '^@' "$tmp/out" >>"$tmp/parts.sam"
done
check "two parts with -I give one run's records" cmp -s "$tmp/parts.sam" <(grep -v '^@' "$tmp/est.sam")

finish
