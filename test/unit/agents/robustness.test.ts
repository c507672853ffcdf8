import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { Catalog, generateApparelCatalog } from '../../../src/core/catalog/catalog';
import { createAgent } from '../../../src/core/sim/recommenders/index';
import { AGENT_ACTS } from '../../../src/core/taxonomy/acts';
import { createRng, type Rng } from '../../../src/core/random';
import type { AgentResponse, HistoryEntry } from '../../../src/core/sim/types';

const WORDS = [
  'hi',
  'hello',
  'thanks',
  'bye',
  'not',
  'no',
  "don't",
  'like',
  'love',
  'these',
  'more',
  'cheaper',
  'under',
  '$50',
  '200',
  'first',
  'second',
  'last',
  'one',
  "I'll",
  'take',
  'it',
  'black',
  'navy',
  'leather',
  'suede',
  'boots',
  'dress',
  'jacket',
  'for',
  'women',
  'men',
  'work',
  'wedding',
  'gym',
  'bag',
  'budget',
  'luxury',
  'but',
  'anything',
  '?',
  ',',
  '!',
  'Ünïcødé',
  '東京',
  '🙂',
  'rather',
  'than',
  'other',
  'something',
  'else',
  'show',
  'me',
  'what',
  'is',
  'made',
  'of',
  '#3',
  'number',
  '12',
];

function randomUtterance(rng: Rng): string {
  if (rng.chance(0.03)) return '';
  if (rng.chance(0.02)) return 'boots '.repeat(2000);
  const n = 1 + rng.int(12);
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(rng.pick(WORDS));
  return out.join(' ');
}

function checkShape(r: AgentResponse, where: string): void {
  assert.equal(typeof r.utterance, 'string', where);
  assert.ok(r.utterance.length > 0, `${where}: empty utterance`);
  assert.ok(Array.isArray(r.recommendations) && r.recommendations.length <= 12, where);
  assert.ok(r.acts && r.acts.length > 0, `${where}: no acts`);
  for (const a of r.acts) assert.ok(AGENT_ACTS.includes(a), `${where}: act ${a}`);
  assert.equal(
    new Set(r.recommendations.map((x) => x.item_id)).size,
    r.recommendations.length,
    `${where}: duplicate items`,
  );
}

async function fuzz(catalog: Catalog, conversations: number): Promise<void> {
  for (const spec of ['local-good', 'local-bad']) {
    const agent = createAgent(spec, { catalog });
    for (let c = 0; c < conversations; c++) {
      const rng = createRng(`fuzz/${c}`);
      const session = agent.createSession(`f${c}`, rng.fork('agent'), {});
      const history: HistoryEntry[] = [];
      for (let t = 0; t < 8; t++) {
        const u = randomUtterance(rng);
        const r = await session.respond(u, history);
        checkShape(r, `${spec} conversation ${c} turn ${t} after ${JSON.stringify(u.slice(0, 80))}`);
        history.push({ speaker: 'user', text: u }, { speaker: 'assistant', text: r.utterance });
      }
    }
  }
}

describe('local agents on arbitrary input', () => {
  test('random utterances never break either agent (synthetic catalog)', async () => {
    await fuzz(generateApparelCatalog({ size: 800 }), 150);
  });

  test('a bare imported catalog (no attributes) works too', async () => {
    const catalog = new Catalog([
      {
        item_id: 'a',
        title: 'Blue rain boots',
        description: 'Rubber boots for wet days.',
        features: ['Waterproof'],
        category: 'shoes',
        attributes: {},
      },
      {
        item_id: 'b',
        title: 'Red scarf',
        description: 'A knitted scarf.',
        features: [],
        category: 'accessories',
        attributes: {},
      },
      {
        item_id: 'c',
        title: 'Trail runners',
        description: 'Light running shoes.',
        features: ['Grippy'],
        category: 'shoes',
        attributes: { colour: 'grey' },
      },
    ]);
    await fuzz(catalog, 40);
    const session = createAgent('local-good', { catalog }).createSession('x', createRng(1), {});
    const r = await session.respond('I need shoes for rain', []);
    assert.equal(r.acts![0], 'recommend');
    assert.equal(r.recommendations[0].item_id, 'a');
  });
});
