/**
 * The target-free LLM user (PEPPER). The user never sees a target item. At session start the
 * model writes the user's *general preferences* from the items they have seen and their reviews.
 * Every time the assistant shows items, the user forms a *reflected preference* (like / dislike,
 * with a reason) on each of the first few: from their own review when they have seen the item,
 * from their general preferences when not. Then the reply is written with both in the prompt.
 *
 * Profiles come from the session context (`context.profile`), from a list given to the simulator,
 * or, with a catalog, are sampled from the task's category by the target-free user's sampler:
 * seen items with ratings and reviews, and the highest-rated history items held out as targets
 * (used only for preference coverage in the trace, never shown to the model).
 */
import type { RecommendedItem, SimulatorTrace } from '../../../model';
import type { Rng } from '../../../random';
import type { AgentResponse, SessionContext, UserSession, UserSimulator } from '../../types';
import type { Catalog } from '../../../catalog/item';
import { samplePepperUser, type SyntheticReview } from '../targetFree';
import type { ChatMessage, LlmClient, RecordedLlmCall } from '../../../llm/client';
import { extractJsonObject } from '../../../llm/json';
import type { LlmServices } from '../../../llm/services';
import { renderTranscript } from '../../../llm/transcript';
import { LlmUserSession, UnusableUserAnswer, nextSeed, renderTask, type LlmUserOptions } from './base';
import type { AnswerValidation } from '../../../llm/validate';

/** An item the simulated user has seen, with their rating (1-5) and review when there is one. */
export interface SeenItem {
  item_id: string;
  title: string;
  description?: string;
  features?: string;
  rating?: number;
  review?: string;
}

export interface PepperProfile {
  user_id: string;
  /** Shopping category; defaults to the session's task. */
  category?: string;
  seen: SeenItem[];
  /** Held-out highly rated items (for preference coverage only). */
  targets?: string[];
}

interface TargetFreeOptions extends LlmUserOptions {
  /** Items judged per turn (PEPPER's item interface shows 4). */
  itemsPerTurn?: number;
  /** Profiles to draw from (round-robin by session). */
  profiles?: readonly PepperProfile[];
  /** Used to sample a profile when none is given. */
  catalog?: Catalog;
  /** History items per sampled profile, targets included (default 12). */
  historySize?: number;
  /** Most targets per sampled profile (default 3). */
  targetCount?: number;
}

/**
 * Samples a profile from a catalog category with the target-free user's sampler
 * (`samplePepperUser`): a rated history from a latent taste, its highest-rated items held out as
 * the targets, the rest seen, each with a short review of the aspects liked and disliked. A task
 * the catalog has no items for is replaced by one of its categories.
 */
export function sampleProfile(
  catalog: Catalog,
  category: string,
  rng: Rng,
  userId: string,
  historySize = 12,
  targetCount = 3,
): PepperProfile {
  const categories = catalog.categories();
  if (categories.length === 0) throw new Error('cannot sample a target-free profile from an empty catalog');
  const task = categories.includes(category) ? category : rng.pick(categories);
  const user = samplePepperUser(catalog, task, rng, historySize, targetCount);
  const seen: SeenItem[] = [];
  for (const h of user.seen) {
    const it = catalog.get(h.item_id);
    if (!it) continue;
    const entry: SeenItem = {
      item_id: it.item_id,
      title: it.title,
      description: it.description,
      features: it.features.join(', '),
      rating: h.rating,
    };
    const review = reviewText(user.reviews.get(h.item_id));
    if (review) entry.review = review;
    seen.push(entry);
  }
  return { user_id: userId, category: task, seen, targets: user.targets.map((t) => t.item_id) };
}

/** "Liked: colour black. Disliked: material suede." from a synthetic review ('' when it has neither). */
function reviewText(review: SyntheticReview | undefined): string {
  if (!review) return '';
  const part = (label: string, keys: readonly string[]) =>
    keys.length ? `${label}: ${keys.map((k) => k.replace('=', ' ')).join(', ')}.` : '';
  return [part('Liked', review.liked), part('Disliked', review.disliked)].filter(Boolean).join(' ');
}

function renderSeen(seen: readonly SeenItem[]): string {
  return seen
    .map((s, i) => {
      const parts = [`${i + 1}. ${s.title}`];
      if (s.features) parts.push(`   features: ${s.features}`);
      if (s.rating !== undefined) parts.push(`   rating: ${s.rating}/5`);
      if (s.review) parts.push(`   review: ${s.review.replace(/\s+/g, ' ').slice(0, 600)}`);
      return parts.join('\n');
    })
    .join('\n');
}

interface Reflection {
  item_id: string;
  opinion: 'like' | 'dislike';
  reason: string;
}

class TargetFreeSession extends LlmUserSession {
  private general?: string;
  private generalCalls: RecordedLlmCall[] = [];
  private reflections: Reflection[] = [];
  private readonly recommended = new Set<string>();
  private readonly profile: PepperProfile;

