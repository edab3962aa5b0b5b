#!/usr/bin/env bash
# seeded_vs_exhaustive.sh — seeded mode finds the exhaustive optimum.
#
# 200 reads of 150 bp simulated by dwgsim (fixed seed) from E. coli K-12
# (Debian ragout-examples) with 5-10% differences (3% mutations, 20% of them
# indels, plus 4% sequencing errors).  The reference is above the auto bound,
# so seeded reads are never rescued by an exhaustive fallback here.  Checks:
# `--mode auto` picks seeded; the seeded best score (AS) equals the exhaustive
# one for >= 99% of the reads whose exhaustive optimum reaches -T (30);
# seeded placements agree with dwgsim's truth for >= 95% of the reads;
# seeded output is the same for -t 1 and -t 2 and for --engine cpu and
# --engine oracle (whose scalar recurrence then scans the windows and the
# tandem checks too).
source "$(dirname "$0")/common.bash"
source "$(dirname "$0")/seeded_genomes.bash"

need_tool dwgsim dwgsim
min_same_pct=99
min_placed_pct=95
max_dist=20

ref=$(ecoli_fasta)
zcat "$ref" >"$WORK/ecoli.fa"
note "simulating 200 high-divergence reads (dwgsim seed 7)"
dwgsim -z 7 -N 100 -1 150 -2 150 -e 0.04 -E 0.04 -r 0.03 -R 0.2 -y 0 \
	"$WORK/ecoli.fa" "$WORK/sim" >"$WORK/dwgsim.log" 2>&1 || fail "dwgsim failed"
reads=$WORK/reads.fq
{ zcat "$WORK/sim.bwa.read1.fastq.gz"; zcat "$WORK/sim.bwa.read2.fastq.gz"; } >"$reads"

note "seeded (auto mode), -t 1 and -t 2"
"$SCANMAP" map -t 1 "$WORK/ecoli.fa" "$reads" >"$WORK/seeded1.sam" 2>"$WORK/seeded1.err" ||
	{ cat "$WORK/seeded1.err" >&2; fail "seeded -t 1 failed"; }
grep -q "seeded mode" "$WORK/seeded1.err" || fail "auto mode did not pick seeded on E. coli"
"$SCANMAP" map -t 2 "$WORK/ecoli.fa" "$reads" >"$WORK/seeded2.sam" 2>/dev/null || fail "seeded -t 2 failed"
cmp -s <(grep -v '^@PG' "$WORK/seeded1.sam") <(grep -v '^@PG' "$WORK/seeded2.sam") ||
	fail "seeded -t 1 and -t 2 differ"
"$SCANMAP" map --mode seeded --engine oracle "$WORK/ecoli.fa" "$reads" \
	>"$WORK/oracle.sam" 2>/dev/null || fail "seeded --engine oracle failed"
cmp -s <(grep -v '^@PG' "$WORK/seeded1.sam") <(grep -v '^@PG' "$WORK/oracle.sam") ||
	fail "seeded --engine cpu and --engine oracle differ"

note "exhaustive, -t 2 (the slow part: 2 x 150 x 4.6 Mbp cells per read)"
"$SCANMAP" map -t 2 --mode exhaustive --engine cpu "$WORK/ecoli.fa" "$reads" \
	>"$WORK/exhaustive.sam" 2>"$WORK/exhaustive.err" ||
	{ cat "$WORK/exhaustive.err" >&2; fail "exhaustive failed"; }

paste -d ' ' <(sam_scores "$WORK/seeded1.sam") <(sam_scores "$WORK/exhaustive.sam") |
	awk -v min=30 -v pct="$min_same_pct" '
		$1 != $4 { print "records out of order: " $1 " vs " $4; exit 1 }
		$6 >= min { n++; if ($3 == $6) same++; else print "differs: " $0 }
		$3 > $6 { print "seeded above the optimum: " $0; exit 1 }
		END { printf "%d of %d reads with optimum >= %d: same best score (%.2f%%)\n",
			same, n, min, 100 * same / n
			exit !(n > 0 && 100 * same >= pct * n) }' ||
	fail "seeded misses the exhaustive optimum on more than $((100 - min_same_pct))% of reads"

# dwgsim names: CONTIG_POS1_POS2_STRAND1_STRAND2_..._/1 (POS 1-based, leftmost).
awk -F '\t' -v d="$max_dist" -v pct="$min_placed_pct" '
	!/^@/ && !and($2, 256) {
		n++
		k = split($1, f, "_")
		truth = (substr($1, length($1)) == "1") ? f[k - 8] : f[k - 7]
		clip = ($6 ~ /^[0-9]+S/) ? substr($6, 1, index($6, "S") - 1) : 0
		if (!and($2, 4) && ($4 - clip - truth) ^ 2 <= d * d) ok++
	}
	END { printf "%d of %d reads placed within %d bp of the truth\n", ok, n, d
		exit !(100 * ok >= pct * n) }' "$WORK/seeded1.sam" ||
	fail "fewer than $min_placed_pct% of seeded reads placed at their origin"
echo "PASS"
