#!/usr/bin/env python3
"""Allocated bytes per function (self) from two V8 sampling heap profiles, and their difference.

usage: allocdiff.py OLD.json NEW.json [--top 40]
The profiles are HeapProfiler.stopSampling results taken with includeObjectsCollectedByMajorGC and
...MinorGC (so they count every allocation, not just what survived): see README.md in this folder.
"""
import json, sys, os
from collections import defaultdict


def selfbytes(path):
    acc = defaultdict(float)
    def walk(n):
        cf = n['callFrame']
        acc[(cf['functionName'] or '(anon)', os.path.basename(cf['url']))] += n['selfSize']
        for c in n.get('children', []):
            walk(c)
    walk(json.load(open(path))['head'])
    return acc


def main():
    top = int(sys.argv[sys.argv.index('--top') + 1]) if '--top' in sys.argv else 40
    o, n = selfbytes(sys.argv[1]), selfbytes(sys.argv[2])
    print(f"{'old MB':>8} {'new MB':>8} {'diff':>8}  function (file)")
    for k in sorted(set(o) | set(n), key=lambda k: -abs(n.get(k, 0) - o.get(k, 0)))[:top]:
        a, b = o.get(k, 0) / 1e6, n.get(k, 0) / 1e6
        print(f"{a:8.1f} {b:8.1f} {b - a:+8.1f}  {k[0]} ({k[1]})")
    print(f"total old {sum(o.values()) / 1e6:.0f} MB, new {sum(n.values()) / 1e6:.0f} MB")


if __name__ == '__main__':
    sys.setrecursionlimit(100000)
    main()
