/**
 * DialogueKit / UserSimCRS annotated dialogues -> canonical conversations.
 *
 * Accepted containers: a JSON array of dialogues (UserSimCRS `annotated_dialogues.json`), the
 * DialogueKit export object `{agent, user, dialogues: [...]}`, a single dialogue object, or one
 * dialogue per line (JSONL). Accepted dialogue variants: `conversation_id` or `conversation ID`;
 * `agent`/`user` as `{id, type}` objects or plain ids; per utterance either
 * `dialogue_acts: [{intent, slot_values | slots}]` or a single `intent` (+ optional
 * `slot_values | slots`); slot values as `[slot, value, start?, end?]` arrays (nulls allowed) or
 * `{slot, value, start?, end?}` objects; consecutive same-speaker utterances; user-first or
 * agent-first dialogues.
 *
 * Mapping: utterances -> turns (see turns.ts); acts -> Annotation {annotator: "source", speaker,
 * acts, slots (with their intent), taxonomy, segment}; per-utterance extras (utterance_id,
 * utterance_feedback, metadata, ...) -> `turn.source_utterances[]`; dialogue -> {id, source,
 * agent, turns, metadata: {...original metadata, format, user, participants, utterances,
 * speaker_changes}}; `metadata.accepted_recommendations` (UserSimCRS's IARD files) also sets
 * `outcome`: accepted when not empty, else ended (outcome.ts, shared with the raw IARD importer).
 * A dialogue with a structural problem is skipped with a warning naming its path; the rest are
 * imported.
 */
import type { Conversation, SlotValue, Speaker } from '../model';
import { describeValue, formatJsonPath } from '../jsonl/parse';
import { ImportError, type ImportWarning, joinPath } from './errors';
import { outcomeFromAcceptedList } from './outcome';
import { IARD_LABELS } from '../taxonomy';
import { buildTurns, type SourceAnnotation, type SourceUtterance } from './turns';
import { isRecord } from '../model';
import { DIALOGUEKIT_OWN_METADATA } from '../export/dialoguekit';

/** The annotator name given to acts that came with the imported data. */
const SOURCE_ANNOTATOR = 'source';

/** One dialogue record to convert, with where it came from (for messages). */
export interface DialogueRecord {
  value: unknown;
  /** Path of the record inside the document (`[3]`, `dialogues[3]`), '' for a JSONL line. */
  path: string;
  /** 1-based JSONL line, when the record is one line. */
  line?: number;
  /** Position among all records (0-based), for fallback ids. */
  index: number;
  /** agent/user inherited from a DialogueKit export object. */
  inherited?: { agent?: unknown; user?: unknown };
}

type Rec = Record<string, unknown>;

/** Thrown inside one dialogue to skip it (becomes a warning). */
class SkipDialogue extends Error {
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(message);
  }
}

const ID_KEYS = ['conversation_id', 'conversation ID', 'conversationId', 'conversation_ID'];
const DIALOGUE_KEYS = new Set([...ID_KEYS, 'agent', 'user', 'conversation', 'metadata']);
const PARTICIPANTS: Record<string, Speaker> = {
  USER: 'user',
  AGENT: 'assistant',
  ASSISTANT: 'assistant',
  SYSTEM: 'assistant',
};
/** Metadata lists of accepted recommendations that set the outcome (UserSimCRS's IARD files; the raw release's spelling). */
const ACCEPTED_KEYS = ['accepted_recommendations', 'accepted_recommendation'];

/**
 * Splits a parsed DialogueKit document into dialogue records. Throws an ImportError when the
 * top level is not one of the accepted containers.
 */
export function dialogueRecordsFromDocument(doc: unknown, origin: string): DialogueRecord[] {
  if (Array.isArray(doc)) return doc.map((value, index) => ({ value, path: `[${index}]`, index }));
  if (isRecord(doc)) {
    if (Array.isArray(doc['dialogues'])) {
      const inherited = { agent: doc['agent'], user: doc['user'] };
      return (doc['dialogues'] as unknown[]).map((value, index) => ({
        value,
        path: `dialogues[${index}]`,
        index,
        inherited,
      }));
    }
    if ('dialogues' in doc) {
      throw new ImportError(
        origin,
        `"dialogues" must be an array of dialogues, found ${describeValue(doc['dialogues'])}`,
        { path: 'dialogues' },
      );
    }
    if (Array.isArray(doc['conversation'])) return [{ value: doc, path: '', index: 0 }];
    const keys = Object.keys(doc).slice(0, 8).join(', ') || 'none';
    throw new ImportError(
      origin,
      `expected a DialogueKit file: a JSON array of dialogues, an object with a "dialogues" array, or one dialogue ` +
        `with a "conversation" array; found an object with keys ${keys}`,
    );
  }
  throw new ImportError(origin, `expected a DialogueKit file (a JSON array of dialogues), found ${describeValue(doc)}`);
}

