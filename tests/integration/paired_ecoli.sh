#!/usr/bin/env bash
# paired_ecoli.sh — a paired-end run against E. coli K-12 (seeded mode).
#
# 1000 pairs of 2x150 bp simulated by dwgsim (fixed seed; insert 500 +- 50,
# errors, SNPs and indels, 5% random pairs) plus one pair whose R2 has a
# mismatch every 8 bases, so that none of its 15-mers is in the reference and
# only mate rescue can place it.  Checks: samtools quickcheck and flagstat
# (every read once, as many R1 as R2, >= 90% properly paired); picard
# ValidateSamFile (mate fields included); samtools fixmate agrees on FLAG,
# RNEXT, PNEXT and TLEN of every record; the insert size reported near 500;
# >= 97% of the reads of non-random pairs placed within 20 bp of their
# origin, none wrongly placed with MAPQ >= 20; the rescued pair proper; -t 1 and -t 2 give the same records,
# and so does the oracle engine (the batched tracebacks the GPU engine runs);
# BGZF input the same records as its text; -N 2 adds secondaries (0x100, SEQ '*') without changing
# primaries.
source "$(dirname "$0")/common.bash"
source "$(dirname "$0")/seeded_genomes.bash"

need_tool dwgsim dwgsim
need_tool samtools samtools
min_proper_pct=90
min_placed_pct=97
max_dist=20

ref=$(ecoli_fasta)
zcat "$ref" >"$WORK/ecoli.fa"
note "simulating 1000 pairs (dwgsim seed 5)"
dwgsim -z 5 -N 1000 -1 150 -2 150 -e 0.01 -E 0.02 -r 0.002 -R 0.2 -y 0.05 \
	"$WORK/ecoli.fa" "$WORK/sim" >"$WORK/dwgsim.log" 2>&1 || fail "dwgsim failed"
r1=$WORK/r1.fq r2=$WORK/r2.fq
zcat "$WORK/sim.bwa.read1.fastq.gz" >"$r1"
zcat "$WORK/sim.bwa.read2.fastq.gz" >"$r2"
# The rescue pair: R1 forward at 200001, R2 reverse ending at 200500.
seq_at() { awk -v s="$1" -v n="$2" '!/^>/ { g = g $0 } END { print substr(g, s, n) }' "$WORK/ecoli.fa"; }
mate=$(seq_at 200351 150 | awk '{ s = ""; for (i = 1; i <= length($0); i++) {
	b = substr($0, i, 1); if (i % 8 == 0) b = substr("CGTA", index("ACGT", b), 1); s = s b }
	print s }' | rev | tr ACGT TGCA)
q150=$(printf '%150s' '' | tr ' ' I)
printf '@rescue/1\n%s\n+\n%s\n' "$(seq_at 200001 150)" "$q150" >>"$r1"
printf '@rescue/2\n%s\n+\n%s\n' "$mate" "$q150" >>"$r2"

rg='@RG\tID:sim\tSM:ecoli\tPL:ILLUMINA'
note "mapping, -t 2 and -t 1"
"$SCANMAP" map -t 2 -R "$rg" "$WORK/ecoli.fa" "$r1" "$r2" >"$WORK/t2.sam" 2>"$WORK/t2.err" ||
	{ cat "$WORK/t2.err" >&2; fail "scanmap map -t 2 failed"; }
cat "$WORK/t2.err"
"$SCANMAP" map -t 1 -R "$rg" "$WORK/ecoli.fa" "$r1" "$r2" >"$WORK/t1.sam" 2>/dev/null || fail "-t 1 failed"
cmp -s <(grep -v '^@PG' "$WORK/t1.sam") <(grep -v '^@PG' "$WORK/t2.sam") || fail "-t 1 and -t 2 differ"
# The oracle engine runs each seeding pass's tracebacks in one engine call, the
# GPU engine's path (map.c trace_batch): the same records as the CPU engine's.
"$SCANMAP" map -t 2 --engine oracle -R "$rg" "$WORK/ecoli.fa" "$r1" "$r2" >"$WORK/oracle.sam" \
	2>/dev/null || fail "--engine oracle failed"
cmp -s <(grep -v '^@PG' "$WORK/oracle.sam") <(grep -v '^@PG' "$WORK/t2.sam") ||
	fail "--engine oracle (batched tracebacks) and --engine cpu differ"

# BGZF input (samtools fastq writes .gz files as BGZF) inflates on threads of
# its own (io/inflate.h; -t 8: two per file): the same records as its text.
note "BGZF input on inflate threads against its plain text"
samtools import -1 "$r1" -2 "$r2" -o "$WORK/pairs.bam" 2>/dev/null || fail "samtools import"
samtools fastq -1 "$WORK/b1.fq.gz" -2 "$WORK/b2.fq.gz" -0 /dev/null -s /dev/null "$WORK/pairs.bam" \
	2>/dev/null || fail "samtools fastq"
