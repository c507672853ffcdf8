/**
 * An external simulated user (docs/protocol.md) as a UserSimulator: to the run orchestrator it is a
 * built-in user like any other, so sharding, merge, resume, checks and metrics work unchanged.
 *
 * - `exec:<command>` starts processes (one per concurrent conversation, or one for all when the
 *   simulator declares `capabilities.sessions`); `http(s)://...` posts to an endpoint.
 * - Each conversation gets a 32-bit seed from the run's seed and its index (the same seed must give
 *   the same conversation), so output is deterministic whatever the concurrency, as for built-in users.
 * - Every fault (crash, hang, garbage or logs on stdout, an error answer, a schema-invalid result)
 *   ends that conversation as `simulator_error` with a message naming the simulator, the
 *   conversation and the turn; the faulted process is killed and a new one started, with a backoff
 *   after failed starts. The run goes on; its consecutive-failure policy stops a run that cannot work.
 */
import type * as z from 'zod';
import type { Catalog } from '../../../catalog/catalog';
import type { SimulatorTrace, Turn } from '../../../model';
import type { Rng } from '../../../random';
import type { AgentResponse, SessionContext, UserSession, UserSimulator, UserTurn } from '../../types';
import { HttpConnection, SimulatorFault, StdioConnection, type SimulatorConnection } from './connection';
import { printableExcerpt } from './framing';
import { FAIL, fastParse } from './fastParse';
import {
  InitializeResult,
  PROTOCOL_VERSION,
  ProtocolErrorCode,
  RestoreResult,
  UserTurnFields,
  UserTurnResult,
  protocolVersion,
  userTurnSpeaks,
  type CatalogReference,
  type InitializeParams,
  type ItemRef,
  type RecordedTurn,
  type RespondParams,
  type RestoreParams,
  type StartParams,
} from './protocol';
import type { RecommendedItem } from '../../../model';
import { zodErrorMessage } from '../../../jsonl/zodIssues';

/** `--user` values that name an external simulator. */
export function isExternalUserSpec(user: string): boolean {
  return user.startsWith('exec:') || /^https?:\/\//.test(user);
}

interface ExternalUserOptions {
  /** `exec:<command>` or an http(s) URL. */
  spec: string;
  catalog: Catalog;
  /** Absolute catalog path when the run reads one. */
  catalogPath?: string;
  maxTurns: number;
  /** Per-request timeout (default 10,000 ms; `initialize` gets at least 30 s: interpreters start slowly). */
  timeoutMs?: number;
  cwd?: string;
  env?: Record<string, string>;
  /** SimLens' version, sent in `initialize`. */
  clientVersion: string;
  /** The run's hard abort (HTTP requests in flight are cancelled). */
  signal?: AbortSignal;
  onStderr?: (line: string) => void;
  /** Most processes alive at once (default 64). */
  maxProcesses?: number;
  /** First restart delay after a failed start, doubled per failure up to `maxBackoffMs` (default 200 / 5,000 ms). */
  backoffMs?: number;
  maxBackoffMs?: number;
}

const DEFAULT_SIMULATOR_TIMEOUT_MS = 10_000;
const INITIALIZE_TIMEOUT_MS = 30_000;

/** The catalog as the protocol describes it to a simulator. */
function catalogReference(catalog: Catalog, path?: string): CatalogReference {
  const attributes: Record<string, Record<string, string[]>> = {};
  for (const category of catalog.categories()) {
    const values: Record<string, Set<string>> = {};
    for (const item of catalog.categoryItems(category)) {
      for (const [a, v] of Object.entries(item.attributes)) (values[a] ??= new Set()).add(v);
    }
    attributes[category] = Object.fromEntries(
      Object.keys(values)
        .sort()
        .map((a) => [a, [...values[a]].sort()]),
    );
  }
  return { ...(path ? { path } : {}), items: catalog.size, categories: catalog.categories(), attributes };
}

