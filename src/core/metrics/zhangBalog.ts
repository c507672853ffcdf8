/**
 * The simulation-evaluation metrics of Zhang & Balog (KDD 2020): AvgTurns, UserActRatio, DS-KL,
 * Reward, Success Rate, and the agreement of system rankings under real and simulated users.
 */
import { conversationOutcome, isUserOutcome, reportedOutcome, type Conversation, type UserOutcome } from '../model';
import { dialogueKitStats } from '../importers/dialoguekitStats';
import { klDivergence } from '../stats/agreement';
import { kendallTau } from '../stats/kendall';
import { userActsPerTurn, type ActSource } from './features';

/** AvgTurns and UserActRatio with DialogueKit's definitions. */
interface CorpusShape {
  conversations: number;
  /** Mean over conversations of speaker changes / 2. */
  avg_turns: number;
  user_utterances: number;
  agent_utterances: number;
  /** user utterances / agent utterances. */
  user_act_ratio: number;
}

/** AvgTurns (speaker changes / 2, averaged) and UserActRatio (user / agent utterances). */
export function corpusShape(conversations: readonly Conversation[]): CorpusShape {
  const s = dialogueKitStats(conversations);
  return {
    conversations: s.conversations,
    avg_turns: s.avgTurns,
    user_utterances: s.userUtterances,
    agent_utterances: s.agentUtterances,
    user_act_ratio: s.ratio,
  };
}

/** Counts of user acts over every user turn of a population. */
export function userActCounts(conversations: readonly Conversation[], src: ActSource): Map<string, number> {
  const counts = new Map<string, number>();
  for (const c of conversations) {
    const per = userActsPerTurn(c, src);
    for (const acts of per ?? []) for (const a of acts ?? []) counts.set(a, (counts.get(a) ?? 0) + 1);
  }
  return counts;
}

/** DS-KL between a simulated (P) and a real (Q) user-act distribution. */
export interface DsKl {
  value: number;
  kl_sim_real: number;
  kl_real_sim: number;
  acts: string[];
  /** Smoothed distributions over `acts`. */
  p_sim: number[];
  q_real: number[];
  alpha: number;
}

/**
 * DS(P||Q) = (KL(P||Q) + KL(Q||P)) / 2 over the union of acts seen in either population.
 * Smoothing: `alpha` pseudo-counts (default 1, Laplace) are added to every act's count on both
 * sides before normalising, so an act missing on one side gives a finite value; alpha = 0 gives
 * the raw divergence (+∞ when an act occurs on one side only).
 */
export function dsKl(simCounts: ReadonlyMap<string, number>, realCounts: ReadonlyMap<string, number>, alpha = 1): DsKl {
  const acts = [...new Set([...simCounts.keys(), ...realCounts.keys()])].sort();
  const p = acts.map((a) => (simCounts.get(a) ?? 0) + alpha);
  const q = acts.map((a) => (realCounts.get(a) ?? 0) + alpha);
  const sp = p.reduce((s, v) => s + v, 0);
  const sq = q.reduce((s, v) => s + v, 0);
  if (acts.length === 0 || sp === 0 || sq === 0) {
    return { value: NaN, kl_sim_real: NaN, kl_real_sim: NaN, acts, p_sim: [], q_real: [], alpha };
  }
  const a = klDivergence(p, q);
  const b = klDivergence(q, p);
  return {
    value: (a + b) / 2,
    kl_sim_real: a,
    kl_real_sim: b,
    acts,
    p_sim: p.map((v) => v / sp),
    q_real: q.map((v) => v / sq),
    alpha,
  };
}

/** Reward settings (Zhang & Balog: Full 20, Cost 1, 4 points per function). */
export interface RewardConfig {
  /** Points for a fully capable agent. Default 20. */
  full?: number;
  /** Cost per user turn. Default 1. */
  cost?: number;
  /** Points per function; the defaults are the paper's five functions at 4 points each. */
  functionPoints?: Readonly<Record<string, number>>;
  /** Functions the agent does not support (their points are taken off Full). */
  unsupported?: readonly string[];
  /** Only successful conversations earn Full (default true); failed ones score 0. */
  requireSuccess?: boolean;
}

