/** Shared fixtures for the editor tests: small conversation files with awkward bytes. */
import { writeFileSync } from 'node:fs';
import { scratchDir } from '../../support/scratch';
import { join } from 'node:path';

/** A ConvApparel-shaped conversation with a SimLens trace and some unknown fields. */
export function conversation(i: number, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const task = ['footwear', 'outerwear', 'dresses'][i % 3];
  const condition = i % 5 === 0 ? 'bad' : 'good';
  return {
    id: `conv-${i}`,
    task_id: `${task}_${condition}`,
    source: i % 2 ? 'agenda-cir6' : 'human',
    vendor_field: { keep: [1, 2.5, 'x'] },
    turns: [
      {
        user_utterance:
          i % 7 === 0 ? `I need waterproof boots size ${i}` : `Looking for something in ${task} number ${i}`,
        assistant_utterance: 'Here are some options for you.',
        recommendations: [
          { item_id: `item-${i}`, title: `Item ${i}`, description: 'A nice item', features: 'red, warm' },
        ],
        trace: { agenda: ['Disclose', 'Inquire'], operation: 'push', patience: 3, satisfaction: 0.5 },
      },
      {
        user_utterance: 'Thanks, I will take the first one.',
        assistant_utterance: 'Great choice!',
        unknown_turn_field: true,
      },
    ],
    outcome: i % 4 === 0 ? 'abandoned' : 'accepted',
    ...extra,
  };
}

/** Writes a temp file (in a folder removed when the test process exits) and returns its path. */
export function tempFile(name: string, content: string | Buffer): string {
  const dir = scratchDir('simlens-editor-');
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

/**
 * A file that exercises the byte-preservation rules: BOM, CRLF and LF endings, a blank line, an
 * invalid JSON line, a schema-invalid line, Python-style spacing and \u escapes, no final newline.
 */
export function awkwardFile(): { path: string; bytes: Buffer } {
  const lines: string[] = [];
  lines.push(JSON.stringify(conversation(1)) + '\r\n');
  // Python json.dumps style: spaces after separators, non-ASCII escaped.
  lines.push(JSON.stringify(conversation(2)).replace(/","/g, '", "').replace('Looking', 'Caf\\u00e9 Looking') + '\n');
  lines.push('\n');
  lines.push('{"id": "broken", "turns": [\n'.replace('\n', '') + '\r\n');
  lines.push(JSON.stringify({ id: 'bad-schema', turns: 'nope' }) + '\n');
  lines.push(
    JSON.stringify(conversation(3, { big: 12345678901234567890 })).replace(
      '"big":12345678901234567000',
      '"big":12345678901234567890',
    ) + '\r\n',
  );
  lines.push(JSON.stringify(conversation(4)));
  const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(lines.join(''), 'utf8')]);
  return { path: tempFile('awkward.conv.jsonl', bytes), bytes };
}

/** Splits bytes into lines (content without endings) the way the engine does, BOM removed. */
export function splitLines(bytes: Buffer): Buffer[] {
  let b = bytes;
  if (b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf) b = b.subarray(3);
  const out: Buffer[] = [];
  let start = 0;
  for (let i = 0; i < b.length; i++) {
    if (b[i] === 0x0a) {
      const end = i > start && b[i - 1] === 0x0d ? i - 1 : i;
      out.push(b.subarray(start, end));
      start = i + 1;
    }
  }
  if (start < b.length) out.push(b.subarray(start));
  return out;
}
