#!/usr/bin/env python3
"""Time per invariant in a V8 .cpuprofile of a bundle that runs InvariantChecker.add.

usage: profinv.py FILE.cpuprofile BUNDLE.js
Every sample under `add` (the checker) is charged to the invariant whose `check` the checker
called (the frame right below `add`), named by the nearest `id: "..."` line above that frame's
line in BUNDLE (esbuild output, not minified; "(v20)" when in bench/baseline); samples in `add` itself or other callees (the
context's readings) are listed by that callee's function name. Prints ms per invariant.
"""
import bisect, json, re, sys
from collections import defaultdict


def main():
    prof, bundle = sys.argv[1], sys.argv[2]
    ids = []
    module = ''
    for k, line in enumerate(open(bundle), start=0):
        if line.startswith('// '):
            module = line[3:].strip()
        m = re.match(r'\s*id: "([a-z0-9-]+)",\s*$', line)
        if m:
            ids.append((k, m.group(1) + (' (v20)' if 'baseline' in module else '')))
    starts = [k for k, _ in ids]
    p = json.load(open(prof))
    nodes = {n['id']: n for n in p['nodes']}
    parent = {}
    for n in p['nodes']:
        for c in n.get('children', []):
            parent[c] = n['id']
    t = defaultdict(float)
    deltas = p['timeDeltas']
    for s, dt in zip(p['samples'], deltas):
        chain = []
        x = s
        while x is not None:
            chain.append(x)
            x = parent.get(x)
        chain.reverse()  # root first
        names = [nodes[c]['callFrame']['functionName'] for c in chain]
        if 'add' not in names:
            continue
        i = names.index('add')
        who = ' (v20)' if 'checkOld' in names else ''
        if i + 1 >= len(chain):
            t['(add self)' + who] += dt / 1000
            continue
        cf = nodes[chain[i + 1]]['callFrame']
        if cf['functionName'] == 'check':
            j = bisect.bisect_right(starts, cf['lineNumber']) - 1
            t[ids[j][1] if j >= 0 else '?'] += dt / 1000
        else:
            t[(cf['functionName'] or '(anon)') + who] += dt / 1000
    total = sum(t.values())
    old = sum(v for k, v in t.items() if k.endswith('(v20)'))
    print(f'under add: {total:.0f} ms; current {total - old:.0f} ms, v20 {old:.0f} ms (ratio v20/current {old / max(total - old, 1e-9):.3f})')
    for k, v in sorted(t.items(), key=lambda kv: -kv[1]):
        print(f'{v:8.1f}  {k}')


if __name__ == '__main__':
    main()
