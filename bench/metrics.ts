/**
 * Metrics benchmark (`node --expose-gc dist/bench.js metrics`):
 *
 * 1. PLSA: 4 synthetic populations × 4,000 conversations (deterministic, `src/core/metrics/synthetic.ts`),
 *    the 11 ConvApparel features, reference vs 3 candidates = 33 Mann-Whitney U + 33 two-sample KS
 *    tests. Feature extraction (lexical act tagger included) is timed separately from the tests.
 * 2. HLS: 5-fold cross-validation of the n-gram discriminator on 8,000 conversations (4,000 human,
 *    4,000 simulated): tokenisation, per-fold vocabulary (min_df 2), L2 logistic regression.
 *
 * The same work is then run by `bench/metrics_scipy.py` in one Python process (SciPy's mannwhitneyu
 * and ks_2samp on the identical feature columns; for HLS the identical folds with scikit-learn's
 * CountVectorizer + LogisticRegression when installed, else SciPy sparse + L-BFGS-B on the same
 * objective). Times inside Python exclude interpreter start-up and imports. Results are
 * cross-checked (p-values, accuracy). Without python3 + SciPy the comparison is skipped with a
 * message. Writes the `## Metrics` section of bench/RESULTS.md.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEMO_PROFILES, syntheticPopulation } from '../src/core/metrics/synthetic';
import { PLSA_DEFAULT_FEATURES, featureTable, presentValues, type FeatureTable } from '../src/core/metrics/features';
import { comparePopulations } from '../src/core/metrics/plsa';
import { crossValidateHls, stratifiedFolds } from '../src/core/metrics/hls';
import { ActTagger } from '../src/core/metrics/tagger';
import type { Conversation } from '../src/core/model';
import { fmtMs, loadInfo, machineInfo, median, updateResultsSection } from './harness';
import { repoRoot } from './gen';

const N = 4000;
const SEED = 2026;

function timeIt<T>(fn: () => T): { value: T; ms: number; cpuMs: number } {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const value = fn();
  const c = process.cpuUsage(c0);
  return { value, ms: performance.now() - t0, cpuMs: (c.user + c.system) / 1000 };
}

/** What bench/metrics_scipy.py prints. */
interface PyResult {
  python: string;
  scipy: string;
  sklearn: string | null;
  hls_engine: string;
  plsa_ms: number[];
  plsa_cpu_ms: number[];
  hls_ms: number[];
  hls_cpu_ms: number[];
  plsa: { mwu_u: number; mwu_p: number; ks_statistic: number; ks_p: number }[];
  hls_accuracy: number;
}

/** Every distinct Python interpreter with SciPy (python3, /usr/bin/python3, $SIMLENS_PYTHON). */
function findPythons(): string[] {
  const candidates = [process.env.SIMLENS_PYTHON, 'python3', '/usr/bin/python3'].filter((x): x is string => !!x);
  const seen = new Set<string>();
  const out: string[] = [];
  for (const exe of candidates) {
    const r = spawnSync(exe, ['-c', 'import sys, scipy, numpy; print(sys.executable, scipy.__version__)'], {
      encoding: 'utf8',
    });
    if (r.status !== 0) continue;
    const key = r.stdout.trim();
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(exe);
  }
  return out;
}

