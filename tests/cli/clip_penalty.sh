#!/usr/bin/env bash
# clip_penalty.sh — -L (bwa mem's clipping penalty): reads with a mismatch
# near an end keep that end under the default 5,5 and clip it under -L 0;
# a small bonus still clips, one end's bonus alone keeps only that end; AS
# leaves the bonus out; -L 0 equals -L 0,0 byte for byte (plain local
# alignment: tests/integration/optimal_scores.sh checks it against water),
# -L 5 equals -L 5,5 and the default; every CPU instruction set and the
# oracle write the same records; bad values are refused.
source "$(dirname "$0")/lib.bash"

comp() { printf '%s\n' "$1" | tr ACGT TGCA; }

c=$(random_seq 2000 71)
printf '>chr1\n%s\n' "$c" >"$tmp/ref.fa"
# 100 bp reads at chr1:301-400; a mismatch (complemented base) at 0-based
# read position 2 (end5), 97 (end3), both (both), 1 (near1).
r=${c:300:100}
mut() { local s=$1 p; shift; for p in "$@"; do s=${s:0:p}$(comp "${s:p:1}")${s:p+1}; done; printf '%s' "$s"; }
{
	fastq_record end5 "$(mut "$r" 2)"
	fastq_record end3 "$(mut "$r" 97)"
	fastq_record both "$(mut "$r" 2 97)"
	fastq_record near1 "$(mut "$r" 1)"
	fastq_record exact "$r"
	fastq_record rev "$(revcomp "$(mut "$r" 2)")"
} >"$tmp/reads.fq"

# map NAME OPTIONS...: records of a run, without the header
map() {
	local name=$1
	shift
	"$SCANMAP" map "$@" "$tmp/ref.fa" "$tmp/reads.fq" >"$tmp/$name.sam" 2>"$tmp/$name.err" ||
		{ cat "$tmp/$name.err" >&2; fail "$name: scanmap failed"; }
	grep -v '^@' "$tmp/$name.sam" >"$tmp/$name.body"
}
# expect RUN READ "CIGAR AS" WHAT
expect() {
	local got
	got=$(awk -F '\t' -v n="$2" '$1 == n { as = ""; for (i = 12; i <= NF; i++) if ($i ~ /^AS:i:/) as = substr($i, 6);
		print $6, as }' "$tmp/$1.body")
	if [[ $got == "$3" ]]; then pass "$1 $2: $4 ($3)"; else fail "$1 $2: $4: got '$got', want '$3'"; fi
}

map default
map l55 -L 5,5
map l5 -L 5
map l0 -L 0
map l00 -L 0,0
map l1 -L 1
map l50 -L 5,0
map l05 -L 0,5

expect default end5 "100M 95" "the default keeps the 5' end"
expect default end3 "100M 95" "the default keeps the 3' end"
expect default both "100M 90" "the default keeps both ends"
expect default exact "100M 100" "AS leaves the bonuses out"
expect default rev "100M 95" "reverse strand keeps its end"
expect l0 end5 "3S97M 97" "-L 0 clips the 5' end"
expect l0 end3 "97M3S 97" "-L 0 clips the 3' end"
expect l0 both "3S94M3S 94" "-L 0 clips both ends"
expect l0 rev "3S97M 97" "-L 0 clips the reverse read's end (its 3' end, on the left)"
expect l1 near1 "2S98M 98" "-L 1 is too small to keep a mismatch at base 1"
expect default near1 "100M 95" "the default keeps it"
expect l50 both "97M3S 92" "-L 5,0 keeps the 5' end only"
expect l05 both "3S97M 92" "-L 0,5 keeps the 3' end only"
check "-L 0 equals -L 0,0 byte for byte" cmp -s "$tmp/l0.body" "$tmp/l00.body"
check "-L 5 equals -L 5,5" cmp -s "$tmp/l5.body" "$tmp/l55.body"
check "-L 5,5 is the default" cmp -s "$tmp/l55.body" "$tmp/default.body"
check "the header's @PG records -L" grep -q -- "-L 5,0" "$tmp/l50.sam"

for isa in scalar sse41 avx2 avx512; do
	if "$SCANMAP" map --engine cpu --cpu-isa "$isa" "$tmp/ref.fa" "$tmp/reads.fq" >"$tmp/isa.sam" 2>"$tmp/isa.err"; then
		grep -v '^@' "$tmp/isa.sam" >"$tmp/isa.body"
		check "--cpu-isa $isa writes the default's records" cmp -s "$tmp/isa.body" "$tmp/default.body"
	else
		echo "skip --cpu-isa $isa: $(tail -1 "$tmp/isa.err")"
	fi
done
map oracle --engine oracle
check "the oracle engine writes the default's records" cmp -s "$tmp/oracle.body" "$tmp/default.body"
map oracle0 --engine oracle -L 0
check "the oracle engine with -L 0 writes -L 0's records" cmp -s "$tmp/oracle0.body" "$tmp/l0.body"

run "$SCANMAP" map -L -1 "$tmp/ref.fa" "$tmp/reads.fq"
expect_failure "-L -1 is refused"
expect_err "-L" "the message names -L"
run "$SCANMAP" map -L 127 "$tmp/ref.fa" "$tmp/reads.fq"
expect_failure "-L 127 is refused with -A 1 (127 - A at most)"
run "$SCANMAP" map -L 126,126 "$tmp/ref.fa" "$tmp/reads.fq"
expect_status 0 "-L 126,126 is accepted with -A 1"
run "$SCANMAP" map -L 5,x "$tmp/ref.fa" "$tmp/reads.fq"
expect_failure "-L 5,x is refused"
finish
