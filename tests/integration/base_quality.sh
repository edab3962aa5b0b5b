#!/usr/bin/env bash
# base_quality.sh — a perfect read with a copy one substitution away: the quality of the one base
# that tells the two loci apart bounds its MAPQ (map_impl.h, sm_sub_rival_mapq), whether the copy
# is in view or found out of view by the copy look-up; and a read of a duplicated pair whose equal
# copy only mate rescue finds is not placed with confidence (pair.c, rival_of_others).
#
# Reference (awk, fixed Park-Miller generator): random background; a 150 bp unit U = P + Q (P
# 100 bp, Q 50 bp); 40 copies of P alone (P's k-mers above --max-occ 12, skipped); copy A of U;
# eight decoys P'' + Q with two substitutions each (AS 140, in view: --max-windows' 8 are the
# first clusters by position); copy B of U with one substitution at unit position 60 (AS 145);
# 2 kbp of background between all. In the small reference ("near", A and B alone) B is in view;
# in the large one it is out of view, and the look-up finds it.
#
# Reads of U (perfect at A), forward and reverse-complemented, with every quality 'I' (Q40)
# except the base at unit position 60: Q2, Q10, Q20, Q40. Expected MAPQ: the chance that the
# base is an error that made B's read look like A's, e/3 against 1 - e (e = 10^(-Q/10)), as
# -10 log10(o / (1 + o)) with o the odds, floored, and at most 19: a single read that one base
# places claims no placement (sm_unsure_cap; AS 150 against XS 145 gives 20 from the scores
# alone): 4, 14, 19, 19.
source "$(dirname "$0")/common.bash"
need_tool samtools samtools

awk -v out="$WORK" "$AWK_SEQ"'
BEGIN {
	seed = 20261127
	P = randseq(100); Q = randseq(50); U = P Q; Ub = sub1(U, 60)
	g = randseq(2000)
	for (c = 0; c < 40; c++) g = g P randseq(2000)
	a = length(g); g = g U randseq(2000)
	for (c = 0; c < 8; c++) g = g sub1(sub1(P, 10 + 9 * c), 15 + 9 * c) Q randseq(2000)
	b = length(g); g = g Ub randseq(2000)
	fasta(out "/far.fa", "chrF", g)
	h = randseq(2000); na = length(h); h = h U randseq(2000); nb = length(h); h = h Ub randseq(2000)
	fasta(out "/near.fa", "chrN", h)
	print a + 1, b + 1, na + 1, nb + 1 > (out "/loci")
	comp["A"] = "T"; comp["C"] = "G"; comp["G"] = "C"; comp["T"] = "A"
	t = ""; for (i = 150; i >= 1; i--) t = t comp[substr(U, i, 1)]
	split("# + 5 I", qc, " "); split("2 10 20 40", qv, " ")
	for (k = 1; k <= 4; k++) {
		qf = ""; for (i = 1; i <= 150; i++) qf = qf (i == 60 ? qc[k] : "I")
		qr = ""; for (i = 150; i >= 1; i--) qr = qr substr(qf, i, 1)
		printf "@f_q%s\n%s\n+\n%s\n@r_q%s\n%s\n+\n%s\n", qv[k], U, qf, qv[k], t, qr > (out "/reads.fq")
	}
}'
read -r far_a far_b near_a near_b <"$WORK/loci"

# check SAM A: every read at A (1-based) with AS 150 and the MAPQ its quality gives; prints "bad".
check() {
	awk -F'\t' -v a="$2" '!/^@/ && !and($2, 0x900) {
		q = substr($1, 4) + 0; e = 10 ^ (-q / 10); o = e / 3 / (1 - e)
		want = int(-10 * log(o / (1 + o)) / log(10)); if (want > 19) want = 19
		as = 0; for (i = 12; i <= NF; i++) if ($i ~ /^AS:i:/) as = substr($i, 6) + 0
		if ($4 != a || as != 150 || $5 != want)
			print $1 " at " $4 " AS " as " MAPQ " $5 " (want " want ")"
	}' "$1"
}

