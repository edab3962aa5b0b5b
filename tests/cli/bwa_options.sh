#!/usr/bin/env bash
# bwa_options.sh — bwa mem's options and tags (docs/cli.md, "bwa mem options"):
# a pipeline's bwa command line runs unchanged; -O/-E two-value form; -h as the
# XA threshold (not help); -U, -a, -C, -H, -K, -v; unknown options named;
# XA:Z and MC:Z in bwa's formats, and samtools and picard accept the records.
source "$(dirname "$0")/lib.bash"

c1=$(random_seq 3000 71)
c2=$(random_seq 2000 72)
rep=${c1:1000:100}
rep=${rep:0:30}$(printf '%s' "${rep:30:1}" | tr ACGT CGTA)${rep:31:69}   # one mismatch
c2=${c2:0:500}${rep}${c2:600}              # chr2:501-600 repeats chr1:1001-1100
printf '>chr1\n%s\n>chr2\n%s\n' "$c1" "$c2" >"$tmp/ref.fa"
ref=$tmp/ref.fa
{
	printf '@rep BC:Z:ACGTAC\tXY:i:-5\n%s\n+\n%s\n' "${c1:1000:100}" "$(printf 'I%.0s' {1..100})"
	printf '@uniq RX:Z:AAC-GTT\n%s\n+\n%s\n' "${c1:2000:100}" "$(printf 'I%.0s' {1..100})"
} >"$tmp/se.fq"
# Pairs: 100 bp from each end of 400 bp fragments of chr1.
for i in $(seq 0 39); do
	pos=$((i * 60 + 10))
	fastq_record "p$i/1" "${c1:pos:100}" >>"$tmp/r1.fq"
	fastq_record "p$i/2" "$(revcomp "${c1:pos+300:100}")" >>"$tmp/r2.fq"
done

records() { grep -v '^@' "$tmp/out"; }
tag_of() { records | awk -F '\t' -v n="$1" -v t="$2" '$1 == n && !and($2, 256) {
	for (i = 12; i <= NF; i++) if (substr($i, 1, 3) == t ":") print substr($i, 6) }'; }