/** Collects every intent in the records (for picking the taxonomy name). */
function collectIntents(records: readonly DialogueRecord[]): Set<string> {
  const out = new Set<string>();
  for (const r of records) {
    if (!isRecord(r.value) || !Array.isArray(r.value['conversation'])) continue;
    for (const u of r.value['conversation'] as unknown[]) {
      if (!isRecord(u)) continue;
      if (Array.isArray(u['dialogue_acts'])) {
        for (const da of u['dialogue_acts'] as unknown[])
          if (isRecord(da) && typeof da['intent'] === 'string') out.add(da['intent']);
      } else if (typeof u['intent'] === 'string') out.add(u['intent']);
    }
  }
  return out;
}

/**
 * The taxonomy name recorded on imported annotations: "iard" when every intent in the file is an
 * IARD label, else "dialoguekit" (the CIR6-derived DISCLOSE/REVEAL/INQUIRE/... scheme and others).
 */
function guessDialogueKitTaxonomy(records: readonly DialogueRecord[]): string {
  const intents = collectIntents(records);
  if (intents.size > 0 && [...intents].every((i) => IARD_LABELS.has(i))) return 'iard';
  return 'dialoguekit';
}

/**
 * Converts dialogue records; bad dialogues become warnings and are skipped. `lines[k]` is the line
 * of `conversations[k]` (for the shared duplicate-id policy, applied by the caller).
 */
export function convertDialogueRecords(
  records: readonly DialogueRecord[],
  opts: { taxonomy?: string } = {},
): { conversations: Conversation[]; lines: (number | undefined)[]; warnings: ImportWarning[] } {
  const taxonomy = opts.taxonomy ?? guessDialogueKitTaxonomy(records);
  const conversations: Conversation[] = [];
  const lines: (number | undefined)[] = [];
  const warnings: ImportWarning[] = [];
  for (const rec of records) {
    const local: ImportWarning[] = [];
    try {
      conversations.push(convertDialogue(rec, taxonomy, local));
      lines.push(rec.line);
    } catch (e) {
      if (!(e instanceof SkipDialogue)) throw e;
      local.push({ line: rec.line, path: e.path || undefined, message: `${e.message}; dialogue skipped` });
    }
    warnings.push(...local);
  }
  return { conversations, lines, warnings };
}

/** The conversation id, and how the source spelled it when that was not `conversation_id` with a string. */
function conversationIdOf(
  rec: Rec,
  index: number,
  path: string,
  line: number | undefined,
  warnings: ImportWarning[],
): { id: string; key?: string; original?: number } {
  for (const k of ID_KEYS) {
    const v = rec[k];
    const key = k === 'conversation_id' ? undefined : k;
    if (typeof v === 'string' && v !== '') return { id: v, key };
    if (typeof v === 'number' && Number.isFinite(v)) return { id: String(v), key, original: v };
    if (v !== undefined && v !== null && v !== '') {
      throw new SkipDialogue(
        joinPath(path, formatJsonPath([k])),
        `the conversation id must be a string or number, found ${describeValue(v)}`,
      );
    }
  }
  const id = `dialoguekit-${index}`;
  warnings.push({
    line,
    path: path || undefined,
    message: `dialogue has no "conversation_id" (or "conversation ID"); id set to "${id}"`,
  });
  return { id };
}

function participantId(p: unknown): string | undefined {
  if (typeof p === 'string' || typeof p === 'number') return String(p);
  if (isRecord(p) && (typeof p['id'] === 'string' || typeof p['id'] === 'number')) return String(p['id']);
  return undefined;
}

