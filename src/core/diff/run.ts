/**
 * Diff of two runs, conversation by conversation, by streaming: run A is indexed (byte offsets,
 * its pairing keys in a map), run B is read once from start to end, and each B conversation is
 * compared with its A partner read from disk on demand. Only per-pair summaries and the feature
 * values of the pairs are kept, never the conversations.
 */
import { JsonlFile, forEachLine, parseLineBytes, type LineError } from '../jsonl';
import { conversationId, isUserOutcome, type Conversation } from '../model';
import {
  conversationFeatures,
  describeActSource,
  featureLabel,
  featureValue,
  ACT_FEATURES,
  type ActSource,
} from '../metrics/features';
import { outcomeClass } from '../report/outcomes';
import { InputProblemError } from '../report/inputProblem';
import { bootstrapMeanInterval, mcnemarExact, wilcoxonSignedRank } from '../stats/paired';
import { comparePair } from './compare';
import { manifestSeed, pairingKey, seedKey, type PairingMode } from './pairing';
import {
  DIFF_REPORT_KIND,
  type DialoguePart,
  type DiffReport,
  type FeatureChange,
  type OutcomeLabel,
  type PairSummary,
  type UnpairedEntry,
} from './model';

export interface DiffOptions {
  pairing?: PairingMode | 'auto';
  acts?: ActSource;
  /** Bootstrap seed and resamples of the headline features' intervals (default "simlens-diff", 1000). */
  seed?: string;
  resamples?: number;
  signal?: AbortSignal;
  onProgress?: (phase: 'A' | 'B', done: number, total: number) => void;
}

/** Features with a bootstrap interval (the questions a simulator change raises first). */
const HEADLINE_FEATURES = [
  'num_turns',
  'user_words_per_turn',
  'user_acts',
  'trace_satisfaction',
  'satisfaction',
  'accepted',
] as const;

/** Every feature compared: the headline ones, then questions and each ConvApparel user act. */
const DIFF_FEATURES: readonly string[] = [
  ...HEADLINE_FEATURES,
  'user_turns_with_question',
  'assistant_turns_with_question',
  'frustration',
  ...ACT_FEATURES,
];

const EXTRA_LABELS: Record<string, string> = {
  user_acts: 'User acts (total)',
  trace_satisfaction: 'Final satisfaction (simulator trace)',
};

/** The label of a diff feature. */
function diffFeatureLabel(name: string): string {
  return EXTRA_LABELS[name] ?? featureLabel(name);
}

/** How a conversation ended, as the diff labels it. */
function outcomeLabel(conv: Conversation): OutcomeLabel {
  const k = outcomeClass(conv);
  if (k.failure) return `failure:${k.failure.reason}`;
  return k.outcome ?? 'unknown';
}

/** The values of DIFF_FEATURES for one conversation (NaN = unknown). */
function diffFeatureValues(conv: Conversation, acts: ActSource): Float64Array {
  const f = conversationFeatures(conv, { acts });
  const out = new Float64Array(DIFF_FEATURES.length);
  DIFF_FEATURES.forEach((name, j) => {
    if (name === 'user_acts') {
      if (!f.actsKnown) out[j] = NaN;
      else {
        let s = 0;
        for (const [k, v] of Object.entries(f.values)) if (k.startsWith('act:') && Number.isFinite(v)) s += v;
        out[j] = s;
      }
    } else if (name === 'trace_satisfaction') {
      let v = NaN;
      for (const t of conv.turns) if (typeof t.trace?.satisfaction === 'number') v = t.trace.satisfaction;
      out[j] = v;
    } else out[j] = featureValue(f, name);
  });
  return out;
}

function badLines(file: string, errors: LineError[]): string {
  return errors
    .slice(0, 3)
    .map((e) => `${file}:${e.line}:${e.column}: ${e.message}`)
    .join('\n');
}

/** The line as a conversation-shaped object when it is plain JSON with a `turns` array (not schema-checked), else undefined. */
function quickConversation(bytes: Buffer): Conversation | undefined {
  if (bytes.length === 0) return undefined;
  let v: unknown;
  try {
    v = JSON.parse(bytes.toString('utf8'));
  } catch {
    return undefined;
  }
  if (!v || typeof v !== 'object' || Array.isArray(v)) return undefined;
  const o = v as { turns?: unknown; metadata?: unknown };
  if (!Array.isArray(o.turns) || !o.turns.every((t) => t !== null && typeof t === 'object' && !Array.isArray(t)))
    return undefined;
  if (o.metadata !== undefined && (o.metadata === null || typeof o.metadata !== 'object')) return undefined;
  return v as Conversation;
}

