/**
 * Interaction models of the agenda-based user (Zhang & Balog 2020, Sect. 4.2): how the agenda is
 * initialised and which act replaces the current one when the agent does not answer it well.
 *
 * - CIR6: the agenda is a chain of user main acts sampled from P(a_t+1 | a_t), gated by the CIR6
 *   diagram; a push samples the replacement from P(user act | agent act).
 * - QRFA: the agenda is a chain through the four QRFA classes (user Query/Feedback, agent
 *   Request/Answer) of which only the user steps are kept, each refined to a fine act with
 *   P(fine act | class); a push samples the class from P(user class | agent class), then the act.
 *
 * In both, the initial chain is resampled until Disclose is among its first five acts and it is
 * at most twelve acts long (the KDD'20 code's rule). Complete is kept only as the last act of a
 * chain (`completeLast`): the user completes when nothing else is pending.
 */
import * as z from 'zod';
import type { Rng } from '../../../random';
import { START, STOP, mainAct, qrfaAgentClass } from '../../../taxonomy/acts';
import { TransitionModel, loadJsonFile } from '../transitions';
import answersJson from './appropriate-answers.json';

/** Which agent acts answer which user act (src/core/sim/users/agenda/appropriate-answers.json). */
export const AnswerMappingSchema = z.looseObject({ answers: z.record(z.string(), z.array(z.string())) });
export type AnswerMapping = z.infer<typeof AnswerMappingSchema>;

export function defaultAnswerMapping(): AnswerMapping {
  return AnswerMappingSchema.parse(answersJson);
}

export function loadAnswerMapping(path: string): AnswerMapping {
  return loadJsonFile(path, AnswerMappingSchema);
}

/**
 * The indicator delta: does `agentAct` appropriately answer `userAct`? The user act's own entry
 * wins over its main act's; an entry naming a bare main act accepts all its sub-acts.
 */
export function isAppropriateAnswer(mapping: AnswerMapping, userAct: string, agentAct: string): boolean {
  const list = mapping.answers[userAct] ?? mapping.answers[mainAct(userAct)];
  if (!list) return false;
  const agentMain = mainAct(agentAct);
  for (const entry of list) if (entry === agentAct || entry === agentMain) return true;
  return false;
}

export type InteractionName = 'cir6' | 'qrfa';

/** The rule every initial agenda must satisfy. */
interface AgendaRule {
  /** Disclose must be among the first `discloseWithin` acts (default 5). */
  discloseWithin: number;
  /** At most this many acts (default 12). */
  maxLength: number;
  /** Give up resampling after this many chains and use the fallback agenda (default 1000). */
  maxAttempts: number;
}

export const DEFAULT_AGENDA_RULE: AgendaRule = { discloseWithin: 5, maxLength: 12, maxAttempts: 1000 };

/** A fallback agenda for a model whose chains never satisfy the rule. */
export const FALLBACK_AGENDA = ['Disclose', 'Note', 'Complete'];

export interface InitialAgenda {
  /** Top of the stack first. */
  agenda: string[];
  /** How many chains were sampled (1 = the first one passed). */
  attempts: number;
  fallback: boolean;
}

export interface InteractionModel {
  readonly name: InteractionName;
  readonly transitions: TransitionModel;
  readonly answers: AnswerMapping;
  /** Samples the initial agenda. */
  initialAgenda(rng: Rng): InitialAgenda;
  /** The push operation: a replacement act for an inappropriate agent act. */
  replacement(agentAct: string, rng: Rng): string;
  /** A fine act for an agenda entry that holds only a main act. */
  refine(act: string, rng: Rng): string;
  isAppropriate(userAct: string, agentAct: string): boolean;
}

function satisfies(chain: readonly string[], rule: AgendaRule): boolean {
  if (chain.length === 0 || chain.length > rule.maxLength) return false;
  const head = chain.slice(0, rule.discloseWithin);
  return head.some((a) => mainAct(a) === 'Disclose');
}

