/**
 * Display formatting shared by every report renderer (Markdown, SVG, the webview), so a number
 * reads the same everywhere. Exports (CSV/JSON) keep full precision and do not use this.
 * Browser-safe: no Node imports.
 */
import type { Cell, Column } from './model';

/** A p-value for people: 3 decimals, exponent notation below 0.001, "0" and "1" kept short. */
export function formatP(p: number): string {
  if (p === 0) return '0';
  if (p >= 0.001) return p >= 0.9995 ? '1.000' : p.toFixed(3);
  return p.toExponential(1).replace('e-', 'e−');
}

/** A number with `digits` decimals, trailing zeros kept (tables line up). */
export function formatFixed(x: number, digits = 3): string {
  const s = x.toFixed(digits);
  return s === `-${(0).toFixed(digits)}` ? (0).toFixed(digits) : s;
}

/** Compact axis-tick text: up to 4 significant digits, no trailing zeros. */
export function formatTick(x: number): string {
  if (x === 0) return '0';
  const a = Math.abs(x);
  if (a >= 1e6 || a < 1e-4) return x.toExponential(1);
  return String(Number(x.toPrecision(4)));
}

/** The display text of a table cell under its column's format. */
export function formatCell(cell: Cell, column: Column): string {
  if (cell === null) return '–';
  if (typeof cell === 'boolean') return cell ? 'yes' : 'no';
  if (typeof cell === 'string') return cell;
  switch (column.format) {
    case 'int':
      return Number.isInteger(cell) ? String(cell) : formatFixed(cell, column.digits ?? 1);
    case 'p':
      return formatP(cell);
    case 'percent':
      return `${formatFixed(cell * 100, column.digits ?? 1)}%`;
    case 'fixed':
      return formatFixed(cell, column.digits ?? 3);
    case 'text':
    case undefined:
    default:
      return Number.isInteger(cell) ? String(cell) : String(Number(cell.toPrecision(6)));
  }
}

/**
 * A file-name-safe section id from free text: lower case, runs of other characters become "-",
 * at most 80 characters; never empty.
 */
export function slug(text: string): string {
  const s = text
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^[-._]+|[-._]+$/g, '')
    .slice(0, 80)
    .replace(/[-._]+$/g, '');
  return s || 'x';
}

/** Makes ids unique within one report by appending -2, -3, … to repeats. */
export class IdAllocator {
  private readonly used = new Set<string>();
  /** A unique id built from the given parts. */
  id(...parts: string[]): string {
    const base = slug(parts.join('-'));
    let id = base;
    for (let k = 2; this.used.has(id); k++) id = `${base}-${k}`;
    this.used.add(id);
    return id;
  }
}

/**
 * Short display names for files: the base name without extension; where base names collide, the
 * last two path components; numbered if still ambiguous. A repeated file keeps one name.
 */
export function shortNames(files: readonly string[]): Map<string, string> {
  const parts = (f: string) =>
    f
      .replace(/\\/g, '/')
      .replace(/\.(jsonl|json|csv)$/i, '')
      .split('/')
      .filter(Boolean);
  const unique = [...new Set(files)];
  const tail = (f: string, k: number) => parts(f).slice(-k).join('/');
  const out = new Map<string, string>();
  const used = new Map<string, number>();
  for (const f of unique) {
    const base = tail(f, 1);
    const clash = unique.some((g) => g !== f && tail(g, 1) === base);
    let name = clash ? tail(f, 2) : base;
    const k = used.get(name) ?? 0;
    used.set(name, k + 1);
    if (k) name = `${name} (${k + 1})`;
    out.set(f, name);
  }
  return out;
}
