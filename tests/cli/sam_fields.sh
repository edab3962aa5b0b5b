#!/usr/bin/env bash
# sam_fields.sh — the fields of hand-made cases: strand, POS, CIGAR with soft clips,
# MAPQ of unique and repeated hits, MD/NM/AS/XS, unmapped reads, names, -T and
# scoring options; and samtools agreeing with every record.
source "$(dirname "$0")/lib.bash"

comp() { printf '%s\n' "$1" | tr ACGT TGCA; }

c1=$(random_seq 600 51)
c2=$(random_seq 300 52)
c2=${c2:0:200}${c1:500:60}${c2:260}          # chr2:201-260 repeats chr1:501-560
c3=$(random_seq 100 53)NNNNNN$(random_seq 100 54)
printf '>chr1 first\n%s\n>chr2\n%s\n>chr3\n%s\n' "$c1" "$c2" "$c3" >"$tmp/ref.fa"

qual60=$(printf '%s' "$(printf 'ABCDEFGHIJ%.0s' 1 2 3 4 5 6)")
rev_read=$(revcomp "${c2:50:60}")
clipped=$(comp "${c1:290:10}")${c1:300:60}$(comp "${c1:360:10}")
gapped=${c1:400:20}$(comp "${c1:420:1}")${c1:421:19}${c1:442:28}   # mismatch at 21, 2 bases deleted
unmapped=$(random_seq 60 55)
{
	printf '@fwd the rest is a comment\n%s\n+\n%s\n' "${c1:100:60}" "$qual60"
	printf '@rev\n%s\n+\n%s\n' "$rev_read" "$qual60"
	fastq_record clipped "$clipped"
	fastq_record gapped "$gapped"
	fastq_record repeat "${c1:500:60}"
	fastq_record unmapped "$unmapped"
	fastq_record lower "$(printf '%s' "${c1:200:50}" | tr ACGT acgt)"
	fastq_record amb "${c3:60:40}NNNNNN${c3:106:40}"
} >"$tmp/reads.fq"

run "$SCANMAP" map "$tmp/ref.fa" "$tmp/reads.fq"
expect_status 0 "mapping"
grep -v '^@' "$tmp/out" >"$tmp/body.sam"
# field NAME COLUMNS: tab-separated columns of read NAME's record
field() { awk -F '\t' -v n="$1" -v c="$2" '$1 == n { split(c, k, ","); s = "";
	for (i = 1; i in k; i++) s = s (i > 1 ? " " : "") $k[i]; print s }' "$tmp/body.sam"; }
tags() { awk -F '\t' -v n="$1" '$1 == n { s = ""; for (i = 12; i <= NF; i++) s = s (i > 12 ? " " : "") $i; print s }' "$tmp/body.sam"; }
expect_field() {
	local got
	got=$(field "$1" "$2")
	if [[ $got == "$3" ]]; then pass "$1: $4"; else fail "$1: $4: got '$got', want '$3'"; fi
}
expect_tags() {
	local got
	got=$(tags "$1")
	if [[ $got == "$2" ]]; then pass "$1: tags $2"; else fail "$1: tags '$got', want '$2'"; fi
}

check "8 records, one per read, in input order" \
	bash -c "[[ \$(cut -f1 '$tmp/body.sam' | tr '\n' ' ') == 'fwd rev clipped gapped repeat unmapped lower amb ' ]]"
expect_field fwd 2,3,4,5,6 "0 chr1 101 60 60M" "forward exact hit"
expect_field fwd 11 "$qual60" "QUAL as given"
check "fwd: NM 0, MD 60, AS 60" bash -c "[[ '$(tags fwd)' == 'NM:i:0 MD:Z:60 AS:i:60 XS:i:'* ]]"
expect_field rev 2,3,4,5,6 "16 chr2 51 60 60M" "reverse strand: flag 16, POS of the leftmost base"
expect_field rev 10 "${c2:50:60}" "reverse strand: SEQ reverse-complemented"
expect_field rev 11 "$(printf '%s\n' "$qual60" | awk '{ s = ""; for (i = length($0); i > 0; i--) s = s substr($0, i, 1); print s }')" \
	"reverse strand: QUAL reversed"
