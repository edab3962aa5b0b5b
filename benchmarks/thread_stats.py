#!/usr/bin/env python3
"""thread_stats.py [-i SECONDS] [-r NAME=NICE ...] [-o TSV] -- COMMAND...

Runs COMMAND and, while it runs, reads /proc/PID/task/*/ every -i seconds
(default 0.05): each thread's name (scanmap names its threads: io/thread.h),
CPU time and run-queue wait (schedstat: time runnable but not running) and
its voluntary and involuntary context switches.  When the command ends it
prints, per thread name, the threads seen and their sums, so that one can
tell a thread kind that waited for a core (run-queue wait) from one that
waited for work (voluntary switches, little CPU).  The last interval before
each thread ends is not seen.

-r NAME=NICE sets the nice value of every thread of that name as soon as it
is seen (Linux keeps a nice value per thread; raising it needs no
privilege), e.g. -r sm-worker=5 to test whether the input threads are
starved by the workers.  -o writes one row per thread.  Exits with the
command's status.  Linux only; standard library only (runs on the GPU
machine)."""
import argparse
import os
import subprocess
import sys
import time


def read(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return None


def sample(pid, seen, renice):
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return
    for tid in tids:
        base = f"/proc/{pid}/task/{tid}"
        comm, sched, status = read(base + "/comm"), read(base + "/schedstat"), read(base + "/status")
        if comm is None or sched is None or status is None:
            continue
        comm = comm.strip()
        run_ns, wait_ns, _ = (int(x) for x in sched.split())
        vol = invol = 0
        for line in status.splitlines():
            if line.startswith("voluntary_ctxt_switches:"):
                vol = int(line.split()[1])
            elif line.startswith("nonvoluntary_ctxt_switches:"):
                invol = int(line.split()[1])
        t = seen.get(tid)
        if t is None:
            t = seen[tid] = {"comm": comm}
            if comm in renice:
                try:
                    os.setpriority(os.PRIO_PROCESS, int(tid), renice[comm])
                except OSError as e:
                    print(f"thread_stats: renice {comm} {tid}: {e}", file=sys.stderr)
        t.update(comm=comm, cpu=run_ns / 1e9, wait=wait_ns / 1e9, vol=vol, invol=invol)


def main():
    ap = argparse.ArgumentParser(usage=__doc__.splitlines()[0])
    ap.add_argument("-i", type=float, default=0.05)
    ap.add_argument("-r", action="append", default=[])
    ap.add_argument("-o")
    ap.add_argument("command", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.command[1:] if a.command[:1] == ["--"] else a.command
    if not cmd:
        ap.error("no command")
    renice = {}
    for r in a.r:
        name, _, nice = r.partition("=")
        renice[name] = int(nice)
    seen = {}
    t0 = time.time()
    p = subprocess.Popen(cmd)
    while p.poll() is None:
        sample(p.pid, seen, renice)
        time.sleep(a.i)
    wall = time.time() - t0
    kinds = {}
    for t in seen.values():
        k = kinds.setdefault(t["comm"], [0, 0.0, 0.0, 0, 0])
        k[0] += 1
        k[1] += t["cpu"]
        k[2] += t["wait"]
        k[3] += t["vol"]
        k[4] += t["invol"]
    out = sys.stderr
    print(f"thread_stats: {wall:.2f} s wall; per thread name: threads, CPU s, run-queue wait s, "
          "voluntary / involuntary switches (sums)", file=out)
    for name, k in sorted(kinds.items(), key=lambda kv: -kv[1][1]):
        print(f"thread_stats: {name:16s} {k[0]:4d} {k[1]:9.2f} {k[2]:9.2f} {k[3]:10d} {k[4]:9d}", file=out)
    if a.o:
        with open(a.o, "w") as f:
            f.write("tid\tname\tcpu_s\twait_s\tvoluntary\tinvoluntary\n")
            for tid, t in sorted(seen.items(), key=lambda kv: int(kv[0])):
                f.write(f"{tid}\t{t['comm']}\t{t['cpu']:.3f}\t{t['wait']:.3f}\t{t['vol']}\t{t['invol']}\n")
    return p.returncode


if __name__ == "__main__":
    sys.exit(main())
