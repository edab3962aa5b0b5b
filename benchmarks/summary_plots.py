#!/usr/bin/python3
"""summary_plots.py DIR — draws the plots of the summary pages in DIR
(benchmarks/results) from the tables beside them:

  throughput.tsv -> throughput.png   pairs per second for each mapper, per machine
  accuracy.tsv   -> accuracy.png     correct reads at MAPQ >= 10 and wrong ones at
                                     MAPQ >= 20, per read set and mapper
  multi_gpu.tsv  -> multi_gpu.png    pairs per second against the number of GPUs
                                     (when the table exists)
  small-ref.tsv  -> small-ref.png    reads per second for each mapper and read length,
                                     exhaustive against a small reference

Lines starting with '#' are comments; the first other line names the columns."""
import csv
import os
import sys

import matplotlib

matplotlib.use('Agg')
import matplotlib.pyplot as plt  # noqa: E402

COLOURS = {'scanmap (GPU engine)': '#1f77b4', 'scanmap': '#1f77b4', 'scanmap (CPU engine)': '#aec7e8',
           'bwa mem': '#2ca02c', 'minimap2 -ax sr': '#d62728', 'bowtie2': '#9467bd'}


def rows(path):
    with open(path) as f:
        return list(csv.DictReader((ln for ln in f if not ln.startswith('#')), delimiter='\t'))


def grouped_bars(ax, groups, mappers, value):
    """Bars of value(group, mapper) (None: no bar), one cluster per group."""
    width = 0.8 / len(mappers)
    for k, m in enumerate(mappers):
        xs, ys = [], []
        for g, name in enumerate(groups):
            v = value(name, m)
            if v is not None:
                xs.append(g + (k - (len(mappers) - 1) / 2) * width)
                ys.append(v)
        bars = ax.bar(xs, ys, width, label=m, color=COLOURS.get(m))
        ax.bar_label(bars, fmt='%g', fontsize=7, padding=2)
    ax.set_xticks(range(len(groups)), groups)


def throughput(d):
    t = rows(os.path.join(d, 'throughput.tsv'))
    machines = list(dict.fromkeys(r['machine'] for r in t))
    mappers = list(dict.fromkeys(r['mapper'] for r in t))

    def best(machine, mapper):
        v = [float(r['pairs_per_s']) for r in t if r['machine'] == machine and r['mapper'] == mapper]
        return round(max(v) / 1000) if v else None

    fig, ax = plt.subplots(figsize=(7, 4.2))
    grouped_bars(ax, machines, mappers, best)
    ax.set_ylabel('thousand read pairs per second (higher is better)')
    ax.set_title('Human chr20, 5M simulated 2x150 bp pairs, FASTQ.gz to SAM\n'
                 '16 threads for every mapper; best of the runs on each machine', fontsize=10)
    ax.legend(frameon=False, loc='upper left')
    ax.margins(y=0.12)
    fig.tight_layout()
    fig.savefig(os.path.join(d, 'throughput.png'), dpi=110)


def accuracy(d):
    t = rows(os.path.join(d, 'accuracy.tsv'))
    sets = list(dict.fromkeys(r['set'] for r in t))
    mappers = list(dict.fromkeys(r['mapper'] for r in t))

    def get(col):
        def f(s, m):
            v = [float(r[col]) for r in t if r['set'] == s and r['mapper'] == m]
            return v[0] if v else None
        return f

    fig, (a1, a2) = plt.subplots(2, 1, figsize=(8, 7))
    grouped_bars(a1, sets, mappers, get('pct_correct_q10'))
    a1.set_ylim(80, 101.5)
    a1.set_ylabel('% of reads correct at MAPQ >= 10\n(higher is better)')
    a1.legend(frameon=False, ncol=4, fontsize=8, loc='lower center', bbox_to_anchor=(0.5, 1.0))
    grouped_bars(a2, sets, mappers, get('wrong_q20'))
    a2.set_yscale('symlog', linthresh=1)
    a2.set_ylabel('reads wrong at MAPQ >= 20\n(lower is better)')
    a2.margins(y=0.15)
    fig.suptitle('Simulated 2x150 bp pairs: where each mapper places reads it is confident about',
                 fontsize=10, y=0.99)
    fig.tight_layout()
    fig.savefig(os.path.join(d, 'accuracy.png'), dpi=110)


def multi_gpu(d):
    path = os.path.join(d, 'multi_gpu.tsv')
    if not os.path.exists(path):
        return
    t = rows(path)
    fig, ax = plt.subplots(figsize=(6, 4))
    for ref in dict.fromkeys(r['reference'] for r in t):
        pts = sorted((int(r['gpus']), float(r['pairs_per_s'])) for r in t if r['reference'] == ref)
        ax.plot([p[0] for p in pts], [p[1] / 1000 for p in pts], 'o-', label=ref)
        one = pts[0][1]
        ax.plot([p[0] for p in pts], [one * p[0] / 1000 for p in pts], ':', color='grey')
    ax.set_xlabel('GPUs used by one scanmap run')
    ax.set_ylabel('thousand read pairs per second')
    ax.set_xticks(sorted({int(r['gpus']) for r in t}))
    ax.set_title('Multi-GPU scaling (dotted: linear scaling from one GPU)', fontsize=10)
    ax.legend(frameon=False)
    fig.tight_layout()
    fig.savefig(os.path.join(d, 'multi_gpu.png'), dpi=110)


def small_ref(d):
    path = os.path.join(d, 'small-ref.tsv')
    if not os.path.exists(path):
        return
    t = rows(path)
    names = {'gpu': 'scanmap (GPU engine)', 'cpu': 'scanmap (CPU engine)', 'bwa': 'bwa mem',
             'minimap2': 'minimap2 -ax sr'}
    lens = list(dict.fromkeys(r['read_len'] for r in t))
    mappers = [names.get(m, m) for m in dict.fromkeys(r['mapper'] for r in t)]

    def rate(length, mapper):
        v = [float(r['reads_per_s']) for r in t
             if r['read_len'] == length and names.get(r['mapper'], r['mapper']) == mapper]
        return round(v[0] / 1000) if v else None

    fig, ax = plt.subplots(figsize=(7, 4.2))
    grouped_bars(ax, lens, mappers, rate)
    ax.set_xticks(range(len(lens)), [f'{n} bp reads' for n in lens])
    ax.set_ylabel('thousand reads per second (higher is better)')
    ax.set_title('Every read against a 9.7 kbp genome (reads 4% diverged), FASTQ.gz to SAM\n'
                 '16 threads for every mapper, one H200; scanmap aligns exhaustively', fontsize=10)
    ax.legend(frameon=False, loc='upper left', fontsize=8)
    ax.margins(y=0.12)
    fig.tight_layout()
    fig.savefig(os.path.join(d, 'small-ref.png'), dpi=110)


def main():
    d = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), 'results')
    throughput(d)
    accuracy(d)
    multi_gpu(d)
    small_ref(d)


if __name__ == '__main__':
    main()
