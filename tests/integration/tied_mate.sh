#!/usr/bin/env bash
# tied_mate.sh — a pair whose read A ties at more copies than its candidates hold while read B
# leads its own loci by one low-quality base: the pair stands on B alone (pair.c,
# stands_on_mate; docs/cli.md "MAPQ").
#
# References (awk, fixed generator): random background with 7 copies of a 150 bp sequence X,
# then the fragment X, 200 bp of background, Y (where the pair is placed), then NV copies of X,
# 200 bp, Yv, Yv being Y with one substitution at Y's base 60. Read A is X, read B the reverse
# complement of Y, its quality at that base '/' (Q14, a 4% error): B is perfect at the
# fragment and one likely sequencing error away at each Yv copy, and A is perfect at every
# copy of X, so each X-Yv copy makes a pair one Q14 base behind. Before, rescue found A beside
# B's best and the X-Yv pairs, A's copies being out of its lists, were never seen: MAPQ 40 and
# 54-58 (a chr20 75 bp pair in an L1 placed so was wrong at 40-45). Now both reads get B's
# own MAPQ (at most 19 here). Control: the same without the copies of X (A unique at the
# fragment; its Yv copies beside other sequence): A places the pair, MAPQ at least 20.
source "$(dirname "$0")/common.bash"

for set in tied1:7:1 tied3:7:3 unique:0:3; do
	IFS=: read -r name nx nv <<<"$set"
	awk -v out="$WORK/$name" -v nx="$nx" -v nv="$nv" -v uniq=$([ "$name" = unique ] && echo 1 || echo 0) "$AWK_SEQ"'
	BEGIN {
		seed = 20261130
		X = randseq(150); Y = randseq(150); p = 60
		Yv = sub1(Y, p)
		g = randseq(3000)
		for (c = 0; c < nx; c++) g = g X randseq(3000)
		f = length(g) + 1
		g = g X randseq(200) Y randseq(3000)
		for (c = 0; c < nv; c++) g = g (uniq ? randseq(150) : X) randseq(200) Yv randseq(3000)
		fasta(out ".fa", "chrT", g)
		print f > (out ".loci")
		qb = quals(150); qb = substr(qb, 1, 150 - p) "/" substr(qb, 152 - p)
		for (k = 0; k < 4; k++) {
			printf "@p%d/1\n%s\n+\n%s\n", k, X, quals(150) > (out ".1.fq")
			printf "@p%d/2\n%s\n+\n%s\n", k, rc(Y), qb > (out ".2.fq")
		}
	}'
	read -r pos_a <"$WORK/$name.loci"
	"$SCANMAP" map -I 500,50 "$WORK/$name.fa" "$WORK/$name.1.fq" "$WORK/$name.2.fq" \
		>"$WORK/$name.sam" 2>"$WORK/$name.err" || { cat "$WORK/$name.err" >&2; fail "scanmap ($name) failed"; }
	# Every pair proper at the fragment; MAPQ at most 19 (tied) or at least 20 (unique).
	bad=$(awk -F'\t' -v a="$pos_a" -v tied=$([ "$name" = unique ] && echo 0 || echo 1) '
		!/^@/ && !and($2, 0x900) {
			if (!and($2, 2) || (and($2, 64) && $4 != a) || (tied ? $5 > 19 : $5 < 20))
				print $1 " at " $4 " MAPQ " $5 " FLAG " $2 }' "$WORK/$name.sam" | head -4)
	[ -z "$bad" ] || fail "$name: $bad"
	q=$(awk -F'\t' '!/^@/ && !and($2, 0x900) { printf "%s%s", sep, $5; sep = "," }' "$WORK/$name.sam")
	copies=$((nx + 1))
	[ "$name" = unique ] || copies=$((copies + nv))
	note "$name: A at $copies copies, B one Q14 base from $nv more: the pair at the fragment ($pos_a), MAPQ $q"
done
