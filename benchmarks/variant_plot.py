#!/usr/bin/python3
"""variant_plot.py TSV PNG [TITLE]: draws benchmarks/variant_bench.sh's table.

Four panels (SNP recall, SNP precision, indel recall, indel precision), each
against the coverage, one line per mapper.  Needs matplotlib (Debian:
python3-matplotlib, hence /usr/bin/python3).
"""
import csv
import sys

import matplotlib

matplotlib.use('Agg')
import matplotlib.pyplot as plt  # noqa: E402

MARKERS = ['o', 's', '^', 'D', 'v']
PANELS = [('snp_recall', 'SNP recall'), ('snp_precision', 'SNP precision'),
          ('indel_recall', 'indel recall'), ('indel_precision', 'indel precision')]


def main(tsv, png, suptitle):
    with open(tsv, newline='') as f:
        rows = list(csv.DictReader(f, delimiter='\t'))
    mappers = sorted({r['mapper'] for r in rows})
    fig, axes = plt.subplots(2, 2, figsize=(9, 7))
    for ax, (key, title) in zip(axes.flat, PANELS):
        for m, marker in zip(mappers, MARKERS * len(mappers)):
            pts = sorted((float(r['coverage']), float(r[key])) for r in rows if r['mapper'] == m)
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker=marker, label=m, alpha=0.8)
        ax.set_title(title)
        ax.set_xlabel('coverage (x)')
        ax.set_xscale('log')
        covs = sorted({float(r['coverage']) for r in rows})
        ax.set_xticks(covs)
        ax.set_xticklabels(['%gx' % c for c in covs])
        ax.minorticks_off()
        ax.grid(True, alpha=0.3)
    axes.flat[0].legend()
    fig.suptitle(suptitle)
    fig.tight_layout()
    fig.savefig(png, dpi=100)


if __name__ == '__main__':
    if len(sys.argv) not in (3, 4):
        sys.exit('usage: variant_plot.py TSV PNG [TITLE]')
    main(sys.argv[1], sys.argv[2], sys.argv[3] if len(sys.argv) == 4 else
         'E. coli K-12, dwgsim 2x150, bcftools call (haploid), after bcftools norm')
