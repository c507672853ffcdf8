/**
 * A text document kept as an array of lines, with incremental edits applied in place. The
 * language server keeps conversation files this way so a one-line edit in a 100 MB file costs
 * the length of the edited lines, not the whole text (a plain string document re-concatenates
 * everything on each change), and so it knows exactly which lines need validating again.
 */

/** A position as LSP counts it: 0-based line, 0-based UTF-16 character. */
export interface Position {
  line: number;
  character: number;
}

export interface Range {
  start: Position;
  end: Position;
}

/** An LSP content change: with a range it is incremental, without it replaces the whole text. */
interface ContentChange {
  range?: Range;
  text: string;
}

/** Which lines an edit touched: lines [first, first + inserted) are new; `removed` lines were replaced. */
export interface LineEdit {
  first: number;
  removed: number;
  inserted: number;
}

const NEWLINE = /\r\n|\n|\r/;

/** Splits a text into lines, accepting \n, \r\n and a lone \r as line ends, as LSP does. */
function splitLines(text: string): string[] {
  return text.split(NEWLINE);
}

export class LineDocument {
  private lines: string[];

  constructor(
    readonly uri: string,
    public version: number,
    text: string,
  ) {
    this.lines = splitLines(text);
  }

  get lineCount(): number {
    return this.lines.length;
  }

  /** The text of 0-based line `i` (no line ending); "" past the end. */
  line(i: number): string {
    return this.lines[i] ?? '';
  }

  /** The whole text, joined with "\n" (only for small documents and tests). */
  getText(): string {
    return this.lines.join('\n');
  }

  /**
   * Applies one change and reports which lines it replaced. Positions past the end of a line or
   * of the document are clamped, as the protocol asks.
   */
  apply(change: ContentChange): LineEdit {
    if (!change.range) {
      const removed = this.lines.length;
      this.lines = splitLines(change.text);
      return { first: 0, removed, inserted: this.lines.length };
    }
    const { start, end } = this.clampRange(change.range);
    const head = this.lines[start.line].slice(0, start.character);
    const tail = this.lines[end.line].slice(end.character);
    const replacement = splitLines(head + change.text + tail);
    const removed = end.line - start.line + 1;
    if (replacement.length === 1 && removed === 1) this.lines[start.line] = replacement[0];
    else this.lines.splice(start.line, removed, ...replacement);
    return { first: start.line, removed, inserted: replacement.length };
  }

  private clampRange(range: Range): Range {
    const clamp = (p: Position): Position => {
      if (p.line < 0) return { line: 0, character: 0 };
      if (p.line >= this.lines.length) {
        const last = this.lines.length - 1;
        return { line: last, character: this.lines[last].length };
      }
      return { line: p.line, character: Math.max(0, Math.min(p.character, this.lines[p.line].length)) };
    };
    const s = clamp(range.start);
    const e = clamp(range.end);
    if (e.line < s.line || (e.line === s.line && e.character < s.character)) return { start: e, end: s };
    return { start: s, end: e };
  }
}
