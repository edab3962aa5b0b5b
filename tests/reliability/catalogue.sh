#!/usr/bin/env bash
# catalogue.sh — the bad-input catalogue of docs/reliability.md.
#
#   tests/reliability/catalogue.sh            runs every case, checks it and
#                                              rewrites the table in
#                                              docs/reliability.md
#   tests/reliability/catalogue.sh --check    runs and checks only (the test
#                                              suite's tests/cli/catalogue.sh)
#
# Each case is a damaged input or a hostile command line with the outcome it
# must have: "ok" (exit 0) or "error" (a non-zero exit, one message naming
# the file or option at fault, no sanitizer report, and no file left under
# the -o name).  Exits 1 if any case's outcome differs.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
root=$PWD
SCANMAP=${SCANMAP:-$root/scanmap}
mode=${1:-write}
doc=docs/reliability.md
tmp=$(mktemp -d "${TMPDIR:-/tmp}/scanmap-catalogue.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1

# Inputs: a 3 kbp reference of two contigs and reads taken from it.
seq_of() { awk -v n="$1" -v s="$2" 'BEGIN {srand(s); for (i = 0; i < n; i++) printf "%s", substr("ACGT", int(rand() * 4) + 1, 1); print ""}'; }
# N bytes of 1..255 from seed S by a fixed generator (the same bytes on any
# machine, so the table's message for them does not change from run to run).
random_bytes() {
	local n=$1 x=$2 i h s=

	for ((i = 0; i < n; i++)); do
		x=$(((x * 1103515245 + 12345) & 0x7fffffff))
		printf -v h '\\x%02x' $(((x >> 16) % 255 + 1))
		s+=$h
	done
	printf '%b' "$s"
}
c1=$(seq_of 2000 1)
c2=$(seq_of 1000 2)
printf '>c1\n%s\n>c2\n%s\n' "$c1" "$c2" >ref.fa
q=$(printf 'I%.0s' $(seq 100))
fq() { printf '@%s\n%s\n+\n%s\n' "$1" "$2" "${3:-${q:0:${#2}}}"; }
for k in 1 2 3 4 5 6 7 8; do fq "r$k" "${c1:$((k * 100)):100}"; done >reads.fq
for k in 1 2 3 4 5 6 7 8; do fq "r$k" "${c1:$((k * 100 + 300)):100}"; done >mates.fq
gzip -c reads.fq >reads.fq.gz

n_bad=0
rows=()
# case NAME WANT CMD...: runs CMD (out.sam is the -o target where one is
# given), checks the outcome, records a table row.
case_() {
	local name=$1 want=$2 status got msg
	shift 2
	rm -f out.sam
	"$@" >stdout.txt 2>stderr.txt
	status=$?
	msg=$(grep -m 1 'error' stderr.txt | tr '\t' ' ' | sed 's/^\[scanmap\] error: //; s/|/\\|/g' | cut -c 1-200)
	if ((status == 0)); then got=ok; else got=error; fi
	if grep -qE 'AddressSanitizer|runtime error:|Segmentation' stderr.txt || ((status > 128)) ||
		[[ $got != "$want" ]] || { [[ $got == error ]] && { [[ -z $msg ]] || [[ -e out.sam ]]; }; }; then
		echo "MISMATCH $name: want $want, got exit $status: $(head -c 300 stderr.txt)"
		n_bad=$((n_bad + 1))
		got="**$got (want $want)**"
	fi
	rows+=("| $name | $got (exit $status) | ${msg:-} |")
}
map() { "$SCANMAP" map -v 1 "$@"; }

# FASTQ
case_ "FASTQ: good input" ok map -o out.sam ref.fa reads.fq
case_ "FASTQ: empty file" ok map -o out.sam ref.fa /dev/null
printf '@r1\nACGT\nIIII\n' >x1.fq;               case_ "FASTQ: missing '+' line" error map -o out.sam ref.fa x1.fq
printf '@r1\nACGT\n+\nIII\n' >x2.fq;             case_ "FASTQ: QUAL shorter than SEQ" error map -o out.sam ref.fa x2.fq
printf '@r1\nACGT\n+\nIIIII\n' >x3.fq;           case_ "FASTQ: QUAL longer than SEQ" error map -o out.sam ref.fa x3.fq
printf '@r1\nAC#T\n+\nIIII\n' >x4.fq;            case_ "FASTQ: bad SEQ character" error map -o out.sam ref.fa x4.fq
printf '@r1\nACGT\n+\nII\001I\n' >x5.fq;         case_ "FASTQ: control character in QUAL" error map -o out.sam ref.fa x5.fq
printf '@\nACGT\n+\nIIII\n' >x6.fq;              case_ "FASTQ: empty read name" error map -o out.sam ref.fa x6.fq
printf '@*\nACGT\n+\nIIII\n' >x7.fq;             case_ "FASTQ: read named '*'" error map -o out.sam ref.fa x7.fq
printf '@%s\nACGT\n+\nIIII\n' "$(printf 'n%.0s' $(seq 300))" >x8.fq
case_ "FASTQ: read name over 254 characters" error map -o out.sam ref.fa x8.fq
printf '@r1\n\n+\n\n' >x9.fq;                    case_ "FASTQ: zero-length read (written unmapped)" ok map -o out.sam ref.fa x9.fq
printf '>r1\n%s\n%s\n' "${c1:100:60}" "${c1:160:40}" >x9a.fa
case_ "FASTA reads (no qualities)" ok map -o out.sam ref.fa x9a.fa
printf '@r1\n\n+\nI\n' >x9b.fq;                 case_ "FASTQ: zero-length read with a quality" error map -o out.sam ref.fa x9b.fq
printf '@r1\rACGT\r+\rIIII\r' >x10.fq;           case_ "FASTQ: CR-only line endings" error map -o out.sam ref.fa x10.fq
fq r1 "${c1:100:100}" | sed 's/$/\r/' >x11.fq;   case_ "FASTQ: CRLF line endings" ok map -o out.sam ref.fa x11.fq
head -c 150 reads.fq >x12.fq;                    case_ "FASTQ: file cut inside a record" error map -o out.sam ref.fa x12.fq
head -c 100 reads.fq.gz >x13.fq.gz;              case_ "FASTQ: gzip file cut short" error map -o out.sam ref.fa x13.fq.gz
{ cat reads.fq.gz; fq extra "${c1:50:100}"; } >x14.fq.gz
case_ "FASTQ: plain text after a gzip member" error map -o out.sam ref.fa x14.fq.gz
{ cat reads.fq.gz; head -c 64 /dev/zero; } >x15.fq.gz
case_ "FASTQ: zero padding after a gzip member" error map -o out.sam ref.fa x15.fq.gz
{ cat reads.fq.gz reads.fq.gz; } >x16.fq.gz;     case_ "FASTQ: two gzip members" ok map -o out.sam ref.fa x16.fq.gz
cp reads.fq.gz x17.fq.gz; printf '\xff' | dd of=x17.fq.gz bs=1 seek=40 conv=notrunc 2>/dev/null
case_ "FASTQ: corrupt gzip data" error map -o out.sam ref.fa x17.fq.gz
case_ "FASTQ: gzip through zlib, plain text after it" error map --inflate zlib -o out.sam ref.fa x14.fq.gz
printf '@r1\nAC\0T\n+\nIIII\n' >x18.fq;          case_ "FASTQ: NUL byte in SEQ" error map -o out.sam ref.fa x18.fq
random_bytes 2000 19 >x19.fq;               case_ "FASTQ: random binary" error map -o out.sam ref.fa x19.fq
case_ "FASTQ: a directory" error map -o out.sam ref.fa .
case_ "FASTQ: missing file" error map -o out.sam ref.fa missing.fq
fq long "$(seq_of 1500 3)" "$(printf 'I%.0s' $(seq 1500))" >x20.fq;              case_ "FASTQ: read over --max-read-len" error map -o out.sam ref.fa x20.fq
# Pairs
head -n 28 mates.fq >m1.fq;                      case_ "pairs: mates file one read short" error map -o out.sam ref.fa reads.fq m1.fq
sed '1s/r1/other/' mates.fq >m2.fq;              case_ "pairs: mate names differ" error map -o out.sam ref.fa reads.fq m2.fq
case_ "pairs: good pairs" ok map -o out.sam ref.fa reads.fq mates.fq
# FASTA
printf 'ACGT\n' >f1.fa;                          case_ "FASTA: no header line" error map -o out.sam f1.fa reads.fq
printf '>a\nACGT\n>a\nACGT\n' >f2.fa;            case_ "FASTA: duplicate contig names" error map -o out.sam f2.fa reads.fq
printf '>a\n>b\nACGT\n' >f3.fa;                  case_ "FASTA: empty contig" error map -o out.sam f3.fa reads.fq
printf '>a\nAC1T\n' >f4.fa;                      case_ "FASTA: bad sequence letter" error map -o out.sam f4.fa reads.fq
case_ "FASTA: empty file" error map -o out.sam /dev/null reads.fq
printf '>c1\r%s\r' "$c1" >f5.fa;                 case_ "FASTA: CR-only line endings" error map -o out.sam f5.fa reads.fq
{ gzip -c ref.fa; echo '>tail'; echo ACGT; } >f6.fa.gz
case_ "FASTA: plain text after a gzip member" error map -o out.sam f6.fa.gz reads.fq
# Index
"$SCANMAP" index -v 0 ref.fa
cp ref.fa.smi good.smi
case_ "index: good index, seeded mode" ok map --mode seeded -o out.sam ref.fa reads.fq
head -c 200 good.smi >ref.fa.smi;                case_ "index: truncated" error map --mode seeded -o out.sam ref.fa reads.fq
cp good.smi ref.fa.smi; printf '\x0e' | dd of=ref.fa.smi bs=1 seek=6 conv=notrunc 2>/dev/null
case_ "index: one bit of k flipped" error map --mode seeded -o out.sam ref.fa reads.fq
cp good.smi ref.fa.smi; printf '\x01' | dd of=ref.fa.smi bs=1 seek=$(( $(stat -c %s good.smi) - 100 )) conv=notrunc 2>/dev/null
case_ "index: one position byte changed" error map --mode seeded -o out.sam ref.fa reads.fq
{ printf 'SMIDX\001'; tail -c +7 good.smi; } >ref.fa.smi
case_ "index: version 1 (no checksum)" error map --mode seeded -o out.sam ref.fa reads.fq
{ printf 'SMIDX\002'; tail -c +7 good.smi; } >ref.fa.smi
case_ "index: version 2 (no reference)" error map --mode seeded -o out.sam ref.fa reads.fq
{ printf 'SMIDX\003'; tail -c +7 good.smi; } >ref.fa.smi
case_ "index: version 3 (older checksums)" error map --mode seeded -o out.sam ref.fa reads.fq
cp good.smi ref.fa.smi; cp -p ref.fa ref.fa.keep; printf '>c3\nACGT\n' >>ref.fa
case_ "index: FASTA changed since (stale)" error map --mode seeded -o out.sam ref.fa reads.fq
mv ref.fa.keep ref.fa
printf 'hello\n' >ref.fa.smi;                    case_ "index: not an index" error map --mode seeded -o out.sam ref.fa reads.fq
printf '>o\n%s\n' "$(seq_of 3000 9)" >other.fa; "$SCANMAP" index -v 0 -o ref.fa.smi other.fa
case_ "index: built from another reference" error map --mode seeded -o out.sam ref.fa reads.fq
cp good.smi ref.fa.smi
# Outputs that are inputs
cp reads.fq keep.fq; ln -f keep.fq hard.fq; ln -sf keep.fq soft.fq
case_ "-o the reads file" error map -o keep.fq ref.fa keep.fq
case_ "-o a hard link to the reads" error map -o hard.fq ref.fa keep.fq
case_ "-o a symbolic link to the reads" error map -o soft.fq ref.fa keep.fq
case_ "-o the reference" error map -o ref.fa ref.fa reads.fq
case_ "-o the mates file" error map -o mates.fq ref.fa reads.fq mates.fq
case_ "-o the index REF.smi" error map -o ref.fa.smi ref.fa reads.fq
case_ "index -o the reference" error "$SCANMAP" index -v 1 -o ref.fa ref.fa
cmp -s reads.fq keep.fq && grep -q '^>c1' ref.fa && cmp -s good.smi ref.fa.smi ||
	{ echo "MISMATCH an input was changed"; n_bad=$((n_bad + 1)); }
# Options and outputs
case_ "-o in a missing folder" error map -o no/such/out.sam ref.fa reads.fq
case_ "-o /dev/full (disk full)" error map -o /dev/full ref.fa reads.fq
case_ "-R without ID" error map -R '@RG\tSM:x' -o out.sam ref.fa reads.fq
case_ "-R with a newline" error map -R "$(printf '@RG\tID:a\nSM:b')" -o out.sam ref.fa reads.fq
case_ "--max-read-len 100000" error map --max-read-len 100000 -o out.sam ref.fa reads.fq
case_ "-t 0" error map -t 0 -o out.sam ref.fa reads.fq
case_ "--compression-level 10" error map --compression-level 10 -o out.bam ref.fa reads.fq

table=$(
	echo "| case | outcome | message |"
	echo "|---|---|---|"
	printf '%s\n' "${rows[@]}"
)
echo "${#rows[@]} cases, $n_bad not as expected"
cd "$root" || exit 1
if [[ $mode != --check ]]; then
	TABLE=$table awk '
		/<!-- catalogue:begin -->/ {print; print ENVIRON["TABLE"]; skip = 1; next}
		/<!-- catalogue:end -->/ {skip = 0}
		!skip {print}' "$doc" >"$doc.new" && mv "$doc.new" "$doc"
	echo "table written to $doc"
fi
((n_bad == 0))
