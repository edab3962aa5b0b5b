#!/usr/bin/python3
"""mapq_plot.py — draws the table of benchmarks/mapq_eval.py: does MAPQ say how often a read is
misplaced?

    /usr/bin/python3 benchmarks/mapq_plot.py [MAPQ.tsv [OUT.png]]

MAPQ.tsv defaults to benchmarks/results/mapq.tsv, OUT.png to the same name with .png.  One row
of panels per read set (profile), four panels a row:
  single-end and pairs, MAPQ bins: the error rate the MAPQ claims (x, 10^(-MAPQ/10) averaged
    over the bin's reads) against the one observed (y), both log scale; on the diagonal the
    MAPQ is right, above it over-confident, below it under-confident.  Marker area grows with
    the bin's reads; bars give the 95% (Wilson) interval, and a bin without a wrong read is a
    hollow triangle at the interval's upper end (the error rate is below it).
  single-end and pairs, the curve of the minimap2 paper: for each MAPQ threshold q, the error
    rate among the reads mapped at MAPQ >= q (x, log scale, 0 wrong drawn as 0.5) against the
    fraction of all reads mapped at MAPQ >= q (y); up and to the left is better.
Each mapper keeps one colour in every panel."""
import csv
import math
import os
import sys

import matplotlib

matplotlib.use('Agg')
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402

STYLE = {  # mapper -> (colour, line style, marker)
    'scanmap (weak)': ('#1f77b4', '-', 'o'),
    'scanmap (all, default)': ('#17becf', '--', 's'),
    'bwa mem': ('#2ca02c', '-', '^'),
    'minimap2 -ax sr': ('#d62728', '-', 'D'),
}
PROFILES = {'hs150': 'HiSeq 2500 2x150', 'nova': 'noisy 2x150 (qualities -10)',
            'hs100': 'HiSeq 2000 2x100', 'ms250': 'MiSeq 2x250'}
MODES = {'se': 'single-end', 'pe': 'pairs'}
ZERO_WRONG = 0.5  # wrong reads drawn for a MAPQ threshold without any
RATE_LIMITS = (4e-7, 2)
Z95 = 1.96  # normal quantile of a two-sided 95% interval


def set_title(name):
    """hs150-3 (seeded_misses.sh: profile, ART seed) -> 'HiSeq 2500 2x150, seed 3'."""
    profile, _, seed = name.rpartition('-')
    if profile in PROFILES and seed.isdigit():
        return f'{PROFILES[profile]}, seed {seed}'
    return name


def style(mapper):
    return STYLE.get(mapper, ('#7f7f7f', '-', 'x'))


def wilson(wrong, reads):
    """95% Wilson score interval of the error rate wrong / reads."""
    p, z2 = wrong / reads, Z95 * Z95
    mid = (p + z2 / (2 * reads)) / (1 + z2 / reads)
    half = Z95 * math.sqrt(p * (1 - p) / reads + z2 / (4 * reads * reads)) / (1 + z2 / reads)
    return max(mid - half, 0), mid + half


def calibration(ax, groups):
    """groups: mapper -> bin rows (dicts)."""
    ax.plot(RATE_LIMITS, RATE_LIMITS, color='grey', lw=0.8, ls=':', zorder=0)
    for k, (m, rows) in enumerate(groups.items()):
        colour, _, marker = style(m)
        # mappers side by side within a bin: a small shift along x (log scale)
        shift = 10 ** (0.06 * (k - (len(groups) - 1) / 2))
        for r in rows:
            reads, wrong = int(r['reads']), int(r['wrong'])
            if not reads:
                continue
            x = float(r['claimed']) * shift
            lo, hi = wilson(wrong, reads)
            size = 10 + 10 * math.log10(reads)
            if wrong:
                # Bars stop at the axis floor and never go negative (rounding at p = 1).
                ax.errorbar(x, wrong / reads,
                            yerr=[[max(0.0, wrong / reads - max(lo, RATE_LIMITS[0]))],
                                  [max(0.0, hi - wrong / reads)]],
                            color=colour, lw=0.7, alpha=0.6, capsize=0, zorder=2)
                ax.scatter(x, wrong / reads, s=size, marker=marker, color=colour, zorder=3)
            else:
                ax.scatter(x, hi, s=size * 0.8, marker='v', facecolors='none', edgecolors=colour,
                           linewidths=0.9, zorder=3)
    ax.set_xscale('log')
    ax.set_yscale('log')
    ax.set_xlim(*RATE_LIMITS)
    ax.set_ylim(*RATE_LIMITS)
    ax.set_xlabel('error rate claimed by MAPQ (bin mean)')
    ax.set_ylabel('observed error rate in the bin')
    ax.grid(True, which='major', alpha=0.3)


