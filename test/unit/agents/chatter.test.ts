import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { generateApparelCatalog } from '../../../src/core/catalog/catalog';
import { catalogWords } from '../../../src/core/catalog/features';
import { createAgent, Lexicon } from '../../../src/core/sim/recommenders/index';
import { createRng } from '../../../src/core/random';
import type { AgentSession, HistoryEntry } from '../../../src/core/sim/types';
import type { LocalSession } from '../../../src/core/sim/recommenders/local/agent';

/**
 * The local agents keep only the user's free words the catalog knows (`catalogWords`): a request
 * reworded with other chatter ("ooh", "honestly", "bonus marks for") leaves their state, searches
 * and carousels as they were.
 */
describe('local agents ignore chatter', () => {
  const catalog = generateApparelCatalog({ size: 600 });
  const lex = Lexicon.for(catalog);

  test('free words are kept only when the catalog knows them', () => {
    const words = catalogWords(catalog);
    assert.ok(words.has('pocket') && words.has('navy') && words.has('footwear'));
    assert.ok(!words.has('honestly') && !words.has('ooh'));
    assert.deepEqual(lex.parse('Ooh, honestly, zip pockets would be the clincher').keywords, ['zip', 'pockets']);
    assert.deepEqual(lex.parse('kudos for the zip pockets, especially').keywords, ['zip', 'pockets']);
  });

  const plain = ["I'd like a jacket.", 'Navy, with zip pockets.', 'Something in wool.'];
  const chatty = [
    "Honestly, I'd like a jacket, alright?",
    'Ooh, navy, especially with zip pockets, bonus marks for that.',
    'Something in wool, since my friend swears by it.',
  ];

  for (const spec of ['local-good', 'local-bad']) {
    test(`${spec}: the same content with other chatter gives the same state and carousels`, async () => {
      const agent = createAgent(spec, { catalog });
      const run = async (utterances: string[]) => {
        const session = agent.createSession('c', createRng('chatter').fork('agent'), {}) as AgentSession &
          LocalSession<{ negated: string[] }>;
        const history: HistoryEntry[] = [];
        const seen: unknown[] = [];
        for (const u of utterances) {
          const r = await session.respond(u, history);
          history.push({ speaker: 'user', text: u }, { speaker: 'assistant', text: r.utterance });
          const { state } = session;
          seen.push({
            keywords: [...state.keywords],
            wanted: [...state.wanted],
            category: state.category,
            items: r.recommendations.map((x) => x.item_id),
            acts: r.acts,
            query: (r.agent_trace as { query?: string } | undefined)?.query,
          });
        }
        return seen;
      };
      const a = await run(plain);
      const b = await run(chatty);
      assert.deepEqual(b, a);
      assert.ok(
        a.some((s) => (s as { keywords: string[] }).keywords.includes('pockets')),
        'the catalog words are kept',
      );
    });
  }
});