interface Slot {
  conn: SimulatorConnection;
  info: InitializeResult;
  active: number;
  capacity: number;
  /**
   * Item ids sent in full on this connection, when references may be sent (1.1 `item_refs`, stdio:
   * the process reads messages in order). Undefined: send full items (or, over HTTP, per session).
   */
  sentItems?: Set<string>;
  /** Whether the simulator accepts item references (both sides speak 1.1 and it declares `item_refs`). */
  itemRefs: boolean;
}

/** The carousel with each item already in `sent` replaced by a reference (and the others added to it). */
export function withItemRefs(items: readonly RecommendedItem[], sent: Set<string>): (RecommendedItem | ItemRef)[] {
  return items.map((item) => {
    if (sent.has(item.item_id)) return { ref: item.item_id };
    sent.add(item.item_id);
    return item;
  });
}

/** A protocol fault with where it happened; becomes the conversation's `simulator_error` message. */
function describe(simulator: string, conversation: string, turn: number, method: string, e: unknown): string {
  const what = e instanceof SimulatorFault ? e.message : e instanceof Error ? e.message : String(e);
  return `simulator ${simulator}, conversation ${conversation}, turn ${turn} (${method}): ${what}`;
}

function validated<T extends z.ZodType>(schema: T, value: unknown, origin: string): z.infer<T> {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  throw new SimulatorFault('invalid', zodErrorMessage(origin, r.error, value));
}

const fastUserTurn = fastParse(UserTurnFields);

/**
 * A user turn validated: the fast parser's result (the same as zod's, test/unit/sim/externalFastParse.test.ts)
 * when it proves the turn valid, else zod's (its result, or its error message).
 */
function validatedTurn(value: unknown, origin: string): UserTurnResult {
  const fast = fastUserTurn(value);
  if (fast !== FAIL && userTurnSpeaks(fast as UserTurnResult)) return fast as UserTurnResult;
  return validated(UserTurnResult, value, origin);
}

export class ExternalUserSimulator implements UserSimulator {
  private slots: Slot[] = [];
  private starting = 0;
  /** Failed starts and process deaths since the last good turn: the next start waits a backoff. */
  private failedStarts = 0;
  /** The backoff delays applied so far, in ms (tests and the manifest). */
  readonly backoffs: number[] = [];
  private waiters: (() => void)[] = [];
  private disposed = false;
  /** The simulator's answer to `initialize` (after `init()`). */
  info!: InitializeResult;
  /** Processes (or HTTP connections) started so far, restarts included. */
  started = 0;

  constructor(readonly options: ExternalUserOptions) {}

  /** The simulator's own name (from `initialize`), or the spec before it. */
  get name(): string {
    return this.info?.name ?? this.options.spec;
  }

  /** A short label for messages: its name and how it is run. */
  get label(): string {
    return this.info ? `"${this.info.name}" (${this.options.spec})` : `"${this.options.spec}"`;
  }

  /** Starts the first connection and reads `initialize`; throws a clear error when the simulator cannot start. */
  async init(): Promise<this> {
    const slot = await this.open();
    this.info = slot.info;
    this.slots.push(slot);
    return this;
  }

  private connect(): SimulatorConnection {
    const { spec } = this.options;
    if (spec.startsWith('exec:')) {
      const command = spec.slice(5).trim();
      if (!command) throw new Error('--user exec: needs a command, e.g. exec:"python3 my_sim.py"');
      return new StdioConnection(command, {
        cwd: this.options.cwd,
        env: this.options.env,
        onStderr: this.options.onStderr,
      });
    }
    return new HttpConnection(spec, this.options.signal);
  }

