/**
 * LLM users against the loopback server: the ConvApparel act an LLM user reports is the act its
 * source annotation carries, and an end the run cannot honour (an accept before any item or of an
 * item number that was not shown, leaving before any item with turns to go) is corrected once,
 * recorded, and never turns into an outcome: `simlens check` passes on such runs.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { FakeOpenAI, type FakeReply, type RecordedRequest } from '../../support/fakeOpenAI';
import { promptKind, simulationScript } from '../../support/llmScripts';
import { testServices } from '../../support/llm';
import { createRng } from '../../../src/core/random';
import { CONVAPPAREL_TAXONOMY } from '../../../src/core/taxonomy';
import { defaultActAliases, toConvApparelUserAct } from '../../../src/core/taxonomy/acts';
import { createPromptedUser } from '../../../src/core/sim/users/llm/prompted';
import { itemNumbers } from '../../../src/core/sim/users/llm/ends';
import type { LlmCorrection } from '../../../src/core/sim/users/llm/base';
import { parseSimulationConfig, prepareEnvironment, simulateConversation } from '../../../src/core/run/index';
import { InvariantChecker, type CheckReport } from '../../../src/core/check/index';
import type { Conversation, RecommendedItem, SimulatorTrace } from '../../../src/core/model';
import type { AgentResponse, UserTurn } from '../../../src/core/sim/types';

type Msg = { role: string; content: string };
type Trace = SimulatorTrace & { llm_corrections?: LlmCorrection[]; warnings?: string[]; end_reason?: string };

const messagesOf = (req: RecordedRequest): Msg[] =>
  Array.isArray(req.body?.messages) ? (req.body!.messages as Msg[]) : [];
const reply = (text: string, terminate: boolean): FakeReply => ({
  content: `Response: ${text}\nTerminate: ${terminate ? 'True' : 'False'}`,
});
const isCorrection = (req: RecordedRequest): boolean =>
  /Reply again as the shopper/.test(messagesOf(req).at(-1)?.content ?? '');
const agentSays = (text: string, items: RecommendedItem[] = []): AgentResponse => ({
  utterance: text,
  recommendations: items,
});
const ITEMS: RecommendedItem[] = [
  { item_id: 'f1', title: 'Black leather ankle boots' },
  { item_id: 'f3', title: 'White canvas sneakers' },
];
const traceOf = (t: UserTurn): Trace => t.trace as Trace;

function failures(report: CheckReport, except: readonly string[] = []): string {
  return report.invariants
    .filter((r) => r.status === 'fail' && !except.includes(r.id))
    .map(
      (r) =>
        `${r.id}: ${r.violations} violation(s); e.g. ${r.examples.map((e) => `${e.conversation} turn ${e.turn}: ${e.detail}`).join(' | ')}`,
    )
    .join('\n');
}

describe('toConvApparelUserAct', () => {
  test('ConvApparel acts pass through unchanged, in any spelling', () => {
    for (const act of CONVAPPAREL_TAXONOMY.user) {
      assert.equal(toConvApparelUserAct(act), act, act);
      assert.equal(toConvApparelUserAct(act, true), act, `${act} (first turn)`);
      assert.equal(toConvApparelUserAct(act.toUpperCase()), act, act.toUpperCase());
      assert.equal(toConvApparelUserAct(act.replace(/_/g, '-')), act, act.replace(/_/g, '-'));
      assert.equal(toConvApparelUserAct(` ${act.replace(/_/g, ' ')} `), act, act.replace(/_/g, ' '));
    }
    // The alias table maps this one to Note.Dislike; as a ConvApparel act it is kept.
    assert.equal(toConvApparelUserAct('provide_feedback_negative'), 'provide_feedback_negative');
  });

  test('Zhang & Balog acts in other spellings and corpus aliases map as their canonical act', () => {
    const cases: [string, string][] = [
      ['Note.Accept', 'accept_recommendation'],
      ['note.accept', 'accept_recommendation'],
      ['NOTE.ACCEPT', 'accept_recommendation'],
      ['NOTE.END', 'accept_recommendation'],
      ['ACC', 'accept_recommendation'],
      ['REJ', 'reject_recommendation'],
      ['disclose', 'inform_preference'],
      ['DISCLOSE.NON-DISCLOSE', 'other'],
      ['reveal.refine', 'critique'],
      ['inquire.list', 'ask_clarification'],
      ['TRAVERSE.REPEAT', 'ask_clarification'],
      ['complete.abandon', 'provide_feedback_negative'],
      ['OTH', 'other'],
      ['something else', 'other'],
    ];
    for (const [label, expected] of cases) assert.equal(toConvApparelUserAct(label), expected, label);
    assert.equal(toConvApparelUserAct('disclose.nondisclose', true), 'greet_thank');
  });

  test('every built-in user alias maps the same in any case and with spaces around it (the indexed lookup)', () => {
    // The exact label takes the table's own entry; the other spellings go through the lower-case index.
    const labels = Object.keys(defaultActAliases().user);
    assert.ok(labels.length > 20, `${labels.length} aliases`);
    let indexed = 0;
    for (const label of labels)
      for (const first of [false, true]) {
        const exact = toConvApparelUserAct(label, first);
        for (const spelling of [label.toLowerCase(), label.toUpperCase(), `  ${label} `]) {
          if (spelling !== label) indexed++;
          assert.equal(toConvApparelUserAct(spelling, first), exact, `${JSON.stringify(spelling)} (first: ${first})`);
        }
      }
    assert.ok(indexed > 100, `${indexed} spellings read through the index`);
  });
});

describe('LLM users: source annotations and corrected ends', () => {
  let fake: FakeOpenAI;
  before(async () => {
    fake = await FakeOpenAI.start({ handler: simulationScript({ userTurns: 3 }) });
  });
  after(async () => {
    await fake.close();
  });

  test("every user turn's source annotation is the ConvApparel act the LLM user reported", async () => {
    // One user message per act guessUserAct can give, then an accept once items are shown.
    const lines = [
      'hi',
      'looking for black boots',
      'what about waterproof ones?',
      'no, too expensive',
      'nice, love these',
      'this is useless, not helpful',
      'make them cheaper and in brown',
    ];
    fake.setHandler((req) => {
      if (promptKind(req) !== 'user') return simulationScript()(req);
      const said = ((messagesOf(req)[1]?.content ?? '').match(/^USER:/gm) ?? []).length;
      return said < lines.length ? reply(lines[said], false) : reply('the first one, i will buy it', true);
    });
    try {
      const env = await prepareEnvironment(
        parseSimulationConfig({
          user: 'llm-prompted',
          agent: 'local-good',
          n: 1,
          seed: 'acts',
          catalog_size: 120,
          max_turns: 12,
        }),
        process.cwd(),
        { llm: testServices(fake.url) },
      );
      const { conversation } = await simulateConversation(env, 0);
      const seen = new Set<string>();
      for (const [i, turn] of conversation.turns.entries()) {
        const act = turn.trace?.user_act;
        assert.ok(act, `turn ${i} has a user act`);
        const source = turn.annotations?.find((a) => a.speaker === 'user' && a.annotator === 'source');
        assert.deepEqual(source?.acts, [act], `turn ${i}: ${turn.user_utterance}`);
        assert.equal(source?.taxonomy, 'convapparel');
        seen.add(act);
      }
      for (const act of [
        'greet_thank',
        'inform_preference',
        'ask_clarification',
        'reject_recommendation',
        'provide_feedback_positive',
        'provide_feedback_negative',
        'accept_recommendation',
      ]) {
        assert.ok(seen.has(act), `no turn with ${act}: ${[...seen].join(', ')}`);
      }
      assert.equal(conversation.outcome, 'accepted');
    } finally {
      fake.setHandler(simulationScript({ userTurns: 3 }));
    }
  });

  test('an accept before any item: one correction; insisting is recorded, not honoured, and the dialogue goes on', async () => {
    fake.requests.length = 0;
    fake.setHandler((req) => {
      const said = ((messagesOf(req)[1]?.content ?? '').match(/^USER:/gm) ?? []).length;
      if (said === 0) return reply('the second one is good, i will buy it', true); // first reply and the correction's
      return reply('the first one, i will buy it', true);
    });
    try {
      const s = createPromptedUser(testServices(fake.url)).createSession('c1', createRng('a'), { task: 'footwear' });
      const first = await s.start();
      assert.equal(first.done, false);
      assert.equal(first.outcome, undefined);
      assert.equal(first.utterance, 'the second one is good, i will buy it', "the model's words are kept");
      assert.equal(first.act, 'ask_clarification');
      const tr = traceOf(first);
      assert.equal(tr.user_act, 'ask_clarification');
      assert.equal(tr.planned_act, 'accept_recommendation');
      assert.equal(tr.llm_corrections?.length, 1);
      assert.equal(tr.llm_corrections![0].kind, 'accept_before_items');
      assert.equal(tr.llm_corrections![0].result, 'overridden');
      assert.equal(tr.llm_corrections![0].corrected_reply, 'the second one is good, i will buy it');
      assert.match(tr.warnings?.join('\n') ?? '', /accepted before the assistant had shown any item/);
      // Both calls are in the trace; the second quotes the reply back with the correction.
      assert.equal(tr.llm_calls?.length, 2);
      const reqs = fake.chatRequests;
      assert.equal(reqs.length, 2);
      const second = messagesOf(reqs[1]);
      assert.equal(second.at(-2)?.role, 'assistant');
      assert.match(second.at(-2)!.content, /i will buy it/);
      assert.match(second.at(-1)!.content, /has not shown you any products yet/);
      assert.equal(reqs[1].body?.seed === reqs[0].body?.seed, false);

      // Once items are shown, the accept is honoured and names the item.
      const next = await s.respond(agentSays('here you go', ITEMS));
      assert.equal(next.done, true);
      assert.equal(next.outcome, 'accepted');
      assert.equal(next.act, 'accept_recommendation');
      assert.equal(traceOf(next).llm_corrections, undefined);
      assert.deepEqual(traceOf(next).said?.items, ['f1']);
    } finally {
      fake.setHandler(simulationScript({ userTurns: 3 }));
    }
  });

  test('a model that revises its reply after the correction: its new reply counts, the correction is still recorded', async () => {
    fake.setHandler((req) =>
      isCorrection(req) ? reply('ok, show me some boots first', false) : reply("great, i'll take it", true),
    );
    try {
      const t = await createPromptedUser(testServices(fake.url))
        .createSession('c2', createRng('b'), { task: 'footwear' })
        .start();
      assert.equal(t.done, false);
      assert.equal(t.utterance, 'ok, show me some boots first');
      assert.equal(t.act, 'inform_preference');
      const c = traceOf(t).llm_corrections!;
      assert.equal(c.length, 1);
      assert.deepEqual(
        [c[0].kind, c[0].result, c[0].reply, c[0].corrected_reply],
        ['accept_before_items', 'revised', "great, i'll take it", 'ok, show me some boots first'],
      );
      assert.equal(traceOf(t).planned_act, undefined);
    } finally {
      fake.setHandler(simulationScript({ userTurns: 3 }));
    }
  });

  test('an accept of an item number that was not shown is corrected', async () => {
    fake.setHandler((req) => {
      const said = ((messagesOf(req)[1]?.content ?? '').match(/^USER:/gm) ?? []).length;
      if (said === 0) return reply('need boots', false);
      return isCorrection(req)
        ? reply("ok the second one then, i'll buy it", true)
        : reply("i'll take the fourth one", true);
    });
    try {
      const s = createPromptedUser(testServices(fake.url)).createSession('c3', createRng('c'), { task: 'footwear' });
      await s.start();
      const t = await s.respond(agentSays('two options', ITEMS));
      assert.equal(t.done, true);
      assert.equal(t.outcome, 'accepted');
      const c = traceOf(t).llm_corrections!;
      assert.deepEqual([c[0].kind, c[0].result], ['accept_unshown_item', 'revised']);
      assert.match(c[0].detail, /item number 4, but only 2 item/);
      assert.deepEqual(traceOf(t).said?.items, ['f3']);
    } finally {
      fake.setHandler(simulationScript({ userTurns: 3 }));
    }
  });

  test('leaving before any item: corrected, kept going when the model insists; early_quit or the last message let it go', async () => {
    fake.setHandler(() => reply('forget it, this is useless', true));
    try {
      const services = testServices(fake.url);
      const insisted = await createPromptedUser(services)
        .createSession('c4', createRng('d'), { task: 'footwear' })
        .start();
      assert.equal(insisted.done, false);
      assert.equal(insisted.act, 'provide_feedback_negative');
      assert.deepEqual(
        traceOf(insisted).llm_corrections!.map((c) => [c.kind, c.result]),
        [['quit_before_items', 'overridden']],
      );
      assert.match(traceOf(insisted).warnings![0], /left before the assistant had shown any item/);

      const quits = await createPromptedUser(services, { earlyQuit: 1 })
        .createSession('c5', createRng('e'), { task: 'footwear' })
        .start();
      assert.equal(quits.done, true);
      assert.equal(quits.outcome, 'abandoned');
      assert.equal(traceOf(quits).end_reason, 'early_quit');
      assert.deepEqual(
        traceOf(quits).llm_corrections!.map((c) => c.result),
        ['early_quit'],
      );

      // On its last allowed message a user may leave unserved: the turn cap, no correction.
      const last = createPromptedUser(services, { maxTurns: 2 }).createSession('c6', createRng('f'), {
        task: 'footwear',
      });
      fake.setHandler((req) =>
        ((messagesOf(req)[1]?.content ?? '').match(/^USER:/gm) ?? []).length === 0
          ? reply('boots please', false)
          : reply('bye', true),
      );
      await last.start();
      const end = await last.respond(agentSays('what size?'));
      assert.equal(end.done, true);
      assert.equal(traceOf(end).llm_corrections, undefined);
      assert.equal(traceOf(end).end_reason, 'max_turns');
      assert.throws(
        () => createPromptedUser(services, { earlyQuit: 2 }).createSession('c7', createRng('g'), { task: 'footwear' }),
        /early quit probability/,
      );
    } finally {
      fake.setHandler(simulationScript({ userTurns: 3 }));
    }
  });

  test('a quit before any item with no words, insisted on: a user_llm failure, never an outcome', async () => {
    fake.setHandler(() => ({ content: 'Response:\nTerminate: True' }));
    try {
      const t = await createPromptedUser(testServices(fake.url))
        .createSession('c8', createRng('h'), { task: 'footwear' })
        .start();
      assert.equal(t.done, true);
      assert.equal(t.failure?.reason, 'user_llm');
      assert.match(t.failure!.message, /left before the assistant had shown any item/);
      assert.equal(traceOf(t).llm_corrections?.length, 1);
    } finally {
      fake.setHandler(simulationScript({ userTurns: 3 }));
    }
  });

  test('item numbers in accepting utterances', () => {
    assert.deepEqual(itemNumbers('the second one is good, i will buy it'), [2]);
    assert.deepEqual(itemNumbers("i'll take #3 or maybe option 1"), [3, 1]);
    assert.deepEqual(itemNumbers('the 4th pair, [2] is too pricey'), [4, 2]);
    assert.deepEqual(itemNumbers('wait a second, i like it'), []);
    assert.deepEqual(itemNumbers('the black ones are perfect'), []);
  });
});

/**
 * A scripted shopper with a behaviour per conversation: the opening message carries a style tag
 * (from the call's seed), later calls read it back from the transcript.
 */
