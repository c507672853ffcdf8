import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { JsonlFile, readFirstLines, validateFile } from '../../../src/core/jsonl';
import { convLine, writeTemp, withTempDir } from './helpers';

describe('JsonlFile', () => {
  test('random access to raw bytes, text and parsed lines (BOM, CRLF, blank, no final newline)', async () => {
    await withTempDir(async (dir) => {
      const l0 = convLine('a');
      const l2 = convLine('c', { note: 'café' });
      const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(`${l0}\r\n\r\n${l2}\n{"turns":5}`)]);
      const path = writeTemp(dir, 'f.jsonl', bytes);
      const file = await JsonlFile.open(path);
      try {
        assert.equal(file.path, path);
        assert.equal(file.index.lineCount, 4);
        assert.equal(file.index.bom, true);
        assert.equal((await file.readRaw(0)).toString(), l0);
        assert.equal(await file.readText(2), l2);
        assert.equal((await file.parseLine(1)).kind, 'blank');
        const p0 = await file.parseLine(0);
        assert.equal(p0.kind, 'valid');
        assert.equal(p0.line, 1);
        if (p0.kind === 'valid') assert.equal(p0.conversation.id, 'a');
        const p3 = await file.parseLine(3);
        assert.equal(p3.kind, 'invalid');
        if (p3.kind === 'invalid') assert.equal(p3.errors[0].line, 4);
        const batch = await file.readLines(0, 10);
        assert.deepEqual(
          batch.map((b) => b.toString()),
          [l0, '', l2, '{"turns":5}'],
        );
        assert.deepEqual(
          (await file.readLines(1, 2)).map((b) => b.toString()),
          ['', l2],
        );
        assert.deepEqual(await file.readLines(4, 2), []);
        await assert.rejects(file.readRaw(4), RangeError);
        assert.equal(await file.changedOnDisk(), false);
      } finally {
        await file.close();
      }
    });
  });

  test('lines of several MB are read whole', async () => {
    await withTempDir(async (dir) => {
      const big = 'é'.repeat(3 * 1024 * 1024); // 6 MiB of UTF-8
      const line = JSON.stringify({ turns: [{ user_utterance: big }] });
      const path = writeTemp(dir, 'big.jsonl', `${convLine('x')}\n${line}\n${convLine('y')}\n`);
      const file = await JsonlFile.open(path);
      try {
        const p = await file.parseLine(1);
        assert.equal(p.kind, 'valid');
        if (p.kind === 'valid') assert.equal(p.conversation.turns[0].user_utterance?.length, big.length);
        assert.equal((await file.parseLine(2)).kind, 'valid');
      } finally {
        await file.close();
      }
      const first = await readFirstLines(path, 2);
      assert.equal(first.length, 2);
      assert.equal(first[1].toString(), line);
      const report = await validateFile(path);
      assert.deepEqual([report.lines, report.conversations, report.invalid, report.errors.length], [3, 3, 0, 0]);
    });
  });

  test('changedOnDisk notices an edit made by someone else', async () => {
    await withTempDir(async (dir) => {
      const path = writeTemp(dir, 'c.jsonl', convLine('a') + '\n');
      const file = await JsonlFile.open(path);
      try {
        writeTemp(dir, 'c.jsonl', convLine('ab') + '\n');
        assert.equal(await file.changedOnDisk(), true);
      } finally {
        await file.close();
      }
    });
  });

  test('readFirstLines stops early and handles short files', async () => {
    await withTempDir(async (dir) => {
      const path = writeTemp(dir, 'r.jsonl', Array.from({ length: 1000 }, (_, i) => convLine(String(i))).join('\n'));
      const two = await readFirstLines(path, 2);
      assert.deepEqual(
        two.map((b) => JSON.parse(b.toString()).id),
        ['0', '1'],
      );
      assert.equal((await readFirstLines(path, 5000)).length, 1000);
      assert.deepEqual(await readFirstLines(path, 0), []);
    });
  });

  test('validateFile counts lines, conversations, blanks and invalid lines; reports progress', async () => {
    await withTempDir(async (dir) => {
      const path = writeTemp(dir, 'v.jsonl', `${convLine('a')}\n\n{"turns":1}\nnot json\n${convLine('b')}`);
      let last: [number, number] = [0, 0];
      const r = await validateFile(path, { onProgress: (d, t) => (last = [d, t]) });
      assert.deepEqual([r.lines, r.conversations, r.blank, r.invalid], [5, 2, 1, 2]);
      assert.deepEqual(
        r.errors.map((e) => e.line),
        [3, 4],
      );
      assert.deepEqual([r.errorCount, r.warningCount], [2, 0]);
      const capped = await validateFile(path, { maxErrors: 1 });
      assert.deepEqual([capped.errors.length, capped.errorCount, capped.invalid], [1, 2, 2]);
      assert.equal(last[0], last[1]);
      assert.equal(r.file, path);
    });
  });
});
