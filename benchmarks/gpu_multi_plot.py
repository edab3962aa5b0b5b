#!/usr/bin/python3
"""gpu_multi_plot.py — a PNG of a benchmarks/gpu_multi_bench.sh run: chr20
pairs per second against the number of GPUs, beside perfect scaling from
one GPU, each bar labelled with its scaling efficiency.

    benchmarks/gpu_multi_plot.py MULTI.TSV PNG [TITLE]

Needs matplotlib (Debian: python3-matplotlib, hence /usr/bin/python3).
"""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    with open(sys.argv[1]) as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    gpus = [int(r["gpus"]) for r in rows]
    rate = [float(r["pairs_per_s"]) for r in rows]
    one = next((x for g, x in zip(gpus, rate) if g == 1), None)
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.bar(gpus, [x / 1e3 for x in rate], width=0.6, label="scanmap (measured)")
    if one:
        ax.plot(gpus, [g * one / 1e3 for g in gpus], "k--", marker="o",
                label="perfect scaling from 1 GPU")
        for g, x in zip(gpus, rate):
            ax.annotate("%.0f%%" % (100 * x / (g * one)), (g, x / 1e3),
                        ha="center", va="bottom")
    ax.set_xticks(gpus)
    ax.set_xlabel("GPUs")
    ax.set_ylabel("thousand read pairs per second")
    ax.set_title(sys.argv[3] if len(sys.argv) > 3 else
                 "Paired 150 bp reads on human chr20, FASTQ.gz to SAM")
    ax.legend(loc="upper left")
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=120)


if __name__ == "__main__":
    main()