  private async open(): Promise<Slot> {
    const conn = this.connect();
    this.started++;
    const params: InitializeParams = {
      protocol: PROTOCOL_VERSION,
      client: { name: 'simlens', version: this.options.clientVersion },
      catalog: catalogReference(this.options.catalog, this.options.catalogPath),
      max_turns: this.options.maxTurns,
    };
    try {
      const raw = await conn.request(
        'initialize',
        params,
        Math.max(INITIALIZE_TIMEOUT_MS, this.options.timeoutMs ?? 0),
      );
      const info = validated(InitializeResult, raw, 'initialize result');
      const theirs = protocolVersion(info.protocol)!;
      const ours = protocolVersion(PROTOCOL_VERSION)!;
      if (theirs[0] !== ours[0]) {
        throw new SimulatorFault('invalid', `speaks protocol ${info.protocol}; SimLens speaks ${PROTOCOL_VERSION}`);
      }
      // Features of a minor version are used when both sides speak it and the simulator declares them.
      const minor = Math.min(theirs[1], ours[1]);
      const itemRefs = minor >= 1 && info.capabilities.item_refs === true;
      if (this.info && info.name !== this.info.name)
        throw new SimulatorFault(
          'invalid',
          `a restarted process calls itself "${info.name}", the first one "${this.info.name}"`,
        );
      const s = info.capabilities.sessions;
      const capacity = conn.shared || s === true ? Number.POSITIVE_INFINITY : typeof s === 'number' ? s : 1;
      return {
        conn,
        info,
        active: 0,
        capacity,
        itemRefs,
        ...(itemRefs && !conn.shared ? { sentItems: new Set<string>() } : {}),
      };
    } catch (e) {
      void conn.close(200);
      this.failedStarts++;
      const what = e instanceof Error ? e.message : String(e);
      throw new Error(
        `simulator ${this.info ? this.label : `"${this.options.spec}"`} could not be initialized: ${what}`,
      );
    }
  }

  /** A connection with room for one more conversation: an idle one, or a new one (after the backoff when starts failed). */
  async acquire(): Promise<Slot> {
    for (;;) {
      if (this.disposed) throw new Error('the simulator was shut down');
      this.slots = this.slots.filter((s) => !s.conn.dead || s.active > 0);
      const free = this.slots.find((s) => !s.conn.dead && s.active < s.capacity);
      if (free) {
        free.active++;
        return free;
      }
      const limit = this.options.maxProcesses ?? 64;
      if (this.slots.length + this.starting >= limit) {
        await new Promise<void>((r) => this.waiters.push(r));
        continue;
      }
      if (this.failedStarts > 0) {
        const base = this.options.backoffMs ?? 200;
        const delay = Math.min(this.options.maxBackoffMs ?? 5000, base * 2 ** (this.failedStarts - 1));
        this.backoffs.push(delay);
        await new Promise((r) => setTimeout(r, delay));
      }
      this.starting++;
      try {
        const slot = await this.open();
        this.slots.push(slot);
        slot.active++;
        return slot;
      } finally {
        this.starting--;
      }
    }
  }

  /** A conversation went through without a fault: the simulator works, restarts need no backoff. */
  healthy(): void {
    this.failedStarts = 0;
  }

  /** A process died under a conversation (crash, hang, garbage): the next start backs off. */
  died(): void {
    this.failedStarts++;
  }

  release(slot: Slot): void {
    slot.active--;
    if (slot.conn.dead && slot.active === 0) this.slots = this.slots.filter((s) => s !== slot);
    this.waiters.shift()?.();
  }

  createSession(conversationId: string, rng: Rng, context: SessionContext): ExternalUserSession {
    return new ExternalUserSession(this, conversationId, rng.int(0x7fffffff), context);
  }

  /** Shuts every process down (shutdown, stdin closed, killed after a grace period). */
  async dispose(): Promise<void> {
    this.disposed = true;
    for (const w of this.waiters.splice(0)) w();
    const slots = this.slots.splice(0);
    await Promise.all(slots.map((s) => s.conn.close(1000)));
  }

  /** Live process ids (tests). */
  pids(): number[] {
    return this.slots.map((s) => s.conn.pid).filter((p): p is number => p !== undefined);
  }

