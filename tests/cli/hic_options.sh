#!/usr/bin/env bash
# hic_options.sh — bwa mem's -5, -q, -S and -P, as Hi-C pipelines pass them
# (bwa mem -5SP): -5 makes the part that starts first in the read the
# primary (bwa mem -5's primaries, where bwa is installed); -q leaves a
# part's MAPQ uncapped; -P maps each read of a pair as a single read (its
# records those of the read mapped alone, but for the mate fields; none
# proper, no insert model); -S leaves a read that only mate rescue can place
# unmapped; pairs that face each other by chance, over 10 kb apart, make no
# insert model; -5SP records of chimeric reads pass samtools fixmate | sort |
# markdup and picard ValidateSamFile.
source "$(dirname "$0")/lib.bash"

c1=$(random_seq 30000 91)
c2=$(random_seq 20000 92)
rep=$(random_seq 90 93)
# chr1 holds two copies of rep (a read's 90 bases there tie: MAPQ 0).
c1="${c1:0:25000}${rep}${c1:25090:2000}${rep}${c1:27180}"
# short5: 25 bases of chr1, then 125 of chr2 whose first 5 follow those 25 in
# chr1 too (a junction whose bases match at both loci).
z=$(random_seq 120 94)
c2="${c2:0:15000}${c1:20025:5}${z}${c2:15125}"
printf '>chr1\n%s\n>chr2\n%s\n' "$c1" "$c2" >"$tmp/ref.fa"
ref=$tmp/ref.fa

# Chimeric reads whose longer part comes second in the read, on both
# strands; the first part alone reaches -T.
{
	fastq_record late "${c1:1000:50}${c2:2000:100}"
	fastq_record late_rev "$(revcomp "${c2:4000:100}${c1:3000:50}")"
	fastq_record three "${c1:5000:40}${c2:6000:50}${c1:9000:60}"
	fastq_record inv "${c2:8000:45}$(revcomp "${c1:11000:105}")"
	fastq_record plain "${c1:13000:150}"
	# 90 bases at a tie (the primary, MAPQ 0), then 60 unique ones.
	fastq_record tied "${rep}${c2:10000:60}"
	fastq_record short5 "${c1:20000:30}${z}"
} >"$tmp/se.fq"

# Read offset (in the read as sequenced) of a record's first aligned base.
start_awk='function start(f, c, s) { c = f[6]
	if (and(f[2], 16)) { s = match(c, /[0-9]+[SH]$/) ? substr(c, RSTART, RLENGTH - 1) + 0 : 0 }
	else { s = match(c, /^[0-9]+[SH]/) ? substr(c, 1, RLENGTH - 1) + 0 : 0 }
	return s }'

run "$SCANMAP" map "$ref" "$tmp/se.fq"
expect_status 0 "single-end run"
grep -v '^@' "$tmp/out" >"$tmp/def.sam"
run "$SCANMAP" map -5 "$ref" "$tmp/se.fq"
expect_status 0 "-5 run"
grep -v '^@' "$tmp/out" >"$tmp/p5.sam"
check "default: the longer, later part is the primary of late, late_rev and inv" awk -F '\t' "$start_awk"'
	{ split($0, f, "\t") } !and($2, 2048) && ($1 == "late" || $1 == "late_rev" || $1 == "inv") {
		if (start(f) == 0) bad++; n++ } END { exit !(n == 3 && !bad) }' "$tmp/def.sam"
check "-5: every primary starts first in its read (no part starts before it)" awk -F '\t' "$start_awk"'
	{ split($0, f, "\t"); s = start(f)
	  if (!and($2, 2048)) p[$1] = s; else if (!($1 in m) || s < m[$1]) m[$1] = s }
	END { for (r in m) { n++; if (m[r] < p[r]) { print r ": a part starts at " m[r] ", the primary at " p[r]; bad++ } }
		exit !(n == 6 && !bad) }' "$tmp/p5.sam"
check "-5: the same alignments as without it, only the roles traded" bash -c "
	diff <(cut -f 1,3,4,6 '$tmp/def.sam' | sed 's/H/S/g' | sort) <(cut -f 1,3,4,6 '$tmp/p5.sam' | sed 's/H/S/g' | sort) >/dev/null"
check "short5: its 25-base end is a part, sharing the junction's 5 bases (chr1:20001, 30M)" bash -c "
	grep -P '^short5\t' '$tmp/def.sam' | awk -F '\t' 'and(\$2, 2048) && \$3 == \"chr1\" && \$4 == 20001 && \$6 ~ /^30M/ { ok = 1 } END { exit !ok }'"
check "-5: short5's primary is that part" bash -c "
	grep -P '^short5\t' '$tmp/p5.sam' | awk -F '\t' '!and(\$2, 2048) && \$3 == \"chr1\" && \$4 == 20001 { ok = 1 } END { exit !ok }'"
