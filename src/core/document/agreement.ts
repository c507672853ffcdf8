/**
 * Inter-annotator agreement on utterance dialogue acts: for every pair of annotators (an LLM
 * judge that writes utterance annotations, e.g. `annotator: "judge:<model>"`, is one more
 * annotator), over the utterances both annotated, Cohen's kappa per act (act present / absent)
 * and a confusion matrix of the primary act (the first one listed); Fleiss' kappa on the primary
 * act when three or more annotators share utterances.
 *
 * Annotators are only compared on the same taxonomy (an annotation's `taxonomy` field, else the
 * built-in taxonomy its labels belong to). Pairs on different taxonomies are skipped with a
 * warning, or, with `map`, both sides are mapped through the act aliases
 * (src/core/taxonomy/act-aliases.json) to Zhang & Balog acts and the report says so.
 */
import { cohenKappa, fleissKappaFromLabels } from '../stats/agreement';
import type { Conversation, Speaker } from '../model';
import { inferTaxonomyName } from '../taxonomy';
import { defaultActAliases, toAgentAct, toUserAct, type ActAliases } from '../taxonomy/acts';
import type { ActAgreement, AgreementReport, AgreementResult, FleissReport } from './types';

/** Label used in the confusion matrix when an annotation has a note but no act. */
const NO_ACT = '(none)';
/** Taxonomy name shown for an annotator whose labels fit no known taxonomy. */
const UNKNOWN_TAXONOMY = 'unknown';
/** The taxonomy `map` maps every side to. */
const MAPPED_TAXONOMY = 'zhang-balog';

interface AgreementOptions {
  /** Act order of the tables (e.g. the active taxonomy's); acts not in it follow alphabetically. */
  order?: { user?: readonly string[]; assistant?: readonly string[] };
  /** Only these annotators (default: all). */
  annotators?: readonly string[];
  /** Map annotators on different taxonomies through the act aliases to Zhang & Balog acts. */
  map?: boolean;
  aliases?: ActAliases;
}

interface Item {
  key: string;
  speaker: Speaker;
}

function finiteOrNull(x: number): number | null {
  return Number.isFinite(x) ? x : null;
}

/**
 * Every utterance annotation of the conversations (of the `annotators` wanted, else all), keyed by
 * conversation, turn, speaker and segment: the acts per annotator, the utterances, and per annotator
 * how often it used each taxonomy (named, or inferred from its labels).
 */
function collectAnnotations(
  conversations: Iterable<Conversation>,
  annotatorsWanted: readonly string[] | undefined,
): {
  byAnnotator: Map<string, Map<string, string[]>>;
  taxCounts: Map<string, Map<string, number>>;
  items: Map<string, Item>;
  count: number;
} {
  const byAnnotator = new Map<string, Map<string, string[]>>();
  const taxCounts = new Map<string, Map<string, number>>();
  const items = new Map<string, Item>();
  const wanted = annotatorsWanted ? new Set(annotatorsWanted) : undefined;
  let count = 0;
  for (const conv of conversations) {
    const c = count++;
    conv.turns.forEach((turn, t) => {
      for (const a of turn.annotations ?? []) {
        if (wanted && !wanted.has(a.annotator)) continue;
        const key = `${c}|${t}|${a.speaker}|${a.segment ?? 0}`;
        items.set(key, { key, speaker: a.speaker });
        let map = byAnnotator.get(a.annotator);
        if (!map) byAnnotator.set(a.annotator, (map = new Map()));
        map.set(key, a.acts);
        const tax = a.taxonomy?.trim() || inferTaxonomyName(a.acts, a.speaker);
        if (tax) {
          let tc = taxCounts.get(a.annotator);
          if (!tc) taxCounts.set(a.annotator, (tc = new Map()));
          tc.set(tax, (tc.get(tax) ?? 0) + 1);
        }
      }
    });
  }
  return { byAnnotator, taxCounts, items, count };
}

/** Each annotator's taxonomy: the one it used most (a warning when it used more than one). */
function dominantTaxonomies(
  annotators: readonly string[],
  taxCounts: Map<string, Map<string, number>>,
  warnings: string[],
): Record<string, string> {
  const taxonomies: Record<string, string> = {};
  for (const a of annotators) {
    const tc = [...(taxCounts.get(a) ?? new Map<string, number>())].sort((x, y) => y[1] - x[1]);
    taxonomies[a] = tc[0]?.[0] ?? UNKNOWN_TAXONOMY;
    if (tc.length > 1)
      warnings.push(
        `${a} used more than one taxonomy (${tc.map(([n, k]) => `${n}: ${k}`).join(', ')}); treated as ${taxonomies[a]}.`,
      );
  }
  return taxonomies;
}

