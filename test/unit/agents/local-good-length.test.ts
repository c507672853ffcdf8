import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import type { Conversation } from '../../../src/core/model';
import { createAgent } from '../../../src/core/sim/recommenders/index';
import { createRng } from '../../../src/core/random';
import { parseSimulationConfig, prepareEnvironment } from '../../../src/core/run/config';
import { simulateConversation } from '../../../src/core/run/conversation';
import { FEATURE_NOTES, MATERIAL_NOTES, pluralNoun } from '../../../src/core/sim/recommenders/local/phrases';
import { Lexicon } from '../../../src/core/sim/recommenders/local/lexicon';
import type { Catalog } from '../../../src/core/catalog/item';

/**
 * Issue 21, item 3 (sixteenth round): local-good says what its acts say in fewer words. The
 * bounds below hold with the round's rules and fail without them (seeded runs: target-free users
 * 20.0 words per agent utterance before, 18.1 after; agenda users 18.1 before, 16.9 after).
 */

const TOKEN = /[a-z0-9]+(?:'[a-z]+)?/g;
const words = (s: string) => (s.toLowerCase().match(TOKEN) ?? []).length;

async function run(user: string, n: number, seed: string): Promise<{ catalog: Catalog; convs: Conversation[] }> {
  const env = await prepareEnvironment(
    parseSimulationConfig({ user, agent: 'local-good', n, seed, catalog_size: 800 }),
  );
  const convs: Conversation[] = [];
  for (let i = 0; i < n; i++) convs.push((await simulateConversation(env, i)).conversation);
  return { catalog: env.catalog, convs };
}

const acts = (t: Conversation['turns'][number]) =>
  (t.annotations ?? []).find((a) => a.speaker === 'assistant')?.acts ?? [];

describe('local-good: shorter utterances (issue 21, item 3)', () => {
  test('words per agent utterance over seeded runs stay under a bound', async () => {
    for (const [user, bound] of [
      ['target-free', 18.8],
      ['agenda', 17.6],
    ] as const) {
      const { convs } = await run(user, 120, 'length-16');
      let total = 0;
      let utterances = 0;
      for (const c of convs)
        for (const t of c.turns) {
          total += words(t.assistant_utterance ?? '');
          utterances++;
        }
      const mean = total / utterances;
      assert.ok(utterances > 500, `${user}: ${utterances} utterances`);
      assert.ok(mean <= bound, `${user}: ${mean.toFixed(2)} words per utterance (bound ${bound})`);
    }
  });

  test('a reason (a note on a feature or material) is said of an item once per conversation', async () => {
    const { convs } = await run('target-free', 80, 'reasons-16');
    const notes = [...MATERIAL_NOTES.flatMap((n) => n.say), ...Object.values(FEATURE_NOTES).flat()];
    let said = 0;
    const repeats: string[] = [];
    for (const c of convs) {
      const seen = new Set<string>();
      for (const t of c.turns) {
        const top = t.recommendations?.[0]?.item_id;
        if (!top || !acts(t).includes('recommend')) continue;
        for (const note of notes) {
          if (!(t.assistant_utterance ?? '').includes(note)) continue;
          said++;
          const key = `${top}\u0000${note}`;
          if (seen.has(key)) repeats.push(`${c.id}: ${t.assistant_utterance}`);
          seen.add(key);
        }
      }
    }
    assert.ok(said > 100, `only ${said} notes said`);
    assert.deepEqual(repeats.slice(0, 3), [], `${repeats.length} notes said again of the same item`);
  });

  test('a question beside a carousel gives no examples (the items on screen are the examples)', async () => {
    const { catalog, convs } = await run('target-free', 80, 'follow-16');
    const lexicon = Lexicon.for(catalog);
    let asked = 0;
    const listed: string[] = [];
    for (const c of convs)
      for (const t of c.turns) {
        const a = acts(t);
        if (!a.includes('recommend') || !a.includes('elicit_preference')) continue;
        const question = (t.assistant_utterance ?? '').split(/(?<=[.!?])\s+/).find((s) => s.endsWith('?'));
        if (!question) continue;
        asked++;
        // examples name two or more values of one slot; gender and budget questions name their few
        // values in every wording ("women's, men's or unisex")
        const perSlot = new Map<string, number>();
        for (const m of lexicon.parse(question).mentions)
          if (m.slot !== 'gender' && m.slot !== 'price_band') perSlot.set(m.slot, (perSlot.get(m.slot) ?? 0) + 1);
        if ([...perSlot.values()].some((k) => k >= 2)) listed.push(question);
      }
    assert.ok(asked > 50, `only ${asked} questions beside a carousel`);
    assert.deepEqual(listed.slice(0, 3), [], `${listed.length} of ${asked} questions listed examples`);
  });

  test('an occasion is never said as a feature ("with an everyday wear")', async () => {
    const { convs } = await run('target-free', 80, 'occasion-16');
    const bad: string[] = [];
    for (const c of convs)
      for (const t of c.turns)
        if (
          /\bwith (?:an? )?(?:everyday wear|parties and nights out|travel days|lounging at home)\b/i.test(
            t.assistant_utterance ?? '',
          )
        )
          bad.push(t.assistant_utterance ?? '');
    assert.deepEqual(bad.slice(0, 3), [], `${bad.length} utterances`);
  });
});

describe('local-good: a relaxation is said once per wish', () => {
  test('asked again for more, the same relaxed type is not announced again', async () => {
    const env = await prepareEnvironment(
      parseSimulationConfig({ user: 'agenda', agent: 'local-good', n: 1, seed: 'relax-16', catalog_size: 800 }),
    );
    const catalog = env.catalog;
    const relaxedSentence = (u: string) => u.split(/(?<=[.!?])\s+/).some((s) => !s.endsWith('?') && /\btype\b/.test(s));
    let checked = 0;
    for (const type of catalog.attributeValues('type')) {
      for (const colour of catalog.attributeValues('colour').slice(0, 6)) {
        const session = createAgent('local-good', { catalog }).createSession('r', createRng(`${type}-${colour}`), {});
        const first = await session.respond(`I want ${colour} ${pluralNoun(type)} for men, in silk.`, []);
        const filters = (first.agent_trace as { filters?: Record<string, unknown> } | undefined)?.filters ?? {};
        if (filters.type !== undefined || !first.recommendations.length) continue;
        // the type was relaxed on the first carousel: said there
        assert.ok(relaxedSentence(first.utterance), first.utterance);
        const more = await session.respond('Do you have any more?', []);
        const again = (more.agent_trace as { filters?: Record<string, unknown> } | undefined)?.filters ?? {};
        if (again.type !== undefined) continue;
        assert.ok(!relaxedSentence(more.utterance), `said again: ${more.utterance}`);
        checked++;
        if (checked >= 5) return;
      }
    }
    assert.ok(checked > 0, 'no relaxed search found');
  });
});

describe('local-good: an item explained without what its title says', () => {
  test('a colour the title shows is not said again', async () => {
    const env = await prepareEnvironment(
      parseSimulationConfig({ user: 'agenda', agent: 'local-good', n: 1, seed: 'explain-16', catalog_size: 800 }),
    );
    const catalog = env.catalog;
    let checked = 0;
    for (const colour of catalog.attributeValues('colour')) {
      const session = createAgent('local-good', { catalog }).createSession('e', createRng(colour), {});
      const first = await session.respond(`I'd like ${colour} tops, no preference otherwise.`, []);
      const top = first.recommendations
        .map((r) => catalog.get(r.item_id)!)
        .find((it) => it.title.toLowerCase().includes(colour));
      if (!top || top.attributes.occasion === undefined) continue;
      const answer = (await session.respond(`Tell me more about ${top.title}.`, [])).utterance;
      const rest = answer.split(top.title).join(' ').toLowerCase();
      assert.ok(!new RegExp(`\\b${colour}\\b`).test(rest), `colour said again: ${answer}`);
      checked++;
    }
    assert.ok(checked >= 5, `only ${checked} items explained`);
  });
});
