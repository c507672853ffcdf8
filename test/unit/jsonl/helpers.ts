/** Shared helpers for the JSONL engine tests: temp files and a reference line splitter. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A fresh temp folder, removed by the returned cleanup function. */
export function tempDir(prefix = 'simlens-jsonl-'): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export function writeTemp(dir: string, name: string, data: string | Uint8Array): string {
  const path = join(dir, name);
  writeFileSync(path, data);
  return path;
}

/**
 * Reference implementation of the line model, written independently of the engine: split raw bytes
 * into { content, ending } pairs. The BOM is returned separately.
 */
export function referenceSplit(bytes: Buffer): { bom: boolean; lines: { content: Buffer; ending: Buffer }[] } {
  let body = bytes;
  const bom = bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
  if (bom) body = bytes.subarray(3);
  const lines: { content: Buffer; ending: Buffer }[] = [];
  let start = 0;
  for (let i = 0; i < body.length; i++) {
    if (body[i] === 0x0a) {
      const cr = i > start && body[i - 1] === 0x0d;
      lines.push({ content: body.subarray(start, cr ? i - 1 : i), ending: body.subarray(cr ? i - 1 : i, i + 1) });
      start = i + 1;
    }
  }
  if (start < body.length) {
    const cr = body[body.length - 1] === 0x0d;
    lines.push({
      content: body.subarray(start, cr ? body.length - 1 : body.length),
      ending: body.subarray(cr ? body.length - 1 : body.length),
    });
  }
  return { bom, lines };
}

/** A small valid conversation line. */
export function convLine(id: string, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    id,
    task_id: 'footwear_good',
    turns: [{ user_utterance: `hi ${id}`, assistant_utterance: 'hello' }],
    ...extra,
  });
}

/** Runs `fn` with a fresh temporary folder, removed afterwards. */
export async function withTempDir<T>(fn: (dir: string) => T | Promise<T>, prefix?: string): Promise<T> {
  const { dir, cleanup } = tempDir(prefix);
  try {
    return await fn(dir);
  } finally {
    cleanup();
  }
}