check "-5: plain read's record unchanged" bash -c "diff <(grep -P '^plain\t' '$tmp/def.sam') <(grep -P '^plain\t' '$tmp/p5.sam') >/dev/null"
check "-5: SA on every record of a split read lists its other records, the new primary first" awk -F '\t' '
	{ c = $6; gsub(/H/, "S", c); nm = ""; sa = ""
	  for (k = 12; k <= NF; k++) { if ($k ~ /^NM:i:/) nm = substr($k, 6); if ($k ~ /^SA:Z:/) sa = substr($k, 6) }
	  sig = $3 "," $4 "," (and($2, 16) ? "-" : "+") "," c "," $5 "," nm ";"
	  if (!and($2, 2048)) prim[$1] = sig; else if (index(sa, prim[$1]) != 1) { print "SA of " $1 ": " sa; bad++ }
	  if (and($2, 2048)) n++ }
	END { exit !(n >= 5 && !bad) }' "$tmp/p5.sam"

if command -v bwa >/dev/null; then
	bwa index "$ref" >/dev/null 2>&1
	bwa mem -5 "$ref" "$tmp/se.fq" 2>/dev/null | grep -v '^@' >"$tmp/bwa5.sam"
	check "-5: the primaries are bwa mem -5's (contig, strand, POS within 5 bases)" awk -F '\t' '
		FNR == 1 { f++ } and($2, 2304) { next }
		{ k = $3 " " and($2, 16); if (f == 1) { b[$1] = k; bp[$1] = $4 } else { m[$1] = k; mp[$1] = $4 } }
		END { for (r in b) { d = bp[r] - mp[r]; n++
			if (b[r] != m[r] || d > 5 || d < -5) { print r ": bwa " b[r] " " bp[r] ", here " m[r] " " mp[r]; bad++ } }
			exit !(n == 7 && !bad) }' "$tmp/bwa5.sam" "$tmp/p5.sam"
else
	echo "skip: bwa not installed (tests/install-deps.sh installs it): no comparison with bwa mem -5"
fi

# tied: the primary (90 bases at two copies) has MAPQ 0; its unique part is
# capped at 0 by default (bwa's rule) and keeps its own with -q.
check "-5 implies -q (as in bwa mem): tied's unique part keeps MAPQ 60" awk -F '\t' '$1 == "tied" && and($2, 2048) { q = $5 } END { exit q != 60 }' "$tmp/p5.sam"
check "tied: primary MAPQ 0, part capped at 0" awk -F '\t' '$1 == "tied" { if (and($2, 2048)) s = $5; else p = $5 }
	END { exit !(p == 0 && s == 0) }' "$tmp/def.sam"
run "$SCANMAP" map -q "$ref" "$tmp/se.fq"
check "-q: tied's part keeps MAPQ 60; every other record as without -q" bash -c "
	grep -v '^@' '$tmp/out' | awk -F '\t' '\$1 == \"tied\" && and(\$2, 2048) { q = \$5 } END { exit q != 60 }' &&
	diff <(grep -v '^@' '$tmp/out' | grep -v '^tied' | grep -v $'^plain\t' | cut -f 1-9) \
	     <(grep -v '^tied' '$tmp/def.sam' | grep -v $'^plain\t' | cut -f 1-9) >/dev/null"

# Pairs.  -P: each read as a single read.
for i in 0 1 2 3 4 5 6 7; do
	p=$((14000 + i * 1500))
	fastq_record "pair$i" "${c1:$p:150}" >>"$tmp/r1.fq"
	if ((i % 2)); then   # a Hi-C-like mate: far away, on chr2
		fastq_record "pair$i" "$(revcomp "${c2:$((i * 2000)):150}")" >>"$tmp/r2.fq"
	else
		fastq_record "pair$i" "$(revcomp "${c1:$((p + 250)):150}")" >>"$tmp/r2.fq"
	fi
done
run "$SCANMAP" map -P -I 400,40 "$ref" "$tmp/r1.fq" "$tmp/r2.fq"
expect_status 0 "-P run"
grep -v '^@' "$tmp/out" >"$tmp/P.sam"
run "$SCANMAP" map "$ref" "$tmp/r1.fq"
grep -v '^@' "$tmp/out" >"$tmp/r1.sam"
run "$SCANMAP" map "$ref" "$tmp/r2.fq"
grep -v '^@' "$tmp/out" >"$tmp/r2.sam"
check "-P: no record proper (0x2), every one paired (0x1)" awk -F '\t' '
	{ n++; if (and($2, 2) || !and($2, 1)) bad++ } END { exit !(n == 16 && !bad) }' "$tmp/P.sam"
