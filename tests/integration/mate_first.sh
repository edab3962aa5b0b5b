#!/usr/bin/env bash
# mate_first.sh — a read of a pair whose first pass found only a poor hit is scanned at its
# mate's locus before its completion pass (map.c, mate_window): the completion then starts from
# the origin's score, so it collects fewer hits, and the read's best is what the completion alone
# finds (single-end, the same reads).
#
# Reference, per pair (six; awk, fixed generator), a random 150 bp unit U:
#   bait:    U's first 45 bases, then random: the read's rare k-mers (those starting in bases
#            1-31) vote for it, AS about 45;
#   decoys:  100 copies of U's bases 31-150 behind 30 random ones, 3 random substitutions each:
#            every k-mer of U from base 31 on is in most of them, far over --max-occ 3 (and 30, the
#            completion's limit); AS about 100-110;
#   origin:  U with base 30 substituted (AS 145; its rare k-mers start in bases 1-15, fewer
#            votes than the bait's), then 2,000 unique bases.
# Read 1 is U; read 2 the reverse complement of the 150 bases from 250 after the origin's start
# (insert 400, a unique locus); odd pairs swap the files. With --max-windows 1 the first pass
# keeps the bait only.
# Checks: U's read at its origin with AS 145 in the pairs run and in a single-end run of the U
# reads alone (the completion finds it there); the mate pass ran for all six and raised their
# best; the completion after it collected fewer hits than the single-end one.
source "$(dirname "$0")/common.bash"

awk -v out="$WORK" "$AWK_SEQ"'
BEGIN {
	seed = 38
	g = randseq(2000)
	for (k = 0; k < 6; k++) {
		u = randseq(150)
		g = g substr(u, 1, 45) randseq(405)
		for (c = 0; c < 100; c++) {
			d = randseq(30) substr(u, 31)
			for (s = 0; s < 3; s++) d = sub1(d, 31 + rnd(120))
			g = g d randseq(300)
		}
		at = length(g) + 1
		g = g sub1(u, 30) randseq(2000)
		m = rc(substr(g, at + 250, 150))
		a = k % 2 ? m : u
		b = k % 2 ? u : m
		printf "@p%d_%d\n%s\n+\n%s\n", k, at, a, quals(150) > (out "/r1.fq")
		printf "@p%d_%d\n%s\n+\n%s\n", k, at, b, quals(150) > (out "/r2.fq")
		printf "@p%d_%d\n%s\n+\n%s\n", k, at, u, quals(150) > (out "/u.fq")
	}
	fasta(out "/ref.fa", "chrT", g)
}'

opts=(map -v 4 --mode seeded --max-occ 3 --max-windows 1)
"$SCANMAP" "${opts[@]}" -I 400,20 "$WORK/ref.fa" "$WORK/r1.fq" "$WORK/r2.fq" \
	>"$WORK/pairs.sam" 2>"$WORK/pairs.err" || { cat "$WORK/pairs.err" >&2; fail "scanmap (pairs) failed"; }
"$SCANMAP" "${opts[@]}" "$WORK/ref.fa" "$WORK/u.fq" >"$WORK/single.sam" 2>"$WORK/single.err" ||
	{ cat "$WORK/single.err" >&2; fail "scanmap (single-end) failed"; }

# U's read: forward, 150 bases equal to the unit; its primary at the origin with AS 145.
at_origin='!/^@/ && !and($2, 0x900) && !and($2, 0x10) {
	as = 0; for (i = 12; i <= NF; i++) if ($i ~ /^AS:i:/) as = substr($i, 6) + 0
	split($1, x, "_")
	if ($4 != x[2] || as != 145) print $1 " at " $4 " AS " as " FLAG " $2
	n++
} END { if (n != 6) print n " forward primary records, not 6" }'
bad=$(awk -F'\t' "$at_origin" "$WORK/single.sam")
[ -z "$bad" ] || fail "single-end: not every read at its origin with AS 145: $bad"
bad=$(awk -F'\t' "$at_origin" "$WORK/pairs.sam")
[ -z "$bad" ] || fail "pairs: not every unit read at its origin with AS 145: $bad"

grep -q "mate pass: 6 reads scanned at their mate's locus, 6 with a better best there" \
	"$WORK/pairs.err" || fail "the mate pass did not raise the six reads' best: $(grep 'mate pass' \
	"$WORK/pairs.err")"
hits() { sed -n 's/.*completion pass: .* \([0-9][0-9]*\) hits collected.*/\1/p' "$1"; }
h_pairs=$(hits "$WORK/pairs.err")
h_single=$(hits "$WORK/single.err")
[ -n "$h_pairs" ] && [ -n "$h_single" ] || fail "no completion pass count in the logs"
[ "$h_pairs" -lt "$h_single" ] ||
	fail "the completion after the mate pass collected $h_pairs hits, single-end $h_single"
note "six reads at their origin (AS 145) after the mate pass; completion hits $h_single -> $h_pairs"
