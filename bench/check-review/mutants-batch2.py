"""Second, independent batch of single-fault mutants (issue 22): other seeds, other conversations,
other wording than the reviewer's review-mut scripts. Usage: mut2.py SEED OUT_DIR RUN.jsonl...
Writes OUT_DIR/mutants.jsonl (one changed copy of a conversation per line) and OUT_DIR/meta.json
([{id, kind, turn, desc}]); score with score-mutants.py."""
import copy, json, random, re, sys

seed, out_dir, files = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
rng = random.Random(seed)
convs = [json.loads(l) for f in files for l in open(f) if l.strip()]
rng.shuffle(convs)

def tr(c, k): return c['turns'][k].get('trace') or {}
def shown_before(c, k):
    out = {}
    for t in c['turns'][:k]:
        for r in t.get('recommendations') or []: out.setdefault(r['item_id'], r)
    return out
def values_of(c, attr):
    return sorted({str(r['attributes'][attr]) for t in c['turns'] for r in (t.get('recommendations') or []) if attr in (r.get('attributes') or {})})

POSITIVE = ["Honestly the {t} is gorgeous.", "Ooh, I love the {t}!", "That {t} is really cute, I like it.", "The {t}? Yes, that's lovely.",
            "Now the {t} I really like.", "Oh wow, {t}, that's great."]

def like_words_dislike_label(c):
    ks = [k for k in range(len(c['turns'])) if tr(c, k).get('user_act') == 'Note.Dislike' and (tr(c, k).get('said') or {}).get('items')]
    for k in rng.sample(ks, len(ks)):
        it = shown_before(c, k).get(tr(c, k)['said']['items'][0])
        if it and it.get('title'):
            c['turns'][k]['user_utterance'] = rng.choice(POSITIVE).format(t=it['title']); return k, 'dislike label, liking words'
def relabel(frm, to, need_constraints=False):
    def f(c):
        ks = [k for k in range(len(c['turns'])) if tr(c, k).get('user_act') == frm and (not need_constraints or any(a != 'category' for a in ((tr(c, k).get('said') or {}).get('constraints') or {})))]
        if not ks: return None
        k = rng.choice(ks); tr(c, k)['user_act'] = to; return k, f'{frm} relabelled {to}'
    return f
def accept_hidden_goal(c):
    n = len(c['turns']); k = n - 1; x = tr(c, k)
    if 'Accept' not in (x.get('user_act') or '') or not (x.get('said') or {}).get('items') or x.get('target'): return None
    g = (x.get('goal') or {}).get('constraints') or {}; dis = set((x.get('goal') or {}).get('disclosed') or [])
    said = {}
    for j in range(n): said.update((tr(c, j).get('said') or {}).get('constraints') or {})
    hidden = [a for a in g if a != 'category' and a not in dis and a not in said]
    opts = []
    for it in shown_before(c, k).values():
        at = it.get('attributes') or {}
        if any(a in at and str(at[a]).lower() != str(v).lower() for a, v in said.items() if a != 'category'): continue
        if it.get('category') and g.get('category') and it['category'] != g['category']: continue
        for a in hidden:
            if a in at and str(at[a]).lower() != str(g[a]).lower(): opts.append((a, it))
    if not opts: return None
    a, it = rng.choice(opts); old = x['said']['items'][0]; x['said']['items'] = [it['item_id']]
    oldt = (shown_before(c, k).get(old) or {}).get('title') or ''
    u = c['turns'][k]['user_utterance']
    c['turns'][k]['user_utterance'] = u.replace(oldt, it['title']) if oldt and oldt in u else f"Great, I'll go with the {it['title']}."
    return k, f'accept {it["item_id"]} breaks unsaid goal {a}'
def silent_goal_disclosed(c):
    n = len(c['turns']); opts = []
    for k in range(1, n):
        x = tr(c, k); p = tr(c, k - 1)
        if x.get('target') or not x.get('goal') or not p.get('goal'): continue
        sc = (x.get('said') or {}).get('constraints') or {}
        for a in p['goal'].get('disclosed') or []:
            if a == 'category' or a in sc or a not in x['goal'].get('constraints', {}): continue
            if str(x['goal']['constraints'][a]) != str(p['goal']['constraints'].get(a)): continue
            others = [v for v in values_of(c, a) if v.lower() != str(x['goal']['constraints'][a]).lower()]
            if others: opts.append((k, a, rng.choice(others)))
    if not opts: return None
    k, a, w = rng.choice(opts); old = tr(c, k)['goal']['constraints'][a]
    for j in range(k, n):
        g = (tr(c, j).get('goal') or {}).get('constraints') or {}
        if str(g.get(a)) == str(old): g[a] = w
    return k, f'goal {a} {old}->{w} from turn {k}, nothing said'
def text_value_swap(c):
    ks = list(range(len(c['turns']))); rng.shuffle(ks)
    for k in ks:
        u = c['turns'][k].get('user_utterance') or ''
        for a, v in ((tr(c, k).get('said') or {}).get('constraints') or {}).items():
            if a == 'category' or not re.search(r'\b' + re.escape(str(v)) + r'\b', u, re.I): continue
            others = [w for w in values_of(c, a) if w.lower() != str(v).lower() and w.lower() not in u.lower()]
            if others:
                w = rng.choice(others); c['turns'][k]['user_utterance'] = re.sub(r'\b' + re.escape(str(v)) + r'\b', w, u, flags=re.I); return k, f'text {v}->{w}'

KINDS = {'like_words_dislike_label': like_words_dislike_label, 'relabel_like_dislike': relabel('Note.Like', 'Note.Dislike'),
         'relabel_dislike_like': relabel('Note.Dislike', 'Note.Like'), 'disclose_as_dislike': relabel('Disclose', 'Note.Dislike', True),
         'accept_hidden_goal': accept_hidden_goal, 'silent_goal_disclosed': silent_goal_disclosed, 'text_value_swap': text_value_swap}
PER_KIND = 25
out, meta = open(f'{out_dir}/mutants.jsonl', 'w'), []
for kind, f in KINDS.items():
    made = 0
    for c0 in rng.sample(convs, len(convs)):
        if made >= PER_KIND: break
        c = copy.deepcopy(c0); r = f(c)
        if not r: continue
        k, d = r; c['id'] = f'b2-{kind}-{made}-{c0["id"]}'; made += 1
        meta.append({'id': c['id'], 'kind': kind, 'turn': k, 'desc': d}); out.write(json.dumps(c) + '\n')
json.dump(meta, open(f'{out_dir}/meta.json', 'w'))
print(len(meta), 'mutants')
