#!/usr/bin/env bash
# equal_copies.sh — a perfect read whose equal copy seeding leaves out of view must not claim a
# placement: it is a tie, MAPQ 0 (docs/seeded.md, "Equal copies out of view").
#
# A reference made here (awk, fixed Park-Miller generator): random background; a 150 bp unit
# P + Q (P 100 bp, Q 50 bp); 40 copies of P alone, so that P's k-mers have more hits than
# --max-occ 12 and are skipped; then copy A of P + Q, nine copies of P' + Q, each P' with one
# substitution of its own (AS 145 for a read of the unit), and copy B of P + Q last; 2 kbp of
# background between all. Q's k-mers, in eleven copies, are kept, so every copy's cluster has the
# same votes and the 8 windows (--max-windows' default) are the first 8 by position: A and seven
# near copies in view, B left out. B scores as well as A, so a MAPQ of 20 (what AS 150 against
# XS 145 gives) would claim a placement that is a coin toss: the exact-copy look-up finds B, a tie
# (MAPQ 0), as with B in view (--max-windows 16). Checks the unit's read on both strands with
# --completion weak and all.
source "$(dirname "$0")/common.bash"

awk -v out="$WORK" "$AWK_SEQ"'
BEGIN {
	seed = 20261126
	P = randseq(100); Q = randseq(50)
	g = randseq(2000)
	for (c = 0; c < 40; c++) g = g P randseq(2000)
	a = length(g); g = g P Q randseq(2000)
	for (c = 0; c < 9; c++) g = g sub1(P, 8 + 8 * c) Q randseq(2000)
	b = length(g); g = g P Q randseq(2000)
	fasta(out "/ref.fa", "chrE", g)
	q = ""; for (i = 0; i < 150; i++) q = q "I"
	comp["A"] = "T"; comp["C"] = "G"; comp["G"] = "C"; comp["T"] = "A"
	r = P Q; t = ""; for (i = 150; i >= 1; i--) t = t comp[substr(r, i, 1)]
	printf "@f_%d_%d\n%s\n+\n%s\n@r_%d_%d\n%s\n+\n%s\n", a + 1, b + 1, r, q, a + 1, b + 1, t, q > (out "/reads.fq")
}'

# check SAM MAXQ: every read at copy A or B with AS 150 and MAPQ at most MAXQ; prints "bad" lines.
check() {
	awk -F'\t' -v maxq="$2" '!/^@/ && !and($2, 0x900) {
		split($1, f, "_")
		as = 0; for (i = 12; i <= NF; i++) if ($i ~ /^AS:i:/) as = substr($i, 6) + 0
		if (($4 != f[2] && $4 != f[3]) || as != 150 || $5 > maxq)
			print $1 " at " $4 " AS " as " MAPQ " $5
	}' "$1"
}

for how in weak all; do
	"$SCANMAP" map --mode seeded --max-occ 12 --completion $how "$WORK/ref.fa" "$WORK/reads.fq" \
		>"$WORK/$how.sam" 2>"$WORK/$how.err" || { cat "$WORK/$how.err" >&2; fail "scanmap ($how) failed"; }
	bad=$(check "$WORK/$how.sam" 0)
	[ -z "$bad" ] || fail "--completion $how, the equal copy out of view: $bad"
	note "--completion $how: both strands on an exact copy, MAPQ 0 with the other out of view"
done
"$SCANMAP" map --mode seeded --max-occ 12 --max-windows 16 "$WORK/ref.fa" "$WORK/reads.fq" \
	>"$WORK/wide.sam" 2>/dev/null || fail "scanmap (--max-windows 16) failed"
bad=$(check "$WORK/wide.sam" 0)
[ -z "$bad" ] || fail "--max-windows 16, both copies in view: $bad"
note "--max-windows 16: both copies in view, MAPQ 0"
