#!/usr/bin/env bash
# A seeded window that cuts a read's alignment short, and the pair that restores it.
# tests/integration/data/window_cut.fa.gz: 10 kbp of human chr20 (GRCh37, 62,236,001-62,246,000),
# a tandem repeat of ~34 bp units around a unique stretch; window_cut_{1,2}.fq: one ART NovaSeq-like
# pair from it (read 2 at 4,876, five substitutions, its first 30 bases in the repeat). Read 2's
# seeds at its locus are outvoted by the repeat's clusters, and the window that holds its end
# starts 10 bases after the read does: in that window the best alignment is 10S140M (AS 115),
# while 150M scores 125 (exhaustive mode). The read alone is unsure (its seeding cannot rule out a
# better alignment), so its MAPQ stays below 20. In the pair its mate is sure and would vouch for
# it: so pairing scans the mate's whole proper window for an unsure read, as for a rescue, and the
# read gets 150M, AS 125, the exhaustive optimum. Checks: single-end, AS 115 and MAPQ < 20 (or
# 125); paired, read 2 at 4,876 with 150M and AS 125, as exhaustive mode gives it.
source "$(dirname "$0")/common.bash"

data=$ROOT/tests/integration/data
zcat "$data/window_cut.fa.gz" >"$WORK/ref.fa"
field() { awk -F'\t' -v f="$1" '!/^@/ && !and($2, 0x900) && (!sel || and($2, sel)) {
	for (i = 12; i <= NF; i++) if ($i ~ "^" f ":") { print $4, $5, $6, substr($i, 6); exit } }' sel="$2"; }
"$SCANMAP" map --mode seeded "$WORK/ref.fa" "$data/window_cut_2.fq" >"$WORK/se.sam" 2>"$WORK/se.err" ||
	{ cat "$WORK/se.err" >&2; fail "scanmap (single-end) failed"; }
read -r pos mapq cigar as < <(field AS 0 <"$WORK/se.sam")
[ "$as" = 125 ] || { [ "$as" = 115 ] && [ "$mapq" -lt 20 ]; } ||
	fail "single-end: read 2 at $pos $cigar AS $as MAPQ $mapq (want AS 125, or 115 below MAPQ 20)"
for mode in seeded exhaustive; do
	"$SCANMAP" map --mode $mode -I 369,30 "$WORK/ref.fa" "$data/window_cut_1.fq" "$data/window_cut_2.fq" \
		>"$WORK/$mode.sam" 2>"$WORK/$mode.err" || { cat "$WORK/$mode.err" >&2; fail "scanmap --mode $mode failed"; }
done
read -r pos mapq cigar as < <(field AS 128 <"$WORK/seeded.sam")
[ "$pos $cigar $as" = "4876 150M 125" ] || fail "paired: read 2 at $pos $cigar AS $as MAPQ $mapq (want 4876 150M AS 125)"
read -r epos emapq ecigar eas < <(field AS 128 <"$WORK/exhaustive.sam")
[ "$epos $ecigar $eas" = "$pos $cigar $as" ] || fail "exhaustive mode gives read 2 $epos $ecigar AS $eas"
note "single-end: read 2 AS $(field AS 0 <"$WORK/se.sam" | cut -d' ' -f4) (MAPQ < 20 if cut short); paired: 150M AS 125 at 4,876 as in exhaustive mode"