# A typical pipeline's bwa mem command line runs unchanged.
run "$SCANMAP" map -t 2 -M -R '@RG\tID:x\tSM:y' -K 100000000 -Y "$ref" "$tmp/r1.fq" "$tmp/r2.fq"
expect_status 0 "bwa mem's pipeline options"
cp "$tmp/out" "$tmp/pe.sam"
check "80 records, each with RG:Z:x" bash -c "[[ \$(grep -v '^@' '$tmp/pe.sam' | grep -c 'RG:Z:x') == 80 ]]"
check "MC:Z on every record whose mate is mapped, equal to the mate's CIGAR" bash -c "
	grep -v '^@' '$tmp/pe.sam' | awk -F '\t' '{ mc = \"\"; for (i = 12; i <= NF; i++) if (\$i ~ /^MC:Z:/) mc = substr(\$i, 6)
		k = \$1; if (and(\$2, 64)) { c1[k] = \$6; m1[k] = mc; u1[k] = and(\$2, 4) } else { c2[k] = \$6; m2[k] = mc; u2[k] = and(\$2, 4) } }
		END { for (k in c1) { if ((u2[k] ? \"\" : c2[k]) != m1[k] || (u1[k] ? \"\" : c1[k]) != m2[k]) bad++; n++ }
		exit !(n == 40 && bad == 0) }'"
check "samtools fixmate -m writes the same MC" bash -c "
	samtools view -h '$tmp/pe.sam' | samtools fixmate -m - - | samtools view | grep -oP 'MC:Z:[^\t]*' >'$tmp/mc.fixmate' &&
	grep -v '^@' '$tmp/pe.sam' | grep -oP 'MC:Z:[^\t]*' | cmp -s - '$tmp/mc.fixmate'"
run "$SCANMAP" map -t 2 -M -R '@RG\tID:x\tSM:y' -Y "$ref" "$tmp/r1.fq" "$tmp/r2.fq"
check "-K changes nothing" bash -c "diff <(grep -v '^@PG' '$tmp/pe.sam') <(grep -v '^@PG' '$tmp/out') >/dev/null"
if command -v PicardCommandLine >/dev/null; then
	check "picard ValidateSamFile: no errors" bash -c "
		PicardCommandLine ValidateSamFile I='$tmp/pe.sam' MODE=SUMMARY IGNORE=MISSING_PLATFORM_VALUE >'$tmp/picard.log' 2>&1; grep -q 'No errors found' '$tmp/picard.log'"
fi

# -O/-E: bwa's INT[,INT] with equal values, refused otherwise.
run "$SCANMAP" map -O 6 -E 1 "$ref" "$tmp/se.fq"
cp "$tmp/out" "$tmp/one.sam"
run "$SCANMAP" map -O 6,6 -E 1,1 "$ref" "$tmp/se.fq"
expect_status 0 "-O 6,6 -E 1,1"
check "-O 6,6 -E 1,1 is -O 6 -E 1" bash -c "diff <(grep -v '^@PG' '$tmp/one.sam') <(grep -v '^@PG' '$tmp/out') >/dev/null"
run "$SCANMAP" map -O 6,5 "$ref" "$tmp/se.fq"
expect_status 1 "-O 6,5"
expect_err "-O 6,5: scanmap scores deletions and insertions with one gap model" "-O 6,5: says why"
run "$SCANMAP" map -E 1,x "$ref" "$tmp/se.fq"
expect_err "-E expects an integer (got 'x')" "-E 1,x refused"

# XA:Z (bwa's format) and -h as its threshold.
run "$SCANMAP" map "$ref" "$tmp/se.fq"
expect_status 0 "single-end run"
check "rep: XA:Z names the other copy as chr2,+501,100M,1;" test "$(tag_of rep XA)" == "chr2,+501,100M,1;"
check "uniq: no XA" test -z "$(tag_of uniq XA)"
run "$SCANMAP" map -h 5 "$ref" "$tmp/se.fq"
expect_status 0 "-h 5 is the XA threshold, not help"
check "-h 5: SAM, not the usage" test "$(tag_of rep XA)" == "chr2,+501,100M,1;"
run "$SCANMAP" map -h 0,200 "$ref" "$tmp/se.fq"
check "-h 0,200: no XA" test -z "$(tag_of rep XA)"
run "$SCANMAP" map -h "$ref" "$tmp/se.fq"
expect_status 1 "-h without a number"
run "$SCANMAP" map --help
expect_status 0 "--help still prints the usage"
expect_out "XA:Z lists the alternative hits" "--help describes -h"

# -a: every candidate as a secondary record, and then no XA.
run "$SCANMAP" map -a "$ref" "$tmp/se.fq"
check "-a: rep's other copy as a secondary record (flag 256)" \
	bash -c "grep -v '^@' '$tmp/out' | awk -F '\t' '\$1 == \"rep\" && \$2 == 256 && \$3 == \"chr2\" && \$4 == 501' | grep -q ."
check "-a: no XA" bash -c "! grep -q 'XA:Z' '$tmp/out'"

# -C: the comment's tags; a comment that is not tags stops the run.
run "$SCANMAP" map -C "$ref" "$tmp/se.fq"
expect_status 0 "-C"
check "-C: BC:Z and XY:i from the comment" test "$(tag_of rep BC)$(tag_of rep XY)" == "ACGTAC-5"
check "-C: RX:Z" test "$(tag_of uniq RX)" == "AAC-GTT"
run "$SCANMAP" map "$ref" "$tmp/se.fq"
check "without -C: no comment tags" bash -c "! grep -q 'BC:Z' '$tmp/out'"
printf '@ill 1:N:0:ACGT\n%s\n+\n%s\n' "${c1:0:50}" "$(printf 'I%.0s' {1..50})" >"$tmp/ill.fq"
run "$SCANMAP" map -C "$ref" "$tmp/ill.fq"
expect_status 1 "-C with an Illumina comment"
expect_err "read 1 'ill': -C: the comment field '1:N:0:ACGT' is not a SAM tag" "-C: names the read and the field"

# -H: header lines, from the argument or a file.
printf '@CO\tfrom a file\n\n@PG\tID:bwa\tPN:bwa\n' >"$tmp/hdr.txt"
run "$SCANMAP" map -H '@CO\tone' -H "$tmp/hdr.txt" "$ref" "$tmp/se.fq"
expect_status 0 "-H line -H file"
check "-H: lines in order, before scanmap's @PG" bash -c "
	[[ \$(grep -E '^@(CO|PG)' '$tmp/out' | cut -f1,2 | tr '\t\n' ' |') == '@CO one|@CO from a file|@PG ID:bwa|@PG ID:scanmap|' ]]"
run "$SCANMAP" map -H '@SQ\tSN:x\tLN:5' "$ref" "$tmp/se.fq"
expect_status 1 "-H @SQ refused"
expect_err "'@SQ' lines come from scanmap itself" "-H @SQ: says why"
run "$SCANMAP" map -H "$tmp/none.txt" "$ref" "$tmp/se.fq"
expect_err "-H $tmp/none.txt: No such file or directory" "-H missing file named"

# -U, -v, -K values; unknown options named.
run "$SCANMAP" map -U 0 -v 5 -K 0 "$ref" "$tmp/r1.fq" "$tmp/r2.fq"
expect_status 0 "-U 0 -v 5 -K 0 accepted (-v above 4 is debug)"
expect_err "debug:" "-v 5 logs debug messages"
run "$SCANMAP" map -U -1 "$ref" "$tmp/se.fq"
expect_err "-U (unpaired penalty) must be between 0 and" "-U -1 refused"
run "$SCANMAP" map -Q "$ref" "$tmp/se.fq"
expect_err "unknown option '-Q'" "unknown option named"
run "$SCANMAP" map -t 2 -pQ "$ref" "$tmp/se.fq"
expect_err "unknown option '-Q'" "unknown option named inside a cluster"

finish
