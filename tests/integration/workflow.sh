#!/usr/bin/env bash
# workflow.sh — workflow/Snakefile (Snakemake) on E. coli: sharded mapping gives
# the records of one run.
#
# 3,000 pairs simulated by dwgsim (plus 100 of them again under other names, so that
# markdup has duplicates to mark) are mapped by
#   snakemake -s workflow/Snakefile --cores 2 --configfile C     (3 shards, a read group)
# and, apart, by one `scanmap map -I <the model the first pass estimated>` run put
# through the same samtools fixmate -m | sort | markdup.  Checks: the merged BAM is
# coordinate-sorted, indexed, has its @RG once and duplicates marked; its records
# (tags in any order) equal the one run's; that model is the one a plain `scanmap map`
# over all the reads estimates, and each shard mapped with it.  Then a sample sheet of
# two samples (one of two read groups, one single-end): one BAM per sample, each with
# the records of its units' own runs.  And a dry run with the Slurm profile and gpus: 1.
source "$(dirname "$0")/common.bash"
source "$(dirname "$0")/seeded_genomes.bash"

need_tool snakemake snakemake
need_tool dwgsim dwgsim
need_tool samtools samtools
need_tool gawk gawk

ref=$(ecoli_fasta)
zcat "$ref" >"$WORK/ecoli.fa"
note "simulating 3000 pairs (dwgsim seed 11) and 100 duplicated pairs"
dwgsim -z 11 -N 3000 -1 150 -2 150 -e 0.01 -E 0.02 -r 0.002 -y 0.02 \
	"$WORK/ecoli.fa" "$WORK/sim" >"$WORK/dwgsim.log" 2>&1 || fail "dwgsim failed"
for m in 1 2; do
	zcat "$WORK/sim.bwa.read$m.fastq.gz" >"$WORK/r$m.fq"
	zcat "$WORK/sim.bwa.read$m.fastq.gz" | tail -n 400 | awk 'NR % 4 == 1 { sub(/^@/, "@dup_") } 1' >>"$WORK/r$m.fq"
	gzip -c "$WORK/r$m.fq" >"$WORK/r$m.fq.gz"
done
rg='@RG\tID:lane1\tSM:ecoli\tPL:ILLUMINA'

# records BAM: the records, each with its tags sorted, the records sorted.
records() {
	samtools view "$1" | gawk -F '\t' -v OFS='\t' '{
		n = 0; delete t
		for (i = 12; i <= NF; i++) t[++n] = $i
		asort(t); s = $1; for (i = 2; i <= 11; i++) s = s OFS $i
		for (i = 1; i <= n; i++) s = s OFS t[i]
		print s }' | LC_ALL=C sort
}
# snakemake_run CONFIG LOG MESSAGE: runs the workflow in $WORK on 2 cores;
# on failure shows the log's end and fails with MESSAGE.
snakemake_run() {
	(cd "$WORK" && snakemake -s "$ROOT/workflow/Snakefile" --cores 2 --configfile "$1") \
		>"$WORK/$2" 2>&1 || { tail -n 40 "$WORK/$2" >&2; fail "$3"; }
}
# postprocess IN.sam OUT.bam: what the workflow does after mapping.
postprocess() {
	samtools fixmate -m -u "$1" - | samtools sort -u - | samtools markdup - "$2" 2>/dev/null
}

cat >"$WORK/config.yaml" <<CONF
ref: $WORK/ecoli.fa
r1: $WORK/r1.fq.gz
r2: $WORK/r2.fq.gz
sample: ecoli
rg: '$rg'
shards: 3
threads: 1
out: $WORK/out
scanmap: $SCANMAP
CONF
note "snakemake --cores 2 (3 shards)"
snakemake_run config.yaml snakemake.log "snakemake failed"
bam=$WORK/out/ecoli.bam
[[ -s $bam && -s $bam.bai ]] || fail "no $bam or no index"
samtools quickcheck "$bam" || fail "samtools quickcheck rejects $bam"
samtools view -H "$bam" | grep -qP '^@HD\tVN:1.6\tSO:coordinate' || fail "$bam is not coordinate-sorted"
[[ $(samtools view -H "$bam" | grep -c '^@RG') == 1 ]] || fail "$bam: not exactly one @RG"
[[ $(samtools view -H "$bam" | grep -c "^@PG.*CL:$SCANMAP map") == 3 ]] || fail "$bam: not one scanmap @PG per shard"
samtools idxstats "$bam" >/dev/null || fail "the index of $bam is unusable"
n_dup=$(samtools view -c -f 1024 "$bam")
((n_dup >= 190)) || fail "only $n_dup records marked duplicate (200 duplicated reads)"
note "merged BAM: sorted, indexed, $(samtools view -c "$bam") records, $n_dup duplicates"

model=$(cat "$WORK/out/insert/ecoli.txt")
for k in 0 1 2; do
	grep -q "insert size from -I" "$WORK/out/logs/map/ecoli.$k.log" || fail "shard $k did not map with -I"
done
"$SCANMAP" map -t 2 -R "$rg" "$WORK/ecoli.fa" "$WORK/r1.fq" "$WORK/r2.fq" >"$WORK/plain.sam" 2>"$WORK/plain.err" ||
	fail "scanmap map (one run, estimating) failed"
grep -qF "insert size model: -I $model" "$WORK/plain.err" ||
	fail "the first pass's model ($model) is not the one a whole run estimates: $(grep 'insert size model' "$WORK/plain.err")"
