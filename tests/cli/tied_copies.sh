#!/usr/bin/env bash
# tied_copies.sh — reads with several equally good loci (exact copies of a
# sequence) are spread over the copies by a hash of their name (docs/cli.md,
# "Choice of the hit"), each with MAPQ 0 and XS = AS; a name goes to the same
# copy whatever -t, the batches, the mode, the read's place in the input or
# which part of the copy it comes from; a pair's two reads go to one copy.
source "$(dirname "$0")/lib.bash"

# Five copies of a 400 bp sequence C between unique 300 bp spacers: chr1
# holds C, C, C reverse-complemented, C; chr2 holds one more C (the engine
# reports every copy: four on the forward strand, one on the reverse).
copy=$(random_seq 400 41)
spacer() { random_seq 300 $((50 + $1)); }
printf '>chr1\n%s%s%s%s%s%s%s%s%s\n>chr2\n%s%s%s\n' \
	"$(spacer 0)" "$copy" "$(spacer 1)" "$copy" "$(spacer 2)" "$(revcomp "$copy")" "$(spacer 3)" \
	"$copy" "$(spacer 4)" "$(spacer 5)" "$copy" "$(spacer 6)" >"$tmp/ref.fa"
n_copies=5
# The copy a record lies on (0-4, in reference order), from RNAME and POS.
copy_of='{ c = $3 == "chr2" ? 4 : $4 < 750 ? 0 : $4 < 1450 ? 1 : $4 < 2150 ? 2 : 3 }'

# sim_reads N SEED PREFIX: N 100 bp reads from C (named PREFIX0..), half of
# them reverse-complemented.
sim_reads() {
	awk -v c="$copy" -v n="$1" -v seed="$2" -v prefix="$3" 'BEGIN {
		srand(seed)
		q = sprintf("%100s", ""); gsub(/ /, "I", q)
		for (k = 0; k < n; k++) {
			s = substr(c, 1 + int(rand() * 301), 100)
			if (rand() < 0.5) {
				t = ""
				for (i = 100; i > 0; i--) t = t substr("TGCA", index("ACGT", substr(s, i, 1)), 1)
				s = t
			}
			printf "@%s%d\n%s\n+\n%s\n", prefix, k, s, q
		} }'
}

# Single-end: 600 reads (three batches of the CPU engine).
n_reads=600
sim_reads "$n_reads" 42 tie >"$tmp/se.fq"
for t in 1 2 3; do
	run "$SCANMAP" map -t "$t" "$tmp/ref.fa" "$tmp/se.fq"
	expect_status 0 "single-end, -t $t"
	grep -v '^@' "$tmp/out" >"$tmp/se.t$t.sam"
done
check "-t 1, -t 2 and -t 3 give identical records" \
	bash -c "cmp -s '$tmp/se.t1.sam' '$tmp/se.t2.sam' && cmp -s '$tmp/se.t1.sam' '$tmp/se.t3.sam'"
for mode in exhaustive seeded; do
	run "$SCANMAP" map --mode "$mode" "$tmp/ref.fa" "$tmp/se.fq"
	grep -v '^@' "$tmp/out" >"$tmp/se.$mode.sam"
done
check "exhaustive and seeded mode give identical records" cmp -s "$tmp/se.exhaustive.sam" "$tmp/se.seeded.sam"
check "one primary record per read, each mapped, MAPQ 0, XS = AS, full length" bash -c \
	"awk -F '\t' '\$2 < 256 && \$5 == 0 && \$6 == \"100M\" && /AS:i:100\tXS:i:100/' '$tmp/se.t1.sam' |
	 wc -l | grep -qx $n_reads && [[ \$(wc -l <'$tmp/se.t1.sam') == $n_reads ]]"
# 120 reads per copy expected (sd 10); the leftmost copy alone would have all.
awk -F '\t' "$copy_of"' { n[c]++ } END { for (c = 0; c < '"$n_copies"'; c++) printf "%d ", n[c] }' \
	"$tmp/se.t1.sam" >"$tmp/counts"
