#!/usr/bin/env bash
# split_reads.sh — chimeric reads (two to four parts, both strands, an inverted
# part, a long deletion) get one primary and a supplementary record per other
# part, with SA:Z on every part as the SAM specification defines it; the parts
# are bwa mem's (same contig, strand and position within a few bases, where
# bwa is installed); -Y, -M; every engine and mode writes the same records;
# paired records pass picard ValidateSamFile and samtools fixmate | sort | markdup.
source "$(dirname "$0")/lib.bash"

c1=$(random_seq 20000 81)
c2=$(random_seq 10000 82)
printf '>chr1\n%s\n>chr2\n%s\n' "$c1" "$c2" >"$tmp/ref.fa"
ref=$tmp/ref.fa
# name, sequence, parts: the reads and how many alignments each has.
names=(two inv three revchim del plain three2 four)
parts=(2 2 3 2 2 1 3 4)
seqs=(
	"${c1:1000:75}${c2:2000:75}"
	"${c1:3000:75}$(revcomp "${c1:5000:75}")"
	"${c1:7000:50}${c2:4000:50}$(revcomp "${c1:9000:50}")"
	"$(revcomp "${c1:11000:80}${c2:6000:70}")"
	"${c1:13000:75}${c1:13500:75}"
	"${c1:15000:150}"
	"${c2:8000:60}$(revcomp "${c2:500:45}")${c1:17000:45}"
	"${c1:18000:40}${c2:7000:40}$(revcomp "${c1:19000:35}")${c2:9000:35}"
)
for i in "${!names[@]}"; do
	fastq_record "${names[i]}" "${seqs[i]}" >>"$tmp/se.fq"
	# Mates: 150 bases of chr1 downstream of the read (reverse strand).
	fastq_record "${names[i]}" "$(revcomp "${c1:$((1000 + i * 2000 + 300)):150}")" >>"$tmp/r2.fq"
done

run "$SCANMAP" map "$ref" "$tmp/se.fq"
expect_status 0 "single-end run"
grep -v '^@' "$tmp/out" >"$tmp/se.sam"

# Per read: primaries, supplementaries, SA entries on every record.
for i in "${!names[@]}"; do
	n=${names[i]} want=${parts[i]}
	got=$(awk -F '\t' -v n="$n" -v want="$want" '$1 == n { if (and($2, 2048)) s++; else p++
		k = 0; for (i = 12; i <= NF; i++) if ($i ~ /^SA:Z:/) k = gsub(/;/, ";", $i)
		if (k != want - 1) bad++ }
		END { printf "%d %d %d", p, s, bad }' "$tmp/se.sam")
	check "$n: 1 primary, $((want - 1)) supplementary, SA with $((want - 1)) entries on each (got p s bad: $got)" \
		test "$got" == "1 $((want - 1)) 0"
done
check "plain: no SA" bash -c "! grep -P '^plain\t' '$tmp/se.sam' | grep -q 'SA:Z'"

# SA on each record lists exactly the read's other records: RNAME,POS,strand,CIGAR
# (soft clips),MAPQ,NM.
check "every SA names the read's other records exactly" awk -F '\t' '
	function sig(i,   c, nm, k) { c = $6; gsub(/H/, "S", c); nm = ""
		for (k = 12; k <= NF; k++) if ($k ~ /^NM:i:/) nm = substr($k, 6)
		return $3 "," $4 "," (and($2, 16) ? "-" : "+") "," c "," $5 "," nm ";" }
	{ n = $1; r[n, ++cnt[n]] = sig(); sa[n, cnt[n]] = ""
	  for (k = 12; k <= NF; k++) if ($k ~ /^SA:Z:/) sa[n, cnt[n]] = substr($k, 6) }
	END { for (n in cnt) for (i = 1; i <= cnt[n]; i++) {
		want = ""; for (j = 1; j <= cnt[n]; j++) if (j != i) want = want r[n, j]
		# SA lists the others in the order they are written, the primary first
		if (cnt[n] > 1 && sa[n, i] != want) { print "bad " n " " i ": " sa[n, i] " != " want; bad++ } }
		exit bad > 0 }' "$tmp/se.sam"

