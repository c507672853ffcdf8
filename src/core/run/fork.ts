/**
 * "Fork from here": simulate K continuations of a recorded conversation from one of its turns.
 *
 * The fork keeps turns 0..TURN (the chosen turn and the agent's answer to it) and lets the user
 * react to that answer anew. Two ways to get the user's state at that point:
 * - replay (preferred): when the file has a run manifest and the conversation carries its run
 *   index, the conversation is re-simulated from its seed; right after turn TURN the randomness of
 *   user and agent is switched to the fork's own, so the prefix is identical (checked) and the
 *   continuation differs. Agent state is then exactly the original's.
 * - restore: otherwise the user is rebuilt from the prefix's traces (agenda, goal, preferences,
 *   patience, target) and a fresh agent session is fed the prefix's user utterances.
 * An external simulator (docs/protocol.md) is brought to the turn by its own `restore` (given a
 * `continue_seed` per continuation, so its later choices can differ) or, when it has none, by a
 * replay with the conversation's seed (checked against the recorded utterances); the agent is a
 * fresh session fed the prefix, with the fork's randomness.
 */
import { resolve } from 'node:path';
import { Conversation, conversationId, conversationSystem, conversationTask, forkRefusal, type Turn } from '../model';
import { createRng, type Rng } from '../random';
import type { HistoryEntry } from '../sim/types';
import { isRestorable } from '../sim/users/session';
import { ExternalUserSession, isExternalUserSpec } from '../sim/users/external/simulator';
import {
  parseSimulationConfig,
  prepareEnvironment,
  type SimulationConfig,
  type SimulationConfigInput,
  type SimulationEnvironment,
  type SimulatorProcessOptions,
} from './config';
import {
  SwitchableRng,
  conversationRng,
  runConversation,
  taskFor,
  type ConversationPlan,
  type ConversationResult,
} from './conversation';
import { FailureTally, type FailureCounts } from '../failures';
import { readManifest, sameConfig } from './manifest';
import { readLines } from './output';

interface ForkOptions {
  /** The JSONL file holding the conversation. */
  file: string;
  /** The conversation id (as `conversationId` derives it). */
  id: string;
  /** 0-based index of the turn to continue after. */
  turn: number;
  /** Number of continuations. */
  n: number;
  /** Seed of the fork's randomness (default: the run's seed). Same seed, same continuations. */
  seed?: string | number;
  /** Configuration overrides (e.g. another agent); everything else comes from the file's manifest. */
  config?: Partial<SimulationConfigInput>;
  cwd?: string;
  environment?: SimulationEnvironment;
  /** Where and how an external simulator of the run is started (e.g. its `simlens.simulators` entry), by its `--user` spec. */
  simulator?: (user: string) => SimulatorProcessOptions | undefined;
}

type ForkMethod = 'replay' | 'restore';

interface ForkResult {
  original: Conversation;
  conversations: Conversation[];
  methods: ForkMethod[];
  config: SimulationConfig;
  /** Failed continuations (recorded on the conversations, as in a run). */
  failed: number;
  /** The failed continuations per reason. */
  failures: FailureCounts;
}

/** Finds a conversation by id in a JSONL file; throws naming the file when it is not there. */
async function findConversation(file: string, id: string): Promise<{ conversation: Conversation; line: number }> {
  const needle = JSON.stringify(id).slice(1, -1);
  for await (const { text, line } of readLines(file)) {
    if (!text.includes(needle) && !/^line:\d+$/.test(id)) continue;
    if (text.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      continue;
    }
    const parsed = Conversation.safeParse(value);
    if (!parsed.success) continue;
    // The raw object, not zod's copy: zod reorders keys, and a fork must keep the prefix byte for byte.
    if (conversationId(parsed.data, line) === id) return { conversation: value as Conversation, line };
  }
  throw new Error(`${file}: no conversation with id "${id}"`);
}

