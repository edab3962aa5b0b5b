#!/usr/bin/env bash
# optimal_scores.sh — every alignment score against an independent
# Smith-Waterman: EMBOSS water (Gotoh, affine gaps).
#
# A random reference (three contigs, one shorter than many reads, N runs)
# and random reads: mutated substrings of either strand (substitutions,
# indels, Ns; 20 to 1000 bp, so that scores overflow 8-bit cells),
# substrings spanning two contigs, unrelated random reads and reads shorter
# than -T.  For every read the optimum is the best water score
# over every contig and both strands; scanmap must report AS equal to it when
# it reaches -T, and leave the read unmapped exactly when it does not.
# Two scoring schemes: the defaults and -A2 -B3 -O5 -E2 -T20, both with
# -L 0: water has no clipping penalty, and -L 0 is scanmap's plain local
# alignment (tests/unit/test_scan.c checks -L > 0 against a brute force).
#
# Gap conventions: scanmap charges O + k*E for a gap of length k; water
# charges gapopen + (k-1)*gapextend, so gapopen = O+E and gapextend = E.
# The substitution matrix gives match A, mismatch -B, and -1 for any pair
# with an N (scanmap's rule for ambiguous bases).
source "$(dirname "$0")/common.bash"

need_tool water emboss
# awk's generator is seeded: the data are the same on every run (for one awk).
seed=20240607

# --- data -----------------------------------------------------------------
awk -v seed="$seed" -v ref="$WORK/ref.fa" -v reads="$WORK/reads.fq" '
function base() { return substr("ACGT", int(rand() * 4) + 1, 1) }
function rnd(n,   s, i) { s = ""; for (i = 0; i < n; i++) s = s base(); return s }
function revcomp(s,   r, i, c) {
	r = ""
	for (i = length(s); i >= 1; i--) {
		c = substr(s, i, 1)
		r = r (c == "A" ? "T" : c == "C" ? "G" : c == "G" ? "C" : c == "T" ? "A" : c)
	}
	return r
}
# Substitutions at rate ps, 1-3 base indels at rate ind, Ns at rate nr.
function mutate(s, ps, ind, nr,   r, i, c, u, k) {
	r = ""
	for (i = 1; i <= length(s); i++) {
		c = substr(s, i, 1); u = rand()
		if (u < ps) c = base()
		else if (u < ps + ind / 2) { k = int(rand() * 3); i += k; c = "" }
		else if (u < ps + ind) c = c rnd(1 + int(rand() * 3))
		else if (u < ps + ind + nr) c = "N"
		r = r c
	}
	return r
}
function read_out(name, s,   q, i) {
	if (length(s) == 0) s = base()
	q = ""; for (i = 0; i < length(s); i++) q = q "I"
	printf "@%s\n%s\n+\n%s\n", name, s, q > reads
}
function fasta_out(name, s,   i) {
	printf ">%s\n", name > ref
	for (i = 1; i <= length(s); i += 60) print substr(s, i, 60) > ref
}
BEGIN {
	srand(seed)
	ctg[1] = rnd(700) "NNNNN" rnd(795); ctg[2] = rnd(800); ctg[3] = rnd(40)
	name[1] = "chrA"; name[2] = "chrB"; name[3] = "tiny"
	for (c = 1; c <= 3; c++) fasta_out(name[c], ctg[c])
	n = 0
	for (k = 0; k < 150; k++) {       # mutated substrings, either strand
		c = 1 + int(rand() * 3); len = 20 + int(rand() * 160)
		if (len > length(ctg[c])) len = length(ctg[c])
		st = 1 + int(rand() * (length(ctg[c]) - len + 1))
		s = mutate(substr(ctg[c], st, len), 0.04, 0.03, 0.01)
		if (rand() < 0.5) s = revcomp(s)
		read_out("sub" (++n), s)
	}
	for (k = 0; k < 10; k++) {        # long: scores beyond 8-bit cells
		len = 300 + int(rand() * 700); st = 1 + int(rand() * (length(ctg[1]) - len + 1))
		s = mutate(substr(ctg[1], st, len), 0.03, 0.01, 0.002)
		if (rand() < 0.5) s = revcomp(s)
		read_out("long" (++n), s)
	}
	for (k = 0; k < 8; k++) {         # across the chrA|chrB boundary
		a = 20 + int(rand() * 60); b = 20 + int(rand() * 60)
		s = mutate(substr(ctg[1], length(ctg[1]) - a + 1) substr(ctg[2], 1, b), 0.02, 0.01, 0)
		if (rand() < 0.5) s = revcomp(s)
		read_out("span" (++n), s)
	}
	for (k = 0; k < 12; k++)           # unrelated
		read_out("rand" (++n), rnd(30 + int(rand() * 120)))
	for (k = 0; k < 5; k++) {         # shorter than the default -T
		c = 1 + int(rand() * 2); len = 5 + int(rand() * 25)
		read_out("short" (++n), substr(ctg[c], 1 + int(rand() * 500), len))
	}
	read_out("allN" (++n), "NNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNN")
}'
n_reads=$(awk 'NR % 4 == 1' "$WORK/reads.fq" | wc -l)

# Reads as FASTA, forward and reverse-complemented, for water.
awk 'NR % 4 == 1 { print ">" substr($1, 2) } NR % 4 == 2 { print }' "$WORK/reads.fq" >"$WORK/fwd.fa"
awk 'NR % 4 == 1 { print ">" substr($1, 2) }
NR % 4 == 2 { r = ""; for (i = length($0); i >= 1; i--) { c = substr($0, i, 1)
	r = r (c == "A" ? "T" : c == "C" ? "G" : c == "G" ? "C" : c == "T" ? "A" : c) }; print r }' \
	"$WORK/reads.fq" >"$WORK/rev.fa"
