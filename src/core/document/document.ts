/**
 * The conversation document behind the editor (no `vscode` import; the extension wraps it).
 *
 * It owns: the open JSONL file (line index + reads on demand, through the engine in core/jsonl),
 * a compact summary of every line (filled by one background pass, or on demand for the rows a
 * page needs first), and the annotation journal. Content = file on disk + the journal's current
 * annotation values. Saving rewrites only lines whose annotations changed, via the engine's
 * temp-file-and-rename writer, one save at a time.
 */
import { open as openFile } from 'node:fs/promises';
import { isUtf8 } from 'node:buffer';
import {
  FileChangedError,
  JsonlFile,
  parseConversationText,
  parseLineBytes,
  rewriteLines,
  type LineIndex,
  type ParsedLine,
} from '../jsonl';
import { conversationId, type Annotation, type Conversation, type Speaker } from '../model';
import type { ConversationSummary, SearchStats, SummaryFilter } from './types';
import {
  AnnotationJournal,
  sameAnnotation,
  type AnnotationEdit,
  type AnnotationKey,
  type TargetValue,
} from './journal';
import { applyAnnotationValues, findAnnotation, parseLineObject } from './lineEdit';
import { searchUtterances } from './search';
import { SummaryIndex } from './summaries';
import { BackupSchema, type AnnotationBackup } from './backup';
import { zodErrorMessage } from '../jsonl/zodIssues';

/** Options for opening a document. */
interface DocumentOpenOptions {
  signal?: AbortSignal;
  /** Index progress: bytes scanned and file size. */
  onIndexProgress?: (bytes: number, total: number) => void;
  /** Clock for annotation timestamps (tests pass a fixed one). */
  now?: () => Date;
  /**
   * Characters of utterance text kept in memory for fast search (default 48M, about 48 MB);
   * lines beyond the budget are searched on disk. 0 always searches on disk.
   */
  utteranceCacheChars?: number;
}

/** What the editor asks to change for one utterance. Empty acts and no note removes the annotation. */
export interface AnnotateInput {
  line: number;
  turn: number;
  speaker: Speaker;
  annotator: string;
  acts: readonly string[];
  note?: string;
  segment?: number;
  taxonomy?: string;
}

/** Result of applying a filter (facets + optional text search) to every line. */
interface FilterResult {
  lines: Uint32Array;
  search?: SearchStats;
  /** The summary pass had not finished: rows may still be added. */
  partial: boolean;
  ms: number;
}

/** One conversation read for display. */
export interface ConversationRead {
  line: number;
  id: string;
  /** Present when the line is a valid conversation (annotation edits applied). */
  conversation?: Conversation;
  /** First error of an invalid line ("line:column message"). */
  error?: string;
  blank?: boolean;
}

function firstError(parsed: ParsedLine): string | undefined {
  if (parsed.kind !== 'invalid') return undefined;
  const e = parsed.errors[0];
  return e ? `${e.line}:${e.column} ${e.message}` : 'invalid line';
}

/**
 * Reads and parses line 1 of a file from its first bytes, without indexing the rest: the editor
 * shows the first conversation while the line index is still being built. Same result as
 * `readConversation(0)` on a freshly opened document (BOM and "\r\n" handled alike).
 */
