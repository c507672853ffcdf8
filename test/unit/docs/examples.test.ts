/**
 * Every shell example in the documentation runs as written. The ```bash and ```sh blocks of
 * README.md and docs/**\/*.md are executed, each file's in order and the files side by side, from a copy of the
 * repository root (its top-level entries linked into a fresh folder, so files the examples create
 * stay out of the checkout), with `simlens` on PATH (the built CLI, dist/cli.js) and the LLM
 * endpoint pointed at a loopback OpenAI-compatible server through $SIMLENS_BASE_URL (the variable a
 * user sets for a local vLLM or Ollama), so examples that name LLM users or judges work without a
 * key or network. A block must exit 0.
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
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { FakeOpenAI } from '../../support/fakeOpenAI';
import { simulationScript } from '../../support/llmScripts';

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

interface Block {
  line: number;
  code: string;
}

/** The runnable shell blocks of a Markdown text: fences whose info string is `bash` or `sh`. */
export function shellBlocks(markdown: string): Block[] {
  const blocks: Block[] = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,}|~{3,})\s*(\S*)/.exec(lines[i]);
    if (!open) continue;
    const fence = open[2];
    const info = open[3].toLowerCase();
    let j = i + 1;
    while (j < lines.length && !lines[j].trimStart().startsWith(fence)) j++;
    if (info === 'bash' || info === 'sh') blocks.push({ line: i + 1, code: lines.slice(i + 1, j).join('\n') });
    i = j;
  }
  return blocks;
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
          const child = spawn('bash', ['-e', '-o', 'pipefail', '-c', block.code], {
            cwd: join(work, 'repo'),
            env: {
              ...process.env,
              PATH: `${join(work, 'bin')}:${process.env.PATH ?? ''}`,
              SIMLENS_BASE_URL: fake.url,
              SIMLENS_API_KEY: 'sk-docs-example',
            },
            stdio: ['ignore', 'pipe', 'pipe'],
          });
          let stdout = '';
          let stderr = '';
          child.stdout.on('data', (d: Buffer) => (stdout = (stdout + d.toString()).slice(-4000)));
          child.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
          const timer = setTimeout(() => child.kill('SIGKILL'), 590_000);
          const code = await new Promise<number | string>((resolveExit) =>
            child.on('close', (c, sig) => resolveExit(c ?? String(sig))),
          );
          clearTimeout(timer);
          assert.equal(
            code,
            0,
            `the example at ${name}:${block.line} exited ${code}\n--- stdout ---\n${stdout.slice(-2000)}\n--- stderr ---\n${stderr.slice(-3000)}`,
          );
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
