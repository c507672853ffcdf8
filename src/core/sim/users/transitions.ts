/**
 * Transition counts for the agenda-based simulator's interaction models, estimated from any
 * annotated corpus (canonical conversations whose utterances carry dialogue-act annotations), and
 * the smoothed probability model built on them.
 *
 * Counts are kept as plain JSON (`TransitionCounts`) so a researcher can inspect, edit or ship
 * them; `TransitionModel` turns them into probabilities with additive smoothing over the support
 * the interaction model allows.
 */
import { readFileSync } from 'node:fs';
import * as z from 'zod';
import type { Conversation, Annotation } from '../../model';
import type { Rng } from '../../random';
import {
  type ActAliases,
  ActAliasesSchema,
  CIR6_ACTS,
  START,
  STOP,
  mainAct,
  qrfaAgentClass,
  qrfaUserClass,
  toAgentAct,
  toUserAct,
  AGENT_UNKNOWN,
  defaultActAliases,
} from '../../taxonomy/acts';
import defaultCountsJson from './default-transitions.json';
import diagramJson from './cir6-diagram.json';
import { zodErrorMessage } from '../../jsonl/zodIssues';

const CountTable = z.record(z.string(), z.record(z.string(), z.number().nonnegative()));
type CountTable = Record<string, Record<string, number>>;

/** The JSON shape of an interaction model's counts (see src/core/sim/users/default-transitions.json). */
export const TransitionCounts = z.looseObject({
  format: z.literal('simlens-transitions/1'),
  source: z.string().optional(),
  dialogues: z.number().int().nonnegative().optional(),
  cir6: CountTable,
  qrfa: CountTable,
  agent_user: CountTable,
  sub_acts: CountTable,
  qrfa_fine: CountTable,
});
export type TransitionCounts = z.infer<typeof TransitionCounts>;

/** Allowed CIR6 transitions (src/core/sim/users/cir6-diagram.json). */
const Cir6Diagram = z.looseObject({ allowed: z.record(z.string(), z.array(z.string())) });
type Cir6Diagram = z.infer<typeof Cir6Diagram>;

/** The shipped default counts (hand-set pseudo-counts, documented in the data file). */
export function defaultTransitionCounts(): TransitionCounts {
  return TransitionCounts.parse(defaultCountsJson);
}

/** The shipped CIR6 diagram. */
function defaultCir6Diagram(): Cir6Diagram {
  return Cir6Diagram.parse(diagramJson);
}

/** Reads and validates a JSON data file; errors name the file and the offending field. */
export function loadJsonFile<T>(path: string, schema: z.ZodType<T>): T {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    // Keeps the file system's code and path: the CLI reports a missing file in plain words (exit 2).
    const io = err as NodeJS.ErrnoException;
    throw Object.assign(new Error(`${path}: cannot read (${io.message})`), { code: io.code, path, syscall: 'open' });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new Error(`${path}: not valid JSON (${(err as Error).message})`);
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new Error(zodErrorMessage(path, parsed.error, value));
  return parsed.data;
}

/** Loads a counts file written by `saveTransitionCounts` or by hand. */
export function loadTransitionCounts(path: string): TransitionCounts {
  return loadJsonFile(path, TransitionCounts);
}

export function loadCir6Diagram(path: string): Cir6Diagram {
  return loadJsonFile(path, Cir6Diagram);
}

export function loadActAliases(path: string): ActAliases {
  return loadJsonFile(path, ActAliasesSchema) as ActAliases;
}

// ---------------------------------------------------------------------------------------------
// Estimation

/** One utterance of a corpus dialogue with its acts mapped to simulator acts. */
interface MappedUtterance {
  speaker: 'user' | 'assistant';
  acts: string[];
}

interface EstimateOptions {
  aliases?: ActAliases;
  /** Which annotator's annotations to read; default "source", else the first annotator found. */
  annotator?: string;
  /** Written into the counts' `source` field. */
  source?: string;
}

function annotationsOf(
  list: readonly Annotation[] | undefined,
  speaker: 'user' | 'assistant',
  annotator: string | undefined,
): Annotation[] {
  if (!list) return [];
  const own = list.filter((a) => a.speaker === speaker);
  if (own.length === 0) return [];
  const wanted = annotator ?? (own.some((a) => a.annotator === 'source') ? 'source' : own[0].annotator);
  return own
    .filter((a) => a.annotator === wanted)
    .map((a, i) => ({ a, i }))
    .sort((x, y) => (x.a.segment ?? 0) - (y.a.segment ?? 0) || x.i - y.i)
    .map((x) => x.a);
}

