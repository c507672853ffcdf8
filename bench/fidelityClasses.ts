/**
 * Issue 21, classes 1-9: what the built-in simulated users do that their own models forbid, counted
 * per configuration (user agenda CIR6/QRFA x single/PKG and target-free, x meta none/tol/prob, x
 * local-good/local-bad: 30 configurations, 500 conversations each by default).
 *
 *   npm run build && node dist/bench.js fidelity-classes [-- --n 500 --seed fidelity-21 --json out.json --no-results]
 *
 * Each class is counted from the written conversations only (traces, carousels, catalog), not from
 * the simulator's internals, so the same counts apply to any build. A user turn i answers the
 * carousel of turn i-1 (a turn is user utterance, then the agent's answer).
 *
 *  c1  Note.Dislike turns whose item the preference state (snapshot + deltas up to that turn)
 *      records as liked / all Note.Dislike turns.
 *  c2  (meta) accepts of an item with a value other than the last one the user said for that
 *      attribute, or a value it said it does not want / all accepts.
 *  c3  conversations ending `end_reason: completed` on a push, or with acts still on the agenda /
 *      all conversations; and among `ended` conversations, those whose user lost patience and never
 *      accepted.
 *  c4  conversations (with a carousel) where satisfaction rises on a turn that answers a carousel
 *      re-showing the first three items the user just rejected, or whose first three items all
 *      carry a value the user said it does not want; and (meta) the mean final satisfaction of
 *      users that never accepted.
 *  c5  Complete.Abandon turns with the target (meta) in the first three items read, or (no meta) an
 *      item there meeting every goal constraint and not consumed / all abandons.
 *  c6  conversations with goal requests that fulfil one / conversations with requests; user
 *      `Navigate` turns / user turns.
 *  c7  Note.Like turns / Note.Dislike turns.
 *  c8  Disclose.NonDisclose turns answering a question about an attribute the goal holds, or whose
 *      asked attribute the user states later / all NonDisclose turns.
 *  c9  (no meta) accepts of an item breaking a goal constraint (said or not) / all accepts; goals of
 *      the first turn that no catalog item meets / conversations with a goal.
 */
import { parseSimulationConfig, prepareEnvironment, simulateConversation } from '../src/core/run/index';
import { SIMULATOR_MATRIX } from '../test/support/simulators';
import { askedAttributes, questionSentences } from '../src/core/sim/users/phrases';
import type { Catalog, CatalogItem } from '../src/core/catalog/item';
import type { Conversation, SimulatorTrace } from '../src/core/model';
import { machineInfo, updateResultsSection } from './harness';
import { writeFileSync } from 'node:fs';

function argValue(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
}

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
  outcomes: Record<string, number>;
  turns: number;
}

