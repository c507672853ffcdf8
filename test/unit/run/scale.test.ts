/**
 * 10,000 simulated conversations across every simulator and both local agents: none may crash
 * (metadata.error) and every one must have turns with traces. Also checks the counterfactual
 * direction the simulators should reproduce: against local-bad, fewer acceptances and more
 * abandonment than against local-good.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  parseSimulationConfig,
  prepareEnvironment,
  simulateConversation,
  type SimulationConfigInput,
} from '../../../src/core/run/index';

const MIX: { config: Omit<SimulationConfigInput, 'n'>; n: number }[] = [
  { config: { user: 'agenda', interaction: 'cir6', preferences: 'pkg', agent: 'local-good' }, n: 3000 },
  { config: { user: 'agenda', interaction: 'cir6', preferences: 'pkg', agent: 'local-bad' }, n: 3000 },
  { config: { user: 'agenda', interaction: 'qrfa', preferences: 'single', agent: 'local-good' }, n: 1500 },
  { config: { user: 'agenda', meta: 'prob', agent: 'local-bad' }, n: 1000 },
  { config: { user: 'target-free', agent: 'local-good', max_turns: 8 }, n: 1000 },
  { config: { user: 'target-free', meta: 'tol', agent: 'local-bad', max_turns: 6 }, n: 500 },
];

test('10,000 simulated conversations, zero crashed', { timeout: 240_000 }, async () => {
  let total = 0;
  const outcomes: Record<string, Record<string, number>> = {};
  for (const [k, part] of MIX.entries()) {
    const env = await prepareEnvironment(
      parseSimulationConfig({ ...part.config, n: part.n, seed: `scale-${k}`, catalog_size: 800 }),
    );
    const counts: Record<string, number> = {};
    for (let i = 0; i < part.n; i++) {
      const { conversation, failed } = await simulateConversation(env, i);
      assert.equal(
        failed,
        false,
        `${env.user.name} vs ${env.agent.name} #${i}: ${String(conversation.metadata?.error)}`,
      );
      assert.ok(conversation.turns.length > 0 && conversation.turns.length <= env.maxTurns);
      for (const t of conversation.turns) assert.ok(t.trace && t.user_utterance !== undefined);
      counts[conversation.outcome!] = (counts[conversation.outcome!] ?? 0) + 1;
      total++;
    }
    outcomes[`${env.user.name} vs ${env.agent.name}`] = counts;
  }
  assert.equal(total, 10_000);
  const good = outcomes['agenda-cir6-pkg vs local-good'];
  const bad = outcomes['agenda-cir6-pkg vs local-bad'];
  const share = (o: Record<string, number>, k: string) => (o[k] ?? 0) / 3000;
  assert.ok(
    share(good, 'accepted') > share(bad, 'accepted'),
    `acceptance good ${share(good, 'accepted')} vs bad ${share(bad, 'accepted')}`,
  );
  assert.ok(
    share(bad, 'abandoned') > share(good, 'abandoned'),
    `abandonment bad ${share(bad, 'abandoned')} vs good ${share(good, 'abandoned')}`,
  );
});
