/**
 * LLM recommenders over the catalog's retrieval, in ConvApparel's two conditions.
 *
 * - good: the query is the words of what the shopper has said so far, less the values the
 *   shopper negated ("not keen on anything in spandex" does not search for
 *   spandex); retrieval over the full item text, skipping items with a value the shopper ruled
 *   out (until taken back) or outside a price limit they gave; a helpful system prompt.
 * - bad: the query is a single word of the latest message, the one that tells items apart least
 *   (the word most items of the category contain), retrieval over partial item text (title +
 *   start of the description), negations ignored, and a prompt that is subtly unhelpful.
 *
 * When the search finds nothing (the shopper said nothing the catalog has words for), both
 * broaden it, as a real assistant still shows something: first to the words of all the shopper's
 * messages, then to items of the category drawn with the session's seeded rng. What they did is
 * in `agent_trace` (query, filters, negated, retrieved, and `fallback` when they broadened).
 *
 * One LLM call per turn, recorded in `AgentResponse.llm_calls`. Transport failures (LlmError:
 * endpoint down or refusing after retries, timeout, budget spent, cancelled) are thrown: the run
 * stops, keeps its finished conversations and can be resumed (see run.ts stopsRun). A model that
 * answers but keeps replying with nothing (empty text, e.g. a content filter) is re-asked
 * `EMPTY_REPLY_RETRIES` times with a new seed; after that the turn returns `error` with
 * `error_kind: 'agent_llm'`, and the conversation ends as `agent_error`.
 */
import type { AnswerValidation } from '../../llm/validate';
import { Lexicon, mentionsOutside } from './local/lexicon';
import { PreferenceState } from './local/state';
import type { Catalog, CatalogItem } from '../../catalog/item';
import type { LlmCall, RecommendedItem, SimulatorTrace } from '../../model';
import type { Rng } from '../../random';
import type { Agent, AgentResponse, AgentSession, HistoryEntry, SessionContext } from '../types';
import { contentTokens } from '../../text/tokenize';
import type { LlmServices } from '../../llm/services';
import { renderItems, renderTranscript, type TranscriptEntry } from '../../llm/transcript';
import { nextSeed } from '../users/llm/base';

type LlmAgentBehaviour = 'good' | 'bad';

interface LlmAgentOptions {
  catalog: Catalog;
  /** Items shown per turn (ConvApparel: up to 12). */
  k?: number;
  /** Shop domain in the system prompt (default "clothing and shoes"). */
  domain?: string;
}

/** The recommender's answer check: free text, the generic checks (validate.ts) only. */
const AGENT_REPLY_VALIDATION: AnswerValidation = { name: 'agent-reply@1', check: () => undefined };

/** Extra attempts when the model's answer is unusable (empty, cut, a refusal), before the turn fails as `agent_llm`. */
export const EMPTY_REPLY_RETRIES = 2;

/** An LLM recommender's reading of a turn, with `fallback` when it had to broaden the search. */
type LlmAgentTrace = NonNullable<SimulatorTrace['agent']> & {
  negated: string[];
  fallback?: 'all_messages' | 'category';
};

/**
 * Builds the retrieval query for a turn (exported for tests). `category`, when given, is where the
 * bad agent counts how many items share each word (so the word it latches onto occurs there).
 */
export function retrievalQuery(
  behaviour: LlmAgentBehaviour,
  userTurns: readonly string[],
  catalog: Catalog,
  rng: Rng,
  category?: string,
): string {
  const latest = userTurns[userTurns.length - 1] ?? '';
  if (behaviour === 'good') return [...userTurns, latest].join(' ');
  // The bad agent latches onto one unimportant word: among the latest message's content words,
  // the one most items share (so it discriminates least); ties broken by the seeded rng.
  const words = [...new Set(contentTokens(latest))];
  if (words.length === 0) return latest;
  const index = category !== undefined ? catalog.categoryPartialIndex(category) : catalog.partialTextIndex();
  const counts = words.map((w) => index.documentFrequency(w));
  const most = Math.max(...counts);
  const candidates = words.filter((_, i) => counts[i] === most);
  return rng.pick(candidates);
}

class LlmAgentSession implements AgentSession {
  /** The user's messages as the retrieval reads them (good: without the negated values). */
  private readonly userTurns: string[] = [];
  private readonly shown: RecommendedItem[][] = [];
  private readonly lexicon: Lexicon;
  private readonly state: PreferenceState;

  constructor(
    private readonly services: LlmServices,
    private readonly behaviour: LlmAgentBehaviour,
    private readonly options: LlmAgentOptions,
    private readonly rng: Rng,
    private readonly task: string | undefined,
  ) {
    this.lexicon = Lexicon.for(options.catalog);
    this.state = new PreferenceState(this.lexicon);
  }

