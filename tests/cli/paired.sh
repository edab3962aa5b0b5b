#!/usr/bin/env bash
# paired.sh — paired-end runs on hand-made pairs (exhaustive mode): FLAG bits
# 0x1 0x2 0x8 0x20 0x40 0x80, RNEXT/PNEXT/TLEN, an unmapped mate placed at
# its mate, a pair on two contigs, a repeat resolved by the mate, the insert
# size report; R1/R2 in two files and interleaved (-p) giving the same SAM;
# -t 1 and -t 2 the same; /1 /2 suffixes stripped; out-of-sync names, files
# of different lengths and an odd interleaved file refused naming the records;
# samtools fixmate agreeing on every mate field.
source "$(dirname "$0")/lib.bash"

c1=$(random_seq 20000 71)
c2=$(random_seq 5000 72)
c1=${c1:0:12000}${c1:3000:100}${c1:12100}     # chr1:12001-12100 repeats chr1:3001-3100
printf '>chr1\n%s\n>chr2\n%s\n' "$c1" "$c2" >"$tmp/ref.fa"

: >"$tmp/r1.fq"
: >"$tmp/r2.fq"
# pair NAME R1 R2: appends a pair to r1.fq and r2.fq.
pair() {
	fastq_record "$1/1" "$2" >>"$tmp/r1.fq"
	fastq_record "$1/2" "$3" >>"$tmp/r2.fq"
}
for i in $(seq 0 39); do
	s=$((200 + i * 450)) l=$((280 + (i % 5) * 10))
	((s + l < 11900 || s > 12200)) || continue
	pair "p$i" "${c1:s:100}" "$(revcomp "${c1:s+l-100:100}")"
done
pair um "${c1:15000:100}" "$(random_seq 100 73)"
pair both "$(random_seq 100 74)" "$(random_seq 100 75)"
pair disc "${c1:16000:100}" "$(revcomp "${c2:1000:100}")"
pair rep "$(revcomp "${c1:2900:100}")" "${c1:2720:100}"   # R1 in the repeat, R2 before copy 1
pair rev "$(revcomp "${c1:17300:100}")" "${c1:17100:100}"

run "$SCANMAP" map -R '@RG\tID:x\tSM:y' "$tmp/ref.fa" "$tmp/r1.fq" "$tmp/r2.fq"
expect_status 0 "two files"
expect_err "insert size from" "insert size reported"
expect_err "mean 29" "insert size mean near 300"
cp "$tmp/out" "$tmp/two.sam"
sam=$tmp/two.sam

# field NAME FLAGBIT COLUMNS: prints the columns of NAME's primary record
# whose flag has FLAGBIT (64: R1, 128: R2).
field() {
	awk -F '\t' -v n="$1" -v b="$2" -v c="$3" '$1 == n && and($2, b) && !and($2, 256) {
		k = split(c, f, ","); s = $f[1]; for (i = 2; i <= k; i++) s = s " " $f[i]; print s }' "$sam"
}
want() {
	local got
	got=$(field "$1" "$2" "$3")
	if [[ $got == "$4" ]]; then pass "$5"; else fail "$5: got '$got', want '$4'"; fi
}
want p0 64 2,3,4,7,8,9 "99 chr1 201 = 381 280" "proper pair R1: flag 99, mate fields, TLEN +"
want p0 128 2,3,4,7,8,9 "147 chr1 381 = 201 -280" "proper pair R2: flag 147, TLEN -"
want um 64 2,3,4,6,7,8,9 "73 chr1 15001 100M = 15001 0" "mate unmapped: 0x8, RNEXT/PNEXT its own"
want um 128 2,3,4,5,6,7,8,9 "133 chr1 15001 0 * = 15001 0" "unmapped read placed at its mate"
want both 64 2,3,4,7,8,9 "77 * 0 * 0 0" "both unmapped R1"
want both 128 2,3,4,7,8,9 "141 * 0 * 0 0" "both unmapped R2"
want disc 64 2,3,4,7,8,9 "97 chr1 16001 chr2 1001 0" "mates on two contigs: 0x20, RNEXT, TLEN 0"
want disc 128 2,3,4,7,8,9 "145 chr2 1001 chr1 16001 0" "mates on two contigs, R2"
want rep 64 2,3,4,7,8,9 "83 chr1 2901 = 2721 -280" "repeat resolved by the mate"
want rev 64 2,4,9 "83 17301 -300" "R1 reverse, R2 forward"
check "repeat read gets a MAPQ from the pair" \
	awk -F '\t' '$1 == "rep" && and($2, 64) && $5 > 0 { f = 1 } END { exit !f }' "$sam"
check "proper flag only on proper pairs" \
	awk -F '\t' '!/^@/ && and($2, 2) && ($1 == "um" || $1 == "both" || $1 == "disc") { exit 1 }' "$sam"
check "names without /1 /2" awk -F '\t' '!/^@/ && $1 ~ /\/[12]$/ { exit 1 }' "$sam"

if command -v samtools >/dev/null; then
	samtools fixmate -O sam "$sam" "$tmp/fixed.sam" 2>"$tmp/err"
	check "samtools fixmate agrees on every mate field" \
		cmp -s <(grep -v '^@' "$sam" | cut -f 1-9) <(grep -v '^@' "$tmp/fixed.sam" | cut -f 1-9)
	check "samtools quickcheck" samtools quickcheck "$sam"
fi

paste -d '\n' <(paste - - - - <"$tmp/r1.fq") <(paste - - - - <"$tmp/r2.fq") | tr '\t' '\n' >"$tmp/il.fq"
run "$SCANMAP" map -p -R '@RG\tID:x\tSM:y' "$tmp/ref.fa" "$tmp/il.fq"
expect_status 0 "interleaved -p"
check "interleaved and two files: same records" \
	cmp -s <(grep -v '^@PG' "$tmp/out") <(grep -v '^@PG' "$sam")
run "$SCANMAP" map -t 2 -R '@RG\tID:x\tSM:y' "$tmp/ref.fa" "$tmp/r1.fq" "$tmp/r2.fq"
check "-t 2 and -t 1: same records" cmp -s <(grep -v '^@PG' "$tmp/out") <(grep -v '^@PG' "$sam")

sed '5s/.*/@wrong\/2/' "$tmp/r2.fq" >"$tmp/bad2.fq"
run "$SCANMAP" map "$tmp/ref.fa" "$tmp/r1.fq" "$tmp/bad2.fq"
expect_status 1 "names out of sync"
expect_err "read pairs out of sync: $tmp/r1.fq record 2 'p1' and $tmp/bad2.fq record 2 'wrong'" \
	"out-of-sync message names both records"
head -n 8 "$tmp/r2.fq" >"$tmp/short2.fq"
run "$SCANMAP" map "$tmp/ref.fa" "$tmp/r1.fq" "$tmp/short2.fq"
expect_status 1 "R2 file shorter"
expect_err "$tmp/short2.fq has fewer reads than $tmp/r1.fq" "shorter file named"
head -n 12 "$tmp/il.fq" >"$tmp/odd.fq"
run "$SCANMAP" map -p "$tmp/ref.fa" "$tmp/odd.fq"
expect_status 1 "odd interleaved file"
expect_err "odd number of reads in an interleaved (-p) file: read 3 'p1/1' has no mate" \
	"odd interleaved message"
finish
