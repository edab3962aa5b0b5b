#!/usr/bin/python3
"""art_eval.py — placement accuracy of a SAM file of art_illumina reads.

    art_eval.py TRUTH.sam MAPPED.sam [--max-dist 20] [--json OUT]

TRUTH.sam is the alignment file art_illumina writes with -sam (every read's
true contig and leftmost position; first and second reads told apart by
flag 0x40/0x80).  A primary record of MAPPED.sam is correct when it lies on
the read's true contig and its unclipped leftmost position (POS minus a
leading soft or hard clip) is within --max-dist of the true one.  Prints one
line of totals; --json writes them (the fields of accuracy_eval.py's
totals).
"""
import argparse
import json
import re
import sys

CLIP = re.compile(r'^(\d+)[SH]')


def read_key(qname, flag):
    if qname.endswith('/1') or qname.endswith('/2'):
        qname = qname[:-2]
    return qname + ('/2' if flag & 0x80 else '/1')


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('truth')
    ap.add_argument('sam')
    ap.add_argument('--max-dist', type=int, default=20)
    ap.add_argument('--json')
    a = ap.parse_args()
    truth = {}
    with open(a.truth) as fp:
        for line in fp:
            if line.startswith('@'):
                continue
            t = line.split('\t', 5)
            truth[read_key(t[0], int(t[1]))] = (t[2], int(t[3]))
    n = mapped = correct = correct_q10 = wrong_q20 = 0
    with open(a.sam) as fp:
        for line in fp:
            if line.startswith('@'):
                continue
            t = line.split('\t', 6)
            flag = int(t[1])
            if flag & 0x900:
                continue
            want = truth.get(read_key(t[0], flag))
            if want is None:
                sys.exit('art_eval.py: read %s is not in %s' % (t[0], a.truth))
            n += 1
            if flag & 0x4:
                continue
            mapped += 1
            m = CLIP.match(t[5])
            pos = int(t[3]) - (int(m.group(1)) if m else 0)
            ok = t[2] == want[0] and abs(pos - want[1]) <= a.max_dist
            q = int(t[4])
            correct += ok
            correct_q10 += ok and q >= 10
            wrong_q20 += (not ok) and q >= 20
    r = {'reads': n, 'mapped': mapped,
         'correct_pct': 100.0 * correct / max(n, 1),
         'correct_q10_pct': 100.0 * correct_q10 / max(n, 1),
         'wrong_q20': wrong_q20}
    print('%d reads, %d mapped, %.2f%% correct, %.2f%% correct at MAPQ>=10, %d wrong at MAPQ>=20'
          % (n, mapped, r['correct_pct'], r['correct_q10_pct'], wrong_q20))
    if n != len(truth):
        sys.exit('art_eval.py: %d primary records, %d reads simulated' % (n, len(truth)))
    if a.json:
        with open(a.json, 'w') as fp:
            json.dump(r, fp)


if __name__ == '__main__':
    main()
