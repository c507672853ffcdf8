/**
 * Recommendation-quality metrics over simulated conversations:
 *
 * - PEPPER (target-free users): Preference Coverage PC_t = mean over users of
 *   |T_u ∩ (R_u,1 ∪ … ∪ R_u,t)| / |T_u| (T_u = the user's target set, R_u,i = items recommended at
 *   turn i, the top `k` of each list, default 50), its increase PCIR_t = PC_t − PC_{t−1}
 *   (PC_0 = 0), and Recall@k per turn = mean over users of |T_u ∩ top-k(R_u,t)| / |T_u|.
 * - Fashion-AlterEval: per turn SR@1 (a relevant item ranked first), NDCG@10 and MRR@10 with binary
 *   relevance, relevant = the target plus its alternatives (or the target alone for the classical
 *   setting); conversations are cut at turn 10 and, from the turn the user finds a relevant item
 *   at rank 1, every measure counts as 1.
 *
 * A conversation shorter than the horizon keeps its last coverage (PEPPER) or, for AlterEval, has
 * 0 after it ended without success.
 */
import type { Conversation } from '../model';

/** The target items of a conversation: trace.targets, else trace.target.item_id of the first turn that has it, else metadata.targets. */
export function conversationTargets(conv: Conversation): string[] {
  for (const t of conv.turns) {
    const list = t.trace?.targets;
    if (Array.isArray(list) && list.length) return [...new Set(list)];
  }
  for (const t of conv.turns) {
    const id = t.trace?.target?.item_id;
    if (id) return [id];
  }
  const meta = conv.metadata?.targets;
  if (Array.isArray(meta)) return [...new Set(meta.filter((x): x is string => typeof x === 'string'))];
  return [];
}

/** The original target and its alternatives (first turn with a target; ignores later switches). */
function targetWithAlternatives(conv: Conversation): { target?: string; alternatives: string[] } {
  for (const t of conv.turns) {
    const tg = t.trace?.target;
    if (tg?.item_id) {
      const original = tg.switched_from ?? tg.item_id;
      return { target: original, alternatives: (tg.alternatives ?? []).filter((a) => a !== original) };
    }
  }
  const meta = conv.metadata;
  const target = typeof meta?.target === 'string' ? meta.target : undefined;
  const alts = Array.isArray(meta?.alternatives)
    ? (meta!.alternatives as unknown[]).filter((x): x is string => typeof x === 'string')
    : [];
  return { target, alternatives: alts };
}

/** Recommended item ids per turn (turns without recommendations give an empty list). */
function recommendationsPerTurn(conv: Conversation): string[][] {
  return conv.turns.map((t) => (t.recommendations ?? []).map((r) => r.item_id));
}

/** PEPPER curves per turn t = 1..T. */
export interface PepperCurves {
  /** Conversations with a non-empty target set. */
  users: number;
  turns: number;
  k: number;
  pc: number[];
  pcir: number[];
  recall_at_k: number[];
  /** Mean of PCIR over turns (the paper's PCIR_avg). */
  pcir_avg: number;
}

/**
 * PC_t, PCIR_t and Recall@k for t = 1..`turns` (default: the longest conversation).
 * @param k list depth per turn (default 50, as in the PEPPER code)
 */
export function pepperCurves(
  conversations: readonly Conversation[],
  opts: { k?: number; turns?: number } = {},
): PepperCurves {
  const k = opts.k ?? 50;
  const users = conversations
    .map((c) => ({
      targets: new Set(conversationTargets(c)),
      recs: recommendationsPerTurn(c).filter((r, i) => r.length > 0 || c.turns[i].assistant_utterance !== undefined),
    }))
    .filter((u) => u.targets.size > 0);
  const T = opts.turns ?? Math.max(0, ...users.map((u) => u.recs.length));
  const pc = new Array<number>(T).fill(0);
  const recall = new Array<number>(T).fill(0);
  for (const u of users) {
    const seen = new Set<string>();
    let covered = 0;
    for (let t = 0; t < T; t++) {
      const list = (u.recs[t] ?? []).slice(0, k);
      let hits = 0;
      for (const id of new Set(list)) {
        if (!u.targets.has(id)) continue;
        hits++;
        if (!seen.has(id)) {
          seen.add(id);
          covered++;
        }
      }
      pc[t] += covered / u.targets.size;
      recall[t] += hits / u.targets.size;
    }
  }
  const n = users.length;
  for (let t = 0; t < T; t++) {
    pc[t] = n ? pc[t] / n : NaN;
    recall[t] = n ? recall[t] / n : NaN;
  }
  const pcir = pc.map((v, t) => v - (t ? pc[t - 1] : 0));
  return {
    users: n,
    turns: T,
    k,
    pc,
    pcir,
    recall_at_k: recall,
    pcir_avg: T ? pcir.reduce((s, v) => s + v, 0) / T : NaN,
  };
}

