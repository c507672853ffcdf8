/**
 * Behavioural invariants of the non-LLM simulated users (issue 12, user side): what a user marks
 * as disclosed is what its utterance says (`trace.said`), it does not leave before it has seen
 * anything, QRFA completes only with an empty agenda, meta-simulators speak for their current
 * target, agent failures are neutral, and the target-free user records the values it rejects.
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import type { Conversation, SimulatorTrace } from '../../../src/core/model';
import { createRng } from '../../../src/core/random';
import type { Agent } from '../../../src/core/sim/types';
import type { SimulationEnvironment } from '../../../src/core/run/index';
import {
  AgendaUserSimulator,
  TemplateNlg,
  TransitionModel,
  createInteractionModel,
  createUserSimulator,
  defaultTransitionCounts,
  type UserSpec,
} from '../../../src/core/sim/users/index';
import { KeywordAgent, ScriptedAgent, simulateOne, tinyCatalog, userEnv } from './fixtures';

const catalog = tinyCatalog();
const transitions = new TransitionModel(defaultTransitionCounts());

const env = (agent: Agent, spec: UserSpec, maxTurns = 20, nlg?: TemplateNlg): SimulationEnvironment =>
  userEnv(agent, spec, { catalog, transitions, nlg }, maxTurns);
const simulate = (
  e: SimulationEnvironment,
  i: number,
  task = i % 2 ? 'footwear' : 'outerwear',
): Promise<Conversation> => simulateOne(e, i, 'invariants', task);

const traces = (c: Conversation): SimulatorTrace[] => c.turns.map((t) => t.trace!);
const disclosedOf = (t: SimulatorTrace | undefined): string[] =>
  ((t?.goal as Record<string, unknown> | undefined)?.['disclosed'] as string[] | undefined) ?? [];

const AGENDA_SPECS: UserSpec[] = [
  { user: 'agenda', interaction: 'cir6', preferences: 'pkg' },
  { user: 'agenda', interaction: 'cir6', preferences: 'single' },
  { user: 'agenda', interaction: 'qrfa', preferences: 'pkg' },
  { user: 'agenda', interaction: 'qrfa', preferences: 'single' },
];

describe('what the user says is what it discloses', () => {
  test('typos never touch the words of a filled slot', () => {
    const nlg = new TemplateNlg({ typoRate: 1 });
    for (let i = 0; i < 300; i++) {
      const rng = createRng(`typo/${i}`);
      for (const act of ['Disclose', 'Reveal.Refine', 'Pepper.More']) {
        const text = nlg.generate(act, { value: 'in leather', category: 'footwear' }, rng);
        assert.match(text.toLowerCase(), /in leather/, `${act}: ${text}`);
      }
      const title = nlg.generate('Inquire.Similar', { item: 'classic black wool parka 12' }, rng);
      if (/\{item\}|parka|similar to that/i.test(title) && !/that one/.test(title))
        assert.ok(title.includes('classic black wool parka 12'), title);
    }
  });

  test('a constraint is disclosed exactly on the turn its value is said; said values are in the text (typos on)', async () => {
    const nlg = new TemplateNlg({ typoRate: 0.5 });
    let newly = 0;
    for (const spec of AGENDA_SPECS) {
      for (const agent of [
        new KeywordAgent(catalog),
        new ScriptedAgent(catalog, [
          { utterance: 'Which gender is it for?', acts: ['elicit_preference'] },
          { utterance: 'Here you go.', acts: ['recommend'], items: ['F003', 'O004', 'F010'] },
        ]),
      ]) {
        const e = env(agent, spec, 12, nlg);
        for (let i = 0; i < 25; i++) {
          const c = await simulate(e, i);
          const ts = traces(c);
          for (const [k, t] of ts.entries()) {
            const text = (c.turns[k].user_utterance ?? '').toLowerCase();
            const said = t.said?.constraints ?? {};
            const before = new Set(k ? disclosedOf(ts[k - 1]) : []);
            const fresh = disclosedOf(t).filter((a) => !before.has(a));
            newly += fresh.length;
            for (const a of fresh)
              assert.ok(a in said, `${c.id} turn ${k}: "${a}" disclosed but not said in "${text}"`);
            for (const [a, v] of Object.entries(said)) {
              assert.ok(
                text.includes(String(v).toLowerCase()),
                `${c.id} turn ${k}: said ${a}=${v} is not in "${text}"`,
              );
              assert.ok(disclosedOf(t).includes(a), `${c.id} turn ${k}: said ${a} but not disclosed`);
              assert.equal(
                String(t.goal!.constraints[a]),
                String(v),
                `${c.id} turn ${k}: said ${a}=${v}, goal has ${t.goal!.constraints[a]}`,
              );
            }
            for (const v of t.said?.negated ?? [])
              assert.ok(text.includes(v.toLowerCase()), `${c.id} turn ${k}: negated ${v} not in "${text}"`);
          }
        }
      }
    }
    assert.ok(newly > 100, `constraints were disclosed (${newly})`);
  });

  test('an accepted item satisfies every disclosed constraint, the task category and every negated value; it is named in said.items', async () => {
    let accepted = 0;
    for (const spec of AGENDA_SPECS) {
      const e = env(new KeywordAgent(catalog), spec);
      for (let i = 0; i < 30; i++) {
        const c = await simulate(e, i);
        if (c.outcome !== 'accepted') continue;
        accepted++;
        const ts = traces(c);
        const last = ts[ts.length - 1];
        assert.equal(last.user_act, 'Note.Accept');
        const id = last.said?.items?.[0];
        assert.ok(id, 'the accepted item is recorded');
        const item = catalog.get(id)!;
        assert.ok(
          (c.turns[c.turns.length - 2].recommendations ?? []).some((r) => r.item_id === id),
          'the accepted item was shown',
        );
        assert.equal(item.category, c.task_id!.replace(/_good$/, ''));
        for (const a of disclosedOf(last))
          if (a !== 'category') assert.equal(item.attributes[a], last.goal!.constraints[a], `${c.id}: ${a}`);
        const negated = ts.flatMap((t) => t.said?.negated ?? []);
        for (const v of negated)
          assert.ok(
            !Object.values(item.attributes).includes(v),
            `${c.id}: accepted an item with ${v} after rejecting it`,
          );
      }
    }
    assert.ok(accepted > 10, `some acceptances (${accepted})`);
  });
});

describe('ending the dialogue', () => {
  const asker = new ScriptedAgent(catalog, [
    { utterance: 'Which gender is it for?', acts: ['elicit_preference'] },
    { utterance: 'What is the occasion?', acts: ['elicit_preference'] },
    { utterance: 'Any colour in mind?', acts: ['elicit_preference'] },
  ]);

  test('a user never ends without having seen a recommendation while it has patience left', async () => {
    for (const spec of AGENDA_SPECS) {
      for (const agent of [
        asker,
        new ScriptedAgent(catalog, [{ utterance: 'Did you know socks were invented in Greece?', acts: ['chit_chat'] }]),
      ]) {
        const e = env(agent, spec, 15);
        for (let i = 0; i < 30; i++) {
          const c = await simulate(e, i);
          const last = traces(c)[c.turns.length - 1];
          if (c.metadata?.turn_cap !== undefined) continue;
          assert.equal(
            c.outcome,
            'abandoned',
            `${spec.interaction}/${spec.preferences} ${c.id}: ended with "${c.turns[c.turns.length - 1].user_utterance}" at patience ${last.patience}`,
          );
          assert.equal(last.patience, 0);
          assert.equal((last as Record<string, unknown>)['end_reason'], 'patience');
        }
      }
    }
  });

  test('early_quit: a documented probability lets a user leave before seeing anything, and says so', async () => {
    const e = env(asker, { user: 'agenda', interaction: 'qrfa', earlyQuit: 1 } as UserSpec, 30);
    let quit = 0;
    for (let i = 0; i < 30; i++) {
      const c = await simulate(e, i);
      const last = traces(c)[c.turns.length - 1];
      if ((last as Record<string, unknown>)['end_reason'] === 'early_quit') {
        quit++;
        assert.equal(c.outcome, 'ended');
        assert.ok((last.patience ?? 0) > 0);
      }
    }
    assert.ok(quit > 0, 'with early_quit 1 users that complete before seeing items leave');
  });

  test('every last user turn says why it ended', async () => {
    for (const spec of AGENDA_SPECS) {
      const e = env(new KeywordAgent(catalog), spec);
      for (let i = 0; i < 20; i++) {
        const c = await simulate(e, i);
        const last = traces(c)[c.turns.length - 1] as Record<string, unknown>;
        if (c.metadata?.turn_cap !== undefined) continue;
        const expected =
          c.outcome === 'accepted'
            ? 'accepted'
            : c.outcome === 'abandoned'
              ? 'patience'
              : c.outcome === 'gave_up'
                ? 'gave_up'
                : 'completed';
        assert.equal(last['end_reason'], expected, c.id);
        for (const t of traces(c).slice(0, -1)) assert.equal((t as Record<string, unknown>)['end_reason'], undefined);
      }
    }
  });
});

describe('QRFA agendas', () => {
  test('Complete is only ever the last act of an initial agenda', () => {
    for (const name of ['qrfa', 'cir6'] as const) {
      const model = createInteractionModel(name, { transitions });
      const rng = createRng(`qrfa-agenda/${name}`);
      for (let i = 0; i < 2000; i++) {
        const { agenda } = model.initialAgenda(rng);
        const at = agenda.findIndex((a) => a.startsWith('Complete'));
        assert.ok(at === -1 || at === agenda.length - 1, `${name}: ${agenda.join(' ')}`);
      }
    }
  });

  test('every pull takes the top of the agenda and Complete is pulled only with nothing else pending', async () => {
    const agent = new ScriptedAgent(catalog, [
      { utterance: 'Sure.', acts: ['elicit_preference', 'recommend', 'explain_recommendation', 'greet_acknowledge'] },
    ]);
    const user = new AgendaUserSimulator({
      catalog,
      interaction: createInteractionModel('qrfa', { transitions }),
      preferences: 'pkg',
      checkContent: false,
    });
    const e: SimulationEnvironment = { ...env(agent, { user: 'agenda' }), user };
    for (let i = 0; i < 60; i++) {
      const c = await simulate(e, i);
      const ts = traces(c);
      assert.ok(!ts[0].pulled![0].startsWith('Complete'), `${c.id} opens with Complete`);
      for (let k = 1; k < ts.length; k++) {
        if (ts[k].operation !== 'pull') continue;
        const prev = ts[k - 1].agenda!;
        assert.equal(ts[k].pulled![0], prev.length ? prev[0] : 'Complete', `${c.id} turn ${k}`);
        if (ts[k].pulled![0].startsWith('Complete'))
          assert.deepEqual(prev.slice(1), [], `${c.id} turn ${k}: Complete pulled with ${prev.join(' ')} pending`);
      }
    }
  });
});

describe('meta-simulators speak for their current target', () => {
  test('said constraints and the disclosed goal agree with the current target, before and after switches', async () => {
    let checked = 0;
    let switched = 0;
    for (const meta of ['tol', 'prob'] as const) {
      for (const spec of AGENDA_SPECS) {
        const e = env(new KeywordAgent(catalog), { ...spec, meta, tolerance: 1, pSwitch: 1 }, 10);
        for (let i = 0; i < 25; i++) {
          const c = await simulate(e, i);
          for (const [k, t] of traces(c).entries()) {
            const target = catalog.get(t.target!.item_id)!;
            if (t.target?.switched_from) switched++;
            for (const [a, v] of Object.entries(t.said?.constraints ?? {})) {
              checked++;
              assert.equal(
                a === 'category' ? target.category : target.attributes[a],
                v,
                `${c.id} turn ${k} (${t.user_act}): said ${a}=${v}, target ${target.item_id}`,
              );
            }
            for (const a of disclosedOf(t)) {
              if (a === 'category') continue;
              assert.equal(
                target.attributes[a],
                t.goal!.constraints[a],
                `${c.id} turn ${k}: disclosed ${a}=${t.goal!.constraints[a]}, target ${target.item_id}`,
              );
            }
            for (const v of t.said?.negated ?? [])
              assert.ok(
                !Object.values(target.attributes).includes(v),
                `${c.id} turn ${k}: negated ${v}, a value of the target`,
              );
          }
        }
      }
    }
    assert.ok(checked > 100 && switched > 0, `checked ${checked} said values, ${switched} switches`);
  });

  test('Reveal.Refine in known-item mode states a value of the target', async () => {
    const agent = new ScriptedAgent(catalog, [
      { utterance: 'Here you go.', acts: ['recommend'], items: ['F001', 'F002', 'F004'] },
    ]);
    let refines = 0;
    const e = env(agent, { user: 'agenda', meta: 'tol', tolerance: 50 }, 12);
    for (let i = 0; i < 60; i++) {
      const c = await simulate(e, i, 'footwear');
      for (const [k, t] of traces(c).entries()) {
        if (t.user_act !== 'Reveal.Refine') continue;
        refines++;
        const target = catalog.get(t.target!.item_id)!;
        const said = Object.entries(t.said?.constraints ?? {});
        assert.ok(said.length > 0, `${c.id} turn ${k}: a refinement says a value`);
        for (const [a, v] of said)
          assert.equal(target.attributes[a], v, `${c.id} turn ${k}: "${c.turns[k].user_utterance}"`);
      }
    }
    assert.ok(refines > 0, 'some refinements');
  });
});

describe('agent failures are neutral to the user', () => {
  test('an error response costs no patience, leaves agenda and goal alone and is not copied to the user turn', async () => {
    for (const spec of [
      ...AGENDA_SPECS,
      { user: 'target-free' } as UserSpec,
      { user: 'agenda', meta: 'prob', tolerance: 0, pSwitch: 1 } as UserSpec,
    ]) {
      const sim = createUserSimulator(spec, { catalog, transitions });
      for (let i = 0; i < 15; i++) {
        const a = sim.createSession(`e${i}`, createRng(`err/${i}`), { task: 'footwear' });
        const first = await a.start();
        const ok = {
          utterance: 'Here are some.',
          acts: ['recommend'],
          recommendations: ['F001', 'F002'].map((id) => catalog.toRecommendedItem(catalog.get(id)!)),
        };
        const t1 = await a.respond(ok);
        if (t1.done) continue;
        const failed = await a.respond({
          utterance: '',
          recommendations: [],
          error: 'HTTP 500',
          error_kind: 'http',
        } as never);
        assert.equal(failed.done, false, `${sim.name}: an agent error never ends the dialogue from the user side`);
        assert.equal(failed.trace.error, undefined, 'the error stays on the failed turn');
        assert.equal(failed.trace.patience, t1.trace.patience, `${sim.name}: patience unchanged`);
        assert.deepEqual(failed.trace.agenda, t1.trace.agenda, `${sim.name}: agenda unchanged`);
        assert.deepEqual(failed.trace.goal, t1.trace.goal, `${sim.name}: goal unchanged`);
        assert.equal(
          failed.trace.target?.item_id,
          t1.trace.target?.item_id,
          `${sim.name}: no target switch on an error`,
        );
        assert.equal(failed.utterance, t1.utterance, `${sim.name}: the user repeats itself`);
        void first;
      }
    }
  });
});

describe('target-free user', () => {
  test('a disliked value is recorded in said.negated and appears in the text; named items were shown before', async () => {
    const e = env(new KeywordAgent(catalog), { user: 'target-free', maxTurns: 12 }, 12);
    let negations = 0;
    for (let i = 0; i < 40; i++) {
      const c = await simulate(e, i);
      const targets = traces(c)[0].targets ?? [];
      const shown = new Set<string>();
      for (const [k, t] of traces(c).entries()) {
        const text = (c.turns[k].user_utterance ?? '').toLowerCase();
        for (const v of t.said?.negated ?? []) {
          negations++;
          assert.ok(text.includes(v.toLowerCase()), `${c.id} turn ${k}: ${v} not in "${text}"`);
        }
        if (/not keen on anything|not into anything/.test(text))
          assert.ok((t.said?.negated ?? []).length > 0, `${c.id} turn ${k}: "${text}" negates a value`);
        for (const v of Object.values(t.said?.constraints ?? {}))
          assert.ok(text.includes(String(v).toLowerCase()), `${c.id} turn ${k}: ${v}`);
        for (const id of t.said?.items ?? []) {
          assert.ok(shown.has(id), `${c.id} turn ${k}: names ${id} before it was shown`);
          assert.ok(!targets.includes(id) || shown.has(id));
        }
        for (const r of c.turns[k].recommendations ?? []) shown.add(r.item_id);
      }
    }
    assert.ok(negations > 10, `negations recorded (${negations})`);
  });
});

describe('meta-simulators do not switch away from a target they can see', () => {
  test('with the current target among the first three items, the user keeps and takes it', async () => {
    let reached = 0;
    for (const meta of ['tol', 'prob'] as const) {
      const sim = createUserSimulator({ user: 'agenda', meta, tolerance: 0, pSwitch: 1 }, { catalog, transitions });
      for (let i = 0; i < 20; i++) {
        const s = sim.createSession(`m${i}`, createRng(`meta-keep/${meta}/${i}`), { task: 'footwear' });
        const first = await s.start();
        const group = first.trace.target!.alternatives!;
        const target = first.trace.target!.item_id;
        const show = (ids: string[]) => ({
          utterance: 'Here you go.',
          acts: ['recommend'],
          recommendations: ids.map((id) => catalog.toRecommendedItem(catalog.get(id)!)),
        });
        const far = catalog.byCategory('footwear').find((it) => !group.includes(it.item_id))!.item_id;
        // tol: any turn past the tolerance may switch; prob: a loss (the top gets less similar) may.
        const t1 = await s.respond(show(meta === 'tol' ? [far] : [group[1]]));
        if (t1.done) continue;
        const current = t1.trace.target!.item_id;
        const other = group.find((id) => id !== current)!;
        const t2 = await s.respond(show(meta === 'tol' ? [other, current, far] : [far, current, other]));
        reached++;
        assert.equal(
          t2.trace.target?.switched_from,
          undefined,
          `${meta} ${i}: switched away from ${current} while it was shown`,
        );
        assert.equal(t2.act, 'Note.Accept');
        assert.deepEqual(t2.trace.said?.items, [current]);
        void target;
      }
    }
    assert.ok(reached > 20, `second turns reached (${reached})`);
  });
});

describe('saying what it is shopping for', () => {
  test('a user that has not named its category yet names it at its next disclosure', async () => {
    const agent = new ScriptedAgent(catalog, [
      { utterance: 'What are you shopping for today?', acts: ['elicit_preference'] },
    ]);
    let silentOpeners = 0;
    for (const spec of AGENDA_SPECS) {
      const e = env(agent, spec, 8);
      for (let i = 0; i < 30; i++) {
        const c = await simulate(e, i);
        const ts = traces(c);
        if (ts[0].said?.constraints?.category !== undefined) continue;
        silentOpeners++;
        const k = ts.findIndex((t, j) => j > 0 && t.user_act === 'Disclose');
        if (k < 0) continue;
        const named = ts.slice(0, k + 1).findIndex((t) => t.said?.constraints?.category === c.task_id);
        assert.ok(named >= 0, `${c.id} turn ${k}: "${c.turns[k].user_utterance}" without having named ${c.task_id}`);
        assert.ok(c.turns[named].user_utterance!.toLowerCase().includes(c.task_id!));
      }
    }
    assert.ok(silentOpeners > 3, `some users open without naming the category (${silentOpeners})`);
  });
});

describe('a target switch and the disclosed goal', () => {
  test('after a switch, a disclosed constraint holds the value the user last said', async () => {
    const user = new AgendaUserSimulator({
      catalog,
      interaction: createInteractionModel('cir6', { transitions }),
      preferences: 'pkg',
    });
    let changed = 0;
    for (let i = 0; i < 40; i++) {
      const s = user.createSession(`s${i}`, createRng(`switch/${i}`), { task: 'footwear' });
      const items = catalog.byCategory('footwear');
      const first = items[i % items.length];
      s.setTarget({ target: first, alternatives: [first.item_id] });
      const t0 = await s.start();
      const said = Object.entries(t0.trace.said?.constraints ?? {}).filter(([a]) => a !== 'category');
      if (!said.length) continue;
      const [attr, value] = said[0];
      const second = items.find((it) => it.attributes[attr] !== undefined && it.attributes[attr] !== value)!;
      s.setTarget({ target: second, alternatives: [first.item_id, second.item_id] });
      changed++;
      const t1 = await s.respond({
        utterance: 'Anything else I should know?',
        recommendations: [],
        acts: ['elicit_preference'],
      });
      const lastSaid = String(t1.trace.said?.constraints?.[attr] ?? value);
      if (disclosedOf(t1.trace).includes(attr))
        assert.equal(
          String(t1.trace.goal!.constraints[attr]),
          lastSaid,
          `s${i}: ${attr} disclosed as ${t1.trace.goal!.constraints[attr]}, said ${lastSaid}`,
        );
    }
    assert.ok(changed > 10, `switches (${changed})`);
  });
});
