/**
 * ReDial (Li et al., NeurIPS 2018), the raw release `train_data.jsonl` / `test_data.jsonl`: one
 * dialogue per line, `{conversationId, initiatorWorkerId, respondentWorkerId, messages: [{messageId,
 * text, senderWorkerId, timeOffset}], movieMentions: {id: "Title (year)"}, initiatorQuestions and
 * respondentQuestions: {id: {suggested, seen, liked}}}`. The initiator is the seeker (the user),
 * the respondent the recommender.
 *
 * Mapping (see docs/formats.md):
 * - messages -> turns (consecutive messages of one worker merged, see turns.ts); `@<id>` movie
 *   mentions in the text are replaced by the title from movieMentions; each message keeps
 *   messageId, timeOffset, senderWorkerId (and its original text when a mention was replaced)
 *   in `turn.source_utterances`.
 * - movies the recommender mentions -> the turn's `recommendations` ({item_id: id, title}).
 * - initiatorQuestions (the seeker's own answers) -> conversation `ratings`, first person:
 *   `"<answer>: <title> [@<id>]"` for answer = suggested / seen / liked, value true (1),
 *   false (0) or null (2 = did not say).
 * - respondentQuestions (the recommender's answers about the seeker) -> a conversation
 *   annotation by `redial:respondent` with the same keys in `fields`.
 * - every top-level field except messages, under its own name, in `metadata` (with format,
 *   utterances and speaker_changes), so the original record can be rebuilt.
 * - a message that cannot be read (not an object, an unknown sender, no text) is left out of the
 *   turns with a warning and kept unchanged in `metadata.skipped_messages` ({index, message});
 *   the rest of the dialogue is imported.
 * - maps keyed by movie id whose key order JavaScript cannot keep (integer-like keys are listed in
 *   ascending order) get their file order in `metadata.original_key_order`.
 * A dialogue with a structural problem is skipped with a warning naming its line and field.
 */
import type { Conversation, ConversationAnnotation, RecommendedItem, RatingValue } from '../model';
import { describeValue, formatJsonPath } from '../jsonl/parse';
import { locateJsonPath } from '../jsonl/locate';
import { topLevelObjectKeys } from './json';
import type { ImportWarning } from './errors';
import { buildTurns, type SourceUtterance } from './turns';
import { isRecord } from '../model';

type Rec = Record<string, unknown>;

/** Top-level keys that make a JSON line a ReDial dialogue (for the sniffer). */
export function isRedialKeys(keys: readonly string[]): boolean {
  return keys.includes('messages') && (keys.includes('conversationId') || keys.includes('initiatorWorkerId'));
}

/** The answers of a ReDial movie form, in the order they are reported. */
const REDIAL_QUESTIONS = ['suggested', 'seen', 'liked'] as const;

/** 0 -> false, 1 -> true, 2 -> null (did not say); anything else is kept as it is. */
function answerValue(v: unknown): RatingValue | undefined {
  if (v === 0) return false;
  if (v === 1) return true;
  if (v === 2 || v === null) return null;
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return v;
  return undefined;
}

/** The rating key of one answer about one movie: `liked: Super Troopers (2001) [@111776]`. */
function redialRatingKey(answer: string, movieId: string, title: string | undefined): string {
  return `${answer}: ${title ? `${title} ` : ''}[@${movieId}]`;
}

/** An empty `[]` (how the release writes an empty map) or an object; undefined otherwise. */
function mapOrEmpty(v: unknown): Rec | undefined {
  if (isRecord(v)) return v;
  if (Array.isArray(v) && v.length === 0) return {};
  return undefined;
}

/** Where a record came from, for messages. */
interface RecordSite {
  line?: number;
  /** Path prefix inside a document ('' for a JSONL line). */
  path: string[];
  index: number;
}

class Skip extends Error {
  constructor(
    readonly at: (string | number)[],
    message: string,
  ) {
    super(message);
  }
}

const MENTION = /@(\d+)/g;

/** Replaces `@<id>` by the movie's title where it is known; lists the ids in order of mention. */
function resolveMentions(text: string, titles: Rec): { text: string; ids: string[] } {
  const ids: string[] = [];
  const out = text.replace(MENTION, (whole, id: string) => {
    if (!ids.includes(id)) ids.push(id);
    const t = titles[id];
    return typeof t === 'string' && t.trim() !== '' ? t.trim() : whole;
  });
  return { text: out, ids };
}

const OWN_METADATA_KEYS = ['format', 'utterances', 'speaker_changes', 'skipped_messages', 'original_key_order'];
/** The maps keyed by movie id, whose file order JavaScript does not keep. */
const ID_KEYED_MAPS = ['movieMentions', 'initiatorQuestions', 'respondentQuestions'];

/** What every step of one dialogue's conversion reports against: its place in the file, its id, the warnings. */
interface DialogueSite {
  site: RecordSite;
  warnings: ImportWarning[];
  /** The JSON path of a field of this dialogue, for a warning. */
  where: (rest: (string | number)[]) => string | undefined;
}

