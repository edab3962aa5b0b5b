#!/usr/bin/env bash
# variant_bench.sh OUT [COVERAGE...] — variant calling as the acceptance test of
# the mapper (issue 19): E. coli K-12 with known SNPs and indels, reads
# simulated by dwgsim from the mutated genome (haploid, 2 x 150 bp, 500 bp
# inserts), mapped by scanmap (seeded, and exhaustive where asked), bwa mem and minimap2 -ax sr with the same threads; then
#   samtools sort | bcftools mpileup | bcftools call -mv --ploidy 1 | bcftools norm
# and SNP and indel recall and precision against dwgsim's mutation list (also
# normalized), plus the share of soft-clipped primary records.  COVERAGE
# defaults to 5 10 30.  Needs dwgsim, samtools, bcftools, bwa, minimap2 on PATH
# (tests/install-deps.sh installs all but bcftools and minimap2: Debian
# packages of those names) and ./scanmap built.  SCANMAP_MODES lists the
# scanmap modes to run (default "seeded"; "seeded exhaustive" on a GPU, where
# exhaustive E. coli is feasible), each a row "scanmap-MODE"; SCANMAP_OPTS
# adds options (say "-L 5,5 --engine gpu"); THREADS defaults to the cores;
# VARIANT_PEERS lists the peers mapped beside scanmap (default "bwa minimap2";
# empty: scanmap alone, e.g. to add rows to an earlier run with the same reads;
# SCANMAP_MODES empty: the peers alone).
#
# Two controls measure what chance alone moves: among reads that tie at several
# copies both mappers pick one by a hash (bwa mem of the read's place in the
# input, scanmap of its name), and at low coverage one read more or less on an
# ALT allele can make or lose a call.  "bwa-reordered" is bwa mem on the same
# pairs in another order (shuffled with a fixed seed), "scanmap-renamed" is
# scanmap on the same pairs with an "r" before every name: each mapper against
# itself with other coin flips.
#
# GENOME=chr20 takes a slice of human chromosome 20 instead (GRCh37 from
# Debian vt-examples; REGION, default 20:30000001-40000000, 10 Mbp without
# the centromere's Ns): a human genome's repeats at a size whose 30x fits a
# small machine.
#
# SIM=art simulates the reads with ART instead (art_illumina, Debian
# art-nextgen-simulation-tools) from a copy of the genome carrying dwgsim's
# mutations (bcftools consensus of the truth): ART's quality-dependent
# substitution and indel profiles, ART_PROFILE (default HS25, HiSeq 2500) and
# READ_LEN (default 150; 250 with MSv3), the same truth and insert size.
#
# Writes OUT/variants.tsv (one row per mapper and coverage) and prints it;
# benchmarks/variant_plot.py OUT/variants.tsv PNG draws it.  Mapping logs, the
# calls and each mapper's sorted BAM stay in OUT/COVERAGE/ (KEEP_BAM=0 removes
# the BAMs once called: twelve runs of four mappers keep about 4 GB).
set -euo pipefail
out=${1:?usage: variant_bench.sh OUT [COVERAGE...]}
shift
covs=("$@")
((${#covs[@]})) || covs=(5 10 30)
top=$(cd "$(dirname "$0")/.." && pwd)
threads=${THREADS:-$(nproc)}
# dwgsim: one mutation per 1000 bases, a tenth of them indels (its defaults),
# extended with probability 0.3; no random reads; a fixed seed (SEED, default 19: another
# seed simulates other mutations and reads, to tell a mapper's lead from chance).
mut_rate=0.001
indel_frac=0.1
sim=${SIM:-dwgsim}
art_profile=${ART_PROFILE:-HS25}
read_len=${READ_LEN:-150}
insert=500
insert_sd=50
seed=${SEED:-19}
mkdir -p "$out"
out=$(cd "$out" && pwd)
case $sim in
dwgsim) ;;
art) command -v art_illumina >/dev/null || { echo "variant_bench.sh: art_illumina is not on PATH" >&2; exit 1; } ;;
*) echo "variant_bench.sh: SIM is dwgsim or art, not '$sim'" >&2; exit 1 ;;
esac
for tool in dwgsim samtools bcftools bwa minimap2; do
	command -v "$tool" >/dev/null || { echo "variant_bench.sh: $tool is not on PATH" >&2; exit 1; }
