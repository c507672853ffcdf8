"""Echo simulator behind the Python reference adapter (bench/external.ts: turn-sized round trips).

Answers every turn at once with the turn it was given in ``start`` (``profile.turn``): the cost of a
round trip through examples/python/simlens_adapter.py with no simulator work.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples", "python"))
import simlens_adapter  # noqa: E402


class Echo:
    def __init__(self, context):
        self.turn = {"utterance": "ok", "acts": ["Disclose"]}

    def start(self, params):
        given = (params.get("profile") or {}).get("turn")
        if given:
            self.turn = given
        return self.turn

    def respond(self, params):
        return self.turn


simlens_adapter.serve(Echo, name="echo", version="1")