/**
 * The dialogue as a sequence of utterances with simulator acts: per turn, the user's annotated
 * segments then the assistant's, labels mapped through the aliases; labels that map to nothing
 * are dropped, and utterances left without acts are skipped.
 */
function mappedUtterances(conv: Conversation, aliases: ActAliases, annotator?: string): MappedUtterance[] {
  const out: MappedUtterance[] = [];
  for (const turn of conv.turns) {
    for (const speaker of ['user', 'assistant'] as const) {
      for (const ann of annotationsOf(turn.annotations, speaker, annotator)) {
        const acts: string[] = [];
        for (const label of ann.acts) {
          const act = speaker === 'user' ? toUserAct(label, aliases) : toAgentAct(label, aliases);
          if (act) acts.push(act);
        }
        if (acts.length) out.push({ speaker, acts });
      }
    }
  }
  return out;
}

function bump(table: CountTable, from: string, to: string): void {
  const row = (table[from] ??= {});
  row[to] = (row[to] ?? 0) + 1;
}

/**
 * Counts act transitions in annotated conversations:
 * - cir6: user main act -> next user main act, with Start and Stop (agent turns skipped);
 * - qrfa: QRFA class -> next QRFA class over all acts in dialogue order, with Start and Stop;
 * - agent_user: the last act of an agent utterance -> the first act of the user utterance right after it;
 * - sub_acts: user main act -> fine act; qrfa_fine: QRFA user class -> fine act.
 * Acts inside one utterance count as consecutive steps. Dialogues without any mapped user act are skipped.
 */
export function estimateTransitions(
  conversations: Iterable<Conversation>,
  options: EstimateOptions = {},
): TransitionCounts {
  const aliases = options.aliases ?? defaultActAliases();
  const counts: TransitionCounts = {
    format: 'simlens-transitions/1',
    source: options.source ?? 'corpus',
    dialogues: 0,
    cir6: {},
    qrfa: {},
    agent_user: {},
    sub_acts: {},
    qrfa_fine: {},
  };
  for (const conv of conversations) {
    const utts = mappedUtterances(conv, aliases, options.annotator);
    if (!utts.some((u) => u.speaker === 'user')) continue;
    counts.dialogues = (counts.dialogues ?? 0) + 1;
    let prevUser = START;
    let prevClass = START;
    let prev: MappedUtterance | undefined;
    for (const u of utts) {
      if (u.speaker === 'user') {
        if (prev && prev.speaker === 'assistant') bump(counts.agent_user, prev.acts[prev.acts.length - 1], u.acts[0]);
        for (const act of u.acts) {
          const main = mainAct(act);
          bump(counts.cir6, prevUser, main);
          prevUser = main;
          bump(counts.sub_acts, main, act);
          const cls = qrfaUserClass(act);
          bump(counts.qrfa_fine, cls, act);
          bump(counts.qrfa, prevClass, cls);
          prevClass = cls;
        }
      } else {
        for (const act of u.acts) {
          const cls = qrfaAgentClass(act);
          bump(counts.qrfa, prevClass, cls);
          prevClass = cls;
        }
      }
      prev = u;
    }
    bump(counts.cir6, prevUser, STOP);
    bump(counts.qrfa, prevClass, STOP);
  }
  return counts;
}

// ---------------------------------------------------------------------------------------------
// Probabilities

/** A categorical distribution ready for sampling. */
interface Distribution {
  outcomes: string[];
  weights: number[];
}

function smoothed(row: Record<string, number> | undefined, support: readonly string[], alpha: number): Distribution {
  const outcomes = support.slice();
  const weights = outcomes.map((o) => (row?.[o] ?? 0) + alpha);
  return { outcomes, weights };
}

/** Probability of one outcome in a distribution. */
export function probability(dist: Distribution, outcome: string): number {
  let total = 0;
  let hit = 0;
  for (let i = 0; i < dist.outcomes.length; i++) {
    total += dist.weights[i];
    if (dist.outcomes[i] === outcome) hit += dist.weights[i];
  }
  return total > 0 ? hit / total : 0;
}

function sample(dist: Distribution, rng: Rng): string {
  return dist.outcomes[rng.weighted(dist.weights)];
}

interface TransitionModelOptions {
  /** Additive smoothing constant; default 0.5. */
  alpha?: number;
  diagram?: Cir6Diagram;
}

const QRFA_STATES = ['Query', 'Feedback', 'Request', 'Answer', STOP];

/**
 * Smoothed transition probabilities. CIR6 transitions are gated by the diagram (counts outside it
 * are ignored, smoothing only over allowed successors); QRFA transitions are smoothed over the
 * five QRFA states; replacement acts are smoothed over the user acts seen in the agent_user table.
 */
