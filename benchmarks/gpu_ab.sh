#!/usr/bin/env bash
# gpu_ab.sh OLD DATA OUT REPS [THREADS...] — on the GPU machine: builds
# ./scanmap and the scanmap of the source tree OLD (e.g. a `git archive` of
# an earlier commit, carried) with the carried htslib, makes REPS copies of
# DATA's chr20 pairs, and maps them with the GPU engine, old and new in
# turn, SM_AB_ROUNDS times (default 2), at each thread count (default 16),
# so that both are timed on the same machine in the same call.
# SM_AB_INPUT=bgzf takes DATA's chr20.r1.bgzf.fq.gz and chr20.r2.bgzf.fq.gz
# (the same pairs through bgzip) instead of the gzip files; SM_MAP_ARGS:
# more options for both (e.g. "--gpus 2"); SM_AB_OWN_INDEX=1: OLD maps against
# its own index of a copy of the reference (an OLD whose index format is
# older than ./scanmap's).  Prints one line per run: which,
# threads, wall seconds (scanmap's own, set-up included), pairs/s.
set -uo pipefail
old=${1:?usage: gpu_ab.sh OLD DATA OUT REPS [THREADS...]}
data=${2:?usage: gpu_ab.sh OLD DATA OUT REPS [THREADS...]}
out=${3:?usage: gpu_ab.sh OLD DATA OUT REPS [THREADS...]}
reps=${4:?usage: gpu_ab.sh OLD DATA OUT REPS [THREADS...]}
shift 4
threads=("$@")
((${#threads[@]})) || threads=(16)
. "$(dirname "$0")/gpu_env.sh"
mkdir -p "$out"
gpu_build "$old" "$out/build-old.log" && gpu_build . "$out/build.log" || exit 1
[[ -s $data/chr20.fa.gz.smi ]] || ./scanmap index "$data/chr20.fa.gz" 2>"$out/index.log" ||
	{ cat "$out/index.log"; exit 1; }
old_ref=$data/chr20.fa.gz
if [[ ${SM_AB_OWN_INDEX:-} == 1 ]]; then
	old_ref=$out/old-ref/chr20.fa.gz
	mkdir -p "$out/old-ref"
	cp "$data/chr20.fa.gz" "$old_ref"
	"$old/scanmap" index "$old_ref" 2>"$out/index-old.log" || { cat "$out/index-old.log"; exit 1; }
fi
kind=fq
[[ ${SM_AB_INPUT:-gz} == bgzf ]] && kind=bgzf.fq
for m in 1 2; do
	for ((i = 0; i < reps; i++)); do cat "$data/chr20.r$m.$kind.gz"; done >"$out/r$m.fq.gz"
done
pairs=$(( $(zcat "$data/chr20.r1.$kind.gz" | wc -l) / 4 * reps ))
for ((round = 1; round <= ${SM_AB_ROUNDS:-2}; round++)); do
	for t in "${threads[@]}"; do
		for which in old new; do
			bin=./scanmap ref=$data/chr20.fa.gz
			[[ $which == old ]] && bin=$old/scanmap ref=$old_ref
			log=$out/$which-t$t-$round.log
			# shellcheck disable=SC2086
			"$bin" map -t "$t" -v 4 ${SM_MAP_ARGS:-} -o /dev/null "$ref" "$out/r1.fq.gz" \
				"$out/r2.fq.gz" 2>"$log" || { tail -n 5 "$log"; exit 1; }
			wall=$(sed -n 's/.*mapped ([0-9.]*%), \([0-9.]*\) s,.*/\1/p' "$log")
			echo "$which t$t round $round: $wall s, $(awk -v p="$pairs" -v w="$wall" 'BEGIN { printf "%.0f", p / w }') pairs/s"
		done
	done
done
