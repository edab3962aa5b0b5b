#!/usr/bin/env python3
"""mapq_eval.py — does MAPQ say how often a read is misplaced? Each mapper's MAPQ against the
error rate observed on simulated reads with a known origin (benchmarks/seeded_misses.sh sets).

    mapq_eval.py [-o OUT.tsv] [-m MAPPERS] [-q MAPQS] [--perfect-lead1] SETDIR...

SETDIR is a work directory of benchmarks/seeded_misses.sh for one profile and seed (e.g.
build/seeded-misses/hs150-3): it holds MODE.truth.tsv (art_truth.py) and MODE.MAPPER.sam for
MODE se (single-end) and pe (pairs, each mate counted as a read).  -m names the MAPPER files, in
order (default scanmap,scanmap-all,bwa,minimap2: scanmap --completion weak; --completion
all, the default; bwa mem; minimap2 -ax sr); a missing SAM is skipped with a note.  -q adds
printed rows "=q" for each MAPQ value in the comma-separated list (e.g. 10,15,19: the caps of
reads whose seeding could not rule out a better locus, docs/seeded.md), not written to OUT.tsv.
--perfect-lead1 counts only the reads whose primary record matches base for base and leads its
competitor by one substitution (AS equal to the read's length and AS - XS = 5: the default
scoring, -A 1 -B 4), whose MAPQ the score formula sets at 20 (results/seeded.md, "Ties behind a
crowd"); it writes OUT.tsv only when -o names it.

Each read's primary record is judged as benchmarks/seeded_eval.py does: wrong when mapped but
not on its origin's contig and strand overlapping the origin.  Mapped reads are binned by MAPQ
(0, 1-9, 10-19, 20-29, 30-39, 40-49, 50-59, 60; the last takes any MAPQ above 60 too) and each
bin reports its reads, the wrong ones, the observed error rate (wrong / reads) and the error
rate the MAPQ claims (10^(-MAPQ/10) averaged over the bin's reads).  The curve of the minimap2
paper follows: for each MAPQ q from 0 to 60 (or the highest MAPQ given), rows ">=q" over the
reads mapped with MAPQ >= q (their fraction of all reads is reads / the set's reads).  Row
"unmapped" counts the reads without a placement (wrong, observed and claimed left empty); a bin
without reads leaves its rates empty.

Writes OUT.tsv (default benchmarks/results/mapq.tsv) with the columns set, mode, mapper, bin,
reads, wrong, observed, claimed, and prints the bins and the curve at MAPQ >= 1, 10, 20, 30, 60
as a table per set and mode.  Plot: benchmarks/mapq_plot.py.

    nice python3 benchmarks/mapq_eval.py build/seeded-misses/{hs150,nova,hs100,ms250}-5"""
import argparse
import os
import sys

from seeded_eval import at_origin, primary_records, read_truth

MODES = ["se", "pe"]
MAPPERS = {"scanmap": "scanmap (weak)", "scanmap-all": "scanmap (all, default)",
           "bwa": "bwa mem", "minimap2": "minimap2 -ax sr"}
BINS = [(0, 0), (1, 9), (10, 19), (20, 29), (30, 39), (40, 49), (50, 59), (60, 255)]
MAPQ_MAX = 255
SHOWN_THRESHOLDS = [1, 10, 20, 30, 60]
COLUMNS = ["set", "mode", "mapper", "bin", "reads", "wrong", "observed", "claimed"]


def bin_label(lo, hi):
    return str(lo) if lo == hi or hi == MAPQ_MAX else f"{lo}-{hi}"


def claimed_error(mapq):
    return 10 ** (-mapq / 10)


def perfect_lead1(t):
    """True for a mapped record t (SAM columns) that matches base for base and leads its
    competitor by one substitution (default scoring: AS = read length, XS = AS - 5)."""
    tags = {x[:2]: x[5:] for x in t[11:]}
    a_s, x_s = int(tags.get("AS", -1)), int(tags.get("XS", -1))
    return a_s == len(t[9]) and a_s - x_s == 5


def count(sam, truth, keep=None):
    """Per MAPQ (0-255): [mapped reads, wrong ones]; and the unmapped reads.  keep: a test of
    a mapped record's columns, the reads it refuses not counted."""
    by_q = [[0, 0] for _ in range(MAPQ_MAX + 1)]
    unmapped = 0
    for key, t, flag in primary_records(sam, truth, "mapq_eval.py"):
        if flag & 4:
            unmapped += 1
            continue
        if keep and not keep(t):
            continue
        c = by_q[min(int(t[4]), MAPQ_MAX)]
        c[0] += 1
        c[1] += not at_origin(t, flag, truth[key])
    return by_q, unmapped


