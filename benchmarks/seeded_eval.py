#!/usr/bin/env python3
"""seeded_eval.py — placements against the simulated truth and the origin score
(benchmarks/seeded_misses.sh).

    seeded_eval.py TRUTH.tsv ORIGIN.tsv LABEL MAPPER.sam [MISSES.tsv]

TRUTH.tsv (art_truth.py) and ORIGIN.tsv (origin_score) give each read's
origin and the exact score there.  The primary record of every read in
MAPPER.sam (SAM text) is judged:
  correct  on the origin's contig and strand, its aligned span overlapping
           the origin's;
  below    AS plus the clipping bonus (5, scanmap's and bwa mem's -L) for
           each end without a soft clip (0 when unmapped) lower than the
           origin score, the same objective: the mapper missed the read's
           best locus (at its origin or not).
Prints one tab-separated line: LABEL, reads, below by MAPQ (0, 1-19, >=20),
below placed elsewhere, wrong at MAPQ >= 20, correct at MAPQ >= 10,
unmapped.  MISSES.tsv, when given, lists every `below` read: key, origin
score, AS, MAPQ, placement, contig:pos, strand, XS."""
import re
import sys

import sam_records

CIGAR = re.compile(r"(\d+)([MIDNSHP=X])")
CLIP_BONUS = 5
HEADER = ["label", "reads", "below_q0", "below_q1_19", "below_q20", "below_elsewhere",
          "wrong_q20", "correct_q10", "unmapped"]


def ref_span(cigar):
    return sum(int(n) for n, op in CIGAR.findall(cigar) if op in "MDN=X")


def read_truth(path):
    """TRUTH.tsv (art_truth.py): read key -> (contig, start, end, strand), 1-based, inclusive."""
    truth = {}
    with open(path) as f:
        for line in f:
            k, c, s, e, st = line.split("\t")[:5]
            truth[k] = (c, int(s), int(e), st)
    return truth


def primary_records(sam, truth, prog="seeded_eval.py"):
    """Yields (key, fields, flag) for the primary record of every read in the SAM text file:
    key as in TRUTH.tsv (the name, then /0 single-end, /1 or /2 for a mate), fields the record's
    tab-separated columns.  Exits naming the file when a read comes twice, is not in the truth,
    or when a read of the truth has no primary record."""
    seen = set()
    for t, flag in sam_records.primaries(sam):
        mate = 1 if flag & 64 else 2 if flag & 128 else 0
        key = f"{t[0]}/{mate}"
        if key in seen or key not in truth:
            sys.exit(f"{prog}: {sam}: read {key} twice or not in the truth")
        seen.add(key)
        yield key, t, flag
    if len(seen) != len(truth):
        sys.exit(f"{prog}: {sam}: {len(seen)} primary records, {len(truth)} reads")


def at_origin(t, flag, origin):
    """True when the mapped record t (SAM columns) lies on the origin's contig and strand, its
    aligned span overlapping the origin's (contig, start, end, strand) from read_truth."""
    c, s, e, st = origin
    pos = int(t[3])
    end = pos + ref_span(t[5]) - 1
    strand = "-" if flag & 16 else "+"
    return t[2] == c and strand == st and pos <= e and end >= s


def main():
    if len(sys.argv) not in (5, 6):
        sys.exit(__doc__)
    truth, origin = read_truth(sys.argv[1]), {}
    with open(sys.argv[2]) as f:
        for line in f:
            k, score = line.split()
            origin[k] = int(score)
    label, sam = sys.argv[3], sys.argv[4]
    misses = open(sys.argv[5], "w") if len(sys.argv) == 6 else None
    n = {h: 0 for h in HEADER[1:]}
    for key, t, flag in primary_records(sam, truth):
        n["reads"] += 1
        tags = {x[:2]: x[5:] for x in t[11:]}
        mapq = int(t[4])
        if flag & 4:
            n["unmapped"] += 1
            ok, score = False, 0
        else:
            ok = at_origin(t, flag, truth[key])
            score = int(tags.get("AS", "0"))
            ops = CIGAR.findall(t[5])
            score += CLIP_BONUS * ((ops[0][1] not in "SH") + (ops[-1][1] not in "SH"))
            if ok and mapq >= 10:
                n["correct_q10"] += 1
            if not ok and mapq >= 20:
                n["wrong_q20"] += 1
        if score < origin[key]:
            n["below_q0" if mapq == 0 else "below_q1_19" if mapq < 20 else "below_q20"] += 1
            if not ok:
                n["below_elsewhere"] += 1
            if misses:
                misses.write(f"{key}\t{origin[key]}\t{score}\t{mapq}\t"
                             f"{'origin' if ok else 'elsewhere'}\t{t[2]}:{t[3]}\t"
                             f"{'-' if flag & 16 else '+'}\t{tags.get('XS', '.')}\n")
    if misses:
        misses.close()
    print("\t".join([label] + [str(n[h]) for h in HEADER[1:]]))


if __name__ == "__main__":
    main()
