#!/usr/bin/env bash
# small_ref.sh DATA OUT [options] — exhaustive mapping against a small
# (HIV-sized) reference: scanmap's GPU and CPU engines beside bwa mem and
# minimap2 -ax sr, on the same reads with the same threads, FASTQ.gz to SAM.
#
# Reference and reads, made here offline (no HIV genome can be fetched):
#   OUT/small.fa   the first 9,719 bases of phage lambda (DATA/lambda.fa),
#                  the length of HIV-1's genome;
#   OUT/donor.fa   a genome diverged from it, HIV-like: the reads come from
#                  a different strain than the reference.  benchmarks/diverge.c
#                  twice with fixed seeds (3% substitutions, then 1% more,
#                  each with a tenth as many 1-5 bp indels): against
#                  small.fa, 343 substitutions (3.5%) and 45 indels of 109
#                  bases in all (minimap2 -cx asm20 --eqx);
#   read sets      art_illumina, single-end, READS (-n) per set from the
#                  donor, fixed seeds: 250 (MiSeq v3 profile MSv3, 250 bp),
#                  150 (HiSeq 2500, HS25, 150 bp), 72 (HiSeq 2000, HS20, 72 bp);
#                  S:L the reads of set S (250 or 150) cut to their first L
#                  bases (e.g. 150:100, 150:72: one profile at every length).
# The mapped input is REPS (-r) copies of the 250 bp set's FASTQ.gz in one
# file (gzip members concatenate into one valid file), and REPS x 250 / L
# copies of the L bp set's, so that every set has as many bases and its runs
# last about as long: the GPU maps them in seconds.
#
# Mappers (-e, a list of these words; each set is mapped in that order):
#   gpu       scanmap map --mode exhaustive --engine gpu -t T, every read;
#   cpu       the same with --engine cpu, on the first 1/DIV (-c) of the
#             reads only, as it is slower: its rates are over those reads;
#   cpu-all   --engine cpu on every read (without a GPU: the identity check
#             below against the CPU engine itself);
#   bwa       bwa mem -t T (bwa index small.fa first, not timed);
#   minimap2  minimap2 -ax sr -t T (its index of small.fa first, not timed).
# Each run reads the FASTQ.gz and writes a new SAM file, under
# benchmarks/timed.sh (wall seconds, peak resident memory) and bash's time
# (CPU seconds: user + system, the timer's Python and sync included).
#
# Rates are over the whole run (start-up, inflating, SAM writing included):
#   reads/s = reads / wall seconds;
#   TCUPS   = reads x read length x reference length (9,719) x 2 (both
#             strands) / wall seconds / 1e12, the cells of the exhaustive
#             search per second, end to end; scanmap only (bwa mem and
#             minimap2 fill no such matrix).  scanmap's summary line gives
#             its own Gcells/s (engine_gcells in the TSV), over its mapping.
# Issue 22's targets on one GPU: 3 TCUPS for 250 bp reads (617,000 reads/s
# against 9,719 bp) and 1 M reads/s for 72-150 bp reads.
#
# Identity check: the cpu run maps a prefix of the same file, so its records
# (every line but @PG) must equal the first as many of the gpu run's, or of
# cpu-all's without gpu; cpu-all's must equal gpu's whole.  A difference, a
# failed run, or a SAM with other than one primary record per read makes
# the script exit 1.  Without gpu or cpu-all the check is skipped (said so).
#
# Options:
#   -e MAPPERS  ["gpu cpu bwa minimap2"]    -t THREADS  [nproc]
#   -n READS    simulated per set [100000]  -r REPS     [8: 800,000 reads of 250 bp,
#                                                         1.3 M of 150, 2.8 M of 72]
#   -c DIV      the cpu run's share [4]     -s SETS     ["250 150 72"; S:L sets too]
# SM_BENCH_MAP_ARGS: more options for scanmap map.  SM_SMALL_REF_BGZF=1: the
# FASTQ.gz files are BGZF (bgzip -l 1, on PATH or in carry/cli_hts/bin), which
# scanmap inflates on several threads a file, instead of gzip -1's one member.
#
# Prints a table; writes OUT/small_ref.tsv (set read_len mapper threads reads
# seconds cpu_s reads_per_s tcups peak_mb mapped_pct engine_gcells same_sam)
# and keeps each run's stderr as OUT/SET-MAPPER.log: scanmap's at -v 4,
# whose debug lines say where the time went (workers' phases, reader,
# writer).  It works from the repository's top directory (DATA and OUT may
# be relative to the caller's); work files in ${TMPDIR:-/tmp}, removed.
#
# Tools: carry/tools first on PATH when present (art_illumina, bwa,
# minimap2; ART's libraries in carry/art/lib or carry/tools/lib).  With gpu
# in -e and SCANMAP unset, ./scanmap and build/benchmarks/diverge are built
# here against the carried htslib (benchmarks/gpu_env.sh: run
# tests/gpu/prepare.sh first and carry carry/cli_hts); otherwise they must
# be built (make cuda=0 scanmap build/benchmarks/diverge), or named by
# SCANMAP and DIVERGE.
set -uo pipefail
usage="usage: small_ref.sh DATA OUT [-e MAPPERS] [-t THREADS] [-n READS] [-r REPS] [-c DIV] [-s SETS]"
data=${1:?$usage}
out=${2:?$usage}
shift 2
mappers="gpu cpu bwa minimap2" threads=$(nproc) n_sim=100000 reps=8 div=4 sets="250 150 72"
while getopts "e:t:n:r:c:s:" o; do
	case $o in
	e) mappers=$OPTARG ;;
	t) threads=$OPTARG ;;
	n) n_sim=$OPTARG ;;
	r) reps=$OPTARG ;;
	c) div=$OPTARG ;;
	s) sets=$OPTARG ;;
	*) echo "$usage" >&2; exit 1 ;;
	esac
