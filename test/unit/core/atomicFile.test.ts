import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync, writeFileSync, chmodSync } from 'node:fs';
import { join } from 'node:path';
import { writeAtomic, writeAtomicSync, writeFileAtomic, writeFileAtomicSync } from '../../../src/core/atomicFile';
import { scratchDir } from '../../support/scratch';

const temps = (dir: string): string[] => readdirSync(dir).filter((n) => n.endsWith('.tmp'));

/** A file in a fresh scratch folder, with `content` when given. */
function scratchFile(name: string, content?: string): { dir: string; file: string } {
  const dir = scratchDir('simlens-atomic-');
  const file = join(dir, name);
  if (content !== undefined) writeFileSync(file, content);
  return { dir, file };
}

test('writeFileAtomic writes text, bytes and chunks larger than one write, and leaves no temporary file', async () => {
  const { dir, file } = scratchFile('out.jsonl');
  await writeFileAtomic(file, 'a\n');
  assert.equal(readFileSync(file, 'utf8'), 'a\n');
  await writeFileAtomic(file, Buffer.from([0xef, 0xbb, 0xbf, 0x7b, 0x7d]));
  assert.deepEqual([...readFileSync(file)], [0xef, 0xbb, 0xbf, 0x7b, 0x7d]);
  const rows = Array.from({ length: 3000 }, (_, i) => `${'é'.repeat(400)} ${i}\n`);
  await writeFileAtomic(file, rows);
  assert.equal(readFileSync(file, 'utf8'), rows.join(''));
  await writeFileAtomic(file, []);
  assert.equal(readFileSync(file, 'utf8'), '');
  writeFileAtomicSync(file, 'sync é\n');
  assert.equal(readFileSync(file, 'utf8'), 'sync é\n');
  assert.deepEqual(temps(dir), []);
});

test('a failing write, or a beforeRename that throws, leaves the target as it was and no temporary file', async () => {
  const { dir, file } = scratchFile('keep.json', 'old');
  await assert.rejects(
    writeAtomic(file, async (h) => {
      await h.writeFile('half');
      throw new Error('disk full');
    }),
    /disk full/,
  );
  await assert.rejects(
    writeAtomic(
      file,
      async (h) => {
        await h.writeFile('new');
      },
      {
        beforeRename: async () => {
          throw new Error('changed on disk');
        },
      },
    ),
    /changed on disk/,
  );
  assert.throws(
    () =>
      writeAtomicSync(file, () => {
        throw new Error('sync failure');
      }),
    /sync failure/,
  );
  await assert.rejects(writeFileAtomic(join(dir, 'no-such-folder', 'x'), 'y'), /ENOENT/);
  assert.equal(readFileSync(file, 'utf8'), 'old');
  assert.deepEqual(temps(dir), []);
});

test('the new file takes the given mode (a saved file keeps its permissions)', async () => {
  const { file } = scratchFile('mode.jsonl', 'x');
  chmodSync(file, 0o600);
  await writeAtomic(
    file,
    async (h) => {
      await h.writeFile('y');
    },
    { mode: statSync(file).mode & 0o777 },
  );
  assert.equal(statSync(file).mode & 0o777, 0o600);
  assert.equal(readFileSync(file, 'utf8'), 'y');
});