/** The dialogue's id: `conversationId`, or `redial-<index>` with a warning when it has none. */
function redialId(value: Rec, { site, warnings, where }: DialogueSite): string {
  const rawId = value['conversationId'];
  if (typeof rawId === 'string' && rawId !== '') return rawId;
  if (typeof rawId === 'number' && Number.isFinite(rawId)) return String(rawId);
  if (rawId !== undefined)
    throw new Skip(['conversationId'], `"conversationId" must be a string or number, found ${describeValue(rawId)}`);
  const id = `redial-${site.index}`;
  warnings.push({
    line: site.line,
    path: where(['conversationId']),
    message: `dialogue has no "conversationId"; id set to "${id}"`,
  });
  return id;
}

/**
 * The messages as utterances, @mentions resolved to titles. One bad message does not cost the
 * dialogue: it is reported, left out of the turns and kept unchanged in `skipped` (with its index).
 */
function readMessages(
  value: Rec,
  id: string,
  titleMap: Rec,
  { site, warnings, where }: DialogueSite,
): { sources: SourceUtterance[]; skipped: { index: number; message: unknown }[] } {
  const seeker = value['initiatorWorkerId'];
  const recommender = value['respondentWorkerId'];
  const messages = value['messages'] as unknown[];
  const sources: SourceUtterance[] = [];
  const skipped: { index: number; message: unknown }[] = [];
  messages.forEach((m, j) => {
    const bad = (at: (string | number)[], message: string): void => {
      warnings.push({
        line: site.line,
        path: where(at),
        message: `${message}; message skipped (kept in metadata.skipped_messages)`,
      });
      skipped.push({ index: j, message: m });
    };
    if (!isRecord(m))
      return bad(['messages', j], `dialogue "${id}": expected a message object, found ${describeValue(m)}`);
    const sender = m['senderWorkerId'];
    let speaker: 'user' | 'assistant';
    if (sender === seeker) speaker = 'user';
    else if (sender === recommender && recommender !== undefined) speaker = 'assistant';
    else {
      return bad(
        ['messages', j, 'senderWorkerId'],
        `dialogue "${id}": the sender ${describeValue(sender)} is neither the initiator (${describeValue(seeker)}) nor ` +
          `the respondent (${describeValue(recommender)})`,
      );
    }
    const text = m['text'];
    if (typeof text !== 'string')
      return bad(['messages', j, 'text'], `dialogue "${id}": "text" must be a string, found ${describeValue(text)}`);
    sources.push(messageUtterance(m, text, speaker, titleMap));
  });
  if (sources.length === 0)
    warnings.push({ line: site.line, path: where(['messages']), message: `dialogue "${id}" has no messages` });
  return { sources, skipped };
}

/** One message as an utterance: mentions resolved, the rest of the message kept as extras, mentioned movies as items. */
function messageUtterance(m: Rec, text: string, speaker: 'user' | 'assistant', titleMap: Rec): SourceUtterance {
  const resolved = resolveMentions(text, titleMap);
  const extras: Rec = {};
  for (const [k, v] of Object.entries(m)) if (k !== 'text') extras[k] = v;
  if (resolved.text !== text) extras['text'] = text;
  const su: SourceUtterance = { speaker, text: resolved.text, extras };
  if (speaker === 'assistant' && resolved.ids.length) {
    su.items = resolved.ids.map((mid): RecommendedItem => {
      const t = titleMap[mid];
      return typeof t === 'string' && t.trim() !== '' ? { item_id: mid, title: t.trim() } : { item_id: mid };
    });
  }
  return su;
}

/** A movie form (the seeker's `initiatorQuestions` or the recommender's `respondentQuestions`) as ratings. */
function readForms(
  value: Rec,
  key: 'initiatorQuestions' | 'respondentQuestions',
  id: string,
  titleMap: Rec,
  { site, warnings, where }: DialogueSite,
): Record<string, RatingValue> | undefined {
  const raw = value[key];
  if (raw === undefined || raw === null) return undefined;
  const map = mapOrEmpty(raw);
  if (!map) {
    warnings.push({
      line: site.line,
      path: where([key]),
      message: `dialogue "${id}": "${key}" should map movie ids to answers, found ${describeValue(raw)}; kept in metadata only`,
    });
    return undefined;
  }
  const out: Record<string, RatingValue> = {};
  for (const [mid, answers] of Object.entries(map)) {
    if (!isRecord(answers)) {
      warnings.push({
        line: site.line,
        path: where([key, mid]),
        message: `dialogue "${id}": expected {suggested, seen, liked}, found ${describeValue(answers)}; kept in metadata only`,
      });
      continue;
    }
    const t = titleMap[mid];
    for (const q of REDIAL_QUESTIONS) {
      if (!(q in answers)) continue;
      const v = answerValue(answers[q]);
      if (v === undefined) {
        warnings.push({
          line: site.line,
          path: where([key, mid, q]),
          message: `dialogue "${id}": answer "${q}" must be 0, 1 or 2, found ${describeValue(answers[q])}; kept in metadata only`,
        });
        continue;
      }
      out[redialRatingKey(q, mid, typeof t === 'string' ? t.trim() : undefined)] = v;
    }
  }
  return out;
}

