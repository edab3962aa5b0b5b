#!/usr/bin/env python3
"""hic_like.py — Hi-C-like pairs from simulated pairs with known origins, and
how each mapper's primaries land (benchmarks/hic_bench.sh runs both steps).

  hic_like.py make PE1.fq PE2.fq N OUT1.fq OUT2.fq
      Pair i: R1 is read i of PE1, R2 read i + 1 of PE2 (partners far apart,
      as a Hi-C library's are).  Every even R1 is a ligation chimera: its first
      a bases (35 <= a <= 115, fixed seed) from read i of PE1, the rest from
      read 7i + 3 of PE2 (the same positions).  Reads are named h<i>.

  hic_like.py eval PE1.fq PE2.fq N TRUTH.tsv SAM...
      Per SAM (each mapper's, run with -5SP): a primary is right when it lies
      where its read's first bases came from (within 30 bp of the origin's
      5' end on the read's strand; TRUTH.tsv of benchmarks/art_truth.py,
      keyed by PE1's and PE2's names).  Prints right and wrong primaries of
      chimeric R1s and of whole reads, right at MAPQ >= 10, wrong at MAPQ >= 20,
      supplementary and proper-pair records.
"""
import random
import sys

import seeded_eval as se
from art_truth import fastq


def make(pe1, pe2, n, out1, out2):
    r1 = [r for _, r in zip(range(n), fastq(pe1))]
    r2 = [r for _, r in zip(range(n), fastq(pe2))]
    if len(r1) < n or len(r2) < n:
        sys.exit("hic_like.py: fewer than %d pairs in %s, %s" % (n, pe1, pe2))
    rng = random.Random(11)
    with open(out1, "w") as o1, open(out2, "w") as o2:
        for i in range(n):
            _, s, q = r1[i]
            if i % 2 == 0:
                _, t, u = r2[(7 * i + 3) % n]
                a = rng.randint(35, 115)
                s, q = s[:a] + t[a:], q[:a] + u[a:]
            _, t, u = r2[(i + 1) % n]
            o1.write("@h%d\n%s\n+\n%s\n" % (i, s, q))
            o2.write("@h%d\n%s\n+\n%s\n" % (i, t, u))


def evaluate(pe1, pe2, n, truth_path, sams):
    truth = se.read_truth(truth_path)
    n1 = [name for _, (name, _, _) in zip(range(n), fastq(pe1))]
    n2 = [name for _, (name, _, _) in zip(range(n), fastq(pe2))]
    print("| SAM | chimeric R1: right / wrong | whole reads: right / wrong | right at MAPQ >= 10 "
          "| wrong at MAPQ >= 20 | supplementary | proper |")
    print("|---|---|---|---|---|---|---|")
    for sam in sams:
        c = dict.fromkeys(("chim1", "chim0", "whole1", "whole0", "q10", "q20", "supp", "proper"), 0)
        with open(sam) as f:
            for line in f:
                if line[0] == "@":
                    continue
                t = line.rstrip("\n").split("\t")
                flag = int(t[1])
                c["supp"] += bool(flag & 0x800)
                c["proper"] += bool(flag & 0x2)
                if flag & 0x904:
                    continue
                i = int(t[0][1:])
                key = n1[i] + "/1" if flag & 0x40 else n2[(i + 1) % n] + "/2"
                contig, start, end, _ = truth[key]
                if flag & 0x10:   # the read's first base is the alignment's last
                    right = t[2] == contig and abs(int(t[3]) + se.ref_span(t[5]) - 1 - end) <= 30
                else:
                    right = t[2] == contig and abs(int(t[3]) - start) <= 30
                kind = "chim" if flag & 0x40 and i % 2 == 0 else "whole"
                c[kind + str(int(right))] += 1
                c["q10"] += right and int(t[4]) >= 10
                c["q20"] += (not right) and int(t[4]) >= 20
        print("| %s | %d / %d | %d / %d | %d | %d | %d | %d |" % (
            sam, c["chim1"], c["chim0"], c["whole1"], c["whole0"], c["q10"], c["q20"],
            c["supp"], c["proper"]))


if __name__ == "__main__":
    if len(sys.argv) == 7 and sys.argv[1] == "make":
        make(sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5], sys.argv[6])
    elif len(sys.argv) >= 7 and sys.argv[1] == "eval":
        evaluate(sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5], sys.argv[6:])
    else:
        sys.exit(__doc__)
