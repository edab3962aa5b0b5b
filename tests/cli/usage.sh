#!/usr/bin/env bash
# usage.sh — help, version, and every kind of usage error: exit status and message.
source "$(dirname "$0")/lib.bash"

printf '>chr1\n%s\n' "$(random_seq 200 1)" >"$tmp/ref.fa"
fastq_record r1 "$(random_seq 50 2)" >"$tmp/reads.fq"
ref=$tmp/ref.fa
reads=$tmp/reads.fq

run "$SCANMAP"
expect_status 1 "no arguments"
expect_err "Usage: scanmap <command>" "no arguments: usage on stderr"

run "$SCANMAP" --help
expect_status 0 "--help"
expect_out "Usage: scanmap map [options]" "--help shows the map options"
run "$SCANMAP" -h
expect_status 0 "-h"

run "$SCANMAP" map --help
expect_status 0 "map --help"
expect_out "Usage: scanmap map [options] <ref.fa[.gz]> <reads.fq[.gz]>" "map --help: usage line"
# The defaults printed are the live ones.
expect_out "minimum score to output a hit; below it the read is unmapped [30]" "map --help: -T default"
expect_out "match score [1]" "map --help: -A default"
expect_out "mismatch penalty [4]" "map --help: -B default"
expect_out "gap open penalty [6]" "map --help: -O default"
expect_out "includes it, AS does not (bwa mem's -L) [5,5]" "map --help: -L default"
expect_out "gap extension penalty [1]" "map --help: -E default"
expect_out "frequent k-mers beyond are skipped [100000]" "map --help: --max-hits default"
check "map --help prints nothing on stderr" test ! -s "$tmp/err"

run "$SCANMAP" --version
expect_status 0 "--version"
check "--version prints 'scanmap VERSION'" grep -qE '^scanmap [^ ]+$' "$tmp/out"

run "$SCANMAP" frobnicate
expect_status 1 "unknown command"
expect_err "unknown command 'frobnicate'" "unknown command: message"

# usage_error WHAT MESSAGE ARGS...: `scanmap map ARGS...` must exit 1 naming the problem,
# and write nothing on stdout.
usage_error() {
	local what=$1 msg=$2
	shift 2
	run "$SCANMAP" map "$@"
	expect_status 1 "$what"
	expect_err "$msg" "$what: message"
	check "$what: no output" test ! -s "$tmp/out"
}

usage_error "no files" "expected <ref.fa> and <reads.fq>"
usage_error "one file" "expected <ref.fa> and <reads.fq>" "$ref"
usage_error "four files" "unexpected argument 'extra'" "$ref" "$reads" "$reads" extra
usage_error "-p with two reads files" "-p (interleaved pairs) takes one reads file" -p "$ref" "$reads" "$reads"
usage_error "unknown short option" "unknown option '-Z'" -Z "$ref" "$reads"
usage_error "unknown long option" "unknown option '--frob'" --frob "$ref" "$reads"
usage_error "missing value" "option '-t' needs a value" "$ref" "$reads" -t
usage_error "-t 0" "-t (threads) must be between 1 and" -t 0 "$ref" "$reads"
usage_error "-t not a number" "-t expects an integer (got 'two')" -t two "$ref" "$reads"
usage_error "-t 1x" "-t expects an integer (got '1x')" -t 1x "$ref" "$reads"
usage_error "-A 0" "-A (match score) must be between 1 and 100" -A 0 "$ref" "$reads"
usage_error "-B 101" "-B (mismatch penalty) must be between 1 and 100" -B 101 "$ref" "$reads"
usage_error "-O -1" "-O (gap open penalty) must be between 0 and 100" -O -1 "$ref" "$reads"
usage_error "-E 0" "-E (gap extension penalty) must be between 1 and 100" -E 0 "$ref" "$reads"
usage_error "-T 0" "-T (minimum score) must be between 1 and" -T 0 "$ref" "$reads"
usage_error "-T huge" "-T: '99999999999999999999' is out of range" -T 99999999999999999999 "$ref" "$reads"
usage_error "-v -1" "-v (verbosity) must be between 0 and 4" -v -1 "$ref" "$reads"
usage_error "--engine bad" "--engine: unknown value 'fpga'" --engine fpga "$ref" "$reads"
usage_error "--cells bad" "--cells: unknown value '12'" --cells 12 "$ref" "$reads"
usage_error "--cpu-isa bad" "--cpu-isa: unknown value 'neon'" --cpu-isa neon "$ref" "$reads"
usage_error "--max-read-len 0" "--max-read-len must be between 1 and" --max-read-len 0 "$ref" "$reads"
usage_error "--max-hits 0" "--max-hits must be between 1 and" --max-hits 0 "$ref" "$reads"

# Valid boundary values are accepted (and the run succeeds).
run "$SCANMAP" map -v 1 -A 100 -B 100 -O 0 -E 100 -T 1 -t 3 "$ref" "$reads"
expect_status 0 "boundary values accepted"

# A failed run (not a usage error) also exits non-zero, naming the file.
run "$SCANMAP" map "$tmp/missing.fa" "$reads"
expect_failure "missing reference"
expect_err "missing.fa" "missing reference: message names the file"
run "$SCANMAP" map "$ref" "$tmp/missing.fq"
expect_failure "missing reads"
expect_err "missing.fq" "missing reads: message names the file"

finish
