/**
 * Machinery shared by the LLM user simulators: the session's own history, seeded per-call sample
 * seeds, the "ask, parse, repair, retry" loop for Response/Terminate replies, the turn cap, and the
 * trace of each turn (LLM calls, repairs, errors).
 *
 * Error policy: transport failures (endpoint down, budget spent, cancelled) propagate, so the run
 * does not store the conversation as finished and a resumed run redoes it. A model that keeps
 * answering in an unusable shape ends its conversation with `trace.error` and a `user_llm`
 * failure on the turn, which the run counts as a failed conversation (kept, not a crash).
 *
 * Ends are checked, not taken as they come (SimLens rule, docs/invariants.md
 * `no-end-before-recommendation`): a model that accepts before the agent has shown any item, or
 * names an item number that was not shown, or leaves before seeing any item with turns to go, is
 * asked once more with a short correction (`llm_corrections` in the turn's trace, one entry per
 * correction, with both replies). If it insists, the end is not honoured: the turn is recorded as
 * going on (`planned_act` keeps the act it wanted, `warnings` says why) and the dialogue continues,
 * except that an early quit is honoured with probability `earlyQuit` (`end_reason: early_quit`),
 * as for the agenda user.
 */
import type { Outcome, RecommendedItem, SimulatorTrace } from '../../../model';
import type { Rng } from '../../../random';
import type { AgentResponse, SessionContext, UserSession, UserTurn } from '../../types';
import type { ChatMessage, LlmClient, RecordedLlmCall } from '../../../llm/client';
import type { PromptLibrary } from '../../../llm/templates';
import { CATEGORY_EXAMPLES } from '../../../llm/templates';
import type { TranscriptEntry } from '../../../llm/transcript';
import { USER_REPLY_VALIDATION, guessUserAct, parseUserReply, terminationOutcome } from './format';
import { endProblem, namedItems, visibleItems, type EndProblem, type EndProblemKind } from './ends';

export interface LlmUserOptions {
  /** Messages the user may send before the session ends (default 10). */
  maxTurns?: number;
  /** Extra attempts after an unusable reply (default 2). */
  maxRepairs?: number;
  /** Used when the session context names no task (default "footwear"). */
  defaultTask?: string;
  /**
   * Probability that a model which insists on leaving before any item was shown is let go
   * (`end_reason: early_quit`); default 0, like the agenda user's `--early-quit`.
   */
  earlyQuit?: number;
}

/** The user's first-turn category words, e.g. "footwear" -> "footwear (sneakers, boots, ...)". */
export function renderTask(prompts: PromptLibrary, task: string): { text: string; id: string } {
  const category = task.replace(/_/g, ' ');
  return prompts.render('user-task', {
    category,
    category_examples: CATEGORY_EXAMPLES[task.toLowerCase()] ?? `any kind of ${category}`,
  });
}

/** A fresh integer seed for one LLM call (what makes reruns and the cache line up). */
export function nextSeed(rng: Rng): number {
  return rng.int(0x7fffffff);
}

interface AskResult {
  response: string;
  terminate: boolean;
  /** The model's text of the usable reply (what a follow-up quotes back to it). */
  raw: string;
  repairs: string[];
  calls: RecordedLlmCall[];
  /** Set when no usable reply came after every repair attempt. */
  error?: string;
}

/**
 * Sends `messages`, parses the Response/Terminate reply, and on an unusable reply appends it plus
 * a repair request and asks again (a new seed each time). Transport errors propagate.
 */
async function askUser(
  client: LlmClient,
  prompts: PromptLibrary,
  rng: Rng,
  messages: ChatMessage[],
  template: string,
  maxRepairs: number,
  purpose = 'user.respond',
): Promise<AskResult> {
  const calls: RecordedLlmCall[] = [];
  let convo = messages.slice();
  let lastProblem = '';
  for (let attempt = 0; attempt <= maxRepairs; attempt++) {
    const res = await client.chat({
      messages: convo,
      seed: nextSeed(rng),
      template,
      purpose: attempt ? 'user.repair' : purpose,
      validate: USER_REPLY_VALIDATION,
    });
    calls.push(res.call);
    // The client validated the answer (complete, not a refusal, the Response/Terminate format).
    const parsed =
      res.problem === undefined
        ? parseUserReply(res.text, res.finishReason)
        : { ok: false as const, problem: res.problem };
    if (parsed.ok)
      return { response: parsed.response, terminate: parsed.terminate, raw: res.text, repairs: parsed.repairs, calls };
    lastProblem = parsed.problem;
    const repair = prompts.render('user-format-repair', { problem: parsed.problem });
    convo = [...convo, { role: 'assistant', content: res.text }, { role: 'user', content: repair.text }];
  }
  return {
    response: '',
    terminate: true,
    raw: '',
    repairs: [],
    calls,
    error: `user simulator output unusable after ${maxRepairs + 1} attempts: ${lastProblem}`,
  };
}

