/**
 * Text search over the utterances of a JSONL conversation file, reading line bytes in blocks.
 *
 * Lines are never JSON-parsed whole: the scan finds the `"user_utterance"` / `"assistant_utterance"`
 * keys in the raw bytes and decodes just their string values (escapes included), so the cost is
 * a byte search over the line plus the utterances' own length.
 */

/** Reads raw line contents (without line endings) for 0-based lines [from, from + count). */
interface LineBlockReader {
  readLines(from: number, count: number): Promise<Buffer[]>;
}

interface SearchOptions {
  /** Which utterances count (default both). */
  speaker?: 'user' | 'assistant' | 'both';
  /** Stop after this many matching conversations (default 10,000). */
  maxMatches?: number;
  /** Lines read per block (default 512). */
  blockLines?: number;
  signal?: AbortSignal;
  /** Called between blocks with the number of candidate lines examined so far. */
  onProgress?: (examined: number, total: number) => void;
}

interface SearchResult {
  /** Matching lines, ascending, a subset of the candidates. */
  lines: Uint32Array;
  /** Matching utterances across those lines. */
  utterances: number;
  /** True when the scan stopped at `maxMatches`. */
  capped: boolean;
  /** Candidate lines examined. */
  examined: number;
}

const KEY_USER = '"user_utterance"';
const KEY_ASSISTANT = '"assistant_utterance"';

function isWsByte(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
}

/**
 * Counts the string values of a key in a line's raw JSON that contain
 * `needle` (lower-cased). `key` is the quoted key, e.g. '"user_utterance"'. Only the utterance values are decoded, never the rest of the line (item
 * descriptions dominate line size). A quoted key cannot occur unescaped inside a JSON string, and
 * a match must be followed by ":" and a string, so only real keys count.
 */
export function countRawValueMatches(
  buf: Buffer,
  key: string,
  needle: string,
  latin1 = buf.toString('latin1'),
): number {
  let n = 0;
  // Searching a latin1 view (one char per byte, so indices are byte offsets) is much faster in V8
  // than Buffer.indexOf with a multi-byte pattern.
  let pos = latin1.indexOf(key, 0);
  while (pos !== -1) {
    let p = pos + key.length;
    while (p < buf.length && isWsByte(buf[p])) p++;
    if (buf[p] === 0x3a) {
      p++;
      while (p < buf.length && isWsByte(buf[p])) p++;
      if (buf[p] === 0x22) {
        let q = p + 1;
        let escaped = false;
        while (q < buf.length) {
          const c = buf[q];
          if (c === 0x5c) {
            escaped = true;
            q += 2;
            continue;
          }
          if (c === 0x22) break;
          q++;
        }
        if (q >= buf.length) return n; // unterminated: not valid JSON
        let value: string;
        try {
          value = escaped ? (JSON.parse(buf.toString('utf8', p, q + 1)) as string) : buf.toString('utf8', p + 1, q);
        } catch {
          value = '';
        }
        if (value.toLowerCase().includes(needle)) n++;
        pos = latin1.indexOf(key, q + 1);
        continue;
      }
    }
    pos = latin1.indexOf(key, pos + key.length);
  }
  return n;
}

/** Lower-cased utterances of one line, each joined with "\u0000" (see SummaryIndex). */
interface CachedUtterances {
  user: string;
  assistant: string;
}

/** Counts the "\u0000"-separated parts of `joined` that contain `needle`. */
function countJoined(joined: string, needle: string): number {
  if (!joined.includes(needle)) return 0;
  let n = 0;
  for (const part of joined.split('\u0000')) if (part.includes(needle)) n++;
  return n;
}

/**
 * Searches the utterances of `candidates` (ascending 0-based line numbers) for `query`,
 * case-insensitively. Lines whose utterances are cached (`cached`) are checked in memory; the
 * others are read from disk block by block, decoding only utterance values.
 */
export async function searchUtterances(
  reader: LineBlockReader,
  candidates: Uint32Array,
  query: string,
  opts: SearchOptions & { cached?: (line: number) => CachedUtterances | undefined } = {},
): Promise<SearchResult> {
  const needle = query.toLowerCase().replaceAll('\u0000', '');
  const speaker = opts.speaker ?? 'both';
  const maxMatches = opts.maxMatches ?? 10_000;
  const blockLines = opts.blockLines ?? 512;
  if (needle === '') return { lines: candidates.slice(), utterances: 0, capped: false, examined: 0 };
  const out = new Uint32Array(Math.min(candidates.length, maxMatches));
  let found = 0;
  let utterances = 0;
  let examined = 0;
  let sinceYield = 0;
  const accept = (line: number, n: number): boolean => {
    if (n === 0) return false;
    out[found++] = line;
    utterances += n;
    return found >= maxMatches;
  };
  let k = 0;
  while (k < candidates.length) {
    if (opts.signal?.aborted)
      throw opts.signal.reason instanceof Error ? opts.signal.reason : new Error('search aborted');
    const cache = opts.cached?.(candidates[k]);
    if (cache) {
      examined++;
      let n = 0;
      if (speaker !== 'assistant') n += countJoined(cache.user, needle);
      if (speaker !== 'user') n += countJoined(cache.assistant, needle);
      k++;
      if (accept(candidates[k - 1], n))
        return { lines: out.slice(0, found), utterances, capped: k < candidates.length, examined };
      if (++sinceYield >= 20_000) {
        sinceYield = 0;
        opts.onProgress?.(examined, candidates.length);
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
      continue;
    }
    // One block of uncached candidates within [first, first + blockLines).
    const first = candidates[k];
    let last = first;
    let kEnd = k;
    while (
      kEnd < candidates.length &&
      candidates[kEnd] < first + blockLines &&
      (kEnd === k || !opts.cached?.(candidates[kEnd]))
    )
      last = candidates[kEnd++];
    const bufs = await reader.readLines(first, last - first + 1);
    for (; k < kEnd; k++) {
      const line = candidates[k];
      const buf = bufs[line - first];
      examined++;
      if (!buf || buf.length === 0) continue;
      let n = 0;
      const latin1 = buf.toString('latin1');
      if (speaker !== 'assistant') n += countRawValueMatches(buf, KEY_USER, needle, latin1);
      if (speaker !== 'user') n += countRawValueMatches(buf, KEY_ASSISTANT, needle, latin1);
      if (accept(line, n))
        return { lines: out.slice(0, found), utterances, capped: k + 1 < candidates.length, examined };
    }
    opts.onProgress?.(examined, candidates.length);
    // Let other work (page requests) run between blocks.
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  return { lines: out.slice(0, found), utterances, capped: false, examined };
}
