#!/usr/bin/env bash
# seeded_misses.sh — does seeded mode find each read's best locus? ART reads of several
# Illumina profiles from human chr20, mapped single-end and paired by scanmap (seeded), bwa mem
# and minimap2 -ax sr; every read judged against its simulated origin and the exact score there.
#
#   benchmarks/seeded_misses.sh [-n PAIRS] [-s SEEDS] [-p PROFILES] [-t THREADS] [-b BASE_BIN]
#                               [-x EXH_READS] [-r REF.fa] [-P PEERS] [-w WORKDIR] [OUT.md]
#
#   -n PAIRS     pairs simulated per profile and seed (20000)
#   -s SEEDS     comma-separated ART seeds (1)
#   -p PROFILES  comma-separated, of: hs150 (art -ss HS25 2x150), ms250 (-ss MSv3 2x250),
#                hs100 (-ss HS20 2x100), nova (-ss HS25 2x150 with qualities shifted down by
#                -qs/-qs2 -10: about 3x the errors, a NovaSeq-like noisy run); and to check
#                rules on profiles they were not fitted on: hsx150 (-ss HSXt 2x150, insert
#                450 +- 60), ns75 (-ss NS50 2x75, insert 250 +- 40), msv1 (-ss MSv1 2x250,
#                insert 550 +- 80), hs125 (-ss HS25 2x125, insert 350 +- 35) (hs150,nova)
#   -t THREADS   mapping threads (2)
#   -b BIN       also map with this scanmap binary (a baseline build), rows "scanmap-base"
#                rows "scanmap" are --completion weak, "scanmap-all" --completion all (the default)
#   -x N         also map the first N reads of each single-end set with
#                `--mode exhaustive --engine gpu` (needs a GPU) and count the seeded reads
#                (rows scanmap and scanmap-all) whose AS is below the exhaustive AS (the optimum)
#   -r REF.fa    another reference (default: chr20, fetched into DIR): e.g. genome_scale.sh's
#                3 Gbp copies of chr20, where the truth and the origin score stand in for the
#                exhaustive optimum. PAIRS are then spread evenly over its contigs (ART's -c
#                counts per contig); its indexes are built beside it when missing (bwa index
#                of 3 Gbp takes 1-2.5 hours on one thread: build REF.fa's .bwt first),
#                minimap2's as REF.fa.mmi
#   -q Q         map the reads as a pipeline's quality trimming leaves them: fastp --cut_right
#                --cut_right_mean_quality Q -l 15 (fastp's defaults besides: adapters by overlap,
#                its quality filter), each pair and single read kept by both runs; their truth
#                shortened at the 3' end (benchmarks/trim_truth.py) and scored again; sets in
#                DIR/PROFILE-SEED-qQ (off)
#   -P PEERS     comma-separated peers mapped beside scanmap, of: bwa, minimap2 (bwa,minimap2);
#                empty (-P '') maps scanmap alone, e.g. at 3 Gbp without bwa's index
#   -w DIR       work directory, kept (default: build/seeded-misses)
#   OUT.md       results (default: DIR/seeded-misses.md)
#
# The truth: art_illumina -sam gives each read's origin, which benchmarks/art_truth.py writes
# into the read names (ID!CONTIG:START-END:STRAND per mate). The origin score: the exact
# Smith-Waterman score of the read on its origin strand against its origin +-50 bp, computed
# by build/benchmarks/origin_score (benchmarks/origin_score.c: the tree's scalar oracle,
# sm_scan_oracle, over that window as a reference). benchmarks/seeded_eval.py judges the
# primary records: `below` = AS (0 if unmapped) under the origin score, by MAPQ; `wrong` =
# not overlapping the origin on its strand; `correct` = overlapping it. The reference is
# chromosome 20 of GRCh37 from Debian's vt-examples (apt-get download; nothing installed).
set -euo pipefail
cd "$(dirname "$0")/.."
pairs=20000 seeds=1 profiles=hs150,nova threads=2 base= exh=0 work=build/seeded-misses ref=
peers=bwa,minimap2 trim=
while getopts "n:s:p:t:b:x:r:P:w:q:" o; do
	case $o in
	n) pairs=$OPTARG ;; s) seeds=$OPTARG ;; p) profiles=$OPTARG ;; t) threads=$OPTARG ;;
	b) base=$OPTARG ;; x) exh=$OPTARG ;; r) ref=$OPTARG ;; P) peers=$OPTARG ;; w) work=$OPTARG ;;
	q) trim=$OPTARG ;;
	*) sed -n '2,/^set -e/{/^set -e/!p}' "$0" >&2; exit 1 ;;
	esac
