#!/usr/bin/env python3
"""Silent goal changes of meta users (issue 21, review finding H).

usage: h_silent.py [--target] CATALOG.jsonl FILE.sim.jsonl...

Per file: at each user turn (agent-error turns skipped) the goal's value of an attribute is
compared with the last value the user said for it (trace.said.constraints, up to and including
that turn; a Reveal.Expand that drops the attribute from goal.disclosed takes it back). The goal
is trace.goal.constraints (agenda user) or, without one, the current target's attributes from
the catalog (target-free user). A differing value is a "mismatch" (the user never said the goal's
value after saying another one). Printed: conversations with a mismatch on some turn, mismatched
(conversation, attribute, turn) count, the longest run of consecutive turns one attribute stays
mismatched (mean over mismatched conversations, max), conversations whose last user turn has a
mismatch (with their last user acts), and the outcome shares. With --target the agenda
user's goal is replaced by its current target's attributes too (the target switched, said or not).
"""
import json, sys
from collections import Counter

def load_catalog(path):
    items = {}
    with open(path) as f:
        for line in f:
            if line.strip():
                it = json.loads(line)
                items[it['item_id']] = it
    return items

TARGET = False

def goal_of(tr, catalog):
    g = (tr.get('goal') or {}).get('constraints')
    if g is not None and not TARGET:
        return {k: str(v) for k, v in g.items() if k != 'category' and v is not None}
    tid = (tr.get('target') or {}).get('item_id')
    it = catalog.get(tid)
    if not it:
        return None
    return {k: str(v) for k, v in it.get('attributes', {}).items() if k != 'category'}

def conv_stats(conv, catalog):
    said = {}
    prev_disclosed = None
    streak = Counter()
    longest = 0
    mism_turns = 0
    last_mism = False
    last_act = None
    switched = False
    for t in conv['turns']:
        tr = t.get('trace')
        if not tr or not tr.get('user_act') or tr.get('ignored_agent_error'):
            continue
        act = tr['user_act']
        if (tr.get('target') or {}).get('switched_from'):
            switched = True
        disclosed = (tr.get('goal') or {}).get('disclosed')
        if act == 'Reveal.Expand' and prev_disclosed is not None and disclosed is not None:
            for a in prev_disclosed:
                if a not in disclosed:
                    said.pop(a, None)
        if disclosed is not None:
            prev_disclosed = disclosed
        for k, v in ((tr.get('said') or {}).get('constraints') or {}).items():
            if k != 'category':
                said[k] = str(v)
        goal = goal_of(tr, catalog)
        bad = set()
        if goal is not None:
            for a, v in said.items():
                if a in goal and goal[a].lower() != v.lower():
                    bad.add(a)
        for a in list(streak):
            if a not in bad:
                del streak[a]
        for a in bad:
            streak[a] += 1
            longest = max(longest, streak[a])
        mism_turns += len(bad)
        last_mism = bool(bad)
        last_act = act
    return {'any': longest > 0, 'turns': mism_turns, 'longest': longest, 'end': last_mism,
            'end_complete': last_mism and (last_act or '').startswith('Complete'), 'switched': switched,
            'last_act': last_act}

def main():
    global TARGET
    args = sys.argv[1:]
    if args and args[0] == '--target':
        TARGET = True
        args = args[1:]
    catalog = load_catalog(args[0])
    print('file | n | switched | conv with mismatch | mismatched attr-turns | longest run mean/max | end mismatch (last acts) | outcomes')
    for path in args[1:]:
        rows = []
        outcomes = Counter()
        with open(path) as f:
            for line in f:
                if not line.strip():
                    continue
                conv = json.loads(line)
                rows.append(conv_stats(conv, catalog))
                outcomes[conv.get('outcome')] += 1
        n = len(rows)
        mis = [r for r in rows if r['any']]
        end = sum(r['end'] for r in rows)
        endc = sum(r['end_complete'] for r in rows)
        mean = sum(r['longest'] for r in mis) / len(mis) if mis else 0
        mx = max([r['longest'] for r in mis], default=0)
        acts = Counter(r['last_act'] for r in rows if r['end'])
        ends = ','.join(f'{a}:{k}' for a, k in sorted(acts.items())) or '-'
        out = ' '.join(f'{k}={100*v/n:.1f}%' for k, v in sorted(outcomes.items(), key=lambda kv: str(kv[0])))
        name = path.rsplit('/', 1)[-1].replace('.sim.jsonl', '')
        print(f'{name} | {n} | {sum(r["switched"] for r in rows)} | {len(mis)} ({100*len(mis)/n:.1f}%) | {sum(r["turns"] for r in rows)} | {mean:.2f}/{mx} | {end} ({100*end/n:.1f}%; {ends}) | {out}')

if __name__ == '__main__':
    main()
