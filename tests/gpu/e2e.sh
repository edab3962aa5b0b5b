#!/usr/bin/env bash
# e2e.sh DATA OUT — on a GPU machine: the whole mapper, FASTQ to SAM.
#   1. --engine gpu and --engine cpu write identical SAM records (all but @PG)
#      on the same reads, exhaustive for every GPU cell ladder, and seeded
#      (single-end E. coli; chr20 paired, where the GPU scans the windows,
#      with the default --completion all and with weak, and single-end);
#   2. several GPU engines on one device (--gpus 0,0 and 0,0,0) write the same
#      records as one GPU and as the CPU engine at several -t, and a failure
#      injected on one engine (--gpu-tune fail=...) fails the run with the
#      device named and no output left;
#   3. end-to-end throughput (reads/s, FASTQ to SAM) of both engines; chr20
#      pairs at scale through benchmarks/gpu_seeded_bench.sh.
# DATA is made by benchmarks/gpu_e2e_data.sh (lambda.fa, ecoli.fa (or .fa.gz), *.fq.gz,
# chr20.fa.gz, chr20.r[12].fq.gz);
# ./scanmap must be built (with htslib: on the device machine, carried
# shared libraries).  Prints a table; exits 1 if any comparison differs.
set -uo pipefail
data=${1:?usage: e2e.sh DATA OUT}
out=${2:?usage: e2e.sh DATA OUT}
threads=$(nproc)
mkdir -p "$out"
fail=0

now() { date +%s.%N; }
# run NAME ARGS...: maps, records seconds in $secs, output in $out/NAME.sam.
run() {
	local name=$1 t0 t1
	shift
	t0=$(now)
	./scanmap map -t "${run_threads:-$threads}" -o "$out/$name.sam" "$@" 2>"$out/$name.log" || {
		echo "FAIL $name: exit $? ($(tail -n 1 "$out/$name.log"))"
		fail=1
	}
	t1=$(now)
	secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
}
same() {  # same A B: both written, identical records
	if [[ -s $out/$1.sam && -s $out/$2.sam ]] &&
		cmp -s <(grep -v '^@PG' "$out/$1.sam") <(grep -v '^@PG' "$out/$2.sam"); then
		echo "ok   $1 == $2 ($(grep -vc '^@' "$out/$1.sam") records)"
	else
		echo "FAIL $1 != $2"
		fail=1
	fi
}

rows=()
for g in lambda ecoli; do
	ref=$data/$g.fa
	[[ -s $ref ]] || ref=$ref.gz   # gzipped to fit a device call's carry
	n_all=$(zcat "$data/$g.fq.gz" | awk 'END { print NR / 4 }')
	# Identity on a subset small enough for the CPU engine.
	n_sub=$([ $g = lambda ] && echo 20000 || echo 2000)
	zcat "$data/$g.fq.gz" | head -n $((4 * n_sub)) > "$out/$g.sub.fq"
	run "$g.cpu" --engine cpu --mode exhaustive "$ref" "$out/$g.sub.fq"
	rows+=("$g $n_sub cpu $secs")
	for cells in 16 32 8; do
		run "$g.gpu$cells" --engine gpu --mode exhaustive --cells "$cells" "$ref" "$out/$g.sub.fq"
		rows+=("$g $n_sub gpu-cells$cells $secs")
		same "$g.gpu$cells" "$g.cpu"
	done
	run "$g.cpu.seeded" --engine cpu --mode seeded "$ref" "$out/$g.sub.fq"
	run "$g.gpu.seeded" --engine gpu --mode seeded "$ref" "$out/$g.sub.fq"
	same "$g.gpu.seeded" "$g.cpu.seeded"
	# Reads as trimmers and FASTA give them (docs/cli.md, "Inputs"): every 7th
	# trimmed to nothing, every 3rd as a FASTA record.
	awk 'NR % 4 == 1 { h = $0 } NR % 4 == 2 { s = $0 } NR % 4 == 0 {
		k = NR / 4 - 1; q = $0; if (k % 7 == 0) s = q = ""
		if (k % 3 == 0) printf ">%s\n%s\n", substr(h, 2), s
		else printf "%s\n%s\n+\n%s\n", h, s, q }' "$out/$g.sub.fq" >"$out/$g.forms.fq"
	run "$g.cpu.forms" --engine cpu --mode exhaustive "$ref" "$out/$g.forms.fq"
	run "$g.gpu.forms" --engine gpu --mode exhaustive "$ref" "$out/$g.forms.fq"
	same "$g.gpu.forms" "$g.cpu.forms"
	# Throughput on every read (the default ladder).
	run "$g.gpu.all" --engine gpu --mode exhaustive "$ref" "$data/$g.fq.gz"
	rows+=("$g $n_all gpu $secs")
	grep -h 'reads/s' "$out/$g.gpu.all.log" | tail -n 1
done

