/**
 * SimLens on a real Slurm: a single-node cluster started on this machine (test/cluster/
 * slurmCluster.ts), an array job of 4 tasks running `simlens simulate` with no shard option (the
 * tasks read SLURM_ARRAY_TASK_ID), a merge job that depends on it (afterok), and the merged file
 * compared byte for byte with one process; then the same for `simlens judge` against the loopback
 * OpenAI-compatible server, its API key reaching the tasks through the environment only.
 *
 * Reduced size by default (what CI runs); SIMLENS_SLURM_FULL=1 runs 2,000 conversations and judges
 * 200. Without slurm-wlm and munge (`npm run setup` installs them) the suite skips on a developer
 * machine and fails in CI (CI=true).
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import * as esbuild from 'esbuild';
import { FakeOpenAI, type RecordedRequest } from '../support/fakeOpenAI';
import { judgeAnswer } from '../support/llmScripts';
import { FAKE_KEY } from '../support/llm';
import { SlurmCluster, missingSlurmPrograms } from './slurmCluster';

const ROOT = path.resolve(__dirname, '..', '..');
const DOCS = path.join(ROOT, 'docs', 'cluster', 'slurm');
const FULL = process.env.SIMLENS_SLURM_FULL === '1';
const SIM_N = FULL ? 2000 : 60;
const JUDGE_N = FULL ? 200 : 24;
const inCi = () => !!process.env.CI && process.env.CI !== 'false' && process.env.CI !== '0';

const missing = missingSlurmPrograms();
const skip = missing.length && !inCi() ? `Slurm missing (${missing.join(', ')}): run \`npm run setup\`` : false;

let cluster: SlurmCluster | undefined;
let fake: FakeOpenAI | undefined;
let work = '';
let cli = '';
const timings: Record<string, number> = {};

/** Answers that differ per conversation, so a misplaced line would show. */
function judgeByConversation(req: RecordedRequest) {
  const text = JSON.stringify(req.body);
  return {
    content: judgeAnswer({
      overall_agent_rating: 1 + (text.length % 5),
      overall_summary_explanation: `about ${text.length % 997}`,
    }),
  };
}

