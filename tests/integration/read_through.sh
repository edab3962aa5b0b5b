#!/usr/bin/env bash
# read_through.sh — pairs whose fragment is shorter than the reads, so that each read goes on
# into adapter (mapper/readthrough.h; docs/cli.md, "--read-through").
#
# A random 60 kbp reference (awk, fixed generator). 150 pairs of 150 bp reads of fragments of
# 32-145 bp on either strand (5 bases of adapter or more), each read the fragment then Illumina
# TruSeq adapter; one read in three has a substitution, and every fifth pair one at each end of
# its fragment (so each read's adapter follows a substitution). 100 pairs of 300-500 bp
# fragments, no adapter, and 3 decoy pairs of 300 bp fragments that pass the read-through test
# (their fragment's last 60 bases a copy of its first 60 with 5 substitutions, the 10 before
# them the reverse complement of the 10 after its first 60). Checks, seeded and exhaustive:
# - by default (clip) every read-through read sits at its fragment, its CIGAR the fragment's
#   length in M and its adapter soft-clipped (so a substitution at the fragment's end is aligned
#   through, as the fragment's end earns -L's bonus), SEQ and QUAL whole, a proper pair
#   with TLEN the fragment's length, MAPQ >= 20 (the reference has one copy of each locus);
# - --read-through whole maps those reads whole: a substitution just before the adapter is
#   clipped with it (so the option is what changed the records);
# - the longer fragments' records are the same either way; the decoys, cut at first, are mapped
#   again whole (150M, proper, the records of `whole`) as their placements show no 60 bp
#   fragment;
# - R1 mapped single-end: reads with 10 or more bases of the (known) adapter as the pairs' are,
#   the others as `whole` maps them; two reads of genome that holds an adapter's start (planted)
#   are cut, then mapped again whole;
# - the scalar oracle engine's records equal the CPU engine's (40 pairs, exhaustive, a fixed insert
#   model), seeded = exhaustive (all but XS), and samtools, calmd and picard accept the SAM (sam_checks).
source "$(dirname "$0")/common.bash"
need_tool samtools samtools

awk "$AWK_SEQ"'
BEGIN {
	seed = 20261128
	A1 = "AGATCGGAAGAGCACACGTCTGAACTCCAGTCACATCACGATCTCGTATGCCGTCTTCTGCTTGAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
	A2 = "AGATCGGAAGAGCGTCGTGTAGGGAAAGAGTGTAGATCTCGGTGGTCGCCGTATCATTAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
	g = randseq(60000)
	# Decoys: 300 bp fragments whose reads pass the read-through test without reading through
	# (readthrough.h): the fragment ends with a copy of its first 60 bases (5 substitutions),
	# the 10 bases before it the reverse complement of the 10 after its start.
	for (d = 0; d < 3; d++) {
		at = 5000 + 20000 * d
		x = substr(g, at, 60); y = substr(g, at + 60, 10)
		for (i = 0; i < 5; i++) x = sub1(x, 6 + 12 * i)
		g = substr(g, 1, at + 229) rc(y) x substr(g, at + 300)
		name = sprintf("d%d_%d_300_0_0", d, at)
		printf "@%s/1\n%s\n+\n%s\n", name, substr(g, at, 150), quals(150) > "'"$WORK"'/r1.fq"
		printf "@%s/2\n%s\n+\n%s\n", name, rc(substr(g, at + 150, 150)), quals(150) > "'"$WORK"'/r2.fq"
	}
	fasta("'"$WORK"'/ref.fa", "chrR", g)
	for (p = 0; p < 250; p++) {
		through = p < 150
		len = through ? 32 + rnd(114) : 300 + rnd(200)
		at = 1000 + rnd(58000 - len)
		f = substr(g, at, len)
		if (through && p % 5 == 0) f = sub1(sub1(f, 1), len)  # at both fragment ends
		else if (rnd(3) == 0) f = sub1(f, 1 + rnd(len))
		rev = rnd(2)
		a = rev ? rc(f) : f; b = rev ? f : rc(f)
		r1 = substr(a A1, 1, 150); r2 = substr(b A2, 1, 150)
		# name: pair, fragment start (1-based), length, strand of read 1, end substitution
		name = sprintf("p%d_%d_%d_%d_%d", p, at, len, rev, through && p % 5 == 0)
		printf "@%s/1\n%s\n+\n%s\n", name, r1, quals(150) > "'"$WORK"'/r1.fq"
		printf "@%s/2\n%s\n+\n%s\n", name, r2, quals(150) > "'"$WORK"'/r2.fq"
	}
}'

