/**
 * Setting utterance annotations inside the JSON text of one conversation line.
 *
 * Only the `annotations` array of the edited turn is re-serialized; the rest of the line keeps
 * its exact text (key order, spacing, number spelling, `\u` escapes, unknown fields), so a save
 * changes as few bytes as possible. If the text cannot be spliced (it should always be possible
 * for valid JSON), the whole line is re-serialized with JSON.stringify, which still keeps every
 * field.
 */
import { locateJsonPath } from '../jsonl/locate';
import type { Annotation } from '../model';
import { sameAnnotation, type AnnotationKey, type TargetValue } from './journal';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Does annotation `a` (a plain JSON value from the line) belong to `key`'s target? */
function matches(a: unknown, key: Pick<AnnotationKey, 'speaker' | 'annotator' | 'segment'>): boolean {
  if (!isObject(a)) return false;
  const seg = typeof a.segment === 'number' ? a.segment : undefined;
  return a.speaker === key.speaker && a.annotator === key.annotator && seg === key.segment;
}

/** The parsed JSON object of a line, or an error naming the line. */
export function parseLineObject(text: string, line: number): JsonObject {
  let value: unknown;
  try {
    value = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch (e) {
    throw new Error(`line ${line + 1}: not valid JSON (${(e as Error).message})`);
  }
  if (!isObject(value)) throw new Error(`line ${line + 1}: not a JSON object`);
  return value;
}

/** The annotation for `key` in a parsed conversation object, or null when there is none. */
export function findAnnotation(
  conv: unknown,
  key: Pick<AnnotationKey, 'turn' | 'speaker' | 'annotator' | 'segment'>,
): Annotation | null {
  if (!isObject(conv) || !Array.isArray(conv.turns)) return null;
  const turn = conv.turns[key.turn];
  if (!isObject(turn) || !Array.isArray(turn.annotations)) return null;
  const found = turn.annotations.find((a) => matches(a, key));
  return found ? (found as unknown as Annotation) : null;
}

/**
 * Returns a new annotations array for a turn with `value` set for its target (replacing in place,
 * appending, or removing when `value` is null).
 */
function updatedAnnotations(existing: unknown, key: AnnotationKey, value: Readonly<Annotation> | null): Json[] {
  const list: Json[] = Array.isArray(existing) ? [...(existing as Json[])] : [];
  const at = list.findIndex((a) => matches(a, key));
  const json = value === null ? null : (JSON.parse(JSON.stringify(value)) as Json);
  if (at >= 0) {
    if (json === null) list.splice(at, 1);
    else list[at] = json;
  } else if (json !== null) {
    list.push(json);
  }
  return list;
}

/**
 * Applies the current values of touched annotations to one line's text. Returns the new text and
 * whether anything changed; values equal to the line's own (ignoring `time`) are skipped, so a line
 * whose annotations ended where they started keeps its bytes.
 */
export function applyAnnotationValues(
  text: string,
  line: number,
  values: readonly TargetValue[],
): { text: string; changed: boolean } {
  let obj = parseLineObject(text, line);
  let out = text;
  let changed = false;
  for (const v of values) {
    const key = v.key;
    const turns = obj.turns;
    if (!Array.isArray(turns) || key.turn >= turns.length || !isObject(turns[key.turn])) {
      throw new Error(`line ${line + 1}: conversation ${key.conversationId} has no turn ${key.turn + 1} to annotate`);
    }
    const turn = turns[key.turn] as JsonObject;
    if (sameAnnotation(findAnnotation(obj, key), v.value)) continue;
    const next = updatedAnnotations(turn.annotations, key, v.value);
    out = spliceAnnotations(out, key.turn, turn.annotations !== undefined, next) ?? reserialize(obj, key.turn, next);
    obj = parseLineObject(out, line);
    changed = true;
    // Guard: the spliced text must parse to exactly the annotations we meant to write.
    const check = (obj.turns as Json[])[key.turn] as JsonObject;
    if (JSON.stringify(check.annotations ?? []) !== JSON.stringify(next)) {
      throw new Error(`line ${line + 1}: internal error writing the annotations of turn ${key.turn + 1}`);
    }
  }
  return { text: out, changed };
}

/** Splices a new annotations array into the text; undefined when the text cannot be located. */
function spliceAnnotations(text: string, turn: number, hasKey: boolean, next: Json[]): string | undefined {
  const serialized = JSON.stringify(next);
  if (hasKey && next.length === 0) return removeKey(text, ['turns', turn, 'annotations']);
  if (hasKey) {
    const span = locateJsonPath(text, ['turns', turn, 'annotations']);
    if (!span) return undefined;
    return text.slice(0, span.start) + serialized + text.slice(span.end);
  }
  const span = locateJsonPath(text, ['turns', turn]);
  if (!span || text[span.end - 1] !== '}') return undefined;
  // Insert before the closing brace, after the last non-space character inside the object.
  let close = span.end - 1;
  let p = close - 1;
  while (p > span.start && /\s/.test(text[p])) p--;
  const empty = p === span.start; // "{" followed only by whitespace
  const insert = (empty ? '' : ',') + '"annotations":' + serialized;
  if (empty) close = span.start + 1;
  else close = p + 1;
  return text.slice(0, close) + insert + text.slice(close);
}

/**
 * Removes `"key": value` (with one neighbouring comma) from the object holding it, so removing the
 * last annotation undoes our own insertion exactly.
 */
function removeKey(text: string, path: readonly (string | number)[]): string | undefined {
  const key = locateJsonPath(text, path, { key: true });
  const value = locateJsonPath(text, path);
  if (!key || !value) return undefined;
  let p = key.start - 1;
  while (p >= 0 && /\s/.test(text[p])) p--;
  if (text[p] === ',') return text.slice(0, p) + text.slice(value.end);
  // First key of its object: remove the comma (and spacing) after the value instead.
  let q = value.end;
  while (q < text.length && /\s/.test(text[q])) q++;
  if (text[q] === ',') {
    q++;
    while (q < text.length && /\s/.test(text[q])) q++;
    return text.slice(0, key.start) + text.slice(q);
  }
  return text.slice(0, key.start) + text.slice(value.end);
}

function reserialize(obj: JsonObject, turn: number, next: Json[]): string {
  const copy = JSON.parse(JSON.stringify(obj)) as JsonObject;
  const t = (copy.turns as Json[])[turn] as JsonObject;
  if (next.length) t.annotations = next;
  else delete t.annotations;
  return JSON.stringify(copy);
}
