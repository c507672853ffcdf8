/**
 * The raw IARD release (Cai & Chen, UMAP 2020; `umap2020_IARD_Cai.json`): one JSON object keyed by
 * the ReDial conversation id, each `{accepted_recommendation: [utterance_pos, ...], dialogue_info:
 * {S1: {...}, R2: {...}, ...}}` with per utterance `utterance_pos`, `worker_id`, `role` ("seeker"
 * or "recommender"), `utterance_text` (movie mentions written `@<id> <Title (year)>`),
 * `top-level intent/action` and `sub-intent/action` (lists of codes).
 *
 * Mapping (see docs/formats.md):
 * - utterances, ordered by utterance_pos -> turns (seeker = user, recommender = assistant);
 *   `@<id> <Title>` mentions are shown as the title; the original text, the utterance id
 *   (`S1`, `R2`), utterance_pos and worker_id stay in `turn.source_utterances`.
 * - sub-intent/action -> an annotation by `source` with taxonomy `iard` (acts = the codes);
 *   the top-level intents/actions are kept on the same annotation as `top_level`.
 * - movies the recommender mentions -> the turn's `recommendations` ({item_id: id, title}).
 * - accepted_recommendation -> `metadata.accepted_recommendation` (unchanged) and `outcome`
 *   "accepted" when it is not empty (else "ended"; outcome.ts, shared with the DialogueKit
 *   importer); other dialogue fields go to `metadata`.
 * Conversations keep the order of the file. A dialogue with a structural problem is skipped with
 * a warning naming its line and JSON path.
 */
import type { Conversation, RecommendedItem } from '../model';
import { describeValue, formatJsonPath } from '../jsonl/parse';
import { ImportError, type ImportWarning } from './errors';
import { topLevelObjectKeys } from './json';
import { outcomeFromAcceptedList } from './outcome';
import { buildTurns, type SourceAnnotation, type SourceUtterance } from './turns';
import { isRecord } from '../model';

type Rec = Record<string, unknown>;

const ROLES: Record<string, 'user' | 'assistant'> = { seeker: 'user', recommender: 'assistant' };
const SUB = 'sub-intent/action';
const TOP = 'top-level intent/action';
const CONSUMED = new Set(['utterance_text', 'role', SUB, TOP]);
const OWN_METADATA_KEYS = ['format', 'utterances', 'speaker_changes'];

