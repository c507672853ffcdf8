#!/usr/bin/env python3
"""Issue 21, eleventh round (found while reading runs for finding 1): a target-free user says "none of
these" (a Pepper.None wording) about a carousel holding an item it reflects as liked for the first
time (trace.preferences.reflected), i.e. a carousel that counted as a pull because of that item.

usage: none_liked.py RUN.jsonl ...   (one line per file)
"""
import json
import re
import sys

# the Pepper.None wordings of nlg-templates.json
NONE = re.compile(r"none of these|not quite what I'm after|can you show me something else\?|feeling these|"
                  r"these don't|these aren't it|this lot|these miss|nothing here|nothing in this batch", re.I)


def count(path):
    hits = turns = convs = convs_hit = 0
    ex = []
    with open(path) as f:
        for line in f:
            c = json.loads(line)
            convs += 1
            before = set()
            hit = False
            for i, t in enumerate(c['turns']):
                tr = t.get('trace') or {}
                prefs = tr.get('preferences') or {}
                refl = prefs.get('reflected') if prefs.get('model') == 'pepper' and prefs.get('kind') == 'delta' else None
                if not refl:
                    continue
                turns += 1
                fresh = [x for x, o in refl.items() if o == 'like' and x not in before]
                if fresh and NONE.search(t['user_utterance']):
                    hits += 1
                    hit = True
                    if len(ex) < 3:
                        ex.append((c['id'], i, t['user_utterance']))
                before |= {x for x, o in refl.items() if o == 'like'}
            convs_hit += hit
    return convs, convs_hit, turns, hits, ex


for p in sys.argv[1:]:
    convs, ch, turns, hits, ex = count(p)
    print(f'{p.split("/")[-1]}: "none of these" with an item liked for the first time on screen {hits}/{turns} turns, {ch}/{convs} conversations')
    for e in ex:
        print('   ', e)