"$SCANMAP" map -t 2 -R "$rg" -I "$model" "$WORK/ecoli.fa" "$WORK/r1.fq" "$WORK/r2.fq" >"$WORK/one.sam" 2>/dev/null ||
	fail "scanmap map -I (one run) failed"
postprocess "$WORK/one.sam" "$WORK/one.bam"
records "$bam" >"$WORK/workflow.txt"
records "$WORK/one.bam" >"$WORK/one.txt"
[[ $(wc -l <"$WORK/one.txt") == 6200 ]] || fail "the one run gave $(wc -l <"$WORK/one.txt") records, not 6200"
if ! cmp -s "$WORK/workflow.txt" "$WORK/one.txt"; then
	diff "$WORK/workflow.txt" "$WORK/one.txt" | head -n 6 | cut -c 1-200 >&2
	fail "the workflow's records differ from one 'scanmap map -I $model' run's ($(diff "$WORK/workflow.txt" "$WORK/one.txt" | grep -c '^<') records)"
fi
note "3 shards: the 6200 records of one 'scanmap map -I $model' run (= the estimating run's model)"

# A sample sheet: sample ecoli in two read groups (the pairs split in two files),
# sample se single-end.
head -n 6000 "$WORK/r1.fq" >"$WORK/u1_1.fq"
head -n 6000 "$WORK/r2.fq" >"$WORK/u1_2.fq"
tail -n +6001 "$WORK/r1.fq" >"$WORK/u2_1.fq"
tail -n +6001 "$WORK/r2.fq" >"$WORK/u2_2.fq"
printf 'sample\tunit\tr1\tr2\trg\n' >"$WORK/samples.tsv"
printf 'ecoli\tu1\t%s\t%s\tPL:ILLUMINA LB:lib1\n' "$WORK/u1_1.fq" "$WORK/u1_2.fq" >>"$WORK/samples.tsv"
printf 'ecoli\tu2\t%s\t%s\tPL:ILLUMINA LB:lib1\n' "$WORK/u2_1.fq" "$WORK/u2_2.fq" >>"$WORK/samples.tsv"
printf 'se\tu3\t%s\t\t\n' "$WORK/u2_1.fq" >>"$WORK/samples.tsv"
cat >"$WORK/sheet.yaml" <<CONF
ref: $WORK/ecoli.fa
samples: $WORK/samples.tsv
shards: 2
threads: 1
out: $WORK/sheet
scanmap: $SCANMAP
CONF
note "snakemake --cores 2, sample sheet (2 samples, 3 read groups, 2 shards each)"
snakemake_run sheet.yaml sheet.log "snakemake (sample sheet) failed"
for s in ecoli se; do
	[[ -s $WORK/sheet/$s.bam && -s $WORK/sheet/$s.bam.bai ]] || fail "no BAM and index for sample $s"
done
[[ $(samtools view -H "$WORK/sheet/ecoli.bam" | grep -c '^@RG') == 2 ]] || fail "sample ecoli: not two @RG"
: >"$WORK/units.sam"
for u in u1 u2; do
	m=$(cat "$WORK/sheet/insert/$u.txt")
	"$SCANMAP" map -R "@RG\tID:$u\tSM:ecoli\tPL:ILLUMINA\tLB:lib1" -I "$m" "$WORK/ecoli.fa" "$WORK/${u}_1.fq" "$WORK/${u}_2.fq" \
		2>/dev/null >"$WORK/$u.sam" || fail "scanmap map of unit $u failed"
done
samtools merge -f -c -o "$WORK/units.bam" "$WORK/u1.sam" "$WORK/u2.sam" 2>/dev/null
postprocess "$WORK/units.bam" "$WORK/units.md.bam"
cmp -s <(records "$WORK/sheet/ecoli.bam") <(records "$WORK/units.md.bam") ||
	fail "sample ecoli: records differ from its two units' own runs"
"$SCANMAP" map -R '@RG\tID:u3\tSM:se' "$WORK/ecoli.fa" "$WORK/u2_1.fq" 2>/dev/null >"$WORK/u3.sam" ||
	fail "scanmap map of unit u3 failed"
postprocess "$WORK/u3.sam" "$WORK/u3.md.bam"
cmp -s <(records "$WORK/sheet/se.bam") <(records "$WORK/u3.md.bam") ||
	fail "sample se (single-end): records differ from its own run's"
note "sample sheet: ecoli (2 read groups) and se (single-end) equal their units' own runs"

# The Slurm profile: a dry run shows the mapping jobs asking for a GPU.
(cd "$WORK" && snakemake -s "$ROOT/workflow/Snakefile" --profile "$ROOT/workflow/profiles/slurm" \
	--configfile sheet.yaml --config out="$WORK/dry" gpus=1 -n) >"$WORK/dry.log" 2>&1 ||
	{ tail -n 20 "$WORK/dry.log" >&2; fail "snakemake --profile workflow/profiles/slurm -n failed"; }
[[ $(grep -c 'resources:.*gpu=1, slurm_extra=--gres=gpu:1' "$WORK/dry.log") == 6 ]] ||
	fail "slurm profile (dry run): the 6 mapping jobs do not ask for --gres=gpu:1"
note "slurm profile (dry run): each of the 6 mapping jobs asks for --gres=gpu:1"
echo "ok"
