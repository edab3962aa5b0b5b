#!/usr/bin/python3
"""gpu_plots.py — PNG plots of a gpu_bench run (the paper's Fig. 5, Fig. 6,
the ladder ablation) from its tab-separated output.

    benchmarks/gpu_plots.py BENCH.TSV OUTDIR PREFIX

Writes OUTDIR/PREFIX-fig5.png, -fig6.png, -ablation.png.  Needs matplotlib
(Debian: python3-matplotlib, hence /usr/bin/python3).
"""
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

COLS = ("bench n m reads cells wall_s kernel_s gcups_wall gcups_kernel r8 r16 r32 "
        "computed_cells useful_cells upload_s download_s host_s").split()
LADDERS = ("8/32", "16/32", "32")


def load(path):
    rows = []
    with open(path) as f:
        for line in f:
            if line.startswith("#") or "\t" not in line:
                continue
            v = line.rstrip("\n").split("\t")
            if len(v) != len(COLS):
                continue
            r = dict(zip(COLS, v))
            for k in COLS[1:]:
                if k != "cells":
                    r[k] = float(r[k])
            rows.append(r)
    return rows


def fig5(rows, out):
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2), sharey=True)
    for ax, bench, title in ((axes[0], "fig5_batch", "256 reads per call"),
                             (axes[1], "fig5_single", "one read per call (the paper's pair)")):
        for n, style in ((128, "-"), (256, "--")):
            for cells in LADDERS:
                pts = sorted((r["m"], r["gcups_wall"]) for r in rows
                             if r["bench"] == bench and r["n"] == n and r["cells"] == cells)
                if pts:
                    ax.plot([p[0] for p in pts], [p[1] for p in pts], style, marker="o",
                            label=f"n={n}, cells {cells}")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("reference length m (bp)")
        ax.set_title(title)
        ax.grid(True, which="both", alpha=0.3)
    axes[0].set_ylabel("GCUPS (n x m per read, wall time of the call)")
    axes[0].legend(fontsize=7)
    fig.suptitle("Fig. 5 analogue: GCUPS against m (scoring 1/2/Gs=5/Ge=1)")
    fig.tight_layout()
    fig.savefig(out, dpi=120)


def fig6(rows, out):
    """GCUPS against r, the 8-bit share of the 8/32 ladder; the other ladders
    on the same inputs are drawn at that input's r for comparison."""
    r_of = {r["bench"]: r["r8"] for r in rows
            if r["bench"].startswith("fig6") and r["cells"] == "8/32"}
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    for cells, marker in zip(LADDERS, "os^"):
        pts = sorted((r_of[r["bench"]], r["gcups_kernel"]) for r in rows
                     if r["bench"] in r_of and r["cells"] == cells)
        if pts:
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker=marker,
                    label=f"cells {cells}")
    ax.set_xlabel("r = share of cells the 8/32 ladder computes in 8-bit lanes")
    ax.set_ylabel("GCUPS (kernel time)")
    ax.set_title("Fig. 6 analogue: n=512, 4 Mbp, copies of the read every d columns",
                 fontsize=9)
    ax.grid(True, alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(out, dpi=120)


def ablation(rows, out):
    sel = [r for r in rows if r["bench"] in ("ablation", "target_cells")]
    groups = sorted({(r["bench"], int(r["n"])) for r in sel})
    fig, ax = plt.subplots(figsize=(7, 4.2))
    width = 0.25
    for k, cells in enumerate(LADDERS):
        ys = []
        for bench, n in groups:
            v = [r["gcups_kernel"] for r in sel if r["bench"] == bench and r["n"] == n
                 and r["cells"] == cells]
            ys.append(v[0] if v else 0)
        ax.bar([i + (k - 1) * width for i in range(len(groups))], ys, width, label=f"cells {cells}")
    ax.set_xticks(range(len(groups)))
    ax.set_xticklabels([f"n={n}\n{'paper scoring' if b == 'ablation' else 'bwa scoring'}"
                        for b, n in groups])
    ax.set_ylabel("GCUPS (kernel time)")
    ax.set_title("Ladders on the same inputs (4.6 Mbp)")
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(out, dpi=120)


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    rows = load(sys.argv[1])
    outdir, prefix = sys.argv[2], sys.argv[3]
    fig5(rows, f"{outdir}/{prefix}-fig5.png")
    fig6(rows, f"{outdir}/{prefix}-fig6.png")
    ablation(rows, f"{outdir}/{prefix}-ablation.png")


if __name__ == "__main__":
    main()
