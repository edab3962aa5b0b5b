#!/usr/bin/env bash
# load.sh — determinism and memory under load: the tables of docs/reliability.md
# ("Determinism and memory under load").
#
#   tests/reliability/load.sh [-n PAIRS] [-x PAIRS] [-m PAIRS,PAIRS,...] [-g DIR] [--no-write]
#
#   -n PAIRS   pairs of the seeded determinism sets [100000]
#   -x PAIRS   pairs of the exhaustive determinism sets [1000]
#   -m LIST    input sizes (pairs) of the memory runs [25000,100000,400000]
#   -g DIR     genomes (benchmarks/genomes.sh DIR) [a folder of its own under TMPDIR]
#   --no-write print the tables without rewriting docs/reliability.md
#
# Data: E. coli K-12 MG1655 (4.6 Mbp) and 2 x 150 bp pairs simulated from it
# by dwgsim (seed 11; insert 500 +- 50, 1% and 2% base errors, 0.1% SNPs, 10%
# of them indels); exhaustive sets use the genome's first 500 kbp and pairs
# simulated from that (seed 12), so that they take minutes.
#
# Determinism: four sets (single: R1 only, paired: R1 and R2; seeded, with
# a saved index, and exhaustive) are each mapped with -t 1, 2, 4 and 16,
# with -t 2 and -K 300 (a batch of one pair, two single reads) and -K 30000
# (100 pairs, 200 single reads) instead of the engine's 256 reads, and with
# -t 16 twice more.
# Every run's SAM without its @PG line (which holds the command line) must
# be byte for byte the same: the sha256 of each is compared.
#
# Memory under load: seeded pairs at each input size with -t 2 and -t 16
# (worker threads beyond the cores keep more batches in flight), SAM written
# to a file; peak resident memory from GNU time (maximum resident set size,
# the index's mapped pages included), wall seconds and reads per second.
#
# Exits 1 if a set gives more than one output or a run fails.  Takes about
# ten minutes on a 2-core machine with the defaults.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
root=$PWD
SCANMAP=${SCANMAP:-$root/scanmap}
TIME=${TIME:-/usr/bin/time}
doc=docs/reliability.md
n_det=100000 n_exh=1000 mem_sizes=25000,100000,400000 gdir= write=1
while (($#)); do
	case $1 in
	-n) n_det=$2; shift 2 ;;
	-x) n_exh=$2; shift 2 ;;
	-m) mem_sizes=$2; shift 2 ;;
	-g) gdir=$2; shift 2 ;;
	--no-write) write=0; shift ;;
	*) echo "usage: load.sh [-n PAIRS] [-x PAIRS] [-m PAIRS,...] [-g DIR] [--no-write]" >&2; exit 2 ;;
	esac
done
for tool in dwgsim sha256sum; do
	command -v "$tool" >/dev/null || { echo "load.sh: $tool is needed" >&2; exit 1; }
