#!/usr/bin/env bash
# seeded_repeats.sh — seeded mode reaches a read's one exact copy among many diverged copies of
# its sequence (docs/seeded.md, "Completion pass").
#
# A reference made here (awk, fixed Park-Miller generator): 200 kbp of random background, then
# COPIES copies of a 400 bp unit, each with a substitution every 16-31 bases (so that about a
# third of the unit's 15-mers survive in each copy: every minimizer of a read from the unit has
# hundreds of hits), then one exact copy of the unit, then background again. Reads of 150 bp
# from the exact copy, both strands, exact or with 1-2 mismatches, score 150 (140, 145) there and
# at most about 125 in any diverged copy. Run with --max-occ 20: the unit's minimizers are all
# frequent (over 10 x --max-occ, the completion pass's own limit, too), so the first pass only
# sees chance hits and the reads need the completion pass's fallback to every k-mer.
# Checks, with --completion all, for each read: primary on the exact copy, its strand, AS equal
# to its score there, MAPQ above SM_MAPQ_UNSURE (15: the completion pass ruled every other locus
# out) and >= 20 for the exact reads (XS <= 130); the same run with --engine oracle gives the
# same SAM. With --completion weak a read not at its exact copy has MAPQ <= 15.
# With a second exact copy of the unit (ref2.fa) no read gets MAPQ >= 20, with either setting: a rival as
# good as the hit, seen, makes MAPQ 0; unseen, the read is unsure (weak) or completed (all).
# (Before the completion pass every one of these reads went to a diverged copy, AS 119-125.)
source "$(dirname "$0")/common.bash"

copies=600
unit=400
awk -v copies=$copies -v unit=$unit -v out="$WORK" "$AWK_SEQ"'
BEGIN {
	seed = 20260401
	u = randseq(unit)
	g = randseq(100000)
	for (c = 0; c < copies; c++) {
		# a substitution every 16..31 bases, from a random offset
		s = ""; i = 1 + rnd(16); prev = 1
		while (i <= unit) {
			ch = substr(u, i, 1); b = ch
			while (b == ch) b = substr("ACGT", rnd(4) + 1, 1)
			s = s substr(u, prev, i - prev) b
			prev = i + 1
			i += 16 + rnd(16)
		}
		s = s substr(u, prev)
		g = g s randseq(50 + rnd(100))
	}
	exact = length(g)            # 0-based start of the exact copy
	g = g u randseq(100000)
	fasta(out "/ref.fa", "chrR", g)
	# ref2.fa: the same with a second exact copy further on, a rival of
	# every read as good as its copy
	g2 = g randseq(5000)
	print length(g2) - exact > (out "/shift2")
	g2 = g2 u randseq(2000)
	fasta(out "/ref2.fa", "chrR", g2)
	comp["A"] = "T"; comp["C"] = "G"; comp["G"] = "C"; comp["T"] = "A"
	n = 0
	for (off = 0; off + 150 <= unit; off += 25) for (mm = 0; mm <= 2; mm++) for (rev = 0; rev <= 1; rev++) {
		r = substr(u, off + 1, 150)
		for (m = 0; m < mm; m++) {   # mismatches at 40 and 100
			p = m ? 100 : 40
			ch = substr(r, p + 1, 1); b = ch
			while (b == ch) b = substr("ACGT", rnd(4) + 1, 1)
			r = substr(r, 1, p) b substr(r, p + 2)
		}
		if (rev) { t = ""; for (i = 150; i >= 1; i--) t = t comp[substr(r, i, 1)]; r = t }
		q = ""; for (i = 0; i < 150; i++) q = q "I"
		printf "@r%d_%d_%s_%d\n%s\n+\n%s\n", n++, exact + off + 1, rev ? "-" : "+", 150 - 5 * mm, r, q > (out "/reads.fq")
	}
}'
n_reads=$(($(wc -l <"$WORK/reads.fq") / 4))
note "$n_reads reads from the exact copy among $copies diverged ones"

