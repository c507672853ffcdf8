#!/usr/bin/env python3
"""Issue 21, eleventh round, finding 4: a target-free user answers an agent turn that showed no
items with "none of these" (a Pepper.None clause) about a carousel that is not there.

Counts user turns (after the first) whose trace is a PEPPER user's (a run with preferences model
'pepper') answering an agent turn without recommendations, whose utterance holds a Pepper.None
wording (the lists of nlg-templates.json as expanded by the run: matched by the phrases below),
and, of those, the ones whose user had said only values it is not keen on (no wanted value).

usage: none_nothing.py RUN.jsonl ...
"""
import json
import re
import sys

# every Pepper.None wording speaks of "these" / "this batch" / "nothing here" or asks for "something else"
NONE = re.compile(r"none of these|not quite what I'm after|something else\?|feeling these|these don't|"
                  r"these aren't it|this lot|these miss|nothing here|nothing in this batch", re.I)


def count(path):
    turns_n = hits = only_neg = convs = convs_hit = 0
    ex = []
    with open(path) as f:
        for line in f:
            c = json.loads(line)
            convs += 1
            pepper = any(((t.get('trace') or {}).get('preferences') or {}).get('model') == 'pepper' for t in c['turns'])
            if not pepper:
                continue
            wanted = set()
            hit = False
            for i, t in enumerate(c['turns']):
                tr = t.get('trace') or {}
                if i > 0 and not (c['turns'][i - 1].get('recommendations') or []) and not tr.get('ignored_agent_error'):
                    if tr.get('user_act') not in ('Note.Accept', 'Complete', 'Complete.Abandon'):
                        turns_n += 1
                        if NONE.search(t['user_utterance']):
                            hits += 1
                            hit = True
                            only_neg += not wanted
                            if len(ex) < 3:
                                ex.append((c['id'], i, t['user_utterance']))
                for k in ((tr.get('said') or {}).get('constraints') or {}):
                    if k != 'category':
                        wanted.add(k)
            convs_hit += hit
    return convs, convs_hit, turns_n, hits, only_neg, ex


for p in sys.argv[1:]:
    convs, ch, n, h, neg, ex = count(p)
    print(f'{p.split("/")[-1]}: "none of these" after no items {h}/{n} turns ({neg} by users with no wanted value said), {ch}/{convs} conversations')
    for e in ex:
        print('   ', e)