/** Every field of the record but the messages (ours renamed `original_*` on a clash), with counts and what was skipped. */
function redialMetadata(
  value: Rec,
  sources: SourceUtterance[],
  skipped: { index: number; message: unknown }[],
  site: RecordSite,
  text: string | undefined,
): Rec {
  let changes = 0;
  for (let k = 1; k < sources.length; k++) if (sources[k].speaker !== sources[k - 1].speaker) changes++;
  const metadata: Rec = {};
  for (const [k, v] of Object.entries(value)) {
    if (k === 'messages') continue;
    metadata[OWN_METADATA_KEYS.includes(k) ? `original_${k}` : k] = v;
  }
  metadata['format'] = 'redial';
  metadata['utterances'] = sources.length;
  metadata['speaker_changes'] = changes;
  if (skipped.length) metadata['skipped_messages'] = skipped;
  // JavaScript objects list integer-like keys (movie ids) in ascending order whatever the file
  // said; where the file's order differs, it is kept beside the map so the record can be rebuilt.
  if (text !== undefined) {
    const order: Rec = {};
    for (const key of ID_KEYED_MAPS) {
      const m = metadata[key];
      if (!isRecord(m)) continue;
      const span = locateJsonPath(text, [...site.path, key]);
      if (!span) continue;
      const fileOrder = topLevelObjectKeys(text.slice(span.start, span.end)).map((k) => k.key);
      const jsOrder = Object.keys(m);
      if (fileOrder.length === jsOrder.length && fileOrder.some((k, n) => k !== jsOrder[n])) order[key] = fileOrder;
    }
    if (Object.keys(order).length) metadata['original_key_order'] = order;
  }
  return metadata;
}

/**
 * Converts one ReDial record. Returns undefined (after pushing a warning that names the line and
 * the field) when the record cannot be read as a dialogue.
 */
export function convertRedialRecord(
  value: unknown,
  site: RecordSite,
  warnings: ImportWarning[],
  text?: string,
): Conversation | undefined {
  const where = (rest: (string | number)[]): string | undefined => formatJsonPath([...site.path, ...rest]) || undefined;
  const at: DialogueSite = { site, warnings, where };
  try {
    if (!isRecord(value)) throw new Skip([], `expected a ReDial dialogue object, found ${describeValue(value)}`);
    const id = redialId(value, at);
    const seeker = value['initiatorWorkerId'];
    const recommender = value['respondentWorkerId'];
    if (seeker === undefined || seeker === null)
      throw new Skip(
        ['initiatorWorkerId'],
        `dialogue "${id}" has no "initiatorWorkerId" (needed to tell the seeker's messages apart)`,
      );
    const messages = value['messages'];
    if (!Array.isArray(messages))
      throw new Skip(['messages'], `dialogue "${id}": "messages" must be an array, found ${describeValue(messages)}`);

    const mentionsRaw = value['movieMentions'];
    const titles = mentionsRaw === undefined || mentionsRaw === null ? {} : mapOrEmpty(mentionsRaw);
    if (titles === undefined) {
      warnings.push({
        line: site.line,
        path: where(['movieMentions']),
        message: `dialogue "${id}": "movieMentions" should map movie ids to titles, found ${describeValue(mentionsRaw)}; @mentions are left as they are`,
      });
    }
    const titleMap = titles ?? {};
    const { sources, skipped } = readMessages(value, id, titleMap, at);
    // First-person ratings (the seeker's forms) and the recommender's forms.
    const seekerForms = readForms(value, 'initiatorQuestions', id, titleMap, at);
    const recommenderForms = readForms(value, 'respondentQuestions', id, titleMap, at);

    const conv = { id, source: 'human' } as Conversation;
    if (recommender !== undefined && recommender !== null) conv.agent = String(recommender);
    conv.turns = buildTurns(sources);
    if (seekerForms && Object.keys(seekerForms).length) conv.ratings = seekerForms;
    if (recommenderForms && Object.keys(recommenderForms).length) {
      const ann: ConversationAnnotation = {
        annotator: 'redial:respondent',
        fields: recommenderForms,
        note: "the recommender's answers to the movie forms about the seeker",
      };
      conv.annotations = [ann];
    }
    conv.metadata = redialMetadata(value, sources, skipped, site, text);
    return conv;
  } catch (e) {
    if (!(e instanceof Skip)) throw e;
    warnings.push({ line: site.line, path: where(e.at), message: `${e.message}; dialogue skipped` });
    return undefined;
  }
}
