#!/usr/bin/env python3
"""Review finding 6 (issue 21, eleventh round): revisions (Reveal.Revise) worded as a slip
("I misspoke", "I got that wrong", "my mistake", "my bad") although the user changed its mind.

usage: ag_slips.py FILE.sim.jsonl...

Per file: Reveal.Revise turns, those whose text claims an earlier slip, and the share.
"""
import json, re, sys

SLIP = re.compile(r"misspoke|got that wrong|my mistake|my bad|mis-?typed|typo|meant to say|i was wrong|mistaken|slip of", re.I)
print('file | revisions | worded as a slip | share')
for path in sys.argv[1:]:
    revs = slips = 0
    with open(path) as f:
        for line in f:
            if not line.strip():
                continue
            for t in json.loads(line)['turns']:
                tr = t.get('trace') or {}
                if tr.get('user_act') != 'Reveal.Revise':
                    continue
                revs += 1
                if SLIP.search(t.get('user_utterance') or ''):
                    slips += 1
    name = path.rsplit('/', 1)[-1].replace('.sim.jsonl', '')
    print(f'{name} | {revs} | {slips} | {100 * slips / revs if revs else 0:.1f} %')
