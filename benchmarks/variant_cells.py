#!/usr/bin/env python3
"""variant_cells.py — issue 19's per-cell test over runs of benchmarks/variant_bench.sh: in how
many cells (SNP and indel recall and precision at each coverage) each mapper's figure is at bwa
mem's or above.

    variant_cells.py [--base MAPPER] OUT...

Each OUT is a variant_bench.sh output directory holding variants.tsv with a row for the base
mapper (default bwa) at each coverage.  Prints one line per run and mapper (cells at or above
the base's, of all, and the cells below as METRIC@COVERAGE), then the totals per mapper.  With
the controls bwa-reordered and scanmap-renamed in the runs (variant_bench.sh), the totals say
how many cells a mapper misses against itself by chance alone."""
import argparse
import csv
import os
from collections import defaultdict

METRICS = ["snp_recall", "snp_precision", "indel_recall", "indel_precision"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--base", default="bwa")
    ap.add_argument("runs", nargs="+")
    a = ap.parse_args()
    total = defaultdict(lambda: [0, 0])
    for run in a.runs:
        with open(os.path.join(run, "variants.tsv")) as f:
            rows = list(csv.DictReader(f, delimiter="\t"))
        base = {r["coverage"]: r for r in rows if r["mapper"] == a.base}
        if not base:
            raise SystemExit(f"variant_cells.py: {run}/variants.tsv has no {a.base} row")
        mappers = [m for m in dict.fromkeys(r["mapper"] for r in rows) if m != a.base]
        for m in mappers:
            ok, below = 0, []
            cells = 0
            for r in rows:
                if r["mapper"] != m or r["coverage"] not in base:
                    continue
                for k in METRICS:
                    cells += 1
                    if float(r[k]) >= float(base[r["coverage"]][k]):
                        ok += 1
                    else:
                        below.append(f"{k}@{r['coverage']}x")
            total[m][0] += ok
            total[m][1] += cells
            print(f"{os.path.basename(os.path.normpath(run))}\t{m}\t{ok} of {cells}\t{' '.join(below)}")
    for m, (ok, cells) in total.items():
        print(f"total\t{m}\t{ok} of {cells}")


if __name__ == "__main__":
    main()
