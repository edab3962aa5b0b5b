#!/usr/bin/env bash
# short_mates.sh — quality-trimmed mates shorter than -T's reach are placed by their pair, as bwa
# mem places them (pair.c, pair_min_score; docs/cli.md "Mate rescue"), and a short read inside a
# short tandem repeat sees its copies (map.c, tandem_sides).
#
# Reference (awk, fixed generator): one 150 bp read 1 per pair, unique, and its read 2 on the
# reverse strand at the start of a site that ends 300 bp after read 1 starts (-I 300,30), 3,000 bp
# of background between pairs:
#   m22   22 bases, one substitution at read base 4: objective 21 - 4 + 10 = 27, under -T 30
#   p17   17 bases, perfect: 27, under -T 30
#   p12   12 bases, perfect: 22, under the floor (15 bases end to end, 25): stays unmapped
#   ca19  the first 19 bases of a (CA)27 run: 29, under -T; copies every 2 bases up to 35 away
#   ca24  the first 24 bases of another: 34, over -T; copies up to 30 away
#   d17   17 bases, perfect, with a second copy 100 bases on: rescue finds both (-a below)
# Expected: m22, p17 and the CA reads mapped at their origin's strand, in a proper pair; m22 and
# p17 at MAPQ >= 20, the CA reads at MAPQ < 20 (they tie at copies 20 and more bases away: before,
# those hid behind the read's own 2-base shifts in one locus bin and a chr20 (CA)n read of 19
# bases got MAPQ 40 28 bases from its origin); p12 unmapped; read 1 at MAPQ >= 20 everywhere.
# The same reads 2 alone are unmapped under -T (m22, p17, ca19); with -a no secondary record
# scores under -T (the objective: AS and the clipping bonuses): d17's second copy stays out. Single reads of m22's read 1
# (unique): 22 bases at MAPQ < 20 (shorter than one minimizer window, k + w - 1 = 24: seeding
# guarantees no seed even at an equal copy), 30 bases at >= 20.
source "$(dirname "$0")/common.bash"

awk -v out="$WORK/ref" "$AWK_SEQ"'
BEGIN {
	seed = 20261201
	ca = ""; for (i = 0; i < 27; i++) ca = ca "CA"
	n = split("m22 p17 p12 ca19 ca24 d17", name, " ")
	g = randseq(3000)
	for (k = 1; k <= n; k++) {
		a = length(g) + 1
		r1 = randseq(150)
		len = substr(name[k], 2) + 0
		if (name[k] ~ /^ca/) {
			len = substr(name[k], 3) + 0
			site = substr(ca, 1, len + (len == 19 ? 35 : 30))
		} else {
			site = randseq(len)
		}
		seg = substr(site, 1, len)
		read2 = name[k] == "m22" ? sub1(seg, len - 3) : seg
		# d17: a second copy of its segment 100 bases on, in the rescue window (an
		# insert 3.9 sd out) and beyond the tandem reach: a second candidate under -T
		more = name[k] == "d17" ? randseq(100) seg randseq(3000 - 100 - len) : randseq(3000)
		g = g r1 randseq(300 - 150 - length(site)) "" site more
		# site ends 300 bases after read 1 starts; read 2 (reverse strand) is its start
		print name[k], a, a + 300 - length(site) > (out ".loci")
		printf "@%s/1\n%s\n+\n%s\n", name[k], r1, quals(150) > (out ".1.fq")
		printf "@%s/2\n%s\n+\n%s\n", name[k], rc(read2), quals(len) > (out ".2.fq")
		# Single reads from the unique sequence of read 1: 22 bases (under one minimizer
		# window, k + w - 1 = 24: no seed guaranteed at an equal copy) and 30.
		if (k == 1) {
			printf "@s22\n%s\n+\n%s\n", substr(r1, 40, 22), quals(22) > (out ".s.fq")
			printf "@s30\n%s\n+\n%s\n", substr(r1, 80, 30), quals(30) > (out ".s.fq")
		}
	}
	fasta(out ".fa", "chrS", g)
}'

"$SCANMAP" map -I 300,30 "$WORK/ref.fa" "$WORK/ref.1.fq" "$WORK/ref.2.fq" >"$WORK/pe.sam" \
	2>"$WORK/pe.err" || { cat "$WORK/pe.err" >&2; fail "scanmap (pairs) failed"; }
