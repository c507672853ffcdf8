/**
 * Rules of the agenda-based user checked over thousands of generated conversations (simulate's own
 * environment: the generated apparel catalog, local-good and local-bad):
 * - a recommender turn that re-asks a disclosed preference is a push that costs one unit of
 *   patience, with push_reason "the agent asked again about …", whatever else the turn holds;
 * - no first user turn refines or revises, a Reveal.Revise changes a value said before and a
 *   Reveal.Refine comes after something was disclosed;
 * - a conversation the turn cap cuts off says so on its last turn (end_reason max_turns), for
 *   every kind of template user.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Conversation, SimulatorTrace } from '../../../src/core/model';
import {
  TURN_CAP_END_REASON,
  parseSimulationConfig,
  prepareEnvironment,
  simulateConversation,
  type SimulationConfigInput,
  type SimulationEnvironment,
} from '../../../src/core/run/index';
import { REASK_REASON } from '../../../src/core/sim/users/agenda/agendaUser';
import { REASK } from '../../../src/core/sim/recommenders/local/bad';
import { askedAttributes, questionSentences } from '../../../src/core/sim/users/phrases';
import { InvariantChecker } from '../../../src/core/check/index';
import {
  AgendaUserSimulator,
  TransitionModel,
  createInteractionModel,
  defaultTransitionCounts,
} from '../../../src/core/sim/users/index';

type Loose = Record<string, unknown>;

const envs = new Map<string, Promise<SimulationEnvironment>>();
function environment(config: SimulationConfigInput): Promise<SimulationEnvironment> {
  const key = JSON.stringify(config);
  let e = envs.get(key);
  if (!e) envs.set(key, (e = prepareEnvironment(parseSimulationConfig(config))));
  return e;
}

async function* run(config: SimulationConfigInput, n: number): AsyncGenerator<Conversation> {
  const env = await environment(config);
  for (let i = 0; i < n; i++) {
    const { conversation, failed } = await simulateConversation(env, i);
    assert.equal(failed, false, String(conversation.metadata?.error));
    yield conversation;
  }
}

const traces = (c: Conversation): SimulatorTrace[] => c.turns.map((t) => t.trace!);
const disclosedOf = (t: SimulatorTrace): string[] =>
  ((t.goal as Loose | undefined)?.['disclosed'] as string[] | undefined) ?? [];

/**
 * local-bad's re-ask questions (`REASK` in local/bad.ts), one pattern per slot: every wording of
 * every frame of the slot (a frame's choice points as alternations, its `$v` as any words), so the
 * test follows the frames' wording.
 */
const frameRegex = (frame: string): string =>
  frame
    .replace(/[.*+?^()[\]\\]/g, '\\$&')
    .replace(/\{/g, '(?:')
    .replace(/\}/g, ')')
    .replace(/\$v/g, '.+');
const LOCAL_BAD_REASKS: [string, RegExp][] = Object.entries(REASK).map(([slot, frames]) => [
  slot,
  new RegExp(frames.map(frameRegex).join('|'), 'i'),
]);