/**
 * Complete ends a dialogue, so it can only be the last act of an agenda: a chain that samples it
 * earlier (QRFA draws Complete as a Feedback act anywhere in the chain) keeps its other acts and
 * completes once they are done. Only a Complete at the end of the chain stays.
 */
function completeLast(chain: readonly string[]): string[] {
  return chain.filter((a, i) => i === chain.length - 1 || mainAct(a) !== 'Complete');
}

function sampleWithRule(draw: () => string[], rule: AgendaRule): InitialAgenda {
  for (let attempt = 1; attempt <= rule.maxAttempts; attempt++) {
    const chain = completeLast(draw());
    if (satisfies(chain, rule)) return { agenda: chain, attempts: attempt, fallback: false };
  }
  return { agenda: FALLBACK_AGENDA.slice(), attempts: rule.maxAttempts, fallback: true };
}

/** A chain longer than this is cut off (it would fail the length rule anyway). */
const CHAIN_CAP = 64;

class Cir6Model implements InteractionModel {
  readonly name = 'cir6' as const;
  constructor(
    readonly transitions: TransitionModel,
    readonly answers: AnswerMapping,
    private readonly rule: AgendaRule,
  ) {}

  initialAgenda(rng: Rng): InitialAgenda {
    return sampleWithRule(() => {
      const chain: string[] = [];
      let state = START;
      while (chain.length <= CHAIN_CAP) {
        state = this.transitions.nextCir6(state, rng);
        if (state === STOP) break;
        chain.push(state);
      }
      return chain;
    }, this.rule);
  }

  replacement(agentAct: string, rng: Rng): string {
    return this.transitions.replacement(agentAct, rng);
  }

  refine(act: string, rng: Rng): string {
    return act.includes('.') ? act : this.transitions.subAct(act, rng);
  }

  isAppropriate(userAct: string, agentAct: string): boolean {
    return isAppropriateAnswer(this.answers, userAct, agentAct);
  }
}

class QrfaModel implements InteractionModel {
  readonly name = 'qrfa' as const;
  constructor(
    readonly transitions: TransitionModel,
    readonly answers: AnswerMapping,
    private readonly rule: AgendaRule,
  ) {}

  initialAgenda(rng: Rng): InitialAgenda {
    return sampleWithRule(() => {
      const chain: string[] = [];
      let state = START;
      let steps = 0;
      while (chain.length <= CHAIN_CAP && steps++ < CHAIN_CAP * 3) {
        state = this.transitions.nextQrfa(state, rng);
        if (state === STOP) break;
        if (state === 'Query' || state === 'Feedback') chain.push(this.transitions.qrfaFineAct(state, rng));
      }
      return chain;
    }, this.rule);
  }

  replacement(agentAct: string, rng: Rng): string {
    const agentClass = qrfaAgentClass(agentAct);
    const q = this.transitions.qrfaProbability(agentClass, 'Query');
    const f = this.transitions.qrfaProbability(agentClass, 'Feedback');
    const cls = rng.weighted([q, f]) === 0 ? 'Query' : 'Feedback';
    return this.transitions.qrfaFineAct(cls, rng);
  }

  refine(act: string, rng: Rng): string {
    return act.includes('.') ? act : this.transitions.subAct(act, rng);
  }

  isAppropriate(userAct: string, agentAct: string): boolean {
    return isAppropriateAnswer(this.answers, userAct, agentAct);
  }
}

interface InteractionOptions {
  transitions: TransitionModel;
  answers?: AnswerMapping;
  rule?: Partial<AgendaRule>;
}

/** Builds the CIR6 or QRFA interaction model. */
export function createInteractionModel(name: InteractionName, options: InteractionOptions): InteractionModel {
  const answers = options.answers ?? defaultAnswerMapping();
  const rule = { ...DEFAULT_AGENDA_RULE, ...options.rule };
  if (name === 'cir6') return new Cir6Model(options.transitions, answers, rule);
  if (name === 'qrfa') return new QrfaModel(options.transitions, answers, rule);
  throw new Error(`unknown interaction model "${String(name)}" (expected cir6 or qrfa)`);
}
