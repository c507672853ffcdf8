#!/usr/bin/env python3
"""Review finding 7 (issue 21, eleventh round): an attribute relaxed with a Reveal.Expand (it
leaves goal.disclosed on that turn) that a later turn states a value for again.

usage: ag_relaxed.py FILE.sim.jsonl...

Per file: Reveal.Expand turns that relax an attribute; conversations where a relaxed attribute is
stated again without a revision (any act but Reveal.Revise; the rule: once relaxed, an attribute
stays relaxed unless a revision says otherwise) and the turns doing it, by act; re-requires said
as a Reveal.Revise (allowed) counted apart.
"""
import json, sys
from collections import Counter

print('file | relaxing turns | convs re-requiring silently | silent turns | by revision | acts')
for path in sys.argv[1:]:
    relaxing = convs = silent = revised = 0
    acts = Counter()
    with open(path) as f:
        for line in f:
            if not line.strip():
                continue
            c = json.loads(line)
            relaxed = set()
            before = None
            hit = False
            for t in c['turns']:
                tr = t.get('trace') or {}
                act = tr.get('user_act')
                if not act or tr.get('ignored_agent_error'):
                    continue
                disclosed = (tr.get('goal') or {}).get('disclosed')
                said = (tr.get('said') or {}).get('constraints') or {}
                if act == 'Reveal.Expand':
                    if disclosed is not None and before is not None:
                        dropped = [a for a in before if a not in disclosed]
                        if dropped:
                            relaxing += 1
                        relaxed.update(dropped)
                else:
                    for a in said:
                        if a in relaxed:
                            if act == 'Reveal.Revise':
                                revised += 1
                            else:
                                silent += 1
                                acts[act] += 1
                                hit = True
                            relaxed.discard(a)
                if disclosed is not None:
                    before = disclosed
            convs += hit
    name = path.rsplit('/', 1)[-1].replace('.sim.jsonl', '')
    print(f'{name} | {relaxing} | {convs} | {silent} | {revised} | ' + ', '.join(f'{a} {n}' for a, n in acts.most_common()))
