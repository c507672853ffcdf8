/**
 * Meta-simulators with alternative targets (Fashion-AlterEval, Vlachou 2025): wrap any simulated
 * user, give it a target item plus alternatives the user would accept instead, and let it change
 * its mind during the dialogue.
 *
 * - MetaSimTol (Algorithm 1): once the turn number exceeds `tolerance`, the target becomes the
 *   member of the target group (original target and alternatives) most similar to the agent's
 *   current top-1 item; re-evaluated every turn after that.
 * - MetaSimProb (Algorithm 2): once past `tolerance`, compute the perceived change
 *   delta = sim(top1_k, target) - sim(top1_k-1, target); on a loss (delta < 0) switch as above with
 *   probability P_switch (default 0.75).
 *
 * Alternatives come from a relevance file (`{ "<target id>": ["<alt id>", ...] }`) or, when no file
 * is given, from `Catalog.similarity`: the k most similar items of the same category. Every turn's
 * trace carries the target; a switch adds `switched_from` and `switch_reason`. No switch happens
 * while the current target is among the first three items shown (the user has found it), nor on
 * a failed agent turn.
 */
import * as z from 'zod';
import type { SimulatorTrace, TargetState } from '../../model';
import type { Rng } from '../../random';
import type { AgentResponse, SessionContext, UserSession, UserSimulator, UserTurn } from '../types';
import type { Catalog, CatalogItem } from '../../catalog/catalog';
import { loadJsonFile } from './transitions';
import {
  isObserving,
  isRestorable,
  isTargetAware,
  round3,
  type ObservingSession,
  type RestorableSession,
} from './session';
import type { Turn } from '../../model';

export type MetaMode = 'tol' | 'prob';

/** Carousel positions the user looks at (the agenda user's browse depth). */
const SEEN_DEPTH = 3;

/** target item id -> alternative item ids (human-judged or derived). */
export type RelevanceJudgments = Record<string, string[]>;

const RelevanceSchema = z.record(z.string(), z.array(z.string()));

/** Reads a relevance file; errors name the file and the field. */
export function loadRelevance(path: string): RelevanceJudgments {
  return loadJsonFile(path, RelevanceSchema);
}

interface MetaOptions {
  mode: MetaMode;
  catalog: Catalog;
  /** Turns before the user may switch (default 2). */
  tolerance?: number;
  /** MetaSimProb: probability of switching after a perceived loss (default 0.75). */
  pSwitch?: number;
  relevance?: RelevanceJudgments;
  /** Alternatives derived per target when there is no relevance file (default 4). */
  alternatives?: number;
}

/** The k items of the same category most similar to `target` (ties by item id). */
export function deriveAlternatives(catalog: Catalog, target: CatalogItem, k: number): string[] {
  const items = catalog.categoryItems(target.category);
  const sims = catalog.similarities(target, target.category);
  // The k best by (similarity desc, id asc), kept sorted while scanning: the same k, in the same
  // order, as sorting every item (ids are unique, so the order is total), without the sort.
  const best: { id: string; s: number }[] = [];
  const before = (s: number, id: string, o: { id: string; s: number }): boolean => s > o.s || (s === o.s && id < o.id);
  for (let i = 0; i < items.length; i++) {
    const id = items[i].item_id;
    if (id === target.item_id) continue;
    const s = sims[i];
    if (best.length === k && (k === 0 || !before(s, id, best[k - 1]))) continue;
    let at = best.length === k ? k - 1 : best.length;
    while (at > 0 && before(s, id, best[at - 1])) at--;
    best.splice(at, 0, { id, s });
    if (best.length > k) best.pop();
  }
  return best.map((x) => x.id);
}

export class MetaSimulator implements UserSimulator {
  readonly name: string;
  readonly tolerance: number;
  readonly pSwitch: number;
  private readonly alternativesCache = new Map<string, string[]>();
  private readonly relevanceByCategory = new Map<string, string[]>();

  constructor(
    readonly base: UserSimulator,
    readonly options: MetaOptions,
  ) {
    this.name = `meta-${options.mode}(${base.name})`;
    this.tolerance = options.tolerance ?? 2;
    this.pSwitch = options.pSwitch ?? 0.75;
    if (!(this.tolerance >= 0)) throw new RangeError(`tolerance must be >= 0, got ${this.tolerance}`);
    if (!(this.pSwitch >= 0 && this.pSwitch <= 1))
      throw new RangeError(`P_switch must be in [0, 1], got ${this.pSwitch}`);
    if (options.relevance) {
      const missing: string[] = [];
      for (const id of Object.keys(options.relevance).sort()) {
        const item = options.catalog.get(id);
        if (!item) {
          missing.push(id);
          continue;
        }
        const list = this.relevanceByCategory.get(item.category) ?? [];
        list.push(id);
        this.relevanceByCategory.set(item.category, list);
      }
      if (this.relevanceByCategory.size === 0) {
        throw new Error(
          `relevance judgments: none of the ${missing.length} target ids is in the catalog (first: ${missing[0] ?? 'none'})`,
        );
      }
    }
  }

  /** The target group for a target: itself first, then its alternatives. */
  group(target: CatalogItem): string[] {
    const judged = this.options.relevance?.[target.item_id];
    let alts = judged?.filter((id) => id !== target.item_id && this.options.catalog.get(id));
    if (!alts) {
      alts = this.alternativesCache.get(target.item_id);
      if (!alts) {
        alts = deriveAlternatives(this.options.catalog, target, this.options.alternatives ?? 4);
        this.alternativesCache.set(target.item_id, alts);
      }
    }
    return [target.item_id, ...alts];
  }

