/**
 * A user is never sent to buy what it already owns (fifteenth round, found reading meta runs turn by
 * turn): a meta-simulator's target group held an item of the wrapped user's history in 186-216 of 500
 * conversations, and 13-54 of them ended with the user accepting an item it owned. The simulators
 * now leave the target group out of the history; the checker's `accepted-meets-constraints` and
 * `meta-consistent-with-target` flag both.
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import type { Conversation, SimulatorTrace } from '../../../src/core/model';
import { InvariantChecker, type ItemLookup } from '../../../src/core/check/index';
import { parseSimulationConfig, prepareEnvironment, simulateConversation } from '../../../src/core/run/index';
import { conv, findingOf, item, turn } from './helpers';

const snapshot = (consumed: string[]): SimulatorTrace['preferences'] => ({
  kind: 'snapshot',
  model: 'pepper',
  consumed_items: consumed,
});

describe('accepted-meets-constraints: an owned item is not taken', () => {
  const accepting = (consumed: string[]): Conversation =>
    conv(
      [
        turn('Something black.', { user_act: 'Disclose', preferences: snapshot(consumed) }, [
          item('A', { colour: 'black' }, { title: 'Ridge Runner' }),
        ]),
        turn("I'll take Ridge Runner!", { user_act: 'Note.Accept', said: { items: ['A'] }, agenda: [] }),
      ],
      { outcome: 'accepted' },
    );
  test('accepting an item of the history is a violation; another item is not', () => {
    const f = findingOf('accepted-meets-constraints', accepting(['A', 'Z']));
    assert.ok(f);
    assert.deepEqual(
      f.violations.map((v) => `${v.turn}: ${v.detail}`),
      ['1: accepted A: the user already owns it (preferences.consumed_items)'],
    );
    assert.deepEqual(findingOf('accepted-meets-constraints', accepting(['Z']))!.violations, []);
  });
  test('an item a later state adds (a delta or a second snapshot) counts from that turn on', () => {
    for (const kind of ['delta', 'snapshot'] as const) {
      const c = accepting(['Z']);
      c.turns[0].trace!.preferences = { kind: 'snapshot', model: 'pepper', consumed_items: ['Z'] };
      c.turns[1].trace!.preferences = { kind, model: 'pepper', consumed_items: ['A'] };
      assert.deepEqual(
        findingOf('accepted-meets-constraints', c)!.violations.map((v) => v.turn),
        [1],
        kind,
      );
    }
  });
});

describe('meta-consistent-with-target: no target group member is owned', () => {
  const meta = (consumed: string[]): Conversation =>
    conv(
      [
        turn('Hi, boots please.', {
          user_act: 'Disclose',
          preferences: snapshot(consumed),
          target: { item_id: 'T', alternatives: ['T', 'U'] },
          goal: { constraints: { category: 'footwear' }, requests: [] },
        }),
        turn('Something black.', {
          user_act: 'Disclose',
          target: { item_id: 'T', alternatives: ['T', 'U'] },
          goal: { constraints: { category: 'footwear', colour: 'black' }, requests: [] },
        }),
      ],
      { source: 'meta-tol(target-free)' },
    );
  const catalog: ItemLookup = {
    get: (id) =>
      id === 'T' || id === 'U'
        ? { item_id: id, title: `Boot ${id}`, category: 'footwear', attributes: { colour: 'black' } }
        : undefined,
  };
  test('an owned alternative is reported once, an owned target too', () => {
    const v = (consumed: string[]) =>
      findingOf('meta-consistent-with-target', meta(consumed), { catalog })!.violations.map(
        (x) => `${x.turn}: ${x.detail}`,
      );
    assert.deepEqual(v(['U']), ['0: alternative U is an item the user already owns (preferences.consumed_items)']);
    assert.deepEqual(v(['T']), ['0: target T is an item the user already owns (preferences.consumed_items)']);
    assert.deepEqual(v(['Z']), []);
  });
});

describe('meta-simulated users own none of their target group', () => {
  for (const user of [
    { user: 'target-free' },
    { user: 'agenda', interaction: 'cir6', preferences: 'pkg' },
    { user: 'agenda', interaction: 'qrfa', preferences: 'single' },
  ] as const) {
    const name = 'preferences' in user ? `agenda-${user.interaction}-${user.preferences}` : user.user;
    test(`${name} under MetaSimTol vs local-good, 150 conversations: no target group member owned, no owned item accepted`, async () => {
      const env = await prepareEnvironment(
        parseSimulationConfig({
          ...user,
          meta: 'tol',
          agent: 'local-good',
          n: 150,
          seed: 'owned-15',
          catalog_size: 800,
        }),
      );
      const checker = new InvariantChecker({ catalog: env.catalog, examples: 3, readback: false });
      let groups = 0;
      for (let i = 0; i < 150; i++) {
        const c = (await simulateConversation(env, i)).conversation;
        checker.add(c);
        const owned = new Set(c.turns[0].trace?.preferences?.consumed_items ?? []);
        assert.ok(owned.size > 0, `${c.id}: a history`);
        const t = c.turns[0].trace?.target;
        assert.ok(t, `${c.id}: a target`);
        groups++;
        for (const id of [t.item_id, ...(t.alternatives ?? [])]) assert.ok(!owned.has(id), `${c.id}: owns ${id}`);
      }
      assert.equal(groups, 150);
      const report = checker.report();
      for (const id of ['accepted-meets-constraints', 'meta-consistent-with-target']) {
        const r = report.invariants.find((x) => x.id === id)!;
        assert.equal(r.violations, 0, `${id}: ${JSON.stringify(r.examples)}`);
        assert.ok(r.conversations > 50, `${id} applied to ${r.conversations}`);
      }
    });
  }
});
