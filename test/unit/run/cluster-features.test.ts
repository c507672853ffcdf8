/**
 * Sharded per-conversation feature extraction (`simlens metrics features FILE --out OUT --shard`):
 * the merged parts equal one process byte for byte, and the PLSA and counterfactual reports from
 * the merged feature files equal the reports from the conversations (timestamp aside); merge and
 * the reports refuse parts and feature files that do not fit.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runCli } from '../../support/cli';
import { computeReport, type ReportSpec } from '../../../src/core/report';
import { featureRowJson, parseFeatureRow, type FeatureRow } from '../../../src/core/report/featureFile';
import { readManifest } from '../../../src/core/run/index';
import { DEMO_PROFILES, syntheticPopulation } from '../../../src/core/metrics/synthetic';
import { humanConversations, jsonl, tempDir } from '../report/fixtures';

const { dir, cleanup } = tempDir('simlens-cluster-features-');
before(() => {
  const human = humanConversations(40, 3);
  (human[5] as Record<string, unknown>).outcome = 'agent_error';
  // An invalid line: the reports warn about it, from the conversations or from the features.
  fs.writeFileSync(path.join(dir, 'human.jsonl'), jsonl(human).replace('\n', '\n{"broken": \n'));
  const sim = syntheticPopulation(DEMO_PROFILES.prompted, 30, 2).map((c, i) => ({
    ...c,
    condition: i % 2 ? 'bad' : 'good',
  }));
  fs.writeFileSync(path.join(dir, 'sim.jsonl'), jsonl(sim));
});
after(cleanup);

const run = (env: NodeJS.ProcessEnv, ...argv: string[]) => runCli(argv, dir, env);
const slurm = (id: number, count: number) => ({
  SLURM_ARRAY_TASK_ID: String(id),
  SLURM_ARRAY_TASK_COUNT: String(count),
  SLURM_ARRAY_TASK_MIN: '0',
  SLURM_ARRAY_TASK_MAX: String(count - 1),
});
const read = (name: string) => fs.readFileSync(path.join(dir, name));
/** The report JSON without its timestamp. */
const report = (json: string) => {
  const r = JSON.parse(json) as Record<string, unknown>;
  delete r.generated;
  return r;
};
// Non-integer features (means, first-person shares, sentiment) make a lossy round trip show.
const FEATURES =
  'num_turns,user_words_per_turn,user_turns_with_question,satisfaction,frustration,sentiment,act:critique,act:inform_preference,accepted,turns_until_acceptance';

async function shardedFeatures(input: string, out: string, k: number, ...extra: string[]): Promise<void> {
  for (const id of [...Array(k).keys()].reverse()) {
    const r = await run(slurm(id, k), 'metrics', 'features', input, '--out', out, ...extra);
    assert.equal(r.code, 0, r.err);
    assert.match(
      r.err,
      new RegExp(
        `shard ${id}/${k} from the Slurm array .* -> ${out.replace('.jsonl', '')}\\.part-000${id}-of-000${k}\\.jsonl`,
      ),
    );
  }
  const m = await run({}, 'merge', out);
  assert.equal(m.code, 0, m.err);
}

