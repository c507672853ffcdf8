import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { FakeOpenAI } from '../../support/fakeOpenAI';
import { simulationScript } from '../../support/llmScripts';
import { smallCatalog, testServices } from '../../support/llm';
import { playScript } from '../../support/agents';
import { createRng } from '../../../src/core/random';
import { createLlmAgent, EMPTY_REPLY_RETRIES } from '../../../src/core/sim/recommenders/llm';
import { LlmError } from '../../../src/core/llm/errors';
import { stopsRun } from '../../../src/core/run/llm';
import { parseSimulationConfig, prepareEnvironment } from '../../../src/core/run/config';
import { simulateConversation } from '../../../src/core/run/conversation';
import type { AgentResponse } from '../../../src/core/sim/types';

describe('LLM recommenders: retrieval, reading of the user, failures', () => {
  let fake: FakeOpenAI;
  before(async () => {
    fake = await FakeOpenAI.start({ handler: simulationScript() });
  });
  after(async () => {
    await fake.close();
  });

  async function play(
    behaviour: 'good' | 'bad',
    script: string[],
    seed = 's',
    task = 'footwear',
  ): Promise<AgentResponse[]> {
    const agent = createLlmAgent(testServices(fake.url), behaviour, { catalog: smallCatalog(), k: 4 });
    const session = agent.createSession('c', createRng(seed), { task });
    return playScript(session, script);
  }

  test('llm-bad still shows items when its one-word query matches nothing, and records how it broadened', async () => {
    const [first, second] = await play('bad', ['looking for comfy black boots', 'something cheaper maybe?']);
    assert.ok(first.recommendations.length > 0);
    assert.equal(first.agent_trace?.fallback, undefined);
    assert.equal(first.agent_trace?.query?.split(' ').length, 1, "one word, as ConvApparel's bad agent");
    // "something cheaper maybe" has no word the catalog uses: the search falls back to all the user's words
    assert.ok(second.recommendations.length > 0, 'no items shown');
    assert.equal(second.agent_trace?.fallback, 'all_messages');
    assert.match(second.agent_trace?.query ?? '', /boots/);
    assert.deepEqual(second.agent_trace?.filters, { category: 'footwear' });
    assert.equal(second.agent_trace?.retrieved, second.recommendations.length);
    assert.ok(second.recommendations.every((r) => r.category === 'footwear'));
  });

  test('llm-bad with nothing searchable at all shows items of the category (seeded, so reproducible)', async () => {
    const [a] = await play('bad', ['hmm ok'], 'x');
    const [b] = await play('bad', ['hmm ok'], 'x');
    assert.ok(a.recommendations.length > 0);
    assert.equal(a.agent_trace?.fallback, 'category');
    assert.ok(a.recommendations.every((r) => r.category === 'footwear'));
    assert.equal(JSON.stringify(a.agent_trace), JSON.stringify(b.agent_trace));
    assert.deepEqual(a.recommendations, b.recommendations);
  });

  test('llm-good leaves negated values out of its search and its carousel, until taken back', async () => {
    const [r1, r2, r3] = await play('good', [
      'boots please, but nothing in leather',
      'waterproof ones',
      'actually leather is fine too',
    ]);
    const material = (r: AgentResponse) =>
      r.recommendations.map((x) => smallCatalog().get(x.item_id)!.attributes.material);
    assert.deepEqual(r1.agent_trace?.negated, ['leather']);
    assert.doesNotMatch(r1.agent_trace?.query ?? '', /leather/);
    assert.ok(r1.recommendations.length > 0);
    assert.ok(!material(r1).includes('leather'), material(r1).join(', '));
    assert.ok(!material(r2).includes('leather'), `later turn: ${material(r2).join(', ')}`);
    assert.deepEqual(r3.agent_trace?.negated, []);
    assert.ok(material(r3).includes('leather'), 'taken back');
  });

  test('llm-good sets aside an item the user rejects by its title', async () => {
    const [r1, r2] = await play('good', ['black boots', 'Not Black leather ankle boots.']);
    assert.equal(r1.recommendations[0].item_id, 'f1');
    assert.ok(!r2.recommendations.some((r) => r.item_id === 'f1'));
    assert.deepEqual(r2.agent_trace?.negated, [], 'words of a title are not negated preferences');
  });

  test('an empty model reply is re-asked, then the turn fails as agent_llm; a dead endpoint still stops the run', async () => {
    fake.enqueue(...Array.from({ length: EMPTY_REPLY_RETRIES + 1 }, () => ({ content: '  ' })));
    const [r] = await play('good', ['black boots'], 'empty');
    assert.equal(r.error_kind, 'agent_llm');
    assert.match(r.error ?? '', /empty/);
    assert.equal(r.llm_calls?.length, EMPTY_REPLY_RETRIES + 1);
    fake.enqueue({ content: '' }, { content: 'Here you go.' });
    const [ok] = await play('good', ['black boots'], 'empty-once');
    assert.equal(ok.error, undefined);
    assert.equal(ok.utterance, 'Here you go.');
    fake.enqueue({ status: 500 }, { status: 500 });
    const agent = createLlmAgent(testServices(fake.url, { defaults: { maxRetries: 1 } }), 'bad', {
      catalog: smallCatalog(),
    });
    const err = await agent
      .createSession('d', createRng('d'), {})
      .respond('boots', [])
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    assert.ok(
      err instanceof LlmError && stopsRun(err),
      'transport failures stay run-stopping (resume redoes the conversation)',
    );
  });

  test('in a run, every llm-bad turn shows items and carries its reading; same seed, same reading', async () => {
    const services = testServices(fake.url);
    const n = 12;
    // what the agent did on each turn (the LLM call records carry the server's request ids, which differ)
    const run = async () => {
      const env = await prepareEnvironment(
        parseSimulationConfig({ user: 'llm-prompted', agent: 'llm-bad', n, seed: 3, max_turns: 6 }),
        process.cwd(),
        { llm: services },
      );
      const out: { user?: string; items: string[]; agent: unknown }[] = [];
      for (let i = 0; i < n; i++) {
        for (const t of (await simulateConversation(env, i)).conversation.turns) {
          if (t.assistant_utterance === undefined) continue;
          out.push({
            user: t.user_utterance,
            items: (t.recommendations ?? []).map((r) => r.item_id),
            agent: t.trace?.agent,
          });
        }
      }
      return out;
    };
    const a = await run();
    assert.ok(a.length >= 2 * n, `${a.length} turns`);
    for (const t of a) {
      assert.ok(t.items.length > 0, `no items after "${t.user}"`);
      assert.ok(
        t.agent && typeof (t.agent as { query?: unknown }).query === 'string',
        `no agent reading after "${t.user}"`,
      );
    }
    assert.equal(JSON.stringify(await run()), JSON.stringify(a));
  });
});
