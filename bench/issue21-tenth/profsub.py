#!/usr/bin/env python3
"""Self and inclusive time per function inside the subtree of one root function of a V8 .cpuprofile.

usage: profsub.py FILE.cpuprofile ROOT_FUNCTION [--top 40]
Only samples whose stack contains ROOT_FUNCTION count (e.g. simulateConversation: the simulated
conversations, not the catalog build). Prints the subtree total, then the top functions by self
time and by inclusive time (each function counted once per sample even when recursive).
"""
import json, sys
from collections import defaultdict


def main():
    path, root = sys.argv[1], sys.argv[2]
    top = int(sys.argv[sys.argv.index('--top') + 1]) if '--top' in sys.argv else 40
    p = json.load(open(path))
    nodes = {n['id']: n for n in p['nodes']}
    parent = {}
    for n in p['nodes']:
        for c in n.get('children', []):
            parent[c] = n['id']
    def name(nid):
        cf = nodes[nid]['callFrame']
        return f"{cf['functionName'] or '(anon)'}:{cf['lineNumber'] + 1}"
    stacks = {}
    def stack(nid):
        if nid not in stacks:
            s, x = [], nid
            while x is not None:
                s.append(name(x)); x = parent.get(x)
            stacks[nid] = s
        return stacks[nid]
    selft, incl = defaultdict(float), defaultdict(float)
    total = 0.0
    gc = 0.0
    for s, dt in zip(p['samples'], p['timeDeltas']):
        st = stack(s)
        if not any(f.startswith(root + ':') for f in st):
            if st[0].startswith('(garbage collector)'):
                gc += dt / 1000
            continue
        total += dt / 1000
        selft[st[0]] += dt / 1000
        for f in set(st):
            incl[f] += dt / 1000
    print(f"{root}: {total:.0f} ms (GC outside any JS stack: {gc:.0f} ms)")
    print('self:')
    for k, v in sorted(selft.items(), key=lambda x: -x[1])[:top]:
        print(f"  {v:8.1f}  {k}")
    print('inclusive:')
    for k, v in sorted(incl.items(), key=lambda x: -x[1])[:top]:
        print(f"  {v:8.1f}  {k}")


if __name__ == '__main__':
    main()
