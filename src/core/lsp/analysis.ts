/**
 * Language features for conversation JSONL, computed from a LineDocument: per-line diagnostics
 * with exact ranges, outline symbols, hovers on utterances, code lenses and quick fixes. Results
 * are plain objects shaped like their LSP counterparts (0-based lines, UTF-16 characters) so the
 * server passes them on as they are; nothing here imports the protocol libraries.
 *
 * Each line's analysis is cached by its text, so after an edit only the changed lines are
 * parsed and validated again.
 */
import { fileURLToPath } from 'node:url';
import { parseConversationText, type LineError, type ParsedLine } from '../jsonl/parse';
import { locateJsonPath, type JsonSpan } from '../jsonl/locate';
import {
  conversationCondition,
  conversationId,
  reportedOutcome,
  conversationTask,
  countWords,
  purchaseLikelihood,
  type Conversation,
  type Turn,
} from '../model';
import type { LineDocument, LineEdit, Position, Range } from './lineDocument';
import { looksLikeWrappedDocument, pythonLiteralToJson, removeTrailingCommas } from './repair';
import { escapeMarkdown } from '../text/escape';

export const DIAGNOSTIC_SOURCE = 'simlens';
/** The conversation editor's command that opens a file at a conversation (src/extension/editor). */
const GO_TO_CONVERSATION = 'simlens.goToConversation';

export interface Diagnostic {
  range: Range;
  severity: 1 | 2 | 3 | 4; // Error, Warning, Information, Hint
  message: string;
  source: string;
  code?: string;
  data?: { path: string };
}

/** What one line holds, cached by the line's text. */
interface LineInfo {
  text: string;
  parsed: ParsedLine;
  diagnostics: Diagnostic[];
}

/** Diagnostic codes that quick fixes recognise. */
export const CODES = {
  json: 'invalid-json',
  schema: 'schema',
  notObject: 'not-an-object',
  wrapped: 'wrapped-document',
  warning: 'warning',
} as const;

/**
 * Turns a path string from LineError ("turns[2].ratings[\"Was it easy?\"]") back into segments
 * for `locateJsonPath`. Returns undefined for paths it cannot read.
 */
export function parsePathString(path: string): (string | number)[] | undefined {
  const segs: (string | number)[] = [];
  let i = 0;
  while (i < path.length) {
    if (path[i] === '.') {
      i++;
      continue;
    }
    if (path[i] === '[') {
      if (path[i + 1] === '"') {
        // A JSON string key: find its end, honouring escapes.
        let j = i + 2;
        while (j < path.length && path[j] !== '"') j += path[j] === '\\' ? 2 : 1;
        try {
          segs.push(JSON.parse(path.slice(i + 1, j + 1)) as string);
        } catch {
          return undefined;
        }
        i = j + 2; // past `"]`
        continue;
      }
      const close = path.indexOf(']', i);
      if (close === -1) return undefined;
      const n = Number(path.slice(i + 1, close));
      if (!Number.isInteger(n)) return undefined;
      segs.push(n);
      i = close + 1;
      continue;
    }
    const m = /^[A-Za-z_$][A-Za-z0-9_$]*/.exec(path.slice(i));
    if (!m) return undefined;
    segs.push(m[0]);
    i += m[0].length;
  }
  return segs;
}

function errorRange(lineNo: number, text: string, err: LineError): Range {
  const col = Math.max(0, err.column - 1);
  if (err.path) {
    const segs = parsePathString(err.path);
    // Missing fields have no span of their own; point at the closest enclosing value's start.
    const span: JsonSpan | undefined = segs ? locateJsonPath(text, segs) : undefined;
    if (span && span.start === col) {
      // Keep ranges readable: a whole nested object would underline half the line.
      const end = Math.min(span.end, span.start + 200);
      return { start: { line: lineNo, character: span.start }, end: { line: lineNo, character: end } };
    }
  }
  const end = Math.min(text.length, col + 1);
  return { start: { line: lineNo, character: col }, end: { line: lineNo, character: Math.max(end, col) } };
}

