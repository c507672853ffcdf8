/**
 * Machinery shared by the LLM user simulators: the session's own history, seeded per-call sample
 * seeds, the "ask, parse, repair, retry" loop for Response/Terminate replies, the turn cap, and the
 * trace of each turn (LLM calls, repairs, errors).
 *
 * Error policy: transport failures (endpoint down, budget spent, cancelled) propagate, so the run
 * does not store the conversation as finished and a resumed run redoes it. A model that keeps
 * answering in an unusable shape ends its conversation with `trace.error` and a `user_llm`
 * failure on the turn, which the run counts as a failed conversation (kept, not a crash).
 */
import type { SimulatorTrace } from '../../../model';
import type { Rng } from '../../../random';
import type { AgentResponse, SessionContext, UserSession, UserTurn } from '../../types';
import type { ChatMessage, LlmClient, RecordedLlmCall } from '../../../llm/client';
import type { PromptLibrary } from '../../../llm/templates';
import { CATEGORY_EXAMPLES } from '../../../llm/templates';
import type { TranscriptEntry } from '../../../llm/transcript';
import { guessUserAct, parseUserReply, terminationOutcome } from './format';

export interface LlmUserOptions {
  /** Messages the user may send before the session ends (default 10). */
  maxTurns?: number;
  /** Extra attempts after an unusable reply (default 2). */
  maxRepairs?: number;
  /** Used when the session context names no task (default "footwear"). */
  defaultTask?: string;
}

/** The user's first-turn category words, e.g. "footwear" -> "footwear (sneakers, boots, ...)". */
export function renderTask(prompts: PromptLibrary, task: string): { text: string; id: string } {
  const category = task.replace(/_/g, ' ');
  return prompts.render('user-task', { category, category_examples: CATEGORY_EXAMPLES[task.toLowerCase()] ?? `any kind of ${category}` });
}

/** A fresh integer seed for one LLM call (what makes reruns and the cache line up). */
export function nextSeed(rng: Rng): number {
  return rng.int(0x7fffffff);
}

export interface AskResult {
  response: string;
  terminate: boolean;
  repairs: string[];
  calls: RecordedLlmCall[];
  /** Set when no usable reply came after every repair attempt. */
  error?: string;
}

/**
 * Sends `messages`, parses the Response/Terminate reply, and on an unusable reply appends it plus
 * a repair request and asks again (a new seed each time). Transport errors propagate.
 */
export async function askUser(
  client: LlmClient, prompts: PromptLibrary, rng: Rng, messages: ChatMessage[], template: string, maxRepairs: number,
): Promise<AskResult> {
  const calls: RecordedLlmCall[] = [];
  let convo = messages.slice();
  let lastProblem = '';
  for (let attempt = 0; attempt <= maxRepairs; attempt++) {
    const res = await client.chat({ messages: convo, seed: nextSeed(rng), template, purpose: attempt ? 'user.repair' : 'user.respond' });
    calls.push(res.call);
    const parsed = parseUserReply(res.text, res.finishReason);
    if (parsed.ok) return { response: parsed.response, terminate: parsed.terminate, repairs: parsed.repairs, calls };
    lastProblem = parsed.problem;
    const repair = prompts.render('user-format-repair', { problem: parsed.problem });
    convo = [...convo, { role: 'assistant', content: res.text }, { role: 'user', content: repair.text }];
  }
  return { response: '', terminate: true, repairs: [], calls, error: `user simulator output unusable after ${maxRepairs + 1} attempts: ${lastProblem}` };
}

/** Base class: subclasses build the messages for the next reply; this class runs the turn. */
export abstract class LlmUserSession implements UserSession {
  protected readonly history: TranscriptEntry[] = [];
  protected readonly task: string;
  protected readonly maxTurns: number;
  protected readonly maxRepairs: number;
  protected turnsTaken = 0;
  /** Template ids used by this session (for the trace). */
  protected templatesUsed = new Set<string>();

  constructor(
    protected readonly client: LlmClient,
    protected readonly prompts: PromptLibrary,
    protected readonly rng: Rng,
    protected readonly context: SessionContext,
    options: LlmUserOptions,
  ) {
    this.task = typeof context.task === 'string' && context.task ? context.task : options.defaultTask ?? 'footwear';
    this.maxTurns = options.maxTurns ?? 10;
    this.maxRepairs = options.maxRepairs ?? 2;
  }

  /** Messages for the next reply, and the template id that names the system prompt. */
  protected abstract buildMessages(): Promise<{ messages: ChatMessage[]; template: string; trace?: Partial<SimulatorTrace> }>;

  /**
   * Hook: runs when an agent answer arrives, before the reply is built (e.g. reflections). Not
   * named `observe`: the run treats a session with an `observe` method as a synchronous
   * ObservingSession (src/core/sim/users/session.ts) and would call it a second time, unawaited.
   */
  protected async reflect(_agent: AgentResponse): Promise<{ calls: RecordedLlmCall[]; trace?: Partial<SimulatorTrace> }> {
    return { calls: [] };
  }

  async start(): Promise<UserTurn> {
    return this.nextTurn([], {});
  }

  async respond(agent: AgentResponse): Promise<UserTurn> {
    this.history.push({ speaker: 'assistant', text: agent.utterance, items: agent.recommendations });
    const seen = await this.reflect(agent);
    return this.nextTurn(seen.calls, seen.trace ?? {});
  }

  private async nextTurn(previousCalls: RecordedLlmCall[], extraTrace: Partial<SimulatorTrace>): Promise<UserTurn> {
    if (this.turnsTaken >= this.maxTurns) {
      return { utterance: '', act: 'other', done: true, outcome: 'ended', trace: { ...extraTrace, operation: 'end', llm_calls: previousCalls, llm_call_ids: previousCalls.map((c) => c.id) } };
    }
    const built = await this.buildMessages();
    const asked = await askUser(this.client, this.prompts, this.rng, built.messages, built.template, this.maxRepairs);
    const calls = [...previousCalls, ...(built.trace?.llm_calls ?? []), ...asked.calls] as RecordedLlmCall[];
    const trace: SimulatorTrace & { llm_repairs?: string[] } = {
      ...extraTrace, ...(built.trace ?? {}),
      llm_calls: calls, llm_call_ids: calls.map((c) => c.id),
    };
    if (asked.repairs.length) trace.llm_repairs = asked.repairs;
    if (asked.error) {
      trace.error = asked.error;
      trace.operation = 'end';
      // Not a user decision: the run ends the conversation and counts a failure of the LLM user.
      return { utterance: '', act: 'other', done: true, outcome: 'ended', trace, failure: { reason: 'user_llm', message: asked.error } };
    }
    this.turnsTaken++;
    const act = guessUserAct(asked.response, asked.terminate);
    trace.user_act = act;
    if (asked.response) this.history.push({ speaker: 'user', text: asked.response });
    // At the turn cap the message is still sent; the next call ends the session without speaking.
    const turn: UserTurn = { utterance: asked.response, act, trace, done: asked.terminate };
    if (asked.terminate) {
      trace.operation = 'end';
      turn.outcome = terminationOutcome(asked.response);
    }
    return turn;
  }
}