  constructor(
    client: LlmClient,
    services: LlmServices,
    rng: Rng,
    context: SessionContext,
    private readonly opts: TargetFreeOptions,
    profile: PepperProfile,
  ) {
    super(client, services.prompts, rng, context, opts);
    this.profile = profile;
  }

  private async generalPreferences(): Promise<string> {
    if (this.general !== undefined) return this.general;
    const prompt = this.prompts.render('pepper-general', {
      category: (this.profile.category ?? this.task).replace(/_/g, ' '),
      seen_items: renderSeen(this.profile.seen),
    });
    let messages: ChatMessage[] = [{ role: 'user', content: prompt.text }];
    let problem = '';
    for (let attempt = 0; attempt <= this.maxRepairs; attempt++) {
      // Checked like every answer (complete, not empty, not a refusal) before it becomes the user's taste.
      const res = await this.client.chat({
        messages,
        seed: nextSeed(this.rng),
        template: prompt.id,
        purpose: attempt ? 'user.general_preferences.repair' : 'user.general_preferences',
        validate: GENERAL_PREFERENCES_VALIDATION,
      });
      this.generalCalls.push(res.call);
      if (res.problem === undefined) {
        this.general = res.text.trim();
        return this.general;
      }
      problem = res.problem;
      const repair = this.prompts.render('text-repair', { problem });
      messages = [...messages, { role: 'assistant', content: res.text }, { role: 'user', content: repair.text }];
    }
    const calls = this.generalCalls;
    this.generalCalls = [];
    throw new UnusableUserAnswer(
      `general preferences unusable after ${this.maxRepairs + 1} attempts: ${problem}`,
      calls,
    );
  }

  protected override async reflect(
    agent: AgentResponse,
  ): Promise<{ calls: RecordedLlmCall[]; trace?: Partial<SimulatorTrace> }> {
    const shown = agent.recommendations.slice(0, this.opts.itemsPerTurn ?? 4);
    for (const r of agent.recommendations) this.recommended.add(r.item_id);
    const coverage = this.coverage();
    if (shown.length === 0) {
      this.reflections = [];
      return { calls: [], trace: coverage === undefined ? {} : { preference_coverage: coverage } };
    }
    const general = await this.generalPreferences();
    const { reflections, calls, problem } = await this.reflectOnItems(general, shown);
    this.reflections = reflections;
    const trace: Partial<SimulatorTrace> & Record<string, unknown> = {
      preferences: {
        kind: 'snapshot',
        model: 'pepper',
        general,
        reflected: Object.fromEntries(reflections.map((r) => [r.item_id, r.opinion])),
        consumed_items: this.profile.seen.map((s) => s.item_id),
      },
      reflection_reasons: Object.fromEntries(reflections.map((r) => [r.item_id, r.reason])),
    };
    if (coverage !== undefined) trace.preference_coverage = coverage;
    if (problem) trace.reflection_error = problem;
    return { calls, trace };
  }

  private async reflectOnItems(
    general: string,
    shown: readonly RecommendedItem[],
  ): Promise<{ reflections: Reflection[]; calls: RecordedLlmCall[]; problem?: string }> {
    const seenById = new Map(this.profile.seen.map((s) => [s.item_id, s]));
    const items = shown
      .map((it, i) => {
        const own = seenById.get(it.item_id);
        const feats = it.features ? ` (${Array.isArray(it.features) ? it.features.join(', ') : it.features})` : '';
        const head = `${i + 1}. item_id ${it.item_id}: ${it.title ?? ''}${feats}`;
        return own
          ? `${head}\n   SEEN: you rated it ${own.rating ?? '?'}/5${own.review ? `; you wrote: ${own.review.replace(/\s+/g, ' ').slice(0, 400)}` : ''}`
          : head;
      })
      .join('\n');
    const prompt = this.prompts.render('pepper-reflect', { general_preferences: general, items });
    let messages: ChatMessage[] = [{ role: 'user', content: prompt.text }];
    const calls: RecordedLlmCall[] = [];
    let problem = '';
    for (let attempt = 0; attempt <= this.maxRepairs; attempt++) {
      const res = await this.client.chat({
        messages,
        seed: nextSeed(this.rng),
        template: prompt.id,
        json: true,
        purpose: attempt ? 'user.reflect.repair' : 'user.reflect',
        validate: reflectionValidation(shown),
      });
      calls.push(res.call);
      const parsed =
        res.problem === undefined ? parseReflections(res.text, shown) : { ok: false as const, problem: res.problem };
      if (parsed.ok) return { reflections: parsed.reflections, calls };
      problem = parsed.problem;
      const repair = this.prompts.render('json-repair', { problem });
      messages = [...messages, { role: 'assistant', content: res.text }, { role: 'user', content: repair.text }];
    }
    // Never data: an unusable reflection fails the conversation (user_llm), with its calls recorded.
    throw new UnusableUserAnswer(`reflected preferences unusable after ${this.maxRepairs + 1} attempts: ${problem}`, [
      ...this.generalCalls.splice(0),
      ...calls,
    ]);
  }

