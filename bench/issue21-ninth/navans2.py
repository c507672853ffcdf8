#!/usr/bin/env python3
"""Item questions (agenda Navigate naming an item): the asked attribute from the user's words (cue);
answered = the item's value (or a '$' price for price_band) in the agent's answer with the item's title removed,
matched loosely (first 4 letters of each value word) to catch forms a strict matcher misses.
Counts per file: questions, answered-loose, unanswered, next turn push/pull, and for the new push reason:
'false unanswered' = pushed as unanswered though the loose matcher finds the value. usage: navans2.py CATALOG FILES"""
import json, sys, re, collections
CAT = {json.loads(l)['item_id']: json.loads(l) for l in open(sys.argv[1])}
CUE = [('price_band', r'price|cost|budget'), ('colour', r'colou?r'), ('material', r'material|fabric|made of'), ('style', r'style'),
       ('gender', r'gender|for whom|men|women'), ('occasion', r'occasion'), ('type', r'\btype|kind')]
for f in sys.argv[2:]:
    C = collections.Counter(); ex = []
    for ln, l in enumerate(open(f), 1):
        c = json.loads(l); T = c['turns']
        for i, t in enumerate(T):
            tr = t['trace']
            if tr.get('user_act') != 'Navigate' or not (tr.get('said') or {}).get('items') or not t.get('assistant_utterance'): continue
            it = CAT[tr['said']['items'][0]]; u = t['user_utterance'].lower().replace(it['title'].lower(), ' ')
            attr = next((a for a, r in CUE if re.search(r, u)), None)
            if attr is None: C['no_cue'] += 1; continue
            a = t['assistant_utterance'].lower().replace(it['title'].lower(), ' ')
            if attr == 'price_band': ok = '$' in a or it['attributes'].get(attr, '@') in a
            else:
                v = str(it['attributes'].get(attr, '')).lower()
                ok = bool(v) and all(re.search(r'\b' + re.escape(w[:4]), a) for w in v.split())
            C['q'] += 1; C['answered' if ok else 'unanswered'] += 1
            nxt = T[i+1]['trace'] if i + 1 < len(T) else {}
            C[f"{'ans' if ok else 'unans'}_next_{nxt.get('operation')}"] += 1
            if 'did not say what the user asked' in (nxt.get('push_reason') or ''):
                C['pushed_unanswered'] += 1
                if ok: C['FALSE_unanswered'] += 1; ex.append(f"{ln} t{i} {attr}={it['attributes'].get(attr)} U:{t['user_utterance']} A:{t['assistant_utterance']}")
            if not ok: C['unans_' + attr] += 1
    print(f.split('/')[-1], dict(sorted(C.items())))
    for e in ex[:5]: print('   ', e)
