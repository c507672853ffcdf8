#!/usr/bin/env python3
"""Per configuration, before -> after: outcome shares (accepted / ended / gave_up / abandoned, % of the
conversations), mean turns, and how many conversations differ at all (same id, any turn's words or
items), from two directories of `simlens simulate` runs written by gen.sh (same seed).
usage: outcomes.py BEFORE_DIR AFTER_DIR"""
import json, sys, glob, collections, os

def read(d):
    R = {}
    for f in sorted(glob.glob(d + '/*.sim.jsonl')):
        C = collections.Counter(); turns = 0; n = 0; sig = {}
        for l in open(f):
            c = json.loads(l); n += 1; C[c['outcome']] += 1; turns += len(c['turns'])
            sig[c['id']] = [(t['user_utterance'], t.get('assistant_utterance'), [r['item_id'] for r in t.get('recommendations') or []]) for t in c['turns']]
        R[os.path.basename(f).replace('.sim.jsonl', '')] = dict(n=n, sig=sig, **{k: 100 * C[k] / n for k in ('accepted', 'ended', 'gave_up', 'abandoned')}, turns=turns / n)
    return R

B, A = read(sys.argv[1]), read(sys.argv[2])
print('| configuration | n | accepted % | ended % | gave_up % | abandoned % | turns | conversations that differ |')
print('|---|---|---|---|---|---|---|---|')
for k in sorted(B, key=lambda k: (k.split('_')[2], k.split('_')[1], k.split('_')[0])):
    b, a = B[k], A.get(k)
    if not a: continue
    cell = lambda f, p=1: f"{b[f]:.{p}f} -> {a[f]:.{p}f}"
    print(f"| {k} | {b['n']} | {cell('accepted')} | {cell('ended')} | {cell('gave_up')} | {cell('abandoned')} | {cell('turns', 2)} | {sum(a['sig'].get(i) != x for i, x in b['sig'].items())} |")
