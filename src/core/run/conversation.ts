/**
 * One simulated conversation: the user speaks first, the agent answers, the user reacts, until the
 * user is done or the turn cap is reached. Every turn keeps the user's trace; an exception inside
 * the conversation is caught and recorded on it (`metadata.error`), never thrown to the run.
 */
import type { Annotation, Conversation, Outcome, RecommendedItem, Turn } from '../model';
import { createRng, type Rng } from '../random';
import type { AgentResponse, AgentSession, HistoryEntry, UserSession, UserTurn } from '../sim/types';
import { CONVAPPAREL_TAXONOMY } from '../taxonomy';
import { toConvApparelUserAct } from '../users/acts';
import { isObserving } from '../users/session';
import type { SimulationEnvironment } from './config';
import { stopsRun } from '../llm/run';

/** The id of conversation `index` of a run with `seed`: stable, sortable, independent of everything else. */
export function simulatedConversationId(seed: string | number, index: number): string {
  const tag = String(seed).replace(/[^A-Za-z0-9_.-]+/g, '_');
  return `sim-${tag}-${String(index).padStart(6, '0')}`;
}

/** The Rng of conversation `index`: derived from the seed and the index only. */
export function conversationRng(seed: string | number, index: number): Rng {
  return createRng(`simlens-run/${String(seed)}`).fork(index);
}

/** An Rng whose source can be swapped mid-conversation (forks switch to fresh randomness). */
export class SwitchableRng implements Rng {
  constructor(private current: Rng) {}
  switchTo(rng: Rng): void {
    this.current = rng;
  }
  next(): number {
    return this.current.next();
  }
  int(n: number): number {
    return this.current.int(n);
  }
  pick<T>(items: readonly T[]): T {
    return this.current.pick(items);
  }
  weighted(weights: readonly number[]): number {
    return this.current.weighted(weights);
  }
  chance(p: number): boolean {
    return this.current.chance(p);
  }
  shuffle<T>(items: readonly T[]): T[] {
    return this.current.shuffle(items);
  }
  fork(label: string | number): Rng {
    return this.current.fork(label);
  }
}

const CONVAPPAREL_ASSISTANT = new Set(CONVAPPAREL_TAXONOMY.assistant);

function userAnnotation(act: string, first: boolean): Annotation {
  return { speaker: 'user', annotator: 'source', taxonomy: 'convapparel', acts: [toConvApparelUserAct(act, first)] };
}

function agentAnnotation(acts: readonly string[]): Annotation {
  const a: Annotation = { speaker: 'assistant', annotator: 'source', acts: acts.slice() };
  if (acts.every((x) => CONVAPPAREL_ASSISTANT.has(x))) a.taxonomy = 'convapparel';
  return a;
}

/** The recorded agent answer of a turn, as the user would have received it. */
export function agentResponseOfTurn(turn: Turn): AgentResponse {
  const acts = turn.annotations?.find((a) => a.speaker === 'assistant' && a.annotator === 'source')?.acts;
  const r: AgentResponse = { utterance: turn.assistant_utterance ?? '', recommendations: (turn.recommendations ?? []) as RecommendedItem[] };
  if (acts?.length) r.acts = acts.slice();
  if (turn.trace?.error) r.error = turn.trace.error;
  return r;
}

/** What drives one conversation. */
export interface ConversationPlan {
  env: SimulationEnvironment;
  id: string;
  /** For `metadata.index`. */
  index: number;
  user: UserSession;
  agent: AgentSession;
  task: string;
  /** Already recorded turns to continue from (forks); the last one's agent answer is fed to the user first. */
  prefix?: readonly Turn[];
  /** Called after each recorded turn (0-based index), e.g. to switch randomness for a fork. */
  onTurn?: (turnIndex: number) => void;
  metadata?: Record<string, unknown>;
}

/** Whether the agent's latency is recorded: only for remote agents (local agents must stay byte-stable). */
function recordsLatency(agentName: string): boolean {
  return !agentName.startsWith('local');
}