  /** Requests polled for and answers read by the poll, over the live connections (the bench). */
  pollStats(): { polled: number; caught: number } {
    const sum = { polled: 0, caught: 0 };
    for (const { conn } of this.slots) {
      if (conn instanceof StdioConnection) {
        sum.polled += conn.polls.polled;
        sum.caught += conn.polls.caught;
      }
    }
    return sum;
  }
}

/** One conversation with an external simulator. */
export class ExternalUserSession implements UserSession {
  private slot: Slot | undefined;
  private turn = 0;
  private closed = false;
  private failed = false;
  /** The turns as sent and answered, for a replay when the simulator cannot restore. */
  readonly history: RecordedTurn[] = [];
  /** Item ids sent in full in this session (item references over HTTP, where requests may overtake each other across sessions). */
  private sentItems: Set<string> | undefined;

  constructor(
    private readonly sim: ExternalUserSimulator,
    readonly id: string,
    readonly seed: number,
    private readonly context: SessionContext,
  ) {}

  private startParams(index: number): StartParams {
    const p: StartParams = { session: this.id, seed: this.seed, index };
    if (this.context.task) p.task = this.context.task;
    if (this.context.profile && typeof this.context.profile === 'object')
      p.profile = this.context.profile as Record<string, unknown>;
    return p;
  }

  private index(): number {
    const m = /-(\d+)$/.exec(this.id);
    return typeof this.context.index === 'number' ? this.context.index : m ? Number(m[1]) : 0;
  }

  private timeout(): number {
    return this.sim.options.timeoutMs ?? DEFAULT_SIMULATOR_TIMEOUT_MS;
  }

  private failure(method: string, e: unknown): UserTurn {
    const message = describe(this.sim.label, this.id, this.turn, method, e);
    this.close();
    return { utterance: '', act: '', trace: {}, done: true, failure: { reason: 'simulator_error', message } };
  }

  private drop(): void {
    if (this.slot) {
      const s = this.slot;
      this.slot = undefined;
      this.sim.release(s);
    }
  }

  /** `result` is zod's fresh copy (the run may extend its trace); `raw` the message as received (kept for restore). */
  private toUserTurn(result: UserTurnResult, raw: unknown): UserTurn {
    const trace: SimulatorTrace = result.trace ?? {};
    if (trace.user_act === undefined) trace.user_act = result.acts[0];
    if (result.acts.length > 1 && (trace as Record<string, unknown>)['user_acts'] === undefined)
      (trace as Record<string, unknown>)['user_acts'] = result.acts.slice();
    if (result.done && result.end_reason !== undefined)
      (trace as Record<string, unknown>)['end_reason'] = result.end_reason;
    const u: UserTurn = { utterance: result.utterance, act: result.acts[0], trace, done: result.done === true };
    if (result.done) u.outcome = result.outcome ?? 'ended';
    const rawTrace = (raw as { trace?: SimulatorTrace }).trace;
    this.history.push({
      user_utterance: result.utterance,
      user_acts: result.acts.slice(),
      ...(rawTrace ? { trace: rawTrace } : {}),
    });
    return u;
  }

  private async call(method: 'start' | 'respond', params: StartParams | RespondParams): Promise<UserTurn> {
    this.turn++;
    try {
      if (!this.slot) this.slot = await this.sim.acquire();
      if (method === 'respond' && this.slot.itemRefs) {
        const p = params as RespondParams;
        const sent = this.slot.sentItems ?? (this.sentItems ??= new Set());
        params = { ...p, recommendations: withItemRefs(p.recommendations as RecommendedItem[], sent) };
      }
      const raw = await this.slot.conn.request(method, params, this.timeout());
      const result = validatedTurn(raw, `${method} result`);
      if (result.done) this.close();
      return this.toUserTurn(result, raw);
    } catch (e) {
      this.failed = true;
      if (this.slot?.conn.dead) this.sim.died();
      return this.failure(method, e);
    }
  }

  start(): Promise<UserTurn> {
    return this.call('start', this.startParams(this.index()));
  }

