/** Locates ../shared/stats-reference relative to the repository root (a sibling of shared/). */
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';

export const REF_DIR = path.resolve(__dirname, '../../../../shared/stats-reference');

/** Parsed JSON of a reference file, or undefined when ../shared is absent. */
export function loadReference<T>(name: string): T | undefined {
  const file = path.join(REF_DIR, name);
  if (!existsSync(file)) return undefined;
  return JSON.parse(readFileSync(file, 'utf8')) as T;
}

/** |a - b| <= atol + rtol·|b|, with NaN == NaN and equal infinities. */
export function close(a: number, b: number, rtol: number, atol = 0): boolean {
  if (Number.isNaN(b)) return Number.isNaN(a);
  if (!Number.isFinite(b)) return a === b;
  return Math.abs(a - b) <= atol + rtol * Math.abs(b);
}