"$SCANMAP" map --mode seeded "$WORK/near.fa" "$WORK/reads.fq" >"$WORK/near.sam" 2>"$WORK/near.err" ||
	{ cat "$WORK/near.err" >&2; fail "scanmap (copy in view) failed"; }
bad=$(check "$WORK/near.sam" "$near_a")
[ -z "$bad" ] || fail "the copy one substitution away in view: $bad"
note "copy in view: MAPQ 4, 14, 19, 19 for Q2, Q10, Q20, Q40 at the base that differs, both strands"

for how in weak all; do
	"$SCANMAP" map --mode seeded --max-occ 12 --completion $how "$WORK/far.fa" "$WORK/reads.fq" \
		>"$WORK/far-$how.sam" 2>"$WORK/far-$how.err" ||
		{ cat "$WORK/far-$how.err" >&2; fail "scanmap (--completion $how) failed"; }
	# B out of view (the --completion off run below shows it): the look-up finds it.
	bad=$(check "$WORK/far-$how.sam" "$far_a")
	[ -z "$bad" ] || fail "--completion $how, the copy out of view: $bad"
	note "--completion $how: copy out of view (B at $far_b), the same MAPQ from the look-up"
done
# Without the look-up B stays unseen: XS from the decoys (140), MAPQ 40 whatever the quality.
"$SCANMAP" map --mode seeded --max-occ 12 --completion off "$WORK/far.fa" "$WORK/reads.fq" \
	>"$WORK/far-off.sam" 2>/dev/null || fail "scanmap (--completion off) failed"
awk -F'\t' '!/^@/ && !and($2, 0x900) && $5 < 21 { bad = 1 } END { exit bad }' "$WORK/far-off.sam" ||
	fail "--completion off: B should be out of view (MAPQ above 20), so the look-up is what the runs above test"
note "--completion off: B out of view indeed (MAPQ above 20 without the look-up)"

# A duplicated pair. Reference: background; 40 copies of a 100 bp P alone (over --max-occ 12);
# copy A of the fragment F = U (100 bp) + M (400 bp) + P + Q (Q 50 bp); eight decoys P'' + Q (two
# substitutions each, away from fragment position 560); copy B of F with its base at 560 changed;
# 2 kbp of background between all. Pairs from A: R1 = U (only A and B hold it: a tie) and R2 =
# the reverse complement of P + Q with its base at 560 made a third base, one substitution from A
# and from B (AS 145 at both). R2's clusters have equal votes (P's k-mers skipped, Q's in all ten
# copies), so with --max-windows 2 its windows are the first two by position: A and a decoy, B
# out of view. Mate rescue from R1's locus at B finds R2 there, so the pairs at A and at B score
# the same: both reads must get MAPQ 0, as bwa mem gives (XS counts rescued hits). Before, R2 kept
# the MAPQ of its own seeding where the pair landed at A (XS from a decoy, 135: MAPQ 39; 15 with
# --completion weak).
awk -v out="$WORK" "$AWK_SEQ"'
BEGIN {
	seed = 777
	U = randseq(100); M = randseq(400); P = randseq(100); Q = randseq(50)
	F = U M P Q; x = 560
	bb = other(substr(F, x, 1), ""); Fb = substr(F, 1, x - 1) bb substr(F, x + 1)
	g = randseq(2000)
	for (c = 0; c < 40; c++) g = g P randseq(2000)
	g = g F randseq(2000)
	for (c = 0; c < 8; c++) g = g sub1(sub1(P, 5 + 4 * c), 70 + 3 * c) Q randseq(2000)
	g = g Fb randseq(2000)
	fasta(out "/dup.fa", "chrD", g)
	comp["A"] = "T"; comp["C"] = "G"; comp["G"] = "C"; comp["T"] = "A"
	f2 = substr(F, 501, 150)
	f2 = substr(f2, 1, x - 501) other(substr(F, x, 1), bb) substr(f2, x - 500 + 1)
	r2 = ""; for (i = 150; i >= 1; i--) r2 = r2 comp[substr(f2, i, 1)]
	q = ""; for (i = 0; i < 150; i++) q = q "I"
	for (p = 0; p < 8; p++) {   # the tie goes by read name: some pairs land at A, some at B
		printf "@d%d\n%s\n+\n%s\n", p, U, substr(q, 1, 100) > (out "/dup_1.fq")
		printf "@d%d\n%s\n+\n%s\n", p, r2, q > (out "/dup_2.fq")
	}
}'
for how in all weak off; do
	# -I fixes the insert model (650 bp), which eight pairs could not estimate.
	"$SCANMAP" map --mode seeded --max-occ 12 --max-windows 2 --completion $how -I 650,20 "$WORK/dup.fa" \
		"$WORK/dup_1.fq" "$WORK/dup_2.fq" >"$WORK/dup-$how.sam" 2>"$WORK/dup.err" ||
		{ cat "$WORK/dup.err" >&2; fail "scanmap (duplicated pairs, --completion $how) failed"; }
	bad=$(awk -F'\t' '!/^@/ && !and($2, 0x900) && ($5 > 0 || !and($2, 2)) {
		print $1 "/" (and($2, 64) ? 1 : 2) " at " $4 " MAPQ " $5 " FLAG " $2 }' "$WORK/dup-$how.sam" | head -4)
	[ -z "$bad" ] || fail "--completion $how: a duplicated pair whose equal copy rescue found: $bad"
	n=$(awk -F'\t' '!/^@/ && !and($2, 0x900) && $4 < 90000' "$WORK/dup-$how.sam" | wc -l)
	[ "$n" -gt 0 ] && [ "$n" -lt 16 ] || fail "--completion $how: the ties should land at A and at B ($n of 16 reads at A)"
	note "--completion $how: duplicated pairs proper, both reads MAPQ 0 at A ($n reads) and at B"