# One file per contig: water takes a single -asequence.
awk -v dir="$WORK" '/^>/ { f = dir "/contig." (++n) ".fa" } { print > f }' "$WORK/ref.fa"

# check_scheme LABEL A B O E T
check_scheme() {
	local label=$1 A=$2 B=$3 O=$4 E=$5 T=$6 mat=$WORK/$1.mat sam=$WORK/$1.sam
	{
		echo "# match $A, mismatch -$B, N -1"
		echo "   A  C  G  T  N"
		for r in A C G T N; do
			printf '%s' "$r"
			for q in A C G T N; do
				if [[ $r == N || $q == N ]]; then printf ' %3d' -1
				elif [[ $r == "$q" ]]; then printf ' %3d' "$A"
				else printf ' %3d' "-$B"; fi
			done
			echo
		done
	} >"$mat"
	: >"$WORK/$label.water"
	for c in "$WORK"/contig.*.fa; do
		for strand in fwd rev; do
			(cd "$WORK" && water -asequence "$c" -bsequence "$WORK/$strand.fa" -datafile "$mat" \
				-gapopen $((O + E)) -gapextend "$E" -aformat score -stdout -auto) |
				awk 'NF == 4 && $4 ~ /^\(/ { gsub(/[()]/, "", $4); print $2, $4 + 0 }' >>"$WORK/$label.water" ||
				fail "water failed"
		done
	done
	# Best water score per read.
	awk '{ if (!($1 in best) || $2 > best[$1]) best[$1] = $2 } END { for (r in best) print r, best[r] }' \
		"$WORK/$label.water" | sort >"$WORK/$label.opt"
	[[ $(wc -l <"$WORK/$label.opt") == "$n_reads" ]] || fail "water scored $(wc -l <"$WORK/$label.opt") of $n_reads reads"

	"$SCANMAP" map -L 0 -A "$A" -B "$B" -O "$O" -E "$E" -T "$T" -o "$sam" "$WORK/ref.fa" "$WORK/reads.fq" \
		2>"$WORK/$label.err" || { cat "$WORK/$label.err" >&2; fail "scanmap failed ($label)"; }
	# Primary records only: a read across two contigs is split, its other
	# part a supplementary record (0x800).
	grep -v '^@' "$sam" | awk -F'\t' 'int($2 / 2048) % 2 == 0 { as = "unmapped"
		if (int($2 / 4) % 2 == 0) { as = "noAS"; for (i = 12; i <= NF; i++) if ($i ~ /^AS:i:/) as = substr($i, 6) + 0 }
		print $1, as }' | sort >"$WORK/$label.ours"
	join "$WORK/$label.opt" "$WORK/$label.ours" | awk -v T="$T" -v label="$label" '
	{
		opt = $2; got = $3
		if (opt >= T ? got != opt : got != "unmapped") {
			bad++
			print label ": " $1 ": water optimum " opt ", scanmap " (got == "unmapped" ? "unmapped" : "AS " got) > "/dev/stderr"
		}
		if (opt >= T) mapped++
	}
	END { print NR, mapped + 0, bad + 0 }' >"$WORK/$label.cmp"
	local n mapped bad
	read -r n mapped bad <"$WORK/$label.cmp"
	[[ $n == "$n_reads" ]] || fail "$label: compared $n of $n_reads reads"
	((bad == 0)) || fail "$label: $bad of $n reads disagree with water"
	note "$label (-A$A -B$B -O$O -E$E -T$T): all $n reads agree with water ($mapped reach -T, $((n - mapped)) unmapped)"
	sam_checks "$sam" "$WORK/ref.fa" "$n_reads"

	# Every engine, and every GPU cell width, must write the same records
	# (XS, MAPQ and tie-breaks included) as the scalar oracle.
	local variants=("--engine oracle" "--engine cpu") v vsam k=0
	if "$SCANMAP" map --engine gpu -o "$WORK/gpu-probe.sam" "$WORK/ref.fa" "$WORK/reads.fq" 2>/dev/null; then
		variants+=("--engine gpu --cells 8" "--engine gpu --cells 16" "--engine gpu --cells 32")
	else
		note "no usable GPU: GPU engine not compared"
	fi
	for v in "${variants[@]}"; do
		vsam=$WORK/$label.variant$((k++)).sam
		# shellcheck disable=SC2086
		"$SCANMAP" map -L 0 $v -A "$A" -B "$B" -O "$O" -E "$E" -T "$T" -o "$vsam" "$WORK/ref.fa" "$WORK/reads.fq" \
			2>"$vsam.err" || { cat "$vsam.err" >&2; fail "$label: scanmap $v failed"; }
		if ! cmp -s <(grep -v '^@PG' "$sam") <(grep -v '^@PG' "$vsam"); then
			diff <(grep -v '^@PG' "$sam" | cut -f 1-9,12-) <(grep -v '^@PG' "$vsam" | cut -f 1-9,12-) | head -n 6 >&2
			fail "$label: $v writes different records than the default engine"
		fi
	done
	note "$label: identical records from ${#variants[@]} engine variants (${variants[*]})"
}

check_scheme default 1 4 6 1 30
check_scheme custom 2 3 5 2 20
echo "PASS: every AS equals EMBOSS water's optimum; unmapped exactly when it is below -T"