/** True when a prefix of a JSON document looks like the raw IARD release (for the sniffer). */
export function looksLikeRawIard(keys: readonly string[], prefix: string): boolean {
  return (
    keys.length > 0 && keys.every((k) => /^\d+$/.test(k)) && /"dialogue_info"\s*:\s*\{/.test(prefix.slice(0, 1 << 16))
  );
}

/**
 * The keys of a JSON object document in file order, each with the line it is on. JSON.parse puts
 * integer-like keys (IARD's conversation ids) in numeric order, so the order is read from the text.
 */
function topLevelKeys(text: string): { key: string; line: number; valueStart: number; valueEnd: number }[] {
  return topLevelObjectKeys(text);
}

/** Replaces `@<id> <Title>` (and bare `@<id>`) by the title; lists the mentioned movies in order. */
export function resolveIardMentions(text: string): { text: string; items: RecommendedItem[] } {
  const items: RecommendedItem[] = [];
  const out = text.replace(/@(\d+)(?:\s*<([^<>]*)>)?/g, (whole, id: string, title: string | undefined) => {
    const t = title?.replace(/\s+/g, ' ').trim();
    if (!items.some((x) => x.item_id === id)) items.push(t ? { item_id: id, title: t } : { item_id: id });
    return t || whole;
  });
  return { text: out, items };
}

class Skip extends Error {
  constructor(
    readonly at: (string | number)[],
    message: string,
  ) {
    super(message);
  }
}

function stringList(v: unknown): string[] | undefined {
  if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return v as string[];
  if (typeof v === 'string') return [v];
  return undefined;
}

/**
 * Imports the parsed raw IARD document. `text` is the document's text (for order and lines, and for
 * a dialogue key written twice: JSON.parse keeps only the last value, so every occurrence is read
 * from its own span of the text and both dialogues are kept; the caller's duplicate-id policy
 * renames the second). `lines[k]` is the line of `conversations[k]`.
 */
export function importIardDocument(
  doc: unknown,
  text: string,
  origin: string,
): { conversations: Conversation[]; lines: (number | undefined)[]; warnings: ImportWarning[] } {
  if (!isRecord(doc))
    throw new ImportError(
      origin,
      `expected the IARD release: one JSON object keyed by conversation id, found ${describeValue(doc)}`,
    );
  const warnings: ImportWarning[] = [];
  const conversations: Conversation[] = [];
  const lines: (number | undefined)[] = [];
  const sites = topLevelKeys(text).filter((k) => k.key in doc);
  const counts = new Map<string, number>();
  for (const k of sites) counts.set(k.key, (counts.get(k.key) ?? 0) + 1);
  const ordered: { key: string; line: number; value: unknown }[] = sites.map((k) => ({
    key: k.key,
    line: k.line,
    value:
      (counts.get(k.key) ?? 0) > 1 && k.valueStart >= 0
        ? (JSON.parse(text.slice(k.valueStart, k.valueEnd)) as unknown)
        : doc[k.key],
  }));
  const seen = new Set(sites.map((k) => k.key));
  for (const k of Object.keys(doc)) if (!seen.has(k)) ordered.push({ key: k, line: 0, value: doc[k] });
  for (const { key, line: keyLine, value } of ordered) {
    const line = keyLine > 0 ? keyLine : undefined;
    try {
      conversations.push(convertDialogue(key, value, line, warnings));
      lines.push(line);
    } catch (e) {
      if (!(e instanceof Skip)) throw e;
      warnings.push({ line, path: formatJsonPath([key, ...e.at]), message: `${e.message}; dialogue skipped` });
    }
  }
  return { conversations, lines, warnings };
}

function convertDialogue(
  id: string,
  value: unknown,
  line: number | undefined,
  warnings: ImportWarning[],
): Conversation {
  if (!isRecord(value))
    throw new Skip([], `dialogue "${id}": expected an object with "dialogue_info", found ${describeValue(value)}`);
  const info = value['dialogue_info'];
  if (!isRecord(info))
    throw new Skip(
      ['dialogue_info'],
      `dialogue "${id}": "dialogue_info" must be an object of utterances, found ${describeValue(info)}`,
    );
  const entries = Object.entries(info).map(([uid, u], order) => {
    if (!isRecord(u))
      throw new Skip(
        ['dialogue_info', uid],
        `dialogue "${id}": expected an utterance object, found ${describeValue(u)}`,
      );
    const pos = u['utterance_pos'];
    return { uid, u, order, pos: typeof pos === 'number' && Number.isFinite(pos) ? pos : undefined };
  });
  const unordered = entries.some(
    (e, k) => k > 0 && e.pos !== undefined && entries[k - 1].pos !== undefined && e.pos < entries[k - 1].pos!,
  );
  if (unordered) {
    entries.sort(
      (a, b) => (a.pos ?? Number.MAX_SAFE_INTEGER) - (b.pos ?? Number.MAX_SAFE_INTEGER) || a.order - b.order,
    );
    warnings.push({
      line,
      path: formatJsonPath([id, 'dialogue_info']),
      message: `dialogue "${id}": utterances are not in utterance_pos order; sorted by utterance_pos`,
    });
  }
  const sources: SourceUtterance[] = [];
  const workers: { user?: unknown; assistant?: unknown } = {};
  for (const { uid, u } of entries) {
    const role = u['role'];
    const speaker = typeof role === 'string' ? ROLES[role.trim().toLowerCase()] : undefined;
    if (!speaker)
      throw new Skip(
        ['dialogue_info', uid, 'role'],
        `dialogue "${id}": role must be "seeker" or "recommender", found ${describeValue(role)}`,
      );
    const text = u['utterance_text'];
    if (typeof text !== 'string')
      throw new Skip(
        ['dialogue_info', uid, 'utterance_text'],
        `dialogue "${id}": "utterance_text" must be a string, found ${describeValue(text)}`,
      );
    if (workers[speaker] === undefined) workers[speaker] = u['worker_id'];
    const resolved = resolveIardMentions(text);
    const extras: Rec = { utterance_id: uid };
    for (const [k, v] of Object.entries(u)) if (!CONSUMED.has(k)) extras[k] = v;
    if (role !== 'seeker' && role !== 'recommender') extras['role'] = role; // odd spelling: keep it
    if (resolved.text !== text) extras['utterance_text'] = text;
    let annotation: SourceAnnotation | undefined;
    const sub = stringList(u[SUB]);
    const top = stringList(u[TOP]);
    if (u[SUB] !== undefined && !sub) {
      warnings.push({
        line,
        path: formatJsonPath([id, 'dialogue_info', uid, SUB]),
        message: `dialogue "${id}": "${SUB}" must be a list of codes, found ${describeValue(u[SUB])}; kept in source_utterances`,
      });
      extras[SUB] = u[SUB];
    }
    if (u[TOP] !== undefined && !top) extras[TOP] = u[TOP];
    if (sub) {
      annotation = { annotator: 'source', taxonomy: 'iard', acts: sub };
      if (top) annotation['top_level'] = top;
    } else if (top) extras[TOP] = u[TOP];
    const su: SourceUtterance = { speaker, text: resolved.text, extras, annotation };
    if (speaker === 'assistant' && resolved.items.length) su.items = resolved.items;
    sources.push(su);
  }
  if (sources.length === 0)
    warnings.push({ line, path: formatJsonPath([id, 'dialogue_info']), message: `dialogue "${id}" has no utterances` });

  let changes = 0;
  for (let k = 1; k < sources.length; k++) if (sources[k].speaker !== sources[k - 1].speaker) changes++;
  const metadata: Rec = {};
  for (const [k, v] of Object.entries(value)) {
    if (k === 'dialogue_info') continue;
    metadata[OWN_METADATA_KEYS.includes(k) ? `original_${k}` : k] = v;
  }
  metadata['format'] = 'iard';
  metadata['utterances'] = sources.length;
  metadata['speaker_changes'] = changes;
  const accepted = value['accepted_recommendation'];
  const conv = { id, source: 'human' } as Conversation;
  if (workers.assistant !== undefined && workers.assistant !== null) conv.agent = String(workers.assistant);
  conv.turns = buildTurns(sources);
  const decided = outcomeFromAcceptedList(accepted);
  if (decided.outcome) conv.outcome = decided.outcome;
  if (decided.problem)
    warnings.push({
      line,
      path: formatJsonPath([id, 'accepted_recommendation']),
      message: `dialogue "${id}": "accepted_recommendation" ${decided.problem}`,
    });
  conv.metadata = metadata;
  return conv;
}