"$SCANMAP" map "$WORK/ref.fa" "$WORK/ref.2.fq" >"$WORK/se.sam" 2>"$WORK/se.err" ||
	{ cat "$WORK/se.err" >&2; fail "scanmap (reads 2 alone) failed"; }
"$SCANMAP" map -a -I 300,30 "$WORK/ref.fa" "$WORK/ref.1.fq" "$WORK/ref.2.fq" >"$WORK/all.sam" \
	2>"$WORK/all.err" || { cat "$WORK/all.err" >&2; fail "scanmap -a failed"; }

bad=$(awk -F'\t' 'NR == FNR { split($0, f, " "); a[f[1]] = f[2]; b[f[1]] = f[3]; next }
	/^@/ || and($2, 0x900) { next }
	{
		n = $1; sub(/\/[12]$/, "", n)
		if (and($2, 64)) {
			if (and($2, 4) || $4 != a[n] || $5 < 20) print n "/1: FLAG " $2 " at " $4 " MAPQ " $5
			next
		}
		if (n == "p12") { if (!and($2, 4)) print n "/2 mapped at " $4 " (AS under the floor)"; next }
		if (n == "d17") next   # for -a below
		if (and($2, 4) || !and($2, 2) || !and($2, 16)) { print n "/2: FLAG " $2; next }
		if (n !~ /^ca/ && ($4 != b[n] || $5 < 20)) print n "/2 at " $4 " MAPQ " $5 " (origin " b[n] ")"
		if (n ~ /^ca/ && $5 >= 20) print n "/2 at " $4 " MAPQ " $5 " (a repeat unit of 2)"
	}' "$WORK/ref.loci" "$WORK/pe.sam")
[ -z "$bad" ] || fail "pairs: $bad"
bad=$(awk -F'\t' '!/^@/ && !and($2, 0x900) && $1 ~ /^(m22|p17|ca19)/ && !and($2, 4) { print $1 " mapped alone at " $4 }' \
	"$WORK/se.sam")
[ -z "$bad" ] || fail "reads 2 alone, under -T: $bad"
# Seeded mode (exhaustive mode, the default on a reference this small, scans it all): a unique
# single read under 24 bases is unsure of an equal copy out of view (MAPQ under 20);
# one of 30 bases is not.
"$SCANMAP" map --mode seeded "$WORK/ref.fa" "$WORK/ref.s.fq" >"$WORK/s.sam" 2>"$WORK/s.err" ||
	{ cat "$WORK/s.err" >&2; fail "scanmap (single reads) failed"; }
single=$(awk -F'\t' '!/^@/ && !and($2, 0x900) { printf "%s%s MAPQ %s", sep, $1, $5; sep = ", " }' "$WORK/s.sam")
bad=$(awk -F'\t' '!/^@/ && !and($2, 0x900) && (and($2, 4) || $4 != ($1 == "s22" ? 3040 : 3080) ||
	($1 == "s22" ? $5 >= 20 : $5 < 20)) { print $1 " FLAG " $2 " at " $4 " MAPQ " $5 }' "$WORK/s.sam")
[ -z "$bad" ] || fail "single reads: $bad"
# -T is on the objective: AS plus 5 (-L) for each end aligned.
bad=$(awk -F'\t' '!/^@/ && and($2, 0x100) {
	bonus = ($6 !~ /^[0-9]+[SH]/ ? 5 : 0) + ($6 !~ /[SH]$/ ? 5 : 0)
	for (i = 12; i <= NF; i++) if ($i ~ /^AS:i:/ && substr($i, 6) + bonus < 30) print $1 " " $6 " " $i }' \
	"$WORK/all.sam")
[ -z "$bad" ] || fail "-a: secondary records under -T: $bad"
summary=$(awk -F'\t' '!/^@/ && !and($2, 0x900) && and($2, 128) { printf "%s%s MAPQ %s", sep, $1, and($2, 4) ? "unmapped" : $5; sep = ", " }' "$WORK/pe.sam")
note "reads 2 in their pairs: $summary; alone, under -T, unmapped; single reads $single"
