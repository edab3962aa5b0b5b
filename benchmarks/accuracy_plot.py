#!/usr/bin/python3
"""accuracy_plot.py OUT.png TITLE LABEL=RESULT.json ... — MAPQ-threshold
curves (as in the minimap2 paper): for each MAPQ threshold, the fraction of
mapped reads that are wrong (x, log scale) against the fraction of all reads
mapped at or above it (y), one line per mapper (accuracy_eval.py --json)."""
import json
import sys

import matplotlib

matplotlib.use('Agg')
import matplotlib.pyplot as plt  # noqa: E402


def main():
    out, title = sys.argv[1], sys.argv[2]
    fig, ax = plt.subplots(figsize=(6, 4.5))
    for arg in sys.argv[3:]:
        label, path = arg.split('=', 1)
        r = json.load(open(path))
        xs, ys = [], []
        for c in r['curve']:
            xs.append(max(c['wrong'], 0.5) / c['mapped'])
            ys.append(c['mapped'] / r['reads'])
        ax.plot(xs, ys, marker='.', label=label)
    ax.set_xscale('log')
    ax.set_xlabel('error rate of reads mapped at MAPQ >= threshold (0 wrong drawn as 0.5)')
    ax.set_ylabel('fraction of reads mapped at MAPQ >= threshold')
    ax.set_title(title)
    ax.grid(True, which='both', alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(out, dpi=120)


if __name__ == '__main__':
    main()