done

# A pair of a two-copy duplicate: fragment F = U (150 bp) + M (200 bp) + V (150 bp) at A and at B,
# the copies one base apart at fragment position 430 (in V). R1 = U lies in both copies alike (a
# tie), R2 = V reverse-complemented matches A base for base and B but for that base. The pair at
# B is the pair at A's one rival; it holds only if R2's base there is a sequencing error, so the
# pair's MAPQ follows that base's quality as a single read's does (pair.c, rival_quality_weight):
# at Q40 both reads 30 or more (the scores alone gave 14-20 whatever the quality), at Q8 both at
# most 20 (odds 0.063: 12 from the base, less the reads' differences). The same again with each
# read carrying a sequencing error of its own elsewhere (R1 at base 40, R2 at base 20): an
# error is a mismatch at both copies and weighs nothing (pair.c, ungapped_odds), where a pick
# that is not base for base left the scores alone to decide (14-20). And once more with R1
# missing two bases and R2 carrying one extra: the same gaps at both copies, so the base that
# differs still decides (pair.c, aligned_odds), where gapped reads left it to the scores (18).
awk -v out="$WORK" "$AWK_SEQ"'
BEGIN {
	seed = 4242
	U = randseq(150); M = randseq(200); V = randseq(150)
	F = U M V; x = 430
	Fb = substr(F, 1, x - 1) other(substr(F, x, 1), "") substr(F, x + 1)
	g = randseq(3000) F randseq(3000) Fb randseq(3000)
	fasta(out "/pair.fa", "chrP", g)
	# A third copy of V as B has it, alone (no U before it), 3 kbp past B.
	fasta(out "/pairlone.fa", "chrP", g substr(Fb, 351) randseq(3000))
	print 3001 > (out "/pair.loci")
	r2 = rc(V)
	# The gapped pair: R1 without bases 76-77 of U, R2 with a base after its base 120 that
	# differs from both neighbours (one place for the insertion).
	g1 = substr(U, 1, 75) substr(U, 78)
	g2 = substr(r2, 1, 120) other(substr(r2, 120, 1), substr(r2, 121, 1)) substr(r2, 121)
	split("I )", qc, " "); split("40 8", qv, " ")
	for (k = 1; k <= 2; k++)
		for (p = 0; p < 4; p++) {
			q1 = ""; for (i = 0; i < 150; i++) q1 = q1 "I"
			# R2 reversed: fragment position 430 is its base 150 - (430 - 351) = 71.
			q2 = ""; for (i = 1; i <= 150; i++) q2 = q2 (i == 71 ? qc[k] : "I")
			printf "@q%s_%d\n%s\n+\n%s\n", qv[k], p, U, q1 > (out "/pair_1.fq")
			printf "@q%s_%d\n%s\n+\n%s\n", qv[k], p, r2, q2 > (out "/pair_2.fq")
			printf "@q%s_%d\n%s\n+\n%s\n", qv[k], p, sub1(U, 40), q1 > (out "/pairerr_1.fq")
			printf "@q%s_%d\n%s\n+\n%s\n", qv[k], p, sub1(r2, 20), q2 > (out "/pairerr_2.fq")
			printf "@q%s_%d\n%s\n+\n%s\n", qv[k], p, g1, substr(q1, 3) > (out "/pairgap_1.fq")
			printf "@q%s_%d\n%s\n+\n%s\n", qv[k], p, g2, q2 "I" > (out "/pairgap_2.fq")
		}
}'
read -r pair_a <"$WORK/pair.loci"
for set in pair pairerr pairgap; do
	"$SCANMAP" map --mode seeded -I 500,20 "$WORK/pair.fa" "$WORK/${set}_1.fq" "$WORK/${set}_2.fq" \
		>"$WORK/$set.sam" 2>"$WORK/$set.err" ||
		{ cat "$WORK/$set.err" >&2; fail "scanmap (duplicate pairs, $set) failed"; }
	bad=$(awk -F'\t' -v a="$pair_a" '!/^@/ && !and($2, 0x900) {
		q = substr($1, 2, index($1, "_") - 2) + 0
		lo = q == 40 ? 30 : 0; hi = q == 40 ? 60 : 20
		if (!and($2, 2) || $4 < a || $4 > a + 500 || $5 < lo || $5 > hi)
			print $1 "/" (and($2, 64) ? 1 : 2) " at " $4 " MAPQ " $5 " FLAG " $2 }' "$WORK/$set.sam" | head -4)
	[ -z "$bad" ] || fail "a duplicate pair told apart by one base of R2 ($set): $bad"
