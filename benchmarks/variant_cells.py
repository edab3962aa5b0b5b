#!/usr/bin/env python3
"""variant_cells.py — issue 19's per-cell test over runs of benchmarks/variant_bench.sh: in how
many cells (SNP and indel recall and precision at each coverage) each mapper's figure is at bwa
mem's or above.

    variant_cells.py [--base MAPPER] [--png PLOT.png] OUT...

Each OUT is a variant_bench.sh output directory holding variants.tsv with a row for the base
mapper (default bwa) at each coverage.  Prints one line per run and mapper (cells at or above
the base's, of all, and the cells below as METRIC@COVERAGE), then the totals per mapper.  With
the controls bwa-reordered and scanmap-renamed in the runs (variant_bench.sh), the totals say
how many cells a mapper misses against itself by chance alone.  --png draws the counts per run
and mapper as grouped bars (needs matplotlib: Debian python3-matplotlib)."""
import argparse
import csv
import os
from collections import defaultdict

METRICS = ["snp_recall", "snp_precision", "indel_recall", "indel_precision"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--base", default="bwa")
    ap.add_argument("--png")
    ap.add_argument("runs", nargs="+")
    a = ap.parse_args()
    total = defaultdict(lambda: [0, 0])
    per_run = []   # (run, mapper, cells at or above, cells)
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
            per_run.append((os.path.basename(os.path.normpath(run)), m, ok, cells))
            print(f"{os.path.basename(os.path.normpath(run))}\t{m}\t{ok} of {cells}\t{' '.join(below)}")
    for m, (ok, cells) in total.items():
        print(f"total\t{m}\t{ok} of {cells}")
    if a.png:
        plot(per_run, total, a.base, a.png)


def plot(per_run, total, base, png):
    """Grouped bars: for each run, each mapper's cells at or above the base's, out of its cells."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    runs = list(dict.fromkeys(r for r, _, _, _ in per_run))
    mappers = list(total)
    width = 0.8 / len(mappers)
    fig, ax = plt.subplots(figsize=(max(6, 0.9 * len(runs) + 2), 4))
    for i, m in enumerate(mappers):
        ys = [next((ok for r2, m2, ok, _ in per_run if r2 == r and m2 == m), 0) for r in runs]
        ok, cells = total[m]
        ax.bar([x + (i - (len(mappers) - 1) / 2) * width for x in range(len(runs))], ys, width,
               label=f"{m}: {ok} of {cells} cells")
    most = max(c for _, _, _, c in per_run)
    ax.axhline(most, color="grey", lw=0.8, ls=":")
    ax.set_xticks(range(len(runs)))
    ax.set_xticklabels(runs, rotation=30, ha="right")
    ax.set_ylim(0, most + 1)
    ax.set_ylabel(f"cells at or above {base}'s (of {most})")
    ax.set_title(f"Variant-calling cells (recall, precision; SNP, indel; each coverage) at or above {base}'s")
    ax.legend(fontsize=8, loc="lower left")
    fig.tight_layout()
    fig.savefig(png, dpi=110)


if __name__ == "__main__":
    main()
