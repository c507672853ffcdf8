/**
 * Words read back against the trace (src/core/check/readback.ts): hand-built turns where the text
 * and the trace agree or disagree on one aspect, an external simulator's ConvApparel trace, and
 * text-only mutants of generated conversations (the trace untouched, the words changed).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readBack, InvariantChecker } from '../../../src/core/check/index';
import type { Conversation } from '../../../src/core/model';
import { parseSimulationConfig, prepareEnvironment, simulateConversation } from '../../../src/core/run/index';
import { conv, item, turn } from './helpers';

const shown = [
  item('A', { colour: 'red', material: 'leather' }, { title: 'Harbor Tote' }),
  item('B', { colour: 'black', material: 'canvas' }, { title: 'Lumen Backpack' }),
];

test('agreeing turns agree on every aspect they carry', () => {
  const c = conv([
    turn(
      'Something in leather, please.',
      { user_act: 'Disclose', said: { constraints: { material: 'leather' } } },
      shown,
    ),
    turn(
      "I'm not keen on anything black.",
      { user_act: 'Note.Dislike', said: { constraints: {}, negated: ['black'] } },
      shown,
    ),
    turn('I like the Harbor Tote.', { user_act: 'Note.Like', said: { constraints: {}, items: ['A'] } }, shown),
  ]);
  const r = readBack([c]);
  assert.equal(r.disagreeingTurns, 0, JSON.stringify(r.disagreements));
  assert.equal(r.turns, 3);
  assert.ok(r.aspects.values.checked >= 2 && r.aspects.negations.checked >= 1 && r.aspects.items.checked >= 1);
});

test('each aspect catches its disagreement, with the conversation id and turn', () => {
  const cases: [string, Conversation, string][] = [
    [
      'values: value only negated',
      conv([
        turn('x', {}, shown),
        turn('Anything but leather.', { user_act: 'Disclose', said: { constraints: { material: 'leather' } } }),
      ]),
      'values',
    ],
    [
      'values: stated but not in said',
      conv([turn('x', {}, shown), turn('Something in canvas.', { user_act: 'Disclose', said: { constraints: {} } })]),
      'values',
    ],
    [
      'negations: negated but not in said',
      conv([turn('x', {}, shown), turn('Nothing red, please.', { user_act: 'Disclose', said: { constraints: {} } })]),
      'negations',
    ],
    [
      'negations: said.negated stated in the text',
      conv([
        turn('x', {}, shown),
        turn('I want red.', { user_act: 'Disclose', said: { constraints: {}, negated: ['red'] } }),
      ]),
      'negations',
    ],
    [
      'items: named but not in said.items',
      conv([
        turn('x', {}, shown),
        turn('What about the Lumen Backpack?', { user_act: 'Inquire.List', said: { constraints: {}, items: [] } }),
      ]),
      'items',
    ],
    [
      'items: said.items not referred to',
      conv([
        turn('x', {}, shown),
        turn('Show me more.', { user_act: 'Navigate.More', said: { constraints: {}, items: ['A'] } }),
      ]),
      'items',
    ],
  ];
  for (const [name, c, aspect] of cases) {
    const r = readBack([c]);
    assert.ok(
      r.disagreements.some((d) => d.aspect === aspect && d.turn === 1 && d.conversation === 'c1'),
      `${name}: ${JSON.stringify(r.disagreements)}`,
    );
  }
});

test('an item named by its place ("the second one") is read as a named title: its sentence carries the act and opinion', () => {
  const words = 'I really like the second one, bonus marks for the zip. The first, no thanks.';
  const agree = readBack([
    conv([
      turn('x', {}, shown),
      turn(words, { user_act: 'Note.Like', said: { constraints: {}, items: ['B', 'A'] } }, shown),
    ]),
  ]);
  assert.equal(agree.disagreeingTurns, 0, JSON.stringify(agree.disagreements));
  assert.equal(agree.aspects.opinion.checked, 1);
  // the trace calls it a dislike of B: the sentence that points at B says otherwise
  const disagree = readBack([
    conv([
      turn('x', {}, shown),
      turn(words, { user_act: 'Note.Dislike', said: { constraints: {}, items: ['B', 'A'] } }, shown),
    ]),
  ]);
  assert.ok(
    disagree.disagreements.some((d) => d.aspect === 'opinion' && d.turn === 1),
    JSON.stringify(disagree.disagreements),
  );
});

test('an external simulator with ConvApparel acts and said fields is read back too; a human file is not', () => {
  const ext: Conversation = {
    id: 'ext-1',
    source: 'my-llm-user',
    task_id: 'bags_good',
    turns: [
      {
        user_utterance: 'I need a leather bag.',
        assistant_utterance: 'Here are some.',
        recommendations: shown,
        trace: { user_act: 'inform_preference', said: { constraints: { material: 'leather' } } },
      },
      {
        user_utterance: "I'll take the Harbor Tote.",
        assistant_utterance: 'Great.',
        trace: { user_act: 'accept_recommendation', said: { items: ['A'] } },
      },
    ],
  };
  const r = readBack([ext]);
  assert.equal(r.turns, 2);
  assert.equal(r.disagreeingTurns, 0, JSON.stringify(r.disagreements));
  const human = readBack([{ task_id: 'x', turns: [{ user_utterance: 'hi', assistant_utterance: 'hello' }] }]);
  assert.deepEqual([human.conversations, human.turns, human.rate], [0, 0, undefined]);
});

test(
  'text-only mutants of generated conversations (a stated value swapped in the words, the trace kept) disagree on that turn',
  { timeout: 120_000 },
  async () => {
    const env = await prepareEnvironment(
      parseSimulationConfig({
        user: 'agenda',
        interaction: 'cir6',
        preferences: 'pkg',
        agent: 'local-good',
        n: 200,
        seed: 'readback-test',
        catalog_size: 800,
      }),
    );
    let applicable = 0;
    let caught = 0;
    let cleanDisagree = 0;
    let cleanTurns = 0;
    for (let i = 0; i < 200; i++) {
      const { conversation } = await simulateConversation(env, i);
      const base = readBack([conversation]);
      cleanTurns += base.turns;
      cleanDisagree += base.disagreeingTurns;
      // the first turn whose said value is in the text and has another value of its attribute shown before
      const values = new Map<string, Set<string>>();
      for (let t = 0; t < conversation.turns.length; t++) {
        const tt = conversation.turns[t];
        const said = Object.entries(tt.trace?.said?.constraints ?? {}).filter(([a]) => a !== 'category');
        const text = tt.user_utterance ?? '';
        const site = said.find(
          ([a, v]) =>
            text.toLowerCase().includes(String(v).toLowerCase()) &&
            [...(values.get(a) ?? [])].some((w) => w.toLowerCase() !== String(v).toLowerCase()),
        );
        if (site) {
          const [a, v] = site;
          const other = [...values.get(a)!].find((w) => w.toLowerCase() !== String(v).toLowerCase())!;
          const m = structuredClone(conversation);
          m.turns[t].user_utterance = text.replace(
            new RegExp(String(v).replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'gi'),
            other,
          );
          applicable++;
          if (readBack([m], { examples: 100 }).disagreements.some((d) => d.turn === t && d.aspect === 'values'))
            caught++;
          break;
        }
        for (const r of tt.recommendations ?? [])
          for (const [k, x] of Object.entries(r.attributes ?? {}))
            if (typeof x === 'string') (values.get(k) ?? values.set(k, new Set()).get(k)!).add(x);
      }
    }
    assert.ok(applicable >= 50, `only ${applicable} mutants`);
    assert.ok(caught / applicable >= 0.95, `caught ${caught} of ${applicable}`);
    assert.ok(cleanDisagree / cleanTurns <= 0.05, `${cleanDisagree} of ${cleanTurns} clean turns disagree`);
  },
);

test('the checker report carries the read-back unless turned off', () => {
  const c = conv([
    turn('Something in leather.', { user_act: 'Disclose', said: { constraints: { material: 'leather' } } }, shown),
  ]);
  const on = new InvariantChecker();
  on.add(c);
  assert.equal(on.report().readback?.turns, 1);
  const off = new InvariantChecker({ readback: false });
  off.add(c);
  assert.equal(off.report().readback, undefined);
});

test(
  'every built-in user kind reads back at least 97 % of its traced turns (the simulators speak words the independent reader understands)',
  { timeout: 300_000 },
  async () => {
    // The read-back fell to 82 % for target-free users against local-good when their Like wordings
    // grew ("X is fab", "wins me over", "I appreciate that ..."), which the opinion reader did not know.
    const kinds: Record<string, unknown>[] = [
      { user: 'target-free' },
      { user: 'target-free', meta: 'tol' },
      { user: 'agenda', interaction: 'cir6', preferences: 'pkg' },
      { user: 'agenda', interaction: 'qrfa', preferences: 'single', meta: 'prob' },
    ];
    const low: string[] = [];
    for (const kind of kinds) {
      for (const agent of ['local-good', 'local-bad']) {
        const env = await prepareEnvironment(
          parseSimulationConfig({ ...kind, agent, n: 80, seed: 'readback-kinds', catalog_size: 800 }),
        );
        const conversations: Conversation[] = [];
        for (let i = 0; i < 80; i++) conversations.push((await simulateConversation(env, i)).conversation);
        const r = readBack(conversations);
        if (!(r.rate !== undefined && r.rate >= 0.97))
          low.push(`${JSON.stringify(kind)} vs ${agent}: ${r.rate} ${JSON.stringify(r.disagreements.slice(0, 3))}`);
      }
    }
    assert.deepEqual(low, []);
  },
);

test('a disclosure relabelled Note.Dislike is caught even when an aside voices a dislike (mutation bench, sixteenth round)', () => {
  // "I'd rather not guess" and "my teenager says I look dated" read as dislikes to the opinion
  // lexicon: 3 of the bench's relabel-disclose-dislike mutants passed; a dislike names what it dislikes
  const texts: [string, Record<string, string>][] = [
    ["Okay then, something burgundy. I'd rather not guess.", { colour: 'burgundy' }],
    ['I would prefer something black, since my teenager says I look dated.', { colour: 'black' }],
  ];
  for (const [text, constraints] of texts) {
    const as = (user_act: string) =>
      readBack([conv([turn('x', {}, shown), turn(text, { user_act, said: { constraints } })])]);
    assert.equal(as('Disclose').disagreeingTurns, 0, JSON.stringify(as('Disclose').disagreements));
    const r = as('Note.Dislike');
    assert.equal(r.disagreeingTurns, 1, text);
    assert.match(JSON.stringify(r.disagreements), /names nothing it dislikes/);
  }
  // a dislike of an item, of the carousel on screen ("Not these": the shipped Python example's
  // push) or of a value, that also says what the user wants stays consistent
  const cases: [string, { constraints: Record<string, string>; items?: string[] }][] = [
    ['Not the Harbor Tote; something in canvas.', { constraints: { material: 'canvas' }, items: ['A'] }],
    ['Not these. What I want is canvas and black.', { constraints: { material: 'canvas', colour: 'black' } }],
  ];
  for (const [text, said] of cases) {
    const ok = readBack([conv([turn('x', {}, shown), turn(text, { user_act: 'Note.Dislike', said })])]);
    assert.equal(ok.disagreeingTurns, 0, JSON.stringify(ok.disagreements));
  }
});