done
note "a duplicate pair told apart by one base of R2, with and without errors of the reads' own elsewhere, and gapped: both reads MAPQ 30+ at Q40, 20 or less at Q8"
# R1 ties its copy: its MAPQ is the pair's, which the base at R2's position 71 sets. The reads'
# own errors and gaps elsewhere lie at both copies alike, so they must not lower it: the same
# MAPQ in the three sets (the reads' differences are not charged again where the base
# qualities weigh the rival: pair.c, top_by_quality; before, 11 and 10 against 12 at Q8).
for set in pairerr pairgap; do
	diff <(awk -F'\t' '!/^@/ && and($2, 64) && !and($2, 0x900) { print $1, $5 }' "$WORK/pair.sam") \
		<(awk -F'\t' '!/^@/ && and($2, 64) && !and($2, 0x900) { print $1, $5 }' "$WORK/$set.sam") >&2 ||
		fail "R1's MAPQ in $set differs from the pair without errors or gaps (above: pair <, $set >)"
done
note "the tied read's MAPQ the same with the reads' own errors and gaps elsewhere"

# With a third copy of B's V alone, R2 has a place as good as the rival's B that pairs with
# nothing in view: copies of the rival whose mates lie out of view, which the one rival's odds do
# not price, so the scores decide (at most 20 whatever the quality; 30 or more before).
"$SCANMAP" map --mode seeded -I 500,20 "$WORK/pairlone.fa" "$WORK/pair_1.fq" "$WORK/pair_2.fq" \
	>"$WORK/pairlone.sam" 2>"$WORK/pairlone.err" ||
	{ cat "$WORK/pairlone.err" >&2; fail "scanmap (duplicate pairs, a lone third copy) failed"; }
