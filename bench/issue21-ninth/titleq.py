#!/usr/bin/env python3
"""Share of item questions (agenda Navigate naming an item) whose asked attribute's value the item's title shows
(asked attribute from the user's words). usage: titleq.py CATALOG FILES"""
import json, sys, re
CAT = {json.loads(l)['item_id']: json.loads(l) for l in open(sys.argv[1])}
CUE = [('price_band', r'price|cost|budget'), ('colour', r'colou?r'), ('material', r'material|fabric|made of'), ('style', r'style'),
       ('gender', r'gender|for whom|\bmen|women'), ('occasion', r'occasion'), ('type', r'\btype|kind')]
tot = q = shows = 0
for f in sys.argv[2:]:
    for l in open(f):
        c = json.loads(l)
        for t in c['turns']:
            tr = t['trace']
            if tr.get('user_act') != 'Navigate' or not (tr.get('said') or {}).get('items'): continue
            it = CAT[tr['said']['items'][0]]; u = t['user_utterance'].lower().replace(it['title'].lower(), ' ')
            attr = next((a for a, r in CUE if re.search(r, u)), None)
            if not attr or attr == 'price_band': q += attr is not None; continue
            q += 1; v = it['attributes'].get(attr, '').lower()
            if v and re.search(r'\b' + re.escape(v) + r"('s|s)?\b", it['title'].lower()): shows += 1
print(f"item questions {q}, value shown in the title {shows} ({100*shows/max(q,1):.1f}%)")