describe('re-asking a disclosed preference', () => {
  test('against local-bad (1,200 conversations, CIR6 and QRFA): every re-ask of a disclosed preference is a push that costs one unit of patience', async () => {
    let reasks = 0;
    let withItems = 0;
    let withOtherQuestion = 0;
    for (const interaction of ['cir6', 'qrfa'] as const) {
      for await (const c of run(
        { user: 'agenda', interaction, agent: 'local-bad', seed: `reask-${interaction}`, n: 600 },
        600,
      )) {
        const ts = traces(c);
        for (let k = 0; k + 1 < c.turns.length; k++) {
          const text = c.turns[k].assistant_utterance ?? '';
          const disclosed = disclosedOf(ts[k]);
          const slots = LOCAL_BAD_REASKS.filter(([slot, re]) => disclosed.includes(slot) && re.test(text)).map(
            ([slot]) => slot,
          );
          if (slots.length === 0) continue;
          reasks++;
          if (c.turns[k].recommendations?.length) withItems++;
          if (text.split(/(?<=[.!?])\s+/).filter((s) => s.includes('?')).length > 1) withOtherQuestion++;
          const next = ts[k + 1];
          const where = `${c.id} turn ${k} -> ${k + 1}: "${text}" -> ${next.user_act}`;
          assert.equal(next.operation, 'push', where);
          assert.ok(String(next.push_reason ?? '').startsWith(REASK_REASON), `${where}: ${next.push_reason}`);
          for (const slot of slots) assert.ok(String(next.push_reason).includes(slot), `${where}: ${next.push_reason}`);
          assert.equal(next.patience, (ts[k].patience ?? NaN) - 1, where);
          // At zero the user leaves, unless what it came for is on screen: then it takes it.
          if (next.patience === 0)
            assert.ok(next.user_act === 'Complete.Abandon' || next.user_act === 'Note.Accept', where);
        }
      }
    }
    // The cases the reviewer found: a carousel and an off-topic question beside the re-ask.
    assert.ok(reasks >= 500, `only ${reasks} re-asks`);
    assert.ok(withItems >= 300, `only ${withItems} re-asks beside a carousel`);
    assert.ok(withOtherQuestion >= 100, `only ${withOtherQuestion} re-asks beside another question`);
  });

  test('against local-good (600 conversations) no turn counts as a re-ask', async () => {
    let turns = 0;
    for (const interaction of ['cir6', 'qrfa'] as const) {
      for await (const c of run(
        { user: 'agenda', interaction, agent: 'local-good', seed: `reask-good-${interaction}`, n: 300 },
        300,
      )) {
        for (const t of traces(c)) {
          turns++;
          assert.ok(!String(t.push_reason ?? '').startsWith(REASK_REASON), `${c.id}: ${t.push_reason}`);
        }
      }
    }
    assert.ok(turns > 1000);
  });

  test("with checkContent off (the paper's plain rule) a re-ask is judged by its acts only", async () => {
    const env = await environment({ user: 'agenda', agent: 'local-bad', seed: 'reask-off', n: 200 });
    const user = new AgendaUserSimulator({
      catalog: env.catalog,
      preferences: 'pkg',
      checkContent: false,
      interaction: createInteractionModel('cir6', { transitions: new TransitionModel(defaultTransitionCounts()) }),
    });
    const plain: SimulationEnvironment = { ...env, user };
    for (let i = 0; i < 200; i++) {
      const { conversation: c } = await simulateConversation(plain, i);
      for (const t of traces(c))
        assert.ok(!String(t.push_reason ?? '').startsWith(REASK_REASON), `${c.id}: ${t.push_reason}`);
    }
  });
});

describe('refining and revising need something said before', () => {
  test('over 2,400 QRFA conversations: no first turn refines or revises; a revise changes a value said before; a refine follows a disclosure', async () => {
    const runs: [SimulationConfigInput, number][] = [
      [{ user: 'agenda', interaction: 'qrfa', agent: 'local-good', seed: 'qrfa-open-good', n: 1000 }, 1000],
      [
        {
          user: 'agenda',
          interaction: 'qrfa',
          preferences: 'single',
          agent: 'local-bad',
          seed: 'qrfa-open-bad',
          n: 1000,
        },
        1000,
      ],
      [
        {
          user: 'agenda',
          interaction: 'qrfa',
          meta: 'prob',
          tolerance: 1,
          agent: 'local-bad',
          seed: 'qrfa-open-meta',
          n: 400,
        },
        400,
      ],
    ];
    let revises = 0;
    let refines = 0;
    let plannedAtOpening = 0;
    for (const [config, n] of runs) {
      for await (const c of run(config, n)) {
        const ts = traces(c);
        const first = ts[0];
        assert.ok(
          !['Reveal.Refine', 'Reveal.Revise'].includes(first.user_act ?? ''),
          `${c.id} opens with ${first.user_act}: ${c.turns[0].user_utterance}`,
        );
        if (String((first as Loose)['planned_act'] ?? '').startsWith('Reveal')) plannedAtOpening++;
        const said = new Map<string, string>();
        const negated = new Set<string>();
        for (const [k, t] of ts.entries()) {
          const stated = Object.entries(t.said?.constraints ?? {}).map(([a, v]) => [a, String(v)] as const);
          const where = `${c.id} turn ${k}: ${c.turns[k].user_utterance}`;
          if (t.user_act === 'Reveal.Revise') {
            revises++;
            // One value, or (a meta user's switch revision) every value the new target changed,
            // each a change of what it said (a value said, or one it said it does not want).
            assert.ok(stated.length >= 1, where);
            if (!c.source?.startsWith('meta')) assert.equal(stated.length, 1, where);
            for (const [attr, value] of stated) {
              assert.ok(said.has(attr) || negated.has(value), `${where}: ${attr} was never said before`);
              assert.notEqual(said.get(attr), value, `${where}: ${attr}=${value} is what it said before`);
            }
          }
          if (t.user_act === 'Reveal.Refine') {
            refines++;
            assert.ok(k > 0 && disclosedOf(ts[k - 1]).length > 0, `${where}: nothing disclosed before`);
          }
          for (const [a, v] of stated) said.set(a, v);
          for (const v of t.said?.negated ?? []) negated.add(v);
        }
      }
    }
    assert.ok(revises >= 100 && refines >= 100, `revises ${revises}, refines ${refines}`);
    // The agendas still start with Reveal acts at times: they are realised as disclosures.
    assert.ok(plannedAtOpening > 0);
  });
});

