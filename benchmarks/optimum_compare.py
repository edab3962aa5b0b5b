#!/usr/bin/env python3
"""optimum_compare.py — does a seeded run reach the exhaustive optimum, read by read?

    optimum_compare.py [-T 30] [-L 5,5] EXHAUSTIVE.sam SEEDED.sam

EXHAUSTIVE.sam: `scanmap map --mode exhaustive` on some reads (the GPU engine makes chr20
affordable: results/gpu-*.md); SEEDED.sam: any run over the same reads or more (only the reads
of EXHAUSTIVE.sam count; either file may be gzip). Each read's objective is that of its primary
record: AS plus the clipping bonus (-L) for each read end aligned, 0 when unmapped, as scanmap
maximizes it. Of the reads whose optimum reaches -T, prints how many the seeded run puts at it,
below it (those at MAPQ >= 20 apart) and above it, and the reads below by length (5-base bins)
and whether they are mapped. A seeded objective above the optimum is a bug in scanmap: exit
status 1 (another mapper's SAM may be compared too, but its AS is its own: bwa mem's runs a
point over scanmap's for some 58M alignments with one mismatch, so "above" there is no bug).

Trimmed NextSeq single reads (results/seeded.md, "Quality-trimmed reads"):
    scanmap map --mode exhaustive --engine gpu chr20.fa first20k.fq.gz > exh.sam    # GPU
    scanmap map -t 2 chr20.fa first20k.fq.gz > seeded.sam
    optimum_compare.py exh.sam seeded.sam
"""
import argparse
import collections
import re
import sys

import sam_records

CLIPPED_START = re.compile(r"^\d+[SH]")
CLIPPED_END = re.compile(r"\d+[SH]$")


def primaries(path, bonus5, bonus3):
    """name -> (objective, MAPQ, read length) of each primary record."""
    out = {}
    for t, flag in sam_records.primaries(path):
        obj = 0
        if not flag & 4:
            for tag in t[11:]:
                if tag.startswith("AS:i:"):
                    obj = int(tag[5:])
            obj += (0 if CLIPPED_START.match(t[5]) else bonus5) + \
                   (0 if CLIPPED_END.search(t[5]) else bonus3)
        out[t[0]] = (obj, int(t[4]), len(t[9]) if t[9] != "*" else 0, bool(flag & 4))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-T", type=int, default=30, help="the -T of both runs [30]")
    ap.add_argument("-L", default="5,5", help="the -L of both runs [5,5]")
    ap.add_argument("exhaustive")
    ap.add_argument("seeded")
    a = ap.parse_args()
    b5, _, b3 = a.L.partition(",")
    b5 = int(b5)
    b3 = int(b3) if b3 else b5
    exh = primaries(a.exhaustive, b5, b3)
    sd = primaries(a.seeded, b5, b3)
    missing = [r for r in exh if r not in sd]
    if missing:
        sys.exit(f"optimum_compare: {len(missing)} reads of {a.exhaustive} not in {a.seeded} "
                 f"(first: {missing[0]})")
    n = at = below = below20 = above = 0
    shapes = collections.Counter()
    for name, (opt, _, _, _) in exh.items():
        if opt < a.T:
            continue
        n += 1
        obj, mapq, length, unmapped = sd[name]
        if obj == opt:
            at += 1
        elif obj < opt:
            below += 1
            below20 += mapq >= 20
            shapes[(length // 5 * 5, "unmapped" if unmapped else "mapped")] += 1
        else:
            above += 1
    share = 100.0 * at / n if n else 0.0
    print(f"{n} reads with an optimum reaching -T {a.T}: at the optimum {at} ({share:.3f}%), "
          f"below {below} ({below20} at MAPQ >= 20), above {above}")
    for (length, kind), k in sorted(shapes.items()):
        print(f"  below: {k} {kind} reads of {length}-{length + 4} bases")
    return 1 if above else 0


if __name__ == "__main__":
    sys.exit(main())