/**
 * Thrown by a session's helper calls (general preferences, reflections) when the model's answer
 * stayed unusable after the repairs: the turn becomes a `user_llm` failure that keeps `calls`.
 */
export class UnusableUserAnswer extends Error {
  constructor(
    message: string,
    readonly calls: RecordedLlmCall[],
  ) {
    super(message);
    this.name = 'UnusableUserAnswer';
  }
}

/** Base class: subclasses build the messages for the next reply; this class runs the turn. */
export abstract class LlmUserSession implements UserSession {
  protected readonly history: TranscriptEntry[] = [];
  protected readonly task: string;
  protected readonly maxTurns: number;
  protected readonly maxRepairs: number;
  protected turnsTaken = 0;
  protected readonly earlyQuit: number;
  /** Template ids used by this session (for the trace). */
  protected templatesUsed = new Set<string>();

  constructor(
    protected readonly client: LlmClient,
    protected readonly prompts: PromptLibrary,
    protected readonly rng: Rng,
    protected readonly context: SessionContext,
    options: LlmUserOptions,
  ) {
    this.task = typeof context.task === 'string' && context.task ? context.task : (options.defaultTask ?? 'footwear');
    this.maxTurns = options.maxTurns ?? 10;
    this.maxRepairs = options.maxRepairs ?? 2;
    this.earlyQuit = options.earlyQuit ?? 0;
    if (!(this.earlyQuit >= 0 && this.earlyQuit <= 1))
      throw new RangeError(`early quit probability must be in [0, 1], got ${this.earlyQuit}`);
  }

  /** Messages for the next reply, and the template id that names the system prompt. */
  protected abstract buildMessages(): Promise<{
    messages: ChatMessage[];
    template: string;
    trace?: Partial<SimulatorTrace>;
  }>;

  /**
   * Hook: runs when an agent answer arrives, before the reply is built (e.g. reflections). Not
   * named `observe`: the run treats a session with an `observe` method as a synchronous
   * ObservingSession (src/core/sim/users/session.ts) and would call it a second time, unawaited.
   */
  protected async reflect(
    _agent: AgentResponse,
  ): Promise<{ calls: RecordedLlmCall[]; trace?: Partial<SimulatorTrace> }> {
    return { calls: [] };
  }

  async start(): Promise<UserTurn> {
    return this.nextTurn([], {});
  }

  async respond(agent: AgentResponse): Promise<UserTurn> {
    this.history.push({ speaker: 'assistant', text: agent.utterance, items: agent.recommendations });
    let seen: Awaited<ReturnType<LlmUserSession['reflect']>>;
    try {
      seen = await this.reflect(agent);
    } catch (error) {
      if (error instanceof UnusableUserAnswer) return unusableTurn(error, [], {});
      throw error;
    }
    return this.nextTurn(seen.calls, seen.trace ?? {});
  }

