/**
 * Conversation summaries for the editor's list, kept compact enough for files with millions of
 * lines: per line a few typed-array slots (state, turns, outcome, interned task / condition /
 * source) plus a short id and snippet string. Parsed conversations are never retained.
 */
import {
  conversationCondition,
  conversationId,
  reportedOutcome,
  conversationSource,
  conversationTask,
  type Conversation,
  Outcome,
} from '../model';
import { OUTCOME_UNKNOWN_NAME, type ConversationSummary, type Facets, type SummaryFilter } from './types';

/** Parsed line shape produced by the JSONL engine (structurally typed so this module stays pure). */
type SummarizableLine =
  | { kind: 'blank'; line: number }
  | { kind: 'valid'; line: number; conversation: Conversation }
  | {
      kind: 'invalid';
      line: number;
      errors: ReadonlyArray<{ line: number; column: number; path: string; message: string }>;
    };

/** Longest snippet kept per conversation (characters). */
const SNIPPET_LENGTH = 120;

const STATE_PENDING = 0;
const STATE_VALID = 1;
const STATE_INVALID = 2;
const STATE_BLANK = 3;
const STATE_NAMES = ['pending', 'valid', 'invalid', 'blank'] as const;

const OUTCOMES: readonly Outcome[] = Outcome.options;
/** The outcome slot of a conversation that reports none (`reportedOutcome`): no badge, never "ended". */
const OUTCOME_UNKNOWN = 255;
const NO_VALUE = 0xffff;

/**
 * Copies a string into fresh storage. V8 may represent `s.slice(...)` (and strings pulled out of a
 * parsed line) as views into the much larger source string, which would keep every line's text
 * alive; a UTF-8 round trip breaks that link.
 */
function detachString(s: string): string {
  return s.length < 13 ? s : Buffer.from(s, 'utf8').toString('utf8');
}

/** Collapses whitespace and cuts a text to `max` characters (with an ellipsis). */
export function makeSnippet(text: string | undefined, max = SNIPPET_LENGTH): string {
  if (!text) return '';
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? flat.slice(0, max - 1) + '…' : flat;
}

/** Interns repeated facet values (tasks, conditions, sources, annotators) as 16-bit codes. */
class StringTable {
  readonly values: string[] = [];
  private readonly codes = new Map<string, number>();
  code(value: string | undefined): number {
    if (value === undefined) return NO_VALUE;
    let code = this.codes.get(value);
    if (code === undefined) {
      if (this.values.length >= NO_VALUE - 1) return NO_VALUE - 1; // overflow bucket: "(other)"
      code = this.values.length;
      const stored = detachString(value);
      this.values.push(stored);
      this.codes.set(stored, code);
    }
    return code;
  }
  lookup(code: number): string | undefined {
    if (code === NO_VALUE) return undefined;
    if (code === NO_VALUE - 1) return '(other)';
    return this.values[code];
  }
  find(value: string): number | undefined {
    return this.codes.get(value);
  }
}

/** Annotators of each utterance-level annotation in a conversation, deduplicated. */
function conversationAnnotators(conv: Conversation): string[] {
  const names = new Set<string>();
  for (const turn of conv.turns) for (const a of turn.annotations ?? []) names.add(a.annotator);
  return [...names];
}

/**
 * Per-line summaries of a JSONL conversation file, filled in by a streaming pass (see
 * `ConversationDocumentModel`) or on demand for the lines a page needs first.
 */
export class SummaryIndex {
  readonly lineCount: number;
  private readonly state: Uint8Array;
  private readonly turns: Uint32Array;
  private readonly outcome: Uint8Array;
  private readonly task: Uint16Array;
  private readonly condition: Uint16Array;
  private readonly source: Uint16Array;
  private readonly ids: Array<string | undefined>;
  private readonly snippets: Array<string | undefined>;
  private readonly errors = new Map<number, string>();
  /** Line -> annotator codes (only lines that carry annotations). */
  private readonly annotatorsByLine = new Map<number, Uint16Array>();
  private readonly tasks = new StringTable();
  private readonly conditions = new StringTable();
  private readonly sources = new StringTable();
  private readonly annotatorNames = new StringTable();
  private summarizedCount = 0;
  /** Lower-cased utterances per line for fast search, while within `utteranceBudget` characters. */
  private readonly userText: Array<string | undefined>;
  private readonly assistantText: Array<string | undefined>;
  private utteranceChars = 0;
  private readonly utteranceBudget: number;
  private idToLine: Map<string, number> | undefined;