/** AlterEval measures per turn t = 1..horizon. */
export interface AlterEvalCurves {
  conversations: number;
  horizon: number;
  relevant: 'alternatives' | 'target';
  sr_at_1: number[];
  ndcg_at_10: number[];
  mrr_at_10: number[];
  /** Share of conversations where a relevant item reached rank 1 within the horizon. */
  success: number;
}

/** NDCG@k with binary relevance. */
export function ndcgAtK(list: readonly string[], relevant: ReadonlySet<string>, k = 10): number {
  let dcg = 0;
  const top = list.slice(0, k);
  top.forEach((id, i) => {
    if (relevant.has(id)) dcg += 1 / Math.log2(i + 2);
  });
  let idcg = 0;
  for (let i = 0; i < Math.min(k, relevant.size); i++) idcg += 1 / Math.log2(i + 2);
  return idcg ? dcg / idcg : 0;
}

/** MRR@k: 1/rank of the first relevant item in the top k (0 if none). */
export function mrrAtK(list: readonly string[], relevant: ReadonlySet<string>, k = 10): number {
  const top = list.slice(0, k);
  for (let i = 0; i < top.length; i++) if (relevant.has(top[i])) return 1 / (i + 1);
  return 0;
}

/**
 * SR@1, NDCG@10 and MRR@10 per turn over conversations with a known target.
 * @param relevant "alternatives" (target + alternatives, for meta-simulators) or "target" (classical)
 */
export function alterEvalCurves(
  conversations: readonly Conversation[],
  opts: { relevant?: 'alternatives' | 'target'; horizon?: number } = {},
): AlterEvalCurves {
  const mode = opts.relevant ?? 'alternatives';
  const H = opts.horizon ?? 10;
  const sr = new Array<number>(H).fill(0);
  const nd = new Array<number>(H).fill(0);
  const mr = new Array<number>(H).fill(0);
  let n = 0;
  let successes = 0;
  for (const c of conversations) {
    const { target, alternatives } = targetWithAlternatives(c);
    if (!target) continue;
    n++;
    const rel = new Set(mode === 'alternatives' ? [target, ...alternatives] : [target]);
    const recs = recommendationsPerTurn(c).filter((r) => r.length > 0);
    let found = false;
    for (let t = 0; t < H; t++) {
      if (!found && t < recs.length && rel.has(recs[t][0])) found = true;
      if (found) {
        sr[t] += 1;
        nd[t] += 1;
        mr[t] += 1;
      } else if (t < recs.length) {
        nd[t] += ndcgAtK(recs[t], rel);
        mr[t] += mrrAtK(recs[t], rel);
      }
    }
    if (found) successes++;
  }
  const avg = (v: number[]) => v.map((x) => (n ? x / n : NaN));
  return {
    conversations: n,
    horizon: H,
    relevant: mode,
    sr_at_1: avg(sr),
    ndcg_at_10: avg(nd),
    mrr_at_10: avg(mr),
    success: n ? successes / n : NaN,
  };
}

/** Per-turn improvement of a meta-simulator run over its base run on the same recommender. */
export interface AlterEvalImprovement {
  base: AlterEvalCurves;
  meta: AlterEvalCurves;
  /** meta − base per turn. */
  sr_at_1: number[];
  ndcg_at_10: number[];
  mrr_at_10: number[];
  /** (meta − base) / base at the last turn, per measure (NaN when base is 0). */
  relative_at_horizon: { sr_at_1: number; ndcg_at_10: number; mrr_at_10: number };
}

/**
 * Improvement of a meta-simulator (evaluated with alternatives relevant) over its base simulator
 * (classical single-target evaluation), as in Fashion-AlterEval.
 */
export function alterEvalImprovement(
  base: readonly Conversation[],
  meta: readonly Conversation[],
  horizon = 10,
): AlterEvalImprovement {
  const b = alterEvalCurves(base, { relevant: 'target', horizon });
  const m = alterEvalCurves(meta, { relevant: 'alternatives', horizon });
  const diff = (x: number[], y: number[]) => x.map((v, i) => v - y[i]);
  const rel = (x: number[], y: number[]) => (y[horizon - 1] ? (x[horizon - 1] - y[horizon - 1]) / y[horizon - 1] : NaN);
  return {
    base: b,
    meta: m,
    sr_at_1: diff(m.sr_at_1, b.sr_at_1),
    ndcg_at_10: diff(m.ndcg_at_10, b.ndcg_at_10),
    mrr_at_10: diff(m.mrr_at_10, b.mrr_at_10),
    relative_at_horizon: {
      sr_at_1: rel(m.sr_at_1, b.sr_at_1),
      ndcg_at_10: rel(m.ndcg_at_10, b.ndcg_at_10),
      mrr_at_10: rel(m.mrr_at_10, b.mrr_at_10),
    },
  };
}
