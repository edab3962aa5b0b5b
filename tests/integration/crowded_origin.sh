#!/usr/bin/env bash
# crowded_origin.sh — a divergent read whose origin has fewer exact k-mers than many repeat
# copies that align far worse: the completion pass ranks candidates by the bound of their
# k-mer support, so by bound alone the rounds can all go to the copies and leave the origin
# unscanned; some of the windows it scans now are the candidates whose diagonals hold the best
# ungapped alignment (complete.c, choose_by_diagonal), which reaches the origin in the first round.
#
# Reference (awk, fixed Park-Miller generator), per read (six, alternating strands), a random
# 150 bp unit U:
#   decoys:   60 copies of U with bases 31-54, 85-108 and 139-150 random (exact runs of 30
#             spread over the read on one diagonal: more k-mer support than the origin, a
#             higher bound; AS 30-36, one run, the random blocks too long to bridge);
#   origin O: after them, U with a substitution at every 8th base from the 4th outside bases
#             61-84 (one exact run of 24, where a minimizer is sure; AS 70).
# With --max-occ 1000 --max-windows 2 the first pass keeps two decoys; the completion (8 windows
# a round, three rounds) ranks the other 58 above the origin by bound.
# Checks: every read's primary at its origin with AS 70 and MAPQ below 20 (decoys it never
# scanned still bound above it). The tree before choose_by_diagonal leaves 5 of the 6 at decoys
# (AS 31-36, split into supplementary parts).
source "$(dirname "$0")/common.bash"

awk -v out="$WORK" "$AWK_SEQ"'
BEGIN {
	seed = 20261128
	g = randseq(2000)
	for (k = 0; k < 6; k++) {
		u = randseq(150)
		o = u
		for (p = 4; p <= 148; p += 8) if (p < 61 || p > 84) o = sub1(o, p)
		for (c = 0; c < 60; c++)
			g = g substr(u, 1, 30) randseq(24) substr(u, 55, 30) randseq(24) substr(u, 109, 30) \
			    randseq(12) randseq(300)
		at = length(g) + 1
		g = g o randseq(2000)
		printf "@r%d_%d\n%s\n+\n%s\n", k, at, (k % 2 ? rc(u) : u), quals(150) > (out "/reads.fq")
	}
	fasta(out "/ref.fa", "chrT", g)
}'

"$SCANMAP" map --mode seeded --max-occ 1000 --max-windows 2 "$WORK/ref.fa" "$WORK/reads.fq" \
	>"$WORK/out.sam" 2>"$WORK/out.err" || { cat "$WORK/out.err" >&2; fail "scanmap failed"; }
bad=$(awk -F'\t' '!/^@/ && !and($2, 0x900) {
	as = 0; for (i = 12; i <= NF; i++) if ($i ~ /^AS:i:/) as = substr($i, 6) + 0
	split($1, x, "_")
	if ($4 != x[2] || as != 70 || $5 >= 20) print $1 " at " $4 " AS " as " MAPQ " $5 " FLAG " $2
	n++
} END { if (n != 6) print n " primary records, not 6" }' "$WORK/out.sam")
[ -z "$bad" ] || fail "not every read at its origin with AS 70 and MAPQ below 20: $bad"
note "every read at its origin (AS 70, MAPQ below 20) past 60 better-supported decoys"
