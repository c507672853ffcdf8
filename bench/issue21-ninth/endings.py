#!/usr/bin/env python3
"""Per configuration: outcome split (accepted/ended/gave_up/abandoned, % of 500), mean final satisfaction and
frustration, % of conversations with a goal request that fulfil one; then good-vs-bad ratios per user kind
(acceptance lower with local-bad, satisfaction good/bad, frustration bad/good). usage: endings.py DIR"""
import json, sys, glob, collections, os
R = {}
for f in sorted(glob.glob(sys.argv[1] + '/*.sim.jsonl')):
    C = collections.Counter(); sat = fr = 0.0; n = 0; req = ful = 0
    for l in open(f):
        c = json.loads(l); last = c['turns'][-1]['trace']; n += 1; C[c['outcome']] += 1
        sat += last.get('satisfaction', 0); fr += last.get('frustration', 0)
        g = last.get('goal') or {}
        if g.get('requests'): req += 1; ful += bool(g.get('fulfilled_requests'))
    name = os.path.basename(f).replace('.sim.jsonl', '')
    R[name] = dict(acc=100*C['accepted']/n, ended=100*C['ended']/n, gave_up=100*C['gave_up']/n, aband=100*C['abandoned']/n, sat=sat/n, fr=fr/n, req=100*ful/max(req,1))
    r = R[name]
    print(f"{name:30s} acc {r['acc']:5.1f} ended {r['ended']:5.1f} gave_up {r['gave_up']:5.1f} abandoned {r['aband']:5.1f} | sat {r['sat']:.3f} frus {r['fr']:.3f} | req fulfilled {r['req']:5.1f}%")
for u in ['cir6-single', 'cir6-pkg', 'qrfa-single', 'qrfa-pkg']:
    g, b = R.get(f'{u}_none_local-good'), R.get(f'{u}_none_local-bad')
    if g and b: print(f"ratios {u} (no meta): acceptance {100*(1-b['acc']/g['acc']):.0f}% lower with bad; satisfaction good/bad {g['sat']/b['sat']:.2f}; frustration bad/good {b['fr']/g['fr']:.2f}x")
