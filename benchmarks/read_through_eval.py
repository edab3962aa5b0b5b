#!/usr/bin/env python3
"""read_through_eval.py — each mapper's records of read_through.sh's pairs
against their fragments.

    read_through_eval.py TRUTH.tsv LABEL SAM [LABEL SAM ...]

A read's primary record is correct when on the fragment's contig and strand
with the fragment's end within 5 bases of where it should be (the forward
read's first aligned base at the fragment's start, the reverse one's last at
its end); its adapter is clipped when
the aligned reference span is the fragment's length within 2 bases (reads of
fragments at least as long as the read: the read's length). Prints one row per
mapper, for all reads and for those whose fragment is shorter than the read:
reads, correct, correct at MAPQ >= 20, wrong at MAPQ >= 20, MAPQ below 20
(mapped), unmapped, adapter clipped, proper pairs (flag 0x2)."""
import re
import sys

CIGAR_REF = re.compile(r"(\d+)([MDN=X])")


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
                # the forward read starts at the fragment's start, the reverse one ends at its end
                at = pos + span - 1 - (length - 1) if want_rev else pos
                ok = f[2] == contig and bool(flag & 16) == want_rev and abs(at - start) <= 5
                r["correct"] += ok
                r["correct q>=20"] += ok and mapq >= 20
                r["wrong q>=20"] += (not ok) and mapq >= 20
                r["q<20"] += mapq < 20
                r["clipped"] += abs(span - min(length, read_len)) <= 2
                r["proper"] += bool(flag & 2)
        for key in ("all", "short"):
            print(f"{label}\t{key}\t" + "\t".join(str(rows[key][c]) for c in cols))


if __name__ == "__main__":
    main()