describe('metrics features as an array job', () => {
  before(async () => {
    for (const name of ['human', 'sim']) {
      const one = await run({}, 'metrics', 'features', `${name}.jsonl`, '--out', `${name}.one.features.jsonl`);
      assert.equal(one.code, 0, one.err);
      await shardedFeatures(`${name}.jsonl`, `${name}.features.jsonl`, 4);
    }
  });

  test('four tasks merged equal one process byte for byte; the manifests record input, sources and shard', () => {
    for (const name of ['human', 'sim'])
      assert.ok(
        read(`${name}.features.jsonl`).equals(read(`${name}.one.features.jsonl`)),
        `${name}: merged parts equal the single run`,
      );
    const part = readManifest(path.join(dir, 'sim.features.part-0002-of-0004.jsonl'))! as Record<string, unknown>;
    assert.equal(part.task, 'features');
    assert.deepEqual(part.shard, { index: 2, count: 4 });
    const config = part.config as Record<string, unknown>;
    assert.equal((config.input as Record<string, unknown>).name, 'sim.jsonl');
    assert.equal((config.input as Record<string, unknown>).bytes, read('sim.jsonl').length);
    assert.match(String((config.input as Record<string, unknown>).sha256), /^[0-9a-f]{64}$/);
    assert.deepEqual(config.sources, { acts: 'tagger', ux: 'auto', judge: null });
    const merged = readManifest(path.join(dir, 'human.features.jsonl'))! as Record<string, unknown>;
    assert.equal(merged.status, 'finished');
    assert.deepEqual(merged.input_problems, {
      count: 1,
      first: ['2:12: invalid JSON: unexpected end of the line: expected a value (an object is not closed)'],
    });
  });

  test('PLSA (with the split-half baseline) from the merged feature files equals the run on the conversations', async () => {
    const direct = await run(
      {},
      'metrics',
      'plsa',
      '--reference',
      'human.jsonl',
      '--candidate',
      'sim.jsonl',
      '--baseline',
      '--features',
      FEATURES,
      '--json',
    );
    const sharded = await run(
      {},
      'metrics',
      'plsa',
      '--reference',
      'human.features.jsonl',
      '--candidate',
      'sim.features.jsonl',
      '--baseline',
      '--features',
      FEATURES,
      '--json',
    );
    assert.equal(direct.code, 0, direct.err);
    assert.equal(sharded.code, 0, sharded.err);
    assert.deepEqual(report(sharded.out), report(direct.out));
    assert.equal(JSON.stringify(report(sharded.out)), JSON.stringify(report(direct.out)), 'bit for bit');
    // The failed conversation and the invalid line are reported the same way.
    assert.equal(sharded.err, direct.err);
    assert.match(direct.err, /1 of 40 conversations failed/);
    assert.match(direct.err, /human\.jsonl:2:12: invalid JSON/);
  });

  test('counterfactual (condition filters) from the merged feature files equals the run on the conversations', async () => {
    const direct = await run(
      {},
      'metrics',
      'counterfactual',
      '--human',
      'human.jsonl',
      '--simulator',
      'sim.jsonl',
      '--features',
      FEATURES,
      '--json',
    );
    const sharded = await run(
      {},
      'metrics',
      'counterfactual',
      '--human',
      'human.features.jsonl',
      '--simulator',
      'sim.features.jsonl',
      '--features',
      FEATURES,
      '--json',
    );
    assert.equal(direct.code, 0, direct.err);
    assert.equal(sharded.code, 0, sharded.err);
    assert.equal(JSON.stringify(report(sharded.out)), JSON.stringify(report(direct.out)));
  });

  test('a report spec with `features` gives the same report as computeReport on the conversations', async () => {
    const now = () => new Date('2025-01-01T00:00:00Z');
    const spec = (features: boolean): ReportSpec => ({
      kind: 'plsa',
      reference: { file: 'human.jsonl', ...(features ? { features: 'human.features.jsonl' } : {}) },
      candidates: [
        {
          file: 'sim.jsonl',
          label: 'good',
          filter: { condition: 'good' },
          ...(features ? { features: 'sim.features.jsonl' } : {}),
        },
        {
          file: 'sim.jsonl',
          label: 'bad',
          filter: { condition: 'bad' },
          ...(features ? { features: 'sim.features.jsonl' } : {}),
        },
      ],
      features: FEATURES.split(','),
    });
    const a = await computeReport(spec(false) as Exclude<ReportSpec, { kind: 'fidelity' }>, { cwd: dir, now });
    const b = await computeReport(spec(true) as Exclude<ReportSpec, { kind: 'fidelity' }>, { cwd: dir, now });
    assert.equal(JSON.stringify(b), JSON.stringify(a));
  });

  test('human-likeness needs the text: a feature file stands for the conversations beside it', async () => {
    const direct = await run({}, 'metrics', 'hls', '--human', 'human.jsonl', '--simulated', 'sim.jsonl', '--json');
    const viaFeatures = await run(
      {},
      'metrics',
      'hls',
      '--human',
      'human.features.jsonl',
      '--simulated',
      'sim.features.jsonl',
      '--json',
    );
    assert.equal(viaFeatures.code, 0, viaFeatures.err);
    assert.equal(JSON.stringify(report(viaFeatures.out)), JSON.stringify(report(direct.out)));
    // Without the conversations, the message says why they are needed.
    fs.mkdirSync(path.join(dir, 'only'), { recursive: true });
    for (const f of ['sim.features.jsonl', 'sim.features.jsonl.manifest.json'])
      fs.copyFileSync(path.join(dir, f), path.join(dir, 'only', f));
    const missing = await run({}, 'metrics', 'hls', '--human', 'human.jsonl', '--simulated', 'only/sim.features.jsonl');
    assert.equal(missing.code, 2);
    assert.match(
      missing.err,
      /only\/sim\.jsonl: no such file; only\/sim\.features\.jsonl holds only the features, and this report needs the conversations/,
    );
    // PLSA does not: the feature file alone is enough.
    const plsa = await run(
      {},
      'metrics',
      'plsa',
      '--reference',
      'human.features.jsonl',
      '--candidate',
      'only/sim.features.jsonl',
      '--features',
      FEATURES,
      '--json',
    );
    assert.equal(plsa.code, 0, plsa.err);
  });

  test('the reports refuse feature files of other sources, unmerged parts, incomplete passes and changed inputs', async () => {
    const otherActs = await run(
      {},
      'metrics',
      'plsa',
      '--reference',
      'human.features.jsonl',
      '--candidate',
      'sim.features.jsonl',
      '--annotator',
      'trace',
    );
    assert.equal(otherActs.code, 2);
    assert.match(
      otherActs.err,
      /human\.features\.jsonl: features were computed with acts tagger, ux auto, judge any, but the report asks for acts trace/,
    );
    const part = await run(
      {},
      'metrics',
      'plsa',
      '--reference',
      'human.features.jsonl',
      '--candidate',
      'sim.features.part-0001-of-0004.jsonl',
    );
    assert.equal(part.code, 2);
    assert.match(part.err, /is shard 1\/4 of a feature pass; merge the parts first/);

    fs.mkdirSync(path.join(dir, 'gap'), { recursive: true });
    fs.copyFileSync(path.join(dir, 'sim.jsonl'), path.join(dir, 'gap', 'sim.jsonl'));
    const task = await run(slurm(1, 2), 'metrics', 'features', 'gap/sim.jsonl', '--out', 'gap/f.jsonl');
    assert.equal(task.code, 0, task.err);
    const merged = await run({}, 'merge', 'gap/f.jsonl');
    assert.equal(merged.code, 1, 'a task is missing');
    assert.match(merged.err, /missing tasks: 0/);
    const incomplete = await run(
      {},
      'metrics',
      'plsa',
      '--reference',
      'human.features.jsonl',
      '--candidate',
      'gap/f.jsonl',
    );
    assert.equal(incomplete.code, 2);
    assert.match(incomplete.err, /gap\/f\.jsonl: the feature pass is incomplete/);

    fs.mkdirSync(path.join(dir, 'stale'), { recursive: true });
    fs.copyFileSync(path.join(dir, 'sim.jsonl'), path.join(dir, 'stale', 'sim.jsonl'));
    assert.equal((await run({}, 'metrics', 'features', 'stale/sim.jsonl', '--out', 'stale/f.jsonl')).code, 0);
    fs.appendFileSync(
      path.join(dir, 'stale', 'sim.jsonl'),
      JSON.stringify({ id: 'new', turns: [{ user_utterance: 'hi' }] }) + '\n',
    );
    const stale = await run(
      {},
      'metrics',
      'plsa',
      '--reference',
      'human.features.jsonl',
      '--candidate',
      'stale/f.jsonl',
    );
    assert.equal(stale.code, 2);
    assert.match(stale.err, /stale\/f\.jsonl: computed from another version of stale\/sim\.jsonl/);
  });

  test('merge refuses parts computed with other act sources', async () => {
    fs.mkdirSync(path.join(dir, 'mixed'), { recursive: true });
    assert.equal(
      (await run(slurm(0, 2), 'metrics', 'features', 'sim.jsonl', '--out', 'mixed/f.jsonl', '--annotator', 'trace'))
        .code,
      0,
    );
    assert.equal((await run(slurm(1, 2), 'metrics', 'features', 'sim.jsonl', '--out', 'mixed/f.jsonl')).code, 0);
    const m = await run({}, 'merge', 'mixed/f.jsonl');
    assert.equal(m.code, 2);
    assert.match(m.err, /configuration differs/);
    assert.equal(fs.existsSync(path.join(dir, 'mixed', 'f.jsonl')), false, 'nothing written');
  });

  test('merge refuses a feature part whose rows are not at their positions', async () => {
    fs.mkdirSync(path.join(dir, 'swapped'), { recursive: true });
    await shardedFeatures('sim.jsonl', 'swapped/f.jsonl', 2);
    fs.rmSync(path.join(dir, 'swapped', 'f.jsonl'));
    const partFile = path.join(dir, 'swapped', 'f.part-0001-of-0002.jsonl');
    const lines = fs.readFileSync(partFile, 'utf8').trimEnd().split('\n');
    [lines[0], lines[1]] = [lines[1], lines[0]];
    fs.writeFileSync(partFile, lines.join('\n') + '\n');
    const m = await run({}, 'merge', 'swapped/f.jsonl');
    assert.equal(m.code, 2);
    assert.match(m.err, /f\.part-0001-of-0002\.jsonl:1: position: expected 1 .*got 3/);
  });

  test('--out goes without --features/--json, and --shard needs --out', async () => {
    const a = await run({}, 'metrics', 'features', 'sim.jsonl', '--out', 'x.jsonl', '--features', 'num_turns');
    assert.equal(a.code, 2);
    assert.match(a.err, /--out writes every feature/);
    const b = await run({}, 'metrics', 'features', 'sim.jsonl', '--shard', '0/2');
    assert.equal(b.code, 2);
    assert.match(b.err, /--shard and --shard-count go with --out/);
  });
});