  private async nextTurn(previousCalls: RecordedLlmCall[], extraTrace: Partial<SimulatorTrace>): Promise<UserTurn> {
    if (this.turnsTaken >= this.maxTurns) {
      const trace: LooseTrace = {
        ...extraTrace,
        operation: 'end',
        end_reason: 'max_turns',
        llm_calls: previousCalls,
        llm_call_ids: previousCalls.map((c) => c.id),
      };
      return { utterance: '', act: 'other', done: true, outcome: 'ended', trace };
    }
    let built: Awaited<ReturnType<LlmUserSession['buildMessages']>>;
    try {
      built = await this.buildMessages();
    } catch (error) {
      if (error instanceof UnusableUserAnswer) return unusableTurn(error, previousCalls, extraTrace);
      throw error;
    }
    const asked = await askUser(this.client, this.prompts, this.rng, built.messages, built.template, this.maxRepairs);
    const calls = [...previousCalls, ...(built.trace?.llm_calls ?? []), ...asked.calls] as RecordedLlmCall[];
    const trace: LooseTrace = {
      ...extraTrace,
      ...(built.trace ?? {}),
      llm_calls: calls,
      llm_call_ids: calls.map((c) => c.id),
    };
    if (asked.repairs.length) trace.llm_repairs = asked.repairs;
    if (asked.error) {
      trace.error = asked.error;
      trace.operation = 'end';
      // Not a user decision: the run ends the conversation and counts a failure of the LLM user.
      return {
        utterance: '',
        act: 'other',
        done: true,
        outcome: 'ended',
        trace,
        failure: { reason: 'user_llm', message: asked.error },
      };
    }
    this.turnsTaken++;
    const latest = this.latestCarousel();
    const lastTurn = this.turnsTaken >= this.maxTurns;
    let reply: AskResult = asked;
    let outcome = reply.terminate ? terminationOutcome(reply.response) : undefined;
    let act = guessUserAct(reply.response, reply.terminate);
    let done = reply.terminate;
    const problem = endProblem({ outcome, response: reply.response, latest, lastTurn });
    if (problem) {
      const fixed = await this.correct(built, asked, problem, trace);
      if (fixed.failure)
        return { utterance: '', act: 'other', done: true, outcome: 'ended', trace, failure: fixed.failure };
      reply = fixed.reply;
      outcome = fixed.outcome;
      act = fixed.act;
      done = fixed.done;
    }
    trace.user_act = act;
    if (outcome === 'accepted') {
      const items = namedItems(reply.response, latest, this.shownItems());
      if (items.length) trace.said = { ...(trace.said ?? {}), items };
    }
    if (reply.response) this.history.push({ speaker: 'user', text: reply.response });
    // At the turn cap the message is still sent; the next call ends the session without speaking.
    const turn: UserTurn = { utterance: reply.response, act, trace, done };
    if (done) {
      trace.operation = 'end';
      turn.outcome = outcome ?? 'ended';
      // Leaving unserved on the last allowed message is the turn cap's doing (docs/invariants.md).
      if (turn.outcome !== 'accepted' && latest === undefined && trace.end_reason === undefined && lastTurn)
        trace.end_reason = 'max_turns';
    }
    return turn;
  }

