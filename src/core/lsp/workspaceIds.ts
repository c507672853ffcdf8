/**
 * Conversation ids across the workspace, for "Go to Symbol in Workspace". Files are scanned once
 * (streaming, line by line, reading only each line's top-level `id`) and rescanned when their
 * size or modification time changes. Open documents are searched from their live text instead.
 */
import { createReadStream } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createInterface } from 'node:readline';
import { locateJsonPath } from '../jsonl/locate';

const CONVERSATION_FILE = /\.(conv|sim)\.jsonl$/i;
const SKIP_DIRS = new Set(['node_modules', '.git', 'dist', 'out', '.cache', '.vscode-test']);
/** Bounds so a huge workspace cannot stall the server. */
const MAX_FILES = 200;
const MAX_RESULTS = 500;
const MAX_DEPTH = 6;

interface IdHit {
  id: string;
  uri: string;
  file: string;
  line: number;
}

interface FileIds {
  size: number;
  mtimeMs: number;
  ids: { id: string; line: number }[];
}

/** The top-level "id" (or "conversation_id") of one JSONL line, without parsing the whole line. */
export function lineId(text: string): string | undefined {
  for (const key of ['id', 'conversation_id']) {
    const span = locateJsonPath(text, [key]);
    if (!span) continue;
    const raw = text.slice(span.start, span.end);
    try {
      const v: unknown = JSON.parse(raw);
      if (typeof v === 'string' || typeof v === 'number') return String(v);
    } catch {
      // malformed value: try the next key
    }
  }
  return undefined;
}

export class WorkspaceIdIndex {
  private files = new Map<string, FileIds>();

  /** Case-insensitive substring search over ids in open documents and workspace files. */
  async search(
    roots: readonly string[],
    query: string,
    open: ReadonlyMap<string, { id: string; line: number }[]>,
  ): Promise<IdHit[]> {
    const q = query.toLowerCase();
    const hits: IdHit[] = [];
    const seen = new Set<string>();
    for (const [uri, ids] of open) {
      seen.add(uri);
      for (const { id, line } of ids) {
        if (id.toLowerCase().includes(q)) hits.push({ id, uri, file: uri.split('/').pop() ?? uri, line });
        if (hits.length >= MAX_RESULTS) return hits;
      }
    }
    for (const root of roots) {
      for (const path of await findConversationFiles(root)) {
        const uri = pathToFileURL(path).toString();
        if (seen.has(uri)) continue;
        const ids = await this.idsOf(path);
        for (const { id, line } of ids) {
          if (id.toLowerCase().includes(q)) hits.push({ id, uri, file: relative(root, path), line });
          if (hits.length >= MAX_RESULTS) return hits;
        }
      }
    }
    return hits;
  }

  private async idsOf(path: string): Promise<{ id: string; line: number }[]> {
    const st = await stat(path);
    const cached = this.files.get(path);
    if (cached && cached.size === st.size && cached.mtimeMs === st.mtimeMs) return cached.ids;
    const ids: { id: string; line: number }[] = [];
    const rl = createInterface({ input: createReadStream(path, { encoding: 'utf8' }), crlfDelay: Infinity });
    let line = 0;
    for await (const text of rl) {
      const id = lineId(text);
      if (id !== undefined) ids.push({ id, line });
      line++;
    }
    this.files.set(path, { size: st.size, mtimeMs: st.mtimeMs, ids });
    return ids;
  }
}

async function findConversationFiles(root: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (dir: string, depth: number): Promise<void> => {
    if (depth > MAX_DEPTH || out.length >= MAX_FILES) return;
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      if (out.length >= MAX_FILES) return;
      if (e.isDirectory()) {
        if (!SKIP_DIRS.has(e.name) && !e.name.startsWith('.')) await walk(join(dir, e.name), depth + 1);
      } else if (e.isFile() && CONVERSATION_FILE.test(e.name)) out.push(join(dir, e.name));
    }
  };
  await walk(root, 0);
  return out.sort();
}
