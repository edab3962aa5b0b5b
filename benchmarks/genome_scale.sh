#!/usr/bin/env bash
# genome_scale.sh — index build, set-up and mapping at human genome scale:
# scanmap against minimap2 -x sr (and bwa, -b) on one machine, same threads.
#
#   benchmarks/genome_scale.sh [-s 1g|3g|Nc] [-t THREADS] [-e cpu|gpu] [-n PAIRS]
#                              [-r "SEEDS"] [-d MIN,MAX] [-p PROCS] [-x REPS] [-b] [OUT_DIR]
#
# Reference: no human assembly can be fetched offline, so one is made from
# human chromosome 20 (GRCh37, Debian vt-examples' 20.fa.gz, 63 Mbp): 16
# (-s 1g, 1.0 Gbp) or 48 (-s 3g, 3.0 Gbp) copies, each diverged from it by
# 1-3% substitutions and a tenth as many 1-5 bp indels (benchmarks/diverge.c,
# fixed seeds; -s Nc: N copies, to try the script; -d MIN,MAX: other
# substitution rates, e.g. -d 0.10,0.20, the "far copies" reference below).  The copies keep chr20's repeats, GC and N runs, and make the
# index as large as a human one: as many minimizer occurrences, and keys
# that recur across copies as the human genome's interspersed repeats do.
# The divergence gives every read one true origin (its copy), which a
# mapper must find among 15 or 47 close paralogues: a harder test of
# placement than the real genome, where most sequence is unique.  With -d
# 0.10,0.20 the copies lie 10-20% from chr20 and 20-40% from each other:
# few 15-mers survive across copies (0.8^15 = 3.5% at 20%), so outside
# chr20's own repeats each locus is unique, as most of a human genome is,
# while the interspersed repeats (Alu, L1: each family's members already
# 10-20% apart) stay as many and as diverged as the genome's: 48 x chr20's.
# Neither is the human genome; they bound it: every locus with 47 close
# paralogues (the default), or none but the repeats' (-d 0.10,0.20).
#
# Steps, each under /usr/bin/time -v (wall clock, peak resident memory):
#   1. index builds: scanmap index -t THREADS; minimap2 -x sr -t THREADS -d;
#      bwa index with -b (only sensible at 1g: single-threaded, slow);
#   2. set-up: each mapper maps one read pair with the index just built (in
#      the page cache, as in any run after the first): wall clock of the whole
#      run, and scanmap's own "set-up:" line;
#   3. mapping: art_illumina HS25 2x150 bp pairs, insert 400 +- 50, PAIRS
#      pairs per seed in SEEDS, mapped by scanmap (--engine cpu|gpu, seeded
#      mode) and minimap2 -ax sr, -t THREADS; throughput over the whole run
#      and without the set-up of step 2; accuracy from ART's true alignments
#      (benchmarks/art_eval.py: primary record within 20 bp of the origin).
#      -p PROCS: ART runs as PROCS processes at once, each a share of the
#      coverage with its own seed (seed x 100 + process) and read-name tag;
#   4. throughput (-x REPS): the first seed's pairs compressed (BGZF, bgzip
#      -l 1, or gzip -1 with SM_GS_GZIP=1) and REPS copies of them in one
#      file per mate, mapped by scanmap FASTQ.gz to a SAM file: pairs/s over
#      the whole run, set-up included (issue 22: 10 M pairs at 3 Gbp).  The
#      first copy's records must equal the accuracy run's (all but @PG).
# MINIMAP2= (empty) leaves minimap2 out (index and mapping).
# SM_GS_TPUT_VARIANTS: more throughput runs of the same reads, one per
# ';'-separated set of options added to scanmap map's (e.g. "--gpus 1").
# SM_BENCH_MAP_ARGS: more options for scanmap map (e.g. -v 4: the workers'
# phases in the logs).
# Writes OUT_DIR/genome-scale.md (and the logs beside it); the work files
# (reference, indexes, reads: 3-30 GB) go to $SM_BENCH_WORK/genome-scale
# [benchmarks/work/genome-scale].
#
# Tools come from the environment, with defaults on PATH, so that a machine
# without them (a GPU machine with no internet or htslib: tests/gpu/prepare.sh
# carries scanmap's libraries) can be given copies:
#   SCANMAP [./scanmap]  DIVERGE [build/benchmarks/diverge]  MINIMAP2 [minimap2]
#   ART [art_illumina]  BWA [bwa]  TIME [/usr/bin/time]  PYTHON [python3]
#   CHR20: chr20 FASTA (plain or .gz) [benchmarks/genomes.sh fetches it]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
size=1g threads=2 engine=cpu pairs=20000 seeds="1 2" with_bwa=0 procs=1 reps=0 div=
usage="usage: $0 [-s 1g|3g|Nc] [-t THREADS] [-e cpu|gpu] [-n PAIRS] [-r \"SEEDS\"] [-d MIN,MAX] [-p PROCS] [-x REPS] [-b] [OUT_DIR]"
while getopts "s:t:e:n:r:d:p:x:b" o; do
	case $o in
	s) size=$OPTARG ;;
	t) threads=$OPTARG ;;
	e) engine=$OPTARG ;;
	n) pairs=$OPTARG ;;
	r) seeds=$OPTARG ;;
	d) div=$OPTARG ;;
	p) procs=$OPTARG ;;
	x) reps=$OPTARG ;;
	b) with_bwa=1 ;;
	*) echo "$usage" >&2; exit 1 ;;
	esac
