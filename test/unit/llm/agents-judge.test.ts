import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { FakeOpenAI } from '../../support/fakeOpenAI';
import { simulationScript, judgeAnswer } from '../../support/llmScripts';
import { testServices, smallCatalog } from '../../support/llm';
import { createRng } from '../../../src/core/random';
import { createLlmAgent, retrievalQuery } from '../../../src/core/sim/recommenders/llm';
import {
  judgeConversation,
  validateJudge,
  firstPersonShare,
  withConversationAnnotation,
  judgeAnnotator,
} from '../../../src/core/llm/judge';
import { discriminateConversation } from '../../../src/core/llm/discriminator';
import { annotateAll } from '../../../src/core/llm/annotate';
import { sftExamples } from '../../../src/core/llm/sft';
import { PromptLibrary } from '../../../src/core/llm/templates';
import { BudgetExceededError, LlmOutputError } from '../../../src/core/llm/errors';
import type { Conversation } from '../../../src/core/model';

const conv: Conversation = {
  id: 'c1',
  task_id: 'footwear_good',
  turns: [
    {
      user_utterance: 'need black boots',
      assistant_utterance: 'Here are boots. Any size?',
      recommendations: [{ item_id: 'f1', title: 'Black leather ankle boots' }],
      ratings: { Satisfied: true },
    },
    {
      user_utterance: 'size 9, the first one',
      assistant_utterance: 'Great choice!',
      ratings: { Satisfied: false, Annoyed: true },
    },
  ],
};

/** One fake server, answering like a simulation, for every suite in this file. */
let fake: FakeOpenAI;
before(async () => {
  fake = await FakeOpenAI.start({ handler: simulationScript() });
});
after(async () => {
  await fake.close();
});

describe('LLM recommenders', () => {
  test('good agent: full-text retrieval in the task category, candidates in the prompt', async () => {
    fake.requests.length = 0;
    const services = testServices(fake.url, { roles: { recommender: { model: 'rec-model' } } });
    const agent = createLlmAgent(services, 'good', { catalog: smallCatalog(), k: 3 });
    assert.equal(agent.condition, 'good');
    const s = agent.createSession('a1', createRng('s'), { task: 'footwear' });
    const r = await s.respond('waterproof black boots', []);
    assert.equal(r.recommendations.length, 3);
    assert.equal(r.recommendations[0].item_id, 'f1');
    assert.ok(r.recommendations.every((i) => i.category === 'footwear'));
    assert.match(r.utterance, /options that match/);
    assert.equal(r.llm_calls![0].role, 'recommender');
    const body = fake.chatRequests[0].body!;
    assert.equal(body.model, 'rec-model');
    const msgs = body.messages as Array<{ content: string }>;
    assert.match(msgs[0].content, /Help the shopper find something/);
    assert.match(msgs[1].content, /\[1\] Black leather ankle boots \(waterproof, low heel\)/);
    assert.match(msgs[1].content, /The shopper just wrote: waterproof black boots/);
  });

  test('bad agent: one low-information word, partial-text retrieval, the unhelpful prompt', async () => {
    fake.requests.length = 0;
    const catalog = smallCatalog();
    const q = retrievalQuery('bad', ['i want waterproof black boots'], catalog, createRng('x'));
    assert.equal(q.split(/\s+/).length, 1);
    assert.equal(retrievalQuery('good', ['a', 'b'], catalog, createRng('x')), 'a b b');
    const agent = createLlmAgent(testServices(fake.url), 'bad', { catalog });
    await agent.createSession('a2', createRng('s'), { task: 'footwear' }).respond('i want waterproof black boots', []);
    assert.match(
      (fake.chatRequests[0].body!.messages as Array<{ content: string }>)[0].content,
      /deliberately weak assistant/,
    );
  });

  test('LLM errors propagate (the run stops and resumes later), including a spent budget', async () => {
    fake.enqueue({ status: 500 }, { status: 500 });
    const agent = createLlmAgent(testServices(fake.url, { defaults: { maxRetries: 1 } }), 'good', {
      catalog: smallCatalog(),
    });
    await assert.rejects(agent.createSession('a3', createRng('s'), {}).respond('boots', []), /HTTP 500/);
    const tight = createLlmAgent(testServices(fake.url, { budget: { maxRequests: 1 } }), 'good', {
      catalog: smallCatalog(),
    });
    const s = tight.createSession('a4', createRng('s'), {});
    await s.respond('boots', []);
    await assert.rejects(
      s.respond('more boots', [
        { speaker: 'user', text: 'boots' },
        { speaker: 'assistant', text: 'x' },
      ]),
      BudgetExceededError,
    );
  });
});