export function emptyCounts(): ClassCounts {
  const z = (): [number, number] => [0, 0];
  return { c1: z(), c2: z(), c3: z(), c3ended: z(), c4: z(), c4metaSat: z(), c5: z(), c6: z(), c6nav: z(), c7: z(), c8: z(), c9: z(), c9goal: z(), outcomes: {}, turns: 0 };
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
  const before = JSON.stringify([c.c1[0], c.c2[0], c.c3[0], c.c3ended[0], c.c4[0], c.c5[0], c.c8[0], c.c9[0], c.c9goal[0]]);
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
        for (const [k, v] of said) if (k !== 'category' && item.attributes[k] !== undefined && item.attributes[k] !== v) breaks = true;
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
          if (item && !consumed.has(id) && !disliked.has(id) && meetsGoal(item, tr.goal.constraints) && !Object.values(item.attributes).some((v) => negated.has(v))) onScreen = true;
        }
      }
      if (onScreen) c.c5[0]++;
    }
    // c4: satisfaction rose on a turn answering a re-shown rejected carousel or an ignored "not X".
    if (i >= 2 && tr.satisfaction !== undefined && traces[i - 1]?.satisfaction !== undefined && tr.satisfaction > traces[i - 1]!.satisfaction!) {
      const now = top3(prev);
      const before = top3(turns[i - 2]);
      const rejectedBefore = traces[i - 1]!.user_act === 'Note.Dislike' || traces[i - 1]!.user_act === 'Note.Seen';
      const reshown = rejectedBefore && now.length > 0 && now.length === before.length && now.every((id, k) => id === before[k]);
      const ignoresNot = now.length > 0 && negated.size > 0 && now.every((id) => {
        const item = catalog.get(id);
        return item !== undefined && Object.values(item.attributes).some((v) => negated.has(v));
      });
      // A meta user's (possibly new) target among the items shown is what it came for: not a wrong rise.
      const targetShown = meta && tr.target !== undefined && now.includes(tr.target.item_id);
      if ((reshown || ignoresNot) && !targetShown) satisfactionRoseWrongly = true;
    }
    // A relaxed attribute (Reveal.Expand leaves it out of the goal) is taken back.
    if (act === 'Reveal.Expand') for (const k of [...said.keys()]) if (tr.goal && tr.goal.constraints[k] === undefined) said.delete(k);
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
  c.c3[1]++;
  if (last?.end_reason === 'completed' && (last.operation === 'push' || (last.agenda ?? []).length > 0)) c.c3[0]++;
  // (A run cut at max_turns / turn_cap is ended by the run, not by the user: left out here.)
  if (conv.outcome === 'ended' && last?.end_reason !== 'max_turns' && last?.end_reason !== 'turn_cap') {
    c.c3ended[1]++;
    if (!accepted && typeof initialPatience === 'number' && typeof last?.patience === 'number' && last.patience < initialPatience) c.c3ended[0]++;
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

function pct([a, b]: [number, number]): string {
  return b === 0 ? '–' : `${((100 * a) / b).toFixed(1)} %`;
}

export const CLASS_COLUMNS: [keyof ClassCounts, string][] = [
  ['c1', '1 Dislike of liked'], ['c2', '2 meta accept breaks said'], ['c3', '3 completed on push/pending'],
  ['c3ended', '3 ended: lost patience'], ['c4', '4 sat. rises wrongly'], ['c5', '5 abandon, answer shown'],
  ['c6', '6 request fulfilled'], ['c6nav', '6 Navigate turns'], ['c7', '7 Like/Dislike'], ['c8', '8 NonDisclose, goal holds'],
  ['c9', '9 accept breaks goal'], ['c9goal', '9 goal matches nothing'],
];

/**
 * --speed: microseconds per simulated turn over the agenda configurations (simulation only, no
 * counting; catalog of 3,000 items as in the simulation bench), printed as one line. Run it with
 * the old and the new build alternately to compare them side by side.
 */
async function speed(n: number, seed: string): Promise<void> {
  let turns = 0;
  let ms = 0;
  for (const { config } of SIMULATOR_MATRIX) {
    if (config.user !== 'agenda') continue;
    const env = await prepareEnvironment(parseSimulationConfig({ ...config, n, seed, catalog_size: 3000 }));
    for (let i = 0; i < 20; i++) await simulateConversation(env, n + i);
    const t = performance.now();
    for (let i = 0; i < n; i++) turns += (await simulateConversation(env, i)).conversation.turns.length;
    ms += performance.now() - t;
  }
  console.log(`speed: ${turns} turns in ${(ms / 1000).toFixed(2)} s, ${((1000 * ms) / turns).toFixed(1)} us/turn`);
}

export async function run(args: string[]): Promise<void> {
  const n = Number(argValue(args, '--n') ?? 500);
  if (args.includes('--speed')) return speed(n, argValue(args, '--seed') ?? 'fidelity-21-speed');
  const seed = argValue(args, '--seed') ?? 'fidelity-21';
  const only = argValue(args, '--only');
  /** Prints the first two conversations counted in this class (e.g. --dump c2), to read them. */
  const dump = argValue(args, '--dump');
  let dumped = 0;
  if (!(Number.isInteger(n) && n > 0)) throw new Error(`--n must be a positive whole number, got ${argValue(args, '--n')}`);
  const rows: string[] = [];
  const json: Record<string, ClassCounts> = {};
  const t0 = performance.now();
  for (const { name, config } of SIMULATOR_MATRIX) {
    if (only && !name.includes(only)) continue;
    const env = await prepareEnvironment(parseSimulationConfig({ ...config, n, seed, catalog_size: 800 }));
    const c = emptyCounts();
    for (let i = 0; i < n; i++) {
      const { conversation } = await simulateConversation(env, i);
      const hits = countConversation(conversation, env.catalog, config.meta !== undefined, c);
      if (dump && (hits.has(dump) || conversation.outcome === dump) && dumped++ < 2) console.log(JSON.stringify(conversation, null, 1));
    }
    json[name] = c;
    const metaSat = c.c4metaSat[1] ? (c.c4metaSat[0] / c.c4metaSat[1]).toFixed(3) : '–';
    const outcomes = Object.entries(c.outcomes).sort().map(([k, v]) => `${k} ${v}`).join(', ');
    const line = `| ${name} | ${CLASS_COLUMNS.map(([k]) => {
      const v = c[k] as [number, number];
      return k === 'c7' ? `${v[0]}/${v[1]}` : k === 'c6nav' ? `${v[0]}/${v[1]}` : pct(v);
    }).join(' | ')} | ${metaSat} | ${(c.turns / n).toFixed(2)} | ${outcomes} |`;
    rows.push(line);
    console.log(line);
  }
  const wall = (performance.now() - t0) / 1000;
  const header = `| configuration | ${CLASS_COLUMNS.map(([, t]) => t).join(' | ')} | meta unserved final sat. | turns/conv. | outcomes |`;
  const body = [
    `Machine: ${machineInfo()}`,
    '',
    `${n} conversations per configuration, seed "${seed}", ${wall.toFixed(1)} s. Definitions: bench/fidelityClasses.ts.`,
    '',
    header,
    `|${'---|'.repeat(CLASS_COLUMNS.length + 4)}`,
    ...rows,
  ].join('\n');
  const out = argValue(args, '--json');
  if (out) writeFileSync(out, JSON.stringify(json, null, 1));
  if (!args.includes('--no-results')) console.log(`wrote ${updateResultsSection('Simulated-user fidelity classes (issue 21)', body)}`);
  else console.log(header);
}
