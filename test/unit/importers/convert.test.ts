/**
 * core's convertFile, the one conversion behind `simlens convert` and the editor's "Convert to
 * Conversation JSONL": a file output is written atomically (no temporary file left, an existing
 * target untouched when --strict cancels or the import fails), a sink gets the same text, output
 * I/O errors are told apart from input errors, and the editor and the CLI write the same bytes.
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { convertFile, OutputWriteError } from '../../../src/core/importers/convert';
import { ImportError } from '../../../src/core/importers';
import { createExporter } from '../../../src/core/export';
import { importSummary } from '../../../src/core/importers/summary';
import { escapeControl } from '../../../src/core/text/terminal';
import { convertToJsonl } from '../../../src/extension/editor/convert';
import { runCli } from '../../support/cli';
import { scratchDir } from '../../support/scratch';

const FIXTURES = join(__dirname, '..', '..', 'fixtures');
const REDIAL = join(FIXTURES, 'formats/redial/train_data.jsonl');
const DIALOGUEKIT = join(FIXTURES, 'datasets/dialoguekit-tests/annotated_dialogues.json');

const temps = (dir: string): string[] => readdirSync(dir).filter((n) => n.endsWith('.tmp'));

describe('convertFile: the one conversion path', () => {
  test('a file output holds one canonical conversation per line, and a sink gets the same text', async () => {
    const dir = scratchDir('simlens-core-convert-');
    const out = join(dir, 'out.jsonl');
    const r = await convertFile(DIALOGUEKIT, { file: out }, { origin: 'annotated_dialogues.json' });
    assert.equal(r.written, true);
    assert.equal(r.format, 'dialoguekit');
    assert.equal(r.count, 3);
    const text = readFileSync(out, 'utf8');
    assert.equal(text.split('\n').filter(Boolean).length, 3);
    assert.deepEqual(temps(dir), []);
    let streamed = '';
    const s = await convertFile(DIALOGUEKIT, { write: (t) => (streamed += t) }, { origin: 'x' });
    assert.equal(s.count, 3);
    assert.equal(streamed, text);
  });

  test('strict with warnings: nothing written, an existing target untouched, no temporary file', async () => {
    const dir = scratchDir('simlens-core-convert-');
    const out = join(dir, 'out.jsonl');
    writeFileSync(out, 'before\n');
    const r = await convertFile(REDIAL, { file: out }, { origin: 'train_data.jsonl', strict: true });
    assert.equal(r.written, false);
    assert.equal(r.warnings.length, 2);
    assert.equal(readFileSync(out, 'utf8'), 'before\n');
    assert.deepEqual(temps(dir), []);
    // Without strict the same input is written, its warnings returned.
    const w = await convertFile(REDIAL, { file: out }, { origin: 'train_data.jsonl' });
    assert.equal(w.written, true);
    assert.equal(w.count, 4);
    assert.equal(readFileSync(out, 'utf8').split('\n').filter(Boolean).length, 4);
    // A strict sink is not ended: a DialogueKit array stays unclosed, so the caller prints nothing.
    let streamed = '';
    const exporter = createExporter('dialoguekit');
    const s = await convertFile(REDIAL, { write: (t) => (streamed += t) }, { origin: 'x', strict: true, exporter });
    assert.equal(s.written, false);
    assert.ok(!streamed.trimEnd().endsWith(']'), streamed.slice(-40));
  });

  test('an import that fails leaves the target as it was; the error names the file', async () => {
    const dir = scratchDir('simlens-core-convert-');
    const input = join(dir, 'broken.json');
    writeFileSync(input, readFileSync(DIALOGUEKIT, 'utf8').slice(0, 400));
    const out = join(dir, 'out.jsonl');
    writeFileSync(out, 'before\n');
    await assert.rejects(
      convertFile(input, { file: out }, { origin: 'broken.json' }),
      (e: unknown) => e instanceof ImportError && /broken\.json/.test(e.message),
    );
    assert.equal(readFileSync(out, 'utf8'), 'before\n');
    assert.deepEqual(temps(dir), []);
  });

  test('an output that cannot be created is an OutputWriteError (not an input error)', async () => {
    const dir = scratchDir('simlens-core-convert-');
    await assert.rejects(
      convertFile(DIALOGUEKIT, { file: join(dir, 'no-such-folder', 'out.jsonl') }, { origin: 'x' }),
      (e: unknown) => e instanceof OutputWriteError && e.cause.code === 'ENOENT',
    );
    // A missing input is the input's error, as it is.
    await assert.rejects(
      convertFile(join(dir, 'missing.json'), { file: join(dir, 'out.jsonl') }, { origin: 'missing.json' }),
      (e: unknown) => !(e instanceof OutputWriteError),
    );
  });

  test('opened learns the temporary file while it exists', async () => {
    const dir = scratchDir('simlens-core-convert-');
    const seen: string[] = [];
    await convertFile(
      DIALOGUEKIT,
      { file: join(dir, 'out.jsonl') },
      { origin: 'x', opened: (tmp, fd) => seen.push(`${temps(dir).includes(tmp.split('/').pop()!)}:${fd >= 0}`) },
    );
    assert.deepEqual(seen, ['true:true']);
  });

  for (const [name, fixture] of [
    ['DialogueKit', DIALOGUEKIT],
    ['ReDial', REDIAL],
  ] as const) {
    test(`${name}: the editor's conversion and simlens convert write the same bytes`, async () => {
      const dir = scratchDir('simlens-core-convert-');
      const input = join(dir, fixture.split('/').pop()!);
      copyFileSync(fixture, input);
      const c = await convertToJsonl(input, 'in');
      const cli = await runCli(['convert', input, '-o', 'cli.jsonl'], dir);
      assert.equal(cli.code, 0, cli.err);
      assert.equal(readFileSync(c.target, 'utf8'), readFileSync(join(dir, 'cli.jsonl'), 'utf8'));
      assert.deepEqual(temps(dir), []);
    });
  }
});

describe('importSummary: untrusted text printed safely', () => {
  test('the origin, notes and warnings keep one line each, escaped as everything SimLens prints', () => {
    const evil = 'a\u001b]0;title\u0007b\u202Ec\u009bd\ne';
    const { text } = importSummary(evil, {
      format: 'redial',
      count: 1,
      warnings: [{ line: 3, path: 'messages[1].text', message: evil }],
      notes: [evil],
    });
    const lines = text.split('\n');
    const escaped = escapeControl(evil).replace(/\n/g, '\\n');
    assert.equal(lines[0], escaped);
    assert.ok(lines.includes(`  note: ${escaped}`), text);
    assert.ok(
      lines.some((l) => l.endsWith(`: ${escaped}`)),
      text,
    );
    // Nothing a terminal would act on is left: no C0/C1 control, no bidi override, no line break.
    // eslint-disable-next-line no-control-regex
    assert.doesNotMatch(text.replace(/\n/g, ''), /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
    assert.match(lines[0], /\\u202e/);
  });
});
