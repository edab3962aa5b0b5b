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

# Functions for the awk programs that build test references and reads, put before the
# program: awk "$AWK_SEQ"'BEGIN { seed = 1; print randseq(10) }'. rnd(k): 0..k-1 from the
# Park-Miller generator in `seed` (fixed seeds give the same sequences on every machine);
# randseq(n): n random bases; sub1(s, p): s with its base p (1-based) changed at random;
# other(ch, not): a random base that is neither ch nor not; rc(s): the reverse complement;
# unseeded(s): s with a substitution at every 15th base from the 8th, so that none of its
# 15-mers (the index's k) is exact; quals(n): n quality characters "I"; fasta(file, name, s):
# appends contig name with bases s to file (60 a line; awk opens file once, truncating it).
AWK_SEQ='
function rnd(k) { seed = (seed * 16807) % 2147483647; return int(seed / 2147483647 * k) }
function randseq(n,   s, i) { s = ""; for (i = 0; i < n; i++) s = s substr("ACGT", rnd(4) + 1, 1); return s }
function sub1(s, p,   ch, b) {
	ch = substr(s, p, 1); b = ch
	while (b == ch) b = substr("ACGT", rnd(4) + 1, 1)
	return substr(s, 1, p - 1) b substr(s, p + 1)
}
function other(ch, not,   b) { b = ch; while (b == ch || b == not) b = substr("ACGT", rnd(4) + 1, 1); return b }
function rc(s,   t, i) {
	for (i = length(s); i >= 1; i--) t = t substr("TGCA", index("ACGT", substr(s, i, 1)), 1)
	return t
}
function unseeded(s,   p) { for (p = 8; p <= length(s); p += 15) s = sub1(s, p); return s }
function quals(n,   q, i) { q = ""; for (i = 0; i < n; i++) q = q "I"; return q }
function fasta(file, name, s,   i) {
	print ">" name > file
	for (i = 1; i <= length(s); i += 60) print substr(s, i, 60) > file
}
'

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

# picard_validate SAM LOG [ARG...]: picard ValidateSamFile finds nothing.
picard_validate() {
	local sam=$1 log=$2
	shift 2
	if ! PicardCommandLine ValidateSamFile "I=$sam" MODE=SUMMARY "$@" >"$log" 2>&1 ||
		! grep -q 'No errors found' "$log"; then
		grep -E '^(ERROR|WARNING):[A-Z_]|^ERROR\s' "$log" >&2 || tail -n 20 "$log" >&2
		fail "picard ValidateSamFile $* reports problems in $sam (log: ${log#"$ROOT"/})"
	fi
}

# picard_validate_ref BAM REF LOG [ARG...]: as picard_validate, checking NM
# and MD against REF too.  One documented exception: a read N aligned to a
# reference N is a mismatch for samtools calmd (which NM follows) and a match
# for picard, so no NM satisfies both; picard's INVALID_TAG_NM is accepted for
# a record only when its SEQ and its MD both hold an N.
picard_validate_ref() {
	local bam=$1 ref=$2 log=$3
	shift 3
	PicardCommandLine ValidateSamFile "I=$bam" "R=$ref" MODE=VERBOSE MAX_OUTPUT=100000 "$@" >"$log" 2>&1 &&
		grep -q 'No errors found' "$log" && return 0
	grep -E '^(ERROR|WARNING)::' "$log" | grep -v '^ERROR::INVALID_TAG_NM:' >"$log.other" || true
	if [[ -s $log.other ]] || ! grep -q '^ERROR::INVALID_TAG_NM:' "$log"; then
		head -n 10 "$log.other" >&2
		[[ -s $log.other ]] || tail -n 20 "$log" >&2
		fail "picard ValidateSamFile R=$ref reports problems in $bam (log: ${log#"$ROOT"/})"
	fi
	local name n_nn=0
	while read -r name; do
		samtools view "$bam" | awk -F'\t' -v n="$name" '$1 == n && $10 ~ /N/ { for (i = 12; i <= NF; i++) if ($i ~ /^MD:Z:.*N/) f = 1 }
			END { exit !f }' || fail "picard: NM of $name differs and it has no N aligned to an N (log: ${log#"$ROOT"/})"
		n_nn=$((n_nn + 1))
	done < <(sed -n 's/^ERROR::INVALID_TAG_NM:.*Read name \([^,]*\),.*/\1/p' "$log")
	note "picard vs samtools on N-over-N columns (documented exception): $n_nn records"
}

# sam_checks SAM REF.fa N_READS: what every SAM the tests produce must pass:
# samtools quickcheck; flagstat primary count equals N_READS with no
# secondary or supplementary record; samtools calmd recomputes the same NM
# and MD for every record; picard ValidateSamFile finds no error or warning
# (when picard is installed; SAM_PICARD_IGNORE may name warnings a test
# expects, such as IGNORE=QUALITY_NOT_STORED for reads without qualities).
# REF must be plain FASTA (picard reads no gzip).
sam_checks() {
	local sam=$1 ref=$2 n=$3 stem=${1%.*}
	samtools quickcheck -v "$sam" || fail "samtools quickcheck rejects $sam"

	samtools flagstat "$sam" >"$stem.flagstat" || fail "samtools flagstat failed on $sam"
	local total primary secondary supp
	total=$(awk 'NR==1{print $1}' "$stem.flagstat")
	primary=$(awk '/ primary$/{print $1; exit}' "$stem.flagstat")
	secondary=$(awk '/ secondary$/{print $1; exit}' "$stem.flagstat")
	supp=$(awk '/ supplementary$/{print $1; exit}' "$stem.flagstat")
	# One primary record per read; split reads add supplementary records.
	[[ $total == "$((n + ${supp:-0}))" && ${primary:-$total} == "$n" ]] ||
		fail "flagstat counts $total records ($primary primary, ${supp:-0} supplementary) in $sam, expected $n reads"
	[[ ${secondary:-0} == 0 ]] || fail "$sam has secondary ($secondary) records"

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
		# Without -R there is no read group, which picard's policy calls an
		# error; that is the user's choice, not a defect of the SAM.
		local ignore=(${SAM_PICARD_IGNORE:-})
		grep -q '^@RG' "$sam" || ignore+=(IGNORE=MISSING_READ_GROUP IGNORE=RECORD_MISSING_READ_GROUP)
		picard_validate "$sam" "$stem.picard.log" "${ignore[@]}"
		# Checking records against the reference, picard walks the reference
		# forwards, so it needs coordinate order: validate a sorted copy too.
		samtools sort -o "$stem.sorted.bam" "$sam" 2>/dev/null || fail "samtools sort failed on $sam"
		picard_validate_ref "$stem.sorted.bam" "$ref" "$stem.picard-ref.log" "${ignore[@]}"
		note "picard ValidateSamFile: no errors, no warnings${ignore:+ (read group checks off: no -R)}"
	else
		note "picard not installed: ValidateSamFile not run"
	fi
	note "$(basename "$sam"): quickcheck ok, $n records, $mapped mapped, NM/MD agree with samtools calmd"
}
