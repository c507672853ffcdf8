import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import {
  readdirSync,
  readFileSync,
  statSync,
  chmodSync,
  utimesSync,
  writeFileSync,
  symlinkSync,
  lstatSync,
} from 'node:fs';
import { join } from 'node:path';
import { buildLineIndex, FileChangedError, rewriteLines } from '../../../src/core/jsonl';
import { createRng, type Rng } from '../../../src/core/random';
import { convLine, referenceSplit, writeTemp, withTempDir } from './helpers';

/** A random JSONL-ish file: random line endings, optional BOM, blank lines, maybe no final newline. */
function randomFile(rng: Rng): Buffer {
  const parts: Buffer[] = [];
  if (rng.chance(0.3)) parts.push(Buffer.from([0xef, 0xbb, 0xbf]));
  const n = rng.int(30);
  const style = rng.int(3); // 0 LF, 1 CRLF, 2 mixed
  for (let i = 0; i < n; i++) {
    const kind = rng.int(6);
    let content: Buffer;
    if (kind === 0) content = Buffer.alloc(0);
    else if (kind === 1)
      content = Buffer.from([0x7b, 0xff, 0x00, 0x22]); // junk with invalid UTF-8 and NUL
    else if (kind === 2) content = Buffer.from('  {"turns": [] , "x":"é😀"}\t');
    else content = Buffer.from(convLine(`c${i}`, { n: rng.int(1000) }));
    parts.push(content);
    const last = i === n - 1;
    if (last && rng.chance(0.3)) break; // no final newline
    const crlf = style === 1 || (style === 2 && rng.chance(0.5));
    parts.push(Buffer.from(crlf ? '\r\n' : '\n'));
  }
  return Buffer.concat(parts);
}