const DEFAULT_FUNCTION_POINTS: Readonly<Record<string, number>> = {
  disclose: 4,
  refine: 4,
  inquire: 4,
  navigate: 4,
  mixed_initiative: 4,
};

/**
 * Number of user turns for the reward: user turns, with consecutive Repeat actions (trace
 * user_act containing "repeat") counted as one turn.
 */
export function rewardTurns(conv: Conversation): number {
  let t = 0;
  let lastRepeat = false;
  for (const turn of conv.turns) {
    if (!turn.user_utterance || !turn.user_utterance.trim()) continue;
    const repeat = /repeat/i.test(turn.trace?.user_act ?? '');
    if (repeat && lastRepeat) continue;
    t++;
    lastRepeat = repeat;
  }
  return t;
}

/** The effective Full after deducting unsupported functions. */
export function effectiveFull(cfg: RewardConfig = {}): number {
  const pts = cfg.functionPoints ?? DEFAULT_FUNCTION_POINTS;
  let full = cfg.full ?? 20;
  for (const f of cfg.unsupported ?? []) {
    const key = f.toLowerCase().replace(/[\s-]+/g, '_');
    if (!(key in pts)) throw new Error(`unknown function "${f}" (known: ${Object.keys(pts).join(', ')})`);
    full -= pts[key];
  }
  return full;
}

/** Reward = max(0, Full − Cost·T) for a successful conversation (accepted outcome), else 0. */
export function conversationReward(conv: Conversation, cfg: RewardConfig = {}): number {
  const success = conversationOutcome(conv) === 'accepted';
  if ((cfg.requireSuccess ?? true) && !success) return 0;
  return Math.max(0, effectiveFull(cfg) - (cfg.cost ?? 1) * rewardTurns(conv));
}

/** User outcomes of a population, with the conversations that report none counted apart. */
export interface ZbOutcomes {
  conversations: number;
  /** Conversations that report an outcome: the denominator of the outcome shares. */
  known: number;
  accepted: number;
  ended: number;
  gave_up: number;
  abandoned: number;
  /** Failures of the run (agent_error, simulator_error): never a user outcome. */
  failed: number;
  /** Conversations that report no outcome: never counted as accepted or ended. */
  unknown: number;
}

/** Counts reported outcomes; a conversation without one is `unknown`, never `ended`. */
export function zbOutcomes(conversations: readonly Conversation[]): ZbOutcomes {
  const out: ZbOutcomes = {
    conversations: conversations.length,
    known: 0,
    accepted: 0,
    ended: 0,
    gave_up: 0,
    abandoned: 0,
    failed: 0,
    unknown: 0,
  };
  for (const c of conversations) {
    const o = reportedOutcome(c);
    if (o === undefined) out.unknown++;
    else if (isUserOutcome(o)) {
      out.known++;
      out[o]++;
    } else out.failed++;
  }
  return out;
}

/** A share of the user outcomes over the conversations that report one; NaN when none does. */
export function zbOutcomeShare(o: ZbOutcomes, outcome: UserOutcome): number {
  return o.known > 0 ? o[outcome] / o.known : NaN;
}

/**
 * "outcome unknown: 2 of 77 (shares are of the 75 that report one)", or undefined when every
 * conversation reports an outcome.
 */
export function describeUnknownOutcomes(o: ZbOutcomes): string | undefined {
  if (o.unknown === 0) return undefined;
  return `outcome unknown: ${o.unknown} of ${o.conversations} (shares are of the ${o.known} that report one; Reward is their mean)`;
}

/** Success rate on the turn level: the share of judged turns whose agent action was appropriate. */
export interface SuccessRate {
  /** Turns with a trace operation of pull (appropriate) or push (not). */
  turns: number;
  appropriate: number;
  rate: number;
  /** Mean over conversations of their own rate (conversations without judged turns left out). */
  mean_per_conversation: number;
}

/**
 * Success Rate: a turn counts as a success when the simulated user's NLU found the agent's action
 * appropriate, i.e. the agenda was pulled (`trace.operation = "pull"`); a push is a failure.
 */
