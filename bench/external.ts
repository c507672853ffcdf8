/**
 * External simulator protocol overhead (`npm run bench -- external-simulator`): the built-in agenda
 * user against local-good, once in-process and once behind the simlens-sim/1 protocol over stdio
 * (the same user code served by examples/ts/simlensAdapter.ts in a child process:
 * `node dist/bench.js --protocol-user`), same configuration, concurrency 1. The overhead per turn is
 * the difference of wall time per user turn; an echo simulator gives the bare round trip.
 * `-- --n N --repeats R` (default 3,000 conversations, median of 5; `--quick`: 1 repetition).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir, loadavg } from 'node:os';
import { join } from 'node:path';
import { runSimulation } from '../src/core/run/orchestrator';
import { parseSimulationConfig, prepareEnvironment } from '../src/core/run/config';
import { createRng } from '../src/core/random';
import { serve, type UserTurn } from '../examples/ts/simlensAdapter';
import type { UserTurn as CoreUserTurn, UserSession } from '../src/core/sim/types';
import { StdioConnection } from '../src/core/sim/users/external/connection';
import type { ExternalUserSimulator } from '../src/core/sim/users/external/simulator';

/** CPU time (user + system, ms) a process has used so far, from /proc (Linux); NaN elsewhere. */
function processCpuMs(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime, stime in clock ticks (USER_HZ = 100)
  } catch {
    return Number.NaN;
  }
}

const CATALOG_SIZE = 2000;

function asTurn(u: CoreUserTurn): UserTurn {
  const t: UserTurn = {
    utterance: u.utterance === '' && !u.done ? '…' : u.utterance,
    acts: [u.act || 'Complete'],
    trace: u.trace as Record<string, unknown>,
  };
  if (u.done) {
    t.done = true;
    t.outcome = u.outcome === 'accepted' || u.outcome === 'abandoned' ? u.outcome : 'ended';
  }
  return t;
}

/** `node dist/bench.js --protocol-user`: the built-in agenda user behind the protocol. */
export async function serveBuiltIn(): Promise<void> {
  const env = await prepareEnvironment(
    parseSimulationConfig({ user: 'agenda', agent: 'local-good', n: 1, catalog_size: CATALOG_SIZE }),
  );
  serve(
    () => {
      let session: UserSession;
      return {
        async start(p) {
          session = env.user.createSession(p.session, createRng(`bench/${p.seed}`), { task: p.task });
          return asTurn(await session.start());
        },
        async respond(p) {
          return asTurn(
            await session.respond({
              utterance: p.utterance,
              recommendations: p.recommendations as never,
              acts: p.acts,
            }),
          );
        },
      };
    },
    { name: 'builtin-agenda-over-protocol', version: '1' },
  );
}

/** `node dist/bench.js --protocol-echo`: answers every turn at once (the bare round trip). */
export function serveEcho(): void {
  serve(
    () => ({
      start: () => ({ utterance: 'hi', acts: ['Disclose'] }),
      respond: () => ({ utterance: 'ok', acts: ['Disclose'] }),
    }),
    { name: 'echo', version: '1' },
  );
}

function turnsIn(file: string): number {
  let n = 0;
  for (const line of readFileSync(file, 'utf8').split('\n'))
    if (line) n += (JSON.parse(line) as { turns: unknown[] }).turns.length;
  return n;
}

