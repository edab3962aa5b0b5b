#!/usr/bin/env bash
# catalogue.sh — the bad-input catalogue of docs/reliability.md, checked:
# every case (damaged FASTQ, FASTA, gzip and index files, outputs that are
# inputs, hostile options) must end as the table says, with a message and
# no file left under the -o name.  tests/reliability/catalogue.sh without
# --check also rewrites the table.
cd "$(dirname "$0")/../.." || exit 1
[[ -x ./scanmap ]] || { echo "skip: ./scanmap is not built (run make)"; exit 77; }
exec bash tests/reliability/catalogue.sh --check
