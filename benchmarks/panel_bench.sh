#!/usr/bin/env bash
# panel_bench.sh — exhaustive mapping against an amplicon panel: many short contigs, each behind
# the GPU layout's separator (results/small-ref.md, "Amplicon panels").
#
#   benchmarks/panel_bench.sh make DIR
#       here (needs art_illumina, python3, benchmarks/genomes.sh's chr20): DIR/panel.fa, 2,000
#       contigs of 200 bp cut from chr20 at fixed random places (none with an N), and
#       DIR/reads.fq.gz, 50 ART HS25 150 bp reads from each (100,000, seed 7, BGZF if bgzip is
#       on PATH)
#   benchmarks/panel_bench.sh map DIR ROUNDS LABEL=SCANMAP[:OPTIONS] ...
#       on the GPU machine (sources gpu_env.sh for the carried htslib): maps DIR's reads with
#       each binary in turn, ROUNDS times, `map -t 16 --mode exhaustive --engine gpu OPTIONS`
#       (OPTIONS: comma-separated, e.g. --max-read-len,150); one line per run: label, round,
#       wall ms, reads/s, the md5 of the records (all but @PG: equal across binaries when the
#       output is), scanmap's summed kernel seconds.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cmd=${1:?usage: panel_bench.sh make DIR | map DIR ROUNDS LABEL=SCANMAP[:OPTIONS]...}
dir=${2:?usage: panel_bench.sh make DIR | map DIR ROUNDS LABEL=SCANMAP[:OPTIONS]...}
case $cmd in
make)
	mkdir -p "$dir"
	CHR20=1 "$here/genomes.sh" "$dir"
	python3 - "$dir/chr20.fa" "$dir/panel.fa" <<'EOF'
import random, sys
random.seed(5)
seq = ''.join(l.strip() for l in open(sys.argv[1]) if not l.startswith('>')).upper()
with open(sys.argv[2], 'w') as out:
    n = 0
    while n < 2000:
        p = random.randrange(0, len(seq) - 200)
        if 'N' not in seq[p:p + 200]:
            out.write('>amp%d\n%s\n' % (n, seq[p:p + 200]))
            n += 1
EOF
	art_illumina -ss HS25 -l 150 -c 50 -rs 7 -i "$dir/panel.fa" -o "$dir/art" -na -q >/dev/null
	if command -v bgzip >/dev/null; then bgzip -l 1 -c "$dir/art.fq"; else gzip -1 -c "$dir/art.fq"; fi \
		>"$dir/reads.fq.gz"
	rm -f "$dir/art.fq"
	;;
map)
	rounds=${3:?usage: panel_bench.sh map DIR ROUNDS LABEL=SCANMAP[:OPTIONS]...}
	shift 3
	. "$here/gpu_env.sh"
	reads=$(zcat "$dir/reads.fq.gz" | awk 'END { print NR / 4 }')
	for ((round = 1; round <= rounds; round++)); do
		for spec in "$@"; do
			label=${spec%%=*} bin=${spec#*=} opts=
			[[ $bin == *:* ]] && opts=${bin#*:} bin=${bin%%:*}
			s=$(date +%s%N)
			"$bin" map -v 4 -t 16 --mode exhaustive --engine gpu ${opts//,/ } -o "$dir/$label.sam" \
				"$dir/panel.fa" "$dir/reads.fq.gz" 2>"$dir/$label.log"
			e=$(date +%s%N)
			echo "$label $round $(((e - s) / 1000000)) ms $((reads * 1000000000 / (e - s))) reads/s" \
				"$(grep -v '^@PG' "$dir/$label.sam" | md5sum | cut -c1-12)" \
				"$(grep -o 'kernels [0-9.]*' "$dir/$label.log")"
		done
	done
	;;
*)
	echo "usage: panel_bench.sh make DIR | map DIR ROUNDS LABEL=SCANMAP[:OPTIONS]..." >&2
	exit 1
	;;
esac
