#!/usr/bin/env bash
# completed_ties.sh — a single-end read that took the completion pass with a near locus in view
# claims no placement (MAPQ 19 at most): the pass rules out loci that beat the read, not loci
# that tie it (mapper/map_impl.h, SM_TIE_CHECK_BELOW). With a mate to vouch for it, it keeps its
# MAPQ.
#
# Reference (awk, fixed Park-Miller generator): random background; 40 copies of a 100 bp P
# alone (P's k-mers over --max-occ 12: skipped); copy A of P + Q (Q 50 bp); ten decoys P'' + Q
# with two substitutions each; 2 kbp of background between all. Every cluster has the votes of
# Q's k-mers, so the first pass keeps the first 8 by position and drops three decoys' hits: it
# cannot rule out a better locus, and the read takes the completion pass. Reads of P + Q with one
# substitution of their own (AS 145 at A, 135 at a decoy: MAPQ 39 from the loci in view), forward
# and reverse.
# Checks: single-end with the default (--completion all): at A, MAPQ 19; with --completion off
# (no pass): 39; as proper pairs with a unique mate (insert 600): MAPQ 39 or more.
source "$(dirname "$0")/common.bash"

awk -v out="$WORK" "$AWK_SEQ"'
BEGIN {
	seed = 20261128
	comp["A"] = "T"; comp["C"] = "G"; comp["G"] = "C"; comp["T"] = "A"
	P = randseq(100); Q = randseq(50); D = randseq(450)
	g = randseq(2000)
	for (c = 0; c < 40; c++) g = g P randseq(2000)
	a = length(g); g = g P Q D randseq(2000)
	for (c = 0; c < 10; c++) g = g sub1(sub1(P, 2 + 5 * c), 60 + 3 * c) Q randseq(2000)
	print ">chrT" > (out "/ref.fa")
	for (i = 1; i <= length(g); i += 60) print substr(g, i, 60) > (out "/ref.fa")
	q = ""; for (i = 0; i < 150; i++) q = q "I"
	for (k = 0; k < 6; k++) {
		r = sub1(P Q, 110 + 7 * k)   # in Q: away from the decoy substitutions
		m = rc(substr(D, 301, 150))   # the mate: unique, 300 bp downstream
		printf "@t%d_%d\n%s\n+\n%s\n", k, a + 1, (k % 2 ? rc(r) : r), q > (out "/se.fq")
		# odd k: the mate is R1
		printf "@t%d_%d\n%s\n+\n%s\n", k, a + 1, (k % 2 ? m : r), q > (out "/pe_1.fq")
		printf "@t%d_%d\n%s\n+\n%s\n", k, a + 1, (k % 2 ? r : m), q > (out "/pe_2.fq")
	}
}'

# check SAM MIN MAX [PAIRED]: every primary record of the unit's read at A (POS from the name),
# AS 145, MAPQ within MIN..MAX (and in a proper pair with PAIRED 1); prints the others.
check() {
	awk -F'\t' -v lo="$2" -v hi="$3" -v pe="${4:-0}" '!/^@/ && !and($2, 0x900) {
		as = 0; for (i = 12; i <= NF; i++) if ($i ~ /^AS:i:/) as = substr($i, 6) + 0
		if (as != 145) next   # the mate
		split($1, f, "_")
		if ($4 != f[2] || $5 < lo || $5 > hi || (pe && !and($2, 2))) print $1 " at " $4 " AS " as " MAPQ " $5 " FLAG " $2
		n++
	} END { if (n != 6) print n " records of the unit read, not 6" }' "$1"
}

"$SCANMAP" map --mode seeded --max-occ 12 "$WORK/ref.fa" "$WORK/se.fq" >"$WORK/se.sam" \
	2>"$WORK/se.err" || { cat "$WORK/se.err" >&2; fail "scanmap (single-end) failed"; }
bad=$(check "$WORK/se.sam" 19 19)
[ -z "$bad" ] || fail "single-end, completed, near locus in view: $bad"
note "single-end, completed: MAPQ 19 (an equal locus is not ruled out)"

"$SCANMAP" map --mode seeded --max-occ 12 --completion off "$WORK/ref.fa" "$WORK/se.fq" \
	>"$WORK/off.sam" 2>/dev/null || fail "scanmap (--completion off) failed"
bad=$(check "$WORK/off.sam" 39 39)
[ -z "$bad" ] || fail "single-end, --completion off (its MAPQ from the loci in view should be 39): $bad"
note "--completion off: MAPQ 39 from the loci in view, as the rule's premise needs"

"$SCANMAP" map --mode seeded --max-occ 12 -I 600,20 "$WORK/ref.fa" "$WORK/pe_1.fq" "$WORK/pe_2.fq" \
	>"$WORK/pe.sam" 2>"$WORK/pe.err" || { cat "$WORK/pe.err" >&2; fail "scanmap (pairs) failed"; }
bad=$(check "$WORK/pe.sam" 39 60 1)
[ -z "$bad" ] || fail "pairs with a unique mate: $bad"
note "pairs: the unique mate vouches, MAPQ 39 or more"
