#!/usr/bin/env python3
"""gperf_report.py PROFILE BINARY [--self | --incl | --callers FUNC] [-n N]

Where a run's CPU went, from a gperftools CPU profile taken on the GPU
machine (no perf there): run scanmap there with gperftools' profiler
preloaded,

    LD_PRELOAD=libprofiler.so.0 CPUPROFILE=run.prof CPUPROFILE_FREQUENCY=1000 \\
        scanmap map ...

(libprofiler.so.0 and libunwind.so.8 from Debian's libgoogle-perftools4 and
libunwind8, unpacked with dpkg -x and carried with the binary), bring
run.prof back and read it here against the same scanmap binary, unstripped
(the run may use a stripped copy: the addresses are the same).  The
profile's samples are call stacks; this reads its binary format (header,
samples, then /proc/self/maps), places each address in the binary or a
library, and names the binary's with addr2line (inlined functions folded into
the function they were inlined in).  google-pprof 2.10 cannot place the
addresses of today's position-independent executables.

  --self          samples by the function running (a library's samples by
                  the first function of the binary below them);
  --incl          samples with the function anywhere on the stack;
  --callers FUNC  the stacks above FUNC, four functions deep.

Libraries are named, not symbolized (their files are the other machine's).
Standard library and binutils' addr2line only."""
import argparse
import collections
import re
import struct
import subprocess
import sys


def read_profile(path):
    """(samples, segments): samples as (count, [pc, ...]) innermost first;
    segments as (lo, hi, file offset, path) of the executable mappings."""
    data = open(path, "rb").read()

    def word(i):
        return struct.unpack_from("<Q", data, 8 * i)[0]

    i = 2 + word(1)  # header: 0, header words, version, period, padding
    samples = []
    while True:
        count, depth = word(i), word(i + 1)
        if count == 0 and depth == 1 and word(i + 2) == 0:  # trailer
            i += 3
            break
        samples.append((count, [word(i + 2 + k) for k in range(depth)]))
        i += 2 + depth
    segments = []
    for line in data[8 * i:].decode("latin1").splitlines():
        m = re.match(r"([0-9a-f]+)-([0-9a-f]+) (\S+) ([0-9a-f]+) \S+ \S+\s*(.*)$", line)
        if m and "x" in m.group(3):
            segments.append((int(m.group(1), 16), int(m.group(2), 16), int(m.group(4), 16),
                             m.group(5).strip() or "?"))
    return samples, segments


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[2])
    ap.add_argument("profile")
    ap.add_argument("binary", help="the scanmap binary of the run, unstripped")
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--self", action="store_true")
    mode.add_argument("--incl", action="store_true")
    mode.add_argument("--callers", metavar="FUNC")
    ap.add_argument("-n", type=int, default=40, help="rows (default 40)")
    args = ap.parse_args()

    samples, segments = read_profile(args.profile)
    # The run's program: the mapping named like BINARY, else the first
    # executable mapping (/proc/self/maps lists the program before its
    # libraries), as when the run used a copy under another name.
    main_path = next((s[3] for s in segments if s[3].endswith("/" + args.binary.split("/")[-1])),
                     segments[0][3] if segments else "?")

    def place(pc):
        for lo, hi, off, path in segments:
            if lo <= pc < hi:
                return path, pc - lo + off
        return "?", pc

    # A return address points after its call: step back one byte.
    placed = [(n, [place(pc if k == 0 else pc - 1) for k, pc in enumerate(pcs)])
              for n, pcs in samples]
    offsets = sorted({off for _, fr in placed for path, off in fr if path == main_path})
    names = {}
    if offsets:
        out = subprocess.run(["addr2line", "-a", "-f", "-i", "-C", "-e", args.binary] +
                             ["%x" % o for o in offsets], capture_output=True, text=True,
                             check=True).stdout.splitlines()
        at = None
        for line in out:
            if line.startswith("0x"):
                at = int(line, 16)
                names[at] = []
            elif at is not None and not re.match(r"^\S*:(\d+|\?)( \(discriminator \d+\))?$", line):
                names[at].append(line)

    def frames(fr):
        """Function names, innermost first: the binary's by the function
        that holds the inlined code, a library's as [library]."""
        return [(names.get(off) or ["?"])[-1] if path == main_path
                else "[" + path.split("/")[-1] + "]" for path, off in fr]

    total = sum(n for n, _ in samples)
    table = collections.Counter()
    for n, fr in placed:
        f = frames(fr)
        if args.callers:
            if args.callers in f:
                j = f.index(args.callers)
                table[" <- ".join(f[j:j + 4])] += n
        elif args.incl:
            for name in set(f):
                table[name] += n
        else:
            leaf = f[0]
            if leaf.startswith("["):
                leaf += " <- " + next((x for x in f if not x.startswith("[")), "?")
            table[leaf] += n
    print(f"{total} samples")
    for name, n in table.most_common(args.n):
        print(f"{n:7d} {100.0 * n / total:5.1f}%  {name}")


if __name__ == "__main__":
    sys.exit(main())
