#!/usr/bin/env python3
"""Issue 21, twelfth round: what a recommender does right after a user turns down a shown item
(a turn naming it with act Navigate.More, Note.Dislike or Note.Seen: a pass, a dislike, "I own it"):
how often the next carousel is the same one kept on screen, and how often the item is back in the
next carousel's top three. Prints per run, by act.

    python3 bench/issue21-twelfth/passes.py RUN.jsonl [RUN.jsonl ...]
"""
import collections
import json
import os
import sys

for f in sys.argv[1:]:
    c_turns = collections.Counter()
    kept = collections.Counter()
    back = collections.Counter()
    outcomes = collections.Counter()
    for line in open(f):
        c = json.loads(line)
        outcomes[c['outcome']] += 1
        t = c['turns']
        for i in range(1, len(t)):
            tr = t[i].get('trace') or {}
            act = tr.get('user_act') or ''
            items = set((tr.get('said') or {}).get('items') or [])
            if act not in ('Navigate.More', 'Note.Dislike', 'Note.Seen') or not items:
                continue
            recs = [r['item_id'] for r in t[i].get('recommendations') or []]
            prev = [r['item_id'] for r in t[i - 1].get('recommendations') or []]
            c_turns[act] += 1
            if recs and recs == prev:
                kept[act] += 1
            if items & set(recs[:3]):
                back[act] += 1
    print(f"{os.path.basename(f)}: outcomes {dict(outcomes)}")
    for act in sorted(c_turns):
        print(f"    {act}: {c_turns[act]} turn-downs, carousel kept {kept[act]}, item back in the top three {back[act]}")
