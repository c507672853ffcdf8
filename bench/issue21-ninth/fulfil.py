#!/usr/bin/env python3
"""How each goal request got fulfilled (agenda users): 'card' = on the user's own Navigate* turn, the value in the
title of an item of the last carousel; 'said' = the agent's previous answer, with the asked item's title removed,
says the value (first 4 letters of each value word; a '$' price for price_band); 'not_said' = neither.
usage: fulfil.py CATALOG FILES"""
import json, sys, re, collections
CAT = {json.loads(l)['item_id']: json.loads(l) for l in open(sys.argv[1])}
tot = collections.Counter()
for f in sys.argv[2:]:
    C = collections.Counter()
    for l in open(f):
        T = json.loads(l)['turns']; prevf = set(); last = []
        for i, t in enumerate(T):
            tr = t['trace']; g = tr.get('goal') or {}
            fr = set(g.get('fulfilled_requests') or [])
            for a in fr - prevf:
                act = tr.get('user_act') or ''
                titles = ' '.join(CAT[x]['title'].lower() for x in last if x in CAT)
                if act.startswith('Navigate') and any(re.search(r'\b' + re.escape(str(CAT[x]['attributes'].get(a, '@')).lower()) + r"('s|s)?\b", CAT[x]['title'].lower()) for x in last if x in CAT):
                    C['card'] += 1; continue
                items = (T[i-1]['trace'].get('said') or {}).get('items') or []
                it = CAT.get(items[0]) if items else None
                ans = (T[i-1].get('assistant_utterance') or '').lower()
                if it: ans = ans.replace(it['title'].lower(), ' ')
                v = str(it['attributes'].get(a, '')).lower() if it else ''
                ok = ('$' in ans) if a == 'price_band' else bool(v) and all(re.search(r'\b' + re.escape(w[:4]), ans) for w in v.split())
                C['said' if ok else 'not_said'] += 1
            prevf = fr
            if t.get('recommendations'): last = [r['item_id'] for r in t['recommendations'][:3]]
    tot.update(C)
    print(f"{f.split('/')[-1].replace('.sim.jsonl',''):30s} {dict(C)}")
print('total', dict(tot))
