/**
 * Format detection by content (never by file extension alone): looks at the first bytes of the
 * input — the first JSON value's top-level keys, or the CSV header — and names the format.
 */
import { isAbRedialHeader } from './abredial';
import { looksLikeRawIard } from './iard';
import { isInspiredHeader } from './inspired';
import { scanFirstValue } from './json';
import { isRedialKeys } from './redial';

/**
 * What the sniffer concluded: a format name, or why it could not tell. `kind` names inputs that are
 * not conversations at all (an item catalog, a compressed or binary file) so messages can say what
 * to run instead.
 */
export type SniffResult =
  | { format: string; shape?: 'document' | 'jsonl' }
  | { format: undefined; reason: string; kind?: 'catalog' | 'compressed' | 'binary' | 'empty' };

/** Magic numbers of compressed and archive formats people hand to a JSONL tool by mistake. */
const MAGIC: readonly { name: string; bytes: readonly number[]; hint: string }[] = [
  { name: 'gzip', bytes: [0x1f, 0x8b], hint: 'decompress it first (gunzip -k FILE)' },
  { name: 'ZIP', bytes: [0x50, 0x4b, 0x03, 0x04], hint: 'extract it first (unzip FILE)' },
  { name: 'bzip2', bytes: [0x42, 0x5a, 0x68], hint: 'decompress it first (bunzip2 -k FILE)' },
  { name: 'xz', bytes: [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00], hint: 'decompress it first (unxz -k FILE)' },
  { name: 'zstd', bytes: [0x28, 0xb5, 0x2f, 0xfd], hint: 'decompress it first (unzstd FILE)' },
  { name: '7-Zip', bytes: [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c], hint: 'extract it first (7z x FILE)' },
  {
    name: 'Parquet',
    bytes: [0x50, 0x41, 0x52, 0x31],
    hint: 'export it to JSON lines first (e.g. pandas read_parquet + to_json(lines=True))',
  },
];

/**
 * Recognises compressed, archive and other binary inputs from their first bytes (before any text
 * decoding, so raw bytes are never echoed as "CSV columns"). Undefined for text.
 */
export function sniffBinary(bytes: Uint8Array): SniffResult | undefined {
  for (const m of MAGIC) {
    if (bytes.length >= m.bytes.length && m.bytes.every((b, i) => bytes[i] === b)) {
      return { format: undefined, kind: 'compressed', reason: `it is a ${m.name} file, not text: ${m.hint}` };
    }
  }
  const head = bytes.subarray(0, 8192);
  // UTF-16 has its own message (checkNotUtf16); NUL bytes elsewhere mean binary data.
  const utf16 = head.length >= 2 && ((head[0] === 0xff && head[1] === 0xfe) || (head[0] === 0xfe && head[1] === 0xff));
  if (!utf16 && head.includes(0))
    return {
      format: undefined,
      kind: 'binary',
      reason: 'it is a binary file (it holds NUL bytes), not JSON or CSV text',
    };
  return undefined;
}

/**
 * For commands that read conversation JSONL (validate, stats, the editor): undefined when `sniff`
 * is conversation JSONL; otherwise one sentence saying what the input is and what to run instead.
 * `file` is the name to show in the suggested command.
 */
export function conversationJsonlAdvice(sniff: SniffResult, file: string): string | undefined {
  if (sniff.format !== undefined) {
    if (sniff.shape === 'jsonl' && (sniff.format === 'canonical' || sniff.format === 'convapparel-jsonl'))
      return undefined;
    const what = sniff.shape === 'document' ? `a ${sniff.format} JSON document` : `${sniff.format} data`;
    const out = file.replace(/\.(json|csv|tsv|txt)$/i, '') + '.jsonl';
    return `${file} is ${what}, not SimLens conversation JSONL: convert it first with: simlens convert ${file} -o ${out}`;
  }
  if (sniff.kind === 'catalog')
    return `${file} is an item catalog (one item per line), not conversations: use it as simlens simulate --catalog ${file}`;
  if (sniff.kind === 'compressed' || sniff.kind === 'binary')
    return `${file} is not conversation JSONL: ${sniff.reason}`;
  // Anything else (a malformed first line, unknown keys) is left to line-by-line validation.
  return undefined;
}