for b in b1 b2; do
	[[ $(head -c 14 "$WORK/$b.fq.gz" | tail -c 2) == BC ]] || fail "$b.fq.gz is not BGZF"
	zcat "$WORK/$b.fq.gz" >"$WORK/$b.fq"
done
"$SCANMAP" map -t 8 "$WORK/ecoli.fa" "$WORK/b1.fq.gz" "$WORK/b2.fq.gz" >"$WORK/bgzf.sam" 2>/dev/null ||
	fail "BGZF input failed"
"$SCANMAP" map -t 8 "$WORK/ecoli.fa" "$WORK/b1.fq" "$WORK/b2.fq" >"$WORK/text.sam" 2>/dev/null ||
	fail "the same pairs as text failed"
[[ $(grep -vc '^@' "$WORK/bgzf.sam") -ge 2000 ]] || fail "BGZF input: too few records"
cmp -s <(grep -v '^@PG' "$WORK/bgzf.sam") <(grep -v '^@PG' "$WORK/text.sam") ||
	fail "BGZF input and its text give different records"
sam=$WORK/t2.sam

samtools quickcheck "$sam" || fail "samtools quickcheck"
samtools flagstat "$sam" >"$WORK/flagstat.txt"
cat "$WORK/flagstat.txt"
grep -q '^2002 + 0 primary$' "$WORK/flagstat.txt" || fail "flagstat: not one primary record per read"
grep -q '^1001 + 0 read1$' "$WORK/flagstat.txt" || fail "flagstat: read1 count"
grep -q '^1001 + 0 read2$' "$WORK/flagstat.txt" || fail "flagstat: read2 count"
proper=$(awk '/properly paired/ { print $1 }' "$WORK/flagstat.txt")
((100 * proper >= min_proper_pct * 2002)) || fail "only $proper of 2002 reads properly paired"
grep -Eq 'insert size from [0-9]+ of the first 1001 pairs: mean (49[0-9]|50[0-9])\.' "$WORK/t2.err" ||
	fail "insert size not reported near 500"

samtools fixmate -O sam "$sam" "$WORK/fixmate.sam" || fail "samtools fixmate failed"
cmp -s <(grep -v '^@' "$sam" | cut -f 1-9 | sort) <(grep -v '^@' "$WORK/fixmate.sam" | cut -f 1-9 | sort) ||
	fail "samtools fixmate changes mate fields"
if command -v PicardCommandLine >/dev/null 2>&1; then
	picard_validate "$sam" "$WORK/picard.log"
	note "picard ValidateSamFile: no errors"
fi

awk -F '\t' '$1 == "rescue" && !and($2, 256) { if (and($2, 3) == 3 && !and($2, 4)) ok++ }
	END { exit ok != 2 }' "$sam" || fail "the rescue pair is not a mapped proper pair"

# dwgsim names: CONTIG_POS1_POS2_STRAND1_STRAND2_RAND1_RAND2_... (POS 1-based).
awk -F '\t' -v d="$max_dist" -v pct="$min_placed_pct" '
	!/^@/ && !and($2, 256) && $1 != "rescue" {
		k = split($1, f, "_")
		if (f[k - 3] == 1) next          # random pair
		n++
		truth = and($2, 64) ? f[k - 8] : f[k - 7]
		clip = ($6 ~ /^[0-9]+S/) ? substr($6, 1, index($6, "S") - 1) : 0
		if (!and($2, 4) && ($4 - clip - truth) ^ 2 <= d * d) ok++
		if (!and($2, 4) && $5 >= 20 && ($4 - clip - truth) ^ 2 > d * d) wrong20++
	}
	END { printf "%d of %d reads placed within %d bp of their origin; %d wrong at MAPQ >= 20\n",
		ok, n, d, wrong20
		exit !(100 * ok >= pct * n && wrong20 == 0) }' "$sam" ||
	fail "placement accuracy below $min_placed_pct%, or a wrong placement at MAPQ >= 20"

note "-N 2"
"$SCANMAP" map -N 2 -t 2 -R "$rg" "$WORK/ecoli.fa" "$r1" "$r2" >"$WORK/n2.sam" 2>/dev/null || fail "-N 2 failed"
cmp -s <(grep -v '^@' "$sam") <(grep -v '^@' "$WORK/n2.sam" | awk -F '\t' '!and($2, 256)') ||
	fail "-N 2 changed primary records"
awk -F '\t' '!/^@/ && and($2, 256) { n++; if ($10 != "*" || $11 != "*" || $5 != 0) bad++ }
	END { print n " secondary records"; exit !(n > 0 && !bad) }' "$WORK/n2.sam" ||
	fail "secondaries missing, or with SEQ/QUAL/MAPQ other than '*', '*', 0"
samtools quickcheck "$WORK/n2.sam" || fail "quickcheck of -N 2 output"
echo "PASS"
