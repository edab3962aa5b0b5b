#!/usr/bin/env python3
"""art_truth.py — put ART's true origins into the read names (benchmarks/seeded_misses.sh).

    art_truth.py ART.sam OUT_PREFIX IN1.fq [IN2.fq]

ART (art_illumina -sam -M) writes each read's origin to ART.sam.  This
writes OUT_PREFIX.1.fq [OUT_PREFIX.2.fq] with every read renamed
`ID!CONTIG:START-END:STRAND` (single-end) or
`ID!CONTIG:START1-END1:STRAND1!CONTIG:START2-END2:STRAND2` (both mates of a
pair carry the same name, as mappers require), START/END 1-based inclusive
bounds of the origin on the reference, STRAND + when the read is the
reference's forward strand; and OUT_PREFIX.truth.tsv, a line per read for
benchmarks/origin_score.c: `NAME/MATE  CONTIG  START  END  STRAND  SEQ`
(MATE 0 single-end, else 1 or 2)."""
import re
import sys

CIGAR_REF = re.compile(r"(\d+)([MDN=X])")


def origins(sam):
    """{(art name, mate): (contig, start, end, strand)} from ART's SAM."""
    out = {}
    with open(sam) as f:
        for line in f:
            if line.startswith("@"):
                continue
            q, flag, contig, pos, _, cigar = line.split("\t", 6)[:6]
            flag = int(flag)
            mate = 1 if flag & 64 else 2 if flag & 128 else 0
            # ART can write a read as all insertion (250I seen with -ss MSv3): no reference
            # span; it is taken as one base at POS.
            span = max(1, sum(int(n) for n, _ in CIGAR_REF.findall(cigar)))
            out[(q, mate)] = (contig, int(pos), int(pos) + span - 1, "-" if flag & 16 else "+")
    return out


def fastq(path):
    with open(path) as f:
        while True:
            h = f.readline()
            if not h:
                return
            s, p, q = f.readline(), f.readline(), f.readline()
            yield h[1:].split()[0], s.strip(), q.strip()


def main():
    if len(sys.argv) not in (4, 5):
        sys.exit(__doc__)
    sam, prefix, ins = sys.argv[1], sys.argv[2], sys.argv[3:]
    org = origins(sam)
    paired = len(ins) == 2
    outs = [open(f"{prefix}.{m + 1}.fq", "w") for m in range(len(ins))]
    with open(f"{prefix}.truth.tsv", "w") as truth:
        readers = [fastq(p) for p in ins]
        for recs in zip(*readers):
            art = re.sub(r"/[12]$", "", recs[0][0])
            mates = [1, 2] if paired else [0]
            o = [org[(art, m)] for m in mates]
            name = art + "".join(f"!{c}:{s}-{e}:{st}" for c, s, e, st in o)
            for m, (rec, (c, s, e, st), out) in enumerate(zip(recs, o, outs)):
                out.write(f"@{name}\n{rec[1]}\n+\n{rec[2]}\n")
                truth.write(f"{name}/{mates[m]}\t{c}\t{s}\t{e}\t{st}\t{rec[1]}\n")
    for out in outs:
        out.close()


if __name__ == "__main__":
    main()
