/**
 * "Play the recommender": one conversation in which a person writes the recommender's replies (the
 * VS Code command asks for each one) and the simulated user, built-in or external, answers with its
 * state. It runs through the same `runConversation` as a simulation run, so the result is a
 * conversation line like any other. It can start fresh (conversation `index` of the run's seed) or
 * from a turn of a recorded conversation: the user is brought to that turn (an external simulator by
 * `restore` or a replay with the same seed, a built-in user by a replay), then says that turn's
 * utterance again, and the person answers it instead of the recorded recommender.
 */
import type { Conversation, SimulatorTrace, Turn } from '../model';
import type { AgentResponse, AgentSession, HistoryEntry, UserSession, UserTurn } from '../sim/types';
import type { SimulationEnvironment } from './config';
import {
  agentResponseOfTurn,
  conversationRng,
  runConversation,
  simulatedConversationId,
  taskFor,
  type ConversationResult,
} from './conversation';
import { conversationTask } from '../model';

/** What the person sees before writing the recommender's reply. */
export interface PlayView {
  /** 0-based turn index of the user utterance being answered. */
  turn: number;
  utterance: string;
  act: string;
  trace: SimulatorTrace;
  history: readonly HistoryEntry[];
}

/** The person's reply, or undefined to stop the conversation here. */
type AskRecommender = (view: PlayView) => Promise<AgentResponse | undefined>;

interface PlayOptions {
  /** Conversation index of the run (default 0): its seed and task are used. */
  index?: number;
  /** Start from `turn` (0-based) of this recorded conversation (made by the same simulator and seed). */
  from?: { conversation: Conversation; turn: number };
  ask: AskRecommender;
}

class Stopped extends Error {}

/** Brings a user session to just after turn `prefix.length - 1`'s user utterance. */
async function bringUserTo(user: UserSession, prefix: readonly Turn[]): Promise<void> {
  const restorable = user as UserSession & { restoreTo?: (turns: readonly Turn[]) => Promise<void> };
  if (typeof restorable.restoreTo === 'function') return restorable.restoreTo(prefix);
  let u = await user.start();
  for (let i = 0; ; i++) {
    if (u.failure) throw new Error(u.failure.message);
    const want = prefix[i].user_utterance;
    if (want !== undefined && u.utterance !== want) {
      throw new Error(
        `turn ${i}: the simulated user says "${u.utterance}" where the recording says "${want}" (was the conversation ` +
          `made by this user, seed and configuration?)`,
      );
    }
    if (i === prefix.length - 1) return;
    if (u.done) throw new Error(`the simulated user ended at turn ${i}, before the recorded ${prefix.length}`);
    u = await user.respond(agentResponseOfTurn(prefix[i]));
  }
}

/** Plays one conversation; the result's `metadata.played` is true, `metadata.play_stopped` when the person stopped it. */
export async function playConversation(env: SimulationEnvironment, options: PlayOptions): Promise<ConversationResult> {
  const seed = env.config.seed;
  const from = options.from;
  const recordedIndex = from?.conversation.metadata?.['index'];
  const index = typeof recordedIndex === 'number' ? recordedIndex : (options.index ?? 0);
  const baseId = simulatedConversationId(seed, index);
  const rng = conversationRng(seed, index);
  const task = (from ? conversationTask(from.conversation) : undefined) ?? taskFor(env, rng.fork('task'));
  const user = env.user.createSession(baseId, rng.fork('user'), { task, index });
  let last: UserTurn | undefined;
  const watched: UserSession = {
    start: async () => (last = await user.start()),
    respond: async (a) => (last = await user.respond(a)),
    close: () => user.close?.(),
  };
  let turn = 0;
  const agent: AgentSession = {
    respond: async (_utterance: string, history: readonly HistoryEntry[]) => {
      const u = last!;
      const reply = await options.ask({ turn: turn++, utterance: u.utterance, act: u.act, trace: u.trace, history });
      if (!reply) throw new Stopped('stopped by the person playing the recommender');
      return reply;
    },
  };
  let prefix: Turn[] | undefined;
  if (from && from.turn > 0) {
    prefix = from.conversation.turns.slice(0, from.turn).map((t) => structuredClone(t));
    await bringUserTo(user, prefix);
    turn = from.turn;
  }
  const id = from ? `${from.conversation.id ?? baseId}~play-t${from.turn}` : `${baseId}~play`;
  const metadata: Record<string, unknown> = { played: true };
  if (from) metadata['played_from'] = { id: from.conversation.id, turn: from.turn };
  const result = await runConversation({ env, id, index, user: watched, agent, task, prefix, metadata });
  const meta = result.conversation.metadata ?? {};
  if (typeof meta['error'] === 'string' && meta['error'].includes('stopped by the person playing the recommender')) {
    // Stopping is the person's choice, not a failure: the conversation simply ends there.
    delete meta['error'];
    delete meta['error_kind'];
    meta['play_stopped'] = true;
    result.conversation.outcome = 'ended';
    return { ...result, failed: false, failure: undefined };
  }
  return result;
}
