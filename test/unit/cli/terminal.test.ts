// Terminal safety: data from conversation files never reaches the terminal as raw control
// sequences. A corpus of real-world escape sequences is planted in ids, utterances, file content and
// file names; every CLI command's output must hold none of them raw, and JSON output must still parse.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '../../support/cli';
import { escapeControl, hasControl } from '../../../src/core/text/terminal';
import { tempDir } from '../jsonl/helpers';

/** Terminal attacks seen in the wild: titles, screen clears, hyperlinks, clipboard writes, C1 CSI, bidi. */
const CORPUS: Record<string, string> = {
  'OSC 0 window title (BEL)': '\u001b]0;PWNED\u0007',
  'OSC 2 window title (ST)': '\u001b]2;PWNED\u001b\\',
  'CSI clear screen': '\u001b[2J\u001b[H',
  'SGR colours': '\u001b[31;1mred\u001b[0m',
  'cursor up + erase line': '\u001b[1A\u001b[2K',
  'OSC 8 hyperlink': '\u001b]8;;http://evil.example/\u0007click\u001b]8;;\u0007',
  'OSC 52 clipboard write': '\u001b]52;c;cm0gLXJmIH4=\u0007',
  'DCS sequence': '\u001bP+q544e\u001b\\',
  'C1 CSI (U+009B)': '\u009b2J',
  'C1 OSC (U+009D)': '\u009d0;PWNED\u009c',
  'carriage return overwrite': 'all good\rFAILED  ',
  backspaces: 'secret\b\b\b\b\b\b',
  'NUL and DEL': 'a\u0000b\u007f',
  'bidi override (Trojan Source)': 'user\u202eexe.txt',
  'bidi isolate': '\u2066admin\u2069',
  'vertical tab + form feed': 'x\u000b\u000cy',
  'line separator': 'one\u2028two',
};

const run = (args: string[], cwd: string) => runCli(args, cwd);

describe('escapeControl', () => {
  test('every corpus sequence comes out with no raw control character and a visible escape', () => {
    for (const [name, seq] of Object.entries(CORPUS)) {
      const safe = escapeControl(seq);
      assert.equal(hasControl(safe), false, name);
      assert.match(safe, /\\u00[0-9a-f]{2}|\\u20[0-9a-f]{2}/, name);
    }
  });

  test('keeps text, tabs and line feeds as they are', () => {
    const plain = 'Größe 42\tnavy «boots»\nnext line — 😀';
    assert.equal(escapeControl(plain), plain);
  });

  test('a JSON document printed through it parses to the same value', () => {
    const value = { id: 'x', texts: Object.values(CORPUS) };
    // JSON.stringify leaves DEL, C1 and bidi characters raw; the escape keeps the document valid.
    const printed = escapeControl(JSON.stringify(value));
    assert.equal(hasControl(printed), false);
    assert.deepEqual(JSON.parse(printed), value);
  });
});

describe('the CLI never prints raw control characters from data', () => {
  let dir = '';
  let cleanup = () => undefined as void;
  before(() => {
    ({ dir, cleanup } = tempDir('simlens-term-'));
    const lines = Object.values(CORPUS).map((seq, i) =>
      JSON.stringify({
        id: `c${i}-${seq}`,
        task_id: `footwear${seq}_good`,
        turns: [
          {
            user_utterance: `boots ${seq}`,
            assistant_utterance: `here ${seq}`,
            recommendations: [{ item_id: `I${seq}` }],
          },
        ],
      }),
    );
    // A line that is not JSON and starts with an escape, and one with a wrong type: both echoed in errors.
    lines.push('\u001b]0;PWNED\u0007 not json');
    lines.push(JSON.stringify({ id: 'bad\u001b[2J', turns: [{ user_utterance: 5 }] }));
    writeFileSync(join(dir, 'hostile.jsonl'), lines.join('\n') + '\n');
    writeFileSync(join(dir, 'title.json'), '\u001b]0;PWNED\u0007[{"conversation_id": "x"}]');
  });
  after(() => cleanup());

  const commands: string[][] = [
    ['validate', 'hostile.jsonl'],
    ['validate', 'hostile.jsonl', '--json'],
    ['stats', 'hostile.jsonl'],
    ['stats', 'hostile.jsonl', '--json'],
    ['convert', 'title.json', '-o', 'out.jsonl'],
    ['convert', 'hostile.jsonl', '-o', 'out2.jsonl'],
    ['validate', 'no-such-\u001b]0;PWNED\u0007.jsonl'],
    ['nope\u001b[2J'],
  ];
  for (const args of commands) {
    test(args.map((a) => escapeControl(a)).join(' '), async () => {
      const { out, err } = await run(args, dir);
      assert.ok(out.length + err.length > 0, 'the command printed something');
      assert.equal(
        hasControl(out),
        false,
        `stdout holds a raw control character: ${JSON.stringify(out.slice(0, 300))}`,
      );
      assert.equal(
        hasControl(err),
        false,
        `stderr holds a raw control character: ${JSON.stringify(err.slice(0, 300))}`,
      );
      if (args.includes('--json')) JSON.parse(out);
    });
  }

  test('a usage error prints one line and where to find help, not the whole help text', async () => {
    const { code, err } = await run(['stats', '--no-such-flag'], dir);
    assert.equal(code, 2);
    assert.deepEqual(err.trimEnd().split('\n').length, 2);
    assert.match(err, /Run 'simlens stats --help'/);
  });
});
