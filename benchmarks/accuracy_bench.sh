#!/usr/bin/env bash
# accuracy_bench.sh — accuracy and speed of scanmap against bwa mem, minimap2
# -ax sr and bowtie2 on the same simulated paired-end reads and cores.
#
#   benchmarks/accuracy_bench.sh [-g ecoli|chr20] [-t THREADS] [-n PAIRS] [-x EXH_PAIRS] [OUT.md]
#
# Reads: 2x150 bp from E. coli K-12 (benchmarks/genomes.sh) or human
# chromosome 20 (GRCh37, from Debian vt-examples' 20.fa.gz), simulated by
# dwgsim with fixed seeds, insert 500 +- 50:
#   normal  1% sequencing errors (R1 0.5%, R2 1%), 0.1% mutations, 15% indels
#   hd      high divergence: 2% errors, 5% mutations (20% indels): 5-10%
#           differences from the reference
# Every mapper gets the same reads and -t THREADS; index builds are timed
# apart.  scanmap runs in seeded mode (CPU) on every pair, and in exhaustive
# mode on the first EXH_PAIRS pairs (2 x 150 x 4.6e6 cells per read), beside
# seeded mode on the same pairs (-x 0: no exhaustive runs).
#
# Per run: reads/s (wall clock of /usr/bin/time), reads per CPU second (user
# + system: steadier than the wall clock on a shared machine), peak memory (its maximum
# resident set size), % of reads placed correctly (within 20 bp of the origin,
# clips undone; benchmarks/accuracy_eval.py), % placed correctly with MAPQ >= 10,
# wrong placements at MAPQ >= 20, the error rate per MAPQ bin, and a
# MAPQ-threshold-vs-error PNG per set.  Markdown to OUT.md
# [benchmarks/results/accuracy-DATE.md, accuracy-DATE-chr20.md]; PNGs beside it.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
threads=2
pairs=50000
exh_pairs=500
genome=ecoli
while getopts "g:t:n:x:" o; do
	case $o in
	g) genome=$OPTARG ;;
	t) threads=$OPTARG ;;
	n) pairs=$OPTARG ;;
	x) exh_pairs=$OPTARG ;;
	*) echo "usage: $0 [-g ecoli|chr20] [-t THREADS] [-n PAIRS] [-x EXH_PAIRS] [OUT.md]" >&2; exit 1 ;;
	esac
done
shift $((OPTIND - 1))
date=$(date -u +%Y-%m-%d)
suffix=$([ "$genome" = ecoli ] || echo "-$genome")
out=${1:-$top/benchmarks/results/accuracy-$date$suffix.md}
png_base=${out%.md}
work=${SM_BENCH_WORK:-$top/benchmarks/work}/accuracy$suffix
mkdir -p "$work" "$(dirname "$out")"
for tool in bwa minimap2 bowtie2 bowtie2-build dwgsim samtools python3; do
	command -v $tool >/dev/null || { echo "accuracy_bench.sh: $tool not found" >&2; exit 1; }
done
scanmap=$top/scanmap
[ -x "$scanmap" ] || { echo "accuracy_bench.sh: build scanmap first (make)" >&2; exit 1; }

case $genome in
ecoli)
	"$here/genomes.sh" "$top/benchmarks/work"
	ref=$work/ecoli.fa
	[ -s "$ref" ] || cp "$top/benchmarks/work/ecoli.fa" "$ref"
	genome_name="E. coli K-12 MG1655"
	;;
chr20)
	ref=$work/chr20.fa
	if [ ! -s "$ref" ]; then
		(cd "$work" && rm -f vt-examples_*.deb && apt-get download vt-examples >/dev/null 2>&1) ||
			{ echo "accuracy_bench.sh: apt-get download vt-examples failed" >&2; exit 1; }
		dpkg -x "$work"/vt-examples_*.deb "$work/x-vt"
		zcat "$work/x-vt/usr/share/doc/vt/examples/ref/20.fa.gz" >"$ref"
		rm -rf "$work/x-vt" "$work"/vt-examples_*.deb
	fi
	genome_name="human chromosome 20 (GRCh37, Debian vt-examples)"
	;;
*) echo "accuracy_bench.sh: unknown genome '$genome'" >&2; exit 1 ;;
esac

# timed NAME CMD...: runs CMD (stdout to $work/NAME.sam) under /usr/bin/time -v;
# sets wall and rss_mb.
timed() {
	local name=$1
	shift
	/usr/bin/time -v -o "$work/$name.time" "$@" >"$work/$name.sam" 2>"$work/$name.err"
	wall=$(awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, t, ":"); s = 0
		for (i = 1; i <= n; i++) s = s * 60 + t[i]; print s }' "$work/$name.time")
	rss_mb=$(awk -F': ' '/Maximum resident set size/ { printf "%.0f", $2 / 1024 }' "$work/$name.time")
	cpu_s=$(awk -F': ' '/User time|System time/ { s += $2 } END { printf "%.1f", s }' "$work/$name.time")
}

index_times=""
index_timed() {  # index_timed NAME CMD...
	local name=$1
	shift
	/usr/bin/time -v -o "$work/index-$name.time" "$@" >/dev/null 2>&1
	index_times+="| $name | $(awk -F': ' '/Elapsed \(wall clock\)/ { print $2 }' "$work/index-$name.time") | $(awk -F': ' '/Maximum resident/ { printf "%.0f", $2 / 1024 }' "$work/index-$name.time") |"$'\n'
}
index_timed "bwa index" bwa index "$ref"
index_timed "minimap2 -d" minimap2 -x sr -d "$ref.mmi" "$ref"
index_timed "bowtie2-build" bowtie2-build --threads "$threads" "$ref" "$ref.bt2"
index_timed "scanmap index" "$scanmap" index "$ref"

