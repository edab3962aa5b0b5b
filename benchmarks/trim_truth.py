#!/usr/bin/env python3
"""trim_truth.py — the truth of reads trimmed at their 3' end (fastp --cut_right), for
benchmarks/seeded_misses.sh -q.

    trim_truth.py TRUTH.tsv R1.fq [R2.fq] > TRIMMED_TRUTH.tsv

TRUTH.tsv (art_truth.py) holds each untrimmed read's origin and sequence; the FASTQ files are
the reads that trimming kept (one file: single-end, keys NAME/0; two: pairs, NAME/1 and NAME/2).
Each kept read's line is written with its sequence as trimmed and its origin shortened at the
read's 3' end: the + strand's right end, the - strand's left end (indels ignored; origin_score
looks 50 bases either side).  Exits naming the read when a kept read is not a prefix of its
untrimmed sequence (trimming must not touch the 5' end) or is not in the truth."""
import sys


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    truth = {}
    with open(sys.argv[1]) as f:
        for line in f:
            k, contig, start, end, strand, seq = line.rstrip("\n").split("\t")
            truth[k] = (contig, int(start), int(end), strand, seq)
    fastqs = sys.argv[2:]
    out = sys.stdout
    for mate, path in enumerate(fastqs, start=1 if len(fastqs) == 2 else 0):
        with open(path) as f:
            while True:
                head = f.readline()
                if not head:
                    break
                seq = f.readline().strip()
                f.readline()
                f.readline()
                key = "%s/%d" % (head[1:].split()[0], mate)
                if key not in truth:
                    sys.exit("trim_truth.py: %s: read %s is not in %s" % (path, key, sys.argv[1]))
                contig, start, end, strand, full = truth[key]
                if not full.startswith(seq):
                    sys.exit("trim_truth.py: %s: read %s is not a prefix of its untrimmed sequence"
                             % (path, key))
                if strand == "+":
                    end = min(end, start + len(seq) - 1)
                else:
                    start = max(start, end - len(seq) + 1)
                out.write("\t".join((key, contig, str(start), str(end), strand, seq)) + "\n")


if __name__ == "__main__":
    main()
