/**
 * The run manifest shows progress while the run goes on (reviewer's D8): its counts are refreshed
 * about once a second from the lines on disk, so a poll, Open Run or `merge` sees how far a live
 * (or killed) run got, and the JSONL stays byte-identical. The file remains the truth: resume
 * counts from it.
 */
import { test, describe, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Agent, AgentSession } from '../../../src/core/sim/types';
import {
  lineFailure,
  parseSimulationConfig,
  prepareEnvironment,
  runSimulation,
  type SimulationEnvironment,
} from '../../../src/core/run/index';
import { withFakeOpenAI } from '../../support/fakeOpenAI';
import { simulationScript } from '../../support/llmScripts';
import { runCli } from '../../support/cli';
import { scratchDir } from '../../support/scratch';

const REPO = path.resolve(__dirname, '../../..');
const dir = scratchDir('simlens-manifest-progress-');
const file = (name: string) => path.join(dir, name);
const CONFIG = { n: 48, seed: 21, catalog_size: 300, agent: 'local-good' } as const;

let env: SimulationEnvironment;
before(async () => {
  env = await prepareEnvironment(parseSimulationConfig(CONFIG));
});

/** local-good, slowed down by `delayMs` per answer, failing (agent_http) every conversation whose index is a multiple of 5. */
function slowFlakyAgent(delayMs: number): Agent {
  return {
    name: env.agent.name,
    condition: env.agent.condition,
    createSession(id, rng, ctx): AgentSession {
      const inner = env.agent.createSession(id, rng, ctx);
      const fails = Number(id.slice(-6)) % 5 === 0;
      return {
        async respond(u, h) {
          if (delayMs) await new Promise((r) => setTimeout(r, delayMs));
          return fails
            ? { utterance: '', recommendations: [], error: 'HTTP 503', error_kind: 'agent_http' }
            : inner.respond(u, h);
        },
      };
    },
  };
}

function readLines(name: string): unknown[] {
  const text = existsSync(file(name)) ? readFileSync(file(name), 'utf8') : '';
  return text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

describe('run manifest progress', () => {
  test('a live run refreshes its manifest with the counts of the lines on disk; the output does not change', async () => {
    const snapshots: {
      status: string;
      finished: number;
      failed: number;
      byReason: Record<string, number>;
      lines: unknown[];
    }[] = [];
    const run = runSimulation(CONFIG, {
      out: file('live.jsonl'),
      environment: { ...env, agent: slowFlakyAgent(30) },
      concurrency: 3,
      maxConsecutiveFailures: 0,
    });
    let done = false;
    void run.finally(() => (done = true));
    while (!done) {
      await new Promise((r) => setTimeout(r, 60));
      if (!existsSync(`${file('live.jsonl')}.manifest.json`)) continue;
      // Manifest first, then the file: the file can only have grown in between.
      const m = JSON.parse(readFileSync(`${file('live.jsonl')}.manifest.json`, 'utf8'));
      snapshots.push({
        status: m.status,
        finished: m.counts.finished,
        failed: m.counts.failed,
        byReason: m.counts.by_reason,
        lines: readLines('live.jsonl'),
      });
    }
    const { manifest } = await run;
    assert.equal(manifest.status, 'finished');
    const live = snapshots.filter((s) => s.status === 'running' && s.finished > 0 && s.finished < CONFIG.n);
    assert.ok(
      live.length >= 1,
      `a running manifest showed progress (snapshots: ${snapshots.map((s) => `${s.status}:${s.finished}`).join(' ')})`,
    );
    for (const s of snapshots) {
      assert.ok(s.finished <= s.lines.length, `manifest says ${s.finished}, file has ${s.lines.length}`);
      // The counts are those of the first `finished` lines (written in index order), not of conversations still in the buffer.
      const failed = s.lines.slice(0, s.finished).filter((l) => lineFailure(l) !== undefined).length;
      assert.equal(s.failed, failed);
      assert.deepEqual(s.byReason, failed ? { agent_http: failed } : {});
    }
    assert.deepEqual([manifest.counts.finished, manifest.counts.failed], [CONFIG.n, Math.ceil(CONFIG.n / 5)]);
    // Same bytes as a run without delays, one at a time.
    await runSimulation(CONFIG, {
      out: file('ref.jsonl'),
      environment: { ...env, agent: slowFlakyAgent(0) },
      concurrency: 1,
      maxConsecutiveFailures: 0,
    });
    assert.ok(readFileSync(file('live.jsonl')).equals(readFileSync(file('ref.jsonl'))));
  });

  test(
    'a killed run (SIGKILL) leaves a running manifest with its progress; resume completes it from the file',
    { timeout: 120_000 },
    async () => {
      await withFakeOpenAI(
        { latencyMs: 15, record: false, handler: simulationScript({ userTurns: 3 }) },
        async (fake) => {
          const args = [
            'simulate',
            '--user',
            'llm-prompted',
            '--agent',
            'local-good',
            '--base-url',
            fake.url,
            '--model',
            'fake-chat',
            '--no-cache',
            '--n',
            '150',
            '--seed',
            '4',
            '--concurrency',
            '3',
            '--catalog-size',
            '300',
            '--quiet',
            '--out',
            'kill.jsonl',
          ];
          const tsx = pathToFileURL(path.join(REPO, 'node_modules/tsx/dist/loader.mjs')).href;
          const child = spawn(process.execPath, ['--import', tsx, path.join(REPO, 'src/cli/cli.ts'), ...args], {
            cwd: dir,
            env: { ...process.env, SIMLENS_API_KEY: 'sk-test-0123456789' },
            stdio: 'ignore',
          });
          const exited = new Promise<void>((r) => child.on('exit', () => r()));
          const manifestFile = `${file('kill.jsonl')}.manifest.json`;
          const finishedInManifest = () =>
            existsSync(manifestFile) ? JSON.parse(readFileSync(manifestFile, 'utf8')).counts.finished : 0;
          const until = Date.now() + 60_000;
          while (finishedInManifest() < 10) {
            assert.ok(Date.now() < until, 'the manifest never showed progress');
            await new Promise((r) => setTimeout(r, 50));
          }
          child.kill('SIGKILL');
          await exited;
          const m = JSON.parse(readFileSync(manifestFile, 'utf8'));
          const kept = readLines('kill.jsonl').length;
          assert.equal(m.status, 'running');
          assert.ok(
            m.counts.finished >= 10 && m.counts.finished <= kept && kept < 150,
            `manifest ${m.counts.finished}, file ${kept}`,
          );
          const resumed = await runCli([...args, '--resume'], dir, { SIMLENS_API_KEY: 'sk-test-0123456789' });
          assert.equal(resumed.code, 0, resumed.err);
          assert.match(
            resumed.out,
            new RegExp(`finished: 150/150 conversations in kill\\.jsonl \\(${kept} from before\\)`),
          );
          const all = readLines('kill.jsonl') as { metadata: { index: number } }[];
          assert.deepEqual(
            all.map((c) => c.metadata.index),
            Array.from({ length: 150 }, (_, i) => i),
          );
        },
      );
    },
  );
});
