#!/usr/bin/env python3
"""polyg_eval.py — polyg_sim.py's reads as a mapper placed them.

    polyg_eval.py TRUTH.tsv LABEL SAM

A primary record is correct on the fragment's strand with POS within 20 of
its start. Prints LABEL, reads, at MAPQ >= 20, wrong at MAPQ >= 20, correct at
MAPQ >= 10, unmapped."""
import sys


def main():
    truth = {}
    for line in open(sys.argv[1]):
        name, start, _, strand, _ = line.split()
        truth[name] = (int(start), strand == "-")
    label, sam = sys.argv[2], sys.argv[3]
    reads = q20 = wrong20 = right10 = unmapped = 0
    for line in open(sam):
        if line[0] == "@":
            continue
        f = line.split("\t", 6)
        flag = int(f[1])
        if flag & 0x900:
            continue
        reads += 1
        if flag & 4:
            unmapped += 1
            continue
        start, rev = truth[f[0].rsplit("-", 1)[0]]
        ok = abs(int(f[3]) - start) <= 20 and bool(flag & 16) == rev
        q = int(f[4])
        q20 += q >= 20
        wrong20 += q >= 20 and not ok
        right10 += q >= 10 and ok
    print(f"{label}\t{reads}\t{q20}\t{wrong20}\t{right10}\t{unmapped}")


if __name__ == "__main__":
    main()