function convertDialogue(rd: DialogueRecord, taxonomy: string, warnings: ImportWarning[]): Conversation {
  const { path, line } = rd;
  if (!isRecord(rd.value)) throw new SkipDialogue(path, `expected a dialogue object, found ${describeValue(rd.value)}`);
  const rec = rd.value;
  const idInfo = conversationIdOf(rec, rd.index, path, line, warnings);
  const id = idInfo.id;
  const convPath = joinPath(path, 'conversation');
  const utts = rec['conversation'];
  if (!Array.isArray(utts))
    throw new SkipDialogue(convPath, `dialogue "${id}" has no "conversation" array (found ${describeValue(utts)})`);

  const sources: SourceUtterance[] = [];
  let speakerChanges = 0;
  utts.forEach((u, j) => {
    const uPath = `${convPath}[${j}]`;
    const su = convertUtterance(u, uPath, taxonomy, id, line, warnings);
    const prev = sources[sources.length - 1];
    if (prev && prev.speaker !== su.speaker) speakerChanges++;
    sources.push(su);
  });
  if (sources.length === 0) warnings.push({ line, path: convPath, message: `dialogue "${id}" has no utterances` });

  const agentInfo = rec['agent'] ?? rd.inherited?.agent;
  const userInfo = rec['user'] ?? rd.inherited?.user;
  const userType = isRecord(userInfo) && typeof userInfo['type'] === 'string' ? userInfo['type'] : undefined;
  const userId = participantId(userInfo);
  const isSimulated = userType !== undefined && /simulat/i.test(userType);

  // Metadata: the original metadata and unknown dialogue-level keys first, then ours.
  const metadata: Rec = {};
  const origMeta = rec['metadata'];
  if (isRecord(origMeta)) Object.assign(metadata, origMeta);
  else if (origMeta !== undefined) metadata['source_metadata'] = origMeta;
  for (const [k, v] of Object.entries(rec)) if (!DIALOGUE_KEYS.has(k)) metadata[k] = v;
  for (const k of DIALOGUEKIT_OWN_METADATA) {
    if (k in metadata) {
      metadata[`original_${k}`] = metadata[k];
      delete metadata[k];
      warnings.push({
        line,
        path: joinPath(path, `metadata.${k}`),
        message: `metadata key "${k}" is used by SimLens; the original value was kept as "original_${k}"`,
        kind: `metadata-key:${k}`,
      });
    }
  }
  metadata['format'] = 'dialoguekit';
  if (userInfo !== undefined) metadata['user'] = isRecord(userInfo) ? userInfo['id'] : userInfo;
  if (agentInfo !== undefined || userInfo !== undefined) {
    const participants: Rec = {};
    if (agentInfo !== undefined) participants['agent'] = agentInfo;
    if (userInfo !== undefined) participants['user'] = userInfo;
    metadata['participants'] = participants;
  }
  if (idInfo.key !== undefined) metadata['source_id_key'] = idInfo.key;
  if (idInfo.original !== undefined) metadata['source_id'] = idInfo.original;
  metadata['utterances'] = sources.length;
  metadata['speaker_changes'] = speakerChanges;

  const conv: Conversation = {
    id,
    source: isSimulated ? (userId ?? 'simulator') : 'human',
    turns: buildTurns(sources),
  };
  const agentId = participantId(agentInfo);
  if (agentId !== undefined) conv.agent = agentId;
  // The UserSimCRS copy of IARD lists what the seeker accepted (titles) in the metadata, which
  // stays as it is; the outcome follows the same rule as the raw IARD release.
  for (const key of ACCEPTED_KEYS) {
    if (!isRecord(origMeta) || !(key in origMeta)) continue;
    const decided = outcomeFromAcceptedList(origMeta[key]);
    if (decided.outcome) conv.outcome = decided.outcome;
    if (decided.problem)
      warnings.push({
        line,
        path: joinPath(path, `metadata.${key}`),
        message: `dialogue "${id}": "${key}" ${decided.problem}`,
      });
    break;
  }
  conv.metadata = metadata;
  return conv;
}

const UTTERANCE_KEYS_ALWAYS_CONSUMED = new Set(['participant', 'utterance']);

