#!/usr/bin/env python3
"""read_through_plot.py — the plot of benchmarks/results/read-through.md.

    read_through_plot.py OUT.png TITLE=TABLE.tsv [TITLE=TABLE.tsv ...]

Each TABLE.tsv is read_through.sh's table for one read set; TITLE names the set ("\\n" breaks
its line). For the reads
of fragments shorter than the read, one group of bars per set: each mapper's reads placed right
at MAPQ >= 20 and placed wrong at MAPQ >= 20, as shares of those reads (needs matplotlib:
Debian's python3-matplotlib)."""
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    out = sys.argv[1]
    sets = [(t.replace("\\n", "\n"), p) for t, p in (a.split("=", 1) for a in sys.argv[2:])]
    mappers, data = [], {}
    for title, path in sets:
        rows = [line.rstrip("\n").split("\t") for line in open(path)]
        head = rows[0]
        for r in rows[1:]:
            if r[1] != "short":
                continue
            rec = dict(zip(head, r))
            if r[0] not in mappers:
                mappers.append(r[0])
            n = int(rec["reads"])
            data[(title, r[0])] = (100.0 * int(rec["correct q>=20"]) / n,
                                   100.0 * int(rec["wrong q>=20"]) / n)
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(11, 4.2))
    width = 0.8 / len(mappers)
    for m, name in enumerate(mappers):
        xs = [s + (m - (len(mappers) - 1) / 2) * width for s in range(len(sets))]
        a1.bar(xs, [data.get((t, name), (0, 0))[0] for t, _ in sets], width, label=name)
        a2.bar(xs, [data.get((t, name), (0, 0))[1] for t, _ in sets], width, label=name)
    for ax, what in ((a1, "placed right at MAPQ >= 20 (%)"), (a2, "placed wrong at MAPQ >= 20 (%)")):
        ax.set_xticks(range(len(sets)))
        ax.set_xticklabels([t for t, _ in sets], fontsize=8)
        ax.set_ylabel(what)
        ax.grid(axis="y", alpha=0.3)
    a1.set_ylim(40, 100)
    fig.legend(*a1.get_legend_handles_labels(), loc="upper center", bbox_to_anchor=(0.5, 0.93),
               fontsize=8, ncol=4)
    fig.suptitle("Reads of fragments shorter than the read (adapter read-through), chr20")
    fig.tight_layout(rect=(0, 0, 1, 0.86))
    fig.savefig(out, dpi=110)


if __name__ == "__main__":
    main()
