/**
 * Every example in every command's --help runs as written (issue 26): the lines of each command's
 * "Example(s):" section are run in order as one bash script (-e, pipefail) from a copy of the
 * repository (its top-level entries linked into a fresh folder, so files the examples write stay out
 * of the checkout), with `simlens` on PATH (the built CLI, dist/cli.js) and the LLM endpoint pointed
 * at a loopback OpenAI-compatible server through $SIMLENS_BASE_URL, as test/unit/docs/examples.test.ts
 * does for the documentation. Lines in other sections (e.g. a cluster submission) are text, not examples.
 * The commands run side by side (four at a time, each in its own copy; one command's lines stay in
 * order): one after another, this file was the test run's longest (315 s wall for 61 CPU s at load 9),
 * waiting on one CLI process at a time.
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
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { COMMANDS } from '../../../src/cli/commands/index';
import { FakeOpenAI } from '../../support/fakeOpenAI';
import { simulationScript } from '../../support/llmScripts';

const REPO = resolve(__dirname, '../../..');
const CLI = join(REPO, 'dist', 'cli.js');

/** The example lines of a help text: the indented lines after "Example:" or "Examples:". */
export function helpExamples(help: string): string[] {
  const lines = help.split('\n');
  const start = lines.findIndex((l) => /^Examples?:\s*$/.test(l));
  if (start === -1) return [];
  const out: string[] = [];
  for (const l of lines.slice(start + 1)) {
    if (!/^ {2}\S/.test(l)) break;
    out.push(l.trim());
  }
  return out;
}

let fake: FakeOpenAI;
before(async () => {
  assert.ok(existsSync(CLI), `${CLI} is missing: run npm run build first (npm test does)`);
  fake = await FakeOpenAI.start({ handler: simulationScript() });
});
after(async () => {
  await fake?.close();
});

describe('help examples run as written', { concurrency: 4 }, () => {
  test('every command has examples', () => {
    assert.deepEqual(
      COMMANDS.filter((c) => helpExamples(c.help).length === 0).map((c) => c.name),
      [],
    );
  });
  for (const command of COMMANDS) {
    const examples = helpExamples(command.help);
    if (examples.length === 0) continue;
    test(
      `simlens ${command.name} --help: ${examples.length} example${examples.length === 1 ? '' : 's'}`,
      // The limit only stops a hung example (as in test/unit/docs/examples.test.ts): the ten
      // `simulate` examples took over 300 s at load 20-26 (2026-11-28), beside the E2E lanes.
      { timeout: 600_000 },
      async () => {
        const work = mkdtempSync(join(tmpdir(), `simlens-help-${command.name}-`));
        try {
          const root = join(work, 'repo');
          mkdirSync(root);
          for (const entry of readdirSync(REPO))
            if (entry !== '.git') symlinkSync(join(REPO, entry), join(root, entry));
          const bin = join(work, 'bin');
          mkdirSync(bin);
          writeFileSync(join(bin, 'simlens'), `#!/bin/sh\nexec "${process.execPath}" "${CLI}" "$@"\n`);
          chmodSync(join(bin, 'simlens'), 0o755);
          // Each line is echoed first, so a failure names the example.
          const script = examples
            .map((l) => `echo ${JSON.stringify(`$ ${l}`).replace(/\$/g, '\\$')} >&2\n${l}`)
            .join('\n');
          const child = spawn('bash', ['-e', '-o', 'pipefail', '-c', script], {
            cwd: root,
            env: {
              ...process.env,
              PATH: `${bin}:${process.env.PATH ?? ''}`,
              SIMLENS_BASE_URL: fake.url,
              SIMLENS_API_KEY: 'sk-help-example',
            },
            stdio: ['ignore', 'pipe', 'pipe'],
          });
          let stdout = '';
          let stderr = '';
          child.stdout.on('data', (d: Buffer) => (stdout = (stdout + d.toString()).slice(-3000)));
          child.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
          const code = await new Promise<number | string>((r) => child.on('close', (c, sig) => r(c ?? String(sig))));
          assert.equal(
            code,
            0,
            `an example of simlens ${command.name} exited ${code}\n--- stdout ---\n${stdout}\n--- stderr ---\n${stderr}`,
          );
        } finally {
          rmSync(work, { recursive: true, force: true });
        }
      },
    );
  }
});
