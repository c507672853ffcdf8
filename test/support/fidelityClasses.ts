/**
 * Counts issue 21's classes 1-9 (what the built-in simulated users do that their own models
 * forbid) from written conversations only (traces, carousels, catalog), so the same counts apply
 * to any build. bench/fidelityClasses.ts runs them over the 30 configurations; the unit test
 * test/unit/users/fidelity-classes.test.ts holds them at zero. A user turn i answers the carousel
 * of turn i-1. Definitions: see the header of bench/fidelityClasses.ts.
 */
import { askedAttributes, questionSentences } from '../../src/core/sim/users/phrases';
import type { Catalog, CatalogItem } from '../../src/core/catalog/item';
import type { Conversation, SimulatorTrace } from '../../src/core/model';

/** Counters of one configuration: [numerator, denominator] per class. */
export interface ClassCounts {
  c1: [number, number];
  c2: [number, number];
  c3: [number, number];
  c3ended: [number, number];
  c4: [number, number];
  c4metaSat: [number, number];
  c5: [number, number];
  c6: [number, number];
  c6nav: [number, number];
  c7: [number, number];
  c8: [number, number];
  c9: [number, number];
  c9goal: [number, number];
  /** Issue 21B: Reveal.Expand turns whose attribute the agent did not let go of (trace.agent.relaxed) / Expand turns taking a value back, against an agent that records its reading. */
  c15relax: [number, number];
  outcomes: Record<string, number>;
  turns: number;
  /** For the conformance table: final satisfaction and frustration summed over conversations with a trace. */
  finalSatisfaction: [number, number];
  finalFrustration: [number, number];
  /** PEPPER preference coverage at user turns 1, 5, 10 and 20 (sum, conversations that reached the turn). */
  coverage: Record<string, [number, number]>;
}

export function emptyCounts(): ClassCounts {
  const z = (): [number, number] => [0, 0];
  return {
    c1: z(),
    c2: z(),
    c3: z(),
    c3ended: z(),
    c4: z(),
    c4metaSat: z(),
    c5: z(),
    c6: z(),
    c6nav: z(),
    c7: z(),
    c8: z(),
    c9: z(),
    c9goal: z(),
    c15relax: z(),
    outcomes: {},
    turns: 0,
    finalSatisfaction: [0, 0],
    finalFrustration: [0, 0],
    coverage: { '1': [0, 0], '5': [0, 0], '10': [0, 0], '20': [0, 0] },
  };
}

function top3(turn: Conversation['turns'][number] | undefined): string[] {
  return (turn?.recommendations ?? []).slice(0, 3).map((r) => r.item_id);
}

function meetsGoal(item: CatalogItem, constraints: Record<string, unknown>): boolean {
  for (const [k, v] of Object.entries(constraints)) {
    if (k === 'category') {
      if (item.category !== String(v)) return false;
    } else if (item.attributes[k] !== String(v)) return false;
  }
  return true;
}