  /**
   * @param lineCount lines in the file
   * @param utteranceBudget characters of utterance text kept in memory for search (default 48M;
   *   lines beyond it are searched on disk)
   */
  constructor(lineCount: number, utteranceBudget = 48_000_000) {
    this.lineCount = lineCount;
    this.utteranceBudget = utteranceBudget;
    this.userText = new Array<string | undefined>(lineCount);
    this.assistantText = new Array<string | undefined>(lineCount);
    this.state = new Uint8Array(lineCount);
    this.turns = new Uint32Array(lineCount);
    this.outcome = new Uint8Array(lineCount);
    this.task = new Uint16Array(lineCount).fill(NO_VALUE);
    this.condition = new Uint16Array(lineCount).fill(NO_VALUE);
    this.source = new Uint16Array(lineCount).fill(NO_VALUE);
    this.ids = new Array<string | undefined>(lineCount);
    this.snippets = new Array<string | undefined>(lineCount);
  }

  /** Lines summarized so far. */
  get summarized(): number {
    return this.summarizedCount;
  }

  /** True when every line has a summary. */
  get complete(): boolean {
    return this.summarizedCount === this.lineCount;
  }

  /** Whether line i (0-based) has been summarized. */
  has(i: number): boolean {
    return this.state[i] !== STATE_PENDING;
  }

  /**
   * Records the summary of a parsed line (0-based index `i`). Calling it again for the same line
   * (e.g. after an annotation was saved) replaces the previous summary.
   */
  set(i: number, parsed: SummarizableLine): void {
    if (!(i >= 0 && i < this.lineCount)) throw new RangeError(`line ${i} out of range`);
    if (this.state[i] === STATE_PENDING) this.summarizedCount++;
    this.errors.delete(i);
    this.annotatorsByLine.delete(i);
    this.idToLine = undefined;
    this.utteranceChars -= (this.userText[i]?.length ?? 0) + (this.assistantText[i]?.length ?? 0);
    this.userText[i] = undefined;
    this.assistantText[i] = undefined;
    if (parsed.kind === 'blank') {
      this.state[i] = STATE_BLANK;
      this.ids[i] = undefined;
      this.snippets[i] = undefined;
      return;
    }
    if (parsed.kind === 'invalid') {
      this.state[i] = STATE_INVALID;
      const e = parsed.errors[0];
      // LineError messages already start with the field path when there is one.
      const msg = e ? `${e.line}:${e.column} ${e.message}` : 'invalid line';
      this.errors.set(i, detachString(makeSnippet(msg, 300)));
      this.ids[i] = undefined;
      this.snippets[i] = undefined;
      this.turns[i] = 0;
      return;
    }
    const conv = parsed.conversation;
    this.state[i] = STATE_VALID;
    this.ids[i] = detachString(conversationId(conv, i + 1));
    this.task[i] = this.tasks.code(conversationTask(conv));
    this.condition[i] = this.conditions.code(conversationCondition(conv));
    this.source[i] = this.sources.code(conversationSource(conv));
    this.turns[i] = conv.turns.length;
    const outcome = reportedOutcome(conv);
    this.outcome[i] = outcome === undefined ? OUTCOME_UNKNOWN : OUTCOMES.indexOf(outcome);
    const firstUser = conv.turns.find((t) => t.user_utterance && t.user_utterance.trim() !== '')?.user_utterance;
    this.snippets[i] = detachString(makeSnippet(firstUser ?? conv.turns[0]?.assistant_utterance));
    const user = conv.turns
      .map((t) => t.user_utterance ?? '')
      .join('\u0000')
      .toLowerCase();
    const assistant = conv.turns
      .map((t) => t.assistant_utterance ?? '')
      .join('\u0000')
      .toLowerCase();
    if (this.utteranceChars + user.length + assistant.length <= this.utteranceBudget) {
      this.userText[i] = detachString(user);
      this.assistantText[i] = detachString(assistant);
      this.utteranceChars += user.length + assistant.length;
    }
    const annotators = conversationAnnotators(conv);
    if (annotators.length)
      this.annotatorsByLine.set(i, Uint16Array.from(annotators.map((a) => this.annotatorNames.code(a))));
  }

