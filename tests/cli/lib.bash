# lib.bash — helpers sourced by the tests in tests/cli/*.sh (not a test itself).
#
# A test sources this file, makes its inputs in $tmp (removed at exit), runs
# checks and ends with `finish`, which prints "N passed, N failed" and exits
# 0, or 1 if a check failed.  Exit 77 means skipped (tests/run.sh).
#
#   run CMD...                 runs CMD; $status, $tmp/out (stdout), $tmp/err (stderr)
#   expect_status WANT WHAT    checks $status
#   expect_err TEXT WHAT       checks that $tmp/err contains TEXT
#   expect_out TEXT WHAT       checks that $tmp/out contains TEXT
#   check WHAT CMD...          passes if CMD succeeds
#   random_seq LEN SEED        prints LEN pseudo-random bases (A/C/G/T)
#   revcomp SEQ                prints the reverse complement of SEQ
#   fastq_record NAME SEQ      prints a FASTQ record with quality 'I'
#   markdup_supp SAM           runs SAM through samtools fixmate -m | sort | markdup
#                              and prints the supplementary records that come out
#   picard_valid SAM [REF]     passes if picard ValidateSamFile, on SAM sorted, finds no
#                              error (with REF: NM and MD checked against it too)
set -uo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1
SCANMAP=${SCANMAP:-$PWD/scanmap}
if [[ ! -x $SCANMAP ]]; then
	echo "skip: ./scanmap is not built (run make)"
	exit 77
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/scanmap-cli.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
n_pass=0
n_fail=0
status=0

pass() { n_pass=$((n_pass + 1)); echo "ok   $1"; }
fail() {
	n_fail=$((n_fail + 1))
	echo "FAIL $1"
	if [[ -s $tmp/err ]]; then sed 's/^/     stderr| /' "$tmp/err" | head -n 5; fi
}

run() {
	"$@" >"$tmp/out" 2>"$tmp/err"
	status=$?
}

expect_status() {
	if [[ $status == "$1" ]]; then pass "$2 (exit $status)"; else fail "$2: exit $status, want $1"; fi
}

# Any non-zero status.
expect_failure() {
	if [[ $status != 0 ]]; then pass "$1 (exit $status)"; else fail "$1: exit 0, want a failure"; fi
}

expect_err() {
	if grep -qF -- "$1" "$tmp/err"; then pass "$2"; else fail "$2: stderr lacks '$1'"; fi
}

expect_out() {
	if grep -qF -- "$1" "$tmp/out"; then pass "$2"; else fail "$2: stdout lacks '$1'"; fi
}

check() {
	local what=$1
	shift
	if "$@"; then pass "$what"; else fail "$what"; fi
}

random_seq() {
	awk -v n="$1" -v seed="$2" 'BEGIN {
		srand(seed); s = ""
		for (i = 0; i < n; i++) s = s substr("ACGT", int(rand() * 4) + 1, 1)
		print s }'
}

revcomp() {
	printf '%s\n' "$1" | tr ACGTRYKMBVDHacgtrykmbvdh TGCAYRMKVBHDtgcayrmkvbhd |
		awk '{ s = ""; for (i = length($0); i > 0; i--) s = s substr($0, i, 1); print s }'
}

fastq_record() {
	local qual
	qual=$(printf '%*s' "${#2}" '' | tr ' ' I)
	printf '@%s\n%s\n+\n%s\n' "$1" "$2" "$qual"
}

markdup_supp() {
	local bam=${1%.sam}.md.bam
	samtools fixmate -m "$1" - 2>/dev/null | samtools sort - 2>/dev/null |
		samtools markdup - "$bam" 2>/dev/null && samtools view -c -f 2048 "$bam"
}

picard_valid() {
	local bam=${1%.sam}.sorted.bam log=${1%.sam}.picard.log
	samtools sort -o "$bam" "$1" 2>/dev/null &&
		PicardCommandLine ValidateSamFile I="$bam" ${2:+R="$2"} MODE=VERBOSE >"$log" 2>&1
	grep -q 'No errors found' "$log"
}

finish() {
	echo "$n_pass passed, $n_fail failed"
	((n_fail == 0))
	exit $?
}