function convertUtterance(
  u: unknown,
  uPath: string,
  taxonomy: string,
  convId: string,
  line: number | undefined,
  warnings: ImportWarning[],
): SourceUtterance {
  if (!isRecord(u))
    throw new SkipDialogue(uPath, `dialogue "${convId}": expected an utterance object, found ${describeValue(u)}`);
  const p = u['participant'];
  const speaker = typeof p === 'string' ? PARTICIPANTS[p.trim().toUpperCase()] : undefined;
  if (!speaker) {
    throw new SkipDialogue(
      joinPath(uPath, 'participant'),
      `dialogue "${convId}": participant must be "USER" or "AGENT", found ${describeValue(p)}`,
    );
  }
  const text = u['utterance'];
  if (typeof text !== 'string') {
    throw new SkipDialogue(
      joinPath(uPath, 'utterance'),
      `dialogue "${convId}": "utterance" must be a string, found ${describeValue(text)}`,
    );
  }
  const read = new UtteranceActs(uPath, line, warnings);
  const annotation = read.annotation(u, taxonomy);
  const extras: Rec = {};
  if (typeof p === 'string' && p !== 'USER' && p !== 'AGENT') extras['participant'] = p;
  for (const [k, v] of Object.entries(u)) {
    if (
      read.consumed.has(k) &&
      !(read.lossy && (k === 'dialogue_acts' || k === 'slot_values' || k === 'slots' || k === 'intent'))
    )
      continue;
    extras[k] = v;
  }
  return { speaker, text, annotation, extras };
}

/**
 * Reads one utterance's acts and slots (`dialogue_acts`, or a single `intent` with its slots).
 * `consumed` names the keys the annotation replaces; `lossy` says that something could not be
 * converted, so the source keys are kept in the utterance's extras as well.
 */
class UtteranceActs {
  readonly consumed = new Set(UTTERANCE_KEYS_ALWAYS_CONSUMED);
  lossy = false;
  private readonly acts: string[] = [];
  private readonly slots: SlotValue[] = [];

  constructor(
    private readonly uPath: string,
    private readonly line: number | undefined,
    private readonly warnings: ImportWarning[],
  ) {}

  /** The source's annotation of utterance `u`, or undefined when it has none that can be read. */
  annotation(u: Rec, taxonomy: string): SourceAnnotation | undefined {
    let annotation: SourceAnnotation | undefined;
    const das = u['dialogue_acts'];
    if (das !== undefined) {
      if (Array.isArray(das)) {
        this.consumed.add('dialogue_acts');
        das.forEach((da, k) => this.addDialogueAct(da, `${joinPath(this.uPath, 'dialogue_acts')}[${k}]`));
        annotation = { annotator: SOURCE_ANNOTATOR, taxonomy, acts: this.acts };
      } else {
        this.warn(
          joinPath(this.uPath, 'dialogue_acts'),
          `"dialogue_acts" must be an array, found ${describeValue(das)}; kept in source_utterances`,
        );
      }
    } else if (u['intent'] !== undefined) {
      const intent = u['intent'];
      if (typeof intent === 'string' && intent !== '') {
        this.consumed.add('intent');
        this.acts.push(intent);
        const slotKey = 'slot_values' in u ? 'slot_values' : 'slots' in u ? 'slots' : undefined;
        if (slotKey) {
          this.consumed.add(slotKey);
          this.addSlots(u[slotKey], joinPath(this.uPath, slotKey), intent, 0);
        }
        annotation = { annotator: SOURCE_ANNOTATOR, taxonomy, acts: this.acts };
      } else {
        this.warn(
          joinPath(this.uPath, 'intent'),
          `"intent" must be a non-empty string, found ${describeValue(intent)}; kept in source_utterances`,
        );
      }
    }
    // A slot names its act by intent; only when an utterance repeats an intent (IARD has a few
    // utterances with two REC-S acts) does it also keep `act_index` (position in `acts`).
    if (new Set(this.acts).size === this.acts.length) for (const sl of this.slots) delete sl['act_index'];
    if (annotation && this.slots.length) annotation.slots = this.slots;
    return annotation;
  }

  private warn(path: string, message: string): void {
    this.warnings.push({ line: this.line, path, message });
  }