  /** Cached lower-cased utterances of line i (joined with "\u0000"), if kept. */
  utterances(i: number): { user: string; assistant: string } | undefined {
    const user = this.userText[i];
    const assistant = this.assistantText[i];
    return user === undefined || assistant === undefined ? undefined : { user, assistant };
  }

  /** The list row for line i. */
  summary(i: number): ConversationSummary {
    const state = STATE_NAMES[this.state[i]];
    const row: ConversationSummary = {
      line: i,
      state,
      id: this.ids[i] ?? `line:${i + 1}`,
      turns: this.turns[i],
      snippet: this.snippets[i] ?? '',
      annotators: this.annotatorsByLine.get(i)?.length ?? 0,
    };
    if (state === 'valid') {
      row.task = this.tasks.lookup(this.task[i]);
      row.condition = this.conditions.lookup(this.condition[i]);
      row.source = this.sources.lookup(this.source[i]);
      row.outcome = OUTCOMES[this.outcome[i]];
    }
    if (state === 'invalid') row.error = this.errors.get(i);
    return row;
  }

  /** The conversation id of line i, or undefined while pending / when invalid. */
  idOf(i: number): string | undefined {
    return this.ids[i];
  }

  /** Annotator names present in line i. */
  annotatorsOf(i: number): string[] {
    const codes = this.annotatorsByLine.get(i);
    return codes ? [...codes].map((c) => this.annotatorNames.lookup(c) ?? '') : [];
  }

  /** Lines that carry utterance annotations, ascending. */
  annotatedLines(): number[] {
    return [...this.annotatorsByLine.keys()].sort((a, b) => a - b);
  }

  /** Finds the line of a conversation id (first occurrence), among summarized lines. */
  lineOfId(id: string): number | undefined {
    if (!this.idToLine) {
      this.idToLine = new Map();
      for (let i = 0; i < this.lineCount; i++) {
        const v = this.ids[i];
        if (v !== undefined && !this.idToLine.has(v)) this.idToLine.set(v, i);
      }
    }
    const found = this.idToLine.get(id);
    if (found !== undefined) return found;
    const m = /^line:(\d+)$/.exec(id);
    if (m) {
      const i = Number(m[1]) - 1;
      if (i >= 0 && i < this.lineCount && this.state[i] !== STATE_BLANK) return i;
    }
    return undefined;
  }

  /** Ids starting with (or containing) a prefix, for "Go to Conversation". Capped at `limit`. */
  searchIds(query: string, limit = 200): number[] {
    const q = query.toLowerCase();
    const prefix: number[] = [];
    const contains: number[] = [];
    for (let i = 0; i < this.lineCount && prefix.length < limit; i++) {
      const id = this.ids[i];
      if (id === undefined) continue;
      const lower = id.toLowerCase();
      if (lower.startsWith(q)) prefix.push(i);
      else if (contains.length < limit && lower.includes(q)) contains.push(i);
    }
    return prefix.concat(contains).slice(0, limit);
  }

