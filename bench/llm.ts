/**
 * LLM benchmark: simulated conversations per minute through the whole LLM path (prompted LLM
 * user vs LLM recommender, orchestrator, openai client, limiter, retries bookkeeping, traces,
 * JSONL output) against the loopback OpenAI-compatible server adding 200 ms to every call.
 *
 * Each conversation is 3 user turns and 3 agent turns = 6 sequential calls, so it cannot take less
 * than 6 x 200 ms; with c conversations in flight the latency-bound ideal is c x 60 s / 1.2 s per
 * minute. The figure reported is measured / ideal (target: at least 0.9 at concurrency 32).
 *
 * The loopback server runs in its own process (this module's `child('server')`): in the same
 * process its request handling would compete with the client for one event loop, and the
 * benchmark would measure the fake server rather than SimLens.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveLlmSettings } from '../src/core/llm/config';
import { LlmServices } from '../src/core/llm/services';
import { parseSimulationConfig, prepareEnvironment, runSimulation } from '../src/core/run/index';
import { FakeOpenAI } from '../test/support/fakeOpenAI';
import { simulationScript } from '../test/support/llmScripts';
import { machineInfo, updateResultsSection } from './harness';

const LATENCY_MS = 200;
const USER_TURNS = 3;
const CALLS_PER_CONVERSATION = USER_TURNS * 2;
const REPEATS = 3;

interface Row {
  concurrency: number;
  conversations: number;
  wallMs: number;
  perMinute: number;
  ideal: number;
  ratio: number;
  callsPerConversation: number;
}

const URL_MARK = '@@fake-openai@@';

/** Child side: serves until the parent closes our stdin. */
export async function child(task: string, payload: unknown): Promise<unknown> {
  if (task !== 'server') throw new Error(`unknown llm child task ${task}`);
  const { latencyMs, userTurns } = payload as { latencyMs: number; userTurns: number };
  const fake = await FakeOpenAI.start({ latencyMs, handler: simulationScript({ userTurns }), record: false });
  process.stdout.write(`${URL_MARK}${fake.url}\n`);
  await new Promise<void>((resolve) => {
    process.stdin.on('end', resolve);
    process.stdin.on('close', resolve);
    process.stdin.resume();
  });
  const served = fake.served;
  await fake.close();
  return { served };
}