/** A growable Float64Array. */
class Column {
  data = new Float64Array(1024);
  length = 0;
  push(v: number): void {
    if (this.length === this.data.length) {
      const next = new Float64Array(this.data.length * 2);
      next.set(this.data);
      this.data = next;
    }
    this.data[this.length++] = v;
  }
  view(): Float64Array {
    return this.data.subarray(0, this.length);
  }
}

/**
 * Pairs the conversations of run A and run B, compares each pair and computes the aggregate and
 * the paired statistics. Throws InputProblemError naming file, line and field for a line that is
 * not a valid conversation (nothing is silently skipped), and for a key that occurs twice in one
 * run under seed or id pairing.
 */
export async function diffRuns(pathA: string, pathB: string, opts: DiffOptions = {}): Promise<DiffReport> {
  const acts: ActSource = opts.acts ?? { kind: 'tagger' };
  const bootSeed = opts.seed ?? 'simlens-diff';
  const resamples = opts.resamples ?? 1000;
  const [seedA, seedB] = await Promise.all([manifestSeed(pathA), manifestSeed(pathB)]);
  const fileA = await JsonlFile.open(pathA, { signal: opts.signal });
  try {
    const { keys, mode, conversationsA } = await pairingKeysOfA(fileA, pathA, pathB, seedA, seedB, opts);
    const { byKey, noKeyA } = indexByKey(keys, mode, pathA);
    const unpaired: UnpairedEntry[] = [];

    // Pass 2: stream B, compare each conversation with its partner.
    const pairs: PairSummary[] = [];
    const nF = DIFF_FEATURES.length;
    // Per feature: the differences B - A (NaN when unknown on either side or a failure) and the sums of A and B over the known pairs.
    const diffs: Column[] = Array.from({ length: nF }, () => new Column());
    const sums = Array.from({ length: nF }, () => ({ a: 0, b: 0 }));
    const failedPair: number[] = [];
    let conversationsB = 0;
    const seenB = new Map<string, number>();
    const bTotal = { size: 0 };
    await forEachLine(
      pathB,
      async (bytes, i) => {
        const p = parseLineBytes(bytes, i);
        if (p.kind === 'blank') return;
        if (p.kind === 'invalid')
          throw new InputProblemError(`run B is not valid SimLens JSONL:\n${badLines(pathB, p.errors)}`);
        conversationsB++;
        const convB = p.conversation;
        const key = pairingKey(mode, convB, p.line, seedB);
        const idB = conversationId(convB, p.line);
        if (key === undefined) {
          unpaired.push({ side: 'B', line: p.line, id: idB, reason: noKeyReason(mode) });
          return;
        }
        const lineA = takePartner(byKey, key);
        if (lineA === undefined) {
          const dup = mode !== 'profile' ? seenB.get(key) : undefined;
          if (dup !== undefined)
            throw new InputProblemError(
              `${pathB}:${p.line}: ${key} occurs twice in run B (first on line ${dup}); pair by ` +
                `${mode === 'seed' ? 'id (--pairing id)' : 'seed or profile'} or remove the duplicate`,
            );
          unpaired.push({ side: 'B', line: p.line, id: idB, reason: `no conversation with ${key} in A` });
          return;
        }
        if (mode !== 'profile') seenB.set(key, p.line);
        const pa = await fileA.parseLine(lineA);
        if (pa.kind !== 'valid')
          throw new InputProblemError(
            `run A is not valid SimLens JSONL:\n${pa.kind === 'invalid' ? badLines(pathA, pa.errors) : `${pathA}:${lineA + 1}: the line is blank now (the file changed while the diff ran)`}`,
          );
        const convA = pa.conversation;
        const summary = pairSummary(key, convA, lineA + 1, convB, p.line, idB);
        pairs.push(summary);
        const failed = summary.outcomeA.startsWith('failure:') || summary.outcomeB.startsWith('failure:');
        if (failed) failedPair.push(pairs.length - 1);
        addFeatureDifferences(convA, convB, failed, acts, diffs, sums);
      },
      {
        signal: opts.signal,
        onProgress: (done, size) => {
          bTotal.size = size;
          opts.onProgress?.('B', done, size);
        },
      },
    );
    unpaired.push(...(await unpairedOfA(fileA, pathA, byKey, noKeyA, mode)));
    unpaired.sort((x, y) => (x.side === y.side ? x.line - y.line : x.side < y.side ? -1 : 1));

    const features = DIFF_FEATURES.map((name, j) =>
      featureChange(name, diffs[j].view(), sums[j], HEADLINE_FEATURES.includes(name as never), bootSeed, resamples),
    );
    const success = successChange(pairs);
    return {
      kind: DIFF_REPORT_KIND,
      a: { file: pathA, conversations: conversationsA, ...(seedA !== undefined ? { seed: seedA } : {}) },
      b: { file: pathB, conversations: conversationsB, ...(seedB !== undefined ? { seed: seedB } : {}) },
      pairing: mode,
      pairs,
      unpaired,
      aggregate: aggregate(pairs),
      features,
      success,
      settings: { acts: describeActSource(acts), bootstrapSeed: bootSeed, resamples },
    };
  } finally {
    await fileA.close();
  }
}

