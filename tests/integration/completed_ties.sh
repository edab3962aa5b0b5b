#!/usr/bin/env bash
# completed_ties.sh — a single-end read's completion pass rules out loci that tie it, not only
# better ones (mapper/map.c, tie_slack): an equal copy that the first pass left out is found
# (XS = AS, MAPQ 0); the near loci it scans set XS; where ties cannot all be ruled out and a near
# locus is in view, the read claims no placement (MAPQ 19: map_impl.h, SM_TIE_CHECK_BELOW). With
# a mate to vouch for it, a read keeps its MAPQ.
#
# References (awk, fixed Park-Miller generator): random background; 40 copies of a 100 bp P alone
# (P's k-mers over --max-occ 12: skipped by the first pass); 2 kbp of background between all.
#  twin.fa: A = P + Q (Q 50 bp), ten decoys of P with three substitutions + Q, then B = P + Q
#    again. Every cluster has the votes of Q's k-mers, so the first pass keeps the first 8 by
#    position and drops B. Reads of P + Q with one substitution of their own in Q: AS 145 at A
#    and B, 130 at a decoy (MAPQ 59 from the loci in view); the pass's bound for B equals the
#    read's best, so before ties were looked for B stayed unseen and the read had MAPQ 59.
#  near.fa: A, then a unique 450 bp D (the mates), then 30 decoys P + Q'' (two substitutions in
#    Q, 3 to 11 bases after the reads' own, bases 115-120: within one seed window of it, so a
#    decoy's bound equals the read's best; AS 135 there: MAPQ 39 from the loci in view).
# Checks: twin: every read MAPQ 0 with XS 145 (at A or B). near: MAPQ 39, XS 135 (every decoy
# whose bound ties is scanned, none is a tie); with --max-windows 1 the rounds cannot scan them
# all: MAPQ 19; as proper pairs with a unique mate (insert 600): MAPQ 39 or more.
source "$(dirname "$0")/common.bash"

awk -v out="$WORK" "$AWK_SEQ"'
BEGIN {
	seed = 20261128
	P = randseq(100); Q = randseq(50); D = randseq(450)
	bg = randseq(2000)
	for (c = 0; c < 40; c++) bg = bg P randseq(2000)
	a = length(bg)
	g = bg P Q randseq(2000)
	for (c = 0; c < 10; c++) {
		d = P
		for (s = 0; s < 3; s++) d = sub1(d, 2 + (5 * c + 31 * s) % 97)
		g = g d Q randseq(2000)
	}
	b = length(g)
	fasta(out "/twin.fa", "chrT", g P Q randseq(2000))
	g = bg P Q D randseq(2000)
	for (c = 0; c < 30; c++) g = g sub1(sub1(P Q, 123), 126) randseq(2000)
	fasta(out "/near.fa", "chrT", g)
	for (k = 0; k < 6; k++) {
		r = sub1(P Q, 110 + 7 * k)
		printf "@t%d_%d_%d\n%s\n+\n%s\n", k, a + 1, b + 1, (k % 2 ? rc(r) : r), quals(150) > (out "/twin.fq")
		r = sub1(P Q, 115 + k)
		m = rc(substr(D, 301, 150))   # the mate: unique, 300 bp downstream
		printf "@t%d_%d_%d\n%s\n+\n%s\n", k, a + 1, b + 1, (k % 2 ? rc(r) : r), quals(150) > (out "/se.fq")
		# odd k: the mate is R1
		printf "@t%d_%d\n%s\n+\n%s\n", k, a + 1, (k % 2 ? m : r), quals(150) > (out "/pe_1.fq")
		printf "@t%d_%d\n%s\n+\n%s\n", k, a + 1, (k % 2 ? r : m), quals(150) > (out "/pe_2.fq")
	}
}'

# check SAM MIN MAX XS [PAIRED]: every primary record of the unit's read (AS 145) at A or B
# (POS from the name), MAPQ within MIN..MAX, XS as given unless empty (and in a proper pair with
# PAIRED 1);
# prints the others.
check() {
	awk -F'\t' -v lo="$2" -v hi="$3" -v want_xs="$4" -v pe="${5:-0}" '!/^@/ && !and($2, 0x900) {
		as = xs = 0
		for (i = 12; i <= NF; i++) {
			if ($i ~ /^AS:i:/) as = substr($i, 6) + 0
			if ($i ~ /^XS:i:/) xs = substr($i, 6) + 0
		}
		if (as != 145) next   # the mate
		split($1, f, "_")
		if (($4 != f[2] && $4 != f[3]) || $5 < lo || $5 > hi || (want_xs != "" && xs != want_xs) || (pe && !and($2, 2)))
			print $1 " at " $4 " AS " as " XS " xs " MAPQ " $5 " FLAG " $2
		n++
	} END { if (n != 6) print n " records of the unit read, not 6" }' "$1"
}

# run NAME REF READS... [-- OPTION...]: maps into $WORK/NAME.sam.
run() {
	local name=$1 ref=$2 reads=() opts=()
	shift 2
	while (($#)) && [[ $1 != -- ]]; do reads+=("$WORK/$1"); shift; done
	(($#)) && shift
	opts=("$@")
	"$SCANMAP" map --mode seeded --max-occ 12 "${opts[@]}" "$WORK/$ref" "${reads[@]}" \
		>"$WORK/$name.sam" 2>"$WORK/$name.err" || { cat "$WORK/$name.err" >&2; fail "scanmap ($name) failed"; }
}

run twin twin.fa twin.fq
bad=$(check "$WORK/twin.sam" 0 0 145)
[ -z "$bad" ] || fail "single-end, an equal copy left out by the first pass: $bad"
note "an equal copy out of the first pass's view: found by the completion (XS 145, MAPQ 0)"

run near near.fa se.fq
bad=$(check "$WORK/near.sam" 39 39 135)
[ -z "$bad" ] || fail "single-end, decoys whose bound ties the read: $bad"
note "decoys whose bound ties the read: scanned, none ties (XS 135, MAPQ 39)"

run near-w1 near.fa se.fq -- --max-windows 1
bad=$(check "$WORK/near-w1.sam" 19 19 135)
[ -z "$bad" ] || fail "single-end, ties not ruled out (--max-windows 1): $bad"
note "--max-windows 1: the rounds leave decoys that could tie, MAPQ 19"

run pe near.fa pe_1.fq pe_2.fq -- -I 600,20
bad=$(check "$WORK/pe.sam" 39 60 "" 1)
[ -z "$bad" ] || fail "pairs with a unique mate: $bad"
note "pairs: the unique mate vouches, MAPQ 39 or more"
