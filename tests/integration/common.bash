# common.bash — sourced by tests/integration/*.sh (not a test itself).
#
# Each test runs from the repository root with ./scanmap built, works in
# tests/out/integration/NAME/ (made fresh), and exits 0 (pass), 77 (skip,
# with a reason on the last line) or 1 (fail, with the reason).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/../.."
ROOT=$PWD
SCANMAP=$ROOT/scanmap
TEST_NAME=$(basename "$0" .sh)
WORK=$ROOT/tests/out/integration/$TEST_NAME
CACHE=$ROOT/tests/out/cache
SKIP=77

rm -rf "$WORK"
mkdir -p "$WORK" "$CACHE"

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

skip() {
	echo "SKIP: $*"
	exit "$SKIP"
}

note() { echo "== $*"; }

[[ -x $SCANMAP ]] || fail "$SCANMAP is not built (run make)"

# need_tool CMD PACKAGE: skips the test when CMD is missing.
need_tool() {
	command -v "$1" >/dev/null 2>&1 || skip "$1 not installed (Debian package $2; tests/install-deps.sh installs it)"
}

# lambda_fasta: prints the path of phage lambda's genome (48,502 bp, one
# contig, gzip, 70-column lines) from Debian's bowtie2-examples, fetched once
# into tests/out/cache with apt-get download (no root needed, nothing
# installed).  Skips the test when the package cannot be had.
lambda_fasta() {
	local fa=$CACHE/lambda_virus.fa.gz deb
	if [[ ! -s $fa ]]; then
		need_tool apt-get apt
		(cd "$CACHE" && rm -f bowtie2-examples_*.deb &&
			apt-get download -q bowtie2-examples >download.log 2>&1) ||
			skip "cannot download Debian package bowtie2-examples (see $CACHE/download.log)"
		deb=$(ls "$CACHE"/bowtie2-examples_*.deb)
		rm -rf "$CACHE/deb"
		dpkg -x "$deb" "$CACHE/deb"
		cp "$(find "$CACHE/deb" -name lambda_virus.fa.gz | head -n 1)" "$fa.tmp"
		mv "$fa.tmp" "$fa"
		rm -rf "$CACHE/deb" "$deb"
	fi
	echo "$fa"
}

# sam_checks SAM REF.fa N_READS: what every SAM the tests produce must pass:
# samtools quickcheck; flagstat primary count equals N_READS with no
# secondary or supplementary record; samtools calmd recomputes the same NM
# and MD for every record; picard ValidateSamFile finds no error or warning
# (when picard is installed).  REF must be plain FASTA (picard reads no gzip).
sam_checks() {
	local sam=$1 ref=$2 n=$3 stem=${1%.*}
	samtools quickcheck -v "$sam" || fail "samtools quickcheck rejects $sam"

	samtools flagstat "$sam" >"$stem.flagstat" || fail "samtools flagstat failed on $sam"
	local total primary secondary supp
	total=$(awk 'NR==1{print $1}' "$stem.flagstat")
	primary=$(awk '/ primary$/{print $1; exit}' "$stem.flagstat")
	secondary=$(awk '/ secondary$/{print $1; exit}' "$stem.flagstat")
	supp=$(awk '/ supplementary$/{print $1; exit}' "$stem.flagstat")
	[[ $total == "$n" && ${primary:-$total} == "$n" ]] ||
		fail "flagstat counts $total records ($primary primary) in $sam, expected $n reads"
	[[ ${secondary:-0} == 0 && ${supp:-0} == 0 ]] ||
		fail "$sam has secondary ($secondary) or supplementary ($supp) records"

	# calmd writes every record with NM/MD recomputed from REF; compare with ours.
	samtools calmd "$sam" "$ref" 2>"$stem.calmd.err" >"$stem.calmd.sam" || {
		cat "$stem.calmd.err" >&2
		fail "samtools calmd failed on $sam"
	}
	nm_md() { awk -F'\t' '!/^@/ { nm = "-"; md = "-"
		for (i = 12; i <= NF; i++) { if ($i ~ /^NM:i:/) nm = $i; if ($i ~ /^MD:Z:/) md = $i }
		print $1, $2, nm, md }' "$1"; }
	nm_md "$sam" >"$stem.ours.nmmd"
	nm_md "$stem.calmd.sam" >"$stem.calmd.nmmd"
	if ! cmp -s "$stem.ours.nmmd" "$stem.calmd.nmmd"; then
		diff "$stem.ours.nmmd" "$stem.calmd.nmmd" | head -n 10 >&2
		fail "NM/MD of $sam differ from samtools calmd's ($(diff "$stem.ours.nmmd" "$stem.calmd.nmmd" | grep -c '^<') records)"
	fi
	local mapped
	mapped=$(awk '$2 % 8 < 4' "$stem.ours.nmmd" | wc -l)
	[[ $(awk '$2 % 8 < 4 && $3 == "-"' "$stem.ours.nmmd" | wc -l) == 0 ]] ||
		fail "some mapped records of $sam lack NM"

	if command -v PicardCommandLine >/dev/null 2>&1; then
		if ! PicardCommandLine ValidateSamFile "I=$sam" "R=$ref" MODE=SUMMARY >"$stem.picard.log" 2>&1; then
			grep -E '^(ERROR|WARNING):' "$stem.picard.log" >&2 || tail -n 20 "$stem.picard.log" >&2
			fail "picard ValidateSamFile reports problems in $sam (log: ${stem#"$ROOT"/}.picard.log)"
		fi
		grep -q 'No errors found' "$stem.picard.log" || fail "picard ValidateSamFile did not say 'No errors found' for $sam"
		note "picard ValidateSamFile: no errors, no warnings"
	else
		note "picard not installed: ValidateSamFile not run"
	fi
	note "$(basename "$sam"): quickcheck ok, $n records, $mapped mapped, NM/MD agree with samtools calmd"
}
