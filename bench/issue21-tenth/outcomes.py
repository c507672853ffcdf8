#!/usr/bin/env python3
"""Outcome shares, mean user turns and end reasons of runs: outcomes.py RUN.jsonl ..."""
import collections
import json
import sys

for p in sys.argv[1:]:
    out = collections.Counter()
    ends = collections.Counter()
    turns = n = 0
    for line in open(p):
        c = json.loads(line)
        n += 1
        out[c.get('outcome')] += 1
        turns += len(c['turns'])
        last = (c['turns'][-1].get('trace') or {}) if c['turns'] else {}
        ends[last.get('end_reason', c.get('metadata', {}).get('end_reason'))] += 1
    shares = ', '.join(f'{k} {100 * v / n:.1f} %' for k, v in sorted(out.items()))
    print(f'{p.split("/")[-1]}: {n} conv, {turns / n:.2f} turns; {shares}')