ref=$WORK/ref.fa
for mode in seeded exhaustive; do
	for rt in clip whole; do
		"$SCANMAP" map --mode $mode --read-through $rt "$ref" "$WORK/r1.fq" "$WORK/r2.fq" \
			>"$WORK/$mode.$rt.sam" 2>"$WORK/$mode.$rt.err" ||
			{ cat "$WORK/$mode.$rt.err" >&2; fail "scanmap --mode $mode --read-through $rt failed"; }
	done
done
sam_checks "$WORK/seeded.clip.sam" "$ref" 506

# check SAM RULE: prints each read-through read whose record breaks the rule (clip: the fragment
# aligned whole and the adapter clipped; whole: a substitution at the fragment's end clipped).
check() {
	awk -F'\t' -v rule="$2" '!/^@/ && !and($2, 0x900) {
		split($1, f, "_"); at = f[2]; len = f[3]; rev1 = f[4]; endsub = f[5]
		if (len >= 150) next
		r2 = and($2, 128) != 0; rev = and($2, 16) != 0
		want_rev = r2 ? !rev1 : rev1
		cig = rev ? (150 - len) "S" len "M" : len "M" (150 - len) "S"
		tl = (rev ? -1 : 1) * len
		if (rule == "clip" && ($4 != at || rev != want_rev || $6 != cig || !and($2, 2) ||
		    $9 != tl || $5 < 20 || length($10) != 150 || length($11) != 150))
			print $1 " R" (r2 + 1) ": POS " $4 " (want " at ") CIGAR " $6 " (want " cig ") TLEN " $9 " MAPQ " $5
		if (rule == "whole" && endsub && $6 == cig)
			print $1 " R" (r2 + 1) ": CIGAR " $6 " aligns the substitution at the fragment end"
	}' "$1"
}

for mode in seeded exhaustive; do
	bad=$(check "$WORK/$mode.clip.sam" clip)
	[[ -z $bad ]] || fail "--mode $mode, clip: $(echo "$bad" | head -n 5)"
	bad=$(check "$WORK/$mode.whole.sam" whole)
	[[ -z $bad ]] || fail "--mode $mode, --read-through whole: $(echo "$bad" | head -n 5)"
done
note "300 read-through reads (fragments 32-145 bp): at their fragment, adapter soft-clipped, proper, MAPQ >= 20; whole maps them whole"
body() { grep -v '^@' "$1"; }
decoys() { body "$1" | awk -F'\t' '$1 ~ /^d/'; }
for mode in seeded exhaustive; do
	[[ $(decoys "$WORK/$mode.clip.sam" | awk -F'\t' '$6 == "150M" && and($2, 2)' | wc -l) == 6 ]] ||
		fail "--mode $mode: decoy pairs not mapped whole: $(decoys "$WORK/$mode.clip.sam" | cut -f 1-9 | head -n 2)"
	cmp -s <(decoys "$WORK/$mode.clip.sam") <(decoys "$WORK/$mode.whole.sam") ||
		fail "--mode $mode: decoy pairs' records differ from --read-through whole's"
done
note "3 decoy pairs (their reads pass the test, their placements show no such fragment): mapped again whole"

# XS aside: seeded mode's rivals are those in its windows, exhaustive mode's the whole reference's.
placed() { body "$1" | cut -f 1-9,12-14; }
cmp -s <(placed "$WORK/seeded.clip.sam") <(placed "$WORK/exhaustive.clip.sam") ||
	fail "seeded and exhaustive records differ (clip), XS aside"
# The scalar oracle engine on the first 40 pairs: the same records as the CPU engine's.
head -n 160 "$WORK/r1.fq" >"$WORK/o1.fq"
head -n 160 "$WORK/r2.fq" >"$WORK/o2.fq"
for e in oracle cpu; do
	"$SCANMAP" map --mode exhaustive --engine $e -I 150,80,600,1 "$ref" "$WORK/o1.fq" "$WORK/o2.fq" \
		>"$WORK/o.$e.sam" 2>"$WORK/o.$e.err" || { cat "$WORK/o.$e.err" >&2; fail "--engine $e failed"; }
done
cmp -s <(body "$WORK/o.oracle.sam") <(body "$WORK/o.cpu.sam") ||
	fail "the oracle engine's records differ from the CPU engine's (40 read-through pairs)"
