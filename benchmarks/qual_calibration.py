#!/usr/bin/env python3
"""qual_calibration.py — do a simulator's base qualities say how often a base is wrong?

    qual_calibration.py SAM [--reads N] [--min-count 1000]

From the primary records of SAM placed ungapped and unclipped (CIGAR nM) at MAPQ >= 30, the
first N of them (default 20,000): every base's quality Q against whether MD marks a mismatch
there.  On simulated reads mapped right, the mismatches are the sequencing errors (and the
donor's variants, few at 0.1%).  Prints, for each Q seen at least --min-count times: bases,
mismatches, the observed rate and 10^(-Q/10), the rate Q claims."""
import argparse
import collections
import re

MD = re.compile(r"(\d+)([A-Z]|\^[A-Z]+)?")


def mismatch_positions(md):
    """Read offsets of MD's mismatches (no deletions: the CIGAR is ungapped)."""
    pos, out = 0, set()
    for num, ref in MD.findall(md):
        pos += int(num)
        if ref:
            out.add(pos)
            pos += 1
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("sam")
    ap.add_argument("--reads", type=int, default=20000)
    ap.add_argument("--min-count", type=int, default=1000)
    a = ap.parse_args()
    bases, wrong = collections.Counter(), collections.Counter()
    n = 0
    with open(a.sam) as f:
        for line in f:
            if line.startswith("@"):
                continue
            t = line.rstrip("\n").split("\t")
            if int(t[1]) & 0x904 or int(t[4]) < 30 or not re.fullmatch(r"\d+M", t[5]):
                continue
            md = next((x[5:] for x in t[11:] if x.startswith("MD:Z:")), None)
            if md is None:
                continue
            miss = mismatch_positions(md)
            for i, c in enumerate(t[10]):
                q = ord(c) - 33
                bases[q] += 1
                wrong[q] += i in miss
            n += 1
            if n >= a.reads:
                break
    print("Q\tbases\tmismatches\tobserved\tclaimed")
    for q in sorted(bases):
        if bases[q] >= a.min_count:
            print(f"{q}\t{bases[q]}\t{wrong[q]}\t{wrong[q] / bases[q]:.5f}\t{10 ** (-q / 10):.5f}")


if __name__ == "__main__":
    main()
