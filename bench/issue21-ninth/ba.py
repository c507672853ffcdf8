#!/usr/bin/env python3
"""Before/after rates per configuration from count.py outputs. usage: ba.py before.jsonl after.jsonl"""
import json, sys
def load(f): return {d['file']: d['counts'] for d in map(json.loads, open(f))}
B, A = load(sys.argv[1]), load(sys.argv[2])
def r(c, a, b):
    x, y = c.get(a, 0), c.get(b, 0)
    return f"{100*x/y:.1f}" if y else "-"
M = [('B nav unanswered %', 'navigate_unanswered', 'navigate_item_q'), ('B ..then pull %', 'navigate_unanswered_next_pull', 'navigate_unanswered'),
     ('E fulfilled, value not said %', 'c6_fulfilled_value_not_in_answer_minus_title', 'requests_fulfilled'),
     ('c6 convs w/ fulfilled req %', 'c6_convs_request_fulfilled', 'convs_with_requests'),
     ('A completed w/ req pending %', 'completed_request_unanswered', 'completed'), ('A completed, no goal item shown %', 'completed_never_shown_goal_item', 'completed'),
     ('c3 completed but unserved %', 'c3_completed_but_unserved', 'completed'),
     ('G push for kept carousel / pushes %', 'push_reshow_when_agent_only_kept_carousel', 'pushes'),
     ('c4 sat up on reshown rejected %', 'c4_sat_up_on_reshown_rejected', 'convs'),
     ('c5 leave w/ answer on screen %', 'c5_leave_with_answer_on_screen', 'leaves'),
     ('accepted %', 'outcome_accepted', 'convs'), ('ended %', 'outcome_ended', 'convs'), ('gave_up %', 'outcome_gave_up', 'convs'), ('abandoned %', 'outcome_abandoned', 'convs')]
keys = sorted(B, key=lambda f: (f.split('_')[2], f.split('_')[1], f.split('_')[0]))
for name, a, b in M:
    print(f"## {name} (before -> after)")
    for f in keys: print(f"   {f:30s} {r(B[f], a, b):>6} -> {r(A.get(f, {}), a, b):>6}   ({B[f].get(a,0)}/{B[f].get(b,0)} -> {A.get(f,{}).get(a,0)}/{A.get(f,{}).get(b,0)})")