done
shift $((OPTIND - 1))
case $size in
1g) copies=16 ;;
3g) copies=48 ;;
[0-9]*c) copies=${size%c} ;;   # N copies: small runs of the script itself
*) echo "$usage" >&2; exit 1 ;;
esac
out=${1:-$top/benchmarks/results/genome-scale-$size}
work=${SM_BENCH_WORK:-$top/benchmarks/work}/genome-scale
mkdir -p "$out" "$work"
out=$(cd "$out" && pwd)
SCANMAP=${SCANMAP:-$top/scanmap}
DIVERGE=${DIVERGE:-$top/build/benchmarks/diverge}
MINIMAP2=${MINIMAP2-minimap2}
ART=${ART:-art_illumina}
BWA=${BWA:-bwa}
TIME=${TIME:-/usr/bin/time}
PYTHON=${PYTHON:-python3}
need=("$SCANMAP" "$DIVERGE" "$ART" "$TIME" "$PYTHON")
[ -n "$MINIMAP2" ] && need+=("$MINIMAP2")
[ "$with_bwa" = 1 ] && need+=("$BWA")
for tool in "${need[@]}"; do
	command -v "$tool" >/dev/null || { echo "genome_scale.sh: $tool not found (see the tool variables in $0)" >&2; exit 1; }
done

# The reference.
chr20=${CHR20:-$work/chr20.fa}
if [ ! -s "$chr20" ]; then
	CHR20=1 "$here/genomes.sh" "$work" || { echo "genome_scale.sh: set CHR20 offline" >&2; exit 1; }
