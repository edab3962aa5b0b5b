#!/usr/bin/env bash
# read_forms.sh — the read records bwa mem and minimap2 take besides four-line FASTQ, mapped as
# they map them (docs/cli.md, "Inputs"):
#   - a read trimmed to nothing (an adapter trimmer's zero-length record) is written unmapped,
#     SEQ and QUAL '*', and its mate is mapped as a read of its own (mate unmapped, flag 0x8);
#     every other pair's records stay what they are without the trimmed reads;
#   - FASTA records ('>' header, sequence over several lines) are reads without qualities: QUAL
#     '*', the same placements as the FASTQ reads;
#   - '.' in SEQ is an N.
# Runs are repeated with the oracle engine, which takes the batched path of the GPU engine (in
# exhaustive mode, where it scans the whole reference slowly, the trimmed pairs' run only).
#
# Reference (awk, fixed generator): 60 kbp of random bases. Pairs: 400 fragments of 300-500 bp,
# 100 bp reads with one substitution in twenty, varied qualities. Insert model fixed (-I) so that
# leaving reads out does not move it.
source "$(dirname "$0")/common.bash"
need_tool samtools samtools

awk -v out="$WORK" "$AWK_SEQ"'
BEGIN {
	seed = 20261128
	g = randseq(60000)
	fasta(out "/ref.fa", "chrR", g)
	for (k = 0; k < 400; k++) {
		f = 300 + rnd(201); p = 1 + rnd(length(g) - f)
		frag = substr(g, p, f)
		if (rnd(2)) frag = rc(frag)
		r1 = substr(frag, 1, 100); r2 = rc(substr(frag, f - 99, 100))
		for (i = 1; i <= 100; i++) {
			if (rnd(20) == 0) r1 = sub1(r1, i)
			if (rnd(20) == 0) r2 = sub1(r2, i)
		}
		q1 = ""; q2 = ""
		for (i = 0; i < 100; i++) {
			q1 = q1 substr("#+5?I", 1 + rnd(5), 1); q2 = q2 substr("#+5?I", 1 + rnd(5), 1)
		}
		printf "@p%d\n%s\n+\n%s\n", k, r1, q1 > (out "/r1.fq")
		printf "@p%d\n%s\n+\n%s\n", k, r2, q2 > (out "/r2.fq")
	}
}'
I=400,58,700,100
# Records without qualities (trimmed reads, FASTA reads) are what the input gave; picard warns of
# each (as it does of bwa mem's records of FASTA reads).
SAM_PICARD_IGNORE=IGNORE=QUALITY_NOT_STORED

# trim FQ EVERY: FQ with every EVERY-th read (from the first) trimmed to nothing.
trim() { awk -v e="$2" 'NR % 4 == 1 { t = (NR - 1) / 4 % e == 0 } NR % 4 == 2 || NR % 4 == 0 { if (t) $0 = "" } 1' "$1"; }
trim "$WORK/r1.fq" 7 >"$WORK/t1.fq"
trim "$WORK/r2.fq" 5 >"$WORK/t2.fq"
# FASTA of FQ, its sequence over two lines.
to_fasta() { awk 'NR % 4 == 1 { print ">" substr($0, 2) } NR % 4 == 2 { print substr($0, 1, 60); print substr($0, 61) }' "$1"; }
to_fasta "$WORK/r1.fq" >"$WORK/r1.fa"
to_fasta "$WORK/r2.fq" >"$WORK/r2.fa"
# Every 9th read of R1 with a '.' where it has an N in the copy compared with.
awk 'NR % 4 == 2 && (NR - 2) / 4 % 9 == 0 { $0 = substr($0, 1, 30) "." substr($0, 32) } 1' "$WORK/r1.fq" >"$WORK/dot1.fq"
awk 'NR % 4 == 2 && (NR - 2) / 4 % 9 == 0 { $0 = substr($0, 1, 30) "N" substr($0, 32) } 1' "$WORK/r1.fq" >"$WORK/n1.fq"

# run NAME ARGS...: maps into NAME.sam with the CPU engine and again with the oracle engine
# (unless ORACLE=0); the two must be the same file.
run() {
	local name=$1 e engines=cpu
	shift
	[[ ${ORACLE:-1} == 0 ]] || engines="cpu oracle"
	for e in $engines; do
		"$SCANMAP" map -t 2 --engine "$e" -I "$I" "$@" >"$WORK/$name.$e.sam" 2>"$WORK/$name.$e.err" ||
			{ cat "$WORK/$name.$e.err" >&2; fail "scanmap ($name, engine $e) failed"; }
	done
	[[ $engines == cpu ]] || cmp -s <(grep -v '^@PG' "$WORK/$name.cpu.sam") <(grep -v '^@PG' "$WORK/$name.oracle.sam") ||
		fail "$name: the oracle engine's records differ from the CPU engine's"
	cp "$WORK/$name.cpu.sam" "$WORK/$name.sam"
}
body() { grep -v '^@' "$1"; }