  private addDialogueAct(da: unknown, daPath: string): void {
    if (!isRecord(da)) {
      this.warn(daPath, `expected a dialogue act object, found ${describeValue(da)}; kept in source_utterances`);
      this.lossy = true;
      return;
    }
    const intent = da['intent'];
    if (typeof intent !== 'string' || intent === '') {
      this.warn(
        joinPath(daPath, 'intent'),
        `dialogue act without a string "intent" (found ${describeValue(intent)}); kept in source_utterances`,
      );
      this.lossy = true;
      return;
    }
    this.acts.push(intent);
    const slotKey = 'slot_values' in da ? 'slot_values' : 'slots' in da ? 'slots' : undefined;
    if (slotKey) this.addSlots(da[slotKey], joinPath(daPath, slotKey), intent, this.acts.length - 1);
    if (Object.keys(da).some((key) => key !== 'intent' && key !== slotKey)) this.lossy = true;
  }

  private addSlots(raw: unknown, rawPath: string, intent: string | undefined, actIndex: number): void {
    if (raw === undefined || raw === null) return;
    if (!Array.isArray(raw)) {
      this.warn(rawPath, `slot values must be an array, found ${describeValue(raw)}; kept in source_utterances`);
      this.lossy = true;
      return;
    }
    raw.forEach((sv, k) => {
      const r = convertSlot(sv, intent, `${rawPath}[${k}]`, this.line, this.warnings);
      if (r.slot) {
        r.slot['act_index'] = actIndex;
        this.slots.push(r.slot);
      }
      if (r.lossy) this.lossy = true;
    });
  }
}

const SLOT_OBJECT_KEYS = new Set(['slot', 'value', 'start', 'end', 'intent']);

function isScalar(v: unknown): v is string | number | boolean | null {
  return v === null || typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';
}

function isOffset(v: unknown): v is number | null | undefined {
  return v === undefined || v === null || (typeof v === 'number' && Number.isInteger(v) && v >= 0);
}

/**
 * One slot value -> SlotValue. Arrays are `[slot, value, start?, end?]`; objects are
 * `{slot, value, start?, end?}` or `{SLOT: value}`. Positions that are not character offsets
 * (IARD has a year in one) are dropped from start/end and the raw value is kept in `raw`.
 */
function convertSlot(
  sv: unknown,
  intent: string | undefined,
  path: string,
  line: number | undefined,
  warnings: ImportWarning[],
): { slot?: SlotValue; lossy: boolean } {
  let slot: unknown;
  let value: unknown;
  let start: unknown;
  let end: unknown;
  let extra = false;
  if (Array.isArray(sv)) {
    [slot, value, start, end] = sv;
    if (sv.length < 1 || sv.length > 4) extra = true;
  } else if (isRecord(sv)) {
    if ('slot' in sv) {
      ({ slot, value, start, end } = sv as { slot?: unknown; value?: unknown; start?: unknown; end?: unknown });
      extra = Object.keys(sv).some((k) => !SLOT_OBJECT_KEYS.has(k));
    } else {
      const keys = Object.keys(sv);
      if (keys.length === 1) [slot, value] = [keys[0], sv[keys[0]]];
      else extra = true;
    }
  } else {
    warnings.push({
      line,
      path,
      message: `expected a slot value ([slot, value, start, end] or {slot, value}), found ${describeValue(sv)}; kept in source_utterances`,
    });
    return { lossy: true };
  }
  if (typeof slot !== 'string' || slot === '') {
    warnings.push({
      line,
      path,
      message: `slot value without a slot name (found ${describeValue(slot)}); kept in source_utterances`,
    });
    return { lossy: true };
  }
  const out: SlotValue = { slot, value: null };
  if (intent !== undefined) out.intent = intent;
  if (isScalar(value)) out.value = value;
  else if (value !== undefined) {
    out.value = null;
    out['raw'] = sv;
    warnings.push({
      line,
      path,
      message: `slot "${slot}" has a non-scalar value (${describeValue(value)}); value set to null, original kept in "raw"`,
    });
  }
  if (isOffset(start) && isOffset(end)) {
    if (start !== undefined) out.start = start;
    if (end !== undefined) out.end = end;
  } else {
    out['raw'] = sv;
    warnings.push({
      line,
      path,
      message:
        `slot "${slot}": start/end must be character offsets or null, found ${describeValue(start)} and ` +
        `${describeValue(end)}; offsets dropped, original kept in "raw"`,
    });
  }
  if (extra && out['raw'] === undefined) out['raw'] = sv;
  return { slot: out, lossy: false };
}
