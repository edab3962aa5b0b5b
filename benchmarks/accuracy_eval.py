#!/usr/bin/python3
"""accuracy_eval.py — placement accuracy of a SAM file of dwgsim reads.

    accuracy_eval.py SAM [--max-dist 20] [--json OUT]

dwgsim names its reads CONTIG_POS1_POS2_STRAND1_STRAND2_RAND1_RAND2_E1_E2_ID,
POS 1-based leftmost.  A primary record is correct when it lies on the
contig of its origin and its unclipped leftmost position (POS minus a
leading soft or hard clip) is within --max-dist of the true one.  Reads of
random pairs (RAND 1) have no origin and are left out.

Prints one line of totals and one per MAPQ bin (its error rate, and the
rate its MAPQs claim: 10^(-MAPQ/10) averaged over the bin's reads), and
writes (with --json) the totals, the bins and the MAPQ-threshold curve: for each threshold q, the
reads mapped with MAPQ >= q and the wrong ones among them (the curve of the
minimap2 paper).
"""
import argparse
import json
import re
import sys

CLIP = re.compile(r'^(\d+)[SH]')
BINS = [(0, 0), (1, 4), (5, 9), (10, 14), (15, 19), (20, 29), (30, 39), (40, 49), (50, 59), (60, 255)]


def truth_of(qname, flag):
    f = qname.rsplit('_', 9)
    if len(f) != 10:
        return None
    contig, pos1, pos2, _s1, _s2, rand1, rand2 = f[:7]
    second = flag & 0x80
    if (rand2 if second else rand1) == '1':
        return None
    return contig, int(pos2 if second else pos1)


def placed_right(t, origin, max_dist=20):
    """1 if the mapped record t (SAM columns) lies on origin's contig with its unclipped leftmost
    position (POS minus a leading soft or hard clip) within max_dist of origin's."""
    m = CLIP.match(t[5])
    start = int(t[3]) - (int(m.group(1)) if m else 0)
    return t[2] == origin[0] and abs(start - origin[1]) <= max_dist


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('sam')
    ap.add_argument('--max-dist', type=int, default=20)
    ap.add_argument('--json')
    a = ap.parse_args()
    n = mapped = correct = 0
    by_q = {}  # mapq -> [mapped, wrong]
    with (sys.stdin if a.sam == '-' else open(a.sam)) as fp:
        for line in fp:
            if line.startswith('@'):
                continue
            t = line.split('\t', 6)
            flag = int(t[1])
            if flag & 0x900:
                continue
            qname = t[0]
            if qname.endswith('/1') or qname.endswith('/2'):
                qname = qname[:-2]
            tr = truth_of(qname, flag)
            if tr is None:
                continue
            n += 1
            if flag & 4:
                continue
            mapped += 1
            ok = placed_right(t, tr, a.max_dist)
            correct += ok
            q = int(t[4])
            e = by_q.setdefault(q, [0, 0])
            e[0] += 1
            e[1] += not ok
    curve = []
    cum_m = cum_w = 0
    for q in sorted(by_q, reverse=True):
        cum_m += by_q[q][0]
        cum_w += by_q[q][1]
        curve.append({'mapq_min': q, 'mapped': cum_m, 'wrong': cum_w})
    bins = []
    for lo, hi in BINS:
        m = sum(v[0] for q, v in by_q.items() if lo <= q <= hi)
        w = sum(v[1] for q, v in by_q.items() if lo <= q <= hi)
        claimed = sum(v[0] * 10 ** (-q / 10) for q, v in by_q.items() if lo <= q <= hi)
        if m:
            bins.append({'mapq': '%d-%d' % (lo, hi), 'mapped': m, 'wrong': w, 'error': w / m,
                         'claimed': claimed / m})
    q10 = [c for c in curve if c['mapq_min'] >= 10]
    q20 = [c for c in curve if c['mapq_min'] >= 20]
    res = {
        'reads': n, 'mapped': mapped, 'correct': correct,
        'correct_pct': 100.0 * correct / n if n else 0.0,
        'correct_q10': (q10[-1]['mapped'] - q10[-1]['wrong']) if q10 else 0,
        'correct_q10_pct': 100.0 * (q10[-1]['mapped'] - q10[-1]['wrong']) / n if q10 and n else 0.0,
        'wrong_q20': q20[-1]['wrong'] if q20 else 0,
        'mapped_q20': q20[-1]['mapped'] if q20 else 0,
        'bins': bins, 'curve': curve,
    }
    print('%d reads, %d mapped, %d correct (%.2f%%), %d correct at MAPQ>=10 (%.2f%%), '
          '%d wrong of %d at MAPQ>=20' % (n, mapped, correct, res['correct_pct'], res['correct_q10'],
                                          res['correct_q10_pct'], res['wrong_q20'], res['mapped_q20']))
    for b in bins:
        print('  MAPQ %-6s %7d mapped %6d wrong  error %.2e  claimed %.2e' %
              (b['mapq'], b['mapped'], b['wrong'], b['error'], b['claimed']))
    if a.json:
        with open(a.json, 'w') as out:
            json.dump(res, out)


if __name__ == '__main__':
    main()
