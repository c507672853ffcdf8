import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { FakeOpenAI } from '../../support/fakeOpenAI';
import { simulationScript, promptKind } from '../../support/llmScripts';
import { testServices, smallCatalog, tmpDir } from '../../support/llm';
import { createRng } from '../../../src/core/random';
import { createPromptedUser, createSftUser } from '../../../src/core/sim/users/llm/prompted';
import { createIclUser, filterPool } from '../../../src/core/sim/users/llm/icl';
import { createTargetFreeUser, sampleProfile } from '../../../src/core/sim/users/llm/targetFree';
import { TargetFreeUserSimulator } from '../../../src/core/sim/users/targetFree';
import { generateApparelCatalog } from '../../../src/core/catalog/apparel';
import { LlmError } from '../../../src/core/llm/errors';
import type { Conversation } from '../../../src/core/model';
import type { AgentResponse, UserSession, UserTurn } from '../../../src/core/sim/types';

const agentSays = (text: string, items: AgentResponse['recommendations'] = []): AgentResponse => ({
  utterance: text,
  recommendations: items,
});

async function play(session: UserSession, agentTurns = 5): Promise<UserTurn[]> {
  const turns = [await session.start()];
  for (let i = 0; i < agentTurns && !turns[turns.length - 1].done; i++) {
    turns.push(
      await session.respond(
        agentSays(`answer ${i}`, [
          { item_id: 'f1', title: 'Black leather ankle boots' },
          { item_id: 'f3', title: 'White canvas sneakers' },
        ]),
      ),
    );
  }
  return turns;
}