describe('the turn cap', () => {
  const KINDS: Omit<SimulationConfigInput, 'n'>[] = [
    { user: 'agenda', interaction: 'cir6', agent: 'local-bad' },
    { user: 'agenda', interaction: 'qrfa', preferences: 'single', agent: 'local-good' },
    { user: 'agenda', meta: 'tol', agent: 'local-bad' },
    { user: 'target-free', agent: 'local-good' },
    { user: 'target-free', meta: 'prob', agent: 'local-bad' },
  ];

  test('every conversation the cap cuts off ends with end_reason max_turns, set once by the run, for every user kind', async () => {
    for (const kind of KINDS) {
      let capped = 0;
      for await (const c of run({ ...kind, max_turns: 4, seed: 'cap', n: 150 }, 150)) {
        const ts = traces(c);
        const last = ts[ts.length - 1] as Loose;
        const where = `${c.source} ${c.id}`;
        for (const t of ts.slice(0, -1)) assert.equal((t as Loose)['end_reason'], undefined, where);
        // Every last user turn says why the conversation ended.
        assert.equal(typeof last['end_reason'], 'string', where);
        if (c.metadata?.turn_cap !== undefined) {
          capped++;
          assert.equal(c.metadata.turn_cap, 4, where);
          assert.equal(c.turns.length, 4, where);
          assert.equal(last['end_reason'], TURN_CAP_END_REASON, where);
          assert.equal(c.outcome, 'ended', where);
        } else if (last['end_reason'] === TURN_CAP_END_REASON) {
          // A user that stops itself at the run's cap (the target-free user) says the same.
          assert.equal(c.turns.length, 4, where);
        }
      }
      if (kind.user === 'agenda') assert.ok(capped > 0, `${JSON.stringify(kind)}: no conversation reached the cap`);
    }
  });
});

describe('a meta agenda user after a target switch', () => {
  // Found by the invariants benchmark (300,000 conversations): after a switch dropped the colour
  // from the disclosed goal, a Reveal.Refine stated the new target's colour as if new ("Only show
  // me things olive." after "Something burgundy."), in 2 of 10,000 meta-tol conversations.
  test('states a value that differs from what it said as a revision (benchmark conversations 275 and 6821, and 300 more)', async () => {
    const env = await prepareEnvironment(
      parseSimulationConfig({
        user: 'agenda',
        interaction: 'cir6',
        preferences: 'single',
        meta: 'tol',
        agent: 'local-bad',
        n: 10000,
        seed: 'invariants-bench',
        catalog_size: 800,
      }),
    );
    const checker = new InvariantChecker({
      catalog: env.catalog,
      maxTurns: env.maxTurns,
      metaTolerance: env.config.tolerance ?? 2,
      only: ['no-silent-contradiction', 'meta-consistent-with-target'],
    });
    // Conversations 275 and 6821 were found with the one-template NLG; the wording grammar draws
    // differently now, so the test also reads the first 300 conversations of the same run.
    let revisions = 0;
    for (const i of [275, 6821, ...Array.from({ length: 300 }, (_, k) => k)]) {
      const conv = (await simulateConversation(env, i)).conversation;
      checker.add(conv);
      revisions += conv.turns.filter((t) => t.trace?.user_act === 'Reveal.Revise').length;
    }
    const report = checker.report();
    assert.ok(report.ok, JSON.stringify(report.invariants.map((r) => [r.id, r.status, r.examples])));
    assert.ok(revisions >= 3, `the change is said as a revision (${revisions} revisions)`);
  });
});

