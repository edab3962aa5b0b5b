#!/usr/bin/env python3
"""read_through_eval.py — each mapper's records of read_through.sh's pairs
against their fragments.

    read_through_eval.py TRUTH.tsv LABEL SAM [LABEL SAM ...]

A read's primary record is correct when on the fragment's contig and strand
with its 5' end (soft clips undone) within 5 bases of where it should be (the
forward read's at the fragment's start, the reverse one's at its end); a
correct read of a fragment shorter than itself has its adapter clipped when
its aligned 3' end is the fragment's other end within 2 bases. Prints one row per
mapper, for all reads and for those whose fragment is shorter than the read:
reads, correct, correct at MAPQ >= 20, wrong at MAPQ >= 20, MAPQ below 20
(mapped), unmapped, adapter clipped, proper pairs (flag 0x2)."""
import re
import sys

CIGAR_REF = re.compile(r"(\d+)([MDN=X])")
CLIP_LEAD = re.compile(r"^(\d+)S")
CLIP_TRAIL = re.compile(r"(\d+)S$")


def main():
    truth = {}
    for line in open(sys.argv[1]):
        name, contig, start, length, strand = line.split()
        truth[name] = (contig, int(start), int(length), strand == "-")
    cols = ["reads", "correct", "correct q>=20", "wrong q>=20", "q<20", "unmapped", "clipped",
            "proper"]
    print("mapper\tfragments\t" + "\t".join(cols))
    args = sys.argv[2:]
    for label, sam in zip(args[0::2], args[1::2]):
        rows = {"all": dict.fromkeys(cols, 0), "short": dict.fromkeys(cols, 0)}
        for line in open(sam):
            if line[0] == "@":
                continue
            f = line.split("\t", 11)
            flag = int(f[1])
            if flag & 0x900:
                continue
            name = f[0].rsplit("-", 1)[0]
            contig, start, length, rev1 = truth[name]
            read_len = len(f[9])
            for key in ("all", "short") if length < read_len else ("all",):
                r = rows[key]
                r["reads"] += 1
                if flag & 4:
                    r["unmapped"] += 1
                    continue
                mapq, pos = int(f[4]), int(f[3])
                want_rev = rev1 if not flag & 0x80 else not rev1
                span = sum(int(n) for n, _ in CIGAR_REF.findall(f[5]))
                lead, trail = CLIP_LEAD.match(f[5]), CLIP_TRAIL.search(f[5])
                lead, trail = int(lead.group(1)) if lead else 0, int(trail.group(1)) if trail else 0
                # the read's 5' end (soft clips undone): the forward read's at the fragment's
                # start, the reverse one's at its end; its aligned 3' end, at the fragment's
                # other end when the fragment is shorter than the read
                if want_rev:
                    five, three, want5, want3 = pos + span - 1 + trail, pos, start + length - 1, start
                else:
                    five, three, want5, want3 = pos - lead, pos + span - 1, start, start + length - 1
                ok = f[2] == contig and bool(flag & 16) == want_rev and abs(five - want5) <= 5
                r["correct"] += ok
                r["correct q>=20"] += ok and mapq >= 20
                r["wrong q>=20"] += (not ok) and mapq >= 20
                r["q<20"] += mapq < 20
                r["clipped"] += ok and length < read_len and abs(three - want3) <= 2
                r["proper"] += bool(flag & 2)
        for key in ("all", "short"):
            print(f"{label}\t{key}\t" + "\t".join(str(rows[key][c]) for c in cols))


if __name__ == "__main__":
    main()