export async function readFirstConversation(
  path: string,
  opts: { signal?: AbortSignal; chunkBytes?: number } = {},
): Promise<ConversationRead> {
  const chunk = opts.chunkBytes ?? 256 * 1024;
  const fh = await openFile(path, 'r');
  const parts: Buffer[] = [];
  try {
    let pos = 0;
    for (;;) {
      if (opts.signal?.aborted) throw new Error(`${path}: reading line 1 was cancelled`);
      const buf = Buffer.allocUnsafe(chunk);
      const { bytesRead } = await fh.read(buf, 0, chunk, pos);
      if (bytesRead === 0) break;
      const nl = buf.subarray(0, bytesRead).indexOf(0x0a);
      parts.push(buf.subarray(0, nl >= 0 ? nl : bytesRead));
      if (nl >= 0) break;
      pos += bytesRead;
    }
  } finally {
    await fh.close();
  }
  let raw = Buffer.concat(parts);
  if (raw.length >= 3 && raw[0] === 0xef && raw[1] === 0xbb && raw[2] === 0xbf) raw = raw.subarray(3);
  if (raw.length && raw[raw.length - 1] === 0x0d) raw = raw.subarray(0, raw.length - 1);
  const parsed = parseLineBytes(raw, 0);
  if (parsed.kind === 'valid')
    return { line: 0, id: conversationId(parsed.conversation, 1), conversation: parsed.conversation };
  if (parsed.kind === 'blank') return { line: 0, id: 'line:1', blank: true };
  return { line: 0, id: 'line:1', error: firstError(parsed) };
}

/** The file and its annotation journal. */
export class ConversationDocumentModel {
  readonly journal = new AnnotationJournal();
  private summaryAbort = new AbortController();
  private summaryRun: Promise<void> | undefined;
  private saveChain: Promise<unknown> = Promise.resolve();
  private readonly now: () => Date;
  private readonly utteranceCacheChars: number | undefined;

  private constructor(
    private file: JsonlFile,
    private summaryIndex: SummaryIndex,
    opts: DocumentOpenOptions,
  ) {
    this.now = opts.now ?? (() => new Date());
    this.utteranceCacheChars = opts.utteranceCacheChars;
  }

  /** Opens and indexes a file (no summaries yet: call `summarizeAll` or let pages fill them). */
  static async open(path: string, opts: DocumentOpenOptions = {}): Promise<ConversationDocumentModel> {
    const file = await JsonlFile.open(path, { signal: opts.signal, onProgress: opts.onIndexProgress });
    return new ConversationDocumentModel(file, new SummaryIndex(file.lineCount, opts.utteranceCacheChars), opts);
  }

  /**
   * Opens a file and re-applies the annotations of a hot-exit backup. When the file changed since
   * the backup, annotations are matched to their conversations by id; those whose conversation is
   * gone are reported in `lost`.
   */
  static async restore(
    path: string,
    backupText: string,
    opts: DocumentOpenOptions = {},
  ): Promise<{ doc: ConversationDocumentModel; lost: string[] }> {
    const backup = parseBackup(backupText, path);
    const doc = await ConversationDocumentModel.open(path, opts);
    const values: TargetValue[] = backup.values.map((v) => ({ key: v.key, value: v.value as Annotation | null }));
    const befores = new Map<number, unknown>();
    const lost = await doc.remapKeys(values);
    const kept = values.filter((v) => !lost.includes(v.key.conversationId));
    const remapped: TargetValue[] = [];
    for (const v of kept)
      remapped.push({ key: { ...v.key, line: (await doc.locate(v.key)) ?? v.key.line }, value: v.value });
    for (const v of remapped) {
      if (!befores.has(v.key.line))
        befores.set(v.key.line, parseLineObject(await doc.file.readText(v.key.line), v.key.line));
    }
    doc.journal.restore(remapped, (key) => findAnnotation(befores.get(key.line), key));
    for (const line of doc.journal.touchedLines()) await doc.refreshLine(line);
    return { doc, lost };
  }

  get path(): string {
    return this.file.path;
  }

  get lineCount(): number {
    return this.file.lineCount;
  }

  /** The line index of the file as last read (size, mtime, offsets). */
  get index(): LineIndex {
    return this.file.index;
  }

  get summaries(): SummaryIndex {
    return this.summaryIndex;
  }