done
genome=${GENOME:-ecoli}
case $genome in
ecoli)
	"$top/benchmarks/genomes.sh" "$out/genomes"
	ref=$out/genomes/ecoli.fa ;;
chr20)
	CHR20=1 "$top/benchmarks/genomes.sh" "$out/genomes"
	ref=$out/genomes/chr20-slice.fa
	if [[ ! -s $ref ]]; then
		[[ -s $out/genomes/chr20.fa.fai ]] || samtools faidx "$out/genomes/chr20.fa"
		samtools faidx "$out/genomes/chr20.fa" "${REGION:-20:30000001-40000000}" |
			sed '1s/.*/>chr20_slice/' >"$ref"
	fi ;;
*) echo "variant_bench.sh: GENOME is ecoli or chr20, not '$genome'" >&2; exit 1 ;;
esac
# failed WHAT LOG: says that WHAT failed, with the end of its log, and stops.
failed() {
	echo "variant_bench.sh: $1 failed (log: $2):" >&2
	tail -n 5 "$2" >&2
	exit 1
}
[[ -s $ref.fai ]] || samtools faidx "$ref"
[[ -s $ref.bwt ]] || bwa index "$ref" 2>"$out/bwa-index.log" || failed "bwa index" "$out/bwa-index.log"
# Indexed again when scanmap is newer than the index (its format may have
# changed: an older index is refused).
[[ -s $ref.smi && $ref.smi -nt $top/scanmap ]] ||
	"$top/scanmap" index "$ref" 2>"$out/scanmap-index.log" ||
	failed "scanmap index" "$out/scanmap-index.log"
len=$(awk '{ s += $2 } END { print s }' "$ref.fai")

# calls BAM VCF: bcftools' haploid calls, split into one allele per record
# and left-aligned.
calls() {
	bcftools mpileup -Ou -f "$ref" -a AD,DP "$1" 2>/dev/null |
		bcftools call -mv --ploidy 1 -Ou 2>/dev/null |
		bcftools norm -f "$ref" -m -any -Oz -o "$2" 2>/dev/null
}

# score TRUTH CALLS TYPE: "recall precision" of CALLS against TRUTH for TYPE
# (snp or indel; benchmarks/variant_score.awk matches them).
score() {
	awk -f "$top/benchmarks/variant_score.awk" <(zcat "$1") <(zcat "$2") |
		awk -v type="$3" '$1 == type { printf "%.4f %.4f\n", $2 ? $4 / $2 : 0, $3 ? $4 / $3 : 0 }'
}

# reorder R1 R2 PREFIX: the pairs of R1, R2 (FASTQ, gzipped or not) in an
# order shuffled with a fixed seed, to PREFIX.1.fq and PREFIX.2.fq.
reorder() {
	paste <(zcat -f "$1" | paste - - - -) <(zcat -f "$2" | paste - - - -) |
		shuf --random-source=<(yes "$seed") |
		awk -F '\t' -v a="$3.1.fq" -v b="$3.2.fq" '{
			printf "%s\n%s\n%s\n%s\n", $1, $2, $3, $4 > a
			printf "%s\n%s\n%s\n%s\n", $5, $6, $7, $8 > b }'
}

printf 'mapper\tcoverage\tsnp_recall\tsnp_precision\tindel_recall\tindel_precision\tsoftclipped_pct\tmap_seconds\n' \
	>"$out/variants.tsv"