def curve(ax, groups, totals):
    """groups: mapper -> '>=q' rows; totals: mapper -> all reads of the set."""
    for m, rows in groups.items():
        colour, ls, marker = style(m)
        rows = sorted((r for r in rows if int(r['reads'])), key=lambda r: int(r['bin'][2:]))
        xs = [max(int(r['wrong']), ZERO_WRONG) / int(r['reads']) for r in rows]
        ys = [int(r['reads']) / totals[m] for r in rows]
        ax.plot(xs, ys, color=colour, ls=ls, marker=marker, ms=3, lw=1.2)
        # the MAPQ >= 20 and >= 60 points marked larger: the thresholds read in the tables
        for r, x, y in zip(rows, xs, ys):
            if r['bin'] in ('>=20', '>=60'):
                ax.plot(x, y, marker=marker, ms=7, color=colour, mfc='white', mew=1.5)
    ax.set_xscale('log')
    ax.set_xlabel('error rate at MAPQ >= q (0 wrong drawn as 0.5)')
    ax.set_ylabel('fraction of reads at MAPQ >= q')
    ax.grid(True, which='major', alpha=0.3)


def main():
    tsv = sys.argv[1] if len(sys.argv) > 1 else \
        os.path.join(os.path.dirname(__file__), 'results', 'mapq.tsv')
    out = sys.argv[2] if len(sys.argv) > 2 else os.path.splitext(tsv)[0] + '.png'
    with open(tsv) as f:
        t = list(csv.DictReader(f, delimiter='\t'))
    sets = list(dict.fromkeys(r['set'] for r in t))
    mappers = list(dict.fromkeys(r['mapper'] for r in t))
    fig, axes = plt.subplots(len(sets), 4, figsize=(17, 3.9 * len(sets) + 1.2), squeeze=False)
    for i, s in enumerate(sets):
        for j, mode in enumerate(MODES):
            rows = [r for r in t if r['set'] == s and r['mode'] == mode]
            bins = {m: [r for r in rows if r['mapper'] == m and r['bin'][0].isdigit()]
                    for m in mappers}
            cum = {m: [r for r in rows if r['mapper'] == m and r['bin'].startswith('>=')]
                   for m in mappers}
            totals = {m: sum(int(r['reads']) for r in rows if r['mapper'] == m and
                             (r['bin'][0].isdigit() or r['bin'] == 'unmapped')) for m in mappers}
            a_bins, a_cum = axes[i][2 * j], axes[i][2 * j + 1]
            calibration(a_bins, {m: v for m, v in bins.items() if v})
            curve(a_cum, {m: v for m, v in cum.items() if v}, totals)
            a_bins.set_title(f'{set_title(s)}, {MODES[mode]}\nper MAPQ bin', fontsize=9)
            a_cum.set_title(f'{set_title(s)}, {MODES[mode]}\nMAPQ threshold curve', fontsize=9)
    handles = [Line2D([], [], color=style(m)[0], ls=style(m)[1], marker=style(m)[2], label=m)
               for m in mappers]
    handles += [Line2D([], [], color='grey', ls=':', label='claimed = observed'),
                Line2D([], [], color='grey', ls='', marker='v', mfc='none',
                       label='bin without a wrong read: below the 95% bound'),
                Line2D([], [], color='grey', ls='', marker='o', ms=8, mfc='white', mew=1.5,
                       label='curve at MAPQ >= 20 and >= 60')]
    fig.legend(handles=handles, loc='upper center', ncol=len(handles), frameon=False, fontsize=9,
               bbox_to_anchor=(0.5, 1.0))
    fig.suptitle('MAPQ against the observed error: ART reads of human chr20 (GRCh37), 100,000 '
                 'pairs per set; a read is wrong when its primary record misses its origin',
                 fontsize=11, y=1.0 - 0.4 / fig.get_figheight())
    fig.tight_layout(rect=(0, 0, 1, 1 - 0.65 / fig.get_figheight()))
    fig.savefig(out, dpi=90)


if __name__ == '__main__':
    main()
