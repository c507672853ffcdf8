/**
 * The in-context-learning user (ConvApparel ICL): each turn, retrieve the k human conversations
 * most similar to the conversation so far (BM25 by default; an embeddings endpoint when one is
 * configured) and show them as examples in the prompt. The pool can be restricted to one
 * condition, e.g. good-agent conversations only, for counterfactual validation against the bad agent.
 */
import type { Conversation } from '../../../model';
import { conversationCondition, conversationId, conversationSource, conversationTask } from '../../../model';
import type { Rng } from '../../../random';
import type { SessionContext, UserSession, UserSimulator } from '../../types';
import { Bm25Index } from '../../../text/bm25';
import type { ChatMessage, LlmClient } from '../../../llm/client';
import type { LlmServices } from '../../../llm/services';
import { conversationTranscript, renderTranscript, type TranscriptEntry } from '../../../llm/transcript';
import { LlmUserSession, renderTask, type LlmUserOptions } from './base';

interface IclPoolOptions {
  /** Keep only conversations of this condition ("good", "bad"). */
  condition?: string;
  /** Keep only this source (default "human"; "*" keeps every source). */
  source?: string;
}

/** The retrieval pool: the conversations that pass the filters. Throws when none does. */
export function filterPool(conversations: readonly Conversation[], opts: IclPoolOptions = {}): Conversation[] {
  const source = opts.source ?? 'human';
  const pool = conversations.filter(
    (c) =>
      c.turns.some((t) => t.user_utterance) &&
      (!opts.condition || conversationCondition(c) === opts.condition) &&
      (source === '*' || conversationSource(c) === source),
  );
  if (pool.length === 0) {
    throw new Error(
      `ICL pool is empty: no ${source === '*' ? '' : `${source} `}conversations${opts.condition ? ` with condition "${opts.condition}"` : ''} among ${conversations.length}`,
    );
  }
  return pool;
}

/** Text a pool conversation is retrieved by: its utterances, both sides. */
function poolText(conv: Conversation): string {
  return conv.turns.map((t) => `${t.user_utterance ?? ''} ${t.assistant_utterance ?? ''}`).join(' ');
}

/** Finds example conversations for a query; `task` prefers conversations of the same shopping task. */
interface ExampleRetriever {
  readonly kind: 'bm25' | 'embeddings';
  retrieve(query: string, k: number, task?: string): Promise<{ conversation: Conversation; score: number }[]>;
}

/** Restricts to the task's conversations when at least k exist, else uses the whole pool. */
function taskFilter(pool: readonly Conversation[], k: number, task?: string): ((i: number) => boolean) | undefined {
  if (!task) return undefined;
  const n = pool.reduce((s, c) => s + (conversationTask(c) === task ? 1 : 0), 0);
  return n >= k ? (i) => conversationTask(pool[i]) === task : undefined;
}

/** BM25 over the pool's utterances. */
class Bm25ExampleRetriever implements ExampleRetriever {
  readonly kind = 'bm25' as const;
  private readonly index: Bm25Index<number>;
  constructor(private readonly pool: readonly Conversation[]) {
    this.index = new Bm25Index(
      pool.map((_, i) => i),
      (i) => poolText(pool[i]),
    );
  }
  async retrieve(query: string, k: number, task?: string): Promise<{ conversation: Conversation; score: number }[]> {
    const filter = taskFilter(this.pool, k, task);
    let hits = this.index.search(query, k, filter ? (i: number) => filter(i) : undefined);
    // A query with no matching words (the very first turn) still gets examples: the first k of the task.
    if (hits.length < k) {
      const have = new Set(hits.map((h) => h.doc));
      const extra: { doc: number; score: number }[] = [];
      for (let i = 0; i < this.pool.length && hits.length + extra.length < k; i++) {
        if (!have.has(i) && (!filter || filter(i))) extra.push({ doc: i, score: 0 });
      }
      hits = [...hits, ...extra.map((e) => ({ ...e, index: e.doc }))];
    }
    return hits.map((h) => ({ conversation: this.pool[h.doc], score: h.score }));
  }
}

/** Cosine similarity over vectors from the embeddings endpoint (pool embedded once, in batches, cached). */
class EmbeddingExampleRetriever implements ExampleRetriever {
  readonly kind = 'embeddings' as const;
  private vectors?: Promise<Float32Array[]>;
  constructor(
    private readonly pool: readonly Conversation[],
    private readonly client: LlmClient,
    private readonly batchSize = 64,
    private readonly maxChars = 4000,
  ) {}