describe('judge', () => {
  test('valid JSON becomes a judge:<model> annotation with the fields', async () => {
    fake.requests.length = 0;
    const services = testServices(fake.url, { roles: { judge: { model: 'judge-m', temperature: 0 } } });
    const r = await judgeConversation(conv, services);
    assert.equal(r.annotation.annotator, 'judge:judge-m');
    assert.equal((r.annotation.fields as { user_satisfaction: number }).user_satisfaction, 4);
    const body = fake.chatRequests[0].body!;
    assert.equal(body.temperature, 0);
    assert.match(
      (body.messages as Array<{ content: string }>)[0].content,
      /USER: need black boots\nASSISTANT: Here are boots/,
    );
  });

  test('invalid JSON is sent back with the problem; still invalid after the repairs throws LlmOutputError', async () => {
    fake.requests.length = 0;
    fake.enqueue({ content: '{"user_sentiment": 4, "user_satisfaction": ' }, { content: judgeAnswer() });
    const services = testServices(fake.url);
    const r = await judgeConversation(conv, services);
    assert.equal(r.calls.length, 2);
    const repair = (fake.chatRequests[1].body!.messages as Array<{ content: string }>)[2].content;
    assert.match(
      repair,
      /could not be used: invalid fields: user_satisfaction: required field is missing \(expected a number\); user_frustration_annoyance: required field is missing/,
    );
    fake.enqueue({ content: 'no' }, { content: 'still no' }, { content: judgeAnswer({ user_confusion: 0 }) });
    await assert.rejects(judgeConversation({ ...conv, id: 'c2' }, services), LlmOutputError);
  });

  test('judge validation: first-person shares, Kendall tau, confusion matrices, acceptance accuracy', () => {
    assert.equal(firstPersonShare(conv, 'user_satisfaction'), 0.5);
    assert.equal(firstPersonShare(conv, 'user_frustration_annoyance'), 0.5);
    const mk = (i: number, sat: number, ticks: boolean[], found: string, accepted: boolean): Conversation =>
      withConversationAnnotation(
        {
          id: `v${i}`,
          turns: ticks.map((t) => ({ user_utterance: 'x', ratings: { Satisfied: t, Frustrated: !t } })),
          ratings: { 'Were you able to find a product?': found },
        },
        {
          annotator: judgeAnnotator('m'),
          fields: {
            user_satisfaction: sat,
            user_frustration_annoyance: 6 - sat,
            user_confusion: 1,
            recommendation_accepted: accepted,
          },
        },
      );
    const data = [
      mk(1, 5, [true, true], 'Yes', true),
      mk(2, 4, [true, false], 'Yes', true),
      mk(3, 2, [false, false], 'No', true),
      mk(4, 1, [false], 'No', false),
    ];
    const v = validateJudge(data);
    assert.equal(v.annotator, 'judge:m');
    assert.equal(v.judged, 4);
    const sat = v.fields.find((f) => f.field === 'user_satisfaction')!;
    assert.equal(sat.n, 4);
    assert.ok(sat.kendall_tau > 0.8, `tau ${sat.kendall_tau}`);
    assert.deepEqual(sat.confusion, [
      [1, 0],
      [1, 0],
      [0, 0],
      [0, 1],
      [0, 1],
    ]);
    const fr = v.fields.find((f) => f.field === 'user_frustration_annoyance')!;
    assert.ok(fr.kendall_tau > 0.8);
    assert.equal(v.acceptance.n, 4);
    assert.equal(v.acceptance.accuracy, 0.75);
    assert.deepEqual(v.acceptance.confusion, [
      [1, 0],
      [1, 2],
    ]);
  });
});

describe('discriminator, batch annotation, SFT export', () => {
  test('p_human annotation by discriminator:<model>', async () => {
    const r = await discriminateConversation(
      conv,
      testServices(fake.url, { roles: { discriminator: { model: 'd-m' } } }),
    );
    assert.equal(r.annotation.annotator, 'discriminator:d-m');
    assert.equal(r.annotation.fields!.p_human, 0.2);
    assert.equal(r.annotation.fields!.label, 'simulation');
  });

  test('annotateAll skips annotated conversations, collects failures, stops on a spent budget', async () => {
    const services = testServices(fake.url, { budget: { maxRequests: 2 } });
    const convs: Conversation[] = [0, 1, 2, 3].map((i) => ({ ...conv, id: `b${i}` }));
    convs[0] = withConversationAnnotation(convs[0], { annotator: 'judge:fake-chat', fields: {} });
    const report = await annotateAll(convs, async (c) => (await judgeConversation(c, services)).annotation, {
      concurrency: 1,
      skipAnnotator: 'judge:fake-chat',
    });
    assert.equal(report.skipped, 1);
    assert.equal(report.annotated, 2);
    assert.match(report.stopped!, /budget/);
    assert.equal(report.conversations.length, 4);
    assert.equal(report.conversations[3].annotations, undefined);
  });

  test('SFT: one example per user turn plus a stop example, roles flipped, condition filter', () => {
    const prompts = new PromptLibrary();
    const ex = sftExamples(conv, prompts) as Array<{ messages: Array<{ role: string; content: string }> }>;
    assert.equal(ex.length, 3);
    assert.deepEqual(
      ex[0].messages.map((m) => m.role),
      ['system', 'user', 'assistant'],
    );
    assert.equal(ex[0].messages[2].content, 'Response: need black boots\nTerminate: False');
    assert.deepEqual(
      ex[1].messages.map((m) => m.role),
      ['system', 'user', 'assistant', 'user', 'assistant'],
    );
    assert.match(ex[1].messages[3].content, /^Here are boots\. Any size\?\n {2}\[1\] Black leather ankle boots/);
    assert.equal(ex[1].messages[4].content, 'Response: size 9, the first one\nTerminate: False');
    assert.match(ex[2].messages[ex[2].messages.length - 1].content, /Terminate: True$/);
    assert.equal(sftExamples(conv, prompts, { condition: 'bad' }).length, 0);
    assert.equal(sftExamples({ ...conv, source: 'llm-icl' }, prompts).length, 0);
    const p = sftExamples(conv, prompts, { format: 'prompt', terminalExample: false }) as Array<{
      prompt: string;
      completion: string;
    }>;
    assert.equal(p.length, 2);
    assert.match(p[1].prompt, /SHOPPER:$/);
  });
});