describe('feature rows', () => {
  const row: FeatureRow = {
    position: 3,
    line: 9,
    id: 'c',
    facets: { condition: 'good', source: 'human' },
    outcome: { failure: { agent: true, reason: 'agent_timeout' } },
    features: {
      values: { a: 0.1 + 0.2, b: NaN, c: -0, d: Infinity, e: -Infinity, f: 1 / 3 },
      actsKnown: true,
      agentActsKnown: false,
    },
  };

  test('read back bit for bit: NaN, -0, ±Infinity and shortest decimals', () => {
    const back = parseFeatureRow(JSON.stringify(featureRowJson(row)), 'f.jsonl', 1);
    assert.deepEqual(back, row);
    assert.ok(Object.is(back.features.values.c, -0));
    assert.equal(back.features.values.a, 0.1 + 0.2);
  });

  test('an invalid row names the file, line and field', () => {
    const bad = { ...featureRowJson(row), values: { a: 'many' } };
    assert.throws(() => parseFeatureRow(JSON.stringify(bad), 'f.jsonl', 7), /^Error: f\.jsonl:7: values\.a: /);
    assert.throws(() => parseFeatureRow('{"position": 1', 'f.jsonl', 2), /^Error: f\.jsonl:2: not valid JSON/);
  });
});
