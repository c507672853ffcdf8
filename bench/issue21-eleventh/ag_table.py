#!/usr/bin/env python3
"""One markdown row per configuration, before -> after, from the outputs of ag_offscreen.py,
ag_relaxed.py, ag_slips.py and h_revisions.py saved in two directories (offscreen.txt, relaxed.txt,
slips.txt, revisions.txt; the after directory may lack slips/revisions, then the before ones are
read with '?').

usage: ag_table.py BEFORE_DIR AFTER_DIR
"""
import os, sys


def rows(path, key_cols):
    out = {}
    if not os.path.exists(path):
        return out
    for line in open(path):
        parts = [p.strip() for p in line.split('|')]
        if len(parts) < 3 or parts[0] == 'file':
            continue
        out[parts[0]] = [parts[i].split('  [')[0] for i in key_cols]
    return out


def load(d):
    return {
        'off': rows(os.path.join(d, 'offscreen.txt'), [5]),
        'rel': rows(os.path.join(d, 'relaxed.txt'), [2]),
        'slip': rows(os.path.join(d, 'slips.txt'), [1, 2]),
        'flip': rows(os.path.join(d, 'revisions.txt'), [4]),
    }


b, a = load(sys.argv[1]), load(sys.argv[2])
print('| configuration | convs with a turn about an item not on screen | convs re-requiring a relaxed attribute | revisions worded as a slip | meta flip-backs |')
print('|---|---|---|---|---|')
for name in sorted(b['off']):
    def pair(k, i=0):
        x = b[k].get(name, ['-'] * 2)[i]
        y = a[k].get(name, ['?'] * 2)[i]
        return f'{x} -> {y}'
    slip = f"{b['slip'].get(name, ['-', '-'])[1]}/{b['slip'].get(name, ['-'])[0]} -> {a['slip'].get(name, ['?', '?'])[1]}/{a['slip'].get(name, ['?'])[0]}"
    flip = pair('flip') if name in b['flip'] else '-'
    print(f"| {name} | {pair('off')} | {pair('rel')} | {slip} | {flip} |")