describe('rewriteLines', () => {
  test('property: random edits to random lines leave every other byte identical', async () => {
    const rng = createRng('writer-property');
    await withTempDir(async (dir) => {
      for (let round = 0; round < 150; round++) {
        const original = randomFile(rng);
        const path = writeTemp(dir, `p${round}.jsonl`, original);
        const index = await buildLineIndex(path);
        const ref = referenceSplit(original);
        assert.equal(index.lineCount, ref.lines.length);
        const edits = new Map<number, string>();
        if (index.lineCount > 0) {
          const count = rng.int(Math.min(5, index.lineCount) + 1);
          for (let k = 0; k < count; k++) {
            const i = rng.int(index.lineCount);
            edits.set(i, rng.chance(0.2) ? '' : convLine(`edited-${round}-${i}`, { note: 'ünïcode ✓', r: rng.next() }));
          }
        }
        await rewriteLines(path, edits, { index });
        const after = readFileSync(path);
        const got = referenceSplit(after);
        assert.equal(got.bom, ref.bom, `round ${round}: BOM kept`);
        assert.equal(
          got.lines.length,
          ref.lines.length - (edits.size > 0 && ref.lines.length > 0 && isDroppedLastBlank(ref, edits) ? 1 : 0),
          `round ${round}: line count`,
        );
        for (let i = 0; i < ref.lines.length; i++) {
          if (i >= got.lines.length) break;
          assert.deepEqual(got.lines[i].ending, ref.lines[i].ending, `round ${round} line ${i}: ending kept`);
          if (edits.has(i))
            assert.equal(got.lines[i].content.toString('utf8'), edits.get(i), `round ${round} line ${i}: replaced`);
          else
            assert.deepEqual(got.lines[i].content, ref.lines[i].content, `round ${round} line ${i}: untouched bytes`);
        }
        // Untouched lines are byte-identical, and the bytes outside lines are too: rebuild the file.
        const rebuilt = Buffer.concat([
          ref.bom ? Buffer.from([0xef, 0xbb, 0xbf]) : Buffer.alloc(0),
          ...ref.lines.flatMap((l, i) => [edits.has(i) ? Buffer.from(edits.get(i)!, 'utf8') : l.content, l.ending]),
        ]);
        assert.deepEqual(after, rebuilt, `round ${round}: whole file`);
      }
      assert.deepEqual(
        readdirSync(dir).filter((f) => f.endsWith('.tmp')),
        [],
        'no temp files left',
      );
    });
  });

  test('no edits: the file is rewritten byte for byte', async () => {
    await withTempDir(async (dir) => {
      const bytes = Buffer.from('\xef\xbb\xbf{"turns":[]}\r\n\n{"turns":[]}', 'latin1');
      const path = writeTemp(dir, 'same.jsonl', bytes);
      await rewriteLines(path, new Map());
      assert.deepEqual(readFileSync(path), bytes);
    });
  });

  test('refuses a file that changed on disk since it was indexed, and leaves it alone', async () => {
    await withTempDir(async (dir) => {
      const path = writeTemp(dir, 'c.jsonl', `${convLine('a')}\n${convLine('b')}\n`);
      const index = await buildLineIndex(path);
      const changed = `${convLine('a')}\n${convLine('B')}\n`; // same size, different bytes and mtime
      writeFileSync(path, changed);
      utimesSync(path, new Date(), new Date(Date.now() + 5000));
      await assert.rejects(
        rewriteLines(path, new Map([[0, convLine('z')]]), { index }),
        (e: Error) => e instanceof FileChangedError && /changed on disk/.test(e.message),
      );
      assert.equal(readFileSync(path, 'utf8'), changed);
      // A different size is refused too.
      writeFileSync(path, changed + '\n');
      await assert.rejects(rewriteLines(path, new Map([[0, convLine('z')]]), { index }), FileChangedError);
      assert.deepEqual(
        readdirSync(dir).filter((f) => f.endsWith('.tmp')),
        [],
      );
    });
  });

  test('outPath leaves the source untouched; mode and symlinks are respected', async () => {
    await withTempDir(async (dir) => {
      const src = `${convLine('a')}\n${convLine('b')}\n`;
      const path = writeTemp(dir, 's.jsonl', src);
      chmodSync(path, 0o640);
      const out = join(dir, 'out.jsonl');
      await rewriteLines(path, new Map([[1, '{"turns":[]}']]), { outPath: out });
      assert.equal(readFileSync(path, 'utf8'), src);
      assert.equal(readFileSync(out, 'utf8'), `${convLine('a')}\n{"turns":[]}\n`);
      await rewriteLines(path, new Map([[0, '{"turns":[]}']]));
      assert.equal(statSync(path).mode & 0o777, 0o640);
      const link = join(dir, 'link.jsonl');
      symlinkSync(path, link);
      await rewriteLines(link, new Map([[1, '{"turns":[1]}']]));
      assert.ok(lstatSync(link).isSymbolicLink(), 'the link is still a link');
      assert.equal(readFileSync(path, 'utf8'), '{"turns":[]}\n{"turns":[1]}\n');
    });
  });

  test('rejects out-of-range lines and replacements with line breaks', async () => {
    await withTempDir(async (dir) => {
      const path = writeTemp(dir, 'r.jsonl', `${convLine('a')}\n`);
      await assert.rejects(rewriteLines(path, new Map([[1, '{}']])), /cannot replace line 2: the file has 1 lines/);
      await assert.rejects(rewriteLines(path, new Map([[0, '{}\n{}']])), /contains a line break/);
      await assert.rejects(rewriteLines(path, new Map([[0, '{}\r']])), /contains a line break/);
    });
  });
});

/** Replacing the unterminated last line with "" makes it disappear under the line model (nothing after a final "\n"). */
function isDroppedLastBlank(ref: ReturnType<typeof referenceSplit>, edits: Map<number, string>): boolean {
  const last = ref.lines.length - 1;
  return edits.get(last) === '' && ref.lines[last].ending.length === 0;
}