  /**
   * Sends the one correction for an end that cannot be honoured and settles the turn: the model's
   * new reply when it is fine, else the end is overridden (the dialogue goes on) or, for an early
   * quit, honoured with probability `earlyQuit`. Records the correction on `trace`.
   */
  private async correct(
    built: { messages: ChatMessage[]; template: string },
    first: AskResult,
    problem: EndProblem,
    trace: LooseTrace,
  ): Promise<{
    reply: AskResult;
    outcome: Outcome | undefined;
    act: string;
    done: boolean;
    failure?: UserTurn['failure'];
  }> {
    const messages: ChatMessage[] = [
      ...built.messages,
      { role: 'assistant', content: first.raw },
      { role: 'user', content: problem.correction },
    ];
    const again = await askUser(
      this.client,
      this.prompts,
      this.rng,
      messages,
      `${built.template}+${CORRECTION_TEMPLATE}`,
      this.maxRepairs,
      'user.correct',
    );
    const calls = [...(trace.llm_calls ?? []), ...again.calls] as RecordedLlmCall[];
    trace.llm_calls = calls;
    trace.llm_call_ids = calls.map((c) => c.id);
    if (again.repairs.length) trace.llm_repairs = [...(trace.llm_repairs ?? []), ...again.repairs];
    const record: LlmCorrection = {
      kind: problem.kind,
      detail: problem.detail,
      reply: first.response,
      terminate: first.terminate,
    };
    trace.llm_corrections = [...(trace.llm_corrections ?? []), record];
    const warn = (w: string) => {
      trace.warnings = [...(trace.warnings ?? []), w];
    };
    // An unusable second reply leaves the first one standing, with its problem.
    const reply = again.error ? first : again;
    if (again.error) record.corrected_error = again.error;
    else {
      record.corrected_reply = again.response;
      record.corrected_terminate = again.terminate;
    }
    const outcome = reply.terminate ? terminationOutcome(reply.response) : undefined;
    const act = guessUserAct(reply.response, reply.terminate);
    const latest = this.latestCarousel();
    const still = again.error
      ? problem
      : endProblem({ outcome, response: reply.response, latest, lastTurn: this.turnsTaken >= this.maxTurns });
    if (!still) {
      record.result = 'revised';
      warn(`the LLM user ${problem.detail}; corrected once, it revised its reply`);
      return { reply, outcome, act, done: reply.terminate };
    }
    if (still.kind === 'quit_before_items' && this.earlyQuit > 0 && this.rng.chance(this.earlyQuit)) {
      record.result = 'early_quit';
      trace.end_reason = 'early_quit';
      warn(
        `the LLM user ${still.detail}; corrected once, it still left, let go with the early-quit probability ${this.earlyQuit}`,
      );
      return { reply, outcome, act, done: true };
    }
    record.result = 'overridden';
    // The model's own words are kept (never replaced by SimLens text); only the end is not honoured.
    const text = reply.response || first.response;
    if (!text) {
      const message = `the LLM user ${still.detail} and, corrected once, still left without a message to go on with`;
      warn(message);
      trace.error = message;
      trace.operation = 'end';
      return { reply, outcome: undefined, act: 'other', done: true, failure: { reason: 'user_llm', message } };
    }
    const goesOn = still.kind === 'quit_before_items' ? guessUserAct(text, false) : REQUEST_ITEMS_ACT;
    if (goesOn !== act) trace.planned_act = act;
    warn(
      `the LLM user ${still.detail}; corrected once, it insisted: not honoured, recorded as ${goesOn} and the dialogue goes on`,
    );
    return { reply: { ...reply, response: text, terminate: false }, outcome: undefined, act: goesOn, done: false };
  }

  /** The items of the latest assistant message that showed any (undefined: none shown yet). */
  private latestCarousel(): readonly RecommendedItem[] | undefined {
    for (let i = this.history.length - 1; i >= 0; i--) {
      const items = this.history[i].items;
      if (this.history[i].speaker === 'assistant' && items?.length) return items;
    }
    return undefined;
  }

  private shownItems(): RecommendedItem[] {
    return this.history.flatMap((e) => (e.speaker === 'assistant' ? visibleItems(e.items) : []));
  }
}

/** The failed turn of an unusable helper answer: its calls recorded, a `user_llm` failure, never a user decision. */
function unusableTurn(
  error: UnusableUserAnswer,
  previousCalls: RecordedLlmCall[],
  extraTrace: Partial<SimulatorTrace>,
): UserTurn {
  const calls = [...previousCalls, ...error.calls];
  const trace: LooseTrace = {
    ...extraTrace,
    operation: 'end',
    error: error.message,
    llm_calls: calls,
    llm_call_ids: calls.map((c) => c.id),
  };
  return {
    utterance: '',
    act: 'other',
    done: true,
    outcome: 'ended',
    trace,
    failure: { reason: 'user_llm', message: error.message },
  };
}

/** Tags the template id of a correction call (bump when the wording in ends.ts changes). */
const CORRECTION_TEMPLATE = 'user-end-correction@1';

/**
 * The act an accept that could not be honoured is recorded as: the user still needs items, which
 * the alias table reads as Inquire.List (src/core/taxonomy/act-aliases.json).
 */
const REQUEST_ITEMS_ACT = 'ask_clarification';

/** One correction of an end the run could not honour (trace.llm_corrections). */
export interface LlmCorrection {
  kind: EndProblemKind;
  detail: string;
  /** The model's first reply. */
  reply: string;
  terminate: boolean;
  /** Its reply to the correction (absent when that reply was unusable: see corrected_error). */
  corrected_reply?: string;
  corrected_terminate?: boolean;
  corrected_error?: string;
  /** revised: the model changed its reply; overridden: it insisted and the end was not honoured; early_quit: it left by the early-quit probability. */
  result?: 'revised' | 'overridden' | 'early_quit';
}

type LooseTrace = SimulatorTrace & {
  llm_repairs?: string[];
  llm_corrections?: LlmCorrection[];
  warnings?: string[];
  end_reason?: string;
};
