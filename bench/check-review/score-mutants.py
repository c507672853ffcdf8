"""Scores single-fault mutants against `simlens check --json` output: a mutant is caught when an
invariant example or a read-back disagreement names its conversation on the mutated turn.
Usage: score-mutants.py CHECK.json META.json  (META: [{id, kind, turn, desc}], as mutants-batch2.py writes)."""
import collections, json, sys

check, meta = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
flagged = collections.defaultdict(set)
for inv in check['invariants']:
    for e in inv.get('examples') or []: flagged[e['conversation']].add(e['turn'])
for e in (check.get('readback') or {}).get('disagreements') or []: flagged[e['conversation']].add(e['turn'])
per = collections.defaultdict(lambda: [0, 0, 0])
for m in meta:
    x = per[m['kind']]; x[0] += 1
    turns = flagged.get(m['id'], set())
    if m['turn'] in turns: x[1] += 1
    elif turns: x[2] += 1
for kind, (n, ok, other) in per.items(): print(f'{kind:28s} {ok:3d}/{n:3d} on the turn ({other} flagged elsewhere only)')
print('TOTAL', sum(v[1] for v in per.values()), '/', sum(v[0] for v in per.values()))
