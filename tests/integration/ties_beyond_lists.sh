#!/usr/bin/env bash
# ties_beyond_lists.sh — the reads of a repeat with more copies on one strand than the engines' lists
# hold (SM_TOPK, 4 a strand) spread over every copy, as bwa mem's spread over its hits: seeded
# mode scans the strand's other windows for loci that tie the best (mapper/map.c, more_ties) and
# chooses among all of them by the read's name hash.
#
# Reference (awk, fixed Park-Miller generator): random background, seven exact copies of a 1 kbp
# unit U on the forward strand, 3 kbp apart. Reads: 700 single-end 150 bp reads from U (both
# strands) and 700 pairs (insert 400, both mates inside U), error-free, so every read ties at all
# seven copies.
# Checks, single-end and pairs: every copy gets at least 40 of the 700 primaries (100 expected; a
# choice among four lists' loci leaves three copies without any), every primary has MAPQ 0 and
# XS = AS, and every pair is proper (both mates on one copy).
source "$(dirname "$0")/common.bash"

awk -v out="$WORK" "$AWK_SEQ"'
BEGIN {
	seed = 20261129
	U = randseq(1000)
	g = randseq(3000)
	for (c = 0; c < 7; c++) g = g U randseq(3000)
	fasta(out "/ref.fa", "chrT", g)
	for (k = 0; k < 700; k++) {
		p = 1 + rnd(850); r = substr(U, p, 150)
		printf "@s%d\n%s\n+\n%s\n", k, (k % 2 ? rc(r) : r), quals(150) > (out "/se.fq")
		p = 1 + rnd(550)
		printf "@p%d\n%s\n+\n%s\n", k, substr(U, p, 150), quals(150) > (out "/p1.fq")
		printf "@p%d\n%s\n+\n%s\n", k, rc(substr(U, p + 250, 150)), quals(150) > (out "/p2.fq")
	}
}'

# check SAM: primaries per copy (copy c spans 3001 + 4000c .. 4000 + 4000c), MAPQ 0, XS = AS,
# proper pairs for paired records; prints what is wrong.
check() {
	awk -F'\t' '!/^@/ && !and($2, 0x900) {
		as = xs = -1
		for (i = 12; i <= NF; i++) {
			if ($i ~ /^AS:i:/) as = substr($i, 6) + 0
			if ($i ~ /^XS:i:/) xs = substr($i, 6) + 0
		}
		if ($5 != 0 || as != xs) { print $1 " MAPQ " $5 " AS " as " XS " xs; bad++ }
		if (and($2, 1) && !and($2, 2)) { print $1 " not a proper pair"; bad++ }
		c = int(($4 - 3001) / 4000); n[c]++; all++
	} END {
		for (c = 0; c < 7; c++) if (n[c] < 40) print "copy " c ": " n[c] + 0 " primaries of " all
	}' "$1" | head -n 5
}

"$SCANMAP" map --mode seeded "$WORK/ref.fa" "$WORK/se.fq" >"$WORK/se.sam" 2>"$WORK/se.err" ||
	{ cat "$WORK/se.err" >&2; fail "scanmap (single-end) failed"; }
bad=$(check "$WORK/se.sam")
[ -z "$bad" ] || fail "single-end: $bad"
note "single-end: every one of the seven copies gets its share, MAPQ 0, XS = AS"

"$SCANMAP" map --mode seeded -I 400,30 "$WORK/ref.fa" "$WORK/p1.fq" "$WORK/p2.fq" >"$WORK/pe.sam" \
	2>"$WORK/pe.err" || { cat "$WORK/pe.err" >&2; fail "scanmap (pairs) failed"; }
bad=$(check "$WORK/pe.sam")
[ -z "$bad" ] || fail "pairs: $bad"
note "pairs: every copy gets its share, both mates on one copy"