fi
case $chr20 in
*.gz) zcat "$chr20" >"$work/chr20.plain.fa"; chr20=$work/chr20.plain.fa ;;
esac
tag=$size${div:+-d$div}
ref=$work/genome-$tag.fa
if [ ! -s "$ref" ]; then
	echo "genome_scale.sh: making $ref ($copies diverged copies of chr20)" >&2
	"$DIVERGE" "$chr20" "$copies" 7 ${div:+${div%,*} ${div#*,}} >"$ref.tmp"
	mv "$ref.tmp" "$ref"
fi
ref_bases=$(grep -v '^>' "$ref" | tr -d '\n' | wc -c)

# timed NAME CMD...: runs CMD (stdout to $work/NAME.out, stderr to
# $out/NAME.log) under time -v; sets wall (s), rss_mb and cpu_s.
timed() {
	local name=$1
	shift
	echo "genome_scale.sh: $name: $*" >&2
	"$TIME" -v -o "$out/$name.time" "$@" >"$work/$name.out" 2>"$out/$name.log"
	wall=$(awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, t, ":"); s = 0
		for (i = 1; i <= n; i++) s = s * 60 + t[i]; print s }' "$out/$name.time")
	rss_mb=$(awk -F': ' '/Maximum resident set size/ { printf "%.0f", $2 / 1024 }' "$out/$name.time")
	cpu_s=$(awk -F': ' '/User time|System time/ { s += $2 } END { printf "%.1f", s }' "$out/$name.time")
}
mb() { awk -v b="$(stat -c %s "$1")" 'BEGIN { printf "%.0f", b / 1e6 }'; }

# 1. Index builds.
index_rows=""
rm -f "$ref.smi" "$ref.mmi"
timed index-scanmap "$SCANMAP" index -t "$threads" "$ref"
index_rows+="| scanmap index -t $threads | $wall | $cpu_s | $rss_mb | $(mb "$ref.smi") |"$'\n'
if [ -n "$MINIMAP2" ]; then
	timed index-minimap2 "$MINIMAP2" -x sr -t "$threads" -d "$ref.mmi" "$ref"
	index_rows+="| minimap2 -x sr -t $threads -d | $wall | $cpu_s | $rss_mb | $(mb "$ref.mmi") |"$'\n'
fi
if [ "$with_bwa" = 1 ]; then
	timed index-bwa "$BWA" index "$ref"
	index_rows+="| bwa index | $wall | $cpu_s | $rss_mb | $(cat "$ref".{amb,ann,bwt,pac,sa} | wc -c | awk '{ printf "%.0f", $1 / 1e6 }') |"$'\n'
fi

# 2. Set-up: one read pair.
"$ART" -ss HS25 -i "$ref" -p -l 150 -c 1 -m 400 -s 50 -rs 99 -o "$work/one" -na -q >/dev/null
head -n 4 "$work/one1.fq" >"$work/pair1.fq"
head -n 4 "$work/one2.fq" >"$work/pair2.fq"
map_args=(${SM_BENCH_MAP_ARGS:-})
timed setup-scanmap "$SCANMAP" map -t "$threads" --engine "$engine" "${map_args[@]}" "$ref" "$work/pair1.fq" "$work/pair2.fq"
setup_sm=$wall setup_sm_rss=$rss_mb
setup_sm_log=$(sed -n 's/.*set-up: \([0-9.]*\) s.*/\1/p' "$out/setup-scanmap.log")
setup_mm=- setup_mm_rss=-
if [ -n "$MINIMAP2" ]; then
	timed setup-minimap2 "$MINIMAP2" -ax sr -t "$threads" "$ref.mmi" "$work/pair1.fq" "$work/pair2.fq"
	setup_mm=$wall setup_mm_rss=$rss_mb
fi
mappers=scanmap
[ -n "$MINIMAP2" ] && mappers+=" minimap2"

# simulate PREFIX SEED FCOV: ART pairs into PREFIX{1,2}.fq and PREFIX.sam,
# as $procs processes, each FCOV / $procs with seed SEED x 100 + its number
# and a read-name tag of its own (p<number>.), their files concatenated.
simulate() {
	local prefix=$1 seed=$2 fcov=$3
	if [ "$procs" = 1 ]; then
		"$ART" -ss HS25 -i "$ref" -p -l 150 -f "$fcov" -m 400 -s 50 -rs "$seed" -o "$prefix" -sam -na -q >/dev/null
		return
	fi
	local part_cov i pids=()
	part_cov=$(awk -v f="$fcov" -v p="$procs" 'BEGIN { printf "%.6f", f / p }')
	for ((i = 0; i < procs; i++)); do
		"$ART" -ss HS25 -i "$ref" -p -l 150 -f "$part_cov" -m 400 -s 50 -rs $((seed * 100 + i)) \
			-d "p$i." -o "$prefix.p$i." -sam -na -q >/dev/null &
		pids+=($!)
	done
	for i in "${pids[@]}"; do wait "$i" || return 1; done
	for m in 1 2; do
		for ((i = 0; i < procs; i++)); do cat "$prefix.p$i.$m.fq"; done >"$prefix$m.fq"
	done
	for ((i = 0; i < procs; i++)); do grep -v '^@' "$prefix.p$i..sam"; done >"$prefix.sam"
	rm -f "$prefix".p*
}

# 3. Mapping ART pairs.
fcov=$(awk -v p="$pairs" -v b="$ref_bases" 'BEGIN { printf "%.6f", p * 300 / b }')
map_rows=""
for seed in $seeds; do
	prefix=$work/art-$tag-s$seed
	if [ ! -s "${prefix}1.fq" ]; then
		echo "genome_scale.sh: simulating pairs, seed $seed" >&2
		simulate "$prefix" "$seed" "$fcov" || { echo "genome_scale.sh: art_illumina failed" >&2; exit 1; }
	fi
	reads=$(( $(wc -l <"${prefix}1.fq") / 2 ))
	for mapper in $mappers; do
		name=map-$mapper-s$seed
		if [ $mapper = scanmap ]; then
			timed "$name" "$SCANMAP" map -t "$threads" --engine "$engine" "${map_args[@]}" "$ref" "${prefix}1.fq" "${prefix}2.fq"
			label="scanmap ($engine)" setup=$setup_sm
		else
			timed "$name" "$MINIMAP2" -ax sr -t "$threads" "$ref.mmi" "${prefix}1.fq" "${prefix}2.fq"
			label="minimap2 -ax sr" setup=$setup_mm
		fi
		"$PYTHON" "$here/art_eval.py" "$prefix.sam" "$work/$name.out" --json "$work/$name.json" >"$out/$name.eval"
		map_rows+=$("$PYTHON" - "$work/$name.json" "$seed" "$label" "$reads" "$wall" "$setup" "$cpu_s" "$rss_mb" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
seed, label, n, wall, setup, cpu, rss = sys.argv[2:9]
n, wall, setup = int(n), float(wall), float(setup)
print('| %s | %s | %d | %.0f | %s | %.0f | %s | %.2f | %.2f | %d |' % (
    seed, label, n, n / max(wall, 1e-3),
    '%.0f' % (n / (wall - setup)) if wall - setup > 0.5 else 'n/a',
    n / max(float(cpu), 1e-3), rss, r['correct_pct'], r['correct_q10_pct'], r['wrong_q20']))
PY
)$'\n'
		if [ $mapper = scanmap ] && [ -z "${first_sam:-}" ]; then
			first_sam=$work/first.sam first_prefix=$prefix first_reads=$reads
			mv "$work/$name.out" "$first_sam"
		fi
		rm -f "$work/$name.out"
	done
done

# 4. Throughput: REPS copies of the first seed's pairs, FASTQ.gz to SAM.
tput_rows=""
if [ "$reps" -gt 0 ]; then
	if [ "${SM_GS_GZIP:-0}" = 1 ]; then gz=(gzip -1 -c) gz_name="gzip -1"
	else gz=(bgzip -l 1 -@ "$threads" -c) gz_name="BGZF (bgzip -l 1)"; fi
	for m in 1 2; do
		"${gz[@]}" "${first_prefix}$m.fq" >"$work/one$m.fq.gz"
		for ((i = 0; i < reps; i++)); do cat "$work/one$m.fq.gz"; done >"$work/reps$m.fq.gz"
		rm -f "$work/one$m.fq.gz"
	done
	# The run as given, then one per SM_GS_TPUT_VARIANTS entry (';'-separated
	# options added to scanmap map's, e.g. "--gpus 1;--gpus 2").
	IFS=';' read -r -a variants <<<"${SM_GS_TPUT_VARIANTS:-}"
	tput_pairs=$((first_reads / 2 * reps))
	for v in "" "${variants[@]}"; do
		# shellcheck disable=SC2206  # the variant's options split at spaces
		extra=($v)
		timed "throughput-scanmap${v:+-${v//[^A-Za-z0-9]/}}" "$SCANMAP" map -t "$threads" --engine "$engine" \
			"${map_args[@]}" "${extra[@]}" -o "$work/reps.sam" "$ref" "$work/reps1.fq.gz" "$work/reps2.fq.gz"
		tput_same=yes
		recs=$(grep -vc '^@' "$work/reps.sam" || true)
		if [ "$recs" != $(( $(grep -vc '^@' "$first_sam") * reps )) ] ||
		   ! cmp -s <(grep -v '^@PG' "$first_sam") \
			<(grep -v '^@PG' "$work/reps.sam" | head -n "$(grep -vc '^@PG' "$first_sam")"); then
			tput_same=NO
		fi
		tput_rows+=$(awk -v p="$tput_pairs" -v w="$wall" -v c="$cpu_s" -v r="$rss_mb" -v s="$tput_same" \
			-v su="$setup_sm" -v g="$gz_name${v:+, $v}" 'BEGIN { printf "| %s | %d | %.1f | %.0f | %.0f | %.1f | %s | %s |",
			g, p, w, p / w, (w - su > 0.5 ? p / (w - su) : 0), c, r, s }')$'\n'
		rm -f "$work/reps.sam"
	done
	rm -f "$work"/reps?.fq.gz
fi
rm -f "${first_sam:-}"

commit=$("$SCANMAP" --version | head -n 1)
cpu=$(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo)
mem=$(awk '/MemTotal/ { printf "%.0f GB", $2 / 1e6 }' /proc/meminfo)
{
	echo "# Genome scale: $size ($(date -u +%Y-%m-%d))"
	echo
	echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC'); scanmap: $commit"
	echo "- command: \`benchmarks/genome_scale.sh -s $size -t $threads -e $engine -n $pairs -r \"$seeds\"${div:+ -d $div}$([ "$procs" != 1 ] && echo " -p $procs")$([ "$reps" != 0 ] && echo " -x $reps")$([ "$with_bwa" = 1 ] && echo " -b")\`"
	echo "- machine: $cpu, $(nproc) cores, $mem; $threads threads for every tool"
	echo "- reference: $copies copies of chr20 diverged by ${div:-0.01,0.03} substitutions (benchmarks/diverge.c, seed 7), $ref_bases bases"
	echo "- tools: minimap2 $([ -n "$MINIMAP2" ] && "$MINIMAP2" --version || echo "not run")$([ "$with_bwa" = 1 ] && echo ", bwa $("$BWA" 2>&1 | awk '/Version/ { print $2 }')"), art_illumina (HS25, 2x150, insert 400 +- 50)"
	echo
	echo "Index builds (wall and CPU seconds, peak resident memory, file size):"
	echo
	echo "| index | wall s | CPU s | peak MB | file MB |"
	echo "|---|---|---|---|---|"
	printf '%s' "$index_rows"
	echo
	echo "Set-up: one read pair mapped with the index (in the page cache):"
	echo
	echo "| mapper | wall s | peak MB |"
	echo "|---|---|---|"
	echo "| scanmap ($engine) | $setup_sm (its set-up line: ${setup_sm_log:-n/a} s) | $setup_sm_rss |"
	echo "| minimap2 -ax sr | $setup_mm | $setup_mm_rss |"
	echo
	echo "Mapping ART pairs (reads/s over the whole run, and without the set-up above; % of all reads):"
	echo
	echo "| seed | mapper | reads | reads/s | reads/s after set-up | reads/CPU-s | peak MB | % correct | % correct MAPQ>=10 | wrong MAPQ>=20 |"
	echo "|---|---|---|---|---|---|---|---|---|---|"
	printf '%s' "$map_rows"
	if [ -n "$tput_rows" ]; then
		echo
		echo "Throughput: $reps copies of seed ${seeds%% *}'s pairs in one FASTQ.gz per mate, scanmap ($engine) to a SAM file (pairs/s over the whole run, set-up included, and without the set-up above; same: the first copy's records equal the run above):"
		echo
		echo "| input | pairs | wall s | pairs/s | pairs/s after set-up | CPU s | peak MB | same |"
		echo "|---|---|---|---|---|---|---|---|"
		printf '%s' "$tput_rows"
	fi
} >"$out/genome-scale.md"
echo "wrote $out/genome-scale.md"
