/**
 * Errors and warnings shared by the importers. Every message names where the problem is: the
 * file (origin), and the line and column (JSONL, CSV, JSON syntax) or the JSON path (documents).
 */

/** A non-fatal problem: the importer skipped or repaired something and kept going. */
export interface ImportWarning {
  /** 1-based line in the input (JSONL line, CSV record start, JSON syntax position). */
  line?: number;
  /** Where inside the value, e.g. `conversations[3].turns[0].ratings` or `[2].conversation[5].participant`. */
  path?: string;
  message: string;
  /**
   * Set on warnings that repeat the same way in many records (e.g. a metadata key SimLens renames
   * in every re-imported dialogue): collapseRepeated keeps the first one of a kind, with the count.
   */
  kind?: string;
}

/**
 * One warning per `kind` (the first, its message saying how many times and where the first two
 * were); warnings without a kind are kept as they are, in order.
 */
export function collapseRepeated(warnings: readonly ImportWarning[]): ImportWarning[] {
  const groups = new Map<string, ImportWarning[]>();
  for (const w of warnings)
    if (w.kind !== undefined) (groups.get(w.kind) ?? groups.set(w.kind, []).get(w.kind)!).push(w);
  if (groups.size === 0) return [...warnings];
  const out: ImportWarning[] = [];
  for (const w of warnings) {
    if (w.kind === undefined) {
      out.push(w);
      continue;
    }
    const g = groups.get(w.kind)!;
    if (g[0] !== w) continue;
    if (g.length === 1) {
      out.push(w);
      continue;
    }
    const at = (x: ImportWarning): string => (x.line !== undefined ? `line ${x.line}` : (x.path ?? '?'));
    out.push({
      ...w,
      message: `${w.message} (${g.length} times in all: at ${at(g[0])}, ${at(g[1])}${g.length > 2 ? ', …' : ''})`,
    });
  }
  return out;
}

/** Where a fatal import error is. */
interface ImportErrorLocation {
  line?: number;
  column?: number;
  path?: string;
}

/** Why an input's format could not be told, for callers that word their own hint (the CLI). */
interface UnknownFormat {
  /** What the sniffer saw ("it is empty", "it is a JSON array whose first element has keys a"). */
  reason: string;
  empty: boolean;
  /** The formats `--from` accepts. */
  formats: readonly string[];
}

/**
 * A fatal import problem. The message is complete on its own (`file:line:column: text` or
 * `file: path: text`); the parts are also available as properties for tools.
 */
export class ImportError extends Error {
  readonly origin: string;
  readonly line?: number;
  readonly column?: number;
  readonly path?: string;
  /** The message without the location prefix. */
  readonly detail: string;
  /** Set when the format could not be told (the message then ends with the `--from` hint). */
  readonly unknownFormat?: UnknownFormat;

  constructor(origin: string, detail: string, where: ImportErrorLocation = {}, unknownFormat?: UnknownFormat) {
    super(`${formatLocation(origin, where)}: ${detail}`);
    this.name = 'ImportError';
    this.origin = origin;
    this.line = where.line;
    this.column = where.column;
    this.path = where.path;
    this.detail = detail;
    this.unknownFormat = unknownFormat;
  }
}

/** `file:12:5`, `file:12`, `file: conversations[3].turns` or just `file`. */
export function formatLocation(origin: string, where: ImportErrorLocation): string {
  let out = origin;
  if (where.line !== undefined) {
    out += `:${where.line}`;
    if (where.column !== undefined) out += `:${where.column}`;
  }
  if (where.path) out += `: ${where.path}`;
  return out;
}

/** Joins a base path and a relative one: (`conversations[2]`, `turns[0].x`) -> `conversations[2].turns[0].x`. */
export function joinPath(base: string, rest: string): string {
  if (!base) return rest;
  if (!rest) return base;
  return rest.startsWith('[') ? base + rest : `${base}.${rest}`;
}

/** A short, printable preview of untrusted text for messages. */
export function preview(text: string, max = 40): string {
  const oneLine = text.replace(/\r?\n/g, '\\n').replace(/\t/g, '\\t');
  return oneLine.length > max ? `${oneLine.slice(0, max)}…` : oneLine;
}