check "every copy gets 80 to 160 of the $n_reads reads (got $(cat "$tmp/counts"))" \
	awk -v s="$(cat "$tmp/counts")" 'BEGIN { n = split(s, a, " "); if (n != '"$n_copies"') exit 1
		for (i = 1; i <= n; i++) if (a[i] < 80 || a[i] > 160) exit 1 }'

# The same names from other places in C, every third read only (other
# batches, other places in the input), in reverse order: the same copies.
sim_reads "$n_reads" 43 tie | paste - - - - | awk 'NR % 3 == 1' | tac | tr '\t' '\n' >"$tmp/se2.fq"
run "$SCANMAP" map -t 2 "$tmp/ref.fa" "$tmp/se2.fq"
expect_status 0 "the same names elsewhere in C"
grep -v '^@' "$tmp/out" | awk -F '\t' "$copy_of"' { print $1, c }' | sort >"$tmp/se2.copies"
awk -F '\t' "$copy_of"' { print $1, c }' "$tmp/se.t1.sam" | sort | join - "$tmp/se2.copies" >"$tmp/joined"
check "a name goes to the same copy, whatever its bases in C, batch and place in the input" \
	bash -c "[[ \$(wc -l <'$tmp/joined') == $((n_reads / 3)) ]] && awk '\$2 != \$3 { exit 1 }' '$tmp/joined'"

# Pairs from within C (inserts 200-300, fixed insert model): both reads on
# one copy, a proper pair, MAPQ 0; pairs spread over the copies.
n_pairs=300
awk -v c="$copy" -v n="$n_pairs" -v dir="$tmp" 'BEGIN {
	srand(44)
	q = sprintf("%100s", ""); gsub(/ /, "I", q)
	for (k = 0; k < n; k++) {
		ins = 200 + int(rand() * 101)
		o = int(rand() * (401 - ins))
		b = substr(c, o + ins - 99, 100)
		t = ""
		for (i = 100; i > 0; i--) t = t substr("TGCA", index("ACGT", substr(b, i, 1)), 1)
		printf "@tp%d/1\n%s\n+\n%s\n", k, substr(c, o + 1, 100), q >dir "/r1.fq"
		printf "@tp%d/2\n%s\n+\n%s\n", k, t, q >dir "/r2.fq"
	} }'
for t in 1 2; do
	run "$SCANMAP" map -t "$t" -I 250,30 "$tmp/ref.fa" "$tmp/r1.fq" "$tmp/r2.fq"
	expect_status 0 "pairs, -t $t"
	grep -v '^@' "$tmp/out" >"$tmp/pe.t$t.sam"
done
check "pairs: -t 1 and -t 2 give identical records" cmp -s "$tmp/pe.t1.sam" "$tmp/pe.t2.sam"
run "$SCANMAP" map --mode seeded -I 250,30 "$tmp/ref.fa" "$tmp/r1.fq" "$tmp/r2.fq"
check "pairs: seeded mode gives the same records" bash -c "grep -v '^@' '$tmp/out' | cmp -s - '$tmp/pe.t1.sam'"
check "pairs: every record a proper pair (flags 99/147/83/163) with MAPQ 0" bash -c \
	"awk -F '\t' '(\$2 == 99 || \$2 == 147 || \$2 == 83 || \$2 == 163) && \$5 == 0' '$tmp/pe.t1.sam' |
	 wc -l | grep -qx $((2 * n_pairs))"
awk -F '\t' "$copy_of"' { if (NR % 2) { name = $1; first = c } else { if ($1 != name || c != first) bad++; n[c]++ } }
	END { printf "%d ", bad; for (c = 0; c < '"$n_copies"'; c++) printf "%d ", n[c] }' \
	"$tmp/pe.t1.sam" >"$tmp/counts"
# 60 pairs per copy expected (sd 7).
check "pairs: both reads on one copy, every copy 30 to 90 of the $n_pairs pairs (got mismatched, counts: $(cat "$tmp/counts"))" \
	awk -v s="$(cat "$tmp/counts")" 'BEGIN { n = split(s, a, " "); if (n != '"$n_copies"' + 1 || a[1] != 0) exit 1
		for (i = 2; i <= n; i++) if (a[i] < 30 || a[i] > 90) exit 1 }'

finish
