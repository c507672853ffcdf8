/**
 * Behavioural invariants at scale: every non-LLM simulator configuration (user agenda CIR6/QRFA x
 * single/PKG and target-free, x meta none/tol/prob, x local-good/local-bad) simulated and checked
 * with src/core/check, reporting per configuration the invariants that fail and the checker's own
 * throughput (conversations per second spent in the checker alone).
 *
 *   node --expose-gc dist/bench.js invariants [-- --n 2000] [-- --no-results]
 *
 * The unit test test/unit/check/simulators.test.ts runs the same matrix with 2,000 conversations
 * per configuration; this is the larger run (default 10,000 per configuration, 300,000 in all).
 */
import { parseSimulationConfig, prepareEnvironment, simulateConversation } from '../src/core/run/index';
import { InvariantChecker } from '../src/core/check/index';
import { SIMULATOR_MATRIX } from '../test/support/simulators';
import { machineInfo, updateResultsSection } from './harness';

function argValue(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
}

export async function run(args: string[]): Promise<void> {
  const n = Number(argValue(args, '--n') ?? 10000);
  if (!(Number.isInteger(n) && n > 0)) throw new Error(`--n must be a positive whole number, got ${argValue(args, '--n')}`);
  const rows: string[] = [];
  let total = 0;
  let checkMs = 0;
  let failing = 0;
  const t0 = performance.now();
  for (const { config, agent } of SIMULATOR_MATRIX) {
    const env = await prepareEnvironment(parseSimulationConfig({ ...config, n, seed: 'invariants-bench', catalog_size: 800 }));
    const checker = new InvariantChecker({ catalog: env.catalog, maxTurns: env.maxTurns, metaTolerance: env.config.tolerance ?? 2, examples: 1 });
    for (let i = 0; i < n; i++) {
      const { conversation } = await simulateConversation(env, i);
      const t = performance.now();
      checker.add(conversation);
      checkMs += performance.now() - t;
    }
    total += n;
    const report = checker.report();
    const failed = report.invariants.filter((r) => r.status === 'fail');
    if (failed.length) failing++;
    const cell = failed.length ? failed.map((r) => `${r.id} ${r.violatingConversations}/${r.conversations}`).join('; ') : 'clean';
    const line = `| ${env.user.name} | ${agent} | ${n} | ${cell} |`;
    rows.push(line);
    console.log(line);
  }
  const wall = (performance.now() - t0) / 1000;
  const rate = total / (checkMs / 1000);
  const body = [
    `Machine: ${machineInfo()}`,
    '',
    `${total} conversations (${n} per configuration) simulated and checked in ${wall.toFixed(1)} s; the checker alone took ${(checkMs / 1000).toFixed(2)} s (${Math.round(rate)} conversations/s). ${failing} of ${rows.length} configurations fail some invariant (cells: violating/applicable conversations).`,
    '',
    '| user | agent | conversations | failing invariants |',
    '|---|---|---|---|',
    ...rows,
  ].join('\n');
  console.log(`\n${total} conversations, checker ${Math.round(rate)} conversations/s, ${failing} configuration(s) with failing invariants`);
  if (!args.includes('--no-results')) console.log(`wrote ${updateResultsSection('Invariants', body)}`);
}