describe('LLM users against the loopback server', () => {
  let fake: FakeOpenAI;
  before(async () => {
    fake = await FakeOpenAI.start({ handler: simulationScript({ userTurns: 3 }) });
  });
  after(async () => {
    await fake.close();
  });

  test('prompted user: task in the system prompt, history in the user message, terminates', async () => {
    fake.requests.length = 0;
    const services = testServices(fake.url, {
      roles: { user: { model: 'user-model', temperature: 0.9, maxTokens: 120 } },
    });
    const user = createPromptedUser(services);
    const turns = await play(user.createSession('c1', createRng('s'), { task: 'footwear' }));
    assert.equal(turns.length, 3);
    assert.equal(turns[0].utterance, 'looking for comfy black boots');
    assert.equal(turns[2].done, true);
    assert.equal(turns[2].outcome, 'accepted');
    assert.equal(turns[2].act, 'accept_recommendation');
    const reqs = fake.chatRequests;
    assert.equal(reqs.length, 3);
    const body = reqs[1].body!;
    assert.equal(body.model, 'user-model');
    assert.equal(body.temperature, 0.9);
    assert.equal(body.max_tokens, 120);
    assert.equal(typeof body.seed, 'number');
    const msgs = body.messages as Array<{ role: string; content: string }>;
    assert.equal(msgs[0].role, 'system');
    assert.match(msgs[0].content, /footwear \(sneakers, boots/);
    assert.match(msgs[0].content, /Terminate/);
    assert.match(
      msgs[1].content,
      /USER: looking for comfy black boots\nASSISTANT: answer 0\n {2}\[1\] Black leather ankle boots/,
    );
    // every turn's trace carries its LLM call record
    assert.equal(turns[1].trace.llm_calls!.length, 1);
    assert.match(turns[1].trace.llm_calls![0].request_id!, /^req_fake_/);
  });

  test('a malformed reply is sent back with a repair request, then recorded when it stays malformed', async () => {
    fake.requests.length = 0;
    fake.enqueue({ content: 'Response:\nTerminate: False' }, { content: 'Response: ok boots\nTerminate: False' });
    const services = testServices(fake.url);
    const s = createPromptedUser(services).createSession('c2', createRng('s'), { task: 'footwear' });
    const t = await s.start();
    assert.equal(t.utterance, 'ok boots');
    const second = fake.chatRequests[1].body!.messages as Array<{ role: string; content: string }>;
    assert.equal(second.length, 4);
    assert.equal(second[2].role, 'assistant');
    assert.match(second[3].content, /could not be used \(the Response line is empty/);
    assert.equal(t.trace.llm_calls!.length, 2);

    fake.enqueue({ content: 'Response:\nTerminate: False' }, { content: '' }, { content: 'Response: \nTerminate: no' });
    const s2 = createPromptedUser(services, { maxRepairs: 2 }).createSession('c3', createRng('s2'), {
      task: 'footwear',
    });
    const bad = await s2.start();
    assert.equal(bad.done, true);
    assert.match(bad.trace.error!, /unusable after 3 attempts/);
  });

  test('transport failures propagate (the run must not store the conversation as finished)', async () => {
    fake.enqueue({ status: 500 }, { status: 500 }, { status: 500 });
    const services = testServices(fake.url, { defaults: { maxRetries: 2 } });
    const s = createPromptedUser(services).createSession('c4', createRng('s'), { task: 'footwear' });
    await assert.rejects(s.start(), (e: unknown) => e instanceof LlmError && e.details.status === 500);
  });

  test('the turn cap ends the session without another call', async () => {
    fake.setHandler(() => ({ content: 'Response: more please\nTerminate: False' }));
    try {
      const services = testServices(fake.url);
      const s = createPromptedUser(services, { maxTurns: 2 }).createSession('c5', createRng('s'), {
        task: 'outerwear',
      });
      const turns = await play(s, 5);
      assert.equal(turns.length, 3);
      assert.equal(turns[2].done, true);
      assert.equal(turns[2].utterance, '');
      assert.equal(turns[2].trace.llm_calls!.length, 0);
    } finally {
      fake.setHandler(simulationScript({ userTurns: 3 }));
    }
  });

  test('with a cache, a rerun with the same seed gives the same conversation and makes no request', async () => {
    const cacheDir = tmpDir();
    const run = async () =>
      play(
        createPromptedUser(testServices(fake.url, { cacheDir })).createSession('c6', createRng('same'), {
          task: 'footwear',
        }),
      );
    const first = await run();
    const served = fake.served;
    const second = await run();
    assert.equal(fake.served, served);
    assert.deepEqual(
      second.map((t) => t.utterance),
      first.map((t) => t.utterance),
    );
    assert.ok(second.every((t) => t.trace.llm_calls!.every((c) => c.cached)));
  });

  test('sft user sends role-flipped chat turns with the user-sft prompt', async () => {
    fake.requests.length = 0;
    const s = createSftUser(testServices(fake.url, { roles: { user: { model: 'ft:my-user' } } })).createSession(
      'c7',
      createRng('s'),
      { task: 'footwear' },
    );
    await s.start();
    await s.respond(agentSays('what size?'));
    const msgs = fake.chatRequests[1].body!.messages as Array<{ role: string; content: string }>;
    assert.equal(fake.chatRequests[1].body!.model, 'ft:my-user');
    assert.match(msgs[0].content, /You are a shopper looking for footwear/);
    assert.deepEqual(
      msgs.slice(1).map((m) => m.role),
      ['user', 'assistant', 'user'],
    );
    assert.equal(msgs[2].content, 'Response: need running shoes\nTerminate: False');
    assert.equal(msgs[3].content, 'what size?');
  });
});

function humanConv(id: string, condition: string, task: string, lines: string[]): Conversation {
  return {
    id,
    task_id: `${task}_${condition}`,
    turns: lines.map((l) => ({ user_utterance: l, assistant_utterance: `reply to ${l}` })),
  };
}

describe('ICL user', () => {
  let fake: FakeOpenAI;
  before(async () => {
    fake = await FakeOpenAI.start({ handler: simulationScript({ userTurns: 2 }) });
  });
  after(async () => {
    await fake.close();
  });

  const pool: Conversation[] = [
    humanConv('g1', 'good', 'footwear', ['need hiking boots waterproof', 'the grey ones']),
    humanConv('g2', 'good', 'footwear', ['white sneakers casual', 'ok thx']),
    humanConv('g3', 'good', 'footwear', ['red heels for a party']),
    humanConv('g4', 'good', 'outerwear', ['warm wool coat']),
    humanConv('b1', 'bad', 'footwear', ['black leather boots please', 'why trivia??']),
    { ...humanConv('s1', 'good', 'footwear', ['black boots']), source: 'llm-prompted' },
  ];

  test('filterPool keeps human conversations of the condition and complains when none is left', () => {
    assert.deepEqual(
      filterPool(pool, { condition: 'good' }).map((c) => c.id),
      ['g1', 'g2', 'g3', 'g4'],
    );
    assert.throws(() => filterPool(pool, { condition: 'ugly' }), /ICL pool is empty/);
  });

  test('BM25 retrieval of the k most similar good conversations goes into the system prompt', async () => {
    fake.requests.length = 0;
    const services = testServices(fake.url);
    const user = createIclUser(services, pool, { condition: 'good', k: 2 });
    assert.match(user.name, /bm25, good only/);
    const s = user.createSession('i1', createRng('s'), { task: 'footwear' });
    await s.start();
    const t2 = await s.respond(agentSays('Do you want waterproof hiking boots?'));
    const sys = (fake.chatRequests[1].body!.messages as Array<{ content: string }>)[0].content;
    assert.match(sys, /Example 1:\nUSER: need hiking boots waterproof/);
    assert.ok(!sys.includes('black leather boots please'), 'bad-condition conversation leaked into the examples');
    assert.ok(!sys.includes('warm wool coat'), 'other-task conversation used though 3 footwear ones exist');
    const ex = (t2.trace as { icl_examples?: Array<{ id: string }> }).icl_examples!;
    assert.equal(ex.length, 2);
    assert.equal(ex[0].id, 'g1');
  });

  test('the embeddings endpoint is used when configured', async () => {
    fake.requests.length = 0;
    const services = testServices(fake.url, { roles: { embeddings: { model: 'fake-embed' } } });
    const user = createIclUser(services, pool, { condition: 'good', k: 1 });
    assert.match(user.name, /embeddings/);
    const s = user.createSession('i2', createRng('s'), { task: 'footwear' });
    await s.start();
    const t = await s.respond(agentSays('red party heels?'));
    const embedReqs = fake.requests.filter((r) => r.path.endsWith('/embeddings'));
    assert.ok(embedReqs.length >= 2);
    assert.equal(embedReqs[0].body!.model, 'fake-embed');
    assert.equal((t.trace as { icl_retriever?: string }).icl_retriever, 'embeddings');
  });
});

describe('target-free user (PEPPER)', () => {
  let fake: FakeOpenAI;
  before(async () => {
    fake = await FakeOpenAI.start({ handler: simulationScript({ userTurns: 3 }) });
  });
  after(async () => {
    await fake.close();
  });

  test('sampled profiles: seeded, targets unseen, history size counts the targets', () => {
    const catalog = smallCatalog();
    const a = sampleProfile(catalog, 'footwear', createRng('p'), 'u1', 4, 2);
    const b = sampleProfile(catalog, 'footwear', createRng('p'), 'u1', 4, 2);
    assert.deepEqual(a, b);
    assert.ok(a.targets!.length >= 1 && a.targets!.length <= 2);
    assert.equal(a.seen.length + a.targets!.length, 4);
    for (const t of a.targets!) assert.ok(!a.seen.some((s) => s.item_id === t));
  });

  test("sampled profiles are the rule-based target-free user's: same seen items, ratings and held-out targets", () => {
    const catalog = generateApparelCatalog({ size: 800 });
    for (const seed of [1, 2, 3, 4, 5, 6]) {
      const profile = sampleProfile(catalog, 'footwear', createRng(seed), 'u1');
      const session = new TargetFreeUserSimulator({ catalog }).createSession('c', createRng(seed), {
        task: 'footwear',
      });
      assert.deepEqual(profile.targets!.slice().sort(), session.targets, `seed ${seed}: targets`);
      assert.deepEqual(
        profile.seen.map((s) => [s.item_id, s.rating]),
        [...session.seen.values()].map((r) => [r.item_id, r.rating]),
        `seed ${seed}: seen`,
      );
      // The seen items carry their synthetic reviews (the aspects the user liked and disliked).
      const review = session.seen.values().next().value!;
      if (review.liked.length) assert.match(profile.seen[0].review ?? '', /^Liked: /);
    }
  });

  test('general preferences once, reflections per shown item, then the reply; all in the trace', async () => {
    fake.requests.length = 0;
    const services = testServices(fake.url);
    const profile = {
      user_id: 'u9',
      seen: [
        { item_id: 'f1', title: 'Black leather ankle boots', rating: 5, review: 'Sturdy, warm, love them' },
        { item_id: 'f5', title: 'Red high heels', rating: 1, review: 'pinch badly' },
      ],
      targets: ['f7', 'f2'],
    };
    const user = createTargetFreeUser(services, { profiles: [profile] });
    const s = user.createSession('t1', createRng('s'), { task: 'footwear' });
    const first = await s.start();
    assert.deepEqual(fake.chatRequests.map(promptKind), ['general', 'user']);
    assert.match(first.trace.preferences!.general!, /comfortable, sturdy/);
    const second = await s.respond(
      agentSays('How about these?', [
        { item_id: 'f1', title: 'Black leather ankle boots' },
        { item_id: 'f3', title: 'White canvas sneakers' },
        { item_id: 'f7', title: 'Grey hiking boots' },
        { item_id: 'f4', title: 'Black running shoes' },
        { item_id: 'f6', title: 'Tan sandals' },
      ]),
    );
    assert.deepEqual(fake.chatRequests.map(promptKind), ['general', 'user', 'reflect', 'user']);
    const reflectPrompt = (fake.chatRequests[2].body!.messages as Array<{ content: string }>)[0].content;
    assert.match(reflectPrompt, /item_id f1: .*\n {3}SEEN: you rated it 5\/5; you wrote: Sturdy, warm, love them/);
    assert.ok(!reflectPrompt.includes('f6'), 'only the first 4 items are judged');
    assert.deepEqual(second.trace.preferences!.reflected, { f1: 'like', f3: 'dislike', f7: 'like', f4: 'dislike' });
    assert.equal(second.trace.preference_coverage, 0.5);
    const sys = (fake.chatRequests[3].body!.messages as Array<{ content: string }>)[0].content;
    assert.match(sys, /item f1: LIKE: sturdy and dark/);
    assert.ok(!sys.includes('f2') && !sys.includes('Brown suede'), 'a target leaked into the prompt');
    assert.equal(second.trace.llm_calls!.length, 2);
  });

  test('invalid reflection JSON is repaired once, then the turn fails as user_llm (never an opinion taken from an unusable answer)', async () => {
    fake.requests.length = 0;
    const services = testServices(fake.url);
    const user = createTargetFreeUser(services, { catalog: smallCatalog(), maxRepairs: 1 });
    const s = user.createSession('t2', createRng('s'), { task: 'footwear' });
    await s.start();
    fake.enqueue({ content: 'I like them all!' }, { content: '{"items": [{"item_id": "f1", "opinion": "meh"}]}' });
    const t = await s.respond(agentSays('these?', [{ item_id: 'f1', title: 'Black leather ankle boots' }]));
    assert.match(
      t.failure!.message,
      /reflected preferences unusable after 2 attempts: items\[0\]\.opinion must be "like" or "dislike"/,
    );
    assert.equal(t.failure!.reason, 'user_llm');
    assert.equal(t.done, true);
    assert.equal(t.utterance, '');
    // Both reflection calls are kept in the failed turn's trace.
    assert.equal(
      t.trace.llm_calls!.filter((c) => (c as { purpose?: string }).purpose?.startsWith('user.reflect')).length,
      2,
    );
  });
});