/** Starts the loopback server in a child process (same bundle, `--child llm server`). */
async function startServerProcess(): Promise<{ url: string; proc: ChildProcess; stop: () => Promise<void> }> {
  const proc = spawn(process.execPath, [...process.execArgv, process.argv[1], '--child', 'llm', 'server', JSON.stringify({ latencyMs: LATENCY_MS, userTurns: USER_TURNS })], { stdio: ['pipe', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    let buf = '';
    proc.stdout!.on('data', (d: Buffer) => {
      buf += d.toString('utf8');
      const line = buf.split('\n').find((l) => l.startsWith(URL_MARK));
      if (line) resolve(line.slice(URL_MARK.length).trim());
    });
    proc.on('exit', (code) => reject(new Error(`loopback server exited (${code}) before it was ready`)));
  });
  const stop = () => new Promise<void>((resolve) => {
    proc.on('exit', () => resolve());
    proc.stdin!.end();
  });
  return { url, proc, stop };
}

async function measure(url: string, concurrency: number, n: number): Promise<Row> {
  const dir = mkdtempSync(join(tmpdir(), 'simlens-bench-llm-'));
  try {
    const settings = resolveLlmSettings({ defaults: { baseUrl: url, model: 'bench-model', concurrency, timeoutMs: 30_000 } });
    let calls = 0;
    const services = new LlmServices({ settings, apiKey: 'bench-key', onCall: () => { calls++; } });
    const config = parseSimulationConfig({ user: 'llm-prompted', agent: 'llm-good', n, seed: `bench-${concurrency}`, catalog_size: 500 });
    const environment = await prepareEnvironment(config, dir, { llm: services });
    environment.catalog.fullTextIndex(); // built lazily on the first search: keep it out of the timing
    const t0 = performance.now();
    const { manifest } = await runSimulation(config, { out: join(dir, 'run.jsonl'), concurrency, environment });
    const wallMs = performance.now() - t0;
    if (manifest.status !== 'finished' || manifest.counts.failed) throw new Error(`run ended ${manifest.status} with ${manifest.counts.failed} failed`);
    const perMinute = (n * 60_000) / wallMs;
    const ideal = (concurrency * 60_000) / (CALLS_PER_CONVERSATION * LATENCY_MS);
    return { concurrency, conversations: n, wallMs, perMinute, ideal, ratio: perMinute / ideal, callsPerConversation: calls / n };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Runs the benchmark and writes the `## LLM` section of bench/RESULTS.md. */
export async function run(args: string[] = []): Promise<void> {
  const quick = args.includes('--quick');
  const server = await startServerProcess();
  const rows: Row[] = [];
  try {
    await measure(server.url, 4, 8); // warm-up (JIT, sockets), not reported
    for (const c of [1, 8, 32]) {
      const n = quick ? c : Math.max(4, c * 4);
      // Median of 3 runs by ratio: the machine's scheduling jitter moves single runs by several percent.
      const runs: Row[] = [];
      for (let r = 0; r < (quick ? 1 : REPEATS); r++) runs.push(await measure(server.url, c, n));
      runs.sort((a, b) => a.ratio - b.ratio);
      const row = runs[Math.floor(runs.length / 2)];
      rows.push(row);
      console.log(`concurrency ${c}: ${n} conversations in ${(row.wallMs / 1000).toFixed(2)} s = ${row.perMinute.toFixed(1)}/min; ideal ${row.ideal.toFixed(1)}/min; ratio ${row.ratio.toFixed(3)}; ${row.callsPerConversation.toFixed(1)} calls/conversation`);
    }
  } finally {
    await server.stop();
  }
  if (quick) return;
  const at32 = rows.find((r) => r.concurrency === 32)!;
  const body = [
    `Machine: ${machineInfo()}. Date: ${new Date().toISOString().slice(0, 10)}. Reproduce: \`npm run build && node --expose-gc dist/bench.js llm\`.`,
    '',
    `Setup: \`simlens simulate\`'s orchestrator running the prompted LLM user against the LLM recommender (\`llm-good\`) through the \`openai\` client, against the loopback OpenAI-compatible server (\`test/support/fakeOpenAI.ts\`, in its own process) adding ${LATENCY_MS} ms to every call. ${USER_TURNS} user turns + ${USER_TURNS} agent turns = ${CALLS_PER_CONVERSATION} sequential calls per conversation, so the latency-bound ideal is concurrency x 60 s / ${(CALLS_PER_CONVERSATION * LATENCY_MS / 1000).toFixed(1)} s per minute. LLM concurrency per role = conversation concurrency; no response cache; 4 x concurrency conversations per level (4 at concurrency 1), after an unreported warm-up run; each row is the median of ${REPEATS} runs (by ratio). Load average when the benchmark ended: ${loadavg().map((x) => x.toFixed(1)).join(', ')} (other work on the machine lowers the ratios). HTTP goes through SimLens's node:http transport for the \`openai\` client (\`src/core/llm/nodeFetch.ts\`).`,
    '',
    '| concurrency | conversations | wall time | conversations/min | ideal/min | ratio | calls/conversation |',
    '|---|---|---|---|---|---|---|',
    ...rows.map((r) => `| ${r.concurrency} | ${r.conversations} | ${(r.wallMs / 1000).toFixed(2)} s | ${r.perMinute.toFixed(1)} | ${r.ideal.toFixed(1)} | ${r.ratio.toFixed(3)} | ${r.callsPerConversation.toFixed(1)} |`),
    '',
    `Target: ratio >= 0.9 at concurrency 32: ${at32.ratio.toFixed(3)} — ${at32.ratio >= 0.9 ? 'met' : 'NOT met'}.`,
  ].join('\n');
  const path = updateResultsSection('LLM', body);
  console.log(`wrote ${path}`);
}
