#!/usr/bin/env bash
# beyond_seeds.sh — reads whose origin no exact k-mer seeds reach it:
#  (n) a read whose best seeded locus is a divergent decoy, through the neighbour pass
#      (sm_seed_neighbours: every k-mer's one-substitution neighbours looked up), with MAPQ below
#      20 (a better locus was beyond its exact seeds: others may be);
#  (p) a single-end read whose best seeded locus is a clean partial decoy (no neighbour pass for
#      it), through its split part: the part, mapped as a read, is divergent, takes the neighbour
#      pass and outscores the primary, and the read takes the part's locus (split.c,
#      promote_part), MAPQ below 20, no supplementary record left.
#  (u) a read with no hit at all (no decoy, and a reference over the exhaustive fallback's bound),
#      through the neighbour pass of reads without a hit (a sixteenth of the look-ups, windows of
#      3 read positions or more: SM_NEIGHBOUR_UNMAPPED_*), MAPQ below 20; random reads stay
#      unmapped.
#  (s) a single read of 29 bases one substitution (base 15) from its origin, so that no exact
#      k-mer seeds it there, beside a clean partial decoy (its first 25 bases): a read under two
#      minimizer windows takes the neighbour pass whenever an unseeded locus could tie or beat
#      it, divergent or not (map.c, needs_neighbours), its clusters ranked by diagonal.
#  (t) a single read of 29 bases with no hit: two loci, each one substitution away at base 15
#      (two other bases there), an equal pair a short read's every neighbour look-up finds (all
#      of them, not the share of (u)), MAPQ below 20 with XS = AS.
#  (v) a perfect single read of 29 bases whose nearest locus in view is two substitutions behind
#      (bases 1 and 29: seeded), beside a copy one substitution away at base 15 (no exact k-mer
#      there): the neighbour pass finds that copy (map.c, needs_neighbours: a perfect short read
#      in a repeat family), so XS is one substitution behind and MAPQ at most 20 (19: a single
#      read that one base places, map_impl.h sm_unsure_cap), not 40.
# `--completion weak`, which has no neighbour pass, leaves each at its decoy (unmapped for (u);
# for (v) XS two substitutions behind, MAPQ 40): the premise.
#
# Reference (awk, fixed Park-Miller generator): random background, 3 kbp between units. Every
# read is a 150 bp unit U with a substitution at every 15th base from the 8th (unseeded(): no
# exact 15-mer at the origin; AS 100 there); reads alternate strands.
#  (n) decoy D: the read itself with 15 substitutions outside bases 61-90 (an exact run of 30:
#      seeded; AS 75, as divergent as a locus without seeds).
#  (p) decoy A: the read's first 60 bases, exact (AS 60: a clean partial alignment); decoy B: its
#      last 90 bases with 8 substitutions outside an exact run of 30 (AS 50 for them, and less for
#      the whole read than at A). The part of bases 61-150 reaches the origin (AS 60 there).
# Checks: default: every read's primary at its origin, AS 100, MAPQ 1-19, no supplementary
# record; --completion weak: (n) at D (AS 75), (p) at A (AS 60, or a little more where the
# background happens to extend the match). (s): default at the origin (AS 24); --completion weak
# at the decoy (the premise). (t), against ref_u.fa (over the exhaustive bound): default at
# either locus, AS 24, XS 24, MAPQ below 20; --completion weak unmapped (the premise).
source "$(dirname "$0")/common.bash"

