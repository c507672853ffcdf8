"""A small agenda-based simulated user, written as the SimLens protocol example.

The user wants an item of its task's category with 1-3 attribute values drawn from the catalog.
Its agenda: one Disclose per value, then Note (look at what is shown). It reveals one value per
turn while the recommender asks, judges each carousel against what it has said so far, accepts the
first item that has every disclosed value once nothing is left to disclose, and loses one unit of
patience on each answer that does not help (no matching item, or a question when it has nothing
left to say). At patience 0 it leaves (Complete.Abandon).

Run it with SimLens:  simlens simulate --user exec:"python3 examples/python/agenda_user.py" --agent local-good --n 1000 --out mine.sim.jsonl
or over HTTP:          python3 examples/python/agenda_user.py --http 8765   (then --user http://127.0.0.1:8765/)
"""

import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import simlens_adapter  # noqa: E402

# Wordings of the two pushes, one per push (PATIENCE pushes at most, so none repeats).
NOT_THESE = ["Not these. What I want is %s.", "Still not right. I'm after %s.", "These don't fit. I asked for %s.", "No luck again. I need %s."]
SHOW_ME = ["Could you show me some %s?", "Do you have any %s at all?", "Can I see a few %s, please?", "Any %s you could show me?"]

PATIENCE = 3


class AgendaUser:
    def __init__(self, context):
        catalog = context.get("catalog", {})
        self.attributes = catalog.get("attributes", {})
        self.categories = catalog.get("categories", []) or sorted(self.attributes)

    # --- the state shown in each turn's trace -------------------------------------------------
    def trace(self, operation, act, pushed=None):
        t = {
            "agenda": list(self.agenda),
            "operation": operation,
            "pulled": [act] if operation in ("pull", "init") else [],
            "goal": {"constraints": dict(self.constraints), "requests": [], "disclosed": list(self.disclosed)},
            "patience": self.patience,
            "said": {"constraints": dict(self.said)},
        }
        if self.said_items:
            t["said"]["items"] = list(self.said_items)
        if pushed:
            t["pushed"] = pushed
        return t

    def turn(self, utterance, act, operation, done=False, outcome=None, end_reason=None, pushed=None):
        r = {"utterance": utterance, "acts": [act], "trace": self.trace(operation, act, pushed)}
        if done:
            r.update(done=True, outcome=outcome, end_reason=end_reason)
        return r

    def disclose_next(self):
        """Pops the next Disclose: says one more wanted value."""
        self.agenda.pop(0)
        attr = self.pending.pop(0)
        value = self.constraints[attr]
        self.disclosed.append(attr)
        self.said = {attr: value}
        return value

    # --- the protocol methods ---------------------------------------------------------------
    def start(self, params):
        rng = random.Random(params["seed"])
        self.task = params.get("task") or rng.choice(self.categories)
        attrs = self.attributes.get(self.task, {})
        names = sorted(a for a, values in attrs.items() if values)
        k = min(len(names), rng.randint(1, 3))
        chosen = rng.sample(names, k)
        self.constraints = {a: rng.choice(attrs[a]) for a in chosen}
        self.pending = list(chosen)
        self.disclosed = []
        self.said = {}
        self.patience = PATIENCE
        self.pushes = 0
        self.said_items = []
        self.agenda = ["Disclose"] * len(chosen) + ["Note"]
        if not chosen:
            return self.turn("Hi, I'm looking for %s." % self.task, "Disclose", "init")
        value = self.disclose_next()
        return self.turn("Hi, I'm looking for %s in %s." % (self.task, value), "Disclose", "init")

    def matches(self, item):
        if item.get("category") not in (None, self.task):
            return False
        attrs = item.get("attributes") or {}
        return all(str(attrs.get(a)) == str(self.constraints[a]) for a in self.disclosed)

    def push(self, utterance, act, said=None):
        self.patience -= 1
        self.pushes += 1
        self.said = dict(said or {})
        if self.patience <= 0:
            self.said = {}
            # A push leaves the pending agenda as it is: the user leaves with acts still planned.
            return self.turn("This is not getting anywhere, bye.", "Complete.Abandon", "push", True, "abandoned", "patience", ["Complete.Abandon"])
        return self.turn(utterance, act, "push", pushed=[act])

    def respond(self, params):
        recs = params.get("recommendations") or []
        if recs:
            good = [r for r in recs if self.matches(r)]
            if good and not self.pending:
                self.agenda = []
                self.said = {}
                self.said_items = [good[0]["item_id"]]  # the item it names, for the read-back check
                title = good[0].get("title") or good[0]["item_id"]
                return self.turn("Great, I'll take the %s." % title, "Note.Accept", "pull", True, "accepted", "goal_reached")
            if good:
                value = self.disclose_next()
                return self.turn("Nice, but I would like it in %s." % value, "Disclose", "pull")
            wanted = " and ".join(str(self.constraints[a]) for a in self.disclosed) or self.task
            # A different wording on every push, so the user never says the same thing twice.
            restated = {a: self.constraints[a] for a in self.disclosed}  # the values the text says again
            return self.push(NOT_THESE[self.pushes % len(NOT_THESE)] % wanted, "Note.Dislike", restated)
        if self.pending:
            value = self.disclose_next()
            return self.turn("I'd like it in %s." % value, "Disclose", "pull")
        return self.push(SHOW_ME[self.pushes % len(SHOW_ME)] % self.task, "Inquire")

    def restore(self, params):
        """Continues from recorded turns by replaying them with the same seed (this user is deterministic in it).

        ``params.get("continue_seed")`` (protocol 1.1, sent by forks) would reseed what the user draws
        from here on; this user draws only in ``start``, so its continuations differ only where the
        recommender's answers do.
        """
        self.start(params)
        for turn in params["turns"][:-1]:
            self.respond({"utterance": turn.get("assistant_utterance", ""), "recommendations": turn.get("recommendations", []), "acts": turn.get("agent_acts", [])})


if __name__ == "__main__":
    simlens_adapter.serve(AgendaUser, name="example-agenda-user", version="1.0")