check "-P: each read's record is its own mapping as a single read (but for the mate fields)" bash -c "
	diff <(awk -F '\t' 'and(\$2, 64)' '$tmp/P.sam' | cut -f 1,3-6,10-11,12- | sed -E 's/\tMC:Z:[^\t]*//') \
	     <(cut -f 1,3-6,10-11,12- '$tmp/r1.sam') >/dev/null &&
	diff <(awk -F '\t' 'and(\$2, 128)' '$tmp/P.sam' | cut -f 1,3-6,10-11,12- | sed -E 's/\tMC:Z:[^\t]*//') \
	     <(cut -f 1,3-6,10-11,12- '$tmp/r2.sam') >/dev/null"
check "-P: RNEXT/PNEXT name the mate's place" awk -F '\t' '
	{ pos[$1, and($2, 64) ? 1 : 2] = $3 ":" $4; nx[$1, and($2, 64) ? 1 : 2] = ($7 == "=" ? $3 : $7) ":" $8; n[$1] }
	END { for (r in n) if (nx[r, 1] != pos[r, 2] || nx[r, 2] != pos[r, 1]) bad++; exit bad > 0 }' "$tmp/P.sam"
run "$SCANMAP" map -P "$ref" "$tmp/r1.fq" "$tmp/r2.fq"
check "-P: no insert-size sample (no model, no warning about one)" bash -c "! grep -q 'insert size' '$tmp/err'"
run "$SCANMAP" map -I 400,40 "$ref" "$tmp/r1.fq" "$tmp/r2.fq"
check "without -P: the four nearby pairs proper" bash -c "
	[[ \$(grep -v '^@' '$tmp/out' | awk -F '\t' 'and(\$2, 2)' | wc -l) == 8 ]]"

# Chance pairs: 40 pairs facing each other 12-19 kb apart make no insert model
# (bwa mem's 10 kb limit on the sample), so none is proper.
for i in $(seq 0 39); do
	p=$((i * 200))
	fastq_record "far$i" "${c2:$p:150}" >>"$tmp/f1.fq"
	fastq_record "far$i" "$(revcomp "${c2:$((p + 12000 - 150 + i * 170)):150}")" >>"$tmp/f2.fq"
done
run "$SCANMAP" map "$ref" "$tmp/f1.fq" "$tmp/f2.fq"
expect_err "insert size: only 0 uniquely mapped pairs among the first 40" "pairs over 10 kb apart: no insert model"
check "pairs over 10 kb apart: none proper" bash -c "
	[[ \$(grep -v '^@' '$tmp/out' | awk -F '\t' 'and(\$2, 2)' | wc -l) == 0 ]]"

# -S: a mate of 18 bases (28 with the clipping bonus, under -T 30) is placed
# only by rescue beside its mate.
fastq_record short "${c1:21000:150}" >"$tmp/s1.fq"
fastq_record short "$(revcomp "${c1:21250:18}")" >"$tmp/s2.fq"
run "$SCANMAP" map -I 300,30 "$ref" "$tmp/s1.fq" "$tmp/s2.fq"
check "rescue places the 18-base mate" bash -c "grep -v '^@' '$tmp/out' | awk -F '\t' 'and(\$2, 128) { exit and(\$2, 4) }'"
run "$SCANMAP" map -S -I 300,30 "$ref" "$tmp/s1.fq" "$tmp/s2.fq"
expect_status 0 "-S run"
check "-S: the 18-base mate unmapped" bash -c "grep -v '^@' '$tmp/out' | awk -F '\t' 'and(\$2, 128) { exit !and(\$2, 4) }'"

# bwa mem -5SP's command line runs unchanged; chimeric reads paired with far
# mates give records that samtools and picard accept.
run "$SCANMAP" map -5SP -t 2 "$ref" "$tmp/r1.fq" "$tmp/r2.fq"
expect_status 0 "-5SP (clustered, as Hi-C pipelines write it)"
i=0
while read -r name; do
	fastq_record "${name#@}" "$(revcomp "${c2:$((1000 + i * 1700)):150}")" >>"$tmp/sm.fq"
	i=$((i + 1))
done < <(awk 'NR % 4 == 1' "$tmp/se.fq")
run "$SCANMAP" map -5SP -R '@RG\tID:x\tSM:y\tPL:ILLUMINA' "$ref" "$tmp/se.fq" "$tmp/sm.fq"
expect_status 0 "-5SP on chimeric reads with far mates"
cp "$tmp/out" "$tmp/hic.sam"
check "-5SP: samtools fixmate -m | sort | markdup" test "$(markdup_supp "$tmp/hic.sam")" -ge 6
if command -v PicardCommandLine >/dev/null; then
	samtools faidx "$ref"
	check "-5SP: picard ValidateSamFile (mate fields, NM and MD too): no errors" \
		picard_valid "$tmp/hic.sam" "$ref"
fi

finish