function sameTurns(a: readonly Turn[], b: readonly Turn[]): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Simulates `n` continuations of conversation `id` after turn `turn` (0-based; messages count turns from 1). */
export async function forkConversation(options: ForkOptions): Promise<ForkResult> {
  const cwd = options.cwd ?? process.cwd();
  const file = resolve(cwd, options.file);
  if (!Number.isInteger(options.n) || options.n < 1)
    throw new Error(`the number of continuations must be a positive integer, got ${options.n}`);
  const { conversation: original } = await findConversation(file, options.id);
  checkForkTurn(original, options);
  const { manifest, config } = forkConfig(file, original, options);
  const env =
    options.environment ?? (await prepareEnvironment(config, cwd, { simulator: options.simulator?.(config.user) }));
  const originalIndex = original.metadata?.index;
  const canReplay =
    manifest !== undefined &&
    typeof originalIndex === 'number' &&
    sameConfig({ ...manifest.config, n: 0 }, { ...(config as unknown as Record<string, unknown>), n: 0 });
  const forkSeed = options.seed ?? config.seed;
  const fork: ForkContext = { env, config, options, original, prefix: original.turns.slice(0, options.turn + 1) };
  const forkedFrom = { file: options.file, id: options.id, turn: options.turn };
  const conversations: Conversation[] = [];
  const methods: ForkMethod[] = [];
  const tally = new FailureTally();

  const external = isExternalUserSpec(config.user);
  const idIndex = /-(\d+)$/.exec(options.id);
  const externalIndex = typeof originalIndex === 'number' ? originalIndex : idIndex ? Number(idIndex[1]) : 0;
  try {
    for (let k = 0; k < options.n; k++) {
      const forkRng = createRng(`simlens-fork/${String(forkSeed)}/${options.id}/${options.turn}`).fork(k);
      const id = `${options.id}~fork-t${options.turn}-${k}`;
      const metadata = { forked_from: forkedFrom };
      let result: ConversationResult | undefined;
      let method: ForkMethod = 'replay';
      if (external) ({ result, method } = await forkExternal(fork, k, id, forkRng, externalIndex, metadata));
      else if (canReplay) result = await forkByReplay(fork, k, id, forkRng, originalIndex as number, metadata);
      if (!result) {
        method = 'restore';
        result = await forkByRestore(fork, k, id, forkRng, metadata);
      }
      if (result.failure) tally.failure(result.failure.reason, result.failure.message);
      else tally.success();
      conversations.push(result.conversation);
      methods.push(method);
    }
  } finally {
    // Simulator processes started for this fork stop with it.
    if (!options.environment) await env.user.dispose?.().catch(() => {});
  }
  return { original, conversations, methods, config, failed: tally.failed, failures: tally.counts() };
}

/** Refuses a fork turn that does not exist or has no agent answer to continue from. */
function checkForkTurn(original: Conversation, options: ForkOptions): void {
  const turns = original.turns;
  if (!Number.isInteger(options.turn) || options.turn < 0 || options.turn >= turns.length) {
    throw new Error(
      `${options.file}: conversation "${options.id}" has turns 1..${turns.length}; turn ${options.turn + 1} does not exist`,
    );
  }
  const forkTurn = turns[options.turn];
  if (forkTurn.assistant_utterance === undefined) {
    throw new Error(
      `${options.file}: turn ${options.turn + 1} of "${options.id}" has no agent answer to continue from`,
    );
  }
  // the user's utterance on this turn ended the conversation: nothing reacts to the agent's goodbye
  const ended = forkTurn.trace?.end_reason;
  if (typeof ended === 'string') {
    throw new Error(
      `${options.file}: turn ${options.turn + 1} of "${options.id}" is where the user ended the conversation (end_reason ${ended}): there is no reaction to fork; fork an earlier turn`,
    );
  }
}

/**
 * The configuration of the continuations: the run manifest's beside the file (without one, the
 * agent the conversation names, when it can be forked at all), with the fork's own options and n.
 */
function forkConfig(
  file: string,
  original: Conversation,
  options: ForkOptions,
): { manifest: ReturnType<typeof readManifest>; config: SimulationConfig } {
  const manifest = readManifest(file);
  const refusal = manifest ? undefined : forkRefusal(original);
  if (refusal) throw new Error(`${options.file}: cannot fork "${options.id}": ${refusal}`);
  const base: Record<string, unknown> = manifest ? { ...manifest.config } : {};
  const system = conversationSystem(original);
  if (!manifest && system && !base.agent) base.agent = system;
  const config = parseSimulationConfig({ ...base, ...options.config, n: options.n }, `fork of ${options.file}`);
  return { manifest, config };
}

/** What every continuation of one fork shares. */
interface ForkContext {
  env: SimulationEnvironment;
  config: SimulationConfig;
  options: ForkOptions;
  original: Conversation;
  /** The original's turns up to and including the fork turn. */
  prefix: Turn[];
}

