/**
 * CPU time of each invariant alone, current checker vs the frozen 20-invariant one
 * (bench/baseline/invariants-v20.ts), on the invariants bench's conversations (every simulator
 * configuration of test/support/simulators.ts, catalog 800, seed invariants-bench).
 *
 *   npx tsx bench/issue21-eleventh/perinv.ts [--n 100] [--reps 3] [--only id,id] [--total] [--min]
 * (--total: only the whole checkers, current and v20; --min: the fastest repetition instead of the median)
 *
 * Conversations are simulated once; then each invariant id is timed alone
 * (`new InvariantChecker({ only: [id], readback: false })`) over all of them, reps times, median.
 */
import { parseSimulationConfig, prepareEnvironment, simulateConversation } from '../../src/core/run/index';
import { INVARIANTS, InvariantChecker } from '../../src/core/check/index';
import type { Conversation } from '../../src/core/model';
import { SIMULATOR_MATRIX } from '../../test/support/simulators';
import { INVARIANTS as BASELINE } from '../baseline/invariants-v20';

function arg(name: string, dflt: string): string {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : dflt;
}
const n = Number(arg('--n', '100'));
const reps = Number(arg('--reps', '3'));
const onlyArg = arg('--only', '');

async function main(): Promise<void> {
  const sets: { opts: Record<string, unknown>; convs: Conversation[] }[] = [];
  for (const { config } of SIMULATOR_MATRIX) {
    const env = await prepareEnvironment(
      parseSimulationConfig({ ...config, n, seed: 'invariants-bench', catalog_size: 800 }),
    );
    const convs: Conversation[] = [];
    for (let i = 0; i < n; i++) convs.push((await simulateConversation(env, i)).conversation);
    sets.push({
      opts: {
        catalog: env.catalog,
        maxTurns: env.maxTurns,
        metaTolerance: env.config.tolerance ?? 2,
        examples: 1,
        readback: false,
      },
      convs,
    });
  }
  const total = sets.reduce((s, x) => s + x.convs.length, 0);
  const time = (only: string[] | undefined, invariants: typeof INVARIANTS | undefined): number => {
    const runs: number[] = [];
    for (let r = 0; r < reps; r++) {
      let cpu = 0;
      for (const { opts, convs } of sets) {
        const ch = new InvariantChecker({ ...opts, ...(invariants ? { invariants } : {}), ...(only ? { only } : {}) });
        const c = process.cpuUsage();
        for (const conv of convs) ch.add(conv);
        const d = process.cpuUsage(c);
        cpu += (d.user + d.system) / 1000;
      }
      runs.push(cpu);
    }
    runs.sort((a, b) => a - b);
    return process.argv.includes('--min') ? runs[0] : runs[Math.floor(runs.length / 2)];
  };
  // warm up both
  time(undefined, undefined);
  time(undefined, BASELINE);
  const ids = onlyArg ? onlyArg.split(',') : INVARIANTS.map((i) => i.id);
  const oldIds = new Set(BASELINE.map((i) => i.id));
  console.log(`${total} conversations, ${reps} reps, median CPU ms`);
  const allNow = time(undefined, undefined);
  const allOld = time(undefined, BASELINE);
  console.log(
    `all: now ${allNow.toFixed(0)} ms, v20 ${allOld.toFixed(0)} ms, ratio v20/now ${(allOld / allNow).toFixed(3)}`,
  );
  if (process.argv.includes('--total')) return;
  const rows: [string, number, number | undefined][] = [];
  for (const id of ids) {
    const now = time([id], undefined);
    const old = oldIds.has(id) ? time([id], BASELINE) : undefined;
    rows.push([id, now, old]);
  }
  rows.sort((a, b) => b[1] - a[1]);
  for (const [id, now, old] of rows)
    console.log(
      `${id.padEnd(44)} now ${now.toFixed(1).padStart(8)}  v20 ${old === undefined ? '     new' : old.toFixed(1).padStart(8)}  ${old ? (now / old).toFixed(2) + 'x' : ''}`,
    );
}
main();