/** Agreement over a set of conversations. */
export function agreementFromConversations(
  conversations: Iterable<Conversation>,
  opts: AgreementOptions = {},
): AgreementResult {
  const { byAnnotator, taxCounts, items, count } = collectAnnotations(conversations, opts.annotators);
  const annotators = [...byAnnotator.keys()].sort();
  const warnings: string[] = [];
  for (const name of opts.annotators ?? [])
    if (!byAnnotator.has(name)) warnings.push(`Annotator "${name}" has no utterance annotations in this file.`);
  const taxonomies = dominantTaxonomies(annotators, taxCounts, warnings);
  const aliases = opts.map ? (opts.aliases ?? defaultActAliases()) : undefined;
  const mapActs = (acts: string[], speaker: Speaker): string[] => {
    const out: string[] = [];
    for (const act of acts) {
      const m = speaker === 'user' ? toUserAct(act, aliases!) : toAgentAct(act, aliases!);
      if (m && !out.includes(m)) out.push(m);
    }
    return out;
  };
  /** The labels an annotator gave, mapped when the comparison needs it. */
  const view = (name: string, mapped: boolean): Map<string, string[]> => {
    const src = byAnnotator.get(name)!;
    if (!mapped) return src;
    const out = new Map<string, string[]>();
    for (const [k, acts] of src) out.set(k, mapActs(acts, items.get(k)!.speaker));
    return out;
  };
  const mappingNote = (names: string[]): string => {
    const from = [...new Set(names.map((n) => taxonomies[n]))].sort();
    return `${from.join(' and ')} mapped to ${MAPPED_TAXONOMY} acts through act-aliases.json`;
  };
  const reports: AgreementReport[] = [];
  const skipped: string[] = [];
  for (let i = 0; i < annotators.length; i++) {
    for (let j = i + 1; j < annotators.length; j++) {
      const a = annotators[i];
      const b = annotators[j];
      // Labels that fit no known taxonomy (a custom one without a name) are compared as they are.
      const same =
        taxonomies[a] === taxonomies[b] || taxonomies[a] === UNKNOWN_TAXONOMY || taxonomies[b] === UNKNOWN_TAXONOMY;
      if (!same && !opts.map) {
        skipped.push(`${a} (${taxonomies[a]}) and ${b} (${taxonomies[b]})`);
        continue;
      }
      const mapped = !same;
      const ma = view(a, mapped);
      const mb = view(b, mapped);
      for (const speaker of ['user', 'assistant'] as const) {
        const report = pairReport(a, b, speaker, ma, mb, items, mapped ? [] : (opts.order?.[speaker] ?? []));
        if (!report) continue;
        report.taxonomy = mapped ? MAPPED_TAXONOMY : taxonomies[a] === UNKNOWN_TAXONOMY ? taxonomies[b] : taxonomies[a];
        if (mapped) report.mapping = mappingNote([a, b]);
        reports.push(report);
      }
    }
  }
  if (skipped.length) {
    warnings.push(
      `Not compared, different taxonomies: ${skipped.join('; ')}. Kappa across taxonomies is meaningless; map both ` +
        `through the act aliases (CLI --map, or "Map through act aliases") to compare them.`,
    );
  }
  const fleiss = fleissReports(annotators, taxonomies, items, view, opts.map === true, mappingNote);
  return {
    annotators,
    taxonomies,
    reports,
    fleiss,
    conversations: count,
    mapped: opts.map === true,
    warnings,
    note:
      annotators.length < 2
        ? 'Agreement needs at least two annotators (or an annotator and a judge) on the same utterances.'
        : undefined,
  };
}

/**
 * Fleiss' kappa on the primary act, per speaker, over the utterances every annotator of a group
 * annotated: one group per taxonomy with 3+ annotators, or (with `map`) all annotators, mapped.
 */