"$SCANMAP" map --mode seeded --max-occ 20 --completion all "$WORK/ref.fa" "$WORK/reads.fq" \
	>"$WORK/out.sam" 2>"$WORK/out.err" || { cat "$WORK/out.err" >&2; fail "scanmap failed"; }
bad=$(awk -F'\t' '!/^@/ && !and($2, 0x900) {
	split($1, f, "_")
	as = 0; for (i = 12; i <= NF; i++) if ($i ~ /^AS:i:/) as = substr($i, 6) + 0
	strand = and($2, 16) ? "-" : "+"
	if ($4 != f[2] || strand != f[3] || as != f[4] || $5 <= 15 || (as == 150 && $5 < 20))
		print $1 " at " $4 strand " AS " as " MAPQ " $5
}' "$WORK/out.sam")
[ -z "$bad" ] || fail "reads not at their exact copy with AS = their score there and the MAPQ of a sure placement:
$bad"

"$SCANMAP" map --mode seeded --max-occ 20 --completion all --engine oracle "$WORK/ref.fa" \
	"$WORK/reads.fq" >"$WORK/oracle.sam" 2>/dev/null || fail "scanmap --engine oracle failed"
cmp -s <(grep -v '^@PG' "$WORK/out.sam") <(grep -v '^@PG' "$WORK/oracle.sam") ||
	fail "--engine cpu and --engine oracle differ"
note "--completion all: every read at its exact copy, AS its score there, MAPQ > 15 (>= 20 when exact)"

"$SCANMAP" map --mode seeded --max-occ 20 --completion weak "$WORK/ref.fa" "$WORK/reads.fq" \
	>"$WORK/weak.sam" 2>"$WORK/weak.err" || { cat "$WORK/weak.err" >&2; fail "scanmap --completion weak failed"; }
read -r n_away bad < <(awk -F'\t' '!/^@/ && !and($2, 0x900) {
	split($1, f, "_")
	strand = and($2, 16) ? "-" : "+"
	if ($4 != f[2] || strand != f[3]) { away++; if ($5 > 15) bad++ }
} END { print away + 0, bad + 0 }' "$WORK/weak.sam")
[ "$bad" -eq 0 ] || fail "--completion weak: $bad reads away from their exact copy with MAPQ > 15"
note "--completion weak: $n_away of $n_reads reads away from their exact copy, every one at MAPQ <= 15"

shift2=$(cat "$WORK/shift2")
for how in all weak; do
	"$SCANMAP" map --mode seeded --max-occ 20 --completion $how "$WORK/ref2.fa" "$WORK/reads.fq" \
		>"$WORK/two.$how.sam" 2>"$WORK/two.err" || { cat "$WORK/two.err" >&2; fail "scanmap (two copies, $how) failed"; }
	read -r n_conf n_copy bad < <(awk -F'\t' -v shift2="$shift2" -v how=$how '!/^@/ && !and($2, 0x900) {
		split($1, f, "_")
		as = 0; for (i = 12; i <= NF; i++) if ($i ~ /^AS:i:/) as = substr($i, 6) + 0
		strand = and($2, 16) ? "-" : "+"
		at_copy = strand == f[3] && ($4 == f[2] || $4 == f[2] + shift2) && as == f[4]
		if ($5 >= 20) { conf++; print $1 " at " $4 strand " AS " as " MAPQ " $5 > "/dev/stderr" }
		if (at_copy) copy++; else if (how == "all") bad++
	} END { print conf + 0, copy + 0, bad + 0 }' "$WORK/two.$how.sam" 2>"$WORK/two.bad")
	[ "$n_conf" -eq 0 ] || fail "two exact copies, --completion $how: $n_conf reads at MAPQ >= 20:
$(head -n 5 "$WORK/two.bad")"
	[ "$bad" -eq 0 ] || fail "two exact copies, --completion all: $bad reads at neither copy or below their score there"
	note "two exact copies, --completion $how: $n_copy of $n_reads reads at one of them, none at MAPQ >= 20"
done

