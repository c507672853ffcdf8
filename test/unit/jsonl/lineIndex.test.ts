import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { buildLineIndex, buildLineIndexFromBytes, forEachLine, type LineIndex } from '../../../src/core/jsonl';
import { createRng } from '../../../src/core/random';
import { referenceSplit, writeTemp, withTempDir } from './helpers';

function contents(bytes: Buffer, index: LineIndex): string[] {
  const out: string[] = [];
  for (let i = 0; i < index.lineCount; i++) out.push(bytes.subarray(index.start(i), index.end(i)).toString('latin1'));
  return out;
}

const CASES: [string, string, string[], boolean][] = [
  // [name, file bytes (latin1), expected contents, bom]
  ['empty file', '', [], false],
  ['one newline', '\n', [''], false],
  ['no final newline', 'a\nb', ['a', 'b'], false],
  ['final newline', 'a\nb\n', ['a', 'b'], false],
  ['nothing after final newline is a line', 'a\n\n', ['a', ''], false],
  ['CRLF', 'a\r\nb\r\n', ['a', 'b'], false],
  ['mixed endings', 'a\r\nb\nc\r\n', ['a', 'b', 'c'], false],
  ['lone final CR is an ending', 'a\nb\r', ['a', 'b'], false],
  ['CR inside a line stays', 'a\rb\n', ['a\rb'], false],
  ['blank lines', '\n\na\n\n', ['', '', 'a', ''], false],
  ['BOM', '\xef\xbb\xbfa\nb', ['a', 'b'], true],
  ['BOM only', '\xef\xbb\xbf', [], true],
  ['BOM and newline', '\xef\xbb\xbf\n', [''], true],
  ['BOM with CRLF', '\xef\xbb\xbf{}\r\n{}\r\n', ['{}', '{}'], true],
  ['partial BOM is content', '\xef\xbbx\n', ['\xef\xbbx'], false],
  ['CR only line', '\r\n\r\n', ['', ''], false],
];

describe('line index', () => {
  for (const [name, text, expected, bom] of CASES) {
    test(name, async () => {
      const bytes = Buffer.from(text, 'latin1');
      const mem = buildLineIndexFromBytes(bytes);
      assert.deepEqual(contents(bytes, mem), expected);
      assert.equal(mem.bom, bom);
      assert.equal(mem.lineCount, expected.length);
      await withTempDir(async (dir) => {
        const path = writeTemp(dir, 'f.jsonl', bytes);
        // Tiny chunks put every boundary (CR|LF, BOM bytes) across reads.
        for (const chunkSize of [1, 2, 3, 5, 1 << 20]) {
          const ix = await buildLineIndex(path, { chunkSize });
          assert.deepEqual(contents(bytes, ix), expected, `chunk ${chunkSize}`);
          assert.equal(ix.bom, bom);
          assert.equal(ix.size, bytes.length);
          const seen: string[] = [];
          const r = await forEachLine(path, (b) => void seen.push(b.toString('latin1')), {
            chunkSize: Math.max(chunkSize, 1),
          });
          assert.deepEqual(seen, expected, `forEachLine chunk ${chunkSize}`);
          assert.equal(r.bom, bom);
          assert.equal(r.lines, expected.length);
        }
      });
    });
  }

  test('random files agree with an independent reference splitter, across chunk sizes', async () => {
    const rng = createRng('line-index');
    await withTempDir(async (dir) => {
      for (let round = 0; round < 60; round++) {
        const parts: number[] = [];
        if (rng.chance(0.3)) parts.push(0xef, 0xbb, 0xbf);
        const len = rng.int(400);
        for (let k = 0; k < len; k++) parts.push(rng.pick([0x0a, 0x0d, 0x61, 0x7b, 0x7d, 0x0a, 0x62, 0xff, 0x00]));
        const bytes = Buffer.from(parts);
        const ref = referenceSplit(bytes);
        const path = writeTemp(dir, `r${round}.jsonl`, bytes);
        const ix = await buildLineIndex(path, { chunkSize: 1 + rng.int(17) });
        assert.equal(ix.bom, ref.bom);
        assert.equal(ix.lineCount, ref.lines.length, `round ${round}`);
        for (let i = 0; i < ix.lineCount; i++) {
          assert.deepEqual(bytes.subarray(ix.start(i), ix.end(i)), ref.lines[i].content, `round ${round} line ${i}`);
          assert.equal(ix.lineAt(ix.start(i)), ix.start(i) < ix.size ? i : -1);
        }
        const seen: Buffer[] = [];
        await forEachLine(path, (b) => void seen.push(Buffer.from(b)), { chunkSize: 16 + rng.int(20) });
        assert.deepEqual(
          seen,
          ref.lines.map((l) => l.content),
        );
      }
    });
  });

  test('lineAt maps byte offsets (including line endings) to lines', () => {
    const bytes = Buffer.from('ab\r\ncd\nef');
    const ix = buildLineIndexFromBytes(bytes);
    assert.deepEqual(
      [0, 1, 2, 3, 4, 5, 6, 7, 8].map((o) => ix.lineAt(o)),
      [0, 0, 0, 0, 1, 1, 1, 2, 2],
    );
    assert.equal(ix.lineAt(9), -1);
    assert.equal(ix.lineAt(-1), -1);
  });

  test('start/end reject out-of-range lines with a clear message', () => {
    const ix = buildLineIndexFromBytes(Buffer.from('a\nb\n'));
    assert.throws(() => ix.start(2), /line index 2 is out of range \(the file has 2 lines\)/);
    assert.throws(() => ix.end(-1), RangeError);
    assert.throws(() => ix.start(0.5), RangeError);
  });

  test('reports progress and records size and mtime', async () => {
    await withTempDir(async (dir) => {
      const path = writeTemp(dir, 'p.jsonl', 'x'.repeat(1000) + '\n');
      const progress: [number, number][] = [];
      const ix = await buildLineIndex(path, { chunkSize: 300, onProgress: (b, t) => progress.push([b, t]) });
      assert.deepEqual(progress, [
        [300, 1001],
        [600, 1001],
        [900, 1001],
        [1001, 1001],
      ]);
      assert.ok(ix.mtimeMs > 0);
      assert.equal(ix.size, 1001);
    });
  });

  test('an aborted signal stops the scan', async () => {
    await withTempDir(async (dir) => {
      const path = writeTemp(dir, 'a.jsonl', 'a\n'.repeat(1000));
      const ctl = new AbortController();
      const run = buildLineIndex(path, {
        chunkSize: 10,
        signal: ctl.signal,
        onProgress: (b) => b >= 100 && ctl.abort(),
      });
      await assert.rejects(run, (e: Error) => e.name === 'AbortError');
      await assert.rejects(
        forEachLine(path, () => undefined, { signal: AbortSignal.abort() }),
        (e: Error) => e.name === 'AbortError',
      );
    });
  });

  test('a missing file and a directory are I/O errors with codes', async () => {
    await withTempDir(async (dir) => {
      await assert.rejects(buildLineIndex(`${dir}/nope.jsonl`), { code: 'ENOENT' });
      await assert.rejects(buildLineIndex(dir), { code: 'EISDIR' });
    });
  });

  test('memory: offsets of 200k lines cost about 8 bytes per line', () => {
    const bytes = Buffer.from('{}\n'.repeat(200_000));
    const ix = buildLineIndexFromBytes(bytes);
    assert.equal(ix.lineCount, 200_000);
    assert.equal(ix.start(199_999), 599_997);
    assert.equal(ix.end(199_999), 599_999);
  });
});