  private embedPool(): Promise<Float32Array[]> {
    this.vectors ??= (async () => {
      const out: Float32Array[] = [];
      for (let i = 0; i < this.pool.length; i += this.batchSize) {
        const batch = this.pool.slice(i, i + this.batchSize).map((c) => poolText(c).slice(0, this.maxChars));
        const res = await this.client.embed(batch);
        for (const v of res.vectors) out.push(normalise(v));
      }
      return out;
    })();
    // A failed embedding pass must not poison later sessions: forget it so the next turn retries.
    this.vectors.catch(() => {
      this.vectors = undefined;
    });
    return this.vectors;
  }

  async retrieve(query: string, k: number, task?: string): Promise<{ conversation: Conversation; score: number }[]> {
    const vectors = await this.embedPool();
    const [q] = (await this.client.embed([query.slice(0, this.maxChars) || ' '])).vectors;
    const qv = normalise(q);
    const filter = taskFilter(this.pool, k, task);
    const scored: { i: number; score: number }[] = [];
    for (let i = 0; i < vectors.length; i++) {
      if (filter && !filter(i)) continue;
      let dot = 0;
      const v = vectors[i];
      for (let j = 0; j < v.length && j < qv.length; j++) dot += v[j] * qv[j];
      scored.push({ i, score: dot });
    }
    scored.sort((a, b) => b.score - a.score || a.i - b.i);
    return scored.slice(0, k).map((s) => ({ conversation: this.pool[s.i], score: s.score }));
  }
}

function normalise(v: readonly number[]): Float32Array {
  let n = 0;
  for (const x of v) n += x * x;
  const inv = n > 0 ? 1 / Math.sqrt(n) : 0;
  return Float32Array.from(v, (x) => x * inv);
}

interface IclUserOptions extends LlmUserOptions, IclPoolOptions {
  /** Examples per prompt (default 3). */
  k?: number;
  /** Force a retriever; default: embeddings when the services have an embeddings model, else BM25. */
  retriever?: 'bm25' | 'embeddings';
  /** Characters kept per utterance inside an example (default 300). */
  exampleUtteranceChars?: number;
}

class IclSession extends LlmUserSession {
  constructor(
    client: LlmClient,
    services: LlmServices,
    rng: Rng,
    context: SessionContext,
    private readonly opts: IclUserOptions,
    private readonly retriever: ExampleRetriever,
  ) {
    super(client, services.prompts, rng, context, opts);
  }

  protected async buildMessages(): Promise<{
    messages: ChatMessage[];
    template: string;
    trace: Record<string, unknown>;
  }> {
    const k = this.opts.k ?? 3;
    const query = this.history.length
      ? this.history.map((e: TranscriptEntry) => e.text).join('\n')
      : this.task.replace(/_/g, ' ');
    const hits = await this.retriever.retrieve(query, k, this.task);
    const examples = hits
      .map(
        (h, i) =>
          `Example ${i + 1}:\n${conversationTranscript(h.conversation, { maxItems: 0, maxUtteranceChars: this.opts.exampleUtteranceChars ?? 300 })}`,
      )
      .join('\n\n');
    const task = renderTask(this.prompts, this.task);
    const system = this.prompts.render('user-icl', { task: task.text, max_turns: this.maxTurns, examples });
    const turn = this.prompts.render('user-turn', { conversation: renderTranscript(this.history) });
    return {
      messages: [
        { role: 'system', content: system.text },
        { role: 'user', content: turn.text },
      ],
      template: `${system.id}+${turn.id}+${task.id}`,
      // Which human conversations shaped this turn: the "why" behind the utterance.
      trace: {
        icl_examples: hits.map((h) => ({ id: conversationId(h.conversation), score: Number(h.score.toFixed(4)) })),
        icl_retriever: this.retriever.kind,
      },
    };
  }
}

/** The ICL user ("llm-icl") over a pool of (human) conversations. */
export function createIclUser(
  services: LlmServices,
  conversations: readonly Conversation[],
  options: IclUserOptions = {},
): UserSimulator {
  const pool = filterPool(conversations, options);
  const useEmbeddings = options.retriever ? options.retriever === 'embeddings' : services.hasEmbeddings;
  if (useEmbeddings && !services.hasEmbeddings)
    throw new Error(
      'ICL retriever "embeddings" needs an embeddings model (simlens.llm.embeddings.model / --embeddings-model)',
    );
  const retriever: ExampleRetriever = useEmbeddings
    ? new EmbeddingExampleRetriever(pool, services.client('embeddings'))
    : new Bm25ExampleRetriever(pool);
  const client = services.client('user');
  return {
    name: `llm-icl(${client.model}, k=${options.k ?? 3}, ${retriever.kind}${options.condition ? `, ${options.condition} only` : ''})`,
    createSession(_id: string, rng: Rng, context: SessionContext): UserSession {
      return new IclSession(client, services, rng, context, options, retriever);
    },
  };
}
