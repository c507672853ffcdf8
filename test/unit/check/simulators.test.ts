/**
 * Every non-LLM simulator configuration keeps every behavioural invariant: user (agenda
 * CIR6/QRFA x single/PKG, target-free) x meta (none, tol, prob) x local agent (good, bad).
 *
 * Size: 200 conversations for every user x meta x agent configuration (6,000 in all; about 12 s
 * on an idle 2-core machine, 2 ms a conversation). Every configuration is run and every invariant
 * is held to applying to at least MIN_APPLIED of them (the last test; the agent and simulator
 * failure invariants to the failing-agent test below and test/unit/check/invariants.test.ts).
 * `npm run bench` (bench/invariants.ts) runs the large sample, 300,000 conversations.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  parseSimulationConfig,
  prepareEnvironment,
  simulateConversation,
  type SimulationConfigInput,
} from '../../../src/core/run/index';
import { InvariantChecker, type CheckReport } from '../../../src/core/check/index';
import { KNOWN_SIMULATOR_ISSUES, SIMULATOR_MATRIX, USERS } from '../../support/simulators';

const PER_AGENT = 200;
/** Fewer applicable conversations than this, over the whole matrix, and an invariant counts as untested. */
const MIN_APPLIED = 100;
/** Invariants that need a failing agent or simulator: held by the failing-agent test below and unit tests of their own. */
const NEEDS_A_FAILURE = ['agent-error-on-failing-turn', 'agent-error-no-user-effect', 'simulator-error-outcome'];
/** Conversations each invariant applied to, summed over the matrix (filled by the tests below). */
const applied = new Map<string, number>();

function summary(report: CheckReport, except: readonly string[] = []): string {
  return report.invariants
    .filter((r) => r.status === 'fail' && !except.includes(r.id))
    .map(
      (r) =>
        `${r.id}: ${r.violations} violation(s) in ${r.violatingConversations}/${r.conversations} conversations; e.g. ${r.examples.map((e) => `${e.conversation} turn ${e.turn}: ${e.detail}`).join(' | ')}`,
    )
    .join('\n');
}

for (const { name, config } of SIMULATOR_MATRIX) {
  test(`invariants hold: ${name} (${PER_AGENT} conversations)`, { timeout: 120_000 }, async (t) => {
    const env = await prepareEnvironment(
      parseSimulationConfig({ ...config, n: PER_AGENT, seed: 'invariants', catalog_size: 800 }),
    );
    const checker = new InvariantChecker({
      catalog: env.catalog,
      maxTurns: env.maxTurns,
      metaTolerance: env.config.tolerance ?? 2,
      examples: 3,
      readback: false,
    });
    for (let i = 0; i < PER_AGENT; i++) checker.add((await simulateConversation(env, i)).conversation);
    const report = checker.report();
    assert.equal(report.conversations, PER_AGENT);
    for (const r of report.invariants) applied.set(r.id, (applied.get(r.id) ?? 0) + r.conversations);
    for (const r of report.invariants) {
      if (KNOWN_SIMULATOR_ISSUES.includes(r.id) && r.violations)
        t.diagnostic(
          `${name}: ${r.id} ${r.violatingConversations}/${r.conversations} conversations (known simulator issue)`,
        );
    }
    assert.equal(summary(report, KNOWN_SIMULATOR_ISSUES), '', name);
  });
}

test(
  'agent failures: the error stays on the failing turn, the conversation ends there as agent_error',
  { timeout: 60_000 },
  async () => {
    const users: Omit<SimulationConfigInput, 'n'>[] = [USERS[1], { ...USERS[2], meta: 'tol' }, USERS[4]];
    for (const user of users) {
      const env = await prepareEnvironment(
        parseSimulationConfig({ ...user, agent: 'local-good', n: 200, seed: 'invariants-failing', catalog_size: 800 }),
      );
      const real = env.agent;
      // local-good, except that its third answer is an HTTP failure
      env.agent = {
        name: 'local-good-failing',
        condition: 'good',
        createSession(id, rng, ctx) {
          const session = real.createSession(id, rng, ctx);
          let answers = 0;
          return {
            respond: async (text, history) =>
              ++answers === 3
                ? {
                    utterance: '',
                    recommendations: [],
                    error: 'HTTP 500 from the recommender',
                    error_kind: 'agent_http' as const,
                  }
                : session.respond(text, history),
          };
        },
      };
      const checker = new InvariantChecker({
        catalog: env.catalog,
        maxTurns: env.maxTurns,
        examples: 3,
        only: ['agent-error-on-failing-turn', 'agent-error-no-user-effect', 'patience-non-increasing'],
      });
      let failed = 0;
      for (let i = 0; i < 200; i++) {
        const { conversation } = await simulateConversation(env, i);
        if (conversation.turns.some((t) => t.trace?.error !== undefined)) failed++;
        checker.add(conversation);
      }
      const report = checker.report();
      assert.ok(failed > 100, `${env.user.name}: only ${failed} conversations reached the failing answer`);
      assert.equal(report.invariants[0].conversations, failed);
      assert.ok(report.ok, `${env.user.name}:\n${summary(report)}`);
    }
  },
);

test(`the sample exercises every invariant (each applies to >= ${MIN_APPLIED} of the ${SIMULATOR_MATRIX.length * PER_AGENT} conversations)`, () => {
  assert.equal(
    applied.size,
    new InvariantChecker({}).report().invariants.length,
    'every configuration ran and reported every invariant',
  );
  const thin = [...applied]
    .filter(([id, n]) => !NEEDS_A_FAILURE.includes(id) && n < MIN_APPLIED)
    .map(([id, n]) => `${id}: ${n}`);
  assert.deepEqual(thin, [], 'invariants the sample barely exercises');
});
