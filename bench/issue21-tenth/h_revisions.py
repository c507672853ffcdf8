#!/usr/bin/env python3
"""Switch revisions of meta users (issue 21, review finding H).

usage: h_revisions.py FILE.sim.jsonl...

Per file: user turns, Reveal.Revise turns (and how many on a turn whose target switched), values
per revision (1 / 2 / 3+), revisions that go back to a value the user had said before the value
they replace (a flip back, e.g. MetaSimTol moving between two group members), and conversations
with 3 or more revisions in a row.
"""
import json, sys
from collections import Counter

print('file | user turns | revisions (on a switch turn) | values 1/2/3+ | flip backs | convs with >=3 revisions in a row')
for path in sys.argv[1:]:
    turns = revs = on_switch = flips = runs3 = 0
    per = Counter()
    with open(path) as f:
        for line in f:
            if not line.strip():
                continue
            c = json.loads(line)
            history = {}
            run = best = 0
            for t in c['turns']:
                tr = t.get('trace') or {}
                if not tr.get('user_act') or tr.get('ignored_agent_error'):
                    continue
                turns += 1
                said = {k: str(v) for k, v in ((tr.get('said') or {}).get('constraints') or {}).items() if k != 'category'}
                if tr['user_act'] == 'Reveal.Revise':
                    revs += 1
                    run += 1
                    best = max(best, run)
                    if (tr.get('target') or {}).get('switched_from'):
                        on_switch += 1
                    per[min(len(said), 3)] += 1
                    for k, v in said.items():
                        h = history.get(k, [])
                        if len(h) >= 2 and v in h[:-1] and h[-1] != v:
                            flips += 1
                            break
                else:
                    run = 0
                for k, v in said.items():
                    history.setdefault(k, []).append(v)
            if best >= 3:
                runs3 += 1
    name = path.rsplit('/', 1)[-1].replace('.sim.jsonl', '')
    print(f'{name} | {turns} | {revs} ({on_switch}) | {per[1]}/{per[2]}/{per[3]} | {flips} | {runs3}')