/** Runs the CLI as one process (asynchronously: the loopback server lives in this process). */
async function runCli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<void> {
  const child = spawn(process.execPath, [cli, ...args], {
    cwd: work,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
  const code = await new Promise<number | null>((r) => child.on('close', (c) => r(c)));
  clearTimeout(timer);
  assert.equal(code, 0, `simlens ${args.join(' ')}: ${stderr}`);
}

function jobLogs(): string {
  const dir = path.join(work, 'logs');
  if (!existsSync(dir)) return '';
  return readdirSync(dir)
    .map((f) => `--- ${f}\n${readFileSync(path.join(dir, f), 'utf8').slice(-1500)}`)
    .join('\n');
}

describe('Slurm array jobs', { skip }, () => {
  before(async () => {
    if (missing.length)
      throw new Error(
        `Slurm missing (${missing.join(', ')}): run \`npm run setup\` (CI=true: the Slurm suite must run here)`,
      );
    const t0 = Date.now();
    cluster = await SlurmCluster.start();
    timings.cluster_start_ms = Date.now() - t0;
    work = path.join(cluster.dir, 'work');
    mkdirSync(path.join(work, 'logs'), { recursive: true });
    // The CLI as one file for the jobs (not dist/, which other tests may be reading).
    const t1 = Date.now();
    cli = path.join(cluster.dir, 'simlens.js');
    await esbuild.build({
      entryPoints: [path.join(ROOT, 'src/cli/cli.ts')],
      outfile: cli,
      bundle: true,
      platform: 'node',
      target: 'node20',
      format: 'cjs',
      external: ['vscode', 'mocha', 'playwright-core'],
      logLevel: 'error',
    });
    timings.cli_bundle_ms = Date.now() - t1;
    fake = await FakeOpenAI.start({ handler: judgeByConversation });
  });

  after(async () => {
    await fake?.close();
    await cluster?.stop();
    if (Object.keys(timings).length)
      console.log(
        `slurm suite timings (${FULL ? 'full' : 'reduced'}: ${SIM_N} conversations, ${JUDGE_N} judged): ${JSON.stringify(timings)}`,
      );
  });

  /**
   * Submits a script of docs/cluster/slurm as an array of 4 tasks and docs' merge.sbatch depending
   * on it (afterok); waits for both. The settings reach the scripts through the environment.
   */
  async function arrayThenMerge(name: string, script: string, env: NodeJS.ProcessEnv): Promise<void> {
    const settings = { SIMLENS: `${process.execPath} ${cli}`, ...env };
    const t0 = Date.now();
    // The docs' resource requests are for real clusters: this node has 2 CPUs and 1000 MB.
    const fit = ['--cpus-per-task=1', '--mem=200M'];
    const array = cluster!.sbatch(
      [
        '--array=0-3',
        ...fit,
        '--chdir',
        work,
        '-o',
        path.join(work, 'logs', `${name}-%a.out`),
        path.join(DOCS, script),
      ],
      settings,
    );
    const merge = cluster!.sbatch(
      [
        '--dependency',
        `afterok:${array}`,
        '--kill-on-invalid-dep=yes',
        ...fit,
        '--chdir',
        work,
        '-o',
        path.join(work, 'logs', `${name}-merge.out`),
        path.join(DOCS, 'merge.sbatch'),
      ],
      settings,
    );
    const states = await cluster!.waitForJobs([array, merge], 90_000);
    timings[`${name}_jobs_ms`] = Date.now() - t0;
    assert.equal(states.length, 5, JSON.stringify(states));
    for (const s of states)
      assert.equal(
        `${s.id} ${s.state} ${s.exitCode}`,
        `${s.id} COMPLETED 0:0`,
        `${JSON.stringify(states)}\n${jobLogs()}`,
      );
  }

  test("simulate: docs' simulate.sbatch as 4 array tasks (no --shard), docs' merge.sbatch after it, byte-identical to one process", async () => {
    await arrayThenMerge('sim', 'simulate.sbatch', {
      N: String(SIM_N),
      SEED: '11',
      AGENT: 'local-good',
      OUT: 'sim/all.jsonl',
      SIMLENS_ARGS: '--catalog-size 300',
    });
    for (let i = 0; i < 4; i++) {
      const log = readFileSync(path.join(work, 'logs', `sim-${i}.out`), 'utf8');
      assert.match(
        log,
        new RegExp(
          `^shard ${i}/4 from the Slurm array \\(SLURM_ARRAY_TASK_ID=${i}, SLURM_ARRAY_TASK_COUNT=4\\) -> sim/all\\.part-000${i}-of-0004\\.jsonl`,
          'm',
        ),
        'each task says which shard it runs',
      );
    }
    assert.match(
      readFileSync(path.join(work, 'logs', 'sim-merge.out'), 'utf8'),
      new RegExp(`merged 4 parts \\(of 4 tasks\\) into sim/all\\.jsonl: ${SIM_N} conversations`),
    );
    const t0 = Date.now();
    await runCli([
      'simulate',
      '--n',
      String(SIM_N),
      '--seed',
      '11',
      '--agent',
      'local-good',
      '--concurrency',
      '2',
      '--catalog-size',
      '300',
      '--quiet',
      '--out',
      'one.jsonl',
    ]);
    timings.sim_one_process_ms = Date.now() - t0;
    const merged = readFileSync(path.join(work, 'sim', 'all.jsonl'));
    assert.equal(merged.toString().trim().split('\n').length, SIM_N);
    assert.ok(
      merged.equals(readFileSync(path.join(work, 'one.jsonl'))),
      'the merged file equals the one-process run byte for byte',
    );
    const manifest = JSON.parse(readFileSync(path.join(work, 'sim', 'all.jsonl.manifest.json'), 'utf8'));
    assert.deepEqual(manifest.tasks, { count: 4, finished: 4, missing: [], unfinished: [] });
    assert.deepEqual(
      manifest.parts.map((p: { shard_source: { engine: string; variables: Record<string, string> } }) => [
        p.shard_source.engine,
        p.shard_source.variables.SLURM_ARRAY_TASK_ID,
      ]),
      [
        ['slurm', '0'],
        ['slurm', '1'],
        ['slurm', '2'],
        ['slurm', '3'],
      ],
    );
  });

  test("judge: docs' judge.sbatch as 4 array tasks against the loopback OpenAI-compatible server, key from a file, byte-identical to one process", async () => {
    await runCli([
      'simulate',
      '--n',
      String(JUDGE_N),
      '--seed',
      '12',
      '--catalog-size',
      '300',
      '--quiet',
      '--out',
      'to-judge.jsonl',
    ]);
    // The key reaches the tasks through a file only the owner can read, as docs' judge.sbatch does.
    const keyFile = path.join(cluster!.dir, 'api-key');
    writeFileSync(keyFile, FAKE_KEY, { mode: 0o600 });
    await arrayThenMerge('judge', 'judge.sbatch', {
      IN: 'to-judge.jsonl',
      OUT: 'judged/all.jsonl',
      MODEL: 'm',
      SIMLENS_API_KEY_FILE: keyFile,
      SIMLENS_BASE_URL: fake!.url,
    });
    assert.equal(fake!.chatRequests.length, JUDGE_N, 'every conversation judged once, by the tasks');
    assert.ok(
      fake!.chatRequests.every((r) => r.headers.authorization === `Bearer ${FAKE_KEY}`),
      'the key reached the tasks',
    );
    // judge.sbatch waited for the endpoint with curl, the key on curl's standard input.
    assert.ok(
      fake!.requests.some(
        (r) => r.method === 'GET' && r.path.endsWith('/models') && r.headers.authorization === `Bearer ${FAKE_KEY}`,
      ),
      'the script checked the endpoint first',
    );
    const env = { SIMLENS_BASE_URL: fake!.url, SIMLENS_API_KEY: FAKE_KEY };
    const t0 = Date.now();
    await runCli(['judge', 'to-judge.jsonl', '--out', 'judged-one.jsonl', '--model', 'm', '--no-cache'], env);
    timings.judge_one_process_ms = Date.now() - t0;
    const merged = readFileSync(path.join(work, 'judged', 'all.jsonl'));
    assert.equal(
      merged
        .toString()
        .trim()
        .split('\n')
        .filter((l) => l.includes('"judge:m"')).length,
      JUDGE_N,
    );
    assert.ok(
      merged.equals(readFileSync(path.join(work, 'judged-one.jsonl'))),
      'the merged judged file equals the one-process run byte for byte',
    );
  });
});