/** Runs one conversation to its end and returns it (never throws). */
export async function runConversation(plan: ConversationPlan): Promise<{ conversation: Conversation; failed: boolean }> {
  const { env, user, agent } = plan;
  const turns: Turn[] = plan.prefix ? plan.prefix.map((t) => structuredClone(t)) : [];
  const history: HistoryEntry[] = [];
  for (const t of turns) {
    if (t.user_utterance !== undefined) history.push({ speaker: 'user', text: t.user_utterance });
    if (t.assistant_utterance !== undefined) history.push({ speaker: 'assistant', text: t.assistant_utterance });
  }
  let outcome: Outcome = 'ended';
  let error: string | undefined;
  const metadata: Record<string, unknown> = { index: plan.index, ...plan.metadata };
  const latency = recordsLatency(env.agent.name);
  try {
    let u: UserTurn;
    if (plan.prefix && plan.prefix.length) {
      u = await user.respond(agentResponseOfTurn(plan.prefix[plan.prefix.length - 1]));
    } else {
      u = await user.start();
    }
    for (;;) {
      const turn: Turn = { user_utterance: u.utterance };
      const before = history.slice();
      history.push({ speaker: 'user', text: u.utterance });
      const annotations: Annotation[] = [userAnnotation(u.act, turns.length === 0)];
      let response: AgentResponse | undefined;
      if (u.utterance !== '' || !u.done) {
        response = await agent.respond(u.utterance, before);
        turn.assistant_utterance = response.utterance;
        if (response.recommendations.length) turn.recommendations = response.recommendations;
        if (response.acts?.length) annotations.push(agentAnnotation(response.acts));
        history.push({ speaker: 'assistant', text: response.utterance });
      }
      turn.annotations = annotations;
      const trace = u.trace;
      if (response) {
        if (isObserving(user)) Object.assign(trace, user.observe(response));
        if (response.error) trace.error = response.error;
        if (response.llm_calls?.length) trace.llm_calls = [...(trace.llm_calls ?? []), ...response.llm_calls];
        if (latency && response.latency_ms !== undefined) (trace as Record<string, unknown>)['latency_ms'] = response.latency_ms;
      }
      turn.trace = trace;
      turns.push(turn);
      plan.onTurn?.(turns.length - 1);
      if (u.done) {
        outcome = u.outcome ?? 'ended';
        break;
      }
      if (turns.length >= env.maxTurns) {
        metadata.turn_cap = env.maxTurns;
        break;
      }
      u = await user.respond(response!);
    }
  } catch (err) {
    if (stopsRun(err)) throw err; // LLM endpoint down or budget spent: not a finished conversation
    error = err instanceof Error ? err.message : String(err);
    // Stacks hold machine paths, so they are only recorded on request.
    if (process.env.SIMLENS_ERROR_STACKS && err instanceof Error && err.stack) metadata.error_stack = err.stack;
  }
  if (error !== undefined) metadata.error = error;
  return { conversation: assemble(env, plan.id, plan.task, turns, outcome, metadata), failed: error !== undefined };
}

/** A conversation object with a fixed key order (the JSON is part of the reproducibility promise). */
function assemble(env: SimulationEnvironment, id: string, task: string, turns: Turn[], outcome: Outcome, metadata: Record<string, unknown>): Conversation {
  const condition = env.agent.condition;
  const c: Record<string, unknown> = { id, task_id: condition ? `${task}_${condition}` : task };
  if (condition) c.condition = condition;
  c.source = env.user.name;
  c.agent = env.agent.name;
  c.turns = turns;
  c.outcome = outcome;
  c.metadata = metadata;
  return c as Conversation;
}

/** Picks the task (catalog category) of conversation `index`. */
export function taskFor(env: SimulationEnvironment, rng: Rng): string {
  return env.config.task ?? rng.pick(env.catalog.categories());
}

/** Simulates conversation `index` of the run described by `env` (deterministic in seed and index). */
export async function simulateConversation(env: SimulationEnvironment, index: number): Promise<{ conversation: Conversation; failed: boolean }> {
  const seed = env.config.seed;
  const id = simulatedConversationId(seed, index);
  const rng = conversationRng(seed, index);
  const task = taskFor(env, rng.fork('task'));
  try {
    const user = env.user.createSession(id, rng.fork('user'), { task });
    const agent = env.agent.createSession(id, rng.fork('agent'), { task });
    return await runConversation({ env, id, index, user, agent, task });
  } catch (err) {
    if (stopsRun(err)) throw err;
    return failedConversation(env, id, index, task, err);
  }
}

/** A conversation that could not even start (session creation failed). */
export function failedConversation(env: SimulationEnvironment, id: string, index: number, task: string, err: unknown): { conversation: Conversation; failed: boolean } {
  const metadata = { index, error: err instanceof Error ? err.message : String(err) };
  return { conversation: assemble(env, id, task, [], 'ended', metadata), failed: true };
}