# Supplementary records are hard-clipped: SEQ is the aligned part.
check "supplementary records: hard clips, SEQ as long as the aligned part" awk -F '\t' '
	and($2, 2048) { c = $6; q = 0; h = 0
		while (match(c, /^[0-9]+[MIDSH]/)) { l = substr(c, 1, RLENGTH - 1); o = substr(c, RLENGTH, 1)
			if (o == "M" || o == "I") q += l; if (o == "H") h++; if (o == "S") bad++; c = substr(c, RLENGTH + 1) }
		if (h == 0 || length($10) != q) bad++ }
	END { exit bad > 0 }' "$tmp/se.sam"
# Where each part came from (1-based POS of its first base, strand); a part may
# start or end a few bases off where the bases next to a junction match both loci.
cat >"$tmp/truth" <<'EOF'
two chr1 1001 + two chr2 2001 + inv chr1 3001 + inv chr1 5001 - three chr1 7001 +
three chr2 4001 + three chr1 9001 - revchim chr1 11001 - revchim chr2 6001 - del chr1 13001 +
del chr1 13501 + plain chr1 15001 + three2 chr2 8001 + three2 chr2 501 - three2 chr1 17001 +
four chr1 18001 + four chr2 7001 + four chr1 19001 - four chr2 9001 +
EOF
check "every part lies where its bases came from (within 5 bases)" awk '
	FNR == 1 { f++ }
	f == 1 { for (i = 1; i <= NF; i += 4) want[++n] = $i " " $(i + 1) " " $(i + 3) " " $(i + 2); next }
	{ ok = 0; s = and($2, 16) ? "-" : "+"
	  for (j = 1; j <= n; j++) { split(want[j], w, " ")
		if (w[1] == $1 && w[2] == $3 && w[3] == s && $4 - w[4] <= 5 && w[4] - $4 <= 5) ok = 1 }
	  if (!ok) { print "unexpected part " $1 " " $3 " " $4; bad++ } else got++ }
	END { exit bad > 0 || got != n }' FS=' ' "$tmp/truth" FS='\t' "$tmp/se.sam"
check "split parts at MAPQ 60 (the other parts are no rivals)" \
	bash -c "[[ \$(awk -F '\t' '\$5 != 60' '$tmp/se.sam' | wc -l) == 0 ]]"

# The same parts as bwa mem: contig, strand, POS within 5 bases (bwa's parts may
# share the bases that match at both loci; scanmap's do not overlap in the read).
if command -v bwa >/dev/null; then
	bwa index "$ref" >/dev/null 2>&1
	bwa mem "$ref" "$tmp/se.fq" 2>/dev/null | grep -v '^@' >"$tmp/bwa.sam"
	check "the parts of every read are bwa mem's" awk -F '\t' '
		FNR == 1 { f++ } { s = and($2, 16) ? "-" : "+"; k = $1 SUBSEP $3 SUBSEP s
			if (f == 1) { b[k, ++nb[k]] = $4; cb[$1]++ } else { m[k, ++nm[k]] = $4; cm[$1]++ } }
		END { # every part bwa finds matches one here on the same contig and strand
			for (k in nb) for (i = 1; i <= nb[k]; i++) { hit = 0
				for (j = 1; j <= nm[k]; j++) { d = b[k, i] - m[k, j]
					if (d <= 5 && d >= -5 && !used[k, j]) { used[k, j] = 1; hit = 1; break } }
				if (!hit) { split(k, w, SUBSEP); print "differs: " w[1] " " w[2] w[3] " " b[k, i]; bad++ } }
			for (n in cb) if (cb[n] != cm[n]) { print n ": " cb[n] " parts in bwa, " cm[n] " here"; bad++ }
			exit bad > 0 }' "$tmp/bwa.sam" "$tmp/se.sam"
