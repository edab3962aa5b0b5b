#!/usr/bin/env bash
# gpu_multi_bench.sh DATA OUT [COUNTS...] — on a machine with several GPUs:
# seeded chr20 pairs mapped with 1, 2, ... GPUs in one run each (--gpus N),
# pairs/s and scaling efficiency.
#
# Builds ./scanmap with the carried htslib (benchmarks/gpu_env.sh; run
# tests/gpu/prepare.sh here first and carry carry/cli_hts and carry/e2e),
# makes SM_E2E_REPS (default 20) copies of the chr20 pairs of
# benchmarks/gpu_e2e_data.sh in one gzipped file pair, and maps them with the
# GPU engine, -t = the machine's cores (SM_MULTI_THREADS), FASTQ.gz to a new
# SAM file, once per GPU count in COUNTS (default 1 up to every visible GPU)
# and SM_MULTI_RUNS times each (default 2; the best is kept).  Every run's
# records must equal the one-GPU run's (all but @PG): a run that differs or
# fails makes the script exit 1.
#
# Input: SM_MULTI_INPUT=gz (default) the gzip files as they are (each copy
# a plain gzip member: one inflate thread per file); bgzf: DATA's
# chr20.r1.bgzf.fq.gz and chr20.r2.bgzf.fq.gz (the same reads through
# bgzip), inflated on several threads per file; plain: uncompressed FASTQ
# (no inflate threads).  SM_MULTI_OUTPUT=null writes SAM to /dev/null (no page cache),
# then the identity check is skipped.  SM_BENCH_MAP_ARGS: more options for
# scanmap map.
#
# Prints a table; writes OUT/multi.tsv (gpus threads pairs seconds pairs_per_s
# speedup efficiency peak_mb same_sam), which benchmarks/gpu_multi_plot.py
# turns into a PNG, and keeps each run's -v 4 log (where the time went:
# workers' phases, reader, inflate and writer threads, GPU calls per engine).
set -uo pipefail
data=${1:?usage: gpu_multi_bench.sh DATA OUT [COUNTS...]}
out=${2:?usage: gpu_multi_bench.sh DATA OUT [COUNTS...]}
shift 2
counts=("$@")
. "$(dirname "$0")/gpu_env.sh"
mkdir -p "$out"
gpu_build . "$out/build.log" || exit 1
n_gpu=$(nvidia-smi -L 2>/dev/null | wc -l)
((n_gpu > 0)) || { echo "gpu_multi_bench: no GPU visible"; exit 1; }
if ((${#counts[@]} == 0)); then
	for ((g = 1; g <= n_gpu; g++)); do counts+=("$g"); done
fi
threads=${SM_MULTI_THREADS:-$(nproc)}
runs=${SM_MULTI_RUNS:-2}
reps=${SM_E2E_REPS:-20}
input=${SM_MULTI_INPUT:-gz}
output=${SM_MULTI_OUTPUT:-file}
ref=$data/chr20.fa.gz
[[ -s $ref.smi ]] || ./scanmap index -t "$threads" "$ref" 2>"$out/index.log" || { cat "$out/index.log"; exit 1; }
work=${TMPDIR:-/tmp}/gpu_multi.$$
mkdir -p "$work"
trap 'rm -rf "$work"' EXIT
for m in 1 2; do
	src=$data/chr20.r$m.fq.gz
	# bgzf, or plain where only the BGZF files were made: the same reads
	[[ $input == bgzf || ($input == plain && ! -s $src) ]] && src=$data/chr20.r$m.bgzf.fq.gz
	[[ -s $src ]] || { echo "gpu_multi_bench: $src is missing (benchmarks/gpu_e2e_data.sh)"; exit 1; }
	[[ $m == 1 ]] && n_pairs=$(zcat "$src" | awk 'END { print NR / 4 }')
	for ((i = 0; i < reps; i++)); do cat "$src"; done >"$work/r$m.fq.gz"
	[[ $input == plain ]] && { zcat "$work/r$m.fq.gz" >"$work/r$m.fq"; rm "$work/r$m.fq.gz"; }
done
pairs=$((reps * n_pairs))
fq=("$work/r1.fq.gz" "$work/r2.fq.gz")
[[ $input == plain ]] && fq=("$work/r1.fq" "$work/r2.fq")

. "$(dirname "$0")/timed.sh"

# Records of a SAM file without @PG (whose command line names --gpus), as one digest.
digest() { grep -v '^@PG' "$1" | md5sum | cut -d' ' -f1; }

fail=0
base_md5= base_rate=
printf 'gpus\tthreads\tpairs\tseconds\tpairs_per_s\tspeedup\tefficiency\tpeak_mb\tsame_sam\n' >"$out/multi.tsv"
rows=()
for g in "${counts[@]}"; do
	best=
	same=-
	for ((r = 1; r <= runs; r++)); do
		log=$out/gpus$g-run$r.log
		sam=$work/out.sam
		[[ $output == null ]] && sam=/dev/null
		rm -f "$work/out.sam"
		# shellcheck disable=SC2086
		if ! timed "$out/timed" ./scanmap map -v 4 -t "$threads" --engine gpu --mode seeded \
			--gpus "$g" ${SM_BENCH_MAP_ARGS:-} -o "$sam" "$ref" "${fq[@]}" 2>"$log"; then
			echo "FAIL --gpus $g run $r: $(tail -n 1 "$log")"
			fail=1
			continue
		fi
		read -r secs peak <"$out/timed"
		if [[ $output != null ]]; then
			md5=$(digest "$work/out.sam")
			[[ -z $base_md5 ]] && base_md5=$md5
			if [[ $md5 == "$base_md5" ]]; then
				[[ $same == - ]] && same=yes
			else
				same=NO
				echo "FAIL --gpus $g run $r: SAM records differ from the first run's"
				fail=1
			fi
		fi
		if [[ -z $best ]] || awk -v a="$secs" -v b="$best" 'BEGIN { exit !(a < b) }'; then
			best=$secs best_peak=$peak
		fi
		grep -h 'seconds:\|GPU engine [0-9]' "$log" | sed "s/^/  gpus $g run $r: /"
	done
	[[ -n $best ]] || continue
	rate=$(awk -v n="$pairs" -v s="$best" 'BEGIN { printf "%.0f", n / s }')
	[[ -z $base_rate && $g == 1 ]] && base_rate=$rate
	speedup=$(awk -v r="$rate" -v b="${base_rate:-0}" 'BEGIN { if (b > 0) printf "%.2f", r / b; else print "-" }')
	eff=$(awk -v s="$speedup" -v g="$g" 'BEGIN { if (s != "-") printf "%.2f", s / g; else print "-" }')
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$g" "$threads" "$pairs" "$best" "$rate" "$speedup" \
		"$eff" "$best_peak" "$same" >>"$out/multi.tsv"
done
echo
echo "== chr20 seeded pairs on several GPUs: $pairs pairs, -t $threads, input $input, SAM to $output =="
echo "   ($(nvidia-smi --query-gpu=name --format=csv,noheader | sort | uniq -c | sed 's/^ *//' | paste -sd,))"
# (no `column` on the GPU machine)
awk -F'\t' '{ for (i = 1; i <= NF; i++) printf "%-12s", $i; print "" }' "$out/multi.tsv"
exit $fail
