/**
 * LLM recommenders over the catalog's retrieval, in ConvApparel's two conditions.
 *
 * - good: the query is what the shopper has said so far (latest message weighted double),
 *   retrieval over the full item text, and a helpful system prompt.
 * - bad: the query is a single word of the latest message, the one that tells items apart least
 *   (the word most catalog items contain), retrieval over partial item text (title + start of
 *   the description), and
 *   a prompt that is subtly unhelpful.
 *
 * One LLM call per turn, recorded in `AgentResponse.llm_calls`. LLM errors are thrown: the run
 * stops, keeps its finished conversations and can be resumed.
 */
import type { Catalog } from '../../catalog/item';
import type { RecommendedItem } from '../../model';
import type { Rng } from '../../random';
import type { Agent, AgentResponse, AgentSession, HistoryEntry, SessionContext } from '../../sim/types';
import { contentTokens } from '../../text/tokenize';
import type { LlmServices } from '../services';
import { renderItems, renderTranscript, type TranscriptEntry } from '../transcript';
import { nextSeed } from '../users/base';

export type LlmAgentBehaviour = 'good' | 'bad';

export interface LlmAgentOptions {
  catalog: Catalog;
  /** Items shown per turn (ConvApparel: up to 12). */
  k?: number;
  /** Shop domain in the system prompt (default "clothing and shoes"). */
  domain?: string;
}

/** Builds the retrieval query for a turn (exported for tests). */
export function retrievalQuery(behaviour: LlmAgentBehaviour, userTurns: readonly string[], catalog: Catalog, rng: Rng): string {
  const latest = userTurns[userTurns.length - 1] ?? '';
  if (behaviour === 'good') return [...userTurns, latest].join(' ');
  // The bad agent latches onto one unimportant word: among the latest message's content words,
  // the one most items share (so it discriminates least); ties broken by the seeded rng.
  const words = [...new Set(contentTokens(latest))];
  if (words.length === 0) return latest;
  const index = catalog.partialTextIndex();
  const counts = words.map((w) => index.search(w, catalog.size).length);
  const most = Math.max(...counts);
  const candidates = words.filter((_, i) => counts[i] === most);
  return rng.pick(candidates);
}

class LlmAgentSession implements AgentSession {
  private readonly userTurns: string[] = [];
  private readonly shown: RecommendedItem[][] = [];

  constructor(
    private readonly services: LlmServices,
    private readonly behaviour: LlmAgentBehaviour,
    private readonly options: LlmAgentOptions,
    private readonly rng: Rng,
    private readonly task: string | undefined,
  ) {}

  async respond(userUtterance: string, history: readonly HistoryEntry[]): Promise<AgentResponse> {
    const { catalog } = this.options;
    const k = this.options.k ?? 12;
    this.userTurns.push(userUtterance);
    const query = retrievalQuery(this.behaviour, this.userTurns, catalog, this.rng);
    const category = this.task && catalog.byCategory(this.task).length ? this.task : undefined;
    const hits = catalog.search(query, k, { category, partialText: this.behaviour === 'bad' });
    const items = hits.map((it) => catalog.toRecommendedItem(it));
    this.shown.push(items);

    // Attach what was shown to the assistant entries of the history we were given, where we know it.
    let a = 0;
    const entries: TranscriptEntry[] = history.map((h) => (h.speaker === 'assistant' ? { ...h, items: this.shown[a++] } : { ...h }));
    const prompts = this.services.prompts;
    const system = prompts.render(this.behaviour === 'good' ? 'agent-good' : 'agent-bad', { domain: this.options.domain ?? 'clothing and shoes' });
    const turn = prompts.render('agent-turn', {
      conversation: renderTranscript(entries, { maxItems: 0 }),
      items: items.length ? renderItems(items, { maxItems: k, itemFeatures: true }) : '(nothing matched)',
      user_message: userUtterance,
    });
    const t0 = Date.now();
    // LLM errors propagate: the run stops and a resume redoes this conversation (see run.ts stopsRun).
    const res = await this.services.client('recommender').chat({
      messages: [{ role: 'system', content: system.text }, { role: 'user', content: turn.text }],
      seed: nextSeed(this.rng), template: `${system.id}+${turn.id}`, purpose: `agent.${this.behaviour}`,
    });
    const response: AgentResponse & { retrieval_query?: string } = {
      utterance: res.text.trim(), recommendations: items, latency_ms: Date.now() - t0, llm_calls: [res.call],
    };
    response.retrieval_query = query;
    return response;
  }
}

/** The LLM recommender ("llm-good" / "llm-bad"). */
export function createLlmAgent(services: LlmServices, behaviour: LlmAgentBehaviour, options: LlmAgentOptions): Agent {
  if (options.catalog.size === 0) throw new Error(`llm-${behaviour} needs a non-empty catalog`);
  return {
    name: `llm-${behaviour}(${services.client('recommender').model})`,
    condition: behaviour,
    createSession(_id: string, rng: Rng, context: SessionContext): AgentSession {
      return new LlmAgentSession(services, behaviour, options, rng, typeof context.task === 'string' ? context.task : undefined);
    },
  };
}
