#!/usr/bin/env bash
# An unsure read's MAPQ cap follows its lead over the loci in view (mapper/map_impl.h,
# SM_UNSURE_LEAD). A random reference holds 20 exact copies of a 100 bp element X, each between
# unique flanks. Reads of 150 bp cover one copy of X and 25 bp of unique flank on each side,
# with 5 substitutions in the flanks. With --max-occ 5 X's k-mers are skipped, and the flanks'
# seeds cannot rule out a better locus among X's copies, so the reads are unsure under
# --completion weak. Checks, every read on its origin: under weak, a read with a lead of 6
# substitutions or more over every locus in view (AS - XS >= 30) has MAPQ 19, one with less (a
# copy of X in view) at most 10 (a single-end read), and at least 5 reads are of the first
# kind; under --completion all, which rules X's copies out, every read has MAPQ 20 or more.
# (Unsure reads with a near copy in view: seeded_repeats.sh, seeded_misses.sh.)
source "$(dirname "$0")/common.bash"

awk -v out="$WORK" "$AWK_SEQ"'
function sub_at(s, i,   ch, b) { ch = substr(s, i, 1); b = ch
	while (b == ch) b = substr("ACGT", rnd(4) + 1, 1)
	return substr(s, 1, i - 1) b substr(s, i + 1) }
function fq(name, r,   q, i) { q = ""; for (i = 0; i < length(r); i++) q = q "I"
	printf "@%s\n%s\n+\n%s\n", name, r, q > (out "/reads.fq") }
BEGIN {
	seed = 20261126
	x = randseq(100)
	g = randseq(3000)
	n = 0
	for (c = 0; c < 20; c++) {
		left = randseq(200); right = randseq(200)
		at = length(g) + length(left)          # 0-based start of this copy of X
		g = g left x right
		if (c % 2 == 0) {                      # a read: 25 + X + 25, 5 substitutions
			r = substr(g, at - 25 + 1, 150)
			split("3 10 18 131 143", p, " ")
			for (k = 1; k <= 5; k++) r = sub_at(r, p[k] + 0)
			fq("r" n++ "_" (at - 25 + 1), r)
		}
	}
	g = g randseq(3000)
	fasta(out "/ref.fa", "chrU", g)
}'

for mode in weak all; do
	"$SCANMAP" map --mode seeded --max-occ 5 --completion $mode "$WORK/ref.fa" "$WORK/reads.fq" \
		>"$WORK/$mode.sam" 2>"$WORK/$mode.err" || { cat "$WORK/$mode.err" >&2; fail "scanmap --completion $mode failed"; }
done
check() {   # check MODE AWK-CONDITION-FOR-A-BAD-RECORD WHAT
	local bad
	bad=$(awk -F'\t' '!/^@/ && !and($2, 0x900) {
		split($1, f, "_")
		as = xs = 0
		for (i = 12; i <= NF; i++) {
			if ($i ~ /^AS:i:/) as = substr($i, 6) + 0
			if ($i ~ /^XS:i:/) xs = substr($i, 6) + 0
		}
		if ($4 != f[2] || '"$2"') print $1 " at " $4 " AS " as " XS " xs " MAPQ " $5
	}' "$WORK/$1.sam")
	[ -z "$bad" ] || fail "--completion $1: $3:
$bad"
}
n=$(grep -vc '^@' "$WORK/weak.sam")
[ "$n" -eq 10 ] || fail "$n records for 10 reads"
check weak '(as - xs >= 30 && $5 != 19) || (as - xs < 30 && $5 > 10)' \
	"reads off their origin, not at MAPQ 19 with a lead of 6 substitutions, or above MAPQ 10 with less"
n_lead=$(awk -F'\t' '!/^@/ { as = xs = 0
	for (i = 12; i <= NF; i++) { if ($i ~ /^AS:i:/) as = substr($i, 6) + 0; if ($i ~ /^XS:i:/) xs = substr($i, 6) + 0 }
	n += as - xs >= 30 } END { print n + 0 }' "$WORK/weak.sam")
[ "$n_lead" -ge 5 ] || fail "--completion weak: only $n_lead reads with a lead of 6 substitutions"
check all '$5 < 20' "reads off their origin or below MAPQ 20"
note "--completion weak: $n_lead unsure reads with no near locus in view at MAPQ 19, the other $((10 - n_lead)) at MAPQ <= 10; all: the 10 at MAPQ >= 20"
