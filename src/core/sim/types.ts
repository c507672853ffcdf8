/**
 * Contracts between simulated users, recommenders (agents) and the run orchestrator. Users and
 * agents are factories of per-conversation sessions, so each conversation keeps its own state and
 * its own seeded Rng, and conversations can run concurrently.
 */
import type { HistoryEntry, RecommendedItem, SimulatorTrace, Outcome, LlmCall } from '../model';
import type { Rng } from '../random';
import type { FailureReason } from '../failures';

/** The dialogue history the contracts below pass around (defined with the data model). */
export type { HistoryEntry };

/** What an agent returns for one user utterance (also the JSON body of the `http` agent). */
export interface AgentResponse {
  utterance: string;
  recommendations: RecommendedItem[];
  /** The act(s) the agent reports it performed, e.g. ["elicit_preference"] or ["Reveal.Show"]. */
  acts?: string[];
  /**
   * Set when the agent failed this turn (timeout, HTTP error, malformed answer, LLM failure after
   * retries). The run records it on this turn only, ends the conversation as `agent_error` and counts
   * it as a failure; the user never reacts to it.
   */
  error?: string;
  /** The failure class of `error`. */
  error_kind?: FailureReason;
  /** Wall time of the call; goes to the run's timing statistics (manifest), never into the output. */
  latency_ms?: number;
  /** The agent's reading of the user utterance (query, filters, negations); recorded as `trace.agent`. */
  agent_trace?: SimulatorTrace['agent'];
  /** LLM calls the agent made for this answer (LLM recommenders); the run adds them to the turn's trace. */
  llm_calls?: LlmCall[];
}

export interface AgentSession {
  /** Answers the user's latest utterance given the history so far (history excludes it). */
  respond(userUtterance: string, history: readonly HistoryEntry[]): Promise<AgentResponse>;
  /** Optional opening message when the agent speaks first. */
  open?(): Promise<AgentResponse | undefined>;
}

export interface Agent {
  /** e.g. "local-good", "local-bad", "http:http://127.0.0.1:8080/chat". */
  readonly name: string;
  /** The condition this agent stands for in metrics ("good", "bad", or undefined). */
  readonly condition?: string;
  createSession(conversationId: string, rng: Rng, context: SessionContext): AgentSession;
}

/** What a user session knows at start: its task (e.g. "footwear") and anything the run passes. */
export interface SessionContext {
  task?: string;
  /**
   * A meta-simulator's target group (target first, then its alternatives): the wrapped user's
   * history (the items it already owns) holds none of them, so it is never sent to buy what it has.
   */
  targetGroup?: readonly string[];
  /** Free-form, simulator-specific extras (e.g. a fork's prefix of turns). */
  [key: string]: unknown;
}

export interface UserTurn {
  utterance: string;
  /** The user act chosen for this utterance. */
  act: string;
  /** The simulator state after producing this utterance (agenda, goal, preferences, target, ...). */
  trace: SimulatorTrace;
  /** True when the user ends the conversation with this utterance (or instead of speaking). */
  done: boolean;
  outcome?: Outcome;
  /**
   * Set when the user could not produce a turn (e.g. an LLM user whose replies stayed empty or
   * unusable after its retries): the run records it on this turn, ends the conversation and counts
   * a failure of this reason.
   */
  failure?: { reason: FailureReason; message: string };
}

export interface UserSession {
  /** The user's opening utterance. */
  start(): Promise<UserTurn>;
  /** Reacts to the agent's answer; returns the next user utterance (or done). */
  respond(agent: AgentResponse): Promise<UserTurn>;
  /** Called once when the conversation is over, however it ended (external users free their session). */
  close?(): void;
}

export interface UserSimulator {
  /** e.g. "agenda-cir6-pkg", "target-free", "meta-prob(agenda-cir6-pkg)". */
  readonly name: string;
  createSession(conversationId: string, rng: Rng, context: SessionContext): UserSession;
  /** Releases what the simulator holds (external users stop their processes); called once when the run ends. */
  dispose?(): Promise<void>;
}
