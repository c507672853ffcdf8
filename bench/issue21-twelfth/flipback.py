#!/usr/bin/env python3
"""Issue 21, twelfth round: a user that says a value for an attribute, later another one, and later
goes back to the first (a flip-back: A -> B -> A), counted from trace.said.constraints over each
conversation. For users without a meta-simulator a change of mind never goes back (rule 13 of
docs/simulation.md); meta users follow their switched target (AlterEval) and may.

    python3 bench/issue21-twelfth/flipback.py RUN.jsonl [RUN.jsonl ...]
"""
import collections
import json
import os
import sys

for f in sys.argv[1:]:
    flips = convs = revises = 0
    examples = []
    for line in open(f):
        c = json.loads(line)
        convs += 1
        history = collections.defaultdict(list)
        for i, t in enumerate(c['turns']):
            tr = t.get('trace') or {}
            if 'Revise' in (tr.get('user_act') or ''):
                revises += 1
            for a, v in ((tr.get('said') or {}).get('constraints') or {}).items():
                if a == 'category':
                    continue
                h = history[a]
                if h and h[-1] != v and v in h:
                    flips += 1
                    if len(examples) < 2:
                        examples.append(f"{c['id']} turn {i}: {a} {h} -> {v}: {t.get('user_utterance')}")
                h.append(v)
    print(f"{os.path.basename(f)}: {flips} flip-backs in {convs} conversations ({revises} revisions)")
    for e in examples:
        print('   ', e)