  private coverage(): number | undefined {
    const targets = this.profile.targets;
    if (!targets?.length) return undefined;
    return targets.filter((t) => this.recommended.has(t)).length / targets.length;
  }

  protected async buildMessages(): Promise<{
    messages: ChatMessage[];
    template: string;
    trace?: Partial<SimulatorTrace>;
  }> {
    const general = await this.generalPreferences();
    const task = renderTask(this.prompts, this.task);
    const reflections = this.reflections.length
      ? this.reflections.map((r) => `- item ${r.item_id}: ${r.opinion.toUpperCase()}: ${r.reason}`).join('\n')
      : '(no products shown yet)';
    const system = this.prompts.render('pepper-respond', {
      task: task.text,
      general_preferences: general,
      reflections,
      max_turns: this.maxTurns,
    });
    const turn = this.prompts.render('user-turn', { conversation: renderTranscript(this.history) });
    const trace: Partial<SimulatorTrace> = {};
    if (this.generalCalls.length) {
      // The general-preference call belongs to the turn that first needed it.
      trace.llm_calls = this.generalCalls;
      this.generalCalls = [];
    }
    if (this.history.length === 0)
      trace.preferences = {
        kind: 'snapshot',
        model: 'pepper',
        general,
        consumed_items: this.profile.seen.map((s) => s.item_id),
      };
    return {
      messages: [
        { role: 'system', content: system.text },
        { role: 'user', content: turn.text },
      ],
      template: `${system.id}+${turn.id}+${task.id}`,
      trace,
    };
  }
}

/** The general-preference answer: free text, checked by the generic checks only. */
const GENERAL_PREFERENCES_VALIDATION: AnswerValidation = { name: 'pepper-general@1', check: () => undefined };

/** The reflection answer's check (the shown items are part of the request, so of its cache key). */
function reflectionValidation(shown: readonly RecommendedItem[]): AnswerValidation {
  return {
    name: 'pepper-reflect@1',
    check(text) {
      const parsed = parseReflections(text, shown);
      return parsed.ok ? undefined : parsed.problem;
    },
  };
}

/** Validates the reflection JSON against the shown items; unknown ids are dropped, missing ones are a problem. */
function parseReflections(
  text: string,
  shown: readonly RecommendedItem[],
): { ok: true; reflections: Reflection[] } | { ok: false; problem: string } {
  const json = extractJsonObject(text);
  if (!json.ok) return json;
  const list = json.value.items;
  if (!Array.isArray(list)) return { ok: false, problem: 'the object has no "items" array' };
  const ids = new Set(shown.map((s) => s.item_id));
  const out: Reflection[] = [];
  for (const [i, raw] of list.entries()) {
    const entry = raw as { item_id?: unknown; opinion?: unknown; reason?: unknown };
    const id =
      typeof entry.item_id === 'string' || typeof entry.item_id === 'number'
        ? String(entry.item_id)
        : shown[i]?.item_id;
    const opinion = typeof entry.opinion === 'string' ? entry.opinion.toLowerCase().trim() : '';
    if (!id || !ids.has(id)) continue;
    if (opinion !== 'like' && opinion !== 'dislike')
      return {
        ok: false,
        problem: `items[${i}].opinion must be "like" or "dislike", got ${JSON.stringify(entry.opinion)}`,
      };
    out.push({ item_id: id, opinion, reason: typeof entry.reason === 'string' ? entry.reason.slice(0, 300) : '' });
  }
  if (out.length === 0)
    return { ok: false, problem: `no opinion on any shown item (expected item_id values: ${[...ids].join(', ')})` };
  return { ok: true, reflections: out };
}

/** The target-free user ("llm-target-free"). Needs profiles, a catalog to sample them from, or `context.profile`. */
export function createTargetFreeUser(services: LlmServices, options: TargetFreeOptions = {}): UserSimulator {
  const client = services.client('user');
  let next = 0;
  return {
    name: `llm-target-free(${client.model})`,
    createSession(id: string, rng: Rng, context: SessionContext): UserSession {
      const task =
        typeof context.task === 'string' && context.task ? context.task : (options.defaultTask ?? 'footwear');
      let profile = context.profile as PepperProfile | undefined;
      if (!profile && options.profiles?.length) profile = options.profiles[next++ % options.profiles.length];
      if (!profile && options.catalog)
        profile = sampleProfile(
          options.catalog,
          task,
          rng.fork('profile'),
          `sim:${id}`,
          options.historySize,
          options.targetCount,
        );
      if (!profile)
        throw new Error(
          'llm-target-free needs user profiles (seen items and reviews) or a catalog to sample them from',
        );
      return new TargetFreeSession(client, services, rng, context, options, profile);
    },
  };
}
