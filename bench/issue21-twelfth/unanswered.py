#!/usr/bin/env python3
"""Issue 21, twelfth round: agent questions about a value the user's goal holds and the user has not
said yet, and whether the user's next turn says it (trace.said.constraints). Questions are found with
cue words of our own (independent of the simulator's NLU), per sentence with a "?". Unanswered ones
are broken down by whether the agent's turn showed items, the agent act the user understood
(trace.nlu.agent_act) and the user's act, with one example each.

    python3 bench/issue21-twelfth/unanswered.py RUN.jsonl [RUN.jsonl ...]

Runs: node dist/cli.js simulate --user agenda --interaction cir6|qrfa --preferences single|pkg
[--meta tol|prob] --agent local-good --n 500 --seed s12ag --out RUN.jsonl
"""
import json,sys,re,collections,os
CUES={'colour':['colour','color','shade'],'material':['material','fabric'],'style':['style','vibe'],
 'gender':['men','women','mens','womens','gender','unisex','section'],'occasion':['occasion','event'],
 'price_band':['price','budget','spend','afford'],'type':['type','kind','sort']}
def asked_attrs(text):
    out=set()
    for s in re.split(r'(?<=[.!?])\s+',text or ''):
        if '?' not in s: continue
        w=set(re.findall(r"[a-z']+",s.lower()))
        for a,cs in CUES.items():
            if w & set(cs): out.add(a)
    return out
for f in sys.argv[1:]:
    C=collections.Counter(); EX=collections.defaultdict(list)
    for line in open(f):
        c=json.loads(line); T=c['turns']
        for i in range(1,len(T)):
            aa=asked_attrs(T[i-1].get('assistant_utterance'))
            pg=T[i-1]['trace'].get('goal') or {}
            pend=[a for a in aa if a in pg.get('constraints',{}) and a not in set(pg.get('disclosed',[]))]
            if not pend: continue
            tr=T[i]['trace']; act=tr.get('user_act',''); scons=(tr.get('said') or {}).get('constraints',{})
            items=bool(T[i-1].get('recommendations'))
            main=(tr.get('nlu') or {}).get('agent_act','?')
            C['asked']+=1
            if any(a in scons for a in pend): C['answered']+=1; continue
            key=f"items={items} agent={main} user={act}"
            C['unanswered']+=1; C[key]+=1
            if len(EX[key])<2: EX[key].append(f"{c['id']} t{i} pend={pend} U: {T[i].get('user_utterance')} <= A: {T[i-1].get('assistant_utterance')}")
    print(os.path.basename(f), f"asked {C['asked']} unanswered {C['unanswered']}")
    for k,v in C.most_common():
        if k.startswith('items='): print(f"  {v:4d} {k}"); [print('      ',e[:300]) for e in EX[k][:1]]