  async respond(userUtterance: string, history: readonly HistoryEntry[]): Promise<AgentResponse> {
    const { catalog } = this.options;
    const k = this.options.k ?? 12;
    const category = this.task && catalog.byCategory(this.task).length ? this.task : undefined;
    const trace: LlmAgentTrace = { negated: [] };
    let filter: ((item: CatalogItem) => boolean) | undefined;
    if (this.behaviour === 'good') {
      const { state } = this;
      const parsed = this.lexicon.parse(userUtterance);
      // Shown items named (by title or place) are references, not preferences; a rejected one is set aside
      // ("Not <title>.", "<title> isn't for me", "<title>, no thanks").
      const refs = this.lexicon.findItems(parsed, state.shown, state.shown);
      const mentions = mentionsOutside(parsed.mentions, refs);
      const rejected = refs.filter(
        (r) =>
          parsed.intents.has('reject') ||
          (r.start > 0 && (parsed.tokens[r.start - 1] === 'not' || parsed.tokens[r.start - 1] === 'no')),
      );
      for (const r of rejected) state.rejected.add(r.item.item_id);
      const update = state.apply(parsed, mentions);
      for (const m of update.removed) if (!trace.negated.includes(m.value)) trace.negated.push(m.value);
      // the words of negated values and rejected titles would pull exactly those items up: leave them out of the query
      const drop = [...mentions.filter((m) => m.negated), ...rejected];
      const keep = parsed.tokens.filter((_, i) => !drop.some((m) => i >= m.start && i < m.end));
      this.userTurns.push(keep.join(' '));
      const violates = this.state.violation();
      filter = (item) => !violates(item);
    } else {
      this.userTurns.push(userUtterance);
    }
    const partialText = this.behaviour === 'bad';
    // BM25 counts each distinct query term once, so the distinct content words retrieve exactly
    // the same items, and keep the recorded query short
    let query = [
      ...new Set(contentTokens(retrievalQuery(this.behaviour, this.userTurns, catalog, this.rng, category))),
    ].join(' ');
    let hits = catalog.search(query, k, { category, partialText, filter });
    if (hits.length === 0) {
      // nothing matched the query: broaden to everything the user said, then to the category
      const all = [...new Set(this.userTurns.flatMap((t) => contentTokens(t)))].join(' ');
      if (all && all !== query) {
        hits = catalog.search(all, k, { category, partialText, filter });
        if (hits.length) {
          query = all;
          trace.fallback = 'all_messages';
        }
      }
      if (hits.length === 0) {
        hits = this.sample(category, k, filter);
        trace.fallback = 'category';
      }
    }
    trace.query = query;
    if (category !== undefined) trace.filters = { category };
    trace.retrieved = hits.length;
    this.state.show(hits);
    const items = hits.map((it) => catalog.toRecommendedItem(it));
    this.shown.push(items);

    // Attach what was shown to the assistant entries of the history we were given, where we know it.
    let a = 0;
    const entries: TranscriptEntry[] = history.map((h) =>
      h.speaker === 'assistant' ? { ...h, items: this.shown[a++] } : { ...h },
    );
    const prompts = this.services.prompts;
    const system = prompts.render(this.behaviour === 'good' ? 'agent-good' : 'agent-bad', {
      domain: this.options.domain ?? 'clothing and shoes',
    });
    const turn = prompts.render('agent-turn', {
      conversation: renderTranscript(entries, { maxItems: 0 }),
      items: items.length ? renderItems(items, { maxItems: k, itemFeatures: true }) : '(nothing matched)',
      user_message: userUtterance,
    });
    const t0 = Date.now();
    const calls: LlmCall[] = [];
    let text = '';
    let problem: string | undefined;
    for (let attempt = 0; attempt <= EMPTY_REPLY_RETRIES; attempt++) {
      // LlmError propagates: the run stops and a resume redoes this conversation (see run.ts stopsRun).
      const res = await this.services.client('recommender').chat({
        messages: [
          { role: 'system', content: system.text },
          { role: 'user', content: turn.text },
        ],
        seed: nextSeed(this.rng),
        template: `${system.id}+${turn.id}`,
        purpose: `agent.${this.behaviour}`,
        validate: AGENT_REPLY_VALIDATION,
      });
      calls.push(res.call);
      // Validated by the client: not empty, not cut at the token limit, not a refusal.
      problem = res.problem;
      if (problem === undefined) {
        text = res.text.trim();
        break;
      }
    }
    const latency_ms = Date.now() - t0;
    if (problem !== undefined) {
      return {
        utterance: '',
        recommendations: [],
        latency_ms,
        llm_calls: calls,
        agent_trace: trace,
        error_kind: 'agent_llm',
        error: `llm-${this.behaviour}: the recommender model's answer was unusable ${calls.length} times (last: ${problem})`,
      };
    }
    return { utterance: text, recommendations: items, latency_ms, llm_calls: calls, agent_trace: trace };
  }

  /** Up to k distinct items of the category (of the catalog when there is none), drawn with the session rng. */
  private sample(
    category: string | undefined,
    k: number,
    filter: ((item: CatalogItem) => boolean) | undefined,
  ): CatalogItem[] {
    const all = category !== undefined ? this.options.catalog.byCategory(category) : this.options.catalog.items;
    const pool = filter ? all.filter(filter) : all.slice();
    const out: CatalogItem[] = [];
    while (out.length < k && pool.length) out.push(pool.splice(this.rng.int(pool.length), 1)[0]);
    return out;
  }
}

/** The LLM recommender ("llm-good" / "llm-bad"). */
export function createLlmAgent(services: LlmServices, behaviour: LlmAgentBehaviour, options: LlmAgentOptions): Agent {
  if (options.catalog.size === 0) throw new Error(`llm-${behaviour} needs a non-empty catalog`);
  return {
    name: `llm-${behaviour}(${services.client('recommender').model})`,
    condition: behaviour,
    createSession(_id: string, rng: Rng, context: SessionContext): AgentSession {
      return new LlmAgentSession(
        services,
        behaviour,
        options,
        rng,
        typeof context.task === 'string' ? context.task : undefined,
      );
    },
  };
}
