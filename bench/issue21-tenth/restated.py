#!/usr/bin/env python3
"""Target-free users saying a wanted value again (tenth round, independent review problems 1-2).

For each user turn (not a revision or an accept), the values it says (trace.said.constraints) that
it had already said before count as re-said. Reports per run: re-said values in all, conversations
where one value is re-said 4+ and 8+ times, the most times, and re-says with an item among the first
3 shown that has that value and every other value said so far (problem 1).
usage: restated.py RUN.jsonl ...
"""
import collections
import json
import sys

for p in sys.argv[1:]:
    resaid = on_screen = c4 = c8 = mx = n = 0
    for line in open(p):
        c = json.loads(line)
        n += 1
        said = {}
        per = collections.Counter()
        for i, t in enumerate(c['turns']):
            tr = t.get('trace') or {}
            act = tr.get('user_act') or ''
            now = {k: str(v) for k, v in ((tr.get('said') or {}).get('constraints') or {}).items() if k != 'category'}
            if i and act not in ('Reveal.Revise', 'Note.Accept'):
                top = (c['turns'][i - 1].get('recommendations') or [])[:3]
                for k, v in now.items():
                    if said.get(k) == v:
                        resaid += 1
                        per[(k, v)] += 1
                        if any(all(r['attributes'].get(a, w) == w for a, w in said.items()) and r['attributes'].get(k) == v for r in top):
                            on_screen += 1
            said.update(now)
        m = max(per.values(), default=0)
        mx = max(mx, m)
        c4 += m >= 4
        c8 += m >= 8
    print(f'{p.split("/")[-1]}: re-said {resaid} ({on_screen} with a full match on screen); conversations with one value 4+ times {c4}/{n}, 8+ {c8}/{n}; most {mx}')