for cov in "${covs[@]}"; do
	d=$out/$cov
	mkdir -p "$d"
	pairs=$((cov * len / (2 * read_len)))
	if [[ ! -s $d/truth.vcf.gz ]]; then
		# With ART dwgsim draws the mutations only (one pair of reads).
		dwgsim -H -z "$seed" -N "$([[ $sim == art ]] && echo 1 || echo "$pairs")" \
			-1 "$read_len" -2 "$read_len" -d "$insert" -s "$insert_sd" \
			-r "$mut_rate" -R "$indel_frac" -y 0 "$ref" "$d/sim" >"$d/dwgsim.log" 2>&1
		bcftools norm -f "$ref" -m -any -Oz -o "$d/truth.vcf.gz" "$d/sim.mutations.vcf" 2>/dev/null
		if [[ $sim == art ]]; then
			bcftools index -f "$d/truth.vcf.gz"
			bcftools consensus -f "$ref" "$d/truth.vcf.gz" >"$d/mutated.fa" 2>"$d/consensus.log" ||
				failed "bcftools consensus" "$d/consensus.log"
			# ART's -f counts the bases of both reads of a pair.
			art_illumina -ss "$art_profile" -i "$d/mutated.fa" -p -l "$read_len" -f "$cov" \
				-m "$insert" -s "$insert_sd" -rs "$seed" -na -o "$d/art" >"$d/art.log" 2>&1 ||
				failed art_illumina "$d/art.log"
			gzip -f "$d/art1.fq" "$d/art2.fq"
			rm -f "$d/mutated.fa"
		fi
	fi
	if [[ $sim == art ]]; then
		r1=$d/art1.fq.gz
		r2=$d/art2.fq.gz
	else
		r1=$d/sim.bwa.read1.fastq.gz
		r2=$d/sim.bwa.read2.fastq.gz
	fi
	mappers=()
	for m in ${SCANMAP_MODES-seeded}; do mappers+=("scanmap-$m"); done
	for mapper in "${mappers[@]}" ${VARIANT_PEERS-bwa minimap2}; do
		t0=$(date +%s.%N)
		case $mapper in
		bwa-reordered)
			reorder "$r1" "$r2" "$d/reordered"
			bwa mem -t "$threads" "$ref" "$d/reordered.1.fq" "$d/reordered.2.fq" 2>"$d/$mapper.log" \
				>"$d/$mapper.sam" || failed "$mapper" "$d/$mapper.log"
			rm -f "$d/reordered.1.fq" "$d/reordered.2.fq" ;;
		scanmap-renamed)
			for e in 1 2; do
				zcat -f "$([[ $e == 1 ]] && echo "$r1" || echo "$r2")" |
					awk 'NR % 4 == 1 { $0 = "@r" substr($0, 2) } { print }' >"$d/renamed.$e.fq"
			done
			"$top/scanmap" map -t "$threads" ${SCANMAP_OPTS:-} -R '@RG\tID:sim\tSM:sim' "$ref" \
				"$d/renamed.1.fq" "$d/renamed.2.fq" 2>"$d/$mapper.log" >"$d/$mapper.sam" ||
				failed "$mapper" "$d/$mapper.log"
			rm -f "$d/renamed.1.fq" "$d/renamed.2.fq" ;;
		scanmap-*)
			# shellcheck disable=SC2086
			"$top/scanmap" map -t "$threads" --mode "${mapper#scanmap-}" ${SCANMAP_OPTS:-} \
				-R '@RG\tID:sim\tSM:sim' "$ref" "$r1" "$r2" 2>"$d/$mapper.log" >"$d/$mapper.sam" ||
				failed "$mapper" "$d/$mapper.log" ;;
		bwa) bwa mem -t "$threads" "$ref" "$r1" "$r2" 2>"$d/$mapper.log" >"$d/$mapper.sam" ||
			failed bwa "$d/$mapper.log" ;;
		minimap2) minimap2 -ax sr -t "$threads" "$ref" "$r1" "$r2" 2>"$d/$mapper.log" >"$d/$mapper.sam" ||
			failed minimap2 "$d/$mapper.log" ;;
		esac
		t1=$(date +%s.%N)
		samtools sort -@ "$threads" -o "$d/$mapper.bam" "$d/$mapper.sam" 2>/dev/null
		samtools index "$d/$mapper.bam"
		clipped=$(samtools view -F 0x904 "$d/$mapper.bam" |
			awk -F '\t' '{ n++; if ($6 ~ /S/) c++ } END { printf "%.3f", n ? 100 * c / n : 0 }')
		calls "$d/$mapper.bam" "$d/$mapper.vcf.gz"
		read -r sr sp < <(score "$d/truth.vcf.gz" "$d/$mapper.vcf.gz" snp)
		read -r ir ip < <(score "$d/truth.vcf.gz" "$d/$mapper.vcf.gz" indel)
		printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%.1f\n' "$mapper" "$cov" "$sr" "$sp" "$ir" "$ip" "$clipped" \
			"$(echo "$t1 - $t0" | bc)" >>"$out/variants.tsv"
		rm -f "$d/$mapper.sam"
		if [[ ${KEEP_BAM:-1} == 0 ]]; then
			rm -f "$d/$mapper.bam" "$d/$mapper.bam.bai"
		fi
	done
done
column -t "$out/variants.tsv"
