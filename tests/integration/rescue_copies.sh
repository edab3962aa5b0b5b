#!/usr/bin/env bash
# rescue_copies.sh — a mate found by rescue in a tandem repeat whose unit is longer than the read:
# the other copy in the rescue window is its rival (pair.c, rescue_scan's x[1]), so the pair's
# MAPQ is what the two inserts' likelihoods say (docs/cli.md "MAPQ"), not a unique placement's.
#
# Reference (awk, fixed generator): random background; 30 copies of a 100 bp unit Q alone, 2 kbp
# apart (read B's candidates hold the first ones by position); then the fragment: a unique
# 100 bp A, 100 bp of background, Q, 150 bp of background, Q again, then background. Read A is
# A (forward, unique), read B the reverse complement of Q: perfect at 32 copies. Rescue from A
# finds B's two copies in A's mate window, at inserts 300 and 550; with -I 400,120 the first pairs
# about e^((1.25^2 - 0.83^2) / 2) = 1.5 times as well as the second: B's MAPQ must stay below 20.
# Before, only the best-pairing copy was kept, its tandem scan reaching one alignment's span
# (194 bases for 100 bp: the copy 250 bases on lies beyond), and B got its mate's MAPQ. The
# pair lands on the first copy, A at MAPQ 20 or more.
source "$(dirname "$0")/common.bash"

awk -v out="$WORK" "$AWK_SEQ"'
BEGIN {
	seed = 20261129
	A = randseq(100); Q = randseq(100)
	g = randseq(2000)
	for (c = 0; c < 30; c++) g = g Q randseq(2000)
	a = length(g) + 1
	g = g A randseq(100) Q randseq(150) Q randseq(2000)
	fasta(out "/ref.fa", "chrR", g)
	print a, a + 200, a + 450 > (out "/loci")
	for (p = 0; p < 4; p++) {
		printf "@p%d/1\n%s\n+\n%s\n", p, A, quals(100) > (out "/r1.fq")
		printf "@p%d/2\n%s\n+\n%s\n", p, rc(Q), quals(100) > (out "/r2.fq")
	}
}'
read -r pos_a pos_q1 pos_q2 <"$WORK/loci"

for how in all weak; do
	"$SCANMAP" map --mode seeded --completion $how -I 400,120 "$WORK/ref.fa" "$WORK/r1.fq" "$WORK/r2.fq" \
		>"$WORK/$how.sam" 2>"$WORK/$how.err" || { cat "$WORK/$how.err" >&2; fail "scanmap (--completion $how) failed"; }
	bad=$(awk -F'\t' -v a="$pos_a" -v q="$pos_q1" '!/^@/ && !and($2, 0x900) {
		m = and($2, 64) ? 1 : 2
		if (!and($2, 2) || (m == 1 && ($4 != a || $5 < 20)) || (m == 2 && ($4 != q || $5 > 19)))
			print $1 "/" m " at " $4 " MAPQ " $5 " FLAG " $2 }' "$WORK/$how.sam" | head -4)
	[ -z "$bad" ] || fail "--completion $how: B's second copy in the rescue window (at $pos_q2) is its rival: $bad"
	q=$(awk -F'\t' '!/^@/ && and($2, 128) && !and($2, 0x900) { print $5; exit }' "$WORK/$how.sam")
	note "--completion $how: the pair at A ($pos_a) and B's first copy ($pos_q1), B at MAPQ $q, its copy at $pos_q2 a rival"
done