function variedShopper(req: RecordedRequest): FakeReply {
  const msgs = messagesOf(req);
  const transcript = msgs[1]?.content ?? '';
  const tag = /\(style (\d)\)/.exec(transcript);
  if (!tag) {
    const style = Number(req.body?.seed ?? 0) % 8;
    // Some shoppers name their category at once (a local agent can search), some never do.
    const category = /Your task: find ([a-z ]+?) \(/.exec(msgs[0]?.content ?? '')?.[1] ?? 'shoes';
    return reply(
      style % 3 === 1
        ? `looking for something comfy (style ${style})`
        : `looking for comfy ${category} (style ${style})`,
      false,
    );
  }
  const style = Number(tag[1]);
  const said = (transcript.match(/^USER:/gm) ?? []).length;
  const shown = /^ {2}\[1\]/m.test(transcript);
  const correcting = isCorrection(req);
  switch (style) {
    case 0: // accepts before seeing anything, gives in when corrected
      if (!shown) return correcting ? reply('ok, show me a few options', false) : reply("i'll take it", true);
      return reply('the first one, i will buy it', true);
    case 1: // accepts before seeing anything and insists
      if (!shown) return reply('the second one is good, i will buy it', true);
      return reply('that one is perfect, the first one', true);
    case 2: // leaves early and insists, then accepts
      if (!shown) return said >= 1 ? reply('forget it, bye', true) : reply('black please', false);
      return reply('i will buy the first one', true);
    case 3: // accepts a number beyond what is shown, insists, then picks a shown one
      if (!shown) return reply('something in black?', false);
      return said >= 3 ? reply('the first one, i will buy it', true) : reply("i'll take the ninth one", true);
    case 4: // leaves early, gives in when corrected
      if (!shown) return correcting ? reply('fine, what do you have?', false) : reply('this is useless, bye', true);
      return reply('no, not what i want', true);
    case 5: // never ends: the turn cap does
      return reply('hmm, anything cheaper?', false);
    case 6: // rejects shown items and leaves
      return shown ? reply('none of these, no thanks', true) : reply('something for winter', false);
    default: // accepts the second item as soon as anything is shown
      return shown ? reply('the second one is good, i will buy it', true) : reply('any colour is fine', false);
  }
}

describe('LLM user runs keep the behavioural invariants', () => {
  let fake: FakeOpenAI;
  before(async () => {
    fake = await FakeOpenAI.start({
      handler: (req) => (promptKind(req) === 'user' ? variedShopper(req) : simulationScript()(req)),
    });
  });
  after(async () => {
    await fake.close();
  });

  for (const agent of ['local-good', 'local-bad', 'llm-good']) {
    test(
      `50 varied scripted shoppers vs ${agent}: no accept or early leave before items, every correction recorded, check passes`,
      { timeout: 60_000 },
      async () => {
        const n = 50;
        const env = await prepareEnvironment(
          parseSimulationConfig({
            user: 'llm-prompted',
            agent,
            n,
            seed: `llm-acts-${agent}`,
            catalog_size: 200,
            max_turns: 8,
          }),
          process.cwd(),
          { llm: testServices(fake.url) },
        );
        const checker = new InvariantChecker({ catalog: env.catalog, maxTurns: env.maxTurns, examples: 3 });
        const conversations: Conversation[] = [];
        for (let i = 0; i < n; i++) {
          const { conversation } = await simulateConversation(env, i);
          conversations.push(conversation);
          checker.add(conversation);
        }
        let corrections = 0;
        const styles = new Set<string>();
        for (const c of conversations) {
          styles.add(/\(style (\d)\)/.exec(c.turns[0]?.user_utterance ?? '')?.[1] ?? '?');
          assert.ok(c.outcome !== 'simulator_error', `${c.id}: ${JSON.stringify(c.metadata)}`);
          const last = c.turns.length - 1;
          const seenBefore = c.turns.slice(0, last).some((t) => (t.recommendations?.length ?? 0) > 0);
          if (c.outcome === 'accepted') {
            assert.ok(seenBefore, `${c.id} accepted without having seen an item`);
            assert.equal(c.turns[last].trace?.user_act, 'accept_recommendation');
          }
          c.turns.forEach((t, i) => {
            const tr = t.trace as Trace;
            const source = t.annotations?.find((a) => a.speaker === 'user' && a.annotator === 'source');
            assert.deepEqual(source?.acts, [tr.user_act], `${c.id} turn ${i}`);
            for (const corr of tr.llm_corrections ?? []) {
              corrections++;
              assert.ok(corr.result, `${c.id} turn ${i}: a correction without a result`);
              assert.ok(tr.warnings?.length, `${c.id} turn ${i}: a correction without a warning`);
            }
            if (i < last) assert.notEqual(tr.operation, 'end', `${c.id} turn ${i} ends before the last turn`);
          });
        }
        assert.ok(styles.size >= 6, `only styles ${[...styles].join(', ')}`);
        assert.ok(corrections >= 10, `only ${corrections} corrections`);
        const report = checker.report();
        assert.equal(report.conversations, n);
        assert.ok(
          report.invariants.find((r) => r.id === 'no-end-before-recommendation')?.status === 'pass',
          failures(report),
        );
        // Every invariant holds, accept-ends-dialogue included (it reads the ConvApparel accept too);
        // no-repetition aside: these scripted shoppers repeat their scripted lines by construction.
        assert.equal(failures(report, ['no-repetition']), '');
      },
    );
  }

  test("the run's early_quit reaches LLM users (simulate --early-quit)", async () => {
    fake.setHandler(() => reply('forget it, this is useless', true));
    try {
      for (const [earlyQuit, expected] of [
        [1, 'abandoned'],
        [undefined, undefined],
      ] as const) {
        const env = await prepareEnvironment(
          parseSimulationConfig({
            user: 'llm-prompted',
            agent: 'local-good',
            n: 1,
            seed: 'eq',
            catalog_size: 50,
            max_turns: 4,
            ...(earlyQuit === undefined ? {} : { early_quit: earlyQuit }),
          }),
          process.cwd(),
          { llm: testServices(fake.url) },
        );
        const conv = (await simulateConversation(env, 0)).conversation;
        if (expected) {
          assert.equal(conv.outcome, expected);
          assert.equal(conv.turns.length, 1);
          assert.equal((conv.turns[0].trace as Trace).end_reason, 'early_quit');
        } else {
          // Without it the leave is refused and the dialogue goes on to the cap.
          assert.ok(conv.turns.length > 1, JSON.stringify(conv.turns.map((t) => t.trace?.end_reason)));
          assert.notEqual((conv.turns[0].trace as Trace).end_reason, 'early_quit');
        }
      }
    } finally {
      fake.setHandler(simulationScript({ userTurns: 3 }));
    }
  });

  test('accept-ends-dialogue reads the ConvApparel accept of LLM users', async () => {
    const env = await prepareEnvironment(
      parseSimulationConfig({
        user: 'llm-prompted',
        agent: 'local-good',
        n: 10,
        seed: 'llm-acts-todo',
        catalog_size: 200,
        max_turns: 8,
      }),
      process.cwd(),
      { llm: testServices(fake.url) },
    );
    const checker = new InvariantChecker({
      catalog: env.catalog,
      maxTurns: env.maxTurns,
      only: ['accept-ends-dialogue'],
    });
    for (let i = 0; i < 10; i++) checker.add((await simulateConversation(env, i)).conversation);
    assert.ok(checker.report().ok, failures(checker.report()));
  });
});