export function successRate(conversations: readonly Conversation[]): SuccessRate {
  let turns = 0;
  let ok = 0;
  let convSum = 0;
  let convN = 0;
  for (const c of conversations) {
    let t = 0;
    let o = 0;
    for (const turn of c.turns) {
      const op = turn.trace?.operation;
      if (op !== 'pull' && op !== 'push') continue;
      t++;
      if (op === 'pull') o++;
    }
    turns += t;
    ok += o;
    if (t) {
      convSum += o / t;
      convN++;
    }
  }
  return {
    turns,
    appropriate: ok,
    rate: turns ? ok / turns : NaN,
    mean_per_conversation: convN ? convSum / convN : NaN,
  };
}

/** Zhang & Balog's table row for one population. */
export interface ZbSummary extends CorpusShape {
  /** Mean Reward over `reward_conversations`; NaN when there are none. */
  reward: number;
  /**
   * The conversations the Reward averages: those that report an outcome (Reward depends on
   * success), or all of them when success is not required. Set by zhangBalogSummary.
   */
  reward_conversations?: number;
  /** Reported outcomes, unknown ones apart. Set by zhangBalogSummary. */
  outcomes?: ZbOutcomes;
  success_rate: SuccessRate;
}

/**
 * AvgTurns, UserActRatio, mean Reward and Success Rate of a population. Reward is averaged over the
 * conversations that report an outcome: one without an outcome is neither a success nor a failure.
 */
export function zhangBalogSummary(conversations: readonly Conversation[], reward: RewardConfig = {}): ZbSummary {
  const shape = corpusShape(conversations);
  const needsOutcome = reward.requireSuccess ?? true;
  const rewarded = needsOutcome ? conversations.filter((c) => reportedOutcome(c) !== undefined) : conversations;
  const r = rewarded.length ? rewarded.reduce((s, c) => s + conversationReward(c, reward), 0) / rewarded.length : NaN;
  return {
    ...shape,
    reward: r,
    reward_conversations: rewarded.length,
    outcomes: zbOutcomes(conversations),
    success_rate: successRate(conversations),
  };
}

/** Agreement of system rankings under real and simulated users. */
export interface RankingAgreement {
  systems: string[];
  real: number[];
  simulated: number[];
  /** Systems ordered best first under each (equal scores by name: use the ranks to compare). */
  real_order: string[];
  simulated_order: string[];
  /**
   * Rank of each system (same order as `systems`), 1 = best; equal scores share a rank (standard
   * competition ranking: 1, 2, 2, 4), so no verdict depends on how ties happen to be ordered.
   */
  real_rank: number[];
  simulated_rank: number[];
  kendall_tau: number;
  p_value: number;
  /** Every system has the same rank under both (ties included). */
  same_order: boolean;
}

/** 1 + the number of strictly better scores (higher is better); NaN scores rank last together. */
function competitionRanks(values: readonly number[]): number[] {
  const key = (v: number) => (Number.isNaN(v) ? -Infinity : v);
  return values.map((v) => 1 + values.filter((w) => key(w) > key(v)).length);
}

/** Kendall's tau-b between the scores of the same systems under real and simulated users. */
export function rankingAgreement(
  real: Readonly<Record<string, number>>,
  simulated: Readonly<Record<string, number>>,
): RankingAgreement {
  const systems = Object.keys(real)
    .filter((s) => s in simulated)
    .sort();
  if (systems.length < 2)
    throw new Error('ranking agreement needs at least two systems scored under both real and simulated users');
  const r = systems.map((s) => real[s]);
  const m = systems.map((s) => simulated[s]);
  const order = (v: number[]) =>
    systems
      .map((s, i) => [s, v[i]] as const)
      .sort((a, b) => b[1] - a[1])
      .map((x) => x[0]);
  const tau = kendallTau(r, m);
  const rr = competitionRanks(r);
  const sr = competitionRanks(m);
  return {
    systems,
    real: r,
    simulated: m,
    real_order: order(r),
    simulated_order: order(m),
    real_rank: rr,
    simulated_rank: sr,
    kendall_tau: tau.statistic,
    p_value: tau.pvalue,
    same_order: rr.every((x, i) => x === sr[i]),
  };
}