// An independent review (ninth round): 21-36 % of the agenda users' "no preference" turns against
// local-good answered an agent turn that asked nothing (18.3 % of 569 in 8 configurations, seed
// s21b-fresh; 1.1 % of 265 after).
test('agenda users say "no preference" only in answer to a question', async () => {
  let nonDisclose = 0;
  const unasked: string[] = [];
  for (const interaction of ['cir6', 'qrfa'] as const) {
    const env = await prepareEnvironment(
      parseSimulationConfig({
        user: 'agenda',
        interaction,
        preferences: 'single',
        agent: 'local-good',
        n: 200,
        seed: 'no-pref-21',
        catalog_size: 800,
      }),
    );
    for (let i = 0; i < 200; i++) {
      const { conversation } = await simulateConversation(env, i);
      conversation.turns.forEach((t, k) => {
        if (k === 0 || t.trace?.user_act !== 'Disclose.NonDisclose') return;
        nonDisclose++;
        const before = conversation.turns[k - 1].assistant_utterance ?? '';
        if (!before.includes('?')) unasked.push(`${before} -> ${t.user_utterance}`);
      });
    }
  }
  assert.ok(nonDisclose > 40, `${nonDisclose} no-preference turns`);
  assert.ok(
    unasked.length <= nonDisclose / 50,
    `${unasked.length} of ${nonDisclose}:\n${unasked.slice(0, 3).join('\n')}`,
  );
});

describe('what is on screen, and what stays relaxed (issue 21, eleventh round, review findings 5 and 7)', () => {
  test('over 800 conversations against local-good (CIR6, QRFA): a user turn speaks only about items the agent just showed, and never requires a relaxed attribute again', async () => {
    let bare = 0;
    let noteAfterBare = 0;
    let relaxings = 0;
    let askedBare = 0;
    const ignored: string[] = [];
    const offScreen: string[] = [];
    const reRequired: string[] = [];
    for (const interaction of ['cir6', 'qrfa'] as const) {
      const config = { user: 'agenda', interaction, agent: 'local-good', seed: `on-screen-${interaction}`, n: 400 };
      const names = (await environment(config)).catalog.attributeNames();
      for await (const c of run(config, 400)) {
        const relaxed = new Set<string>();
        let before: string[] | undefined;
        c.turns.forEach((t, k) => {
          const tr = t.trace!;
          const where = `${c.id} turn ${k} (${tr.user_act}): ${t.user_utterance}`;
          const onScreen = (k > 0 ? (c.turns[k - 1].recommendations ?? []) : []).map((r) => r.item_id);
          // Rule 11: a turn after an agent turn without items notes nothing (a planned Note falls back).
          if (k > 0 && onScreen.length === 0) {
            bare++;
            const planned = String((tr as Loose)['planned_act'] ?? '');
            if (planned.startsWith('Note')) noteAfterBare++;
            // ... and a planned Note or item question answers the agent's question about an attribute.
            const question = questionSentences(c.turns[k - 1].assistant_utterance ?? '');
            if (
              (planned.startsWith('Note') || planned.startsWith('Navigate')) &&
              askedAttributes(question, names).length
            ) {
              askedBare++;
              if (tr.user_act === 'Inquire.List') ignored.push(`${where} after: ${c.turns[k - 1].assistant_utterance}`);
            }
          }
          for (const id of tr.said?.items ?? []) if (!onScreen.includes(id)) offScreen.push(`${where}: ${id}`);
          // Rule 12: an attribute relaxed by a Reveal.Expand is never stated again without a revision.
          const disclosed = disclosedOf(tr);
          if (tr.user_act === 'Reveal.Expand' && before)
            for (const a of before)
              if (!disclosed.includes(a)) {
                relaxed.add(a);
                relaxings++;
              }
          if (tr.user_act !== 'Reveal.Revise' && tr.user_act !== 'Reveal.Expand')
            for (const a of Object.keys(tr.said?.constraints ?? {}))
              if (relaxed.has(a)) reRequired.push(`${where}: ${a}`);
          if (tr.goal) before = disclosed;
        });
      }
    }
    assert.deepEqual(offScreen.slice(0, 5), [], `${offScreen.length} turns speak about items not on screen`);
    assert.deepEqual(reRequired.slice(0, 5), [], `${reRequired.length} relaxed attributes required again`);
    assert.deepEqual(
      ignored.slice(0, 3),
      [],
      `${ignored.length} of ${askedBare} questions answered with a request for options`,
    );
    // The situations were there: agent turns without items, Notes planned on them, relaxations.
    assert.ok(
      bare > 500 && noteAfterBare > 20 && askedBare > 20 && relaxings > 30,
      `bare ${bare}, notes ${noteAfterBare}, asked ${askedBare}, relaxed ${relaxings}`,
    );
  });
});