/**
 * Continuation k by an external simulator: its own session, seeded as the original conversation
 * was (run seed and conversation index), restored to the prefix by the simulator (replay or restore).
 */
async function forkExternal(
  { env, config, original, prefix }: ForkContext,
  k: number,
  id: string,
  forkRng: Rng,
  externalIndex: number,
  metadata: Record<string, unknown>,
): Promise<{ result: ConversationResult; method: ForkMethod }> {
  const task = conversationTask(original) ?? env.config.task ?? env.catalog.categories()[0];
  const user = env.user.createSession(id, conversationRng(config.seed, externalIndex).fork('user'), {
    task,
    index: externalIndex,
  });
  if (!(user instanceof ExternalUserSession))
    throw new Error(`the simulated user "${env.user.name}" is not an external simulator`);
  let method: ForkMethod;
  try {
    method = await user.restoreTo(prefix, { continueSeed: forkRng.fork('user').int(0x7fffffff) });
  } catch (e) {
    user.close();
    throw e;
  }
  const result = await continueFromPrefix({ env, id, index: k, user, task, prefix }, forkRng, {
    ...metadata,
    fork_method: method,
  });
  return { result, method };
}

/**
 * Continuation k by replay: the original conversation run again with its own randomness, which
 * switches to the fork's after the fork turn; undefined when the replay does not reproduce the prefix.
 */
async function forkByReplay(
  { env, config, options, prefix }: ForkContext,
  k: number,
  id: string,
  forkRng: Rng,
  originalIndex: number,
  metadata: Record<string, unknown>,
): Promise<ConversationResult | undefined> {
  const rng = conversationRng(config.seed, originalIndex);
  const task = taskFor(env, rng.fork('task'));
  const userRng = new SwitchableRng(rng.fork('user'));
  const agentRng = new SwitchableRng(rng.fork('agent'));
  const user = env.user.createSession(options.id, userRng, { task });
  const agent = env.agent.createSession(options.id, agentRng, { task });
  const onTurn = (i: number) => {
    if (i !== options.turn) return;
    userRng.switchTo(forkRng.fork('user'));
    agentRng.switchTo(forkRng.fork('agent'));
  };
  const replayed = await runConversation({
    env,
    id,
    index: k,
    user,
    agent,
    task,
    onTurn,
    metadata: { ...metadata, fork_method: 'replay' },
  });
  return sameTurns(replayed.conversation.turns.slice(0, options.turn + 1), prefix) ? replayed : undefined;
}

/** Continuation k by restore: a fresh user session brought to the prefix's end from its recorded trace. */
async function forkByRestore(
  { env, original, prefix }: ForkContext,
  k: number,
  id: string,
  forkRng: Rng,
  metadata: Record<string, unknown>,
): Promise<ConversationResult> {
  const task = conversationTask(original) ?? env.config.task ?? env.catalog.categories()[0];
  const user = env.user.createSession(id, forkRng.fork('user'), { task });
  if (!isRestorable(user))
    throw new Error(
      `the simulated user "${env.user.name}" cannot continue from a recorded trace; fork a file that has its run manifest`,
    );
  user.restore(prefix);
  return continueFromPrefix({ env, id, index: k, user, task, prefix }, forkRng, {
    ...metadata,
    fork_method: 'restore',
  });
}

/**
 * A continuation from a user already brought to the prefix's end (restored, or an external
 * simulator's own restore): a fresh agent session, with the fork's randomness, hears the prefix's
 * user utterances (each with the history before it, as in the original run); then the
 * conversation runs on from the prefix.
 */
async function continueFromPrefix(
  plan: Omit<ConversationPlan, 'agent' | 'prefix' | 'metadata'> & { prefix: readonly Turn[] },
  forkRng: Rng,
  metadata: Record<string, unknown>,
): Promise<ConversationResult> {
  const agent = plan.env.agent.createSession(plan.id, forkRng.fork('agent'), { task: plan.task });
  const history: HistoryEntry[] = [];
  for (const t of plan.prefix) {
    if (t.user_utterance !== undefined) {
      await agent.respond(t.user_utterance, history.slice());
      history.push({ speaker: 'user', text: t.user_utterance });
    }
    if (t.assistant_utterance !== undefined) history.push({ speaker: 'assistant', text: t.assistant_utterance });
  }
  return runConversation({ ...plan, agent, metadata });
}
