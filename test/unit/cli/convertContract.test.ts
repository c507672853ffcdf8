/**
 * `simlens convert`'s contract (issue 26): an existing OUT is replaced only with --force (as
 * simulate), --strict fails on any warning and writes nothing, a cut-off last line (a truncated
 * JSONL or TSV file) is reported, a broken line in the middle is named by its line (not "end of the
 * file"), an empty file gets no --from hint, a per-field count of the warnings is printed, repeated
 * warnings of one kind are printed once with their count, and an interrupted run (SIGINT, SIGTERM)
 * leaves no temporary file behind.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { runCli } from '../../support/cli';
import { tempDir } from '../jsonl/helpers';

const REPO = resolve(__dirname, '../../..');
let dir = '';
let cleanup = (): void => undefined;
before(() => {
  ({ dir, cleanup } = tempDir('simlens-convert-contract-'));
});
after(() => cleanup());

const run = (args: string[]) => runCli(args, dir);
const line = (id: string) =>
  JSON.stringify({ id, turns: [{ user_utterance: `hi from ${id}`, assistant_utterance: 'hello' }] });

describe('convert: overwrite, strict, truncation, messages', () => {
  test('an existing OUT is refused without --force (exit 2, file unchanged), replaced with it', async () => {
    writeFileSync(join(dir, 'in.jsonl'), line('a') + '\n');
    writeFileSync(join(dir, 'out.jsonl'), 'precious\n');
    const r = await run(['convert', 'in.jsonl', '-o', 'out.jsonl']);
    assert.equal(r.code, 2, r.err);
    assert.match(r.err, /simlens convert: out\.jsonl already exists; use --force to replace it/);
    assert.equal(readFileSync(join(dir, 'out.jsonl'), 'utf8'), 'precious\n');
    const f = await run(['convert', 'in.jsonl', '-o', 'out.jsonl', '--force']);
    assert.equal(f.code, 0, f.err);
    assert.equal(readFileSync(join(dir, 'out.jsonl'), 'utf8'), line('a') + '\n');
  });

  test('a missing input: exit 2, a clean message naming the file', async () => {
    const r = await run(['convert', 'nope.jsonl', '-o', 'x.jsonl']);
    assert.equal(r.code, 2);
    assert.match(r.err, /nope\.jsonl/);
    assert.doesNotMatch(r.err, /ENOENT|at .*\.ts:\d+/);
  });

  test('a truncated JSONL file: a warning saying so (exit 0); --strict: exit 1 and OUT not written', async () => {
    writeFileSync(join(dir, 'cut.jsonl'), `${line('a')}\n${line('b')}\n${line('c').slice(0, 30)}`);
    const r = await run(['convert', 'cut.jsonl', '-o', 'cut.out.jsonl']);
    assert.equal(r.code, 0, r.err);
    assert.match(r.err, /cut\.jsonl:3: invalid JSON at column \d+: .*the file looks truncated\); line skipped/);
    assert.match(r.err, /warnings by field: \(whole line or row\) 1/);
    const s = await run(['convert', 'cut.jsonl', '-o', 'cut.strict.jsonl', '--strict']);
    assert.equal(s.code, 1, s.err);
    assert.match(s.err, /1 problem under --strict; cut\.strict\.jsonl was not written/);
    assert.equal(existsSync(join(dir, 'cut.strict.jsonl')), false);
    assert.deepEqual(
      readdirSync(dir).filter((n) => n.endsWith('.tmp')),
      [],
    );
  });

  test('a truncated INSPIRED TSV: the cut-off row is reported as truncated', async () => {
    const header = 'dialog_id\tutt_id\tspeaker\ttext';
    writeFileSync(join(dir, 'cut.tsv'), `${header}\nd1\t1\tSEEKER\thello\nd1\t2\tRECOMMENDER`);
    const r = await run(['convert', 'cut.tsv', '-o', 'cut.tsv.jsonl']);
    assert.equal(r.code, 0, r.err);
    assert.match(r.err, /cut\.tsv:3: .*the file looks truncated\); row skipped/);
    const s = await run(['convert', 'cut.tsv', '-o', 'cut.tsv.strict.jsonl', '--strict']);
    assert.equal(s.code, 1);
  });

  test('a broken line in the middle is named by its line and speaks of the line, not the end of the file', async () => {
    writeFileSync(join(dir, 'mid.jsonl'), `${line('a')}\n{"id": "b", "turns": [\n${line('c')}\n`);
    const r = await run(['convert', 'mid.jsonl', '-o', 'mid.out.jsonl']);
    assert.equal(r.code, 0, r.err);
    assert.match(r.err, /mid\.jsonl:2: invalid JSON at column 23: /);
    assert.doesNotMatch(r.err, /end of the file|truncated/);
  });

  test('an empty file: no --from hint', async () => {
    writeFileSync(join(dir, 'empty.jsonl'), '');
    const r = await run(['convert', 'empty.jsonl', '-o', 'empty.out.jsonl']);
    assert.equal(r.code, 1);
    assert.match(r.err, /empty\.jsonl: the file is empty: there is nothing to convert/);
    assert.doesNotMatch(r.err, /--from/);
  });

  test('re-importing exported DialogueKit: one warning per kind with its count, not one per dialogue', async () => {
    // As a ReDial import writes them: SimLens's own metadata keys, which a re-import must rename.
    const withMeta = (id: string) =>
      JSON.stringify({ ...JSON.parse(line(id)), metadata: { format: 'redial', utterances: 2, speaker_changes: 1 } });
    const many = Array.from({ length: 40 }, (_, k) => withMeta(`c${k}`)).join('\n') + '\n';
    writeFileSync(join(dir, 'many.jsonl'), many);
    assert.equal((await run(['convert', 'many.jsonl', '--to', 'dialoguekit', '-o', 'many.dk.json'])).code, 0);
    const r = await run(['convert', 'many.dk.json', '-o', 'many.back.jsonl']);
    assert.equal(r.code, 0, r.err);
    const warnings = r.err.split('\n').filter((l) => l.startsWith('warning:'));
    assert.equal(warnings.length, 3, warnings.join('\n'));
    for (const w of warnings) assert.match(w, /\(40 times in all: at /);
    assert.match(r.out, /40 conversations written/);
  });
});

describe('convert: an interrupted run leaves no temporary file', () => {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    test(`${signal}: the temporary file is removed, OUT not created, exit ${signal === 'SIGINT' ? 130 : 143}`, async () => {
      const input = join(dir, `big-${signal}.jsonl`);
      const one = line('x').replace('"x"', '"ID"');
      const chunk: string[] = [];
      for (let k = 0; k < 300_000; k++) chunk.push(one.replace('ID', String(k)));
      writeFileSync(input, chunk.join('\n') + '\n');
      const out = `big-${signal}.out.jsonl`;
      const tsx = pathToFileURL(join(REPO, 'node_modules/tsx/dist/loader.mjs')).href;
      const child = spawn(
        process.execPath,
        ['--import', tsx, join(REPO, 'src/cli/cli.ts'), 'convert', input, '-o', out],
        { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let err = '';
      child.stderr.on('data', (d) => (err += d));
      const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
      const temps = (): string[] => readdirSync(dir).filter((n) => n.startsWith(`.${out}.`) && n.endsWith('.tmp'));
      // Wait until the temporary file exists (the conversion is under way), then interrupt.
      const deadline = Date.now() + 60_000;
      while (temps().length === 0) {
        assert.ok(Date.now() < deadline, `no temporary file appeared; stderr: ${err}`);
        assert.equal(child.exitCode, null, `the conversion ended before it could be interrupted: ${err}`);
        await new Promise((r) => setTimeout(r, 10));
      }
      child.kill(signal);
      const code = await exited;
      assert.equal(code, signal === 'SIGINT' ? 130 : 143, err);
      assert.deepEqual(temps(), []);
      assert.equal(existsSync(join(dir, out)), false);
    });
  }
});