# Human chromosome 20, paired-end, seeded (the index is built first, as a
# user would: 'scanmap map' then loads REF.smi).
if [[ -s $data/chr20.fa.gz ]]; then
	ref=$data/chr20.fa.gz
	./scanmap index "$ref" 2>"$out/chr20.index.log" || { echo "FAIL chr20 index"; fail=1; }
	tail -n 1 "$out/chr20.index.log"
	n_sub=5000
	for m in 1 2; do
		zcat "$data/chr20.r$m.fq.gz" | head -n $((4 * n_sub)) >"$out/chr20.sub.r$m.fq"
	done
	run chr20.cpu.pe --engine cpu --mode seeded "$ref" "$out/chr20.sub.r1.fq" "$out/chr20.sub.r2.fq"
	rows+=("chr20 $((2 * n_sub)) cpu-seeded-pe $secs")
	run chr20.gpu.pe --engine gpu --mode seeded "$ref" "$out/chr20.sub.r1.fq" "$out/chr20.sub.r2.fq"
	rows+=("chr20 $((2 * n_sub)) gpu-seeded-pe $secs")
	same chr20.gpu.pe chr20.cpu.pe
	# The runs above complete every unsure read (--completion all, the
	# default: its bounds and windows on the host, its scans on the engine);
	# weak caps their MAPQ instead, and reseeds reads below half a perfect
	# score.
	run chr20.cpu.weak --engine cpu --mode seeded --completion weak "$ref" \
		"$out/chr20.sub.r1.fq" "$out/chr20.sub.r2.fq"
	run chr20.gpu.weak --engine gpu --mode seeded --completion weak "$ref" \
		"$out/chr20.sub.r1.fq" "$out/chr20.sub.r2.fq"
	same chr20.gpu.weak chr20.cpu.weak
	# Single-end: a read's completion also rules out loci that tie it, and
	# the copies pass looks for ties left after the rounds (docs/seeded.md).
	cat "$out/chr20.sub.r1.fq" "$out/chr20.sub.r2.fq" >"$out/chr20.sub.se.fq"
	run chr20.cpu.se --engine cpu --mode seeded "$ref" "$out/chr20.sub.se.fq"
	run chr20.gpu.se --engine gpu --mode seeded "$ref" "$out/chr20.sub.se.fq"
	same chr20.gpu.se chr20.cpu.se
	# Pairs whose reads trimmers left empty (every 7th R1, every 5th R2) and
	# FASTA mates: the empty reads unmapped, their mates mapped on their own.
	for m in 1 2; do
		awk -v e=$((m == 1 ? 7 : 5)) 'NR % 4 == 1 { t = (NR - 1) / 4 % e == 0 }
			(NR % 4 == 2 || NR % 4 == 0) && t { $0 = "" } 1' "$out/chr20.sub.r$m.fq" >"$out/chr20.sub.t$m.fq"
	done
	awk 'NR % 4 == 1 { print ">" substr($0, 2) } NR % 4 == 2' "$out/chr20.sub.t2.fq" >"$out/chr20.sub.t2.fa"
	run chr20.cpu.forms --engine cpu --mode seeded "$ref" "$out/chr20.sub.t1.fq" "$out/chr20.sub.t2.fa"
	run chr20.gpu.forms --engine gpu --mode seeded "$ref" "$out/chr20.sub.t1.fq" "$out/chr20.sub.t2.fa"
	same chr20.gpu.forms chr20.cpu.forms
	# Several engines on one GPU: the scheduling changes which engine scores
	# which batch, never the records.
	for t in 1 3 "$threads"; do
		for gl in 1 0,0 0,0,0; do   # 1: a count, device 0 alone
			run_threads=$t run "chr20.gpus${gl//,/x}.t$t" --engine gpu --mode seeded --gpus "$gl" \
				"$ref" "$out/chr20.sub.r1.fq" "$out/chr20.sub.r2.fq"
			same "chr20.gpus${gl//,/x}.t$t" chr20.cpu.pe
		done
	done
	# A device failing mid-run (injected on engine 2's second call) fails the
	# run: non-zero exit, the device named, no partial SAM left.
	./scanmap map -t "$threads" --engine gpu --mode seeded --gpus 0,0 --gpu-tune fail=1:2 \
		-o "$out/chr20.fail.sam" "$ref" "$out/chr20.sub.r1.fq" "$out/chr20.sub.r2.fq" \
		2>"$out/chr20.fail.log"
	rc=$?
	if ((rc != 0)) && grep -q 'GPU 0 (engine 2 of 2) failed' "$out/chr20.fail.log" &&
		[[ ! -e $out/chr20.fail.sam ]]; then
		echo "ok   injected GPU failure: exit $rc, device named, no output"
	else
		echo "FAIL injected GPU failure: exit $rc, output $([[ -e $out/chr20.fail.sam ]] && echo left || echo removed)"
		tail -n 3 "$out/chr20.fail.log"
		fail=1
	fi
	# A device that is not there is an error that names it.
	if ! ./scanmap map --gpu 99 "$ref" "$out/chr20.sub.r1.fq" >/dev/null 2>"$out/chr20.nogpu.log" &&
		grep -q 'GPU 99 not present' "$out/chr20.nogpu.log"; then
		echo "ok   --gpu 99: $(grep -m1 'GPU 99' "$out/chr20.nogpu.log")"
	else
		echo "FAIL --gpu 99 was not refused with its ID"
		fail=1
	fi
fi
rm -f "$out"/*.sam "$out"/*.sub.fq "$out"/*.sub.r[12].fq "$out"/*.sub.se.fq "$out"/*.forms.fq "$out"/*.sub.t*

echo
echo "== end to end (FASTQ to SAM, 150 bp reads, -t $threads) =="
printf '%-7s %8s %-15s %8s %10s\n' genome reads engine seconds reads/s
for r in "${rows[@]}"; do
	set -- $r
	printf '%-7s %8s %-15s %8s %10.0f\n' "$1" "$2" "$3" "$4" "$(awk -v n="$2" -v s="$4" 'BEGIN { print n / s }')"
done
# Seeded chr20 pairs at scale, both engines (and bwa mem / minimap2 when on PATH).
if [[ -s $data/chr20.fa.gz ]]; then
	benchmarks/gpu_seeded_bench.sh "$data" "$out/chr20-bench" "$threads" | tail -n 7
	((PIPESTATUS[0] == 0)) || fail=1
fi
exit $fail
