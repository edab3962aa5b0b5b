#!/usr/bin/env bash
# cut_ties.sh — a read whose candidate list is full of ties (res_t.ties_cut) is rescued beside its
# mate even when one of its candidates already pairs there (pair.c, rescue_mate).
#
# tests/integration/data/cut_ties.fa: human chr20 (GRCh37, Debian vt-examples) 60,786,001-60,790,000,
# a VNTR. The pair (dwgsim, 2x36, the seed-8 set of results/accuracy.md "Read lengths"): read 1
# one sequencing error from its origin at 2,626 and the same one base from the unit's other
# copies (on chr20 it ties at more of them than its lists hold), read 2 unique at 2,848. Read 1's candidates held
# the copy at 2,454, which pairs at insert 430 (2.6 sd out under the run's -I 303,49), not its
# origin's at insert 258 (0.9 sd): rescue was skipped as read 1 already paired, and the pair went
# to 2,454 at MAPQ 40. Now rescue scans read 1's window beside read 2 too, and the pair goes
# to the origin, with a MAPQ that prices the other copy (12).
source "$(dirname "$0")/common.bash"

data=$ROOT/tests/integration/data
"$SCANMAP" map -I 303.2,48.8,499,107 "$data/cut_ties.fa" "$data/cut_ties_1.fq" "$data/cut_ties_2.fq" \
	>"$WORK/cut.sam" 2>"$WORK/cut.err" || { cat "$WORK/cut.err" >&2; fail "scanmap failed"; }
got=$(awk -F'\t' '!/^@/ && !and($2, 0x900) { printf "%s%s:%s:%s", sep, and($2, 64) ? 1 : 2, $4, $5; sep = " " }' \
	"$WORK/cut.sam")
bad=$(awk -F'\t' '!/^@/ && !and($2, 0x900) {
	if (!and($2, 2) || (and($2, 64) && ($4 != 2626 || $5 > 19)) || (and($2, 128) && $4 != 2848))
		print $1 " FLAG " $2 " at " $4 " MAPQ " $5 }' "$WORK/cut.sam")
[ -z "$bad" ] || fail "the VNTR pair: $bad"
note "the VNTR pair: read:position:MAPQ $got (read 1's origin 2626, proper, MAPQ <= 19)"
