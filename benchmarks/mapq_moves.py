#!/usr/bin/env python3
"""mapq_moves.py — how a change moved reads between MAPQ bins: the primary records of the same
reads mapped twice (before, after), each judged right or wrong against its simulated origin.

    mapq_moves.py [--truth TRUTH.tsv] [--lowered-from Q] BEFORE.sam AFTER.sam

With --truth (art_truth.py's table, benchmarks/seeded_misses.sh sets) a record is right as
benchmarks/seeded_eval.py judges it; without, the reads are dwgsim's and a record is right as
benchmarks/accuracy_eval.py judges it (within 20 bp of the origin).  Prints one line per move,
"BEFORE -> AFTER count", a bin being R (right) or W (wrong) and the MAPQ range (0, 1-9, 10-19,
20+), for every read whose place or MAPQ changed; then each read wrong at MAPQ >= 20 on either
side, with both records' RNAME, POS, MAPQ and CIGAR; then the reads left in place with a lower
MAPQ (one of Q or more before, with --lowered-from): how many, how many of them wrong, and the
error rate their MAPQs claim (10^(-MAPQ/10) averaged) before and after."""
import argparse
import collections
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import accuracy_eval  # noqa: E402
import sam_records  # noqa: E402
import seeded_eval  # noqa: E402


def mapq_bin(q):
    return "0" if q == 0 else "1-9" if q < 10 else "10-19" if q < 20 else "20+"


def art_records(sam, truth):
    """key -> (fields, right) for the primary records of SAM, judged against the ART truth."""
    return {k: (t, seeded_eval.at_origin(t, f, truth[k]))
            for k, t, f in seeded_eval.primary_records(sam, truth, "mapq_moves.py")}


def dwgsim_records(sam):
    """key -> (fields, right or None for a read without an origin) for dwgsim reads."""
    out = {}
    for t, flag in sam_records.primaries(sam):
        origin = accuracy_eval.truth_of(t[0], flag)
        right = None
        if origin is not None and not flag & 4:
            right = accuracy_eval.placed_right(t, origin)
        out[t[0] + ("/1" if flag & 64 else "/2" if flag & 128 else "/0")] = (t, right)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--truth")
    ap.add_argument("--lowered-from", type=int, default=0)
    ap.add_argument("before")
    ap.add_argument("after")
    a = ap.parse_args()
    if a.truth:
        truth = seeded_eval.read_truth(a.truth)
        before, after = art_records(a.before, truth), art_records(a.after, truth)
    else:
        before, after = dwgsim_records(a.before), dwgsim_records(a.after)
    moves = collections.Counter()
    wrong = []
    lowered = [0, 0, 0.0, 0.0]   # reads, wrong, claimed before, claimed after (summed)
    for k, (tb, rb) in before.items():
        ta, ra = after[k]
        if tb[2:6] == ta[2:6] or rb is None:
            continue
        qb, qa = int(tb[4]), int(ta[4])
        if tb[2:4] == ta[2:4] and a.lowered_from <= qb and qa < qb:
            lowered[0] += 1
            lowered[1] += not ra
            lowered[2] += 10 ** (-qb / 10)
            lowered[3] += 10 ** (-qa / 10)
        moves[(("R" if rb else "W") + mapq_bin(qb), ("R" if ra else "W") + mapq_bin(qa))] += 1
        if (not rb and qb >= 20) or (not ra and qa >= 20):
            wrong.append((k, tb[2:6], ta[2:6]))
    for (b, f), n in sorted(moves.items()):
        print(f"{b} -> {f} {n}")
    for k, tb, ta in wrong:
        print(f"wrong at MAPQ >= 20: {k} {' '.join(tb)} -> {' '.join(ta)}")
    n = lowered[0]
    if n:
        print(f"lowered in place: {n} reads, {lowered[1]} wrong ({100 * lowered[1] / n:.2f}%), "
              f"MAPQs claimed {100 * lowered[2] / n:.3f}% before, {100 * lowered[3] / n:.3f}% after")


if __name__ == "__main__":
    main()
