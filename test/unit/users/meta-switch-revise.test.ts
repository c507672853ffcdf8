/**
 * A meta agenda user whose target switches under values it said (issue 21, review finding H):
 * - its goal never holds, for an attribute it said, a value other than the last one it said (a
 *   switch changes a said goal value only with the Reveal.Revise that says it), and goal.disclosed
 *   never forgets an attribute it said;
 * - the change is the next thing it says: on the switch turn, one Reveal.Revise naming every value
 *   the new target contradicts (only a user leaving at patience 0 says nothing more);
 * - rule 2 still holds: an accept never goes against a value it said;
 * - an act pulled on the revision turn waits on the agenda.
 * Before (base 0ee8294, 500 conversations per configuration, seed h21-fresh): 3.8-39.0 % of the
 * conversations had a turn whose goal differed from what the user said, for 1-7 turns.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseSimulationConfig, prepareEnvironment, simulateConversation } from '../../../src/core/run/index';
import type { SimulationConfigInput } from '../../../src/core/run/index';
import { InvariantChecker, MUTATION_OPERATORS } from '../../../src/core/check/index';
import type { Conversation, SimulatorTrace } from '../../../src/core/model';
import { createRng } from '../../../src/core/random';

type Loose = Record<string, unknown>;

const CONFIGS: Omit<SimulationConfigInput, 'n'>[] = [
  { user: 'agenda', interaction: 'cir6', preferences: 'single', meta: 'tol', agent: 'local-bad' },
  { user: 'agenda', interaction: 'qrfa', preferences: 'pkg', meta: 'tol', agent: 'local-good' },
  { user: 'agenda', interaction: 'cir6', preferences: 'pkg', meta: 'prob', agent: 'local-bad' },
];
const N = 200;

async function runs(config: Omit<SimulationConfigInput, 'n'>) {
  const env = await prepareEnvironment(
    parseSimulationConfig({ ...config, n: N, seed: 'meta-switch-revise', catalog_size: 800 }),
  );
  const convs: Conversation[] = [];
  for (let i = 0; i < N; i++) convs.push((await simulateConversation(env, i)).conversation);
  return { env, convs };
}

const disclosedOf = (t: SimulatorTrace): string[] =>
  ((t.goal as Loose | undefined)?.['disclosed'] as string[] | undefined) ?? [];

describe('a meta agenda user says what a target switch changed', () => {
  test('its goal keeps what it said until the Reveal.Revise that says the change, on the switch turn, all values at once', async () => {
    let switchesToSay = 0;
    let multi = 0;
    let accepts = 0;
    for (const config of CONFIGS) {
      const { env, convs } = await runs(config);
      for (const c of convs) {
        const said = new Map<string, string>();
        let disclosedBefore: string[] = [];
        c.turns.forEach((turn, i) => {
          const tr = turn.trace;
          if (!tr?.user_act) return;
          const where = `${JSON.stringify(config)} ${c.id} turn ${i} (${tr.user_act}): ${turn.user_utterance}`;
          const target = tr.target ? env.catalog.get(tr.target.item_id) : undefined;
          // What the target contradicts of what the user had said before this turn.
          const toSay = target
            ? [...said].filter(([a, v]) => target.attributes[a] !== undefined && target.attributes[a] !== v)
            : [];
          if (toSay.length && tr.user_act !== 'Complete.Abandon') {
            switchesToSay++;
            assert.equal(tr.user_act, 'Reveal.Revise', `the change is said first: ${where}`);
            for (const [a] of toSay)
              assert.equal(tr.said?.constraints?.[a], target!.attributes[a], `every changed value is said: ${where}`);
            if (toSay.length > 1) multi++;
          }
          if (tr.user_act === 'Reveal.Expand')
            for (const a of disclosedBefore) if (!disclosedOf(tr).includes(a)) said.delete(a);
          for (const [a, v] of Object.entries(tr.said?.constraints ?? {})) if (a !== 'category') said.set(a, String(v));
          disclosedBefore = disclosedOf(tr);
          for (const [a, v] of said) {
            const want: unknown = tr.goal?.constraints[a];
            if (want === undefined) continue;
            assert.equal(String(want), v, `the goal holds what the user said (${a}): ${where}`);
            assert.ok(disclosedOf(tr).includes(a), `goal.disclosed remembers ${a}: ${where}`);
          }
          if (tr.user_act === 'Note.Accept') {
            accepts++;
            for (const [a, v] of said)
              if (target?.attributes[a] !== undefined)
                assert.equal(target.attributes[a], v, `never accepts against its own words: ${where}`);
          }
        });
      }
    }
    assert.ok(switchesToSay >= 20, `switches that changed a said value: ${switchesToSay}`);
    assert.ok(multi >= 3, `switches that changed several said values, said in one turn: ${multi}`);
    assert.ok(accepts >= 20, `accepts: ${accepts}`);
  });

  test('an act pulled on the turn of a switch revision waits on the agenda', async () => {
    let deferred = 0;
    for (const config of CONFIGS) {
      const { convs } = await runs(config);
      for (const c of convs)
        c.turns.forEach((turn, i) => {
          const tr = turn.trace;
          if (i === 0 || tr?.user_act !== 'Reveal.Revise' || tr.operation !== 'pull' || !tr.target) return;
          const prev = c.turns[i - 1].trace?.agenda ?? [];
          if (prev.length === 0) return;
          deferred++;
          assert.deepEqual(tr.agenda, prev, `${c.id} turn ${i}: the pulled ${tr.pulled?.[0]} is still on top`);
        });
    }
    assert.ok(deferred >= 5, `pulled revision turns: ${deferred}`);
  });
});

describe('the checker sees a switch whose change is left unsaid', () => {
  test('no-silent-contradiction catches every silent-switch-goal mutant on its turn', async () => {
    const op = MUTATION_OPERATORS.find((o) => o.id === 'silent-switch-goal');
    assert.ok(op, 'the operator exists');
    let mutants = 0;
    for (const config of CONFIGS.slice(0, 2)) {
      const { env, convs } = await runs(config);
      const ctx = { catalog: env.catalog, maxTurns: env.maxTurns, metaTolerance: env.config.tolerance ?? 2 };
      const rng = createRng('silent-switch-goal');
      for (const c of convs.slice(0, 60)) {
        const m = op.apply(c, rng, ctx);
        if (!m) continue;
        mutants++;
        const checker = new InvariantChecker({
          ...ctx,
          readback: false,
          only: ['no-silent-contradiction'],
          examples: 50,
        });
        checker.add(m.conversation);
        const r = checker.report().invariants[0];
        assert.ok(
          r.examples.some((e) => e.turn === m.turn),
          `${c.id}: ${m.detail} not caught on turn ${m.turn}: ${JSON.stringify(r.examples)}`,
        );
      }
    }
    assert.ok(mutants >= 40, `mutants: ${mutants}`);
  });
});
