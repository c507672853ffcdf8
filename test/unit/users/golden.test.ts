/**
 * Golden traces: a few conversations of each simulator against a fixed test agent on the tiny test
 * catalog, compared byte for byte with test/unit/users/golden/traces.jsonl. A difference means the
 * simulators' behaviour changed. If the change is intended, regenerate with
 *   SIMLENS_UPDATE_GOLDEN=1 node scripts/run-tests.mjs users/golden
 * and review the diff of the golden file.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { createRng } from '../../../src/core/random';
import { parseSimulationConfig, runConversation, type SimulationEnvironment } from '../../../src/core/run/index';
import {
  TransitionModel,
  createUserSimulator,
  defaultTransitionCounts,
  type UserSpec,
} from '../../../src/core/sim/users/index';
import { KeywordAgent, tinyCatalog } from './fixtures';

const GOLDEN = path.join(__dirname, 'golden', 'traces.jsonl');

const RUNS: { spec: UserSpec; count: number; maxTurns: number }[] = [
  { spec: { user: 'agenda', interaction: 'cir6', preferences: 'pkg' }, count: 3, maxTurns: 12 },
  { spec: { user: 'agenda', interaction: 'qrfa', preferences: 'single' }, count: 3, maxTurns: 12 },
  { spec: { user: 'target-free', maxTurns: 5 }, count: 1, maxTurns: 5 },
  { spec: { user: 'agenda', meta: 'prob', tolerance: 1, pSwitch: 0.75 }, count: 2, maxTurns: 6 },
];

async function generate(): Promise<string> {
  const catalog = tinyCatalog();
  const transitions = new TransitionModel(defaultTransitionCounts());
  const lines: string[] = [];
  for (const run of RUNS) {
    const env: SimulationEnvironment = {
      config: parseSimulationConfig({ n: run.count }),
      catalog,
      user: createUserSimulator(run.spec, { catalog, transitions }),
      agent: new KeywordAgent(catalog),
      transitions: defaultTransitionCounts(),
      maxTurns: run.maxTurns,
      inputs: {},
    };
    for (let i = 0; i < run.count; i++) {
      const id = `golden-${env.user.name}-${i}`;
      const rng = createRng(id);
      const task = i % 2 ? 'outerwear' : 'footwear';
      const user = env.user.createSession(id, rng.fork('user'), { task });
      const agent = env.agent.createSession(id, rng.fork('agent'), { task });
      const { conversation } = await runConversation({ env, id, index: i, user, agent, task });
      lines.push(JSON.stringify(conversation));
    }
  }
  return lines.join('\n') + '\n';
}

test('golden traces are unchanged', async () => {
  const text = await generate();
  if (process.env.SIMLENS_UPDATE_GOLDEN) {
    writeFileSync(GOLDEN, text);
    return;
  }
  assert.ok(existsSync(GOLDEN), `${GOLDEN} is missing: run with SIMLENS_UPDATE_GOLDEN=1 to create it`);
  const golden = readFileSync(GOLDEN, 'utf8');
  if (text !== golden) {
    const a = golden.split('\n');
    const b = text.split('\n');
    const line = a.findIndex((l, i) => l !== b[i]);
    const col = [...a[line]].findIndex((ch, i) => ch !== b[line]?.[i]);
    assert.fail(
      `golden traces differ at line ${line + 1}, column ${col + 1}:\n  golden: ${a[line].slice(Math.max(0, col - 80), col + 80)}\n  now:    ${(b[line] ?? '').slice(Math.max(0, col - 80), col + 80)}\nRegenerate with SIMLENS_UPDATE_GOLDEN=1 if the change is intended.`,
    );
  }
  // The golden file itself must hold complete traces.
  for (const l of golden.trim().split('\n')) {
    const c = JSON.parse(l);
    assert.ok(c.turns.length > 0);
    for (const t of c.turns) assert.ok(t.trace && typeof t.trace.user_act === 'string');
  }
});
