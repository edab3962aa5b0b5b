#!/usr/bin/env bash
# tied_rescue.sh — a pair whose origin pairs with the read's seventh tied copy (docs/seeded.md,
# "Rescue at every tied copy").
#
# A reference made here (awk, fixed generator): read A's 100 bp unit R at eight loci, each followed
# after 200 bp by a 100 bp flank, random but at copy 2 (Q with one substitution) and copy 7 (Q
# itself, the origin); 30 more copies of Q alone before them, 2 kbp of background between all.
# Read A is R (perfect at eight copies, all in its candidates), read B the reverse complement of
# Q (perfect at 31: its candidates hold the first by position, not its origin). So the pair
# comes together only by rescuing B around A's copies: around the first four alone, the only
# proper pair is A at copy 2 with B there a substitution down, at MAPQ 40 (two such pairs at 3
# Gbp: MAPQ 35-36); rescue at every tied copy finds copy 7, where both reads are perfect. Checks:
# both reads at copy 7 as a proper pair, AS 100 each, with --completion all and weak, and with B
# as read 1.
source "$(dirname "$0")/common.bash"

awk -v out="$WORK" "$AWK_SEQ"'
BEGIN {
	seed = 20261128
	R = randseq(100); Q = randseq(100)
	g = randseq(2000)
	for (c = 0; c < 30; c++) g = g Q randseq(2000)
	for (c = 1; c <= 8; c++) {
		if (c == 7) a = length(g) + 1
		g = g R randseq(200) (c == 2 ? sub1(Q, 30) : c == 7 ? Q : randseq(100)) randseq(2000)
	}
	print ">chrT" > (out "/ref.fa")
	for (i = 1; i <= length(g); i += 60) print substr(g, i, 60) > (out "/ref.fa")
	printf "@p_%d_%d/1\n%s\n+\n%s\n", a, a + 300, R, quals(100) > (out "/r1.fq")
	printf "@p_%d_%d/2\n%s\n+\n%s\n", a, a + 300, rc(Q), quals(100) > (out "/r2.fq")
}'

# check SAM: A at its origin forward, B at its own reverse, a proper pair, AS 100 each; prints
# what is not.
check() {
	awk -F'\t' '!/^@/ && !and($2, 0x900) {
		split($1, f, "_")
		as = 0; for (i = 12; i <= NF; i++) if ($i ~ /^AS:i:/) as = substr($i, 6) + 0
		b = and($2, 16) != 0   # B is the reverse read
		want = b ? f[3] : f[2]
		if ($4 != want || as != 100 || !and($2, 2))
			print (b ? "B" : "A") " at " $4 " (want " want ") AS " as " flag " $2 " MAPQ " $5
	}' "$1"
}

for completion in all weak; do
	"$SCANMAP" map --mode seeded --completion $completion -I 400,40 "$WORK/ref.fa" "$WORK/r1.fq" \
		"$WORK/r2.fq" >"$WORK/$completion.sam" 2>"$WORK/$completion.err" ||
		{ cat "$WORK/$completion.err" >&2; fail "scanmap --completion $completion failed"; }
	bad=$(check "$WORK/$completion.sam")
	[ -z "$bad" ] || fail "--completion $completion: $bad"
done
"$SCANMAP" map --mode seeded -I 400,40 "$WORK/ref.fa" "$WORK/r2.fq" "$WORK/r1.fq" >"$WORK/swap.sam" \
	2>"$WORK/swap.err" || { cat "$WORK/swap.err" >&2; fail "scanmap (B as read 1) failed"; }
bad=$(check "$WORK/swap.sam")
[ -z "$bad" ] || fail "B as read 1: $bad"
note "the pair at copy 7 of eight tied copies of read A, both reads perfect, proper (MAPQ $(awk -F'\t' '!/^@/ { print $5; exit }' "$WORK/all.sam"))"