/** Adds one conversation's counts. */
export function countConversation(conv: Conversation, catalog: Catalog, meta: boolean, c: ClassCounts): Set<string> {
  const hits = new Set<string>();
  const before = JSON.stringify([
    c.c1[0],
    c.c2[0],
    c.c3[0],
    c.c3ended[0],
    c.c4[0],
    c.c5[0],
    c.c8[0],
    c.c9[0],
    c.c9goal[0],
  ]);
  const turns = conv.turns;
  const traces = turns.map((t) => t.trace as (SimulatorTrace & Record<string, unknown>) | undefined);
  c.turns += turns.length;
  c.outcomes[conv.outcome ?? 'none'] = (c.outcomes[conv.outcome ?? 'none'] ?? 0) + 1;
  const liked = new Set<string>();
  const disliked = new Set<string>();
  const said = new Map<string, string>();
  const negated = new Set<string>();
  const names = catalog.attributeNames();
  let satisfactionRoseWrongly = false;
  let hadCarousel = false;
  let accepted = false;
  const initialPatience = traces[0]?.patience;
  const first = traces[0];
  if (first?.goal && !meta && first.user_act !== undefined && Object.keys(first.goal.constraints ?? {}).length) {
    c.c9goal[1]++;
    const cat = String(first.goal.constraints.category ?? '');
    if (!catalog.categoryItems(cat).some((i) => meetsGoal(i, first.goal!.constraints))) c.c9goal[0]++;
  }
  if (first?.goal && (first.goal.requests ?? []).length) {
    c.c6[1]++;
    const last = traces[traces.length - 1];
    if ((last?.goal?.fulfilled_requests ?? []).length) c.c6[0]++;
  }
  for (let i = 0; i < turns.length; i++) {
    const tr = traces[i];
    if (!tr) continue;
    const act = tr.user_act ?? '';
    const prefs = tr.preferences;
    if (prefs) {
      for (const id of prefs.liked_items ?? []) liked.add(id);
      for (const id of prefs.disliked_items ?? []) {
        liked.delete(id);
        disliked.add(id);
      }
    }
    const items = tr.said?.items ?? [];
    const prev = turns[i - 1];
    if (prev?.recommendations?.length) hadCarousel = true;
    if (act === 'Note.Dislike') {
      c.c1[1]++;
      c.c7[1]++;
      if (items.some((id) => liked.has(id))) c.c1[0]++;
    }
    if (act === 'Note.Like') c.c7[0]++;
    if (act === 'Navigate') c.c6nav[0]++;
    c.c6nav[1]++;
    if (act === 'Note.Accept') {
      accepted = true;
      const item = items[0] ? catalog.get(items[0]) : undefined;
      if (item && meta) {
        c.c2[1]++;
        let breaks = false;
        for (const [k, v] of said)
          if (k !== 'category' && item.attributes[k] !== undefined && item.attributes[k] !== v) breaks = true;
        for (const v of Object.values(item.attributes)) if (negated.has(v)) breaks = true;
        if (breaks) c.c2[0]++;
      }
      if (item && !meta && tr.goal) {
        c.c9[1]++;
        if (!meetsGoal(item, tr.goal.constraints)) c.c9[0]++;
      }
    }
    if (act === 'Disclose.NonDisclose') {
      c.c8[1]++;
      const agentText = prev?.assistant_utterance ?? '';
      const asked = agentText ? askedAttributes(questionSentences(agentText), names) : [];
      const inGoal = asked.some((a) => tr.goal?.constraints[a] !== undefined);
      let later = false;
      for (let j = i + 1; j < turns.length && !later; j++) {
        const s = traces[j]?.said?.constraints ?? {};
        if (asked.some((a) => s[a] !== undefined)) later = true;
      }
      if (inGoal || later) c.c8[0]++;
    }
    if (act === 'Complete.Abandon') {
      c.c5[1]++;
      const shown = top3(prev);
      let onScreen = false;
      if (meta && tr.target && shown.includes(tr.target.item_id)) onScreen = true;
      if (!meta && tr.goal) {
        const consumed = new Set(traces[0]?.preferences?.consumed_items ?? []);
        for (const id of shown) {
          const item = catalog.get(id);
          if (
            item &&
            !consumed.has(id) &&
            !disliked.has(id) &&
            meetsGoal(item, tr.goal.constraints) &&
            !Object.values(item.attributes).some((v) => negated.has(v))
          )
            onScreen = true;
        }
      }
      if (onScreen) c.c5[0]++;
    }
    // c4: satisfaction rose on a turn answering a re-shown rejected carousel or an ignored "not X".
    if (
      i >= 2 &&
      tr.satisfaction !== undefined &&
      traces[i - 1]?.satisfaction !== undefined &&
      tr.satisfaction > traces[i - 1]!.satisfaction!
    ) {
      const now = top3(prev);
      const before = top3(turns[i - 2]);
      const rejectedBefore = traces[i - 1]!.user_act === 'Note.Dislike' || traces[i - 1]!.user_act === 'Note.Seen';
      const reshown =
        rejectedBefore && now.length > 0 && now.length === before.length && now.every((id, k) => id === before[k]);
      const ignoresNot =
        now.length > 0 &&
        negated.size > 0 &&
        now.every((id) => {
          const item = catalog.get(id);
          return item !== undefined && Object.values(item.attributes).some((v) => negated.has(v));
        });
      // A meta user's (possibly new) target among the items shown is what it came for: not a wrong rise.
      const targetShown = meta && tr.target !== undefined && now.includes(tr.target.item_id);
      if ((reshown || ignoresNot) && !targetShown) satisfactionRoseWrongly = true;
    }
    // A relaxed attribute (Reveal.Expand leaves it out of the goal) is taken back.
    if (act === 'Reveal.Expand')
      for (const k of [...said.keys()]) if (tr.goal && tr.goal.constraints[k] === undefined) said.delete(k);
    for (const [k, v] of Object.entries(tr.said?.constraints ?? {})) {
      said.set(k, String(v));
      negated.delete(String(v));
    }
    for (const v of tr.said?.negated ?? []) negated.add(v);
  }
  if (hadCarousel) {
    c.c4[1]++;
    if (satisfactionRoseWrongly) c.c4[0]++;
  }
  const last = traces[traces.length - 1];
  if (typeof last?.satisfaction === 'number') {
    c.finalSatisfaction[0] += last.satisfaction;
    c.finalSatisfaction[1]++;
  }
  if (typeof last?.frustration === 'number') {
    c.finalFrustration[0] += last.frustration;
    c.finalFrustration[1]++;
  }
  let coverage: number | undefined;
  traces.forEach((t, i) => {
    if (typeof t?.preference_coverage === 'number') coverage = t.preference_coverage;
    const slot = c.coverage[String(i + 1)];
    if (slot && coverage !== undefined) {
      slot[0] += coverage;
      slot[1]++;
    }
  });
  c.c3[1]++;
  if (last?.end_reason === 'completed' && (last.operation === 'push' || (last.agenda ?? []).length > 0)) c.c3[0]++;
  // (A run cut at max_turns / turn_cap is ended by the run, not by the user: left out here.)
  if (conv.outcome === 'ended' && last?.end_reason !== 'max_turns' && last?.end_reason !== 'turn_cap') {
    c.c3ended[1]++;
    if (
      !accepted &&
      typeof initialPatience === 'number' &&
      typeof last?.patience === 'number' &&
      last.patience < initialPatience
    )
      c.c3ended[0]++;
  }
  for (let k = 1; k < turns.length; k++) {
    const tr = traces[k];
    const agent = tr?.agent as { relaxed?: string[]; query?: string } | undefined;
    if (tr?.user_act !== 'Reveal.Expand' || !agent || (agent.query === undefined && agent.relaxed === undefined))
      continue;
    const list = (g: unknown): string[] => (Array.isArray(g) ? g.map(String) : []);
    const now = new Set(list(tr.goal?.disclosed));
    const gone = list(traces[k - 1]?.goal?.disclosed).filter((a) => a !== 'category' && !now.has(a));
    if (gone.length === 0) continue;
    c.c15relax[1]++;
    if (gone.some((a) => !(agent.relaxed ?? []).includes(a))) c.c15relax[0]++;
  }
  if (meta && !accepted && typeof last?.satisfaction === 'number') {
    c.c4metaSat[0] += last.satisfaction;
    c.c4metaSat[1]++;
  }
  const after = [c.c1[0], c.c2[0], c.c3[0], c.c3ended[0], c.c4[0], c.c5[0], c.c8[0], c.c9[0], c.c9goal[0]];
  const classNames = ['c1', 'c2', 'c3', 'c3ended', 'c4', 'c5', 'c8', 'c9', 'c9goal'];
  (JSON.parse(before) as number[]).forEach((v, k) => {
    if (after[k] !== v) hits.add(classNames[k]);
  });
  return hits;
}
