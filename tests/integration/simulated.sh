#!/usr/bin/env bash
# simulated.sh — reads with a known origin, simulated by dwgsim from phage
# lambda (Debian bowtie2-examples) with a fixed seed: 300 reads of 150 bp
# from both strands with sequencing errors, SNPs and small indels.
#
# Checks: at least 97% of the reads are placed on the right strand within
# 10 bp of their true leftmost position; the SAM passes samtools quickcheck,
# flagstat (one primary record per read), calmd (same NM/MD) and picard
# ValidateSamFile; -t 1 and -t 2 give byte-identical output; records come
# in input order; the gzip reference and a plain copy give the same output.
source "$(dirname "$0")/common.bash"

need_tool dwgsim dwgsim
need_tool samtools samtools
# Fraction of reads that must be placed, in percent.
min_placed_pct=97
# Largest distance from the true leftmost position that counts as placed.
max_dist=10

ref_gz=$(lambda_fasta)
ref=$WORK/lambda.fa
zcat "$ref_gz" >"$ref"

note "simulating 300 reads with dwgsim (seed 1)"
dwgsim -z 1 -N 150 -1 150 -2 150 -e 0.01 -E 0.01 -r 0.002 -R 0.2 -y 0 -H -o 1 \
	"$ref" "$WORK/sim" >"$WORK/dwgsim.log" 2>&1 || fail "dwgsim failed (log: $WORK/dwgsim.log)"
reads=$WORK/reads.fq
{ zcat "$WORK/sim.bwa.read1.fastq.gz"; zcat "$WORK/sim.bwa.read2.fastq.gz"; } >"$reads"
n_reads=$(awk 'NR % 4 == 1' "$reads" | wc -l)
[[ $n_reads == 300 ]] || fail "dwgsim made $n_reads reads, expected 300"

rg='@RG\tID:sim\tSM:lambda\tPL:ILLUMINA'
note "mapping with -t 2 and -t 1"
"$SCANMAP" map -t 2 -R "$rg" -o "$WORK/t2.sam" "$ref_gz" "$reads" 2>"$WORK/t2.err" ||
	{ cat "$WORK/t2.err" >&2; fail "scanmap map -t 2 failed"; }
"$SCANMAP" map -t 1 -R "$rg" -o "$WORK/t1.sam" "$ref_gz" "$reads" 2>"$WORK/t1.err" ||
	{ cat "$WORK/t1.err" >&2; fail "scanmap map -t 1 failed"; }
# @PG CL differs by the -t given; every other byte must be the same.
cmp -s <(grep -v '^@PG' "$WORK/t1.sam") <(grep -v '^@PG' "$WORK/t2.sam") ||
	fail "-t 1 and -t 2 outputs differ (beyond @PG CL)"
note "-t 1 and -t 2: identical records"
"$SCANMAP" map -t 2 -R "$rg" -o "$WORK/plain.sam" "$ref" "$reads" 2>/dev/null || fail "mapping to the plain FASTA failed"
cmp -s <(grep -v '^@PG' "$WORK/t2.sam") <(grep -v '^@PG' "$WORK/plain.sam") ||
	fail "gzip and plain reference give different output"

# Input order: the i-th record is the i-th read.
cmp -s <(awk 'NR % 4 == 1 { print substr($1, 2) }' "$reads") <(grep -v '^@' "$WORK/t2.sam" | cut -f 1) ||
	fail "records are not in input order"

sam_checks "$WORK/t2.sam" "$ref" "$n_reads"

# dwgsim names: CONTIG_POS1_POS2_STRAND1_STRAND2_RAND1_RAND2_E1_E2_NUM/END,
# positions 1-based leftmost, strand 1 = reverse; CONTIG may hold '_'.
grep -v '^@' "$WORK/t2.sam" | awk -F'\t' -v max_dist="$max_dist" '
{
	name = $1; end = substr(name, length(name)); sub(/\/[12]$/, "", name)
	n = split(name, f, "_")
	contig = f[1]; for (i = 2; i <= n - 9; i++) contig = contig "_" f[i]
	pos = end == 1 ? f[n - 8] : f[n - 7]
	strand = end == 1 ? f[n - 6] : f[n - 5]
	flag_rev = int($2 / 16) % 2
	d = $4 - pos; if (d < 0) d = -d
	if (int($2 / 4) % 2 == 1) { why = "unmapped" }
	else if ($3 != contig) { why = "contig " $3 }
	else if (flag_rev != strand) { why = "wrong strand" }
	else if (d > max_dist) { why = "off by " d }
	else { ok++; next }
	if (bad++ < 10) print "misplaced: " $1 " at " $3 ":" $4 " flag " $2 " CIGAR " $6 " (" why ")" > "/dev/stderr"
}
END { print ok + 0, NR }' >"$WORK/placed.txt"
read -r placed total <"$WORK/placed.txt"
pct=$((100 * placed / total))
note "placed within $max_dist bp on the right strand: $placed of $total ($pct%)"
((100 * placed >= min_placed_pct * total)) || fail "only $placed of $total reads placed (need $min_placed_pct%)"
echo "PASS: $placed/$total placed, -t 1 == -t 2, samtools/picard accept the SAM"
