/**
 * The annotation edit journal of a conversation document.
 *
 * Every edit is an immutable record that sets one annotation — the one addressed by (line, turn,
 * speaker, annotator, segment) — from `before` to `after` (null = absent). The journal keeps the
 * edits since the document was opened (or last reverted / reloaded), the number currently applied
 * (`position`), and for every annotation it ever touched the value it had at the start (the
 * baseline). The value of a touched annotation *now* is the `after` of the last applied edit that
 * touched it, else its baseline. The document writes those values onto the file on disk when it
 * saves, skipping those that already equal the disk's value — so undoing past a save, redoing, or
 * branching after an undo all save correctly without tracking which position is on disk.
 */
import type { Annotation, Speaker } from '../model';

/** Which annotation an edit addresses. `line` is 0-based; `conversationId` guards against shifted lines. */
export interface AnnotationKey {
  readonly line: number;
  readonly conversationId: string;
  readonly turn: number;
  readonly speaker: Speaker;
  readonly annotator: string;
  readonly segment?: number;
}

/** One annotation edit. */
export interface AnnotationEdit {
  readonly seq: number;
  readonly key: AnnotationKey;
  readonly before: Readonly<Annotation> | null;
  readonly after: Readonly<Annotation> | null;
  /** Human-readable label for VS Code's undo menu. */
  readonly label: string;
}

/**
 * What an undo or redo changed, for the editor to show (an undo that happens off screen would
 * otherwise change nothing visible): `Undone: Annotate turn 3 user: Inquire (line 12; it had no
 * annotation by you before)`.
 */
export function editNotice(kind: 'undo' | 'redo', edit: AnnotationEdit): string {
  const now = kind === 'undo' ? edit.before : edit.after;
  const acts = now?.acts?.length ? now.acts.join(', ') : now?.note ? 'a note only' : undefined;
  const state = now === null ? 'no annotation' : `acts ${acts ?? 'none'}`;
  return `${kind === 'undo' ? 'Undone' : 'Redone'}: ${edit.label} (line ${edit.key.line + 1}; now ${state} there)`;
}

/** The current value of one touched annotation. */
export interface TargetValue {
  readonly key: AnnotationKey;
  readonly value: Readonly<Annotation> | null;
}

/** Identity of an annotation within a file: line plus target within the line. */
function targetId(k: AnnotationKey): string {
  return JSON.stringify([k.line, k.turn, k.speaker, k.annotator, k.segment ?? null]);
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value as Record<string, unknown>)) deepFreeze(v);
  }
  return value;
}

function frozenCopy(a: Readonly<Annotation> | null): Readonly<Annotation> | null {
  return a === null ? null : deepFreeze(JSON.parse(JSON.stringify(a)) as Annotation);
}

/** Edit history with undo/redo. Pure bookkeeping: it never touches files. */
export class AnnotationJournal {
  private edits: AnnotationEdit[] = [];
  private pos = 0;
  private baseline = new Map<string, TargetValue>();
  private nextSeq = 1;

  /** Number of edits currently applied. */
  get position(): number {
    return this.pos;
  }

  /** Number of edits recorded (applied or undone). */
  get length(): number {
    return this.edits.length;
  }

  /** Sequence number of the last applied edit (0 when none): a cheap marker of the content state. */
  get lastAppliedSeq(): number {
    return this.pos === 0 ? 0 : this.edits[this.pos - 1].seq;
  }

  /** All recorded edits, oldest first. */
  get all(): readonly AnnotationEdit[] {
    return this.edits;
  }

  /** Records a new edit after the current position, dropping any redo tail. */
  record(key: AnnotationKey, before: Annotation | null, after: Annotation | null, label: string): AnnotationEdit {
    const edit: AnnotationEdit = deepFreeze({
      seq: this.nextSeq++,
      key: { ...key },
      before: frozenCopy(before),
      after: frozenCopy(after),
      label,
    });
    const id = targetId(edit.key);
    if (!this.baseline.has(id)) this.baseline.set(id, { key: edit.key, value: edit.before });
    this.edits.length = this.pos;
    this.edits.push(edit);
    this.pos++;
    return edit;
  }

