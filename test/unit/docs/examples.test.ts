/**
 * Every shell example in the documentation runs as written. The ```bash and ```sh blocks of
 * README.md and docs/**\/*.md are executed, each file's in order and the files side by side, from a copy of the
 * repository root (its top-level entries linked into a fresh folder, so files the examples create
 * stay out of the checkout), with `simlens` on PATH (the built CLI, dist/cli.js) and the LLM
 * endpoint pointed at a loopback OpenAI-compatible server through $SIMLENS_BASE_URL (the variable a
 * user sets for a local vLLM or Ollama), so examples that name LLM users or judges work without a
 * key or network. A block must exit 0.
 *
 * And it must print what the docs say it prints: a ```text output block (info string `text output`;
 * renderers show it as plain text) after a shell block holds lines of that block's output, stdout and
 * stderr together as a terminal shows them. Its lines must appear in the output as consecutive lines;
 * a line that is only `…` skips any number of lines, and `…` inside a line stands for any text (a
 * shortened path, a table cut short). Rates (`38.6/s`), times (`9.7 s`, `120 ms`), time stamps and the
 * example's working folder are normalised on both sides, so the docs can show the figures a reader
 * sees. No block is run twice for this: the output block is checked against the run the example
 * already makes.
 *
 * ```console blocks are shown, not run: the quick start (`node scripts/demo.mjs`, `npm test`: CI runs
 * those itself) and cluster submissions (`sbatch`, `kubectl`: the Slurm suite runs the scripts).
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { FakeOpenAI } from '../../support/fakeOpenAI';
import { simulationScript } from '../../support/llmScripts';
import { missingOutput, shellBlocks } from './blocks';

const REPO = resolve(__dirname, '../../..');
const CLI = join(REPO, 'dist', 'cli.js');

function markdownFiles(): string[] {
  const out = [join(REPO, 'README.md')];
  const walk = (dir: string) => {
    if (!existsSync(dir)) return;
    for (const name of readdirSync(dir).sort()) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (name.endsWith('.md')) out.push(p);
    }
  };
  walk(join(REPO, 'docs'));
  return out;
}

const docs = markdownFiles().filter((f) => shellBlocks(readFileSync(f, 'utf8')).length > 0);

let fake: FakeOpenAI;
before(async () => {
  assert.ok(existsSync(CLI), `${CLI} is missing: run npm run build first (npm test does)`);
  fake = await FakeOpenAI.start({ handler: simulationScript() });
});
after(async () => {
  await fake?.close();
});

// The documents run side by side (each in its own copy of the repository, its blocks in order):
// most of the time goes to CLI processes and waits on the loopback LLM server, not to this process.
describe('shell examples', { concurrency: true }, () => {
  for (const doc of docs) {
    const name = relative(REPO, doc);
    // Its blocks one after another (a suite inherits its parent's concurrency: without this, the
    // blocks of one document ran at once, and docs/metrics.md's blocks at lines 36 and 222, both
    // writing human.jsonl, failed with "already exists" in whichever order the load gave them).
    describe(`shell examples in ${name}`, { concurrency: 1 }, () => {
      let work = '';
      before(() => {
        work = mkdtempSync(join(tmpdir(), 'simlens-docs-'));
        const root = join(work, 'repo');
        mkdirSync(root);
        for (const entry of readdirSync(REPO)) {
          if (entry === '.git') continue;
          symlinkSync(join(REPO, entry), join(root, entry));
        }
        const bin = join(work, 'bin');
        mkdirSync(bin);
        writeFileSync(join(bin, 'simlens'), `#!/bin/sh\nexec "${process.execPath}" "${CLI}" "$@"\n`);
        chmodSync(join(bin, 'simlens'), 0o755);
      });
      after(() => rmSync(work, { recursive: true, force: true }));

      for (const block of shellBlocks(readFileSync(doc, 'utf8'))) {
        const first = block.code.split('\n').find((l) => l.trim() && !l.trim().startsWith('#')) ?? '';
        // The limits only stop a hung example: the documents run side by side, on a busy machine too.
        test(`${name}:${block.line}: ${first.slice(0, 70)}`, { timeout: 600_000 }, async () => {
          // Asynchronous on purpose: the loopback LLM server lives in this process and must keep answering.
          const child = spawn('bash', ['-e', '-o', 'pipefail', '-c', `exec 2>&1\n${block.code}`], {
            cwd: join(work, 'repo'),
            env: {
              ...process.env,
              PATH: `${join(work, 'bin')}:${process.env.PATH ?? ''}`,
              SIMLENS_BASE_URL: fake.url,
              SIMLENS_API_KEY: 'sk-docs-example',
            },
            stdio: ['ignore', 'pipe', 'pipe'],
          });
          // stdout and stderr in one stream, in the order a terminal shows them (the CLI writes both
          // synchronously to pipes), for the output blocks; the whole of it is kept only for those.
          const keep = block.expected.length > 0 ? Infinity : 6000;
          let output = '';
          const add = (d: string) => {
            output += d;
            if (output.length > keep) output = output.slice(-keep);
          };
          child.stdout.setEncoding('utf8').on('data', add);
          child.stderr.setEncoding('utf8').on('data', add);
          const timer = setTimeout(() => child.kill('SIGKILL'), 590_000);
          const code = await new Promise<number | string>((resolveExit) =>
            child.on('close', (c, sig) => resolveExit(c ?? String(sig))),
          );
          clearTimeout(timer);
          assert.equal(
            code,
            0,
            `the example at ${name}:${block.line} exited ${code}\n--- output ---\n${output.slice(-5000)}`,
          );
          for (const expected of block.expected) {
            // The folder as the CLI prints it (cwd is the real path when tmpdir() is a link, as on macOS).
            const missing = missingOutput(output, expected.lines, realpathSync(join(work, 'repo')));
            assert.equal(
              missing,
              undefined,
              `${name}:${expected.line}: the output block does not match what the example at ${name}:${block.line} printed: ${missing}\n--- output ---\n${output.slice(-8000)}`,
            );
          }
        });
      }
    });
  }
});

describe('links between the docs', () => {
  for (const doc of markdownFiles()) {
    test(`every relative link in ${relative(REPO, doc)} points at a file of the repository`, () => {
      const text = readFileSync(doc, 'utf8').replace(/```[\s\S]*?```/g, '');
      const broken: string[] = [];
      for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = m[1];
        if (/^(https?:|mailto:|#|command:)/.test(target)) continue;
        const path = resolve(join(doc, '..'), decodeURIComponent(target.split('#')[0]));
        if (!existsSync(path)) broken.push(target);
      }
      assert.deepEqual(broken, [], `broken links in ${relative(REPO, doc)}`);
    });
  }
});
