#!/usr/bin/env bash
# run.sh — the whole test suite behind one command (the README's test command).
#
#   tests/run.sh [NAME...]
#
# Installs what is missing (tests/install-deps.sh: apt-get as root, else it
# prints the command and this stops), builds with make, then runs
#   build/tests/unit/*        C unit tests (the FASTA/FASTQ readers also
#                             through zlib when the build has ISA-L)
#   tests/cli/*.sh            command-line tests
#   tests/integration/*.sh    mapping checked against samtools, picard, EMBOSS, simulators
#   tests/gpu/check.sh        GPU engine against the oracle (skips without a GPU)
# Shell tests run from the repository root and exit 0 (pass), 77 (skip) or
# anything else (fail).  With NAME arguments only tests whose name contains
# one of them run.  One line per test, then "N passed, N failed, N skipped",
# also when it stops early (missing dependencies or a failed build count as
# one failure); exits 1 if any failed.  Logs: tests/out/logs/.
set -uo pipefail

cd "$(dirname "$0")/.." || exit 1
root=$PWD
logs=$root/tests/out/logs
# Longest a single test may run before it counts as failed.
test_timeout=${SM_TEST_TIMEOUT:-1800}
skip_status=77

n_pass=0 n_fail=0 n_skip=0
# The summary line ends every run, however it ends (the exit status is kept).
trap 'echo "$n_pass passed, $n_fail failed, $n_skip skipped"' EXIT

if ! tests/install-deps.sh test; then
	echo "FAIL dependencies (tests/install-deps.sh, above, says what is missing)"
	n_fail=1
	exit 1
fi
mkdir -p "$logs"
echo "building: make -j2 (log: tests/out/logs/build.log)"
if ! make -j2 >"$logs/build.log" 2>&1; then
	tail -n 30 "$logs/build.log"
	echo "FAIL build"
	n_fail=1
	exit 1
fi
head -n 1 "$logs/build.log"

wanted() {
	local name=$1 pat
	((${#filters[@]} == 0)) && return 0
	for pat in "${filters[@]}"; do
		[[ $name == *"$pat"* ]] && return 0
	done
	return 1
}

# run_one NAME CMD...: runs CMD with its output in a log, prints one line.
run_one() {
	local name=$1 log start status secs
	shift
	wanted "$name" || return 0
	log=$logs/${name//\//_}.log
	start=$(date +%s)
	timeout "$test_timeout" "$@" >"$log" 2>&1 </dev/null
	status=$?
	secs=$(($(date +%s) - start))
	if ((status == 0)); then
		n_pass=$((n_pass + 1))
		printf 'PASS %-40s %4ss\n' "$name" "$secs"
	elif ((status == skip_status)); then
		n_skip=$((n_skip + 1))
		printf 'SKIP %-40s %s\n' "$name" "$(tail -n 1 "$log")"
	else
		n_fail=$((n_fail + 1))
		printf 'FAIL %-40s %4ss (exit %d%s; log: %s)\n' "$name" "$secs" "$status" \
			"$( ((status == 124)) && echo ", timed out after ${test_timeout}s")" "${log#"$root"/}"
		tail -n 15 "$log" | sed 's/^/     | /'
	fi
}

filters=("$@")
for t in build/tests/unit/*; do
	[[ -f $t && -x $t ]] && run_one "unit/${t##*/}" "$t"
done
# The readers again through zlib, when the build inflates with ISA-L
# (io/inflate.h): both paths must give the same records and messages.
if grep -q 'isal=1' build/config 2>/dev/null; then
	for t in build/tests/unit/test_fastq build/tests/unit/test_ref; do
		[[ -x $t ]] && run_one "unit/${t##*/}-zlib" "$t" --zlib
	done
fi
# The FASTQ reader again with every file parsed on a thread of its own
# (sm_fastq_ahead, as scanmap map reads): the same records and messages.
[[ -x build/tests/unit/test_fastq ]] && run_one unit/test_fastq-ahead build/tests/unit/test_fastq --ahead
for t in tests/cli/*.sh tests/integration/*.sh; do
	[[ -f $t ]] && run_one "${t#tests/}" bash "$t"
done
if [[ -f tests/gpu/check.sh ]]; then
	run_one gpu/check.sh bash tests/gpu/check.sh
fi

((n_fail == 0))
