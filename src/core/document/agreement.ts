/**
 * Inter-annotator agreement on utterance dialogue acts: for every pair of annotators (an LLM
 * judge that writes utterance annotations, e.g. `annotator: "judge:<model>"`, is one more
 * annotator), over the utterances both annotated, Cohen's kappa per act (act present / absent)
 * and a confusion matrix of the primary act (the first one listed).
 */
import { cohenKappa } from '../stats/agreement';
import type { Conversation, Speaker } from '../model';
import type { ActAgreement, AgreementReport, AgreementResult } from '../../shared/editorProtocol';

/** Label used in the confusion matrix when an annotation has a note but no act. */
export const NO_ACT = '(none)';

interface Item {
  /** Conversation index + turn + speaker + segment. */
  key: string;
  speaker: Speaker;
}

function finiteOrNull(x: number): number | null {
  return Number.isFinite(x) ? x : null;
}

/**
 * Agreement over a set of conversations. `order` optionally fixes the act order of the tables
 * (e.g. the taxonomy's); acts not in it follow alphabetically.
 */
export function agreementFromConversations(
  conversations: Iterable<Conversation>,
  order: { user?: readonly string[]; assistant?: readonly string[] } = {},
): AgreementResult {
  const byAnnotator = new Map<string, Map<string, string[]>>();
  const items = new Map<string, Item>();
  let count = 0;
  for (const conv of conversations) {
    const c = count++;
    conv.turns.forEach((turn, t) => {
      for (const a of turn.annotations ?? []) {
        const key = `${c}|${t}|${a.speaker}|${a.segment ?? 0}`;
        items.set(key, { key, speaker: a.speaker });
        let map = byAnnotator.get(a.annotator);
        if (!map) byAnnotator.set(a.annotator, (map = new Map()));
        map.set(key, a.acts);
      }
    });
  }
  const annotators = [...byAnnotator.keys()].sort();
  const reports: AgreementReport[] = [];
  for (let i = 0; i < annotators.length; i++) {
    for (let j = i + 1; j < annotators.length; j++) {
      for (const speaker of ['user', 'assistant'] as const) {
        const report = pairReport(annotators[i], annotators[j], speaker, byAnnotator, items, order[speaker] ?? []);
        if (report) reports.push(report);
      }
    }
  }
  return {
    annotators,
    reports,
    conversations: count,
    note: annotators.length < 2 ? 'Agreement needs at least two annotators (or an annotator and a judge) on the same utterances.' : undefined,
  };
}

function orderActs(acts: Iterable<string>, order: readonly string[]): string[] {
  const set = new Set(acts);
  const known = order.filter((a) => set.has(a));
  const rest = [...set].filter((a) => !order.includes(a)).sort();
  return [...known, ...rest];
}

function pairReport(
  a: string,
  b: string,
  speaker: Speaker,
  byAnnotator: Map<string, Map<string, string[]>>,
  items: Map<string, Item>,
  order: readonly string[],
): AgreementReport | undefined {
  const ma = byAnnotator.get(a)!;
  const mb = byAnnotator.get(b)!;
  const shared: string[] = [];
  for (const key of ma.keys()) if (mb.has(key) && items.get(key)?.speaker === speaker) shared.push(key);
  if (shared.length === 0) return undefined;
  const used = new Set<string>();
  for (const k of shared) for (const act of [...ma.get(k)!, ...mb.get(k)!]) used.add(act);
  const perAct: ActAgreement[] = orderActs(used, order).map((act) => {
    const la = shared.map((k) => ma.get(k)!.includes(act));
    const lb = shared.map((k) => mb.get(k)!.includes(act));
    let countA = 0;
    let countB = 0;
    let both = 0;
    la.forEach((x, n) => {
      if (x) countA++;
      if (lb[n]) countB++;
      if (x && lb[n]) both++;
    });
    return { act, kappa: finiteOrNull(cohenKappa(la, lb)), countA, countB, both };
  });
  const primary = (acts: string[]): string => acts[0] ?? NO_ACT;
  const pa = shared.map((k) => primary(ma.get(k)!));
  const pb = shared.map((k) => primary(mb.get(k)!));
  const labels = orderActs([...pa, ...pb], [...order, NO_ACT]);
  const index = new Map(labels.map((l, n) => [l, n]));
  const matrix = labels.map(() => labels.map(() => 0));
  pa.forEach((x, n) => matrix[index.get(x)!][index.get(pb[n])!]++);
  return {
    annotatorA: a,
    annotatorB: b,
    speaker,
    items: shared.length,
    perAct,
    primaryKappa: finiteOrNull(cohenKappa(pa, pb)),
    labels,
    matrix,
  };
}

/** What `computeAgreement` needs from a document (kept structural so tests can pass fakes). */
export interface AgreementSource {
  summarizeAll(): Promise<void>;
  readonly summaries: { annotatedLines(): number[] };
  readConversation(line: number): Promise<{ conversation?: Conversation }>;
}

/** Agreement over every annotated conversation of a document, unsaved edits included. */
export async function computeAgreement(
  doc: AgreementSource,
  order: { user?: readonly string[]; assistant?: readonly string[] } = {},
): Promise<AgreementResult> {
  await doc.summarizeAll();
  const conversations: Conversation[] = [];
  for (const line of doc.summaries.annotatedLines()) {
    const read = await doc.readConversation(line);
    if (read.conversation) conversations.push(read.conversation);
  }
  return agreementFromConversations(conversations, order);
}