done
shift $((OPTIND - 1))
out=${1:-$work/seeded-misses.md}
IFS=, read -ra PEERS <<<"$peers"
for peer in "${PEERS[@]}"; do
	case $peer in
	bwa | minimap2) ;;
	*) echo "seeded_misses.sh: unknown peer $peer (bwa, minimap2)" >&2; exit 1 ;;
	esac
done
for tool in art_illumina samtools python3 "${PEERS[@]}" ${trim:+fastp}; do
	command -v "$tool" >/dev/null || { echo "seeded_misses.sh: $tool not found (apt-get install art-nextgen-simulation-tools bwa minimap2 samtools python3 fastp)" >&2; exit 1; }
done
make -s cuda="${cuda:-}" scanmap build/benchmarks/origin_score >/dev/null
mkdir -p "$work"
work=$(cd "$work" && pwd)
if [ -n "$ref" ]; then
	[ -s "$ref" ] || { echo "seeded_misses.sh: $ref: no such reference" >&2; exit 1; }
	ref=$(cd "$(dirname "$ref")" && pwd)/$(basename "$ref")
	genome=$(basename "$ref")
else
	ref=$work/chr20.fa genome=chr20
fi
if [ ! -s "$ref" ]; then
	(cd "$work" && rm -f vt-examples_*.deb && apt-get download vt-examples >/dev/null 2>&1) ||
		{ echo "seeded_misses.sh: apt-get download vt-examples failed" >&2; exit 1; }
	dpkg -x "$work"/vt-examples_*.deb "$work/x-vt"
	zcat "$(find "$work/x-vt" -name 20.fa.gz | head -1)" | sed 's/^>.*/>20/' >"$ref"
	rm -rf "$work/x-vt" "$work"/vt-examples_*.deb
fi
# Indexed again when scanmap is newer than the index (its format may have changed).
[ -s "$ref.smi" ] && [ "$ref.smi" -nt scanmap ] || ./scanmap index -t "$threads" "$ref" 2>"$work/index.log"
for peer in "${PEERS[@]}"; do
	case $peer in
	bwa) [ -s "$ref.bwt" ] || bwa index "$ref" 2>"$work/bwa-index.log" ;;
	minimap2) [ -s "$ref.mmi" ] && [ "$ref.mmi" -nt "$ref" ] ||
		minimap2 -x sr -t "$threads" -d "$ref.mmi" "$ref" 2>"$work/minimap2-index.log" ;;
	esac
done
# ART's -c counts read pairs per contig.
contigs=$(grep -c '^>' "$ref")
per_contig=$(((pairs + contigs - 1) / contigs))

# cpu_run LABEL LOG CMD...: runs CMD, its CPU seconds (user + sys) to LOG.cpu
cpu_run() {
	local log=$1
	shift
	/usr/bin/time -f "%U %S" -o "$log.cpu" "$@" 2>"$log"
}
cpu_s() { awk '{ printf "%.1f", $1 + $2 }' "$1.cpu"; }

