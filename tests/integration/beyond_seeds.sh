#!/usr/bin/env bash
# beyond_seeds.sh — a read whose origin no exact k-mer seeds, and whose best seeded locus is a
# divergent decoy, reaches its origin through the neighbour pass (sm_seed_neighbours: every
# k-mer's one-substitution neighbours looked up), with MAPQ below 20 (a better locus was beyond
# its exact seeds: others may be); `--completion weak`, which has no such pass, leaves it at the
# decoy.
#
# Reference (awk, fixed Park-Miller generator): random background, six 150 bp units U with
# 3 kbp between. Read i: U_i with a substitution at every 15th base from the 8th (each of its
# 15-mers holds one: no exact seed at the origin; score 150 - 10 x 5 = AS 100). Decoy i, 3 kbp
# further on: the read itself with 15 substitutions outside bases 61-90 (an exact run of 30:
# seeded; AS 150 - 15 x 5 = 75, as divergent as a locus without seeds). Reads alternate strands.
# Checks: default: every read at its origin, AS 100, MAPQ 1-19; --completion weak: at the decoy
# (AS 75), which shows that the first passes could not reach the origin.
source "$(dirname "$0")/common.bash"

awk -v out="$WORK" "$AWK_SEQ"'
BEGIN {
	seed = 20261127
	g = randseq(3000)
	q = ""; for (i = 0; i < 150; i++) q = q "I"
	for (k = 0; k < 6; k++) {
		u = randseq(150)
		r = u
		for (p = 8; p <= 150; p += 15) r = sub1(r, p)
		d = r
		for (p = 5; p <= 150; p += 8) if (p < 61 || p > 90) d = sub1(d, p)
		at = length(g) + 1
		g = g u randseq(3000)
		dat = length(g) + 1
		g = g d randseq(3000)
		printf "@b%d_%d_%d\n%s\n+\n%s\n", k, at, dat, (k % 2 ? rc(r) : r), q > (out "/reads.fq")
	}
	print ">chrT" > (out "/ref.fa")
	for (i = 1; i <= length(g); i += 60) print substr(g, i, 60) > (out "/ref.fa")
}'

# check SAM FIELD AS MAXQ: every primary record at the position in field FIELD of its name
# (2: the origin, 3: the decoy), with that AS and MAPQ 1..MAXQ; prints the others.
check() {
	awk -F'\t' -v f="$2" -v want="$3" -v hi="$4" '!/^@/ && !and($2, 0x900) {
		as = 0; for (i = 12; i <= NF; i++) if ($i ~ /^AS:i:/) as = substr($i, 6) + 0
		split($1, x, "_")
		if ($4 != x[f] || as != want || $5 < 1 || $5 > hi)
			print $1 " at " $4 " AS " as " MAPQ " $5 " FLAG " $2
		n++
	} END { if (n != 6) print n " primary records, not 6" }' "$1"
}

"$SCANMAP" map --mode seeded -v 4 "$WORK/ref.fa" "$WORK/reads.fq" >"$WORK/all.sam" \
	2>"$WORK/all.err" || { cat "$WORK/all.err" >&2; fail "scanmap (default) failed"; }
bad=$(check "$WORK/all.sam" 2 100 19)
[ -z "$bad" ] || fail "default: not at the origin with AS 100 and MAPQ below 20: $bad"
grep -q "neighbour pass: 6 reads" "$WORK/all.err" || fail "-v 4 does not count 6 neighbour passes"
note "default: every read at its origin (AS 100), found by the neighbour pass, MAPQ below 20"

"$SCANMAP" map --mode seeded --completion weak "$WORK/ref.fa" "$WORK/reads.fq" >"$WORK/weak.sam" \
	2>"$WORK/weak.err" || { cat "$WORK/weak.err" >&2; fail "scanmap (--completion weak) failed"; }
bad=$(check "$WORK/weak.sam" 3 75 60)
[ -z "$bad" ] || fail "--completion weak (the premise: exact seeds reach only the decoy): $bad"
note "--completion weak: the decoy (AS 75), as the exact seeds alone give it"