function analyseLine(lineNo: number, text: string): LineInfo {
  const parsed = parseConversationText(text, lineNo + 1);
  const diagnostics: Diagnostic[] = [];
  const toDiag = (err: LineError): Diagnostic => {
    const code =
      err.severity === 'warning'
        ? CODES.warning
        : err.path === '' && err.message.startsWith('invalid JSON')
          ? CODES.json
          : err.path === '' && err.message.startsWith('expected one conversation object')
            ? CODES.notObject
            : CODES.schema;
    return {
      range: errorRange(lineNo, text, err),
      severity: err.severity === 'warning' ? 2 : 1,
      message: err.message,
      source: DIAGNOSTIC_SOURCE,
      code,
      data: { path: err.path },
    };
  };
  if (parsed.kind === 'invalid') for (const e of parsed.errors) diagnostics.push(toDiag(e));
  if (parsed.kind === 'valid') for (const w of parsed.warnings) diagnostics.push(toDiag(w));
  return { text, parsed, diagnostics };
}

/**
 * Per-document analysis state. Call `update(edit)` after each change the document applied,
 * then ask for diagnostics; only lines whose text changed are parsed again.
 */
export class DocumentAnalysis {
  private infos: (LineInfo | undefined)[] = [];
  /** Lines validated by the last `diagnostics()` call (for tests and the benchmark). */
  lastRevalidated = 0;

  constructor(private readonly doc: LineDocument) {
    this.infos = new Array(doc.lineCount);
  }

  /** Keeps the cache aligned with the document after an edit. */
  update(edit: LineEdit): void {
    const fresh = new Array<LineInfo | undefined>(edit.inserted);
    if (edit.inserted === 1 && edit.removed === 1) this.infos[edit.first] = undefined;
    else this.infos.splice(edit.first, edit.removed, ...fresh);
  }

  private info(i: number): LineInfo {
    const text = this.doc.line(i);
    let info = this.infos[i];
    if (!info || info.text !== text) {
      info = analyseLine(i, text);
      this.infos[i] = info;
      this.lastRevalidated++;
    }
    return info;
  }

  /** The parsed line (cached). */
  parsed(i: number): ParsedLine {
    return this.info(i).parsed;
  }

  /** All diagnostics of the document, validating only lines not seen with this text before. */
  diagnostics(): Diagnostic[] {
    this.lastRevalidated = 0;
    if (this.infos.length !== this.doc.lineCount) this.infos.length = this.doc.lineCount;
    const out: Diagnostic[] = [];
    const first: string[] = [];
    for (let i = 0; i < Math.min(5, this.doc.lineCount); i++) first.push(this.doc.line(i));
    if (looksLikeWrappedDocument(first)) {
      return [
        {
          range: { start: { line: 0, character: 0 }, end: { line: 0, character: this.doc.line(0).length } },
          severity: 1,
          message:
            'This looks like one JSON document spread over many lines, not JSONL (one conversation per line). Use the quick ' +
            'fix or `simlens convert` to turn it into JSONL.',
          source: DIAGNOSTIC_SOURCE,
          code: CODES.wrapped,
        },
      ];
    }
    for (let i = 0; i < this.doc.lineCount; i++) {
      const info = this.info(i);
      for (const d of info.diagnostics) out.push(d);
    }
    return out;
  }

  /** Whether the document looks like conversations: the first non-blank line is an object with `turns`, or fails like one. */
  looksLikeConversations(): boolean {
    for (let i = 0; i < Math.min(this.doc.lineCount, 50); i++) {
      const text = this.doc.line(i);
      if (text.trim() === '') continue;
      const p = this.parsed(i);
      if (p.kind === 'valid') return true;
      if (p.kind === 'invalid' && p.value && typeof p.value === 'object' && 'turns' in (p.value as object)) return true;
      return /"turns"\s*:|'turns'\s*:/.test(text.slice(0, 100_000));
    }
    return false;
  }