done
((OPTIND > $#)) || { echo "$usage" >&2; exit 1; }
for m in $mappers; do
	case $m in
	gpu | cpu | cpu-all | bwa | minimap2) ;;
	*) echo "small_ref.sh: unknown mapper $m (gpu, cpu, cpu-all, bwa, minimap2)" >&2; exit 1 ;;
	esac
done
for s in $sets; do
	case $s in
	250 | 150 | 72) ;;
	250:* | 150:*)
		[[ ${s#*:} =~ ^[1-9][0-9]*$ ]] && ((${s#*:} < ${s%%:*})) ||
			{ echo "small_ref.sh: set $s: S:L needs L below S" >&2; exit 1; } ;;
	*) echo "small_ref.sh: unknown set $s (250, 150, 72, 250:L, 150:L)" >&2; exit 1 ;;
	esac
done
die() { echo "small_ref.sh: $*" >&2; exit 1; }
has() { [[ " $mappers " == *" $1 "* ]]; }

[[ -s $data/lambda.fa ]] || die "$data/lambda.fa not found"
mkdir -p "$out" || exit 1
data=$(cd "$data" && pwd) out=$(cd "$out" && pwd)
cd "$(dirname "$0")/.." || exit 1
[[ -d carry/tools ]] && export PATH="$PWD/carry/tools:$PATH"
for lib in carry/art/lib carry/tools/lib; do
	[[ -d $lib ]] && export LD_LIBRARY_PATH="$PWD/$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
done
if [[ -d carry/cli_hts ]] || { has gpu && [[ -z ${SCANMAP:-} ]]; }; then
	# shellcheck source=benchmarks/gpu_env.sh
	. benchmarks/gpu_env.sh
fi
if has gpu && [[ -z ${SCANMAP:-} ]]; then
	echo "small_ref.sh: building ./scanmap (log: $out/build.log)" >&2
	gpu_build . "$out/build.log" build/benchmarks/diverge || exit 1
fi
SCANMAP=${SCANMAP:-./scanmap}
DIVERGE=${DIVERGE:-build/benchmarks/diverge}
gz=(gzip -1)
if [[ ${SM_SMALL_REF_BGZF:-0} == 1 ]]; then
	[[ -x carry/cli_hts/bin/bgzip ]] && export PATH="$PWD/carry/cli_hts/bin:$PATH"
	gz=(bgzip -l 1 -@ "$threads" -c)
fi
need=("$SCANMAP" "$DIVERGE" art_illumina python3 "${gz[0]}")
has bwa && need+=(bwa)
has minimap2 && need+=(minimap2)
for tool in "${need[@]}"; do
	command -v "$tool" >/dev/null || die "$tool not found (make cuda=0 scanmap build/benchmarks/diverge, or see the header)"
done
. benchmarks/timed.sh
work=$(mktemp -d "${TMPDIR:-/tmp}/small_ref.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT

# The reference and the donor genome.
ref_len=9719
ref=$out/small.fa
awk -v n=$ref_len 'NR == 1 { print ">small"; next } /^>/ { exit } { s = s $0 }
	END { s = substr(s, 1, n); for (i = 1; i <= length(s); i += 60) print substr(s, i, 60) }' \
	"$data/lambda.fa" >"$ref"
[[ $(grep -v '^>' "$ref" | tr -d '\n' | wc -c) == "$ref_len" ]] || die "$data/lambda.fa is shorter than $ref_len bases"
# diverge.c's copy I of COPIES has substitutions at 1% + 2% (I - 1) / (COPIES - 1):
# copy 2 of 2 has 3%, a single copy 1%.
"$DIVERGE" "$ref" 2 11 | awk '/^>/ { keep = /_c2$/ } keep' >"$work/donor3.fa" || die "diverge failed"
"$DIVERGE" "$work/donor3.fa" 1 12 | sed '1s/.*/>donor/' >"$out/donor.fa" || die "diverge failed"

# The read sets: $work/SET.fq.gz (every copy) and $work/SET.cpu.fq.gz (the cpu run's prefix);
# rlen[SET] is its reads' length (S:L: L).
declare -A profile=([250]=MSv3 [150]=HS25 [72]=HS20) copies=() reads=() cpu_reads=() rlen=()
for len in $sets; do
	src=${len%%:*} rlen[$len]=${len##*:}
	echo "small_ref.sh: simulating $n_sim reads of $src bp (ART ${profile[$src]}), ${rlen[$len]} bp of each" >&2
	art_illumina -ss "${profile[$src]}" -i "$out/donor.fa" -l "$src" -c "$n_sim" -rs "$src" \
		-o "$work/art$len" -na -q >"$work/art.log" 2>&1 || { cat "$work/art.log"; die "art_illumina failed"; }
	awk -v l="${rlen[$len]}" 'NR % 2 == 0 { $0 = substr($0, 1, l) } 1' "$work/art$len.fq" |
		"${gz[@]}" >"$work/sim$len.fq.gz" && rm "$work/art$len.fq"
	copies[$len]=$(awk -v r="$reps" -v l="${rlen[$len]}" 'BEGIN { c = int(r * 250 / l + 0.5); print (c > 0 ? c : 1) }')
	for ((i = 0; i < copies[$len]; i++)); do cat "$work/sim$len.fq.gz"; done >"$work/$len.fq.gz"
	reads[$len]=$((copies[$len] * n_sim))
	cpu_reads[$len]=$((reads[$len] / div))
	if has cpu; then
		zcat "$work/$len.fq.gz" | awk -v n=$((4 * cpu_reads[$len])) 'NR <= n' | "${gz[@]}" >"$work/$len.cpu.fq.gz"
	fi
	rm "$work/sim$len.fq.gz"
done
if has bwa; then
	cp "$ref" "$work/small.fa"
	bwa index "$work/small.fa" >"$out/bwa-index.log" 2>&1 || die "bwa index failed"
fi
if has minimap2; then
	minimap2 -x sr -d "$work/small.mmi" "$ref" >"$out/minimap2-index.log" 2>&1 || die "minimap2 -d failed"
fi

# run NAME STDOUT CMD...: CMD with its stdout to STDOUT and its stderr to
# OUT/NAME.log, under timed.sh and bash's time; sets secs, peak and cpu_s.
run() {
	local name=$1 stdout=$2 rc
	shift 2
	local TIMEFORMAT='%U %S'
	echo "small_ref.sh: $name: $*" >&2
	{ time timed "$work/timed" "$@" >"$stdout" 2>"$out/$name.log"; } 2>"$work/cpu"
	rc=$?
	read -r secs peak <"$work/timed"
	cpu_s=$(awk '{ printf "%.1f", $1 + $2 }' "$work/cpu")
	return $rc
}

# primaries SAM: "PRIMARY_RECORDS MAPPED_PCT" (the flag's bits by division: mawk has no and()).
primaries() {
	awk -F'\t' '!/^@/ && int($2 / 256) % 2 == 0 && int($2 / 2048) % 2 == 0 {
		n++; if (int($2 / 4) % 2 == 0) m++ }
		END { printf "%d %.2f\n", n, n ? 100 * m / n : 0 }' "$1"
}

# same_records SAM BASE FULL: SAM's records (every line but @PG) equal the
# first as many of BASE's, or all of BASE's when FULL is 1; a difference's
# first lines go to stdout.
same_records() {
	local n
	n=$(grep -vc '^@PG' "$1")
	diff <(grep -v '^@PG' "$1") <(awk -v n="$n" -v full="$3" '/^@PG/ { next }
		full || ++k <= n { print; next } { exit }' "$2") | head -n 6
	return "${PIPESTATUS[0]}"
}

fail=0
printf 'set\tread_len\tmapper\tthreads\treads\tseconds\tcpu_s\treads_per_s\ttcups\tpeak_mb\tmapped_pct\tengine_gcells\tsame_sam\n' \
	>"$out/small_ref.tsv"
for len in $sets; do
	set_name=${profile[${len%%:*}]}-$len
	base=
	has cpu-all && base=cpu-all
	has gpu && base=gpu
	for m in $mappers; do
		name=$set_name-$m sam=$work/$set_name-$m.sam fq=$work/$len.fq.gz n=${reads[$len]}
		case $m in
		gpu | cpu | cpu-all)
			engine=${m%-all}
			[[ $m == cpu ]] && fq=$work/$len.cpu.fq.gz n=${cpu_reads[$len]}
			# shellcheck disable=SC2086
			run "$name" /dev/null "$SCANMAP" map -v 4 --mode exhaustive --engine "$engine" -t "$threads" \
				${SM_BENCH_MAP_ARGS:-} -o "$sam" "$ref" "$fq" ;;
		bwa) run "$name" "$sam" bwa mem -t "$threads" "$work/small.fa" "$fq" ;;
		minimap2) run "$name" "$sam" minimap2 -ax sr -t "$threads" "$work/small.mmi" "$fq" ;;
		esac || { echo "FAIL $name: $(tail -n 1 "$out/$name.log")"; fail=1; continue; }
		read -r prim mapped < <(primaries "$sam")
		if [[ $prim != "$n" ]]; then
			echo "FAIL $name: $prim primary records for $n reads"
			fail=1
		fi
		tcups=- gcells=- same=-
		case $m in
		gpu | cpu | cpu-all)
			tcups=$(awk -v n="$n" -v l="${rlen[$len]}" -v r="$ref_len" -v s="$secs" 'BEGIN { printf "%.3f", n * l * r * 2 / s / 1e12 }')
			gcells=$(sed -n 's/.* \([0-9.]*\) Gcells\/s.*/\1/p' "$out/$name.log" | tail -n 1)
			grep -h 'seconds:' "$out/$name.log" | sed "s/^/  $name: /" ;;
		*) rm -f "$sam" ;;
		esac
		rate=$(awk -v n="$n" -v s="$secs" 'BEGIN { printf "%.0f", n / s }')
		printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$set_name" "${rlen[$len]}" "$m" "$threads" "$n" \
			"$secs" "$cpu_s" "$rate" "$tcups" "$peak" "$mapped" "${gcells:--}" "$same" >>"$out/small_ref.tsv"
	done
	# The identity check: cpu and cpu-all against the base run's records.
	base_sam=$work/$set_name-$base.sam
	for m in cpu cpu-all; do
		if ! has $m || [[ $m == "$base" ]]; then continue; fi
		sam=$work/$set_name-$m.sam
		if [[ -z $base ]]; then
			echo "note: $set_name: no gpu or cpu-all run, the $m run's records are not checked (-e \"cpu cpu-all ...\" checks the CPU engine against itself)"
			continue
		fi
		[[ -s $sam && -s $base_sam ]] || continue
		full=0
		[[ $m == cpu-all ]] && full=1
		if diff_lines=$(same_records "$sam" "$base_sam" $full); then
			same=yes
			echo "same: $set_name: the $m run's records equal the $base run's"
		else
			same=NO
			echo "FAIL $set_name: the $m run's records differ from the $base run's:"
			echo "$diff_lines"
			fail=1
		fi
		awk -F'\t' -v OFS='\t' -v s="$set_name" -v m="$m" -v v="$same" \
			'$1 == s && $3 == m { $13 = v } { print }' "$out/small_ref.tsv" >"$work/tsv" &&
			cat "$work/tsv" >"$out/small_ref.tsv"
	done
	rm -f "$work/$set_name"-*.sam "$work/$len".*fq.gz
done

gpu_name=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1)
echo
echo "== Exhaustive mapping against a 9,719 bp reference (lambda's first 9,719 bp; reads from a ~4% diverged donor) =="
echo "   $(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo), $(nproc) cores${gpu_name:+, $gpu_name}; -t $threads;" \
	"$("$SCANMAP" --version | head -n 1)"
echo "   $n_sim ART reads per set; copies: $reps of the 250 bp set, as many bases of the others;" \
	"cpu: the first 1/$div of the reads; TCUPS: reads x length x $ref_len x 2 / wall s"
awk -F'\t' '{ printf "%-9s %-8s %8s %9s %7s %10s %7s %8s %8s %13s %5s\n", $1, $3, $5, $6, $7, $8, $9, $10, $11, $12, $13 }' \
	"$out/small_ref.tsv"
exit $fail