expect_field clipped 2,3,4,6 "0 chr1 301 10S60M10S" "soft clips at both ends"
expect_field clipped 10 "$clipped" "soft-clipped SEQ kept whole"
expect_field gapped 2,3,4 "0 chr1 401" "gapped read position"
check "gapped: a 2-base deletion in the CIGAR" bash -c "[[ '$(field gapped 6)' =~ ^[0-9]+M2D[0-9]+M\$ ]]"
check "gapped: NM 3, AS 55 (67 matches, 1 mismatch, a 2-base gap)" \
	bash -c "[[ '$(tags gapped)' == 'NM:i:3 MD:Z:'*' AS:i:55 XS:i:'* ]]"
expect_field repeat 2,3,4,5 "0 chr1 501 0" "repeat: leftmost copy, MAPQ 0"
check "repeat: XS equals AS" bash -c "[[ '$(tags repeat)' == *'AS:i:60 XS:i:60'* ]]"
check "repeat: XA names the other copy (bwa's RNAME,+POS,CIGAR,NM;)" \
	bash -c "[[ '$(tags repeat)' == *' XA:Z:chr2,+201,60M,0;' ]]"
expect_field unmapped 2,3,4,5,6,7,8,9 "4 * 0 0 * * 0 0" "unmapped: flag 4, no position"
expect_field unmapped 10 "$unmapped" "unmapped: SEQ as given"
expect_tags unmapped ""
expect_field lower 2,3,4,6,10 "0 chr1 201 50M ${c1:200:50}" "lowercase read: mapped, SEQ uppercase"
expect_field amb 2,3,4,6 "0 chr3 61 86M" "read N over reference N: aligned through"
check "amb: N against N is a mismatch in MD and NM (samtools calmd's rule)" \
	bash -c "[[ '$(tags amb)' == 'NM:i:6 MD:Z:40N0N0N0N0N0N40 AS:i:74 XS:i:'* ]]"

# Options change the scores.
run "$SCANMAP" map -A 2 -B 3 "$tmp/ref.fa" "$tmp/reads.fq"
check "-A 2: exact 60-base hit scores 120" bash -c "grep -P '^fwd\t' '$tmp/out' | grep -q 'AS:i:120'"
# -T applies to the objective, the -L end bonuses included: amb's is
# AS 74 + 5 + 5 = 84 (with -L 0, 74).
run "$SCANMAP" map -T 85 "$tmp/ref.fa" "$tmp/reads.fq"
check "-T 85 (above the best objective, 84): every read unmapped" bash -c "[[ \$(grep -v '^@' '$tmp/out' | awk '\$2 == 4' | wc -l) == 8 ]]"
run "$SCANMAP" map -L 0 -T 75 "$tmp/ref.fa" "$tmp/reads.fq"
check "-L 0 -T 75 (above the best score, 74): every read unmapped" bash -c "[[ \$(grep -v '^@' '$tmp/out' | awk '\$2 == 4' | wc -l) == 8 ]]"
run "$SCANMAP" map -T 60 "$tmp/ref.fa" "$tmp/reads.fq"
check "-T 60: a score of exactly 60 is mapped" bash -c "grep -P '^fwd\t' '$tmp/out' | grep -qP '^fwd\t0\t'"

if command -v samtools >/dev/null; then
	run "$SCANMAP" map "$tmp/ref.fa" "$tmp/reads.fq"
	cp "$tmp/out" "$tmp/all.sam"
	check "samtools quickcheck" samtools quickcheck "$tmp/all.sam"
	check "samtools flagstat: 8 primary records" bash -c "samtools flagstat '$tmp/all.sam' | grep -q '^8 + 0 primary\$'"
	run samtools calmd "$tmp/all.sam" "$tmp/ref.fa"
	check "samtools calmd agrees on every MD and NM" bash -c "! grep -q 'different' '$tmp/err'"
else
	echo "samtools not installed: round-trip checks not run"
fi

finish