export async function run(args: string[] = []): Promise<void> {
  const reps = Number(args.find((a) => a.startsWith('--reps='))?.slice(7) ?? 5);
  const log = (s: string) => console.log(s);
  const loadBefore = loadInfo();

  // --- data
  const gen = timeIt(() => ({
    human: syntheticPopulation(DEMO_PROFILES.human, N, SEED),
    prompted: syntheticPopulation(DEMO_PROFILES.prompted, N, SEED),
    icl: syntheticPopulation(DEMO_PROFILES.icl, N, SEED),
    sft: syntheticPopulation(DEMO_PROFILES.sft, N, SEED),
  }));
  const pops = gen.value;
  log(`generated 4 × ${N} conversations in ${fmtMs(gen.ms)}`);

  // --- features
  ActTagger.default(); // train once, outside the timing
  const feats = timeIt(() => {
    const t: Record<string, FeatureTable> = {};
    for (const [name, convs] of Object.entries(pops))
      t[name] = featureTable(convs, PLSA_DEFAULT_FEATURES, { acts: { kind: 'tagger' } });
    return t;
  });
  const tables = feats.value;
  log(`features (11 per conversation, tagger acts) for 16,000 conversations: ${fmtMs(feats.ms)}`);

  // --- PLSA tests
  const plsaTimes: number[] = [];
  const plsaCpu: number[] = [];
  let report = comparePopulations({ file: 'human', table: tables.human }, []);
  for (let r = 0; r < reps; r++) {
    const t = timeIt(() =>
      comparePopulations(
        { file: 'human', table: tables.human },
        ['prompted', 'icl', 'sft'].map((n) => ({ file: n, table: tables[n] })),
      ),
    );
    plsaTimes.push(t.ms);
    plsaCpu.push(t.cpuMs);
    report = t.value;
  }
  log(`PLSA 33 MWU + 33 KS: median ${fmtMs(median(plsaTimes))} (cpu ${fmtMs(median(plsaCpu))})`);

  // --- HLS cross-validation
  const human = pops.human;
  const simulated = pops.icl;
  const hlsReps = Math.max(1, Math.min(3, reps));
  const hlsTimes: number[] = [];
  const hlsCpu: number[] = [];
  let cv = undefined as ReturnType<typeof crossValidateHls> | undefined;
  for (let r = 0; r < hlsReps; r++) {
    const t = timeIt(() => crossValidateHls(human, simulated, { k: 5, seed: SEED }));
    hlsTimes.push(t.ms);
    hlsCpu.push(t.cpuMs);
    cv = t.value;
  }
  log(
    `HLS 5-fold CV on ${2 * N} conversations: median ${fmtMs(median(hlsTimes))} (cpu ${fmtMs(median(hlsCpu))}), accuracy ${cv!.metrics.accuracy.toFixed(4)}, vocabulary ${cv!.vocabulary_size}`,
  );

  // --- SciPy (every interpreter found: e.g. the newest SciPy, and one with scikit-learn)
  const pythons = findPythons();
  const script = join(repoRoot(), 'bench', 'metrics_scipy.py');
  const pyResults: PyResult[] = [];
  let pySkip = '';
  if (pythons.length === 0) pySkip = 'no python3 with SciPy found (set SIMLENS_PYTHON to one); comparison skipped';
  else if (!existsSync(script)) pySkip = `${script} missing; comparison skipped`;
  else {
    const dir = mkdtempSync(join(tmpdir(), 'simlens-bench-metrics-'));
    try {
      const labels = new Int8Array(2 * N).fill(1, 0, N);
      const folds = stratifiedFolds(labels, 5, SEED);
      const docs = (convs: Conversation[]) => convs.map((c) => c.turns.map((t) => t.user_utterance ?? ''));
      const payload = {
        reps,
        hls_reps: hlsReps,
        features: PLSA_DEFAULT_FEATURES,
        reference: Object.fromEntries(
          PLSA_DEFAULT_FEATURES.map((f) => [f, Array.from(presentValues(tables.human.values[f]))]),
        ),
        candidates: ['prompted', 'icl', 'sft'].map((n) =>
          Object.fromEntries(PLSA_DEFAULT_FEATURES.map((f) => [f, Array.from(presentValues(tables[n].values[f]))])),
        ),
        hls: {
          docs: [...docs(human), ...docs(simulated)],
          labels: Array.from(labels),
          folds: Array.from(folds),
          min_df: 2,
          C: 1,
        },
      };
      const file = join(dir, 'payload.json');
      writeFileSync(file, JSON.stringify(payload));
      for (const exe of pythons) {
        log(`running ${script} with ${exe} …`);
        const r = spawnSync(exe, [script, file], { encoding: 'utf8', maxBuffer: 64 << 20, timeout: 1_800_000 });
        if (r.status !== 0) log(`${exe} failed: ${(r.stderr || r.stdout).trim().split('\n').slice(-3).join(' | ')}`);
        else pyResults.push(JSON.parse(r.stdout.trim().split('\n').pop()!) as PyResult);
      }
      if (pyResults.length === 0) pySkip = 'every Python run failed; comparison skipped';
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  if (pySkip) log(pySkip);

  // --- cross-check and report
  const rel = (x: number, y: number) => (x === y ? 0 : Math.abs(x - y) / Math.max(Math.abs(y), 1e-300));
  const checks = pyResults.map((py) => {
    let maxRelP = 0;
    let maxAbsD = 0;
    report.comparisons.forEach((c, i) => {
      const p = py.plsa[i];
      maxRelP = Math.max(maxRelP, rel(c.mwu_p, p.mwu_p), rel(c.ks_p, p.ks_p), rel(c.mwu_u, p.mwu_u));
      maxAbsD = Math.max(maxAbsD, Math.abs(c.ks_statistic - p.ks_statistic));
    });
    log(
      `${py.python}, SciPy ${py.scipy}: PLSA median ${fmtMs(median(py.plsa_ms))}; HLS (${py.hls_engine}) median ${fmtMs(median(py.hls_ms))}, accuracy ${py.hls_accuracy.toFixed(4)}; max rel. diff of U/p ${maxRelP.toExponential(2)}, max |dD| ${maxAbsD.toExponential(2)}`,
    );
    return { maxRelP, maxAbsD };
  });
  const ratio = (js: number, pyMs: number) =>
    Number.isFinite(pyMs) && pyMs > 0
      ? pyMs / js >= 1
        ? `${(pyMs / js).toFixed(1)}× faster`
        : `${(js / pyMs).toFixed(1)}× slower`
      : '–';
  const who = (py: PyResult) => `${py.python}, SciPy ${py.scipy}`;
  const rows: string[] = [];
  rows.push(
    `| PLSA tests: 33 MWU + 33 KS (4 × ${N.toLocaleString('en-US')} conversations, 11 features) | SimLens (Node ${process.version}) | ${fmtMs(median(plsaTimes))} | ${fmtMs(median(plsaCpu))} | |`,
  );
  for (const py of pyResults)
    rows.push(
      `| | ${who(py)} | ${fmtMs(median(py.plsa_ms))} | ${fmtMs(median(py.plsa_cpu_ms))} | SimLens ${ratio(median(plsaCpu), median(py.plsa_cpu_ms))} (wall: ${ratio(median(plsaTimes), median(py.plsa_ms))}) |`,
    );
  rows.push(
    `| HLS 5-fold CV, ${(2 * N).toLocaleString('en-US')} conversations (tokenise, vocabulary, L2 logistic regression) | SimLens (Node ${process.version}) | ${fmtMs(median(hlsTimes))} | ${fmtMs(median(hlsCpu))} | |`,
  );
  for (const py of pyResults)
    rows.push(
      `| | ${who(py)}: ${py.hls_engine} | ${fmtMs(median(py.hls_ms))} | ${fmtMs(median(py.hls_cpu_ms))} | SimLens ${ratio(median(hlsCpu), median(py.hls_cpu_ms))} (wall: ${ratio(median(hlsTimes), median(py.hls_ms))}) |`,
    );
  const body = [
    `Machine: ${machineInfo()}. Date: ${new Date().toISOString().slice(0, 10)}. ${loadBefore} at the start, ${loadInfo()} at the end (a shared machine: wall times are noisy, CPU times are steadier). Reproduce: \`npm run build && node --expose-gc dist/bench.js metrics\` (\`-- --reps=N\` for more repetitions; \`SIMLENS_PYTHON=/path/to/python\` adds an interpreter).`,
    '',
    `Data: synthetic, deterministic (seed ${SEED}) populations from \`src/core/metrics/synthetic.ts\` (human, prompted, ICL, SFT profiles), ${N.toLocaleString('en-US')} conversations each; HLS uses human vs ICL. Times are medians of ${reps} runs (HLS: ${hlsReps}), measured in-process; Python times are measured inside one Python process (no start-up, imports or JSON loading), running \`bench/metrics_scipy.py\` on the identical feature columns and the identical folds.`,
    '',
    '| task | engine | wall (median) | CPU (median) | ratio (by CPU time) |',
    '|---|---|---|---|---|',
    ...rows,
    '',
    `Not in the comparison: feature extraction for the 16,000 conversations (11 features, lexical act tagger) took ${fmtMs(feats.ms)} (CPU ${fmtMs(feats.cpuMs)}); generating them ${fmtMs(gen.ms)}.`,
    '',
    pyResults.length
      ? `Cross-check: ${pyResults.map((py, i) => `against ${who(py)} the 66 tests agree to ${checks[i].maxRelP.toExponential(1)} relative (U, p) and ${checks[i].maxAbsD.toExponential(1)} absolute (KS D); HLS pooled accuracy ${py.hls_accuracy.toFixed(4)}`).join('; ')}; SimLens HLS pooled accuracy ${cv!.metrics.accuracy.toFixed(4)} (vocabulary ${cv!.vocabulary_size.toLocaleString('en-US')} n-grams in the largest fold).`
      : `SciPy comparison: ${pySkip}.`,
  ].join('\n');
  const path = updateResultsSection('Metrics', body);
  log(`wrote the Metrics section of ${path}`);
}
