# variant_score.awk — calls against the truth, per type: awk -f variant_score.awk TRUTH CALLS
# (two uncompressed VCF texts, the truth first). Variants match on CHROM, POS, REF and ALT; a
# snp is one base for one base, an indel anything else. Prints "TYPE TRUTH CALLS TP" for snp,
# then indel. benchmarks/variant_bench.sh scores each run with it, benchmarks/variant_sum.sh
# sums runs.
function kind(r, a) { return length(r) == 1 && length(a) == 1 ? "snp" : "indel" }
FNR == 1 { f++ }
/^#/ { next }
{
	k = $1 ":" $2 ":" $4 ":" $5; ty = kind($4, $5)
	if (f == 1) { t[k] = 1; nt[ty]++ } else { nc[ty]++; if (k in t) tp[ty]++ }
}
END {
	print "snp", nt["snp"] + 0, nc["snp"] + 0, tp["snp"] + 0
	print "indel", nt["indel"] + 0, nc["indel"] + 0, tp["indel"] + 0
}