  /** Outline: one symbol per conversation (its id), with a child per turn. */
  symbols(): DocumentSymbol[] {
    const out: DocumentSymbol[] = [];
    for (let i = 0; i < this.doc.lineCount; i++) {
      const p = this.parsed(i);
      if (p.kind !== 'valid') continue;
      const text = this.doc.line(i);
      const conv = p.conversation;
      const lineRange = { start: { line: i, character: 0 }, end: { line: i, character: text.length } };
      const children: DocumentSymbol[] = conv.turns.map((turn, t) => {
        const span = locateJsonPath(text, ['turns', t]);
        const range = span
          ? { start: { line: i, character: span.start }, end: { line: i, character: span.end } }
          : lineRange;
        return {
          name: `Turn ${t + 1}`,
          detail: snippet(turn.user_utterance ?? turn.assistant_utterance ?? '', 60),
          kind: SYMBOL_KIND_EVENT,
          range,
          selectionRange: range,
        };
      });
      out.push({
        name: conversationId(conv, i + 1),
        detail: [conversationTask(conv), conversationCondition(conv), `${conv.turns.length} turns`]
          .filter(Boolean)
          .join(' · '),
        kind: SYMBOL_KIND_OBJECT,
        range: lineRange,
        selectionRange: { start: { line: i, character: 0 }, end: { line: i, character: Math.min(1, text.length) } },
        children,
      });
    }
    return out;
  }

  /** Hover on an utterance (or anywhere inside a turn): a summary of that turn as Markdown. */
  hover(pos: Position): { contents: string; range: Range } | undefined {
    const p = this.parsed(pos.line);
    if (p.kind !== 'valid') return undefined;
    const text = this.doc.line(pos.line);
    const conv = p.conversation;
    for (let t = 0; t < conv.turns.length; t++) {
      const span = locateJsonPath(text, ['turns', t]);
      if (!span || pos.character < span.start || pos.character >= span.end) continue;
      const range = { start: { line: pos.line, character: span.start }, end: { line: pos.line, character: span.end } };
      return { contents: turnMarkdown(conv, conv.turns[t], t, pos.line + 1), range };
    }
    return undefined;
  }

  /**
   * Code lenses on each conversation line: "Open in SimLens" (the conversation in the SimLens
   * editor) and "Replay from here" (the same, stepping from its first turn). Both call the
   * editor's `simlens.goToConversation` with the file path and the 0-based line (the
   * line on disk; ids may be missing or repeated).
   */
  codeLenses(): CodeLens[] {
    const out: CodeLens[] = [];
    const file = this.doc.uri.startsWith('file:') ? fileURLToPath(this.doc.uri) : this.doc.uri;
    for (let i = 0; i < this.doc.lineCount; i++) {
      const p = this.parsed(i);
      if (p.kind !== 'valid') continue;
      const range = { start: { line: i, character: 0 }, end: { line: i, character: 0 } };
      const turns = p.conversation.turns.length;
      out.push({
        range,
        command: {
          title: `$(open-preview) Open in SimLens (${turns} turn${turns === 1 ? '' : 's'})`,
          command: GO_TO_CONVERSATION,
          arguments: [{ file, line: i }],
        },
      });
      if (turns > 0) {
        out.push({
          range,
          command: {
            title: '$(debug-start) Replay from here',
            command: GO_TO_CONVERSATION,
            arguments: [{ file, line: i, turn: 1 }],
          },
        });
      }
    }
    return out;
  }