  /** Undoes the last applied edit; returns it, or undefined at the start. */
  undo(): AnnotationEdit | undefined {
    if (this.pos === 0) return undefined;
    return this.edits[--this.pos];
  }

  /** Re-applies the next undone edit; returns it, or undefined at the end. */
  redo(): AnnotationEdit | undefined {
    if (this.pos >= this.edits.length) return undefined;
    return this.edits[this.pos++];
  }

  /** The edit with sequence number `seq`, if it is still in the journal. */
  find(seq: number): { edit: AnnotationEdit; index: number } | undefined {
    const index = this.edits.findIndex((e) => e.seq === seq);
    return index < 0 ? undefined : { edit: this.edits[index], index };
  }

  /** Whether the edit at `index` is applied. */
  isApplied(index: number): boolean {
    return index < this.pos;
  }

  /** Current value of every annotation the journal has touched. */
  currentValues(): TargetValue[] {
    const now = new Map<string, TargetValue>(this.baseline);
    for (let i = 0; i < this.pos; i++) {
      const e = this.edits[i];
      now.set(targetId(e.key), { key: e.key, value: e.after });
    }
    return [...now.values()];
  }

  /** Current values for one line. */
  currentValuesForLine(line: number): TargetValue[] {
    return this.currentValues().filter((v) => v.key.line === line);
  }

  /** Lines with at least one touched annotation. */
  touchedLines(): number[] {
    return [...new Set([...this.baseline.values()].map((v) => v.key.line))].sort((a, b) => a - b);
  }

  /** Forgets everything (after revert or a reload that discarded changes). */
  clear(): void {
    this.edits = [];
    this.pos = 0;
    this.baseline.clear();
  }

  /** Replaces the journal with restored values (from a backup): one applied edit each. */
  restore(values: readonly TargetValue[], before: (key: AnnotationKey) => Annotation | null): void {
    this.clear();
    for (const v of values)
      this.record(v.key, before(v.key), v.value === null ? null : { ...v.value }, 'Restore annotation');
  }

  /**
   * Moves every edit to new line numbers (after the file changed on disk and the user kept their
   * annotations). `map` returns the new line for a key, or undefined when its conversation is
   * gone; the ids of lost conversations are returned and their edits dropped from the baseline.
   */
  remapLines(map: (key: AnnotationKey) => number | undefined): string[] {
    const lost = new Set<string>();
    const move = (key: AnnotationKey): AnnotationKey | undefined => {
      const line = map(key);
      if (line === undefined) {
        lost.add(key.conversationId);
        return undefined;
      }
      return line === key.line ? key : { ...key, line };
    };
    const edits: AnnotationEdit[] = [];
    let pos = 0;
    this.edits.forEach((e, i) => {
      const key = move(e.key);
      if (!key) return;
      edits.push(key === e.key ? e : deepFreeze({ ...e, key }));
      if (i < this.pos) pos++;
    });
    const baseline = new Map<string, TargetValue>();
    for (const v of this.baseline.values()) {
      const key = move(v.key);
      if (key) baseline.set(targetId(key), { key, value: v.value });
    }
    this.edits = edits;
    this.pos = pos;
    this.baseline = baseline;
    return [...lost];
  }
}

/**
 * Whether two annotations say the same thing: equal acts, note and every other field, ignoring
 * `time` (so toggling an act on and off returns the line to its original bytes).
 */
export function sameAnnotation(
  a: Readonly<Annotation> | null | undefined,
  b: Readonly<Annotation> | null | undefined,
): boolean {
  if (!a || !b) return !a && !b;
  const strip = (x: Readonly<Annotation>): string => {
    const { time: _time, ...rest } = x;
    return stableStringify(rest);
  };
  return strip(a) === strip(b);
}

function stableStringify(v: unknown): string {
  if (Array.isArray(v)) return '[' + v.map(stableStringify).join(',') + ']';
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    const keys = Object.keys(o)
      .filter((k) => o[k] !== undefined)
      .sort();
    return '{' + keys.map((k) => JSON.stringify(k) + ':' + stableStringify(o[k])).join(',') + '}';
  }
  return JSON.stringify(v);
}