else
	echo "skip: bwa not installed (tests/install-deps.sh installs it): no comparison with bwa mem"
fi

# -Y soft clips; -M flags the parts secondary (SEQ kept, SA kept).
run "$SCANMAP" map -Y "$ref" "$tmp/se.fq"
check "-Y: supplementary records soft-clipped with the whole SEQ" bash -c "
	grep -v '^@' '$tmp/out' | awk -F '\t' 'and(\$2, 2048) { n++; if (\$6 ~ /H/ || length(\$10) != 150) bad++ } END { exit !(n == 11 && !bad) }'"
run "$SCANMAP" map -M "$ref" "$tmp/se.fq"
check "-M: the parts flagged 0x100, none 0x800, SEQ and SA kept" bash -c "
	grep -v '^@' '$tmp/out' | awk -F '\t' 'and(\$2, 2048) { bad++ } and(\$2, 256) { n++; if (\$10 == \"*\" || !/\tSA:Z:/) bad++ }
		END { exit !(n == 11 && !bad) }'"

# Every engine, ISA, mode and thread count writes the same records.  XS
# under 20 is the best chance alignment a mode scanned (exhaustive mode: the
# whole reference; seeded mode: its windows), so modes compare it as "low".
low_xs() { grep -v '^@' "$1" | sed -E 's/\tXS:i:(1?[0-9])(\t|$)/\tXS:i:low\2/'; }
for args in "--engine oracle" "--cpu-isa scalar" "--mode seeded" "-t 3"; do
	# shellcheck disable=SC2086
	run "$SCANMAP" map $args "$ref" "$tmp/se.fq"
	if [ "$args" = "--mode seeded" ]; then
		check "$args: the same records (XS under 20 as low)" bash -c "
			$(declare -f low_xs); diff <(low_xs '$tmp/out') <(low_xs '$tmp/se.sam') >/dev/null"
	else
		check "$args: the same records" bash -c "diff <(grep -v '^@' '$tmp/out') '$tmp/se.sam' >/dev/null"
	fi
done

# Pairs: the chimeric read keeps its pair fields on the primary; the records
# pass picard and samtools' duplicate marking.
run "$SCANMAP" map -R '@RG\tID:x\tSM:y\tPL:ILLUMINA' "$ref" "$tmp/se.fq" "$tmp/r2.fq"
expect_status 0 "paired run"
cp "$tmp/out" "$tmp/pe.sam"
check "paired: 11 supplementary records, each with 0x1, 0x40, the mate's RNEXT/PNEXT and MC" bash -c "
	grep -v '^@' '$tmp/pe.sam' | awk -F '\t' 'and(\$2, 128) { mp[\$1] = \$4 } and(\$2, 2048) { s[++n] = \$0 }
		END { for (i = 1; i <= n; i++) { split(s[i], f, \"\t\"); pn = f[8]
			if (!and(f[2], 1) || !and(f[2], 64) || pn != mp[f[1]] || s[i] !~ /\tMC:Z:/) bad++ }
			exit !(n == 11 && !bad) }'"
check "samtools fixmate -m | sort | markdup" test "$(markdup_supp "$tmp/pe.sam")" == 11
if command -v PicardCommandLine >/dev/null; then
	samtools faidx "$ref"
	check "picard ValidateSamFile (NM and MD against the reference too): no errors" \
		picard_valid "$tmp/pe.sam" "$ref"
	run "$SCANMAP" map -M -R '@RG\tID:x\tSM:y\tPL:ILLUMINA' "$ref" "$tmp/se.fq" "$tmp/r2.fq"
	cp "$tmp/out" "$tmp/pe_m.sam"
	check "picard ValidateSamFile on -M output: no errors" picard_valid "$tmp/pe_m.sam"
fi

finish