long() { body "$1" | awk -F'\t' '{ split($1, f, "_") } f[3] >= 150'; }
cmp -s <(long "$WORK/seeded.clip.sam") <(long "$WORK/seeded.whole.sam") ||
	fail "the 300-500 bp fragments' records differ between clip and whole"
n_diff=$(diff <(body "$WORK/seeded.clip.sam") <(body "$WORK/seeded.whole.sam") | grep -c '^<' || true)
((n_diff > 0)) || fail "clip and whole wrote the same records"
note "oracle = CPU engine (40 pairs); seeded = exhaustive (XS aside); longer fragments' records the same either way; $n_diff records differ"

# Read 1 alone, single-end: no mate, so only a known adapter shows where its fragment ends
# (sm_adapter_start: 10 of its bases or more, so fragments of up to 140 bp here). Those reads as
# with pairs (but for the pair's fields), the others mapped whole.
"$SCANMAP" map --mode seeded "$ref" "$WORK/r1.fq" >"$WORK/se.sam" 2>"$WORK/se.err" ||
	{ cat "$WORK/se.err" >&2; fail "scanmap single-end failed"; }
"$SCANMAP" map --mode seeded --read-through whole "$ref" "$WORK/r1.fq" >"$WORK/se.whole.sam" \
	2>"$WORK/se.whole.err" || fail "scanmap single-end --read-through whole failed"
bad=$(body "$WORK/se.sam" | awk -F'\t' '!and($2, 0x900) {
	split($1, f, "_"); at = f[2]; len = f[3]; rev = and($2, 16) != 0
	if (len > 140) next
	n++
	cig = rev ? (150 - len) "S" len "M" : len "M" (150 - len) "S"
	if ($4 != at || rev != f[4] || $6 != cig || $5 < 20 || length($10) != 150)
		print $1 ": POS " $4 " (want " at ") CIGAR " $6 " (want " cig ") MAPQ " $5
} END { if (n < 100) print n " reads of fragments up to 140 bp" }')
[[ -z $bad ]] || fail "single-end, clip: $(echo "$bad" | head -n 5)"
over() { body "$1" | awk -F'\t' '{ split($1, f, "_") } f[3] > 140'; }
cmp -s <(over "$WORK/se.sam") <(over "$WORK/se.whole.sam") ||
	fail "single-end: reads with under 10 adapter bases (or none) differ between clip and whole"
cmp -s <(body "$WORK/se.sam") <(body "$WORK/se.whole.sam") && fail "single-end: clip and whole wrote the same records"
note "single-end R1: reads with 10 adapter bases or more at their fragment, adapter soft-clipped, MAPQ >= 20; the others as whole maps them"

# Reads of genome that hold the adapter's first bases 100 bases in (planted in the reference,
# and its reverse complement for a reverse read): cut there first, they are mapped again whole,
# the reference going on as their "adapter" does (tail_is_genome).
awk "$AWK_SEQ"'BEGIN {
	seed = 4242
	ad = "AGATCGGAAGAGCACACGTCTGAAC"
	g = randseq(3000) ad randseq(3000) rc(ad) randseq(3000)
	fasta("'"$WORK"'/gen.fa", "chrG", g)
	printf "@fwd\n%s\n+\n%s\n", substr(g, 2901, 150), quals(150) > "'"$WORK"'/gen.fq"
	printf "@rev\n%s\n+\n%s\n", rc(substr(g, 6001, 150)), quals(150) > "'"$WORK"'/gen.fq"
}'
"$SCANMAP" map -v 4 "$WORK/gen.fa" "$WORK/gen.fq" >"$WORK/gen.sam" 2>"$WORK/gen.err" ||
	{ cat "$WORK/gen.err" >&2; fail "scanmap on the genomic adapter failed"; }
grep -q "read-through: 2 reads cut to their fragment, 2 of them mapped again whole" "$WORK/gen.err" ||
	fail "the genome's adapter-like reads: not cut and mapped again whole ($(grep read-through "$WORK/gen.err"))"
[[ $(body "$WORK/gen.sam" | awk -F'\t' '$6 == "150M" && $5 >= 20' | wc -l) == 2 ]] ||
	fail "the genome's adapter-like reads are not aligned whole: $(body "$WORK/gen.sam" | cut -f 1-6)"
note "2 reads of genome that hold an adapter's start: cut, then mapped again whole (150M)"