/**
 * The line of A paired with `key`, taken out of the index (a key that several lines of A share, under
 * profile pairing, gives them out in file order); undefined when A has none left.
 */
function takePartner(byKey: Map<string, number | number[]>, key: string): number | undefined {
  const entry = byKey.get(key);
  if (typeof entry === 'number') {
    byKey.delete(key);
    return entry;
  }
  if (!entry) return undefined;
  const line = entry.shift();
  if (entry.length === 0) byKey.delete(key);
  return line;
}

/** What the diff reports of one pair: ids, lines, the first turn and trace field that differ, outcomes, lengths. */
function pairSummary(
  key: string,
  convA: Conversation,
  lineA: number,
  convB: Conversation,
  lineB: number,
  idB: string,
): PairSummary {
  const cmp = comparePair(convA, convB);
  const outcomeA = outcomeLabel(convA);
  const outcomeB = outcomeLabel(convB);
  const idA = conversationId(convA, lineA);
  const summary: PairSummary = {
    key,
    idA,
    idB: idB === idA ? idA : idB,
    lineA,
    lineB,
    identical: cmp.identical && outcomeA === outcomeB,
    parts: cmp.parts,
    traceFieldsAtTurn: cmp.traceFieldsAtTurn,
    traceFields: cmp.traceFields,
    outcomeA,
    outcomeB,
    turnsA: convA.turns.length,
    turnsB: convB.turns.length,
  };
  if (cmp.turn !== undefined) summary.turn = cmp.turn;
  if (cmp.traceTurn !== undefined) summary.traceTurn = cmp.traceTurn;
  return summary;
}

/** Adds one pair's per-feature differences B - A (NaN when unknown on either side or the pair failed) and, for known pairs, the sums of A and B. */
function addFeatureDifferences(
  convA: Conversation,
  convB: Conversation,
  failed: boolean,
  acts: ActSource,
  diffs: Column[],
  sums: { a: number; b: number }[],
): void {
  const va = diffFeatureValues(convA, acts);
  const vb = diffFeatureValues(convB, acts);
  for (let j = 0; j < diffs.length; j++) {
    const known = !failed && Number.isFinite(va[j]) && Number.isFinite(vb[j]);
    diffs[j].push(known ? vb[j] - va[j] : NaN);
    if (known) {
      sums[j].a += va[j];
      sums[j].b += vb[j];
    }
  }
}

/**
 * Pass 1 over run A: the pairing key of every conversation (by line, 0-based) and the pairing mode
 * (given, or `seed` when every conversation of A and the first of B carry a seed, else `id`).
 */