def summary(by_q, lo, hi):
    """(reads, wrong, observed, claimed) over MAPQ lo..hi; rates None without reads."""
    reads = sum(by_q[q][0] for q in range(lo, hi + 1))
    wrong = sum(by_q[q][1] for q in range(lo, hi + 1))
    if not reads:
        return reads, wrong, None, None
    claimed = sum(by_q[q][0] * claimed_error(q) for q in range(lo, hi + 1)) / reads
    return reads, wrong, wrong / reads, claimed


def rows_of(by_q, unmapped):
    """(bin, reads, wrong, observed, claimed): the bins, unmapped, then the curve."""
    out = [(bin_label(lo, hi),) + summary(by_q, lo, hi) for lo, hi in BINS]
    out.append(("unmapped", unmapped, None, None, None))
    top = max([BINS[-1][0]] + [q for q in range(MAPQ_MAX + 1) if by_q[q][0]])
    out += [(f">={q}",) + summary(by_q, q, MAPQ_MAX) for q in range(top + 1)]
    return out


def fmt_rate(x):
    return "" if x is None else f"{x:.3g}"


def print_table(name, mode, results, exact=()):
    """results: [(mapper, by_q, unmapped)] (count()): one column group per mapper; exact:
    MAPQ values shown each in a row of its own."""
    print(f"\n{name}, {'single-end' if mode == 'se' else 'pairs (each mate a read)'}: "
          "reads, wrong, observed and claimed error per MAPQ bin; '>=q' the reads at MAPQ >= q")
    cell = "{:>8} {:>6} {:>9} {:>8}"
    width = len(cell.format("", "", "", "")) + 2
    print(f"{'MAPQ':>9}" + "".join(f"{m:>{width}}" for m, _, _ in results))
    print(f"{'':>9}" + "".join("  " + cell.format("reads", "wrong", "observed", "claimed")
                               for _ in results))
    ranges = [(bin_label(lo, hi), lo, hi) for lo, hi in BINS] + [("unmapped", None, None)] + \
        [(f">={q}", q, MAPQ_MAX) for q in SHOWN_THRESHOLDS] + [(f"={q}", q, q) for q in exact]
    for label, lo, hi in ranges:
        line = f"{label:>9}"
        for _, by_q, unmapped in results:
            if lo is None:
                line += "  " + cell.format(unmapped, "", "", "")
            else:
                reads, wrong, observed, claimed = summary(by_q, lo, hi)
                line += "  " + cell.format(reads, wrong, fmt_rate(observed), fmt_rate(claimed))
        print(line)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-o", metavar="OUT.tsv")
    ap.add_argument("-m", default=",".join(MAPPERS), metavar="MAPPERS")
    ap.add_argument("-q", default="", metavar="MAPQS")
    ap.add_argument("--perfect-lead1", action="store_true")
    ap.add_argument("sets", nargs="+", metavar="SETDIR")
    a = ap.parse_args()
    if a.o is None:
        a.o = os.devnull if a.perfect_lead1 else \
            os.path.join(os.path.dirname(__file__), "results", "mapq.tsv")
    keep = perfect_lead1 if a.perfect_lead1 else None
    mappers = a.m.split(",")
    exact = [int(q) for q in a.q.split(",") if q]
    with open(a.o, "w") as out:
        out.write("\t".join(COLUMNS) + "\n")
        for d in a.sets:
            name = os.path.basename(os.path.normpath(d))
            for mode in MODES:
                truth_path = os.path.join(d, f"{mode}.truth.tsv")
                if not os.path.exists(truth_path):
                    print(f"mapq_eval.py: {truth_path} missing, {name} {mode} skipped",
                          file=sys.stderr)
                    continue
                truth = read_truth(truth_path)
                results = []
                for m in mappers:
                    sam = os.path.join(d, f"{mode}.{m}.sam")
                    if not os.path.exists(sam):
                        print(f"mapq_eval.py: {sam} missing, skipped", file=sys.stderr)
                        continue
                    label = MAPPERS.get(m, m)
                    by_q, unmapped = count(sam, truth, keep)
                    results.append((label, by_q, unmapped))
                    for r in rows_of(by_q, unmapped):
                        out.write("\t".join([name, mode, label, r[0], str(r[1]),
                                             "" if r[2] is None else str(r[2]),
                                             "" if r[3] is None else f"{r[3]:.6g}",
                                             "" if r[4] is None else f"{r[4]:.6g}"]) + "\n")
                print_table(name, mode, results, exact)


if __name__ == "__main__":
    main()
