/**
 * One simulated conversation: the user speaks first, the agent answers, the user reacts, until the
 * user is done or the turn cap is reached. Every turn keeps the user's trace. A failure (the agent
 * failed, the user could not speak, an exception inside the simulator) ends the conversation and is
 * recorded on it (`metadata.error`, `metadata.error_kind`), never thrown to the run.
 */
import type { Annotation, Conversation, LlmCall, Outcome, RecommendedItem, SimulatorTrace, Turn } from '../model';
import { createRng, type Rng } from '../random';
import type { AgentResponse, AgentSession, HistoryEntry, UserSession, UserTurn } from '../sim/types';
import { CONVAPPAREL_TAXONOMY } from '../taxonomy';
import { toConvApparelUserAct } from '../taxonomy/acts';
import { isObserving } from '../sim/users/session';
import type { SimulationEnvironment } from './config';
import { llmFailureReason, stopsRun } from './llm';
import { LlmError } from '../llm/errors';
import { isAgentFailure, type FailureReason } from '../failures';

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

/** The recorded agent answer of a turn, as the user would have received it (never an error: a failed turn has no answer). */
export function agentResponseOfTurn(turn: Turn): AgentResponse {
  const acts = turn.annotations?.find((a) => a.speaker === 'assistant' && a.annotator === 'source')?.acts;
  const r: AgentResponse = {
    utterance: turn.assistant_utterance ?? '',
    recommendations: (turn.recommendations ?? []) as RecommendedItem[],
  };
  if (acts?.length) r.acts = acts.slice();
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
  /**
   * The run's hard abort: once aborted, an exception is not recorded as a failure of this
   * conversation but rethrown (the conversation was cut short, not finished; resume redoes it).
   */
  abort?: AbortSignal;
}

/** Why a finished conversation counts as a failure of the run. */
export interface ConversationFailure {
  reason: FailureReason;
  message: string;
}

/** One finished conversation and what the run accounts for it. */
export interface ConversationResult {
  conversation: Conversation;
  /** True when the conversation counts as a failure (`failure` says why). */
  failed: boolean;
  failure?: ConversationFailure;
  /** Wall time of each agent call that reported one (for the manifest's statistics; never written to the output). */
  agentLatencies: number[];
  /** Wall time of each LLM call recorded in the turns' traces (removed from the traces). */
  llmLatencies: number[];
}

function isPromiseLike(x: unknown): x is PromiseLike<unknown> {
  return (
    !!x && (typeof x === 'object' || typeof x === 'function') && typeof (x as { then?: unknown }).then === 'function'
  );
}

/**
 * The LLM calls of a trace as written: only what the model's answers determine. Left out are the
 * timings (`latency_ms`, pushed to `into`) and the transport record, which depends on the machine,
 * on concurrency and on whether the answer came from the cache: `cached`, `attempts` (retries,
 * statuses, waits) and `request_id`. So a resumed run, whose replayed calls are cache hits, writes
 * the same bytes as an uninterrupted one; requests, retries and cache hits are counted in the
 * manifest (`llm.usage`). Copies: the call records may be shared with the LLM services.
 */
function callsWithoutTimings(calls: readonly LlmCall[], into: number[]): LlmCall[] {
  return calls.map((call) => {
    const { latency_ms, cached: _cached, request_id: _request_id, ...rest } = call as LlmCall & { attempts?: unknown };
    if (typeof latency_ms === 'number') into.push(latency_ms);
    delete (rest as { attempts?: unknown }).attempts;
    return rest as LlmCall;
  });
}

/** A turn's trace as written: deterministic content only (no timings). */
function finalTrace(trace: SimulatorTrace, llmLatencies: number[]): SimulatorTrace {
  const t = trace as SimulatorTrace & { latency_ms?: unknown };
  if ('latency_ms' in t) delete t.latency_ms;
  if (Array.isArray(t.llm_calls)) t.llm_calls = callsWithoutTimings(t.llm_calls, llmLatencies);
  return t;
}

/** `trace.end_reason` of the last turn of a conversation the run's turn cap (`--max-turns`) cut off. */
export const TURN_CAP_END_REASON = 'max_turns';

/** The history the agent is given for the turns of a prefix (a fork's first turns). */
function historyOf(turns: readonly Turn[]): HistoryEntry[] {
  const history: HistoryEntry[] = [];
  for (const t of turns) {
    if (t.user_utterance !== undefined) history.push({ speaker: 'user', text: t.user_utterance });
    if (t.assistant_utterance !== undefined) history.push({ speaker: 'assistant', text: t.assistant_utterance });
  }
  return history;
}

