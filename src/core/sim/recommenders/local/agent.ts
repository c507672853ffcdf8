/** What the local agents (`local-good`, `local-bad`) share: one catalog and lexicon for all their sessions. */
import type { Catalog } from '../../../catalog/item';
import type { Rng } from '../../../random';
import type { Agent, AgentResponse, AgentSession, HistoryEntry, SessionContext } from '../../types';
import { Lexicon } from './lexicon';
import { PreferenceState } from './state';

/** A local agent whose sessions are made by `open` from the shared catalog and lexicon. */
export class LocalAgent<S extends AgentSession> implements Agent {
  private readonly lexicon: Lexicon;

  constructor(
    readonly name: string,
    readonly condition: string,
    readonly catalog: Catalog,
    private readonly open: (catalog: Catalog, lexicon: Lexicon, rng: Rng) => S,
  ) {
    this.lexicon = Lexicon.for(catalog);
  }

  createSession(_conversationId: string, rng: Rng, _context: SessionContext): S {
    return this.open(this.catalog, this.lexicon, rng);
  }
}

/**
 * One local-agent conversation: its preference state, turn count and this turn's reading of the
 * user (`trace`, returned as `agent_trace`). A session started mid-conversation first applies the
 * user turns of the history to its state.
 */
export abstract class LocalSession<T extends { negated: string[] }> implements AgentSession {
  readonly state: PreferenceState;
  /**
   * The Rng of the words (a fork of the session's, which it never advances): what the agent does
   * (acts, items, what it asks) is drawn from `rng`, how it says it from `words`, so a change of
   * wording never changes a seeded conversation's decisions, nor the user's.
   */
  protected readonly words: Rng;
  protected turn = 0;
  /** This turn's reading of the user utterance, returned as `agent_trace`. */
  protected trace = { negated: [] } as unknown as T;

  constructor(
    protected readonly catalog: Catalog,
    protected readonly lexicon: Lexicon,
    protected readonly rng: Rng,
  ) {
    this.state = new PreferenceState(lexicon);
    this.words = rng.fork('words');
  }

  async respond(userUtterance: string, history: readonly HistoryEntry[]): Promise<AgentResponse> {
    if (this.turn === 0 && history.length) {
      for (const h of history) if (h.speaker === 'user') this.state.apply(this.lexicon.parse(h.text));
    }
    return this.reply(userUtterance);
  }

  /** The synchronous core of `respond` (benchmarks and tests call it directly). */
  reply(userUtterance: string): AgentResponse {
    this.trace = { negated: [] } as unknown as T;
    const response = this.answer(userUtterance);
    response.agent_trace = this.trace;
    return response;
  }

  /** Every utterance this session has said (no verbatim repeat inside a conversation). */
  private readonly said = new Set<string>();

  /**
   * An utterance from `make` (which draws its words from `words`, never from `rng`) that this session has
   * not said before: up to 32 draws, then the last one even if said (a turn always has words).
   */
  protected fresh(make: () => string): string {
    let text = make();
    for (let i = 0; i < 31 && this.said.has(text); i++) text = make();
    this.said.add(text);
    return text;
  }

  /** This turn's answer (it counts the turn and fills `trace`). */
  protected abstract answer(userUtterance: string): AgentResponse;
}
