/**
 * Reading and writing item catalogs as JSONL (one item per line):
 * `{"item_id", "title", "description", "features", "category", "attributes", "price"?}`.
 * `features` may be an array or one comma-separated string (the ConvApparel spelling);
 * attribute values may be strings, numbers or booleans (stored as strings).
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { writeFileAtomic } from '../atomicFile';
import * as z from 'zod';
import { Catalog, type CatalogItem } from './item';
import { zodProblemLines } from '../jsonl/zodIssues';

/** A catalog file problem; `issues` holds every problem found (file:line: field: message). */
export class CatalogError extends Error {
  constructor(
    message: string,
    readonly issues: string[],
  ) {
    super(message);
    this.name = 'CatalogError';
  }
}

// Messages come from the one zod-issue formatter (zodProblemLines), which says what was expected and found.
const ItemJson = z.object({
  item_id: z.union([z.string().trim().min(1), z.number()]),
  title: z.string(),
  description: z.string().optional(),
  features: z.union([z.string(), z.array(z.string())]).optional(),
  category: z.string().trim().min(1),
  attributes: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).optional(),
  price: z.number().nonnegative().optional(),
});

/** Splits a ConvApparel features string ("Slim fit, Lightweight, ...") into trimmed parts. */
function splitFeatures(features: string | readonly string[] | undefined): string[] {
  if (features === undefined) return [];
  const parts = typeof features === 'string' ? features.split(',') : features;
  return parts.map((f) => f.trim()).filter((f) => f !== '');
}

const MAX_REPORTED = 10;

/** Parses catalog text; `origin` names the file in error messages. */
export function parseCatalog(text: string, origin: string): Catalog {
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const issues: string[] = [];
  const items: CatalogItem[] = [];
  const firstLine = new Map<string, number>();
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i].trim();
    if (raw === '') continue;
    const where = `${origin}:${i + 1}`;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (e) {
      issues.push(`${where}: invalid JSON: ${(e as Error).message}`);
      continue;
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      issues.push(`${where}: expected a JSON object with item_id, title, description, features, category, attributes`);
      continue;
    }
    const parsed = ItemJson.safeParse(value);
    if (!parsed.success) {
      for (const problem of zodProblemLines(parsed.error, value)) issues.push(`${where}: ${problem}`);
      continue;
    }
    const v = parsed.data;
    const id = String(v.item_id);
    const prev = firstLine.get(id);
    if (prev !== undefined) {
      issues.push(`${where}: item_id: duplicate id "${id}" (first on line ${prev})`);
      continue;
    }
    firstLine.set(id, i + 1);
    const attributes: Record<string, string> = {};
    for (const [k, a] of Object.entries(v.attributes ?? {})) attributes[k] = String(a);
    const item: CatalogItem = {
      item_id: id,
      title: v.title,
      description: v.description ?? '',
      features: splitFeatures(v.features),
      category: v.category,
      attributes,
    };
    if (v.price !== undefined) item.price = v.price;
    items.push(item);
  }
  if (issues.length) {
    const shown = issues.slice(0, MAX_REPORTED).join('\n');
    const more = issues.length > MAX_REPORTED ? `\n… and ${issues.length - MAX_REPORTED} more` : '';
    throw new CatalogError(`${origin}: ${issues.length} invalid catalog line(s):\n${shown}${more}`, issues);
  }
  if (items.length === 0) throw new CatalogError(`${origin}: the catalog has no items`, [`${origin}: no items`]);
  return new Catalog(items);
}

/** Loads a JSONL catalog; errors name file, line and field. */
export async function loadCatalog(file: string): Promise<Catalog> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (e) {
    // The file system's code and path stay on the error, so the CLI reports it as an I/O error (exit 2) in plain words.
    const io = e as NodeJS.ErrnoException;
    throw Object.assign(new CatalogError(`${file}: cannot read catalog: ${io.message}`, []), {
      code: io.code,
      path: file,
      syscall: 'open',
    });
  }
  return parseCatalog(text, file);
}

/** One catalog item as a JSONL line (fixed key order, features as an array). */
export function catalogItemLine(item: CatalogItem): string {
  const out: Record<string, unknown> = {
    item_id: item.item_id,
    title: item.title,
    description: item.description,
    features: item.features,
    category: item.category,
    attributes: item.attributes,
  };
  if (item.price !== undefined) out.price = item.price;
  return JSON.stringify(out);
}

/** Writes a catalog as JSONL through a temporary file renamed into place. */
export async function writeCatalog(catalog: Catalog, file: string): Promise<void> {
  const dir = path.dirname(file);
  await fs.mkdir(dir, { recursive: true });
  await writeFileAtomic(file, catalog.items.map(catalogItemLine).join('\n') + '\n');
}
