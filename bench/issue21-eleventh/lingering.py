#!/usr/bin/env python3
"""Issue 21, eleventh round, finding 1: liked items kept on screen, never taken nor turned down.

Per target-free run (trace.preferences.model == 'pepper'), the carousel a user turn answers is the
previous turn's recommendations; what the user wants is the last value said per attribute
(trace.said.constraints) before that turn.

- lingering: conversations with an item reflected "like" in the first 3 of 5 or more consecutive
  carousels, with every value the user said it wants (category aside), never taken, whose every
  one of those turns is a pull (patience never counts against it) and that the user never names
  (trace.said.items) after the first of them (no reason, no turn-down said) -- the reviewer's class.
- stale pulls: pull turns whose carousel holds no item liked for the first time (every liked item
  was liked on an earlier carousel) and not the meta target: an item already weighed kept counting
  as liked on screen (the checker's rule since this round).
- reasons: turns whose user names an item liked on an earlier carousel (a turn-down said).

usage: lingering.py RUN.jsonl ...   (one line per file)
"""
import json
import sys


def count(path):
    convs = lingering = stale = pulls = reasons = 0
    ex = []
    with open(path) as f:
        for line in f:
            c = json.loads(line)
            convs += 1
            turns = c['turns']
            said = {}
            liked_before = set()
            runs = {}  # item -> [length, all pulls]
            first_liked = {}  # item -> turn it was first liked on
            spoken = set()  # items named on a turn after the one they were first liked on
            hit = False
            for i, t in enumerate(turns):
                tr = t.get('trace') or {}
                prefs = tr.get('preferences') or {}
                refl = prefs.get('reflected') if prefs.get('model') == 'pepper' and prefs.get('kind') == 'delta' else None
                s = tr.get('said') or {}
                named = set(s.get('items') or [])
                if refl and i > 0:
                    prev = turns[i - 1].get('recommendations') or []
                    top = prev[:3]
                    target = (tr.get('target') or {}).get('item_id')
                    accepted = tr.get('user_act') == 'Note.Accept'
                    op = tr.get('operation')
                    fresh = any(o == 'like' and (x not in liked_before or x == target) for x, o in refl.items())
                    if op == 'pull' and not accepted:
                        pulls += 1
                        if any(o == 'like' for o in refl.values()) and not fresh:
                            stale += 1
                    if any(x in liked_before and x in named for x in refl):
                        reasons += 1
                    spoken |= {x for x in named if x in first_liked}
                    seen_now = set()
                    for r in top:
                        x = r['item_id']
                        if refl.get(x) != 'like' or x == target:
                            continue
                        attrs = dict(r.get('attributes') or {})
                        if any(k != 'category' and attrs.get(k) is not None and str(attrs[k]) != v for k, v in said.items()):
                            continue
                        if accepted and x in named:
                            continue
                        seen_now.add(x)
                        run = runs.get(x)
                        if run is None:
                            runs[x] = run = [0, True]
                        run[0] += 1
                        run[1] = run[1] and op == 'pull'
                        if run[0] >= 5 and run[1] and x not in spoken and not hit:
                            hit = True
                            if len(ex) < 3:
                                ex.append((c['id'], i, x))
                    for x in list(runs):
                        if x not in seen_now:
                            del runs[x]
                    for x, o in refl.items():
                        if o == 'like':
                            liked_before.add(x)
                            first_liked.setdefault(x, i)
                for k, v in (s.get('constraints') or {}).items():
                    if k != 'category':
                        said[k] = str(v)
            lingering += hit
    return convs, lingering, stale, pulls, reasons, ex


for p in sys.argv[1:]:
    convs, lingering, stale, pulls, reasons, ex = count(p)
    print(f'{p.split("/")[-1]}: lingering {lingering}/{convs} conversations; stale pulls {stale}/{pulls} pull turns; turn-downs naming an item liked before {reasons}')
    for e in ex:
        print('   ', e)