async function pairingKeysOfA(
  fileA: JsonlFile,
  pathA: string,
  pathB: string,
  seedA: string | undefined,
  seedB: string | undefined,
  opts: DiffOptions,
): Promise<{ keys: (string | undefined)[]; mode: PairingMode; conversationsA: number }> {
  // Pass 1 over A: the pairing keys of every conversation.
  const total = fileA.lineCount;
  let mode: PairingMode | undefined = opts.pairing && opts.pairing !== 'auto' ? opts.pairing : undefined;
  const seedKeys: (string | undefined)[] = mode ? [] : new Array(total);
  const keys: (string | undefined)[] = new Array(total);
  let conversationsA = 0;
  let allSeeded = true;
  const BATCH = 256;
  for (let from = 0; from < total; from += BATCH) {
    if (opts.signal?.aborted) throw opts.signal.reason ?? new Error('aborted');
    const raw = await fileA.readLines(from, BATCH);
    for (let k = 0; k < raw.length; k++) {
      const i = from + k;
      // Keys only: a plain JSON.parse of a line that looks like a conversation. The schema is
      // checked when the line is read again as a partner (or listed as unpaired), with the same
      // file:line:field message; anything else goes through the full parser now.
      let conv = quickConversation(raw[k]);
      if (!conv) {
        const p = parseLineBytes(raw[k], i);
        if (p.kind === 'blank') continue;
        if (p.kind === 'invalid')
          throw new InputProblemError(`run A is not valid SimLens JSONL:\n${badLines(pathA, p.errors)}`);
        conv = p.conversation;
      }
      conversationsA++;
      if (mode) keys[i] = pairingKey(mode, conv, i + 1, seedA);
      else {
        const s = seedKey(conv, seedA);
        if (s === undefined) allSeeded = false;
        seedKeys[i] = s;
        keys[i] = pairingKey('id', conv, i + 1, seedA);
      }
    }
    opts.onProgress?.('A', Math.min(from + BATCH, total), total);
  }
  if (!mode) {
    let firstB: Conversation | undefined;
    await forEachLineUntil(pathB, (bytes, i) => {
      const p = parseLineBytes(bytes, i);
      if (p.kind === 'valid') {
        firstB = p.conversation;
        return true;
      }
      return p.kind === 'invalid';
    });
    mode =
      allSeeded && conversationsA > 0 && firstB !== undefined && seedKey(firstB, seedB) !== undefined ? 'seed' : 'id';
    if (mode === 'seed') for (let i = 0; i < total; i++) if (i in seedKeys) keys[i] = seedKeys[i];
    seedKeys.length = 0;
  }
  return { keys, mode, conversationsA };
}

/** Run A's lines by pairing key, in file order (only `profile` pairing allows a key twice), and A's lines without a key. */
function indexByKey(
  keys: (string | undefined)[],
  mode: PairingMode,
  pathA: string,
): { byKey: Map<string, number | number[]>; noKeyA: number[] } {
  // key -> A lines (0-based), in file order
  const byKey = new Map<string, number | number[]>();
  const noKeyA: number[] = [];
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i];
    if (k === undefined) {
      if (i in keys) noKeyA.push(i);
      continue;
    }
    const prev = byKey.get(k);
    if (prev === undefined) byKey.set(k, i);
    else if (mode !== 'profile')
      throw new InputProblemError(
        `${pathA}:${i + 1}: ${k} occurs twice in run A (first on line ` +
          `${(typeof prev === 'number' ? prev : prev[0]) + 1}); pair by ` +
          `${mode === 'seed' ? 'id (--pairing id)' : 'seed or profile'} or remove the duplicate`,
      );
    else if (typeof prev === 'number') byKey.set(k, [prev, i]);
    else prev.push(i);
  }
  return { byKey, noKeyA };
}

/** Run A's conversations left after pass 2 (no key, or no partner in B), schema-checked, in line order. */
async function unpairedOfA(
  fileA: JsonlFile,
  pathA: string,
  byKey: Map<string, number | number[]>,
  noKeyA: number[],
  mode: PairingMode,
): Promise<UnpairedEntry[]> {
  const unpaired: UnpairedEntry[] = [];
  // A conversations left: no key, or no partner in B.
  const leftA: { line: number; reason: string }[] = noKeyA.map((i) => ({ line: i, reason: noKeyReason(mode) }));
  for (const [k, v] of byKey)
    for (const i of typeof v === 'number' ? [v] : v) leftA.push({ line: i, reason: `no conversation with ${k} in B` });
  leftA.sort((x, y) => x.line - y.line);
  for (const { line, reason } of leftA) {
    const pa = await fileA.parseLine(line);
    if (pa.kind !== 'valid')
      throw new InputProblemError(
        `run A is not valid SimLens JSONL:\n${pa.kind === 'invalid' ? badLines(pathA, pa.errors) : `${pathA}:${line + 1}: the line is blank now (the file changed while the diff ran)`}`,
      );
    const id = conversationId(pa.conversation, line + 1);
    unpaired.push({ side: 'A', line: line + 1, id, reason });
  }
  return unpaired;
}

function noKeyReason(mode: PairingMode): string {
  switch (mode) {
    case 'seed':
      return 'no seed and index (metadata.index, and metadata.seed or a manifest seed)';
    case 'profile':
      return 'no profile or goal (metadata.profile, trace.goal)';
    case 'id':
      return 'no id';
  }
}

/** forEachLine that stops once `onLine` returns true. */
async function forEachLineUntil(path: string, onLine: (bytes: Buffer, i: number) => boolean): Promise<void> {
  const stop = new Error('stop');
  try {
    await forEachLine(
      path,
      (bytes, i) => {
        if (onLine(bytes, i)) throw stop;
      },
      { chunkSize: 1 << 16 },
    );
  } catch (err) {
    if (err !== stop) throw err;
  }
}

