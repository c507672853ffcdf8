#!/usr/bin/env python3
"""Self time per function from two V8 .cpuprofile files (node --cpu-prof), and their difference.

usage: profdiff.py OLD.cpuprofile NEW.cpuprofile [--top 40]
Sums each node's self samples (weighted by time deltas) per (function name, file basename, line),
prints milliseconds old, new, new-old sorted by |new-old|, then totals.
"""
import json, sys, os
from collections import defaultdict


def selftime(path):
    p = json.load(open(path))
    nodes = {n['id']: n for n in p['nodes']}
    acc = defaultdict(float)
    deltas = p.get('timeDeltas', [])
    for s, dt in zip(p['samples'], deltas):
        cf = nodes[s]['callFrame']
        key = (cf['functionName'] or '(anon)', os.path.basename(cf['url']), cf['lineNumber'] + 1)
        acc[key] += dt / 1000.0
    return acc


def main():
    args = sys.argv[1:]
    top = 40
    if '--top' in args:
        i = args.index('--top'); top = int(args[i + 1]); del args[i:i + 2]
    old, new = selftime(args[0]), selftime(args[1])
    # merge by (name, file) ignoring line, since lines move between builds
    def byname(d):
        r = defaultdict(float)
        for (f, u, l), v in d.items():
            r[(f, u)] += v
        return r
    o, n = byname(old), byname(new)
    keys = set(o) | set(n)
    rows = sorted(keys, key=lambda k: -abs(n.get(k, 0) - o.get(k, 0)))
    print(f"{'old ms':>9} {'new ms':>9} {'diff':>9}  function (file)")
    for k in rows[:top]:
        print(f"{o.get(k,0):9.1f} {n.get(k,0):9.1f} {n.get(k,0)-o.get(k,0):+9.1f}  {k[0]} ({k[1]})")
    print(f"total old {sum(o.values()):.0f} ms, new {sum(n.values()):.0f} ms")
    if '--self' in sys.argv:
        pass


if __name__ == '__main__':
    main()
