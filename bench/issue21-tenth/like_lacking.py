#!/usr/bin/env python3
"""Review class D (issue 21, tenth round): target-free Likes of an item lacking a value the user
said it wants.

For every Note.Like turn, the liked item is the first item the turn names (trace.said.items) that
the turn's trace reflects as "like" (else the first named). Its attributes come from the carousel
the turn answers (the previous turn's recommendations). The user's wanted values are the last value
said per attribute (trace.said.constraints) up to and including this turn (a Reveal.Revise replaces
one). D counts Likes whose item has, for an attribute the user said a value for, a different value;
the meta target is excepted (a meta user revises toward it), and reported separately.

usage: like_lacking.py RUN.jsonl ...   (prints one line per file)
"""
import json
import sys


def count(path):
    likes = lacking = target_lacking = convs = convs_hit = 0
    examples = []
    with open(path) as f:
        for line in f:
            c = json.loads(line)
            convs += 1
            said = {}
            hit = False
            turns = c['turns']
            for i, t in enumerate(turns):
                tr = t.get('trace') or {}
                s = tr.get('said') or {}
                for k, v in (s.get('constraints') or {}).items():
                    said[k] = str(v)
                if tr.get('user_act') != 'Note.Like':
                    continue
                likes += 1
                refl = ((tr.get('preferences') or {}).get('reflected')) or {}
                named = s.get('items') or []
                liked = next((x for x in named if refl.get(x) == 'like'), named[0] if named else None)
                prev = turns[i - 1].get('recommendations') or [] if i else []
                item = next((r for r in prev if r['item_id'] == liked), None)
                if not item:
                    continue
                attrs = dict(item.get('attributes') or {})
                attrs['category'] = item.get('category')
                diff = [(k, v, attrs.get(k)) for k, v in said.items() if attrs.get(k) is not None and str(attrs.get(k)) != v]
                if not diff:
                    continue
                target = (tr.get('target') or {}).get('item_id')
                if target == liked:
                    target_lacking += 1
                    continue
                lacking += 1
                hit = True
                if len(examples) < 3:
                    examples.append((c['id'], i, diff, t['user_utterance'][:160]))
            convs_hit += hit
    return likes, lacking, target_lacking, convs, convs_hit, examples


for p in sys.argv[1:]:
    likes, lacking, tl, convs, ch, ex = count(p)
    pct = 100 * lacking / likes if likes else 0
    print(f'{p.split("/")[-1]}: D {lacking}/{likes} Likes ({pct:.1f} %), {ch}/{convs} conversations; meta target lacking {tl}')
    for e in ex:
        print('   ', e)
