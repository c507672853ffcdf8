/**
 * Benchmark dispatcher (`npm run bench` = build, then `node --expose-gc dist/bench.js`).
 *
 *   node --expose-gc dist/bench.js              run every registered benchmark
 *   node --expose-gc dist/bench.js foundation   run one (several names allowed)
 *   node --expose-gc dist/bench.js --list       list them
 *
 * To add an area: write `bench/<area>.ts` exporting `run(args: string[]): Promise<void>` (and,
 * if it measures in child processes via `runChild` from ./harness, `child(task, payload)`), then
 * add one import and one line to BENCHMARKS below. Imports are static so esbuild bundles every module.
 */
import { childMain } from './harness';
import * as foundation from './foundation';
import * as lsp from './lsp';
import * as llm from './llm';
import * as metrics from './metrics';
import * as simulation from './simulation';
import * as editor from './editor';
import * as invariants from './invariants';
import * as language from './language';
import * as firstRender from './firstRender';
import * as reportWorker from './reportWorker';
import * as diff from './diff';
import * as external from './external';
import * as fidelityClasses from './fidelityClasses';
import * as activation from './activation';

/** What a benchmark module exports. */
export interface BenchModule {
  run(args: string[]): Promise<void>;
  child?(task: string, payload: unknown): Promise<unknown>;
}

const BENCHMARKS: Record<string, () => Promise<BenchModule>> = {
  foundation: async () => foundation,
  lsp: async () => lsp,
  llm: async () => llm,
  metrics: async () => metrics,
  simulation: async () => simulation,
  editor: async () => editor,
  invariants: async () => invariants,
  language: async () => language,
  'first-render': async () => firstRender,
  'report-worker': async () => reportWorker,
  diff: async () => diff,
  'external-simulator': async () => external,
  'fidelity-classes': async () => fidelityClasses,
  activation: async () => activation,
};

async function mainBench(argv: string[]): Promise<number> {
  // A simulator process of the external-simulator benchmark (it serves until its stdin closes).
  if (argv[0] === '--protocol-user') return external.serveBuiltIn().then(() => new Promise<number>(() => {}));
  if (argv[0] === '--protocol-echo') return (external.serveEcho(), new Promise<number>(() => {}));
  if (argv[0] === '--child') {
    const [, area, task, payload] = argv;
    const mod = await BENCHMARKS[area]?.();
    if (!mod?.child) throw new Error(`benchmark "${area}" has no child tasks`);
    const child = mod.child.bind(mod);
    await childMain(() => child(task, JSON.parse(payload ?? 'null')));
    return 0;
  }
  if (argv.includes('--list') || argv.includes('--help')) {
    console.log(
      `benchmarks: ${Object.keys(BENCHMARKS).join(', ')}\nusage: node --expose-gc dist/bench.js [name...] [-- args for the benchmark]`,
    );
    return 0;
  }
  const dash = argv.indexOf('--');
  const names = (dash === -1 ? argv : argv.slice(0, dash)).filter((a) => !a.startsWith('-'));
  const extra = dash === -1 ? [] : argv.slice(dash + 1);
  const unknown = names.filter((n) => !BENCHMARKS[n]);
  if (unknown.length) {
    console.error(`unknown benchmark ${unknown.join(', ')}; known: ${Object.keys(BENCHMARKS).join(', ')}`);
    return 2;
  }
  const selected = names.length ? names : Object.keys(BENCHMARKS);
  let failed = 0;
  for (const name of selected) {
    console.log(`\n=== ${name} ===`);
    const t = performance.now();
    try {
      const mod = await BENCHMARKS[name]();
      await mod.run(extra);
    } catch (err) {
      failed++;
      console.error(`benchmark ${name} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    }
    console.log(`=== ${name}: ${((performance.now() - t) / 1000).toFixed(1)} s ===`);
  }
  return failed ? 1 : 0;
}

mainBench(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    console.error(err);
    process.exitCode = 1;
  },
);