for mode in seeded exhaustive; do
	oracle_all=1; [[ $mode == exhaustive ]] && oracle_all=0
	note "$mode: pairs with reads trimmed to nothing"
	ORACLE=$oracle_all run "whole.$mode" --mode "$mode" "$WORK/ref.fa" "$WORK/r1.fq" "$WORK/r2.fq"
	run "trim.$mode" --mode "$mode" "$WORK/ref.fa" "$WORK/t1.fq" "$WORK/t2.fq"
	ORACLE=$oracle_all run "single.$mode" --mode "$mode" "$WORK/ref.fa" "$WORK/r1.fq"
	ORACLE=$oracle_all run "tsingle.$mode" --mode "$mode" "$WORK/ref.fa" "$WORK/t1.fq"
	sam_checks "$WORK/trim.$mode.sam" "$WORK/ref.fa" 800
	sam_checks "$WORK/tsingle.$mode.sam" "$WORK/ref.fa" 400
	[[ $(body "$WORK/whole.$mode.sam" | awk '$2 % 8 < 4' | wc -l) -ge 780 ]] ||
		fail "$mode: fewer than 780 of 800 untrimmed reads mapped"

	# Trimmed reads: unmapped, '*' for SEQ and QUAL; their mates: flag 0x8, and where the mate
	# has bases, placed as in the single-end run of R1 (for R1 reads) or mapped at all (R2).
	bad=$(paste <(body "$WORK/trim.$mode.sam") <(body "$WORK/whole.$mode.sam") | awk -F'\t' '
		{ n = NR - 1; k = int(n / 2); r1 = n % 2 == 0
		  t = r1 ? k % 7 == 0 : k % 5 == 0; tm = r1 ? k % 5 == 0 : k % 7 == 0
		  split($0, f, "\t"); m = int(NF / 2)
		  if (t && (and(f[2], 4) == 0 || f[10] != "*" || f[11] != "*")) { print "trimmed " f[1] " " f[2] " " f[10]; next }
		  if (!t && tm && and(f[2], 8) == 0) { print "mate of a trimmed read without 0x8: " f[1] " " f[2]; next }
		  if (!t && !tm) { for (i = 1; i <= m; i++) if (f[i] != f[i + m]) { print "untrimmed pair changed: " f[1] " field " i; next } } }')
	[[ -z $bad ]] || fail "$mode: $(head -n 3 <<<"$bad")"
	# An R1 read whose mate was trimmed: as the single-end run places it (RNAME POS MAPQ CIGAR,
	# AS); pairs p0, p5, p10, ... lost their R2.
	bad=$(paste <(body "$WORK/trim.$mode.sam" | awk 'NR % 2 == 1') <(body "$WORK/single.$mode.sam") | awk -F'\t' '
		{ k = NR - 1; if (k % 5 || k % 7 == 0) next; split($0, f, "\t"); m = int(NF / 2)
		  as1 = as2 = "-"; for (i = 12; i <= m; i++) if (f[i] ~ /^AS:i:/) as1 = f[i]
		  for (i = m + 12; i <= NF; i++) if (f[i] ~ /^AS:i:/) as2 = f[i]
		  if (f[3] != f[m + 3] || f[4] != f[m + 4] || f[5] != f[m + 5] || f[6] != f[m + 6] || as1 != as2)
			print f[1] ": " f[3] ":" f[4] " MAPQ " f[5] " " f[6] " " as1 " against single-end " f[m + 3] ":" f[m + 4] " MAPQ " f[m + 5] " " f[m + 6] " " as2 }')
	[[ -z $bad ]] || fail "$mode: a read whose mate was trimmed is not mapped as a read of its own: $(head -n 3 <<<"$bad")"
	# Single-end: the trimmed reads unmapped, the others as before.
	bad=$(paste <(body "$WORK/tsingle.$mode.sam") <(body "$WORK/single.$mode.sam") | awk -F'\t' '
		{ split($0, f, "\t"); m = int(NF / 2)
		  if ((NR - 1) % 7 == 0) { if (f[2] != 4 || f[10] != "*" || f[11] != "*") print "trimmed " f[1] " " f[2]; next }
		  for (i = 1; i <= m; i++) if (f[i] != f[i + m]) { print "changed: " f[1]; next } }')
	[[ -z $bad ]] || fail "$mode single-end: $(head -n 3 <<<"$bad")"

	note "$mode: FASTA reads"
	ORACLE=$oracle_all run "fasta.$mode" --mode "$mode" "$WORK/ref.fa" "$WORK/r1.fa" "$WORK/r2.fa"
	sam_checks "$WORK/fasta.$mode.sam" "$WORK/ref.fa" 800
	bad=$(paste <(body "$WORK/fasta.$mode.sam") <(body "$WORK/whole.$mode.sam") | awk -F'\t' '
		{ split($0, f, "\t"); m = int(NF / 2)
		  if (f[11] != "*") { print "QUAL of " f[1] " is not *"; next }
		  for (i = 1; i <= m; i++) if (i != 5 && i != 11 && f[i] != f[i + m]) { print f[1] " field " i ": " f[i] " against " f[i + m]; next } }')
	[[ -z $bad ]] || fail "$mode: FASTA reads placed otherwise than the FASTQ reads: $(head -n 3 <<<"$bad")"

	note "$mode: '.' in SEQ"
	ORACLE=$oracle_all run "dot.$mode" --mode "$mode" "$WORK/ref.fa" "$WORK/dot1.fq"
	ORACLE=$oracle_all run "n.$mode" --mode "$mode" "$WORK/ref.fa" "$WORK/n1.fq"
	cmp -s <(body "$WORK/dot.$mode.sam") <(body "$WORK/n.$mode.sam") ||
		fail "$mode: reads with '.' are not mapped as with N there"
done
echo "PASS: trimmed, FASTA and '.' reads in seeded and exhaustive mode, CPU and oracle engines"