  /** Quick fixes for the diagnostics on one line. */
  quickFixes(line: number, diagnostics: readonly Diagnostic[]): CodeAction[] {
    const text = this.doc.line(line);
    const whole: Range = { start: { line, character: 0 }, end: { line, character: text.length } };
    const out: CodeAction[] = [];
    const codes = new Set(diagnostics.map((d) => d.code));
    if (codes.has(CODES.wrapped)) {
      out.push({
        title: 'Convert this JSON document to JSONL (simlens convert)',
        kind: 'quickfix',
        diagnostics: diagnostics.filter((d) => d.code === CODES.wrapped),
        command: { title: 'Convert to JSONL', command: 'simlens.convertFile', arguments: [this.doc.uri] },
      });
    }
    if (codes.has(CODES.json)) {
      const related = diagnostics.filter((d) => d.code === CODES.json);
      const noCommas = removeTrailingCommas(text);
      if (noCommas !== undefined) {
        out.push({
          title: 'Remove trailing commas',
          kind: 'quickfix',
          isPreferred: true,
          diagnostics: related,
          edit: { range: whole, newText: noCommas },
        });
      }
      const fromPython = pythonLiteralToJson(text);
      if (fromPython !== undefined) {
        out.push({
          title: 'Convert Python dict syntax to JSON (quotes, True/False/None)',
          kind: 'quickfix',
          isPreferred: noCommas === undefined,
          diagnostics: related,
          edit: { range: whole, newText: fromPython },
        });
      }
    }
    return out;
  }
}

const SYMBOL_KIND_OBJECT = 19;
const SYMBOL_KIND_EVENT = 24;

interface DocumentSymbol {
  name: string;
  detail?: string;
  kind: number;
  range: Range;
  selectionRange: Range;
  children?: DocumentSymbol[];
}

interface CodeLens {
  range: Range;
  command: { title: string; command: string; arguments?: unknown[] };
}

interface CodeAction {
  title: string;
  kind: 'quickfix';
  isPreferred?: boolean;
  diagnostics: Diagnostic[];
  /** A single replacement in this document. */
  edit?: { range: Range; newText: string };
  command?: { title: string; command: string; arguments?: unknown[] };
}

function snippet(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** Conversation text for a hover (rendered Markdown): one line, shown literally (src/core/text/escape.ts). */
function escapeInline(text: string): string {
  return escapeMarkdown(text, true);
}

function actsOf(turn: Turn, speaker: 'user' | 'assistant'): string {
  const acts = new Set<string>();
  for (const a of turn.annotations ?? [])
    if (a.speaker === speaker) for (const x of a.acts) acts.add(`${x} (${a.annotator})`);
  return [...acts].join(', ');
}

function turnMarkdown(conv: Conversation, turn: Turn, t: number, lineNo: number): string {
  const parts: string[] = [];
  parts.push(
    `**${escapeInline(conversationId(conv, lineNo))}** · turn ${t + 1} of ${conv.turns.length} · ${reportedOutcome(conv) ?? 'outcome unknown'}`,
  );
  if (turn.user_utterance !== undefined) {
    const acts = actsOf(turn, 'user');
    parts.push(
      `**User** (${countWords(turn.user_utterance)} words${acts ? `; ${escapeInline(acts)}` : ''}): ${escapeInline(snippet(turn.user_utterance, 400))}`,
    );
  }
  if (turn.assistant_utterance !== undefined) {
    const acts = actsOf(turn, 'assistant');
    parts.push(
      `**Assistant**${acts ? ` (${escapeInline(acts)})` : ''}: ${escapeInline(snippet(turn.assistant_utterance, 400))}`,
    );
  }
  if (turn.recommendations?.length) parts.push(`**Shown:** ${turn.recommendations.length} items`);
  const purchase = purchaseLikelihood(turn);
  const ticked = Object.entries(turn.ratings ?? {})
    .filter(([, v]) => v === true)
    .map(([k]) => k);
  if (ticked.length || purchase)
    parts.push(
      `**Ratings:** ${escapeInline([...ticked, purchase ? `purchase: ${purchase}` : ''].filter(Boolean).join(', '))}`,
    );
  const tr = turn.trace;
  if (tr) {
    const bits: string[] = [];
    if (tr.user_act) bits.push(`act ${tr.user_act}`);
    if (tr.operation) bits.push(tr.operation);
    if (tr.agenda) bits.push(`agenda [${tr.agenda.join(', ')}]`);
    if (tr.patience !== undefined) bits.push(`patience ${tr.patience}`);
    if (bits.length) parts.push(`**Trace:** ${escapeInline(bits.join(' · '))}`);
  }
  return parts.join('\n\n');
}