declare -A sets=(
	[normal]="-z 11 -e 0.005 -E 0.01 -r 0.001 -R 0.15"
	[hd]="-z 12 -e 0.02 -E 0.02 -r 0.05 -R 0.2"
)
rows=""
bins=""
for set in normal hd; do
	# shellcheck disable=SC2086
	dwgsim ${sets[$set]} -N "$pairs" -1 150 -2 150 -d 500 -s 50 -y 0 "$ref" "$work/$set" >/dev/null 2>&1
	r1=$work/$set.r1.fq r2=$work/$set.r2.fq
	zcat "$work/$set.bwa.read1.fastq.gz" >"$r1"
	zcat "$work/$set.bwa.read2.fastq.gz" >"$r2"
	head -n $((4 * exh_pairs)) "$r1" >"$work/$set.sub1.fq"
	head -n $((4 * exh_pairs)) "$r2" >"$work/$set.sub2.fq"
	runs=()
	run_one() {  # run_one LABEL NAME READS CMD...
		local label=$1 name=$2 nreads=$3
		shift 3
		timed "$name" "$@"
		"$here/accuracy_eval.py" "$work/$name.sam" --json "$work/$name.json" >"$work/$name.eval"
		rows+=$(python3 - "$work/$name.json" "$set" "$label" "$nreads" "$wall" "$rss_mb" "$cpu_s" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
s, label, n, wall, rss, cpu = sys.argv[2:8]
print('| %s | %s | %s | %.0f | %.0f | %s | %.2f | %.2f | %d |' % (
    s, label, n, int(n) / max(float(wall), 1e-3), int(n) / max(float(cpu), 1e-3), rss,
    r['correct_pct'], r['correct_q10_pct'], r['wrong_q20']))
PY
)$'\n'
		bins+="#### $set, $label"$'\n\n```\n'"$(cat "$work/$name.eval")"$'\n```\n\n'
		runs+=("$label=$work/$name.json")
	}
	n=$((2 * pairs))
	run_one "bwa mem" "$set-bwa" $n bwa mem -t "$threads" "$ref" "$r1" "$r2"
	run_one "minimap2 -ax sr" "$set-mm2" $n minimap2 -ax sr -t "$threads" "$ref.mmi" "$r1" "$r2"
	run_one "bowtie2" "$set-bt2" $n bowtie2 -p "$threads" -x "$ref.bt2" -1 "$r1" -2 "$r2"
	run_one "scanmap seeded" "$set-sm" $n "$scanmap" map -t "$threads" --mode seeded --engine cpu "$ref" "$r1" "$r2"
	if [ "$exh_pairs" -gt 0 ]; then
		m=$((2 * exh_pairs))
		run_one "scanmap seeded ($exh_pairs pairs)" "$set-sm-sub" $m "$scanmap" map -t "$threads" --mode seeded --engine cpu "$ref" "$work/$set.sub1.fq" "$work/$set.sub2.fq"
		run_one "scanmap exhaustive ($exh_pairs pairs)" "$set-ex-sub" $m "$scanmap" map -t "$threads" --mode exhaustive --engine cpu "$ref" "$work/$set.sub1.fq" "$work/$set.sub2.fq"
		run_one "bwa mem ($exh_pairs pairs)" "$set-bwa-sub" $m bwa mem -t "$threads" "$ref" "$work/$set.sub1.fq" "$work/$set.sub2.fq"
	fi
	"$here/accuracy_plot.py" "$png_base-$set.png" "$genome_name, $set set, 2x150 bp" "${runs[@]:0:4}"
done

commit=$(git -C "$top" describe --always --dirty)
cpu=$(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo)
{
	echo "# Accuracy against bwa mem, minimap2 and bowtie2: $genome_name ($date)"
	echo
	echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC'); scanmap commit: $commit"
	echo "- command: \`benchmarks/accuracy_bench.sh -g $genome -t $threads -n $pairs -x $exh_pairs\`"
	echo "- CPU: $cpu, $threads threads per mapper ($(nproc) cores on the machine)"
	echo "- reads: dwgsim 2x150 bp, insert 500 +- 50, $pairs pairs per set from $genome_name;"
	echo "  normal: \`${sets[normal]}\`; hd (5-10% differences): \`${sets[hd]}\`"
	echo "- correct: primary record on the right contig within 20 bp of the origin (clips undone);"
	echo "  % of all reads.  Mappers' versions: bwa $(bwa 2>&1 | awk '/Version/ { print $2 }'),"
	echo "  minimap2 $(minimap2 --version), bowtie2 $(bowtie2 --version | awk 'NR == 1 { print $NF }')."
	echo
	echo "| set | mapper | reads | reads/s | reads/CPU-s | peak MB | % correct | % correct MAPQ>=10 | wrong MAPQ>=20 |"
	echo "|---|---|---|---|---|---|---|---|---|"
	printf '%s' "$rows"
	echo
	echo "Index builds (not in the mapping times):"
	echo
	echo "| index | wall | peak MB |"
	echo "|---|---|---|"
	printf '%s' "$index_times"
	echo
	echo "MAPQ-threshold curves: $(basename "$png_base")-normal.png, $(basename "$png_base")-hd.png"
	echo
	echo "### Error rate per MAPQ bin"
	echo
	printf '%s' "$bins"
} >"$out"
echo "wrote $out"
