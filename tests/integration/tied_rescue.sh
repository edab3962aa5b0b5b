#!/usr/bin/env bash
# tied_rescue.sh — pairs whose origin pairs with one of read A's many tied copies (docs/seeded.md,
# "Rescue at every tied copy").
#
# References made here (awk, fixed generator): read A's 100 bp unit R at N loci, each followed
# after 200 bp by a 100 bp flank, random but at copy 2 (Q with one substitution) and copy N - 1 (Q
# itself, the origin); 30 more copies of Q alone before them, 2 kbp of background between all.
# Read A is R (perfect at N copies), read B the reverse complement of Q (perfect at 31: its
# candidates hold the first by position, not its origin). So the pair comes together only around
# A's copies. N = 8: A's candidates hold all eight; rescuing B around the first four alone finds
# only copy 2, B a substitution down, at MAPQ 40 (two such pairs at 3 Gbp: MAPQ 35-36), and rescue
# at every tied copy finds copy 7, where both reads are perfect. N = 12: A's candidates hold 8 of
# its 12 copies, not copy 11, and rescue cannot reach it; the pair chosen (copy 2) is one of two
# unsure reads, so the pair is seeded again as a pair, which finds copy 11. Checks: both reads at
# the origin copy as a proper pair, AS 100 each, with --completion all and weak, and with B as
# read 1.
source "$(dirname "$0")/common.bash"

# make_set N DIR: the reference and the pair for N copies of R, in DIR.
make_set() {
	mkdir -p "$2"
	awk -v n="$1" -v out="$2" "$AWK_SEQ"'
	BEGIN {
		seed = 20261128
		R = randseq(100); Q = randseq(100)
		g = randseq(2000)
		for (c = 0; c < 30; c++) g = g Q randseq(2000)
		for (c = 1; c <= n; c++) {
			if (c == n - 1) a = length(g) + 1
			g = g R randseq(200) (c == 2 ? sub1(Q, 30) : c == n - 1 ? Q : randseq(100)) randseq(2000)
		}
		fasta(out "/ref.fa", "chrT", g)
		printf "@p_%d_%d/1\n%s\n+\n%s\n", a, a + 300, R, quals(100) > (out "/r1.fq")
		printf "@p_%d_%d/2\n%s\n+\n%s\n", a, a + 300, rc(Q), quals(100) > (out "/r2.fq")
	}'
}

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

for n in 8 12; do
	w=$WORK/n$n
	make_set $n "$w"
	for completion in all weak; do
		"$SCANMAP" map --mode seeded --completion $completion -I 400,40 "$w/ref.fa" "$w/r1.fq" \
			"$w/r2.fq" >"$w/$completion.sam" 2>"$w/$completion.err" ||
			{ cat "$w/$completion.err" >&2; fail "$n copies: scanmap --completion $completion failed"; }
		bad=$(check "$w/$completion.sam")
		[ -z "$bad" ] || fail "$n copies, --completion $completion: $bad"
	done
	"$SCANMAP" map --mode seeded -I 400,40 "$w/ref.fa" "$w/r2.fq" "$w/r1.fq" >"$w/swap.sam" \
		2>"$w/swap.err" || { cat "$w/swap.err" >&2; fail "$n copies: scanmap (B as read 1) failed"; }
	bad=$(check "$w/swap.sam")
	[ -z "$bad" ] || fail "$n copies, B as read 1: $bad"
	note "$n tied copies of read A: the pair at copy $((n - 1)), both reads perfect, proper (MAPQ $(awk -F'\t' '!/^@/ { print $5; exit }' "$w/all.sam"))"
done