export async function run(args: string[] = []): Promise<void> {
  const nIndex = args.indexOf('--n');
  const n = nIndex >= 0 ? Number(args[nIndex + 1]) : 3000;
  const rIndex = args.indexOf('--repeats');
  const repeats = rIndex >= 0 ? Number(args[rIndex + 1]) : args.includes('--quick') ? 1 : 5;
  const dir = mkdtempSync(join(tmpdir(), 'simlens-bench-ext-'));
  const self = process.argv[1];
  console.log(
    `external simulator protocol: ${n} conversations per run, agenda (CIR6, PKG) vs local-good, concurrency 1, median of ${repeats}; load ${loadavg()[0].toFixed(2)}`,
  );
  // Wall time per turn, and CPU time per turn of both processes (SimLens + the simulator after its
  // start-up): on a shared machine wall time mostly measures waiting for a core, CPU time the work.
  const perTurn = async (
    user: string,
  ): Promise<{ msPerTurn: number; cpuPerTurn: number; turns: number; wallMs: number }> => {
    const out = join(dir, 'run.jsonl');
    rmSync(out, { force: true });
    const config = parseSimulationConfig({ user, agent: 'local-good', n, seed: 'bench', catalog_size: CATALOG_SIZE });
    const env = await prepareEnvironment(config);
    const pids = (env.user as Partial<ExternalUserSimulator>).pids?.() ?? [];
    const childBefore = pids.reduce((a, p) => a + processCpuMs(p), 0);
    const cpu = process.cpuUsage();
    const t = performance.now();
    await runSimulation(config, { out, concurrency: 1, maxConsecutiveFailures: 0, environment: env });
    const wallMs = performance.now() - t;
    const used = process.cpuUsage(cpu);
    const childMs = pids.reduce((a, p) => a + processCpuMs(p), 0) - childBefore;
    await env.user.dispose?.();
    const turns = turnsIn(out);
    return {
      msPerTurn: wallMs / turns,
      cpuPerTurn: ((used.user + used.system) / 1000 + childMs) / turns,
      turns,
      wallMs,
    };
  };
  const rows: { builtin: number; external: number; cpuB: number; cpuE: number; turnsB: number; turnsE: number }[] = [];
  for (let r = 0; r < repeats; r++) {
    const b = await perTurn('agenda');
    const e = await perTurn(`exec:${process.execPath} ${self} --protocol-user`);
    rows.push({
      builtin: b.msPerTurn,
      external: e.msPerTurn,
      cpuB: b.cpuPerTurn,
      cpuE: e.cpuPerTurn,
      turnsB: b.turns,
      turnsE: e.turns,
    });
    console.log(
      `  #${r + 1} (load ${loadavg()[0].toFixed(1)}): built-in ${b.msPerTurn.toFixed(4)} ms/turn (${b.turns} turns, ${(b.wallMs / 1000).toFixed(1)} s), over stdio ${e.msPerTurn.toFixed(4)} ms/turn (${e.turns} turns, ${(e.wallMs / 1000).toFixed(1)} s), overhead ${(e.msPerTurn - b.msPerTurn).toFixed(4)} ms/turn; CPU ${b.cpuPerTurn.toFixed(4)} vs ${e.cpuPerTurn.toFixed(4)} ms/turn, overhead ${(e.cpuPerTurn - b.cpuPerTurn).toFixed(4)}`,
    );
  }
  const median = (xs: number[]) => xs.slice().sort((a, b) => a - b)[xs.length >> 1];
  const cpuOverhead = median(rows.map((r) => r.cpuE - r.cpuB));
  rows.sort((a, b) => a.external - a.builtin - (b.external - b.builtin));
  const mid = rows[rows.length >> 1];
  // Bare round trip: request + framed answer + validation-free wait, 20,000 times.
  const conn = new StdioConnection(`${process.execPath} ${self} --protocol-echo`);
  await conn.request('initialize', {}, 30_000);
  const trips = 20_000;
  await conn.request('start', { session: 'w', seed: 1, index: 0 }, 10_000);
  const t = performance.now();
  for (let i = 0; i < trips; i++)
    await conn.request('respond', { session: 'w', utterance: 'x', recommendations: [], acts: [] }, 10_000);
  const rtt = (performance.now() - t) / trips;
  await conn.close();
  rmSync(dir, { recursive: true, force: true });
  console.log(
    `external simulator protocol: built-in ${mid.builtin.toFixed(4)} ms/turn, over stdio ${mid.external.toFixed(4)} ms/turn, overhead ${(mid.external - mid.builtin).toFixed(4)} ms/turn (goal < 0.2); CPU overhead ${cpuOverhead.toFixed(4)} ms/turn (both processes); bare stdio round trip ${rtt.toFixed(4)} ms; load ${loadavg()[0].toFixed(2)}`,
  );
}
