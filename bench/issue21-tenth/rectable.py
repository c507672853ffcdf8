#!/usr/bin/env python3
"""Before -> after table of the language bench's recommender rows (TTR@N, MATTR, words/utt., near-repeats
/1,000, slips, tagger = main act, tagger = a reported act) from two outputs of
`node dist/bench.js language -- --n 500 --no-results` (same seed). usage: rectable.py BEFORE.txt AFTER.txt"""
import sys, re

def rows(path):
    out, on = {}, False
    for line in open(path):
        if line.startswith('| recommender utterances of'): on = True; continue
        if on and line.startswith('|---'): continue
        if on and line.startswith('| '):
            c = [x.strip() for x in line.strip().strip('|').split('|')]
            if ' vs ' in c[0]: out[c[0]] = c
        elif on: on = False
    return out

num = lambda s: s.split(' ')[0]
B, A = rows(sys.argv[1]), rows(sys.argv[2])
print('| configuration | TTR@6,632 (IARD 0.203) | MATTR (IARD 0.719) | words/utt. (IARD 12.0) | near-repeats /1,000 | slips | tagger = main act | tagger = a reported act |')
print('|---|---|---|---|---|---|---|---|')
for k, b in B.items():
    a = A.get(k)
    if not a: continue
    cell = lambda i: f'{num(b[i])} -> {num(a[i])}'
    print(f'| {k} | {cell(3)} | {cell(4)} | {cell(5)} | {cell(7)} | {cell(8)} | {b[9]} -> {a[9]} | {b[10]} -> {a[10]} |')