/** The paired change of one feature: `all` = B - A per pair (NaN = not measured), `sums` of A and B over the measured pairs. */
function featureChange(
  name: string,
  all: Float64Array,
  sums: { a: number; b: number },
  headline: boolean,
  seed: string,
  resamples: number,
): FeatureChange {
  const d: number[] = [];
  for (let i = 0; i < all.length; i++) if (!Number.isNaN(all[i])) d.push(all[i]);
  const sa = sums.a;
  const sb = sums.b;
  const n = d.length;
  const out: FeatureChange = {
    feature: name,
    label: diffFeatureLabel(name),
    n,
    excluded: all.length - n,
    meanA: n ? sa / n : NaN,
    meanB: n ? sb / n : NaN,
    meanDiff: NaN,
    effect: NaN,
  };
  if (n === 0) return out;
  let s = 0;
  for (const v of d) s += v;
  const mean = s / n;
  let ss = 0;
  for (const v of d) ss += (v - mean) * (v - mean);
  const sd = n > 1 ? Math.sqrt(ss / (n - 1)) : 0;
  out.meanDiff = mean;
  out.effect = sd > 0 ? mean / sd : 0;
  if (headline) {
    const ci = bootstrapMeanInterval(d, { seed: `${seed}/${name}`, resamples });
    out.ci = { low: ci.low, high: ci.high, level: ci.level, resamples: ci.resamples, seed: ci.seed };
  }
  if (n >= 2 || d[0] !== 0) {
    const w = wilcoxonSignedRank(d);
    out.wilcoxon = { statistic: w.statistic, pvalue: w.pvalue, method: w.method };
  }
  return out;
}

/** McNemar's exact test of acceptance over the pairs where both ended without failure with a known outcome. */
function successChange(pairs: readonly PairSummary[]): DiffReport['success'] {
  let n = 0;
  let acceptedA = 0;
  let acceptedB = 0;
  let onlyA = 0;
  let onlyB = 0;
  for (const p of pairs) {
    const known = (o: OutcomeLabel) => isUserOutcome(o);
    if (!known(p.outcomeA) || !known(p.outcomeB)) continue;
    n++;
    const a = p.outcomeA === 'accepted';
    const b = p.outcomeB === 'accepted';
    if (a) acceptedA++;
    if (b) acceptedB++;
    if (a && !b) onlyA++;
    if (b && !a) onlyB++;
  }
  const m = mcnemarExact(onlyA, onlyB);
  return {
    n,
    excluded: pairs.length - n,
    acceptedA,
    acceptedB,
    onlyA,
    onlyB,
    mcnemar: { statistic: m.statistic, pvalue: m.pvalue },
  };
}

/** The aggregate of the pair summaries. */
function aggregate(pairs: readonly PairSummary[]): DiffReport['aggregate'] {
  let identical = 0;
  let diverged = 0;
  let traceOnly = 0;
  let outcomeChanged = 0;
  const trans = new Map<string, { from: OutcomeLabel; to: OutcomeLabel; count: number }>();
  const firstTurn: number[] = [];
  const firstPart: Partial<Record<DialoguePart, number>> = {};
  const firstTraceFields: Record<string, number> = {};
  for (const p of pairs) {
    if (p.identical) identical++;
    if (p.turn !== undefined) {
      diverged++;
      while (firstTurn.length <= p.turn) firstTurn.push(0);
      firstTurn[p.turn]++;
      const first = p.parts[0];
      firstPart[first] = (firstPart[first] ?? 0) + 1;
    } else if (p.traceTurn !== undefined) traceOnly++;
    for (const f of p.traceFields) firstTraceFields[f] = (firstTraceFields[f] ?? 0) + 1;
    if (p.outcomeA !== p.outcomeB) outcomeChanged++;
    const k = `${p.outcomeA}\u0000${p.outcomeB}`;
    const t = trans.get(k);
    if (t) t.count++;
    else trans.set(k, { from: p.outcomeA, to: p.outcomeB, count: 1 });
  }
  const transitions = [...trans.values()].sort(
    (x, y) => y.count - x.count || (x.from < y.from ? -1 : x.from > y.from ? 1 : x.to < y.to ? -1 : 1),
  );
  return {
    pairs: pairs.length,
    identical,
    diverged,
    traceOnly,
    outcomeChanged,
    transitions,
    firstTurn,
    firstPart,
    firstTraceFields,
  };
}
