#!/usr/bin/python3
"""read_lengths_plot.py TSV OUT.png — benchmarks/read_lengths.sh's table drawn: for each mode
(pairs, single-end), the share of reads placed right at MAPQ >= 10 (top) and the reads placed
wrong at MAPQ >= 20 (bottom) against the read length, one line per mapper."""
import csv
import sys

import matplotlib

matplotlib.use('Agg')
import matplotlib.pyplot as plt  # noqa: E402


def main():
    rows = list(csv.DictReader(open(sys.argv[1]), delimiter='\t'))
    modes = [('pe', 'pairs'), ('se', 'single-end (R1)')]
    mappers = list(dict.fromkeys(r['mapper'] for r in rows))
    fig, axes = plt.subplots(2, 2, figsize=(10, 6.5), sharex=True)
    for col, (mode, title) in enumerate(modes):
        for m in mappers:
            sel = sorted((int(r['length']), r) for r in rows if r['mode'] == mode and r['mapper'] == m)
            if not sel:
                continue
            xs = [x for x, _ in sel]
            axes[0][col].plot(xs, [100 * int(r['correct_q10']) / int(r['reads']) for _, r in sel],
                              marker='o', label=m)
            axes[1][col].plot(xs, [int(r['wrong_q20']) for _, r in sel], marker='o', label=m)
        axes[0][col].set_title(title)
        axes[0][col].set_ylabel('% of reads right at MAPQ >= 10')
        axes[1][col].set_ylabel('reads wrong at MAPQ >= 20')
        axes[1][col].set_xlabel('read length (bp)')
        for ax in (axes[0][col], axes[1][col]):
            ax.set_xscale('log')
            ax.set_xticks(sorted({int(r['length']) for r in rows}))
            ax.get_xaxis().set_major_formatter(matplotlib.ticker.ScalarFormatter())
            ax.get_xaxis().set_minor_formatter(matplotlib.ticker.NullFormatter())
            ax.grid(True, alpha=0.3)
    axes[0][0].legend()
    fig.suptitle('dwgsim reads from human chr20 (0.5-1% errors): higher top, lower bottom is better')
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=110)


if __name__ == '__main__':
    main()
