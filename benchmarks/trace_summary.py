#!/usr/bin/env python3
"""trace_summary.py TRACE [PNG] -- where the threads of one `scanmap map` run
spent their time, from the file SCANMAP_TRACE=TRACE wrote (io/trace.h).

Prints, for the mapping part of the run (set-up left out):
  * each kind of thread (workers, reader, inflate, writer): seconds per state,
    a nested span counted in its own state and not in the one around it
    (a GPU call inside a phase is GPU time, not phase time);
  * how many workers were in each state on average, and in the busiest and
    quietest tenth of 100 ms bins;
  * the device: the share of time some kernel of a scan call ran, and how
    many ran at once on average; the same for seeding and traceback calls
    (CUDA events on the device's clock).
With PNG (needs matplotlib): the workers' states and the device's kernels
over time.
"""
import collections
import sys

import numpy as np

STEP = 0.001  # seconds per grid point

GPU_STATES = ["GPU seeding call", "GPU scan: wait for a slot", "GPU scan: host prep",
              "GPU scan: on the device", "GPU scan: results"]


def group(name):
    return name.split(" ")[0]


def load(path):
    spans = collections.defaultdict(list)
    for line in open(path):
        thread, what, t0, t1 = line.rstrip("\n").split("\t")
        spans[thread].append((what, float(t0), float(t1)))
    return spans


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    spans = load(sys.argv[1])
    setup_end = max((t1 for t in spans.values() for w, _, t1 in t if w == "set-up"), default=0.0)
    end = max(t1 for t in spans.values() for _, _, t1 in t)
    n = int((end - setup_end) / STEP) + 1
    print(f"mapping from {setup_end:.2f} s to {end:.2f} s ({end - setup_end:.2f} s)")

    def grid(t0, t1):
        """The grid points [a, b) of the span t0..t1 within the mapping."""
        return max(0, int((t0 - setup_end) / STEP)), min(n, int((t1 - setup_end) / STEP))

    # Each thread's state at each grid point: the innermost span wins
    # (spans are laid down longest first, so a nested one overwrites).
    states = {}
    names = []
    for thread, ts in spans.items():
        if all(t1 <= setup_end for _, _, t1 in ts):
            continue  # a set-up thread (the reference's inflate, insert-size sampling)
        st = np.full(n, -1, dtype=np.int16)
        for what, t0, t1 in sorted(ts, key=lambda s: s[2] - s[1], reverse=True):
            if what.startswith("device:") or what == "set-up":
                continue
            if what not in names:
                names.append(what)
            a, b = grid(t0, t1)
            if b > a:
                st[a:b] = names.index(what)
        states[thread] = st

    by_group = collections.defaultdict(list)
    for thread in states:
        by_group[group(thread)].append(thread)
    for g in sorted(by_group):
        threads = by_group[g]
        counts = collections.Counter()
        for t in threads:
            v, c = np.unique(states[t], return_counts=True)
            for k, m in zip(v, c):
                counts["(nothing recorded)" if k < 0 else names[k]] += m * STEP
        total = len(threads) * n * STEP
        print(f"\n{g}: {len(threads)} thread(s), {total:.1f} thread-seconds")
        for what, sec in counts.most_common():
            print(f"  {what:<28} {sec:9.2f} s  {100 * sec / total:5.1f}%")

    workers = by_group.get("worker", [])
    if workers and n >= 200:
        w = np.stack([states[t] for t in workers])
        bins = max(1, int(0.1 / STEP))
        nb = n // bins
        print(f"\nworkers in each state (mean; quietest and busiest tenth of {nb} bins of 0.1 s):")
        for k in sorted(set(np.unique(w)) - {-1}):
            per = (w[:, :nb * bins] == k).sum(axis=0).reshape(nb, bins).mean(axis=1)
            q = np.percentile(per, [10, 90]) if nb else (0, 0)
            print(f"  {names[k]:<28} {per.mean():5.2f}  ({q[0]:.2f} .. {q[1]:.2f})")
        idle = (w[:, :nb * bins] == -1).sum(axis=0).reshape(nb, bins).mean(axis=1)
        print(f"  {'(nothing recorded)':<28} {idle.mean():5.2f}  "
              f"({np.percentile(idle, 10):.2f} .. {np.percentile(idle, 90):.2f})")

    # Where the workers' unrecorded time lies: each gap between a worker's
    # spans, put down to the spans before and after it (a gap after "no
    # batch" and before a batch's first phase is work done before it).
    gaps = collections.Counter()
    n_gaps = collections.Counter()
    for thread in workers:
        end, prev = None, None
        for t0, t1, what in sorted((t0, t1, w) for w, t0, t1 in spans[thread]
                                   if not w.startswith("device:") and t0 >= setup_end):
            if end is not None and t0 > end + 1e-5:
                gaps[(prev, what)] += t0 - end
                n_gaps[(prev, what)] += 1
            if end is None or t1 > end:
                end, prev = t1, what
    if gaps:
        print("\nworkers' unrecorded time, by the spans around it (largest five):")
        for (a, b), sec in gaps.most_common(5):
            print(f"  {sec:8.2f} s in {n_gaps[(a, b)]:6d} gaps, after '{a}' before '{b}'")

    # The device: scan calls' kernels, and whole seeding calls (upload to
    # download), on the device's clock; each scan call's kernels are put
    # down to the worker phase around them (window scans, tandem, ...).
    kern = np.zeros(n, dtype=np.int32)
    xfer = np.zeros(n, dtype=np.int32)
    seed = np.zeros(n, dtype=np.int32)
    trc = np.zeros(n, dtype=np.int32)
    per_phase = collections.defaultdict(lambda: [0, 0.0])
    for ts in spans.values():
        phases = sorted((t0, t1, w) for w, t0, t1 in ts
                        if not w.startswith(("device:", "GPU ")) and w != "set-up")
        starts = [p[0] for p in phases]
        for what, t0, t1 in ts:
            if not what.startswith("device:") or t1 < setup_end:
                continue
            a, b = grid(t0, t1)
            arr = (kern if what == "device: kernels" else seed if what == "device: seeding"
                   else trc if what == "device: tracebacks" else xfer)
            if b > a:
                arr[a:b] += 1
            if what == "device: kernels":
                mid = (t0 + t1) / 2
                k = np.searchsorted(starts, mid) - 1
                ph = phases[k][2] if k >= 0 and phases[k][1] >= mid else "(no phase)"
                per_phase[ph][0] += 1
                per_phase[ph][1] += t1 - t0
    if kern.any():
        print(f"\ndevice: scan kernels running {100 * (kern > 0).mean():.1f}% of the time, "
              f"{kern.mean():.2f} at once on average; copies {100 * (xfer > 0).mean():.1f}%; "
              f"seeding calls {100 * (seed > 0).mean():.1f}%; "
              f"traceback calls {100 * (trc > 0).mean():.1f}% ({trc.mean():.2f} at once); "
              f"scan kernels, seeding or tracebacks "
              f"{100 * ((kern > 0) | (seed > 0) | (trc > 0)).mean():.1f}%")
        for ph, (calls, sec) in sorted(per_phase.items(), key=lambda x: -x[1][1]):
            print(f"  scan kernels in {ph:<20} {calls:6d} calls, {sec:8.2f} s summed, "
                  f"{1e3 * sec / calls:7.2f} ms each")

    if len(sys.argv) == 3 and workers and n >= 200:
        try:
            import matplotlib
            matplotlib.use("Agg")
            import matplotlib.pyplot as plt
        except ImportError:
            print("(no matplotlib: no plot)")
            return
        t = setup_end + np.arange(n) * STEP
        fig, ax = plt.subplots(2, 1, figsize=(12, 6), sharex=True)
        ks = sorted(set(np.unique(w)) - {-1})
        ax[0].stackplot(t, [(w == k).sum(axis=0) for k in ks], labels=[names[k] for k in ks])
        ax[0].set_ylabel("workers")
        ax[0].legend(fontsize=7, loc="upper right", ncol=3)
        ax[1].plot(t, kern, lw=0.5)
        ax[1].set_ylabel("scan kernels running")
        ax[1].set_xlabel("seconds")
        fig.tight_layout()
        fig.savefig(sys.argv[2], dpi=100)


if __name__ == "__main__":
    main()
