/**
 * Format detection by content (never by file extension alone): looks at the first bytes of the
 * input — the first JSON value's top-level keys, or the CSV header — and names the format.
 */
import { isAbRedialHeader } from './abredial';
import { scanFirstValue } from './json';

/** What the sniffer concluded: a format name, or why it could not tell. */
export type SniffResult = { format: string; shape?: 'document' | 'jsonl' } | { format: undefined; reason: string };

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
  if (trimmed === '') return { format: undefined, reason: 'it is empty' };
  const c = trimmed[0];
  if (c === '[') {
    const shape = scanFirstValue(trimmed);
    if (shape.keys.some((k) => DIALOGUE_KEYS.includes(k))) return { format: 'dialoguekit', shape: 'document' };
    if (shape.keys.includes('turns')) return { format: 'convapparel', shape: 'document' };
    if (/^\[\s*\]\s*$/.test(trimmed) && complete) return { format: 'dialoguekit', shape: 'document' };
    return { format: undefined, reason: `it is a JSON array whose first element has ${shape.keys.length ? `keys ${shape.keys.slice(0, 8).join(', ')}` : 'no recognisable keys'}` };
  }
  if (c === '{') {
    const shape = scanFirstValue(trimmed);
    const keys = shape.keys;
    // JSONL: the first value ends on its first line (or the whole value fits the first line).
    const line = firstLine(trimmed);
    const oneLine = shape.end !== undefined && shape.end <= line.length;
    if (keys.includes('conversations')) return { format: 'convapparel', shape: 'document' };
    if (keys.includes('dialogues')) return { format: 'dialoguekit', shape: 'document' };
    if (keys.includes('conversation') || keys.includes('conversation_id') || keys.includes('conversation ID')) {
      return { format: 'dialoguekit', shape: oneLine ? 'jsonl' : 'document' };
    }
    if (keys.includes('turns')) {
      if (!oneLine && shape.end !== undefined) {
        return { format: undefined, reason: 'it is a single conversation spread over several lines (SimLens needs one conversation per line)' };
      }
      // ConvApparel lines carry task_id and no id; SimLens lines carry an id (or source/trace...).
      const convApparel = keys.includes('task_id') && !keys.includes('id') && !keys.includes('source');
      return { format: convApparel ? 'convapparel-jsonl' : 'canonical', shape: 'jsonl' };
    }
    return { format: undefined, reason: `it is a JSON object with keys ${keys.slice(0, 8).join(', ') || '(none found)'}` };
  }
  const header = headerFields(firstLine(trimmed));
  if (header.length > 1 && isAbRedialHeader(header)) return { format: 'ab-redial' };
  if (header.length > 1) return { format: undefined, reason: `it looks like CSV with columns ${header.slice(0, 6).join(', ')}${header.length > 6 ? ', …' : ''}` };
  return { format: undefined, reason: `it starts with "${firstLine(trimmed).slice(0, 40)}"` };
}