  respond(agent: AgentResponse): Promise<UserTurn> {
    const last = this.history[this.history.length - 1];
    if (last) {
      last.assistant_utterance = agent.utterance;
      last.recommendations = agent.recommendations;
      last.agent_acts = agent.acts ?? [];
    }
    const params: RespondParams = {
      session: this.id,
      utterance: agent.utterance,
      recommendations: agent.recommendations,
      acts: agent.acts ?? [],
    };
    return this.call('respond', params);
  }

  /**
   * Puts the session where a recorded conversation stood after turn `turns.length - 1`'s user
   * utterance (the next call is `respond` with that turn's recommender reply): `restore` when the
   * simulator can, else a replay with the same seed (start, then each recorded reply), which must
   * give the recorded user utterances. Throws with a clear message otherwise.
   */
  async restoreTo(turns: readonly Turn[], options: { continueSeed?: number } = {}): Promise<'restore' | 'replay'> {
    const recorded: RecordedTurn[] = turns.map((t) => {
      const r: RecordedTurn = {};
      if (t.user_utterance !== undefined) r.user_utterance = t.user_utterance;
      const userActs = t.annotations?.find((a) => a.speaker === 'user')?.acts;
      const userAct = (t.trace as Record<string, unknown> | undefined)?.['user_act'];
      if (typeof userAct === 'string') r.user_acts = [userAct];
      else if (userActs?.length) r.user_acts = userActs.slice();
      if (t.assistant_utterance !== undefined) r.assistant_utterance = t.assistant_utterance;
      if (t.recommendations) r.recommendations = t.recommendations;
      const agentActs = t.annotations?.find((a) => a.speaker === 'assistant')?.acts;
      if (agentActs) r.agent_acts = agentActs.slice();
      if (t.trace) r.trace = t.trace;
      return r;
    });
    this.slot ??= await this.sim.acquire();
    if (this.slot.info.capabilities.restore) {
      try {
        const params: RestoreParams = { ...this.startParams(this.index()), turns: recorded };
        if (options.continueSeed !== undefined) params.continue_seed = options.continueSeed;
        const raw = await this.slot.conn.request('restore', params, this.timeout());
        validated(RestoreResult, raw, 'restore result');
        this.turn = recorded.length;
        this.history.splice(0, this.history.length, ...recorded);
        return 'restore';
      } catch (e) {
        if (!(e instanceof SimulatorFault && e.code === ProtocolErrorCode.restoreUnsupported))
          throw new Error(describe(this.sim.label, this.id, recorded.length, 'restore', e));
      }
    }
    // Replay with the same seed.
    let u = await this.start();
    for (let i = 0; ; i++) {
      if (u.failure) throw new Error(u.failure.message);
      const want = recorded[i]?.user_utterance;
      if (want !== undefined && u.utterance !== want) {
        throw new Error(
          `simulator ${this.sim.label}, conversation ${this.id}, turn ${i + 1}: the replay with seed ${this.seed} says "${printableExcerpt(u.utterance)}" where the recording says "${printableExcerpt(want)}" (the simulator is not deterministic in its seed and does not implement restore)`,
        );
      }
      if (i === recorded.length - 1) return 'replay';
      if (u.done)
        throw new Error(
          `simulator ${this.sim.label}, conversation ${this.id}: the replay ended at turn ${i + 1}, before the recorded ${recorded.length}`,
        );
      const r = recorded[i];
      u = await this.respond({
        utterance: r.assistant_utterance ?? '',
        recommendations: r.recommendations ?? [],
        acts: r.agent_acts,
      });
    }
  }

  /** Ends the conversation on the simulator's side (`end`) and frees its connection. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (!this.failed) this.sim.healthy();
    if (this.slot && !this.slot.conn.dead) this.slot.conn.notify('end', { session: this.id });
    this.drop();
  }
}

/** Starts an external simulator and reads its `initialize`. */
export async function createExternalUser(options: ExternalUserOptions): Promise<ExternalUserSimulator> {
  return new ExternalUserSimulator(options).init();
}
