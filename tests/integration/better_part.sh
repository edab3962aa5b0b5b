#!/usr/bin/env bash
# better_part.sh — a single-end read whose split part outscores its primary takes the part's
# locus as its primary (split.c, promote_part): bwa mem's primary is its best alignment, and a
# part that beats the primary shows a locus that the read's own seeding missed.
#
# Reference (awk, fixed Park-Miller generator): random background, 3 kbp between units. Read i:
# a 150 bp unit U_i with a substitution at every 15th base from the 8th (no exact k-mer at the
# origin: AS 100 there). Decoy A: the read's first 60 bases, exact (AS 60, a clean partial
# alignment: the read takes no neighbour pass). Decoy B: the read's last 90 bases with 8
# substitutions outside an exact run of 30 (AS 50 for them; the whole read scores less there than
# at A). The read's primary is A's; its last 90 bases, mapped as a part, are divergent at B, take
# the neighbour pass and reach the origin (AS 60 for the part), which beats A. Reads alternate
# strands.
# Checks: the primary at the origin, AS 100, MAPQ 1-19, no supplementary record;
# --completion weak (no neighbour pass, so the part cannot reach the origin): the primary at A
# (AS 60, or a little more where the background happens to extend the match).
source "$(dirname "$0")/common.bash"

awk -v out="$WORK" "$AWK_SEQ"'
BEGIN {
	seed = 20261128
	g = randseq(3000)
	q = ""; for (i = 0; i < 150; i++) q = q "I"
	for (k = 0; k < 6; k++) {
		u = randseq(150)
		r = u
		for (p = 8; p <= 150; p += 15) r = sub1(r, p)
		b = substr(r, 61)
		for (p = 4; p <= 90; p += 7) if (p < 31 || p > 60) b = sub1(b, p)
		at = length(g) + 1
		g = g u randseq(3000)
		aat = length(g) + 1
		g = g substr(r, 1, 60) randseq(3000) b randseq(3000)
		printf "@p%d_%d_%d\n%s\n+\n%s\n", k, at, aat, (k % 2 ? rc(r) : r), q > (out "/reads.fq")
	}
	print ">chrT" > (out "/ref.fa")
	for (i = 1; i <= length(g); i += 60) print substr(g, i, 60) > (out "/ref.fa")
}'

# check SAM FIELD AS MAXQ SUPP: every read's primary record at the position in field FIELD of its
# name (2: the origin, 3: decoy A), AS from AS to AS + 4, MAPQ 1..MAXQ, and with SUPP 0 no
# supplementary record; prints the others.
check() {
	awk -F'\t' -v f="$2" -v want="$3" -v hi="$4" -v supp="$5" '!/^@/ {
		if (and($2, 0x800)) { if (!supp) print $1 ": a supplementary record at " $4; next }
		if (and($2, 0x100)) next
		as = 0; for (i = 12; i <= NF; i++) if ($i ~ /^AS:i:/) as = substr($i, 6) + 0
		split($1, x, "_")
		if ($4 != x[f] || as < want || as > want + 4 || $5 < 1 || $5 > hi)
			print $1 " at " $4 " AS " as " MAPQ " $5 " FLAG " $2 " CIGAR " $6
		n++
	} END { if (n != 6) print n " primary records, not 6" }' "$1"
}

"$SCANMAP" map --mode seeded "$WORK/ref.fa" "$WORK/reads.fq" >"$WORK/all.sam" \
	2>"$WORK/all.err" || { cat "$WORK/all.err" >&2; fail "scanmap (default) failed"; }
bad=$(check "$WORK/all.sam" 2 100 19 0)
[ -z "$bad" ] || fail "default: the better part's locus is not the primary: $bad"
note "default: the part that beat the primary made the origin the primary (AS 100, MAPQ below 20)"

"$SCANMAP" map --mode seeded --completion weak "$WORK/ref.fa" "$WORK/reads.fq" >"$WORK/weak.sam" \
	2>"$WORK/weak.err" || { cat "$WORK/weak.err" >&2; fail "scanmap (--completion weak) failed"; }
bad=$(check "$WORK/weak.sam" 3 60 60 1)
[ -z "$bad" ] || fail "--completion weak (the premise: the read's own seeds give decoy A): $bad"
note "--completion weak: the primary at decoy A (AS 60), as the read's own seeds give it"