export class TransitionModel {
  readonly alpha: number;
  readonly counts: TransitionCounts;
  readonly diagram: Cir6Diagram;
  private readonly cir6 = new Map<string, Distribution>();
  private readonly qrfa = new Map<string, Distribution>();
  private readonly replacements = new Map<string, Distribution>();
  private readonly subActs = new Map<string, Distribution>();
  private readonly qrfaFine = new Map<string, Distribution>();
  private readonly replacementSupport: string[];

  constructor(counts: TransitionCounts, options: TransitionModelOptions = {}) {
    this.alpha = options.alpha ?? 0.5;
    if (!(this.alpha >= 0)) throw new RangeError(`smoothing alpha must be >= 0, got ${this.alpha}`);
    this.counts = counts;
    this.diagram = options.diagram ?? defaultCir6Diagram();
    for (const [from, to] of Object.entries(this.diagram.allowed))
      this.cir6.set(from, smoothed(counts.cir6[from], to, this.alpha));
    for (const from of [START, 'Query', 'Feedback', 'Request', 'Answer']) {
      this.qrfa.set(from, smoothed(counts.qrfa[from], QRFA_STATES, this.alpha));
    }
    const support = new Set<string>();
    for (const row of Object.values(counts.agent_user))
      for (const act of Object.keys(row)) if (act !== 'Complete.Abandon') support.add(act);
    if (support.size === 0) for (const a of CIR6_ACTS) support.add(a);
    this.replacementSupport = [...support].sort();
    for (const main of CIR6_ACTS) {
      const row = counts.sub_acts[main];
      const observed = row ? Object.keys(row).sort() : [];
      this.subActs.set(main, smoothed(row, observed.length ? observed : [main], this.alpha));
    }
    for (const cls of ['Query', 'Feedback']) {
      const row = counts.qrfa_fine[cls];
      const observed = row ? Object.keys(row).sort() : [];
      this.qrfaFine.set(
        cls,
        smoothed(row, observed.length ? observed : [cls === 'Query' ? 'Disclose' : 'Note'], this.alpha),
      );
    }
  }

  /** P(next main act | main act) under CIR6 (0 outside the diagram). */
  cir6Probability(from: string, to: string): number {
    const dist = this.cir6.get(from);
    return dist ? probability(dist, to) : 0;
  }

  /** Samples the next CIR6 state after `from` (a main act or Start); Stop ends the chain. */
  nextCir6(from: string, rng: Rng): string {
    const dist = this.cir6.get(from);
    if (!dist || dist.outcomes.length === 0) return STOP;
    return sample(dist, rng);
  }

  qrfaProbability(from: string, to: string): number {
    const dist = this.qrfa.get(from);
    return dist ? probability(dist, to) : 0;
  }

  /** Samples the next QRFA state (Query, Feedback, Request, Answer or Stop). */
  nextQrfa(from: string, rng: Rng): string {
    const dist = this.qrfa.get(from);
    return dist ? sample(dist, rng) : STOP;
  }

  /** The replacement distribution for an agent act: its own row, else its main act's rows, else Other, else all rows. */
  replacementDistribution(agentAct: string): Distribution {
    const cached = this.replacements.get(agentAct);
    if (cached) return cached;
    const table = this.counts.agent_user;
    let row: Record<string, number> | undefined = table[agentAct];
    if (!row) {
      const main = mainAct(agentAct);
      const merged: Record<string, number> = {};
      let found = false;
      for (const [k, r] of Object.entries(table)) {
        if (mainAct(k) !== main) continue;
        found = true;
        for (const [a, n] of Object.entries(r)) merged[a] = (merged[a] ?? 0) + n;
      }
      if (found) row = merged;
    }
    if (!row) row = table[AGENT_UNKNOWN];
    if (!row) {
      const all: Record<string, number> = {};
      for (const r of Object.values(table)) for (const [a, n] of Object.entries(r)) all[a] = (all[a] ?? 0) + n;
      row = all;
    }
    const dist = smoothed(row, this.replacementSupport, this.alpha);
    this.replacements.set(agentAct, dist);
    return dist;
  }

  /** Samples a replacement user act given the agent act (the push operation). */
  replacement(agentAct: string, rng: Rng): string {
    return sample(this.replacementDistribution(agentAct), rng);
  }

  /** Samples a fine act for a CIR6 main act. */
  subAct(main: string, rng: Rng): string {
    const dist = this.subActs.get(main);
    return dist ? sample(dist, rng) : main;
  }

  /** Samples a fine user act for a QRFA user class. */
  qrfaFineAct(cls: 'Query' | 'Feedback', rng: Rng): string {
    return sample(this.qrfaFine.get(cls)!, rng);
  }
}
