#!/usr/bin/env python3
"""Review finding 5 (issue 21, eleventh round): user turns that speak about items on a turn
where the agent showed none (its previous turn had no recommendations).

usage: ag_offscreen.py FILE.sim.jsonl...

Per file: user turns after an agent turn without items; of those, turns whose act is a Note
(Like / Dislike / Seen / Accept) or another act naming an item (trace.said.items: Inquire.Compare,
Inquire.Similar, Navigate); conversations with at least one; and, over every user turn, items named
that the agent's previous turn did not show (the carousel on screen).
"""
import json, sys
from collections import Counter

print('file | user turns | after a turn without items | Note acts there | other acts naming items there | convs | named item not on screen (any turn)')
for path in sys.argv[1:]:
    turns = bare = notes = naming = convs = offscreen = 0
    acts = Counter()
    with open(path) as f:
        for line in f:
            if not line.strip():
                continue
            c = json.loads(line)
            ts = c['turns']
            hit = False
            for i, t in enumerate(ts):
                tr = t.get('trace') or {}
                act = tr.get('user_act')
                if i == 0 or not act or tr.get('ignored_agent_error'):
                    continue
                turns += 1
                prev = [r.get('item_id') for r in (ts[i - 1].get('recommendations') or [])]
                items = (tr.get('said') or {}).get('items') or []
                if items and any(x not in prev for x in items):
                    offscreen += 1
                if prev:
                    continue
                bare += 1
                if act.startswith('Note'):
                    notes += 1
                    acts[act] += 1
                    hit = True
                elif items:
                    naming += 1
                    acts[act] += 1
                    hit = True
            convs += hit
    name = path.rsplit('/', 1)[-1].replace('.sim.jsonl', '')
    detail = ', '.join(f'{a} {n}' for a, n in acts.most_common())
    print(f'{name} | {turns} | {bare} | {notes} | {naming} | {convs} | {offscreen}' + (f'  [{detail}]' if detail else ''))