  /** Picks the initial target for a task category. */
  pickTarget(task: string | undefined, rng: Rng): CatalogItem {
    const catalog = this.options.catalog;
    if (this.options.relevance) {
      const pool = (task && this.relevanceByCategory.get(task)) || [...this.relevanceByCategory.values()].flat();
      return catalog.get(rng.pick(pool))!;
    }
    const cats = catalog.categories();
    const cat = task && cats.includes(task) ? task : rng.pick(cats);
    return rng.pick(catalog.byCategory(cat));
  }

  createSession(conversationId: string, rng: Rng, context: SessionContext): UserSession {
    // One Rng for wrapper and wrapped user: a fork that swaps the Rng mid-dialogue swaps both.
    const target = this.pickTarget(typeof context.task === 'string' ? context.task : undefined, rng);
    // the wrapped user owns none of the items it is sent to buy (its history leaves them out)
    const base = this.base.createSession(conversationId, rng, {
      ...context,
      task: target.category,
      targetGroup: this.group(target),
    });
    return new MetaSession(this, base, target, rng);
  }
}

class MetaSession implements ObservingSession, RestorableSession {
  private target: CatalogItem;
  private group: string[];
  private turn = 0;
  private previousTop: CatalogItem | undefined;

  constructor(
    private readonly meta: MetaSimulator,
    private readonly base: UserSession,
    target: CatalogItem,
    private readonly rng: Rng,
  ) {
    this.target = target;
    this.group = meta.group(target);
    this.tell();
  }

  private tell(): void {
    if (isTargetAware(this.base)) this.base.setTarget({ target: this.target, alternatives: this.group });
  }

  private state(extra?: Partial<TargetState>): TargetState {
    return { item_id: this.target.item_id, alternatives: this.group.slice(), ...extra };
  }

  async start(): Promise<UserTurn> {
    const t = await this.base.start();
    t.trace.target = this.state();
    return t;
  }

  observe(response: AgentResponse): Partial<SimulatorTrace> | undefined {
    if (response.error) return undefined;
    return isObserving(this.base) ? this.base.observe(response) : undefined;
  }

  /** The member of the target group most similar to `top` (the current target wins ties). */
  private closest(top: CatalogItem): CatalogItem {
    const catalog = this.meta.options.catalog;
    let best = this.target;
    let bestSim = catalog.similarity(top, this.target);
    for (const id of this.group) {
      const item = catalog.get(id);
      if (!item || item === this.target) continue;
      const s = catalog.similarity(top, item);
      if (s > bestSim) {
        best = item;
        bestSim = s;
      }
    }
    return best;
  }

  async respond(response: AgentResponse): Promise<UserTurn> {
    if (response.error) {
      // A failed agent turn is not a turn the user saw: no switch, no tolerance step.
      const t = await this.base.respond(response);
      t.trace.target = this.state();
      return t;
    }
    this.turn++;
    const catalog = this.meta.options.catalog;
    const topRec = response.recommendations[0];
    const top = topRec ? catalog.get(topRec.item_id) : undefined;
    let switchInfo: Partial<TargetState> | undefined;
    // A user that sees what it is looking for among the first items keeps it (and takes it).
    const seesTarget = response.recommendations.slice(0, SEEN_DEPTH).some((r) => r.item_id === this.target.item_id);
    if (top && !seesTarget && this.turn > this.meta.tolerance) {
      let consider = false;
      let reason = '';
      if (this.meta.options.mode === 'tol') {
        consider = true;
        reason = `tolerance: turn ${this.turn} > ${this.meta.tolerance}`;
      } else if (this.previousTop) {
        const delta = catalog.similarity(top, this.target) - catalog.similarity(this.previousTop, this.target);
        if (delta < 0) {
          const draw = this.rng.next();
          consider = draw < this.meta.pSwitch;
          reason = `perceived loss: delta=${round3(delta)}, draw=${round3(draw)} < P_switch=${this.meta.pSwitch}`;
        }
      }
      if (consider) {
        const best = this.closest(top);
        if (best !== this.target) {
          switchInfo = { switched_from: this.target.item_id, switch_reason: reason };
          this.target = best;
          this.tell();
        }
      }
    }
    if (top) this.previousTop = top;
    const t = await this.base.respond(response);
    t.trace.target = this.state(switchInfo);
    return t;
  }

  restore(prefix: readonly Turn[]): void {
    if (!isRestorable(this.base)) throw new Error('the wrapped user cannot be restored from a trace');
    const last = [...prefix].reverse().find((t) => t.trace?.target)?.trace?.target;
    if (last) {
      const item = this.meta.options.catalog.get(last.item_id);
      if (item) this.target = item;
      // the recorded group, not the one of the target this session drew
      const group = (last.alternatives ?? []).filter((id) => this.meta.options.catalog.get(id));
      if (item && group.includes(item.item_id)) this.group = group;
    }
    // The state is the one after the last prefix turn's user utterance: the agent responses of the
    // earlier turns have been seen, the last turn's response is what `respond` gets next.
    this.turn = prefix.length - 1;
    const shown = prefix.slice(0, -1).filter((t) => t.recommendations?.length);
    const prevTop = shown[shown.length - 1]?.recommendations?.[0];
    this.previousTop = prevTop ? this.meta.options.catalog.get(prevTop.item_id) : undefined;
    this.base.restore(prefix);
    this.tell();
  }
}