awk -v out="$WORK" "$AWK_SEQ"'
function read_out(file, name, r) {
	printf "@%s\n%s\n+\n%s\n", name, (k % 2 ? rc(r) : r), quals(length(r)) > (out "/" file)
}
BEGIN {
	seed = 20261127
	g = randseq(3000)
	for (k = 0; k < 6; k++) {
		r = unseeded(u = randseq(150))
		d = r
		for (p = 5; p <= 150; p += 8) if (p < 61 || p > 90) d = sub1(d, p)
		at = length(g) + 1
		g = g u randseq(3000)
		dat = length(g) + 1
		g = g d randseq(3000)
		read_out("n.fq", "n" k "_" at "_" dat, r)
	}
	for (k = 0; k < 6; k++) {
		r = unseeded(u = randseq(150))
		b = substr(r, 61)
		for (p = 4; p <= 90; p += 7) if (p < 31 || p > 60) b = sub1(b, p)
		at = length(g) + 1
		g = g u randseq(3000)
		aat = length(g) + 1
		g = g substr(r, 1, 60) randseq(3000) b randseq(3000)
		read_out("p.fq", "p" k "_" at "_" aat, r)
	}
	for (k = 0; k < 6; k++) {
		u = randseq(29)
		r = sub1(u, 15)
		at = length(g) + 1
		g = g u randseq(3000)
		dat = length(g) + 1
		g = g substr(r, 1, 25) randseq(3000)
		read_out("s.fq", "s" k "_" at "_" dat, r)
	}
	for (k = 0; k < 6; k++) {
		r = randseq(29)
		at = length(g) + 1
		g = g r randseq(3000)
		cat = length(g) + 1
		g = g sub1(r, 15) randseq(3000) sub1(sub1(r, 1), 29) randseq(3000)
		read_out("v.fq", "v" k "_" at "_" cat, r)
	}
	fasta(out "/ref.fa", "chrT", g)
	# (u): six units, then random lines past 1 Mbp (no exhaustive fallback), and six random
	# reads of nowhere.
	g = randseq(3000)
	for (k = 0; k < 6; k++) {
		r = unseeded(u = randseq(150))
		at = length(g) + 1
		g = g u randseq(3000)
		read_out("u.fq", "u" k "_" at "_0", r)
		read_out("x.fq", "x" k "_0_0", randseq(150))
	}
	for (k = 0; k < 6; k++) {
		r = randseq(29)
		a = sub1(r, 15)
		at = length(g) + 1
		g = g a randseq(3000)
		cat = length(g) + 1
		g = g substr(r, 1, 14) other(substr(r, 15, 1), substr(a, 15, 1)) substr(r, 16) randseq(3000)
		read_out("t.fq", "t" k "_" at "_" cat, r)
	}
	fasta(out "/ref_u.fa", "chrU", g)
	for (i = 0; i < 17500; i++) print randseq(60) > (out "/ref_u.fa")
}'

# check SAM FIELD AS MAXQ SUPP: every read's primary record at the position in field FIELD of its
# name (2: the origin, 3: its decoy), AS from AS to AS + 4, MAPQ 1..MAXQ, and with SUPP 0 no
# supplementary record; prints the others.
check() {
	awk -F'\t' -v f="$2" -v want="$3" -v hi="$4" -v supp="$5" '!/^@/ {
		if (and($2, 0x800)) { if (!supp) print $1 ": a supplementary record at " $4; next }
		if (and($2, 0x100)) next
		as = 0; for (i = 12; i <= NF; i++) if ($i ~ /^AS:i:/) as = substr($i, 6) + 0
		split($1, x, "_")
		if ($4 != x[f] || as < want || as > want + 4 || $5 < 1 || $5 > hi)
			print $1 " at " $4 " AS " as " MAPQ " $5 " FLAG " $2 " CIGAR " $6
		n++
	} END { if (n != 6) print n " primary records, not 6" }' "$1"
}

# run NAME READS [OPTION...]: maps READS into $WORK/NAME.sam (stderr NAME.err), against
# $REF (ref.fa unless set).
run() {
	local name=$1 reads=$2
	shift 2
	"$SCANMAP" map --mode seeded "$@" "$WORK/${REF:-ref.fa}" "$WORK/$reads" >"$WORK/$name.sam" \
		2>"$WORK/$name.err" || { cat "$WORK/$name.err" >&2; fail "scanmap ($name) failed"; }
}

run n n.fq -v 4
bad=$(check "$WORK/n.sam" 2 100 19 0)
[ -z "$bad" ] || fail "(n) default: not at the origin with AS 100 and MAPQ below 20: $bad"
grep -q "neighbour pass: 6 reads" "$WORK/n.err" || fail "(n) -v 4 does not count 6 neighbour passes"
note "(n) default: every read at its origin (AS 100), found by the neighbour pass, MAPQ below 20"

run n-weak n.fq --completion weak
bad=$(check "$WORK/n-weak.sam" 3 75 60 0)
[ -z "$bad" ] || fail "(n) --completion weak (the premise: exact seeds reach only the decoy): $bad"
note "(n) --completion weak: the decoy (AS 75), as the exact seeds alone give it"

run p p.fq
bad=$(check "$WORK/p.sam" 2 100 19 0)
[ -z "$bad" ] || fail "(p) default: the better part's locus is not the primary: $bad"
note "(p) default: the part that beat the primary made the origin the primary (AS 100, MAPQ below 20)"

run p-weak p.fq --completion weak
bad=$(check "$WORK/p-weak.sam" 3 60 60 1)
[ -z "$bad" ] || fail "(p) --completion weak (the premise: the read's own seeds give decoy A): $bad"
note "(p) --completion weak: the primary at decoy A (AS 60), as the read's own seeds give it"

REF=ref_u.fa run u u.fq -v 4
grep -q "reads without a seeded hit are aligned exhaustively" "$WORK/u.err" &&
	fail "(u) the reference is under the exhaustive fallback's bound: the premise does not hold"
