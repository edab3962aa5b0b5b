#!/usr/bin/env bash
# paired_ties.sh — a pair whose two reads each tie elsewhere, but at one place only near each
# other: unique when every tie of both reads is among their candidates (pair.c, ties_in_view),
# capped at 19 when the lists may have left ties out (res_t.ties_cut) (docs/cli.md "MAPQ").
#
# References (awk, fixed generator): random background with copies of two 150 bp sequences X
# and Y, 3 kbp apart, and one fragment X, 200 bp of background, Y. Read A is X (forward), read
# B the reverse complement of Y: each perfect at every copy of its sequence, the pair proper
# only at the fragment. few: 2 more copies of X and 1 more of Y, every one a candidate, so
# the pair is unique (before, MAPQ 19 on both reads; bwa mem gives such pairs of E. coli's IS
# copies 40). many: 5 more copies of X on the forward strand, more than a strand's scan list
# holds (SM_TOPK): a copy left out of the list could make another pair as good, so both reads
# stay at 19 or below (here no copy of Y lies beside one: the rule cannot know that).
source "$(dirname "$0")/common.bash"

for set in few:2 many:5; do
	name=${set%%:*} nx=${set#*:}
	awk -v out="$WORK/$name" -v nx="$nx" "$AWK_SEQ"'
	BEGIN {
		seed = 20261129
		X = randseq(150); Y = randseq(150)
		g = randseq(3000)
		for (c = 0; c < nx; c++) g = g X randseq(3000)
		g = g Y randseq(3000)
		a = length(g) + 1
		g = g X randseq(200) Y randseq(3000)
		fasta(out ".fa", "chrT", g)
		print a > (out ".loci")
		for (p = 0; p < 4; p++) {
			printf "@p%d/1\n%s\n+\n%s\n", p, X, quals(150) > (out ".1.fq")
			printf "@p%d/2\n%s\n+\n%s\n", p, rc(Y), quals(150) > (out ".2.fq")
		}
	}'
	read -r pos_a <"$WORK/$name.loci"
	for how in all weak; do
		"$SCANMAP" map --mode seeded --completion $how -I 500,50 "$WORK/$name.fa" "$WORK/$name.1.fq" \
			"$WORK/$name.2.fq" >"$WORK/$name.$how.sam" 2>"$WORK/$name.$how.err" ||
			{ cat "$WORK/$name.$how.err" >&2; fail "scanmap ($name, --completion $how) failed"; }
		# Every pair proper at the fragment; MAPQ at least 20 (few) or at most 19 (many).
		bad=$(awk -F'\t' -v a="$pos_a" -v few=$([ "$name" = few ] && echo 1 || echo 0) '
			!/^@/ && !and($2, 0x900) {
				if (!and($2, 2) || (and($2, 64) && $4 != a) || (few ? $5 < 20 : $5 > 19))
					print $1 " at " $4 " MAPQ " $5 " FLAG " $2 }' "$WORK/$name.$how.sam" | head -4)
		[ -z "$bad" ] || fail "$name copies of X, --completion $how: $bad"
		q=$(awk -F'\t' '!/^@/ && !and($2, 0x900) { printf "%s%s", sep, $5; sep = "," }' "$WORK/$name.$how.sam")
		note "$name: A with $((nx + 1)) copies, B with 2, --completion $how: the pair at the fragment ($pos_a), MAPQ $q"
	done
done
