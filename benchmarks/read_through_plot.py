#!/usr/bin/env python3
"""read_through_plot.py — the plot of benchmarks/results/read-through.md.

    read_through_plot.py TABLE.tsv OUT.png [se]

TABLE.tsv: read_through.sh's tables with the set's name first on each row
(benchmarks/results/read-through.tsv; a name is the set's directory, PROFILE-LEN-MEAN-SD-SEED-
ADAPTERS-GENOME). For the reads of fragments shorter than the
read, one group of bars per set: each mapper's reads placed right at MAPQ >= 20 and placed wrong
at MAPQ >= 20, as shares of those reads (needs matplotlib: Debian's python3-matplotlib).
se: the tables of read_through.sh -1 (read 1 alone, single-end; results/read-through-se.tsv)."""
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def label(name, single):
    """'HS25-150-180-60-1-truseq-chr20' -> 'HS25 2x150, chr20\\ntruseq, N(180, 60)' (single:
    'HS25 150 bp'; a name ending -polyG: poly-G past the adapter)."""
    f = name.split("-")
    tail = " + poly-G" if name.endswith("-polyG") else ""
    reads = f"{f[1]} bp" if single else f"2x{f[1]}"
    return f"{f[0]} {reads}, {f[6]}\n{f[5]}{tail}, N({f[2]}, {f[3]})"


def main():
    table, out = sys.argv[1], sys.argv[2]
    single = len(sys.argv) > 3 and sys.argv[3] == "se"
    rows = [line.rstrip("\n").split("\t") for line in open(table)]
    head = rows[0]
    sets, mappers, data = [], [], {}
    for r in rows[1:]:
        rec = dict(zip(head, r))
        if rec["fragments"] != "short":
            continue
        if rec["set"] not in sets:
            sets.append(rec["set"])
        if rec["mapper"] not in mappers:
            mappers.append(rec["mapper"])
        n = int(rec["reads"])
        data[(rec["set"], rec["mapper"])] = (100.0 * int(rec["correct q>=20"]) / n,
                                            100.0 * int(rec["wrong q>=20"]) / n)
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(12, 4.4))
    width = 0.8 / len(mappers)
    for m, name in enumerate(mappers):
        xs = [s + (m - (len(mappers) - 1) / 2) * width for s in range(len(sets))]
        a1.bar(xs, [data.get((t, name), (0, 0))[0] for t in sets], width, label=name)
        a2.bar(xs, [data.get((t, name), (0, 0))[1] for t in sets], width, label=name)
    for ax, what in ((a1, "placed right at MAPQ >= 20 (%)"), (a2, "placed wrong at MAPQ >= 20 (%)")):
        ax.set_xticks(range(len(sets)))
        ax.set_xticklabels([label(t, single) for t in sets], fontsize=7)
        ax.set_ylabel(what)
        ax.grid(axis="y", alpha=0.3)
    a1.set_ylim(40, 100)
    fig.legend(*a1.get_legend_handles_labels(), loc="upper center", bbox_to_anchor=(0.5, 0.93),
               fontsize=8, ncol=4)
    fig.suptitle("Reads of fragments shorter than the read (adapter read-through), " +
                 ("ART single reads (read 1 alone)" if single else "ART pairs"))
    fig.tight_layout(rect=(0, 0, 1, 0.86))
    fig.savefig(out, dpi=110)


if __name__ == "__main__":
    main()