bad=$(check "$WORK/u.sam" 2 100 19 0)
[ -z "$bad" ] || fail "(u) default: not at the origin with AS 100 and MAPQ below 20: $bad"
grep -q "neighbour pass: 6 reads" "$WORK/u.err" || fail "(u) -v 4 does not count 6 neighbour passes"
note "(u) default: every read without a hit at its origin (AS 100) through the neighbour pass, MAPQ below 20"

REF=ref_u.fa run u-weak u.fq --completion weak
REF=ref_u.fa run x x.fq
for f in u-weak x; do
	n=$(awk -F'\t' '!/^@/ && and($2, 4) { n++ } END { print n + 0 }' "$WORK/$f.sam")
	[ "$n" = 6 ] || fail "($f) $n of 6 reads unmapped, not 6"
done
note "(u) --completion weak: all six unmapped (the premise); six random reads unmapped by default"

# (s): the origin by default, the decoy for most with --completion weak (the premise).
run s s.fq
bad=$(awk -F'\t' '!/^@/ && !and($2, 0x900) {
	as = 0; for (i = 12; i <= NF; i++) if ($i ~ /^AS:i:/) as = substr($i, 6) + 0
	split($1, x, "_"); if ($4 != x[2] || as != 24) print $1 " at " $4 " AS " as " MAPQ " $5
}' "$WORK/s.sam")
[ -z "$bad" ] || fail "(s) default: a 29-base read not at its origin one substitution away: $bad"
run s-weak s.fq --completion weak
n=$(awk -F'\t' '!/^@/ && !and($2, 0x900) { split($1, x, "_"); if ($4 == x[3]) n++ } END { print n + 0 }' \
	"$WORK/s-weak.sam")
[ "$n" = 6 ] || fail "(s) --completion weak: $n of 6 at the decoy (the premise: no exact k-mer at the origin)"
note "(s) default: six 29-base reads at their origin one substitution away (AS 24); at a clean partial decoy without the pass"

# (t): an equal pair of loci, both beyond exact seeds.
REF=ref_u.fa run t t.fq
bad=$(awk -F'\t' '!/^@/ && !and($2, 0x900) {
	as = xs = -1; for (i = 12; i <= NF; i++) { if ($i ~ /^AS:i:/) as = substr($i, 6) + 0; if ($i ~ /^XS:i:/) xs = substr($i, 6) + 0 }
	split($1, x, "_")
	if (($4 != x[2] && $4 != x[3]) || as != 24 || xs != 24 || $5 >= 20) print $1 " at " $4 " AS " as " XS " xs " MAPQ " $5
}' "$WORK/t.sam")
[ -z "$bad" ] || fail "(t) default: a 29-base read not at one of its two equal loci with XS = AS and MAPQ below 20: $bad"
REF=ref_u.fa run t-weak t.fq --completion weak
n=$(awk -F'\t' '!/^@/ && and($2, 4) { n++ } END { print n + 0 }' "$WORK/t-weak.sam")
[ "$n" = 6 ] || fail "(t) --completion weak: $n of 6 unmapped (the premise: no exact k-mer at either locus)"
note "(t) default: six 29-base reads at one of two equal loci beyond exact seeds, XS = AS, MAPQ below 20; unmapped without the pass"

# (v): a perfect short read in a repeat family; its copy one substitution away found.
# vcheck SAM XS QLO QHI: every primary at its locus (field 2 of its name), AS 29, XS as given,
# MAPQ QLO..QHI; prints the others.
vcheck() {
	awk -F'\t' -v want_xs="$2" -v lo="$3" -v hi="$4" '!/^@/ && !and($2, 0x900) {
		as = xs = -1; for (i = 12; i <= NF; i++) { if ($i ~ /^AS:i:/) as = substr($i, 6) + 0; if ($i ~ /^XS:i:/) xs = substr($i, 6) + 0 }
		split($1, x, "_")
		if ($4 != x[2] || as != 29 || xs != want_xs || $5 < lo || $5 > hi) print $1 " at " $4 " AS " as " XS " xs " MAPQ " $5
		n++
	} END { if (n != 6) print n " primary records, not 6" }' "$1"
}
run v v.fq
bad=$(vcheck "$WORK/v.sam" 24 1 20)
[ -z "$bad" ] || fail "(v) default: a perfect 29-base read without its copy one substitution away as XS, or MAPQ above 20: $bad"
run v-weak v.fq --completion weak
bad=$(vcheck "$WORK/v-weak.sam" 19 40 60)
[ -z "$bad" ] || fail "(v) --completion weak (the premise: only the locus two substitutions behind in view): $bad"
note "(v) default: six perfect 29-base reads with XS one substitution behind (a copy without exact k-mers), MAPQ at most 20; XS two behind and MAPQ 40+ without the pass"