function fleissReports(
  annotators: string[],
  taxonomies: Record<string, string>,
  items: Map<string, Item>,
  view: (name: string, mapped: boolean) => Map<string, string[]>,
  map: boolean,
  mappingNote: (names: string[]) => string,
): FleissReport[] {
  const groups: Array<{ names: string[]; mapped: boolean; taxonomy: string }> = [];
  const distinct = new Set(annotators.map((a) => taxonomies[a]));
  if (map && distinct.size > 1) {
    if (annotators.length >= 3) groups.push({ names: annotators, mapped: true, taxonomy: MAPPED_TAXONOMY });
  } else {
    for (const tax of distinct) {
      const names = annotators.filter((a) => taxonomies[a] === tax);
      if (names.length >= 3 && tax !== UNKNOWN_TAXONOMY) groups.push({ names, mapped: false, taxonomy: tax });
    }
  }
  const out: FleissReport[] = [];
  for (const g of groups) {
    const views = g.names.map((n) => view(n, g.mapped));
    for (const speaker of ['user', 'assistant'] as const) {
      const rows: string[][] = [];
      for (const key of views[0].keys()) {
        if (items.get(key)?.speaker !== speaker || !views.every((v) => v.has(key))) continue;
        rows.push(views.map((v) => v.get(key)![0] ?? NO_ACT));
      }
      if (rows.length === 0) continue;
      out.push({
        speaker,
        annotators: g.names,
        taxonomy: g.taxonomy,
        items: rows.length,
        kappa: finiteOrNull(fleissKappaFromLabels(rows)),
        ...(g.mapped ? { mapping: mappingNote(g.names) } : {}),
      });
    }
  }
  return out;
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
  ma: Map<string, string[]>,
  mb: Map<string, string[]>,
  items: Map<string, Item>,
  order: readonly string[],
): AgreementReport | undefined {
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
interface AgreementSource {
  summarizeAll(): Promise<void>;
  readonly summaries: { annotatedLines(): number[] };
  readConversation(line: number): Promise<{ conversation?: Conversation }>;
}

/** Agreement over every annotated conversation of a document, unsaved edits included. */
export async function computeAgreement(doc: AgreementSource, opts: AgreementOptions = {}): Promise<AgreementResult> {
  await doc.summarizeAll();
  const conversations: Conversation[] = [];
  for (const line of doc.summaries.annotatedLines()) {
    const read = await doc.readConversation(line);
    if (read.conversation) conversations.push(read.conversation);
  }
  return agreementFromConversations(conversations, opts);
}

function k3(x: number | null): string {
  return x === null ? '—' : x.toFixed(3);
}

/** The agreement report as plain text (the CLI's output; the editor renders the same model). */
export function formatAgreementText(r: AgreementResult): string {
  const out: string[] = [];
  out.push(
    `${r.conversations} annotated conversation(s); annotators: ` +
      `${r.annotators.map((a) => `${a} [${r.taxonomies[a] ?? UNKNOWN_TAXONOMY}]`).join(', ') || 'none'}`,
  );
  if (r.note) out.push(r.note);
  for (const w of r.warnings) out.push(`warning: ${w}`);
  for (const p of r.reports) {
    out.push('');
    out.push(
      `${p.annotatorA} vs ${p.annotatorB} — ${p.speaker} utterances (${p.items}), taxonomy ${p.taxonomy ?? '?'}${p.mapping ? ` (${p.mapping})` : ''}`,
    );
    out.push(`  primary-act Cohen's kappa: ${k3(p.primaryKappa)}`);
    const w = Math.max(3, ...p.perAct.map((a) => a.act.length));
    out.push(
      `  ${'act'.padEnd(w)}  ${'kappa'.padStart(6)}  ${'A'.padStart(5)}  ${'B'.padStart(5)}  ${'both'.padStart(5)}`,
    );
    for (const a of p.perAct)
      out.push(
        `  ${a.act.padEnd(w)}  ${k3(a.kappa).padStart(6)}  ${String(a.countA).padStart(5)}  ${String(a.countB).padStart(5)}  ${String(a.both).padStart(5)}`,
      );
  }
  for (const f of r.fleiss) {
    out.push('');
    out.push(
      `Fleiss' kappa, ${f.speaker} utterances, ${f.annotators.join(', ')} (${f.items} utterances, taxonomy ` +
        `${f.taxonomy}${f.mapping ? `; ${f.mapping}` : ''}): ${k3(f.kappa)}`,
    );
  }
  if (r.reports.length === 0 && !r.note)
    out.push('No utterance was annotated by two annotators on a comparable taxonomy.');
  return out.join('\n') + '\n';
}
