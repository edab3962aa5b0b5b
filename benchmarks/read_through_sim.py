#!/usr/bin/env python3
"""read_through_sim.py — fragments for pairs that read through into adapter
(benchmarks/read_through.sh).

    read_through_sim.py REF.fa N MEAN SD SEED ADAPTERS OUTDIR [TAIL]

Draws N fragments from REF (plain FASTA, uppercased; fragments holding an N
are drawn again) with lengths from a normal distribution (MEAN, SD; at least
MIN_FRAGMENT), on either strand, and writes what art_illumina's amplicon mode
reads from the 5' end of each sequence:

    OUTDIR/amp1.fa   fragment + adapter 1 + poly-A   (read 1's molecule)
    OUTDIR/amp2.fa   revcomp(fragment) + adapter 2 + poly-A   (read 2's)
    OUTDIR/truth.tsv name, contig, start (1-based), length, strand of read 1

ADAPTERS: truseq (AGATCGGAAGAGC... on both, Illumina TruSeq) or nextera
(CTGTCTCTTATACACATCT... on both). The poly-A stands for what an Illumina
instrument reads past the adapter (the flow cell's oligos and then nothing),
so that every amplicon is at least as long as a read; TAIL G makes it poly-G,
what a two-colour instrument (NextSeq, NovaSeq) reads where there is no
signal."""
import random
import sys

ADAPTERS = {
    "truseq": ("AGATCGGAAGAGCACACGTCTGAACTCCAGTCACATCACGATCTCGTATGCCGTCTTCTGCTTG",
               "AGATCGGAAGAGCGTCGTGTAGGGAAAGAGTGTAGATCTCGGTGGTCGCCGTATCATT"),
    "nextera": ("CTGTCTCTTATACACATCTCCGAGCCCACGAGACTAAGGCGAATCTCGTATGCCGTCTTCTGCTTG",
                "CTGTCTCTTATACACATCTGACGCTGCCGACGAGCGATCTAGTGTAGATCTCGGTGGTCGCCGTATCATT"),
}
MIN_FRAGMENT = 20
TAIL = "A" * 300
COMP = str.maketrans("ACGTN", "TGCAN")


def read_fasta(path):
    names, seqs, cur = [], [], []
    for line in open(path):
        if line.startswith(">"):
            if names:
                seqs.append("".join(cur).upper())
            names.append(line[1:].split()[0])
            cur = []
        else:
            cur.append(line.strip())
    seqs.append("".join(cur).upper())
    return names, seqs


def main():
    ref, n, mean, sd, seed, adapters, out = sys.argv[1:8]
    tail = (sys.argv[8] if len(sys.argv) > 8 else "A") * len(TAIL)
    n, mean, sd = int(n), float(mean), float(sd)
    rng = random.Random(int(seed))
    a1, a2 = ADAPTERS[adapters]
    names, seqs = read_fasta(ref)
    weights = [len(s) for s in seqs]
    with open(f"{out}/amp1.fa", "w") as f1, open(f"{out}/amp2.fa", "w") as f2, \
            open(f"{out}/truth.tsv", "w") as tr:
        made = 0
        while made < n:
            c = rng.choices(range(len(seqs)), weights)[0]
            length = max(MIN_FRAGMENT, int(round(rng.gauss(mean, sd))))
            if length >= len(seqs[c]):
                continue
            start = rng.randrange(len(seqs[c]) - length)
            frag = seqs[c][start:start + length]
            if "N" in frag:
                continue
            rev = rng.randrange(2)
            fwd = frag.translate(COMP)[::-1] if rev else frag
            name = f"f{made}"
            f1.write(f">{name}\n{fwd}{a1}{tail}\n")
            f2.write(f">{name}\n{fwd.translate(COMP)[::-1]}{a2}{tail}\n")
            tr.write(f"{name}\t{names[c]}\t{start + 1}\t{length}\t{'-' if rev else '+'}\n")
            made += 1


if __name__ == "__main__":
    main()
