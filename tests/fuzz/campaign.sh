#!/usr/bin/env bash
# campaign.sh — a fuzz campaign: every libFuzzer target for the same time.
#
#   tests/fuzz/campaign.sh TARGET_SECONDS JOBS OUTDIR [TARGET...]
#
# Builds the targets (make fuzz: clang) unless build/fuzz/ already holds them
# (built elsewhere and carried here: they need only glibc and libstdc++, and
# ISA-L from build/fuzz/lib), then runs each target for TARGET_SECONDS of
# wall time with JOBS fuzzing processes (-jobs/-workers), one target after
# another (every tests/fuzz/fuzz_*.c, or the TARGETs named: index,
# fastq, ...), growing OUTDIR/corpus/NAME from tests/fuzz/corpus/NAME.  CPU time
# per target is about TARGET_SECONDS x JOBS.  Crashes go to OUTDIR/crashes/NAME/.
# Prints, per target: executions, coverage (libFuzzer's cov and ft), corpus
# size and crashes; the table is also in OUTDIR/summary.md.  A crash's report
# and input are printed to stderr.  Exits 1 if any target crashed.
set -uo pipefail
secs=${1:?usage: campaign.sh TARGET_SECONDS JOBS OUTDIR [TARGET...]}
jobs=${2:?usage: campaign.sh TARGET_SECONDS JOBS OUTDIR [TARGET...]}
out=${3:?usage: campaign.sh TARGET_SECONDS JOBS OUTDIR [TARGET...]}
shift 3
cd "$(dirname "$0")/../.." || exit 1
root=$PWD
mkdir -p "$out" && out=$(cd "$out" && pwd)

targets=("$@")
if ((${#targets[@]} == 0)); then
	for f in tests/fuzz/fuzz_*.c; do
		t=${f##*/fuzz_}
		targets+=("${t%.c}")
	done
fi
for t in "${targets[@]}"; do
	[[ -f tests/fuzz/fuzz_$t.c ]] || { echo "campaign: no target tests/fuzz/fuzz_$t.c" >&2; exit 1; }
done
missing=0
for t in "${targets[@]}"; do
	[[ -x build/fuzz/fuzz_$t ]] || missing=1
done
if ((missing)); then
	make fuzz >"$out/build.log" 2>&1 || {
		tail -n 20 "$out/build.log"
		echo "campaign: make fuzz failed (needs clang; or carry build/fuzz/ built elsewhere)" >&2
		exit 1
	}
fi

# A crash found where only this script's output is kept (CI) must be
# reproducible from that output alone: print what the sanitizer or libFuzzer
# said and each crashing input (base64, up to 64 KiB), to stderr.
report_crashes() {
	local t=$1 crashes=$2 logs=$3 f l
	for l in "$logs"/fuzz-*.log; do
		[[ -f $l ]] || continue
		grep -aq -E '^==[0-9]+==|deadly signal|libFuzzer: (timeout|out-of-memory)|Slowest unit' "$l" ||
			continue
		echo "campaign: fuzz_$t: ${l##*/}, from the first report:" >&2
		grep -a -n -m 1 -E '^==[0-9]+==|deadly signal|libFuzzer: (timeout|out-of-memory)|Slowest unit' "$l" |
			cut -d: -f1 | while read -r n; do sed -n "$n,$((n + 40))p" "$l"; done >&2
	done
	for f in "$crashes"/*; do
		echo "campaign: fuzz_$t: input ${f##*/} ($(stat -c %s "$f") bytes), base64:" >&2
		head -c 65536 "$f" | base64 >&2
		echo "campaign: reproduce: base64 -d > in; build/fuzz/fuzz_$t in" >&2
	done
}

summary=$out/summary.md
{
	echo "| target | seconds x jobs | executions | cov | ft | corpus | crashes |"
	echo "|---|---|---|---|---|---|---|"
} >"$summary"
any_crash=0
for t in "${targets[@]}"; do
	corpus=$out/corpus/$t crashes=$out/crashes/$t logs=$out/logs/$t
	mkdir -p "$corpus" "$crashes" "$logs"
	echo "campaign: fuzz_$t for ${secs}s with $jobs jobs" >&2
	# Each worker writes fuzz-N.log in the current directory.
	(cd "$logs" && "$root/build/fuzz/fuzz_$t" -max_total_time="$secs" -jobs="$jobs" \
		-workers="$jobs" -max_len=65536 -rss_limit_mb=4096 -timeout=60 \
		-artifact_prefix="$crashes/" -print_final_stats=1 \
		"$corpus" "$root/tests/fuzz/corpus/$t" >"$logs/main.log" 2>&1)
	execs=0 cov=0 ft=0
	for l in "$logs"/fuzz-*.log; do
		[[ -f $l ]] || continue
		e=$(grep -a 'stat::number_of_executed_units' "$l" | awk '{s += $2} END {print s + 0}')
		execs=$((execs + e))
		c=$(grep -aoE 'cov: [0-9]+' "$l" | tail -n 1 | awk '{print $2}')
		f=$(grep -aoE 'ft: [0-9]+' "$l" | tail -n 1 | awk '{print $2}')
		((${c:-0} > cov)) && cov=$c
		((${f:-0} > ft)) && ft=$f
	done
	n_corpus=$(find "$corpus" -type f | wc -l)
	# libFuzzer also writes an input that ran over -report_slow_units (10 s)
	# there, as slow-unit-*: printed, but a stall is not a crash (-timeout is).
	n_crash=$(find "$crashes" -type f ! -name 'slow-unit-*' | wc -l)
	n_slow=$(find "$crashes" -type f -name 'slow-unit-*' | wc -l)
	((n_crash > 0)) && any_crash=1
	((n_slow > 0)) && echo "campaign: fuzz_$t: $n_slow input(s) ran over 10 s (not counted as crashes)" >&2
	printf '| fuzz_%s | %s x %s | %s | %s | %s | %s | %s |\n' "$t" "$secs" "$jobs" "$execs" \
		"$cov" "$ft" "$n_corpus" "$n_crash" | tee -a "$summary"
	((n_crash + n_slow > 0)) && report_crashes "$t" "$crashes" "$logs"
done
echo "campaign: summary in $summary" >&2
exit $any_crash