rows=$work/rows.tsv
: >"$rows"
IFS=, read -ra P <<<"$profiles"
IFS=, read -ra S <<<"$seeds"
for prof in "${P[@]}"; do
	case $prof in
	hs150) art=(-ss HS25 -l 150 -m 400 -s 50) ;;
	ms250) art=(-ss MSv3 -l 250 -m 600 -s 100) ;;
	hs100) art=(-ss HS20 -l 100 -m 300 -s 30) ;;
	nova) art=(-ss HS25 -l 150 -m 400 -s 50 -qs -10 -qs2 -10) ;;
	hsx150) art=(-ss HSXt -l 150 -m 450 -s 60) ;;
	ns75) art=(-ss NS50 -l 75 -m 250 -s 40) ;;
	msv1) art=(-ss MSv1 -l 250 -m 550 -s 80) ;;
	hs125) art=(-ss HS25 -l 125 -m 350 -s 35) ;;
	*) echo "seeded_misses.sh: unknown profile $prof" >&2; exit 1 ;;
	esac
	for seed in "${S[@]}"; do
		d=$work/$prof-$seed
		mkdir -p "$d"
		if [ ! -s "$d/pe.truth.tsv" ]; then
			art_illumina "${art[@]}" -p -c "$per_contig" -rs "$seed" -i "$ref" -o "$d/art" -sam -M -na \
				>"$d/art.log" 2>&1
			python3 benchmarks/art_truth.py "$d/art.sam" "$d/pe" "$d/art1.fq" "$d/art2.fq"
			# Single-end: R1 alone, named as one mate.
			python3 benchmarks/art_truth.py <(awk -F'\t' '/^@/ || and($2, 64)' "$d/art.sam" |
				awk -F'\t' 'BEGIN { OFS = "\t" } !/^@/ { $2 = and($2, 16) } 1') "$d/se" "$d/art1.fq"
			build/benchmarks/origin_score "$ref" <"$d/pe.truth.tsv" >"$d/pe.origin.tsv"
			build/benchmarks/origin_score "$ref" <"$d/se.truth.tsv" >"$d/se.origin.tsv"
			rm -f "$d/art.sam" "$d"/art[12].fq
		fi
		if [ -n "$trim" ]; then
			t=$d-q$trim
			mkdir -p "$t"
			if [ ! -s "$t/pe.truth.tsv" ]; then
				fastp_q=(--cut_right --cut_right_mean_quality "$trim" -l 15 -w "$threads" -j /dev/null -h /dev/null)
				fastp "${fastp_q[@]}" -i "$d/pe.1.fq" -I "$d/pe.2.fq" -o "$t/pe.1.fq" -O "$t/pe.2.fq" \
					2>"$t/fastp-pe.log"
				fastp "${fastp_q[@]}" -i "$d/se.1.fq" -o "$t/se.1.fq" 2>"$t/fastp-se.log"
				python3 benchmarks/trim_truth.py "$d/pe.truth.tsv" "$t/pe.1.fq" "$t/pe.2.fq" >"$t/pe.truth.tsv"
				python3 benchmarks/trim_truth.py "$d/se.truth.tsv" "$t/se.1.fq" >"$t/se.truth.tsv"
				build/benchmarks/origin_score "$ref" <"$t/pe.truth.tsv" >"$t/pe.origin.tsv"
				build/benchmarks/origin_score "$ref" <"$t/se.truth.tsv" >"$t/se.origin.tsv"
			fi
			d=$t
		fi
		for mode in se pe; do
			if [ $mode = se ]; then in=("$d/se.1.fq"); else in=("$d/pe.1.fq" "$d/pe.2.fq"); fi
			# label, then the command (split at spaces)
			bins=(scanmap "./scanmap --completion weak" scanmap-all "./scanmap --completion all")
			[ -n "$base" ] && bins+=(scanmap-base "$base")
			for ((b = 0; b < ${#bins[@]}; b += 2)); do
				lab=${bins[b]}
				read -ra cmd <<<"${bins[b + 1]}"
				cpu_run "$d/$mode.$lab.log" "${cmd[0]}" map "${cmd[@]:1}" -t "$threads" --mode seeded \
					-o "$d/$mode.$lab.sam" "$ref" "${in[@]}"
			done
			for lab in "${PEERS[@]}"; do
				case $lab in
				bwa) peer_cmd="bwa mem -t $threads $ref" ;;
				minimap2) peer_cmd="minimap2 -ax sr -t $threads $ref.mmi" ;;
				esac
				cpu_run "$d/$mode.$lab.log" sh -c "$peer_cmd ${in[*]} > $d/$mode.$lab.sam"
			done
			for ((b = 0; b < ${#bins[@]}; b += 2)); do
				lab=${bins[b]}
				printf '%s\t%s\t%s\t' "$prof" "$seed" "$mode" >>"$rows"
				python3 benchmarks/seeded_eval.py "$d/$mode.truth.tsv" "$d/$mode.origin.tsv" "$lab" \
					"$d/$mode.$lab.sam" "$d/$mode.$lab.misses.tsv" | tr '\n' '\t' >>"$rows"
				printf '%s\n' "$(cpu_s "$d/$mode.$lab.log")" >>"$rows"
			done
			for lab in "${PEERS[@]}"; do
				printf '%s\t%s\t%s\t' "$prof" "$seed" "$mode" >>"$rows"
				samtools view -h -F 0x900 "$d/$mode.$lab.sam" >"$d/$mode.$lab.prim.sam"
				python3 benchmarks/seeded_eval.py "$d/$mode.truth.tsv" "$d/$mode.origin.tsv" "$lab" \
					"$d/$mode.$lab.prim.sam" "$d/$mode.$lab.misses.tsv" | tr '\n' '\t' >>"$rows"
				printf '%s\n' "$(cpu_s "$d/$mode.$lab.log")" >>"$rows"
				rm -f "$d/$mode.$lab.prim.sam"
			done
		done
		if [ "$exh" -gt 0 ]; then
			head -n $((4 * exh)) "$d/se.1.fq" >"$d/exh.fq"
			cpu_run "$d/exh.log" ./scanmap map -t "$threads" --mode exhaustive --engine gpu \
				-o "$d/exh.sam" "$ref" "$d/exh.fq"
			# AS of each read: exhaustive against seeded (same reads, first N).
			samtools view -F 0x904 "$d/exh.sam" | awk -F'\t' '{ for (i = 12; i <= NF; i++)
				if ($i ~ /^AS:i:/) print $1 "\t" substr($i, 6) }' | sort >"$d/exh.as"
			for lab in scanmap scanmap-all; do
				samtools view -F 0x904 "$d/se.$lab.sam" | awk -F'\t' '{ for (i = 12; i <= NF; i++)
					if ($i ~ /^AS:i:/) print $1 "\t" $5 "\t" substr($i, 6) }' | sort >"$d/se.as"
				join -t $'\t' "$d/exh.as" "$d/se.as" | awk -F'\t' -v p="$prof" -v s="$seed" -v n="$exh" -v l="$lab" \
					'$4 < $2 { below++; if ($3 >= 20) q20++ }
					 END { printf "%s\t%s\texhaustive\t%d reads, %s: seeded AS below the optimum for %d, %d of them at MAPQ >= 20\n",
					       p, s, n, l, below, q20 }' >>"$work/exhaustive.txt"
			done
		fi
	done
done

{
	echo "## Seeded misses on $genome ($(date -u +%F), $(git describe --always --dirty), $(nproc) cores: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'))"
	echo
	x=; [ "$exh" -gt 0 ] && x=" -x $exh"
	echo "\`benchmarks/seeded_misses.sh -n $pairs -s $seeds -p $profiles -t $threads${base:+ -b $base}$x${ref:+ -r $genome}${trim:+ -q $trim} -P '$peers'\`"
	echo
	echo "below: primary AS under the exact score at the origin (by MAPQ); wrong/correct: placement against the origin."
	echo "minimap2 -ax sr scores with -A2 -B8 -O12,24 -E2,1, so its AS is not comparable: its below columns are blank."
	echo "CPU s: user + system seconds of the whole run (loading each mapper's index included; built beforehand)."
	echo
	echo "| profile | seed | mode | mapper | reads | below q0 | below q1-19 | below q>=20 | below elsewhere | wrong q>=20 | correct q>=10 | unmapped | CPU s |"
	echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
	awk -F'\t' 'BEGIN { OFS = " | " } $4 == "minimap2" { $6 = $7 = $8 = $9 = "" }
		{ print "| " $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13 " |" }' "$rows"
	[ -s "$work/exhaustive.txt" ] && { echo; cat "$work/exhaustive.txt"; }
} >"$out"
cat "$out"
