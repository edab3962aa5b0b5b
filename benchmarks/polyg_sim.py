#!/usr/bin/env python3
"""polyg_sim.py — single reads that end in poly-G (benchmarks/polyg_tails.sh).

    polyg_sim.py REF.fa N SEED LO HI OUTDIR

Draws N fragments of 150 - t bases from REF's first contig (uppercased; a
fragment holding an N is drawn again), t uniform in LO..HI, on either strand,
each followed by 200 G: what a two-colour instrument (NextSeq, NovaSeq) reads
past a fragment's end where there is no signal. Writes OUTDIR/amp.fa, for
art_illumina's amplicon mode to read 150 bases from, and OUTDIR/truth.tsv:
name, start (1-based), fragment length, strand, tail length."""
import random
import sys


def main():
    ref, n, seed, lo, hi, out = sys.argv[1:7]
    n, lo, hi = int(n), int(lo), int(hi)
    random.seed(int(seed))
    seq, started = [], False
    for line in open(ref):
        if line.startswith(">"):
            if started:
                break
            started = True
            continue
        seq.append(line.strip().upper())
    s = "".join(seq)
    comp = str.maketrans("ACGT", "TGCA")
    with open(f"{out}/amp.fa", "w") as fa, open(f"{out}/truth.tsv", "w") as tr:
        made = 0
        while made < n:
            t = random.randint(lo, hi)
            g = 150 - t
            p = random.randrange(len(s) - g)
            frag = s[p:p + g]
            if "N" in frag:
                continue
            strand = "+"
            if random.random() < 0.5:
                frag = frag.translate(comp)[::-1]
                strand = "-"
            fa.write(f">r{made}\n{frag}{'G' * 200}\n")
            tr.write(f"r{made}\t{p + 1}\t{g}\t{strand}\t{t}\n")
            made += 1


if __name__ == "__main__":
    main()
