#!/usr/bin/env bash
# gpu_seeded_bench.sh DATA OUT [THREADS...] — end-to-end throughput of seeded
# paired-end mapping against human chromosome 20 (FASTQ to SAM), GPU and CPU
# engines, for each worker thread count (default: the machine's cores).
#
# DATA is made by benchmarks/gpu_e2e_data.sh (chr20.fa.gz, chr20.r[12].fq.gz);
# ./scanmap must be built (on the GPU machine with the carried htslib, as
# tests/gpu/run.sh does; export LD_LIBRARY_PATH to carry/cli_hts/lib).  The
# 50,000 pairs are repeated SM_E2E_REPS times (default 10) in one file pair.
# Each run logs at -v 4, so its log ends with where the time went (workers'
# phases summed over threads, reader, writer).  bwa mem and minimap2 -ax sr,
# when on PATH (tests/gpu/prepare.sh carries Debian's in carry/cli_hts/bin),
# map the same reads with the same threads in the same run (their indexes
# are built first and not timed).  SM_BENCH_MAP_ARGS: more options for
# scanmap map (e.g. "--gpu 0 --gpu-tune slots=4").  Prints a table; exits 1
# if a run failed.
set -uo pipefail
data=${1:?usage: gpu_seeded_bench.sh DATA OUT [THREADS...]}
out=${2:?usage: gpu_seeded_bench.sh DATA OUT [THREADS...]}
shift 2
threads=("$@")
((${#threads[@]})) || threads=("$(nproc)")
reps=${SM_E2E_REPS:-10}
engines=${SM_BENCH_ENGINES:-gpu cpu}
ref=$data/chr20.fa.gz
mkdir -p "$out"
[[ -s $ref.smi ]] || ./scanmap index "$ref" 2>"$out/index.log" || { cat "$out/index.log"; exit 1; }
n_pairs=$(zcat "$data/chr20.r1.fq.gz" | awk 'END { print NR / 4 }')
for m in 1 2; do
	for ((i = 0; i < reps; i++)); do cat "$data/chr20.r$m.fq.gz"; done >"$out/r$m.fq.gz"
done
rows=()
fail=0
. "$(dirname "$0")/timed.sh"
peers=()
for tool in bwa minimap2; do
	command -v $tool >/dev/null && peers+=($tool)
done
if ((${#peers[@]})); then
	mkdir -p "$out/peers"
	cp "$ref" "$out/peers/chr20.fa.gz"
fi
for tool in "${peers[@]}"; do
	case $tool in
	bwa) bwa index "$out/peers/chr20.fa.gz" >"$out/bwa-index.log" 2>&1 ;;
	minimap2) minimap2 -x sr -d "$out/peers/chr20.mmi" "$out/peers/chr20.fa.gz" \
		>"$out/minimap2-index.log" 2>&1 ;;
	esac
	for t in "${threads[@]}"; do
		rm -f "$out/out.sam"
		case $tool in
		bwa) timed "$out/timed" bwa mem -t "$t" "$out/peers/chr20.fa.gz" "$out/r1.fq.gz" "$out/r2.fq.gz" ;;
		minimap2) timed "$out/timed" minimap2 -ax sr -t "$t" "$out/peers/chr20.mmi" "$out/r1.fq.gz" \
			"$out/r2.fq.gz" ;;
		esac >"$out/out.sam" 2>"$out/$tool-t$t.log" || { echo "FAIL $tool -t $t"; tail -n 3 "$out/$tool-t$t.log"; fail=1; }
		rows+=("$tool $t $(cat "$out/timed")")
	done
done
rm -rf "$out/peers"
for e in $engines; do
	for t in "${threads[@]}"; do
		log=$out/$e-t$t.log
		rm -f "$out/out.sam"
		# shellcheck disable=SC2086
		timed "$out/timed" ./scanmap map -v 4 -t "$t" --engine "$e" --mode seeded ${SM_BENCH_MAP_ARGS:-} -o "$out/out.sam" \
			"$ref" "$out/r1.fq.gz" "$out/r2.fq.gz" 2>"$log" || { echo "FAIL $e -t $t"; tail -n 3 "$log"; fail=1; }
		rows+=("$e $t $(cat "$out/timed")")
		grep -h 'seconds:' "$log"
	done
done
rm -f "$out"/r[12].fq.gz "$out/out.sam"
echo
echo "== chr20 seeded pairs, FASTQ to SAM: $reps x $n_pairs pairs =="
printf '%-8s %7s %8s %10s %10s %8s\n' mapper threads seconds pairs/s reads/s peak_MB
for r in "${rows[@]}"; do
	set -- $r
	printf '%-8s %7s %8s %10.0f %10.0f %8s\n' "$1" "$2" "$3" \
		"$(awk -v n="$((reps * n_pairs))" -v s="$3" 'BEGIN { print n / s }')" \
		"$(awk -v n="$((2 * reps * n_pairs))" -v s="$3" 'BEGIN { print n / s }')" "$4"
done
exit $fail