  /**
   * Summarizes every line in one streaming pass (batches of lines, yielding between batches so
   * page requests are served meanwhile). Calling it again returns the same run.
   */
  summarizeAll(opts: { onProgress?: (done: number, total: number) => void; batchLines?: number } = {}): Promise<void> {
    if (this.summaryRun) return this.summaryRun;
    const signal = this.summaryAbort.signal;
    const file = this.file;
    const index = this.summaryIndex;
    // Small batches keep the event loop responsive: page and conversation requests wait at most one batch.
    const batch = opts.batchLines ?? 32;
    const run = async (): Promise<void> => {
      for (let from = 0; from < index.lineCount; from += batch) {
        if (signal.aborted) return;
        const count = Math.min(batch, index.lineCount - from);
        let allDone = true;
        for (let i = from; i < from + count; i++) if (!index.has(i)) allDone = false;
        if (!allDone) {
          const bufs = await file.readLines(from, count);
          if (signal.aborted) return;
          for (let k = 0; k < bufs.length; k++) {
            const i = from + k;
            if (!index.has(i)) index.set(i, this.withEdits(i, parseLineBytes(bufs[k], i), bufs[k]));
          }
        }
        opts.onProgress?.(Math.min(from + count, index.lineCount), index.lineCount);
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
    };
    this.summaryRun = run();
    return this.summaryRun;
  }

  /** Summary parse of a line with the journal's values applied, when it has any. */
  private withEdits(i: number, parsed: ParsedLine, bytes: Buffer): ParsedLine {
    const values = this.journal.currentValuesForLine(i);
    if (values.length === 0 || parsed.kind !== 'valid') return parsed;
    try {
      const { text } = applyAnnotationValues(bytes.toString('utf8'), i, values);
      return parseConversationText(text, i + 1);
    } catch {
      return parsed;
    }
  }

  /** Makes sure the given lines have summaries (reads only the missing ones). */
  async ensureSummarized(lines: ArrayLike<number>): Promise<void> {
    const missing: number[] = [];
    for (let k = 0; k < lines.length; k++) if (!this.summaryIndex.has(lines[k])) missing.push(lines[k]);
    // Read contiguous runs with one read each.
    let k = 0;
    while (k < missing.length) {
      let end = k;
      while (end + 1 < missing.length && missing[end + 1] === missing[end] + 1 && end - k < 500) end++;
      const from = missing[k];
      const bufs = await this.file.readLines(from, end - k + 1);
      bufs.forEach((b, j) => {
        if (!this.summaryIndex.has(from + j))
          this.summaryIndex.set(from + j, this.withEdits(from + j, parseLineBytes(b, from + j), b));
      });
      k = end + 1;
    }
  }

  /** Rows [start, start + count) of a view (line numbers from `filter`). */
  async page(view: Uint32Array, start: number, count: number): Promise<ConversationSummary[]> {
    const slice = view.subarray(Math.max(0, start), Math.min(view.length, start + count));
    await this.ensureSummarized(slice);
    return Array.from(slice, (line) => this.summaryIndex.summary(line));
  }

  /**
   * Lines matching a filter: facets from the summary index, then (if `filter.text`) a search over
   * utterances of the remaining lines, stopping after `maxMatches` conversations.
   */
  async filter(filter: SummaryFilter, opts: { signal?: AbortSignal; maxMatches?: number } = {}): Promise<FilterResult> {
    const t0 = performance.now();
    const partial = !this.summaryIndex.complete;
    let lines = this.summaryIndex.filterLines(filter);
    let search: SearchStats | undefined;
    const query = filter.text?.trim();
    if (query) {
      const result = await searchUtterances(this.file, lines, query, {
        speaker: filter.speaker ?? 'both',
        maxMatches: opts.maxMatches,
        signal: opts.signal,
        cached: (line) => this.summaryIndex.utterances(line),
      });
      lines = result.lines;
      search = {
        query,
        conversations: result.lines.length,
        utterances: result.utterances,
        capped: result.capped,
        ms: 0,
      };
    }
    const ms = performance.now() - t0;
    if (search) search.ms = ms;
    return { lines, search, partial, ms };
  }

  /** Reads one line as a conversation with the journal's annotation values applied. */
  async readConversation(line: number): Promise<ConversationRead> {
    if (!(line >= 0 && line < this.lineCount))
      throw new RangeError(`${this.path}: line ${line + 1} does not exist (the file has ${this.lineCount} lines)`);
    const raw = await this.file.readRaw(line);
    let parsed = parseLineBytes(raw, line);
    if (parsed.kind === 'valid') {
      const values = this.journal.currentValuesForLine(line);
      if (values.length)
        parsed = parseConversationText(applyAnnotationValues(raw.toString('utf8'), line, values).text, line + 1);
    }
    if (!this.summaryIndex.has(line)) this.summaryIndex.set(line, parsed);
    if (parsed.kind === 'valid')
      return { line, id: conversationId(parsed.conversation, line + 1), conversation: parsed.conversation };
    if (parsed.kind === 'blank') return { line, id: `line:${line + 1}`, blank: true };
    return { line, id: `line:${line + 1}`, error: firstError(parsed) };
  }

  /** Re-summarizes a line after its annotations changed; returns the conversation as now edited. */
  async refreshLine(line: number): Promise<ConversationRead> {
    const raw = await this.file.readRaw(line);
    let parsed = parseLineBytes(raw, line);
    const values = this.journal.currentValuesForLine(line);
    if (parsed.kind === 'valid' && values.length)
      parsed = parseConversationText(applyAnnotationValues(raw.toString('utf8'), line, values).text, line + 1);
    this.summaryIndex.set(line, parsed);
    if (parsed.kind === 'valid')
      return { line, id: conversationId(parsed.conversation, line + 1), conversation: parsed.conversation };
    return { line, id: `line:${line + 1}`, error: firstError(parsed) };
  }

  /**
   * Sets one utterance's annotation by `input.annotator`, keeping any other fields the existing
   * annotation has. Returns the recorded edit, or undefined when nothing changed.
   */
  async annotate(input: AnnotateInput): Promise<AnnotationEdit | undefined> {
    const read = await this.readConversation(input.line);
    if (!read.conversation)
      throw new Error(
        `${this.path}: line ${input.line + 1} is not a valid conversation; fix it before annotating (${read.error ?? 'blank line'})`,
      );
    const conv = read.conversation;
    const turn = conv.turns[input.turn];
    if (!turn)
      throw new Error(`${this.path}: line ${input.line + 1}: conversation ${read.id} has no turn ${input.turn + 1}`);
    const utterance = input.speaker === 'user' ? turn.user_utterance : turn.assistant_utterance;
    if (utterance === undefined)
      throw new Error(`${this.path}: line ${input.line + 1}: turn ${input.turn + 1} has no ${input.speaker} utterance`);
    if (!input.annotator.trim()) throw new Error('annotator id is empty: set simlens.annotator');
    // Saving re-encodes the edited turn's annotations only, but the line is decoded to edit it:
    // bytes that are not UTF-8 would come back as U+FFFD, so such lines are refused.
    if (!isUtf8(await this.file.readRaw(input.line))) {
      throw new Error(
        `${this.path}: line ${input.line + 1} contains bytes that are not valid UTF-8; fix the encoding before annotating it (saving would replace them)`,
      );
    }
    const key: AnnotationKey = {
      line: input.line,
      conversationId: read.id,
      turn: input.turn,
      speaker: input.speaker,
      annotator: input.annotator,
      ...(input.segment !== undefined ? { segment: input.segment } : {}),
    };
    const before = findAnnotation(conv, key);
    const acts = [...new Set(input.acts)];
    const note = input.note?.trim() ? input.note : undefined;
    let after: Annotation | null = null;
    if (acts.length || note !== undefined) {
      // Start from the existing annotation so its other fields (slots, ...) and key order survive.
      const next: Record<string, unknown> = before
        ? { ...before }
        : { speaker: input.speaker, annotator: input.annotator };
      next.acts = acts;
      if (input.taxonomy) next.taxonomy = input.taxonomy;
      if (note !== undefined) next.note = note;
      else delete next.note;
      next.time = this.now().toISOString();
      if (input.segment !== undefined) next.segment = input.segment;
      after = next as Annotation;
    }
    const same = sameAnnotation(before, after);
    if (same) return undefined;
    const label =
      after === null
        ? `Remove annotation (turn ${input.turn + 1}, ${input.speaker})`
        : `Annotate turn ${input.turn + 1} ${input.speaker}: ${acts.join(', ') || 'note'}`;
    const edit = this.journal.record(key, before, after, label);
    await this.refreshLine(input.line);
    return edit;
  }

  /** Undoes the last edit; returns it (undefined at the start). */
  async undo(): Promise<AnnotationEdit | undefined> {
    const e = this.journal.undo();
    if (e) await this.refreshLine(e.key.line);
    return e;
  }

  /** Redoes the next edit; returns it (undefined at the end). */
  async redo(): Promise<AnnotationEdit | undefined> {
    const e = this.journal.redo();
    if (e) await this.refreshLine(e.key.line);
    return e;
  }

  /**
   * Undoes the edit `seq` if it is the last applied one (VS Code calls undo on its own stack of
   * edit events; after a revert or reload those events refer to forgotten edits and do nothing).
   */
  async undoEdit(seq: number): Promise<AnnotationEdit | undefined> {
    const found = this.journal.find(seq);
    if (!found || found.index !== this.journal.position - 1) return undefined;
    return this.undo();
  }

  /** Redoes the edit `seq` if it is the next undone one. */
  async redoEdit(seq: number): Promise<AnnotationEdit | undefined> {
    const found = this.journal.find(seq);
    if (!found || found.index !== this.journal.position) return undefined;
    return this.redo();
  }

  /**
   * The new text of every line whose annotations differ from the file on disk. Each line's
   * conversation id is checked against the edits, so a file changed behind our back is refused
   * rather than annotated in the wrong place.
   */
  async pendingReplacements(): Promise<Map<number, string>> {
    if (await this.file.changedOnDisk()) {
      throw new FileChangedError(
        `${this.path} changed on disk since it was read; reload it (your annotations can be kept) before saving`,
      );
    }
    const byLine = new Map<number, TargetValue[]>();
    for (const v of this.journal.currentValues()) {
      const list = byLine.get(v.key.line) ?? [];
      list.push(v);
      byLine.set(v.key.line, list);
    }
    const out = new Map<number, string>();
    for (const [line, values] of [...byLine.entries()].sort((a, b) => a[0] - b[0])) {
      if (line >= this.lineCount) throw new Error(`${this.path}: line ${line + 1} no longer exists; reload the file`);
      const text = await this.file.readText(line);
      const id = conversationId(parseLineObject(text, line) as unknown as Conversation, line + 1);
      const expected = values[0].key.conversationId;
      if (id !== expected)
        throw new Error(
          `${this.path}: line ${line + 1} now holds conversation ${id}, not ${expected}; reload the file before saving`,
        );
      const { text: next, changed } = applyAnnotationValues(text, line, values);
      if (changed) out.set(line, next);
    }
    return out;
  }

  /** Whether the content differs from the file on disk. */
  async isModified(): Promise<boolean> {
    return (await this.pendingReplacements()).size > 0;
  }

  /** Writes the annotations to the file (only changed lines are re-encoded). One save at a time. */
  save(): Promise<void> {
    return this.serialize(async () => {
      const replacements = await this.pendingReplacements();
      if (replacements.size === 0) return;
      await rewriteLines(this.path, replacements, { index: this.file.index });
      await this.reopen();
    });
  }

  /** Writes the document (file + annotations) to another path; this document stays on its file. */
  saveAs(target: string): Promise<void> {
    return this.serialize(async () => {
      const replacements = await this.pendingReplacements();
      await rewriteLines(this.path, replacements, { index: this.file.index, outPath: target });
    });
  }

  /** Discards all annotation edits and re-reads the file. */
  revert(): Promise<void> {
    return this.serialize(async () => {
      this.journal.clear();
      const changed = await this.file.changedOnDisk();
      if (changed) await this.reloadFile();
      else this.resetSummaries();
    });
  }

  /** True when the file's size or modification time differ from what this document read. */
  changedOnDisk(): Promise<boolean> {
    return this.file.changedOnDisk();
  }

  /**
   * Re-reads the file after it changed on disk. With `keepEdits`, the annotation edits are kept and
   * moved to their conversations' new lines (matched by id); the ids of conversations that vanished
   * are returned and their edits dropped. Without, all edits are discarded.
   */
  reload(opts: { keepEdits: boolean }): Promise<{ lost: string[] }> {
    return this.serialize(async () => {
      if (!opts.keepEdits) {
        this.journal.clear();
        await this.reloadFile();
        return { lost: [] };
      }
      await this.reloadFile();
      const lost = await this.remapKeys(this.journal.currentValues());
      const lines = new Map<string, number>();
      for (const v of this.journal.currentValues()) {
        const l = await this.locate(v.key);
        if (l !== undefined) lines.set(`${v.key.line}|${v.key.conversationId}`, l);
      }
      this.journal.remapLines((key) => lines.get(`${key.line}|${key.conversationId}`));
      for (const line of this.journal.touchedLines()) await this.refreshLine(line);
      return { lost };
    });
  }

  /** Serialized backup of the unsaved annotation values (never the file itself). */
  async backup(): Promise<string> {
    const backup: AnnotationBackup = {
      format: 'simlens-annotation-backup',
      version: 1,
      file: this.path,
      size: this.file.index.size,
      mtimeMs: this.file.index.mtimeMs,
      created: this.now().toISOString(),
      values: this.journal
        .currentValues()
        .map((v) => ({ key: { ...v.key }, value: v.value === null ? null : { ...v.value } })),
    };
    return JSON.stringify(backup);
  }

  /** Closes the file and stops background work. */
  async close(): Promise<void> {
    this.summaryAbort.abort();
    await this.file.close();
  }

  // -------------------------------------------------------------------------------------------

  private serialize<T>(task: () => Promise<T>): Promise<T> {
    const next = this.saveChain.then(task, task);
    this.saveChain = next.catch(() => undefined);
    return next;
  }

  private async reopen(): Promise<void> {
    const old = this.file;
    this.file = await JsonlFile.open(old.path);
    await old.close();
    if (this.file.lineCount !== this.summaryIndex.lineCount) this.resetSummaries();
  }

  private async reloadFile(): Promise<void> {
    await this.reopen();
    this.resetSummaries();
  }

  private resetSummaries(): void {
    this.summaryAbort.abort();
    this.summaryAbort = new AbortController();
    this.summaryRun = undefined;
    this.summaryIndex = new SummaryIndex(this.file.lineCount, this.utteranceCacheChars);
  }

  /** The current line of a key's conversation, or undefined when it cannot be found. */
  private async locate(key: AnnotationKey): Promise<number | undefined> {
    if (key.line < this.lineCount) {
      await this.ensureSummarized([key.line]);
      if (this.summaryIndex.idOf(key.line) === key.conversationId) return key.line;
    }
    if (/^line:\d+$/.test(key.conversationId)) return key.line < this.lineCount ? key.line : undefined;
    await this.summarizeAll();
    return this.summaryIndex.lineOfId(key.conversationId);
  }

  /** Conversation ids among `values` that can no longer be found. */
  private async remapKeys(values: readonly TargetValue[]): Promise<string[]> {
    const lost = new Set<string>();
    for (const v of values) if ((await this.locate(v.key)) === undefined) lost.add(v.key.conversationId);
    return [...lost];
  }
}

/** Parses and validates a backup file's text. */
export function parseBackup(text: string, path: string): AnnotationBackup {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new Error(`backup for ${path} is not valid JSON: ${(e as Error).message}`);
  }
  const result = BackupSchema.safeParse(raw);
  if (!result.success) throw new Error(zodErrorMessage(`backup for ${path} is invalid`, result.error, raw));
  return result.data;
}