/** The last turn of a user that could not speak: what it said (if anything) and its trace with the error. */
function failedUserTurn(
  u: UserTurn,
  failure: { reason: FailureReason; message: string },
  llmLatencies: number[],
): Turn {
  const turn: Turn = {};
  if (u.utterance) turn.user_utterance = u.utterance;
  turn.trace = finalTrace({ ...u.trace, error: failure.message, error_kind: failure.reason }, llmLatencies);
  return turn;
}

/**
 * The agent's answer to a user turn. A model request rejected for what it carries becomes this
 * turn's agent failure, like any agent failure: the user's utterance and state of this turn are
 * kept, with the error (not lost with the turn). Any other error is thrown.
 */
async function askAgent(
  agent: AgentSession,
  utterance: string,
  before: HistoryEntry[],
  abort: AbortSignal | undefined,
): Promise<AgentResponse> {
  try {
    return await agent.respond(utterance, before);
  } catch (err) {
    if (stopsRun(err) || abort?.aborted || !(err instanceof LlmError) || !isAgentFailure(llmFailureReason(err)))
      throw err;
    return { utterance: '', recommendations: [], error: err.message, error_kind: llmFailureReason(err) };
  }
}

/**
 * Puts the agent's answer into the turn (utterance, recommendations, acts, the agent's trace) and
 * shows it to a user that observes answers, whose trace fields join the turn's.
 */
async function takeAnswer(
  turn: Turn,
  annotations: Annotation[],
  trace: SimulatorTrace,
  response: AgentResponse,
  user: UserSession,
): Promise<void> {
  turn.assistant_utterance = response.utterance;
  if (response.recommendations.length) turn.recommendations = response.recommendations;
  if (response.acts?.length) annotations.push(agentAnnotation(response.acts));
  if (response.agent_trace) trace.agent = structuredClone(response.agent_trace);
  if (isObserving(user)) {
    // The contract is synchronous; a session that returns a promise anyway is awaited, never dropped.
    const seen: unknown = user.observe(response);
    const fields = isPromiseLike(seen) ? await seen : seen;
    if (fields && typeof fields === 'object') Object.assign(trace, fields);
  }
}

/**
 * Runs one conversation to its end and returns it (never throws, except for a stop of the whole
 * run: an LLM endpoint down or budget spent, or the hard abort).
 *
 * Failures end the conversation on the turn they happen and are never shown to the user:
 * - the agent answered with `error` (HTTP error, timeout, unreachable, malformed answer, LLM failure):
 *   the turn keeps the user utterance, `trace.error` and `trace.error_kind`, no assistant utterance;
 *   outcome `agent_error`; the user does not react (no patience is spent on an outage);
 * - the user could not produce a turn (`UserTurn.failure`): the turn keeps what the user recorded,
 *   with `trace.error`/`trace.error_kind`; outcome `simulator_error`;
 * - an exception inside the simulator: reason and outcome `simulator_error`, the turns so far are kept.
 * In every case `metadata.error` holds the message and `metadata.error_kind` the FailureReason.
 */
