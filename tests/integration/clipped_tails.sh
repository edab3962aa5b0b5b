#!/usr/bin/env bash
# clipped_tails.sh — single-end reads that end in bases the reference does not hold (a poly-G tail
# as two-colour instruments read past a fragment's end, or an adapter) are mapped by their
# genomic part, the tail soft-clipped, and with a confident MAPQ: the refined completion
# (sm_seed_complete with refine, seed.h SM_QGRAM) settles them.
#
# Why they need it: such a read's best is a clean partial alignment well below a perfect score,
# so every chance hit of its k-mers elsewhere (its poly-G tail meets the reference's G runs, its
# genomic part the copies of a repeat) is a locus that the seeds' bounds cannot rule out, and the
# completion leaves the read unsure (MAPQ below 20) where bwa mem gives 60. Bounding each such
# candidate again from its window's bases (a read 8-mer found nowhere in the window holds a
# difference there) rules out the chance loci.
#
# Reference (awk, fixed generator): 2,000 blocks of 400-700 random bases, each followed by a copy
# of a 300 bp repeat unit with 5-20% substitutions (either strand), and a G run of 15-40 bases
# after every 60th block: 1.7 Mbp. Reads: 300 with a poly-G tail, 300 with the TruSeq adapter,
# tails of 25-55 bases, 150 bp in all, cut from anywhere in a block (so many overlap a repeat
# copy) with 0.5% substitutions, either strand.
# Checks, by default and with --read-through whole (which leaves the adapter reads whole): every
# primary at its origin with the tail soft-clipped; no read wrong at MAPQ >= 20; at least 97% at
# MAPQ >= 20; and the premise: -v 4 shows the refined completion ran for at least a fifth of the
# reads it could take (those the seeds' bounds left unsure: by default the poly-G reads, the
# adapter reads being cut at their adapter) and settled at least nine in ten.
source "$(dirname "$0")/common.bash"
need_tool samtools samtools

awk -v out="$WORK" "$AWK_SEQ"'
# put(s): appends s to the reference, written in lines of 60.
function put(s) {
	buf = buf s; total += length(s)
	while (length(buf) >= 60) { print substr(buf, 1, 60) > (out "/ref.fa"); buf = substr(buf, 61) }
}
function run_of(ch, n,   s) { s = ""; while (n-- > 0) s = s ch; return s }
function diverge(s, d,   p) { for (p = 1; p <= length(s); p++) if (rnd(1000) < d) s = sub1(s, p); return s }
BEGIN {
	seed = 20261128
	adapter = "AGATCGGAAGAGCACACGTCTGAACTCCAGTCACATCACGATCTCGTATGCCGTCTTCTGCTTG"
	unit = randseq(300)
	print ">chrC" > (out "/ref.fa")
	for (b = 0; b < 2000; b++) {
		block = randseq(400 + rnd(300))
		copy = diverge(unit, 50 + rnd(150))
		block = block (rnd(2) ? copy : rc(copy))
		if (b % 60 == 59) block = block randseq(20) run_of("G", 15 + rnd(26))
		if (b % 3 == 0 && nr < 600) {
			t = 25 + rnd(31)
			from = 1 + rnd(length(block) - (150 - t))
			g = diverge(substr(block, from, 150 - t), 5)
			if (nr % 2) { g = rc(g); st = "-" } else st = "+"
			tail = nr < 300 ? run_of("G", t) : substr(adapter, 1, t)
			printf "@r%d_%d_%s_%d\n%s\n+\n%s\n", nr, total + from, st, t, g tail, quals(150) > (out "/reads.fq")
			nr++
		}
		put(block)
	}
	if (buf != "") print buf > (out "/ref.fa")
}'

# check NAME [OPTION...]: maps the reads into NAME.sam and checks every read: at its origin (POS
# within 10 of it: a substitution near the tail can clip a few genomic bases with it), the tail
# soft-clipped (a clip of at least the tail less 5, the bases the reference may match by chance,
# at the read's 3' end: the CIGAR's end for a forward read, its start for a reverse one), none
# wrong at MAPQ >= 20 and 97% or more at MAPQ >= 20 (a poly-G tail of 30 or more also aligns to a
# G run of the reference: a supplementary record, as bwa mem writes one); sets refined and
# settled from -v 4's count of the refined completion.
check() {
	local name=$1 n bad q20 wrong line
	shift
	"$SCANMAP" map -v 4 -t 2 "$@" "$WORK/ref.fa" "$WORK/reads.fq" >"$WORK/$name.sam" 2>"$WORK/$name.err" ||
		{ cat "$WORK/$name.err" >&2; fail "scanmap $* failed"; }
	sam_checks "$WORK/$name.sam" "$WORK/ref.fa" 600
	awk -F'\t' '!/^@/ && !and($2, 0x900) {
		split($1, x, "_")
		n++
		at = $4 >= x[2] - 10 && $4 <= x[2] + 10
		clip = 0
		if (x[3] == "+" && match($6, /[0-9]+S$/)) clip = substr($6, RSTART, RLENGTH - 1) + 0
		if (x[3] == "-" && match($6, /^[0-9]+S/)) clip = substr($6, 1, RLENGTH - 1) + 0
		if (!at || clip < x[4] - 5) { bad++; if (bad <= 5) print "not at its origin or tail not clipped: " $1 " " $2 " " $4 " " $5 " " $6 > "/dev/stderr" }
		if ($5 >= 20) { q20++; if (!at) wrong++ }
	} END { printf "%d %d %d %d\n", n, bad + 0, q20 + 0, wrong + 0 }' "$WORK/$name.sam" >"$WORK/$name.counts"
	read -r n bad q20 wrong <"$WORK/$name.counts"
	[ "$n" = 600 ] || fail "$name: $n primary records, not 600"
	[ "$bad" = 0 ] || fail "$name: $bad reads not at their origin with the tail soft-clipped"
	[ "$wrong" = 0 ] || fail "$name: $wrong reads away from their origin at MAPQ >= 20"
	((q20 * 100 >= 600 * 97)) || fail "$name: only $q20 of 600 reads at MAPQ >= 20"
	note "$name: 600 reads at their origin, tails soft-clipped; $q20 at MAPQ >= 20, none wrong"
	line=$(grep -o 'refined completion: [0-9]* reads, [0-9]* of them settled' "$WORK/$name.err" || true)
	[ -n "$line" ] || fail "$name: -v 4 shows no refined completion: the seeds' bounds settled every read (premise)"
	read -r refined settled < <(echo "$line" | awk '{ print $3, $5 }')
	((settled * 10 >= refined * 9)) || fail "$name: the refined completion settled $settled of $refined reads"
}

# By default the adapter reads are cut at their adapter (single reads, --read-through clip), so
# the poly-G reads are those the refined completion settles.
check clip
grep -q "read-through: 300 reads cut to their fragment, 0 of them mapped again whole" "$WORK/clip.err" ||
	fail "clip: the 300 adapter reads are not all cut at their adapter ($(grep read-through "$WORK/clip.err"))"
((refined * 5 >= 300)) || fail "clip: the refined completion ran for $refined reads only (premise: a fifth of the poly-G reads or more)"
note "clip: the 300 adapter reads cut at their adapter; the refined completion ran for $refined reads the seeds' bounds left unsure, settled $settled"
# Mapped whole, the adapter reads need the refined completion too.
check whole --read-through whole
((refined * 5 >= 600)) || fail "whole: the refined completion ran for $refined reads only (premise: a fifth or more)"
note "whole: the refined completion ran for $refined reads, settled $settled"