done
"$TIME" -f %M true 2>/dev/null || { echo "load.sh: GNU time is needed (TIME=$TIME)" >&2; exit 1; }
[[ -x $SCANMAP ]] || { echo "load.sh: $SCANMAP is not built (run make)" >&2; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/scanmap-load.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
gdir=${gdir:-$tmp/genomes}
benchmarks/genomes.sh "$gdir" || exit 1
t_start=$(date +%s)
n_bad=0

# sim FASTA PAIRS SEED OUT: dwgsim pairs as OUT.1.fq and OUT.2.fq, the /1 and
# /2 taken off the names (name lines only: qualities may end in "/1").
sim() {
	dwgsim -z "$3" -N "$2" -1 150 -2 150 -d 500 -s 50 -e 0.01 -E 0.02 -r 0.001 -R 0.1 \
		"$1" "$tmp/dw" >"$tmp/dwgsim.log" 2>&1 || { echo "dwgsim failed" >&2; exit 1; }
	for k in 1 2; do
		zcat "$tmp/dw.bwa.read$k.fastq.gz" | awk 'NR % 4 == 1 { sub(/\/[12]$/, "") } { print }' >"$4.$k.fq"
	done
	rm -f "$tmp"/dw.*
}

max_pairs=$n_det
for m in ${mem_sizes//,/ }; do ((m > max_pairs)) && max_pairs=$m; done
cp "$gdir/ecoli.fa" "$tmp/ecoli.fa"
echo "simulating $max_pairs pairs from E. coli, $n_exh from its first 500 kbp"
sim "$tmp/ecoli.fa" "$max_pairs" 11 "$tmp/all"
awk '/^>/ { if (n++) exit; print ">ecoli_500k"; next } { s = s $0 }
	END { for (i = 1; i <= 500000; i += 60) print substr(s, i, 60) }' "$tmp/ecoli.fa" >"$tmp/e500k.fa"
sim "$tmp/e500k.fa" "$n_exh" 12 "$tmp/exh"
"$SCANMAP" index -v 1 -t 2 "$tmp/ecoli.fa" || exit 1
index_mb=$(($(stat -c %s "$tmp/ecoli.fa.smi") / 1000000))
# num N: N with thousands separators.
num() { echo "$1" | sed -E ':a; s/^([0-9]+)([0-9]{3})/\1,\2/; ta'; }
# head_pairs N IN OUT: the first N pairs.
head_pairs() { for k in 1 2; do head -n $(($1 * 4)) "$2.$k.fq" >"$3.$k.fq"; done; }
head_pairs "$n_det" "$tmp/all" "$tmp/det"

# Determinism: one row per set.
det_rows=()
runs=("-t 1" "-t 2" "-t 4" "-t 16" "-t 2 -K 300" "-t 2 -K 30000" "-t 16" "-t 16")
# det_set NAME MODE REF READS...: maps READS with every setting of runs.
det_set() {
	local name=$1 mode=$2 ref=$3 sums=() n_reads recs distinct r
	shift 3
	n_reads=$(($(wc -l <"$1") / 4 * $#))
	for r in "${runs[@]}"; do
		# shellcheck disable=SC2086  # r holds options
		if ! "$SCANMAP" map -v 1 --mode "$mode" $r -o "$tmp/det.sam" "$ref" "$@" 2>"$tmp/det.err"; then
			echo "FAIL $name ($r): $(head -c 300 "$tmp/det.err")"
			n_bad=$((n_bad + 1))
			return
		fi
		sums+=("$(grep -v '^@PG' "$tmp/det.sam" | sha256sum | cut -c 1-64)")
	done
	recs=$(grep -vc '^@' "$tmp/det.sam")
	distinct=$(printf '%s\n' "${sums[@]}" | sort -u | wc -l)
	echo "$name: ${#runs[@]} runs, $distinct distinct output(s)"
	((distinct == 1)) || n_bad=$((n_bad + 1))
	det_rows+=("| $name | $(num "$n_reads") | $(num "$recs") | ${#runs[@]} | $distinct |")
}
echo "determinism runs"
det_set "single, seeded (E. coli, saved index)" seeded "$tmp/ecoli.fa" "$tmp/det.1.fq"
det_set "paired, seeded (E. coli, saved index)" seeded "$tmp/ecoli.fa" "$tmp/det.1.fq" "$tmp/det.2.fq"
det_set "single, exhaustive (E. coli's first 500 kbp)" exhaustive "$tmp/e500k.fa" "$tmp/exh.1.fq"
det_set "paired, exhaustive (E. coli's first 500 kbp)" exhaustive "$tmp/e500k.fa" "$tmp/exh.1.fq" \
	"$tmp/exh.2.fq"

# Memory under load: one row per input size and -t.
mem_rows=()
echo "memory runs"
for m in ${mem_sizes//,/ }; do
	head_pairs "$m" "$tmp/all" "$tmp/mem"
	fq_mb=$((($(stat -c %s "$tmp/mem.1.fq") + $(stat -c %s "$tmp/mem.2.fq")) / 1000000))
	for t in 2 16; do
		rm -f "$tmp/mem.sam"
		if ! "$TIME" -f '%M %e' -o "$tmp/time.txt" "$SCANMAP" map -v 1 -t "$t" -o "$tmp/mem.sam" \
			"$tmp/ecoli.fa" "$tmp/mem.1.fq" "$tmp/mem.2.fq" 2>"$tmp/mem.err"; then
			echo "FAIL memory run $m pairs -t $t: $(head -c 300 "$tmp/mem.err")"
			n_bad=$((n_bad + 1))
			continue
		fi
		read -r kb secs <"$tmp/time.txt"
		sam_mb=$(($(stat -c %s "$tmp/mem.sam") / 1000000))
		row="| $(num $((2 * m))) | $fq_mb | $sam_mb | $t | $((kb / 1024)) | $secs | $(awk -v n=$((2 * m)) -v s="$secs" 'BEGIN { printf "%.0f", n / s }') |"
		echo "$row"
		mem_rows+=("$row")
	done
done

secs=$(($(date +%s) - t_start))
table=$(
	echo "Determinism: each set mapped ${#runs[@]} times ($(printf '%s, ' "${runs[@]}" | sed 's/, $//')),"
	echo "the SAM without @PG compared by sha256:"
	echo
	echo "| set | reads | SAM records | runs | distinct outputs |"
	echo "|---|---|---|---|---|"
	printf '%s\n' "${det_rows[@]}"
	echo
	echo "Memory under load: seeded pairs on E. coli (index file ${index_mb} MB, mapped), SAM to a file:"
	echo
	echo "| reads | FASTQ MB | SAM MB | -t | peak RSS MiB | wall s | reads/s |"
	echo "|---|---|---|---|---|---|---|"
	printf '%s\n' "${mem_rows[@]}"
	echo
	echo "scanmap $("$SCANMAP" --version 2>/dev/null | head -n 1 | awk '{ print $NF }'), $(date -u '+%Y-%m-%d %H:%M UTC'),"
	echo "$(nproc) cores, load average $(cut -d ' ' -f 1-3 /proc/loadavg) at the end; the script took $secs s."
)
echo "$table"
if ((write)); then
	TABLE=$table awk '
		/<!-- load:begin -->/ {print; print ENVIRON["TABLE"]; skip = 1; next}
		/<!-- load:end -->/ {skip = 0}
		!skip {print}' "$root/$doc" >"$root/$doc.new" && mv "$root/$doc.new" "$root/$doc"
	echo "tables written to $doc"
fi
((n_bad == 0))