const DIALOGUE_KEYS = ['conversation', 'conversation_id', 'conversation ID', 'dialogue_acts', 'participant'];

/** Splits the first line off a prefix (without its line break). */
function firstLine(text: string): string {
  const nl = text.indexOf('\n');
  return (nl === -1 ? text : text.slice(0, nl)).replace(/\r$/, '');
}

/** Splits one CSV header line into field names (quotes honoured; good enough for headers). */
function headerFields(line: string): string[] {
  const out: string[] = [];
  let cur = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quoted) {
      if (c === '"' && line[i + 1] === '"') {
        cur += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cur += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      out.push(cur);
      cur = '';
    } else cur += c;
  }
  out.push(cur);
  return out;
}

/**
 * Names the format of an input from its beginning. `prefix` is the start of the text (a BOM is
 * ignored); `complete` says whether it is the whole input.
 */
export function sniffFormat(prefix: string, complete: boolean): SniffResult {
  const text = prefix.charCodeAt(0) === 0xfeff ? prefix.slice(1) : prefix;
  const trimmed = text.trimStart();
  if (trimmed === '') return { format: undefined, kind: 'empty', reason: 'it is empty' };
  const c = trimmed[0];
  if (c === '[') {
    const shape = scanFirstValue(trimmed);
    if (shape.keys.some((k) => DIALOGUE_KEYS.includes(k))) return { format: 'dialoguekit', shape: 'document' };
    if (shape.keys.includes('turns')) return { format: 'convapparel', shape: 'document' };
    if (/^\[\s*\]\s*$/.test(trimmed) && complete) return { format: 'dialoguekit', shape: 'document' };
    return {
      format: undefined,
      reason: `it is a JSON array whose first element has ${shape.keys.length ? `keys ${shape.keys.slice(0, 8).join(', ')}` : 'no recognisable keys'}`,
    };
  }
  if (c === '{') {
    const shape = scanFirstValue(trimmed);
    const keys = shape.keys;
    // JSONL: the first value ends on its first line (or the whole value fits the first line).
    const line = firstLine(trimmed);
    const oneLine = shape.end !== undefined && shape.end <= line.length;
    if (keys.includes('conversations')) return { format: 'convapparel', shape: 'document' };
    if (isRedialKeys(keys)) return { format: 'redial', shape: 'jsonl' };
    if (looksLikeRawIard(keys, trimmed)) return { format: 'iard', shape: 'document' };
    if (keys.includes('dialogues')) return { format: 'dialoguekit', shape: 'document' };
    if (keys.includes('conversation') || keys.includes('conversation_id') || keys.includes('conversation ID')) {
      return { format: 'dialoguekit', shape: oneLine ? 'jsonl' : 'document' };
    }
    if (keys.includes('turns')) {
      if (!oneLine && shape.end !== undefined) {
        return {
          format: undefined,
          reason: 'it is a single conversation spread over several lines (SimLens needs one conversation per line)',
        };
      }
      // ConvApparel lines carry task_id and no id; SimLens lines carry an id (or source/trace...).
      const convApparel = keys.includes('task_id') && !keys.includes('id') && !keys.includes('source');
      return { format: convApparel ? 'convapparel-jsonl' : 'canonical', shape: 'jsonl' };
    }
    if (keys.includes('item_id')) {
      return {
        format: undefined,
        kind: 'catalog',
        reason:
          'it is an item catalog (one item per line with item_id), not conversations; catalogs are read by simlens simulate --catalog FILE',
      };
    }
    return {
      format: undefined,
      reason: `it is a JSON object with keys ${keys.slice(0, 8).join(', ') || '(none found)'}`,
    };
  }
  const first = firstLine(trimmed);
  if (first.includes('\t') && isInspiredHeader(first.split('\t'))) return { format: 'inspired' };
  const header = headerFields(first);
  if (header.length > 1 && isAbRedialHeader(header)) return { format: 'ab-redial' };
  if (header.length > 1)
    return {
      format: undefined,
      reason: `it looks like CSV with columns ${header.slice(0, 6).join(', ')}${header.length > 6 ? ', …' : ''}`,
    };
  return { format: undefined, reason: `it starts with ${JSON.stringify(firstLine(trimmed).slice(0, 40))}` };
}