bad=$(awk -F'\t' -v a="$pair_a" '!/^@/ && !and($2, 0x900) {
	if (!and($2, 2) || $4 < a || $4 > a + 500 || $5 > 20)
		print $1 "/" (and($2, 64) ? 1 : 2) " at " $4 " MAPQ " $5 " FLAG " $2 }' "$WORK/pairlone.sam" | head -4)
[ -z "$bad" ] || fail "a duplicate pair whose R2 has a third, unpaired copy as good as the rival: $bad"
note "a third copy of R2's rival, unpaired: the scores decide (both reads at most 20)"

# A single read that is not perfect: R = U (150 bp) with its base 20 changed, at A (U: one
# mismatch, AS 145) and B (U with bases 60 and 90 changed: three, AS 135); U and B alone in 2 kbp
# of background. The scores give a lead of two substitutions, less the read's one difference:
# MAPQ 39. Only bases 60 and 90 tell A from B (base 20 is a mismatch at both), so the qualities
# there, Qx at both, bound MAPQ (sm_single_odds_mapq): each base odds o = (e/3)/(1 - e), the rival
# o^2, MAPQ floor(-10 log10(o^2 / (1 + o^2))) and at most 39: 6, 28, 39, 39 for Q2, Q10, Q20, Q40,
# both strands. Before, 39 whatever the quality (two Q5-Q7 bases decided a 3 Gbp read placed
# wrong at 39).
awk -v out="$WORK" "$AWK_SEQ"'
BEGIN {
	seed = 4242
	U = randseq(150); B = sub1(sub1(U, 60), 90); R = sub1(U, 20)
	h = randseq(2000); a = length(h); h = h U randseq(2000) B randseq(2000)
	fasta(out "/two.fa", "chrT", h)
	print a + 1 > (out "/two.loci")
	comp["A"] = "T"; comp["C"] = "G"; comp["G"] = "C"; comp["T"] = "A"
	t = ""; for (i = 150; i >= 1; i--) t = t comp[substr(R, i, 1)]
	split("# + 5 I", qc, " "); split("2 10 20 40", qv, " ")
	for (k = 1; k <= 4; k++) {
		qf = ""; for (i = 1; i <= 150; i++) qf = qf (i == 60 || i == 90 ? qc[k] : "I")
		qr = ""; for (i = 150; i >= 1; i--) qr = qr substr(qf, i, 1)
		printf "@f_q%s\n%s\n+\n%s\n@r_q%s\n%s\n+\n%s\n", qv[k], R, qf, qv[k], t, qr > (out "/two.fq")
	}
}'
read -r two_a <"$WORK/two.loci"
"$SCANMAP" map --mode seeded "$WORK/two.fa" "$WORK/two.fq" >"$WORK/two.sam" 2>"$WORK/two.err" ||
	{ cat "$WORK/two.err" >&2; fail "scanmap (a read two substitutions ahead) failed"; }
bad=$(awk -F'\t' -v a="$two_a" '!/^@/ && !and($2, 0x900) {
	q = substr($1, 4) + 0; e = 10 ^ (-q / 10); o = e / 3 / (1 - e); o = o * o
	want = int(-10 * log(o / (1 + o)) / log(10)); if (want > 39) want = 39
	as = 0; for (i = 12; i <= NF; i++) if ($i ~ /^AS:i:/) as = substr($i, 6) + 0
	if ($4 != a || as != 145 || $5 != want)
		print $1 " at " $4 " AS " as " MAPQ " $5 " (want " want ")" }' "$WORK/two.sam")
[ -z "$bad" ] || fail "a single read two substitutions ahead of a copy: $bad"
note "a single read two substitutions ahead: MAPQ 6, 28, 39, 39 for Q2, Q10, Q20, Q40 where the copies differ, both strands"