  /** Value counts of each facet over summarized lines. */
  facets(): Facets {
    const count = (codes: Uint16Array, table: StringTable): Array<[string, number]> => {
      const counts = new Map<number, number>();
      for (let i = 0; i < this.lineCount; i++) {
        if (this.state[i] !== STATE_VALID) continue;
        counts.set(codes[i], (counts.get(codes[i]) ?? 0) + 1);
      }
      return [...counts.entries()]
        .map(([c, n]): [string, number] => [table.lookup(c) ?? '(none)', n])
        .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
    };
    const outcomeCounts = OUTCOMES.map(() => 0);
    let unknownOutcomes = 0;
    const stateCounts = [0, 0, 0, 0];
    for (let i = 0; i < this.lineCount; i++) {
      stateCounts[this.state[i]]++;
      if (this.state[i] === STATE_VALID) {
        if (this.outcome[i] === OUTCOME_UNKNOWN) unknownOutcomes++;
        else outcomeCounts[this.outcome[i]]++;
      }
    }
    const annotatorCounts = new Map<string, number>();
    for (const codes of this.annotatorsByLine.values()) {
      for (const c of codes) {
        const name = this.annotatorNames.lookup(c) ?? '';
        annotatorCounts.set(name, (annotatorCounts.get(name) ?? 0) + 1);
      }
    }
    return {
      task: count(this.task, this.tasks),
      condition: count(this.condition, this.conditions),
      source: count(this.source, this.sources),
      outcome: [
        ...OUTCOMES.map((o, k): [string, number] => [o, outcomeCounts[k]]),
        [OUTCOME_UNKNOWN_NAME, unknownOutcomes] as [string, number],
      ].filter(([, n]) => n > 0),
      annotator: [...annotatorCounts.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])),
      pending: stateCounts[STATE_PENDING],
      valid: stateCounts[STATE_VALID],
      invalid: stateCounts[STATE_INVALID],
      blank: stateCounts[STATE_BLANK],
    };
  }

  /**
   * Lines matching the facet part of a filter (the text part is applied by `searchUtterances`),
   * ascending. Blank lines never match; pending lines match only a filter without facets, so the
   * list is usable while the summary pass runs.
   */
  filterLines(filter: SummaryFilter): Uint32Array {
    const codeOf = (table: StringTable, v: string | undefined): number | undefined | null => {
      if (v === undefined || v === '') return undefined; // no constraint
      if (v === '(none)') return NO_VALUE;
      return table.find(v) ?? null; // null: no line can match
    };
    const task = codeOf(this.tasks, filter.task);
    const condition = codeOf(this.conditions, filter.condition);
    const source = codeOf(this.sources, filter.source);
    const outcome =
      filter.outcome === OUTCOME_UNKNOWN_NAME
        ? OUTCOME_UNKNOWN
        : filter.outcome
          ? OUTCOMES.indexOf(filter.outcome)
          : -1;
    const validity = filter.validity ?? 'all';
    let annotator: number | undefined | null;
    if (filter.annotator) annotator = this.annotatorNames.find(filter.annotator) ?? null;
    const out = new Uint32Array(this.lineCount);
    if (task === null || condition === null || source === null || annotator === null) return out.subarray(0, 0);
    const facetFiltered =
      task !== undefined || condition !== undefined || source !== undefined || outcome >= 0 || annotator !== undefined;
    let n = 0;
    for (let i = 0; i < this.lineCount; i++) {
      const s = this.state[i];
      if (s === STATE_BLANK) continue;
      if (s === STATE_PENDING) {
        if (!facetFiltered && validity === 'all') out[n++] = i;
        continue;
      }
      if (validity === 'valid' && s !== STATE_VALID) continue;
      if (validity === 'invalid' && s !== STATE_INVALID) continue;
      if (facetFiltered) {
        if (s !== STATE_VALID) continue;
        if (task !== undefined && this.task[i] !== task) continue;
        if (condition !== undefined && this.condition[i] !== condition) continue;
        if (source !== undefined && this.source[i] !== source) continue;
        if (outcome >= 0 && this.outcome[i] !== outcome) continue;
        if (annotator !== undefined) {
          const codes = this.annotatorsByLine.get(i);
          if (!codes || !codes.includes(annotator)) continue;
        }
      }
      out[n++] = i;
    }
    return out.slice(0, n);
  }

  /** Approximate bytes held by this index (typed arrays + strings), for the benchmark. */
  approximateBytes(): number {
    let bytes = this.lineCount * (1 + 4 + 1 + 2 * 3) + this.lineCount * 16;
    for (let i = 0; i < this.lineCount; i++)
      bytes += ((this.ids[i]?.length ?? 0) + (this.snippets[i]?.length ?? 0)) * 2;
    for (const e of this.errors.values()) bytes += e.length * 2;
    bytes += this.utteranceChars;
    return bytes;
  }
}