export async function runConversation(plan: ConversationPlan): Promise<ConversationResult> {
  const { env, user, agent } = plan;
  const turns: Turn[] = plan.prefix ? plan.prefix.map((t) => structuredClone(t)) : [];
  const history = historyOf(turns);
  let outcome: Outcome = 'ended';
  let failure: ConversationFailure | undefined;
  const agentLatencies: number[] = [];
  const llmLatencies: number[] = [];
  const metadata: Record<string, unknown> = { index: plan.index, ...plan.metadata };
  try {
    let u: UserTurn;
    if (plan.prefix && plan.prefix.length) {
      u = await user.respond(agentResponseOfTurn(plan.prefix[plan.prefix.length - 1]));
    } else {
      u = await user.start();
    }
    for (;;) {
      if (u.failure) {
        // The user could not speak: record what it did (its LLM calls, the reason) and stop.
        turns.push(failedUserTurn(u, u.failure, llmLatencies));
        outcome = 'simulator_error';
        failure = { reason: u.failure.reason, message: u.failure.message };
        break;
      }
      const turn: Turn = { user_utterance: u.utterance };
      const before = history.slice();
      history.push({ speaker: 'user', text: u.utterance });
      const annotations: Annotation[] = [userAnnotation(u.act, turns.length === 0)];
      const trace = u.trace;
      let response: AgentResponse | undefined;
      if (u.utterance !== '' || !u.done) {
        response = await askAgent(agent, u.utterance, before, plan.abort);
        if (typeof response.latency_ms === 'number' && Number.isFinite(response.latency_ms))
          agentLatencies.push(response.latency_ms);
        if (response.llm_calls?.length) trace.llm_calls = [...(trace.llm_calls ?? []), ...response.llm_calls];
        if (response.error || response.error_kind) {
          // An agent failure: this turn has no answer, the user never sees it, the conversation stops.
          const reason = response.error_kind ?? 'agent_malformed';
          const message = response.error || reason;
          trace.error = message;
          trace.error_kind = reason;
          turn.annotations = annotations;
          turn.trace = finalTrace(trace, llmLatencies);
          turns.push(turn);
          plan.onTurn?.(turns.length - 1);
          outcome = 'agent_error';
          failure = { reason, message };
          break;
        }
        history.push({ speaker: 'assistant', text: response.utterance });
        await takeAnswer(turn, annotations, trace, response, user);
      }
      turn.annotations = annotations;
      turn.trace = finalTrace(trace, llmLatencies);
      turns.push(turn);
      plan.onTurn?.(turns.length - 1);
      if (u.done) {
        outcome = u.outcome ?? 'ended';
        break;
      }
      if (turns.length >= env.maxTurns) {
        // The cap ends it, not the user: said here once for every kind of user.
        metadata.turn_cap = env.maxTurns;
        (turn.trace as Record<string, unknown>)['end_reason'] = TURN_CAP_END_REASON;
        break;
      }
      u = await user.respond(response!);
    }
  } catch (err) {
    if (stopsRun(err) || plan.abort?.aborted) throw err; // the run stops; this conversation is not finished
    // A request the endpoint rejects for what it carries (e.g. past the context length) fails this conversation only.
    const reason: FailureReason = err instanceof LlmError ? llmFailureReason(err) : 'simulator_error';
    outcome = isAgentFailure(reason) ? 'agent_error' : 'simulator_error';
    failure = { reason, message: err instanceof Error ? err.message : String(err) };
    // Stacks hold machine paths, so they are only recorded on request.
    if (process.env.SIMLENS_ERROR_STACKS && err instanceof Error && err.stack) metadata.error_stack = err.stack;
  } finally {
    user.close?.();
  }
  if (failure) {
    metadata.error = failure.message;
    metadata.error_kind = failure.reason;
  }
  return {
    conversation: assemble(env, plan.id, plan.task, turns, outcome, metadata),
    failed: failure !== undefined,
    failure,
    agentLatencies,
    llmLatencies,
  };
}

/** A conversation object with a fixed key order (the JSON is part of the reproducibility promise). */
function assemble(
  env: SimulationEnvironment,
  id: string,
  task: string,
  turns: Turn[],
  outcome: Outcome,
  metadata: Record<string, unknown>,
): Conversation {
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
export async function simulateConversation(
  env: SimulationEnvironment,
  index: number,
  opts: { abort?: AbortSignal } = {},
): Promise<ConversationResult> {
  const seed = env.config.seed;
  const id = simulatedConversationId(seed, index);
  const rng = conversationRng(seed, index);
  const task = taskFor(env, rng.fork('task'));
  try {
    const user = env.user.createSession(id, rng.fork('user'), { task });
    const agent = env.agent.createSession(id, rng.fork('agent'), { task });
    return await runConversation({ env, id, index, user, agent, task, abort: opts.abort });
  } catch (err) {
    if (stopsRun(err) || opts.abort?.aborted) throw err;
    return failedConversation(env, id, index, task, err);
  }
}

/** A conversation that could not even start (session creation failed): a `simulator_error`. */
function failedConversation(
  env: SimulationEnvironment,
  id: string,
  index: number,
  task: string,
  err: unknown,
): ConversationResult {
  const message = err instanceof Error ? err.message : String(err);
  const metadata = { index, error: message, error_kind: 'simulator_error' };
  return {
    conversation: assemble(env, id, task, [], 'simulator_error', metadata),
    failed: true,
    failure: { reason: 'simulator_error', message },
    agentLatencies: [],
    llmLatencies: [],
  };
}
