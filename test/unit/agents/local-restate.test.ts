/**
 * Eighteenth round (issue 21, item 3, recommender side): the local recommenders do not restate
 * what they said the turn before. local-bad's carousel lead does not name the same wish again
 * ("Here are some cream shoes" turn after turn): it names the new top item by its details, or
 * says "a few more"; a misreading is still said. local-good answers a rejection that follows a
 * rejection without apologising again.
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { generateApparelCatalog } from '../../../src/core/catalog/catalog';
import { createRng } from '../../../src/core/random';
import { LocalBadAgent, type LocalBadSession } from '../../../src/core/sim/recommenders/local/bad';
import { LocalGoodAgent } from '../../../src/core/sim/recommenders/local/good';
import { GOOD_FRAMES, GOOD_VARIANTS, expandOne, shortWanted } from '../../../src/core/sim/recommenders/local/phrases';

const catalog = generateApparelCatalog({ seed: 'restate', size: 800 });

describe('local recommenders: no restating the turn before', () => {
  test('local-bad: a carousel lead does not name the wish the lead before named (unless misheard)', () => {
    const agent = new LocalBadAgent(catalog);
    const script = ['I want tops', 'Something black, please', 'More please', 'Show me more', 'Any others?', 'More'];
    let same = 0;
    let restated = 0;
    for (let i = 0; i < 120; i++) {
      const session = agent.createSession(`c${i}`, createRng(`restate-bad-${i}`), {}) as LocalBadSession;
      let before: string | undefined;
      for (const line of script) {
        const { utterance, recommendations } = session.reply(line);
        const wish = recommendations.length ? shortWanted(session.state) : undefined;
        if (wish !== undefined && wish === before && !session.lastBehaviours.includes('misread')) {
          same++;
          if (utterance.includes(wish)) restated++;
        }
        before = wish;
      }
    }
    // before the eighteenth round, 354 of these 480 leads named the same wish again
    assert.ok(same > 200, `${same} turns wanting what the turn before wanted`);
    assert.equal(restated, 0, `${restated} of ${same} leads named the same wish again`);
  });

  test('local-good: a rejection right after a rejection is answered without a second apology, in a new way each time', () => {
    const agent = new LocalGoodAgent(catalog);
    const script = [
      'I want tops',
      'Show me some',
      "I don't like these",
      "I don't like these either",
      'Not these',
      "I don't like these",
    ];
    // the openings of the apologising frames (GOOD_FRAMES.rejected and GOOD_VARIANTS.rejected)
    const apologies =
      /^(?:No problem|Fair enough|Understood|Okay|Sorry|Got it|Noted|Right|Message received|Gotcha|Righto|Scrapping|Point taken|Back to the drawing|Fair point|Those missed|Scratch those|Apologies|Clean slate|Taking that|Duly noted|Lesson learnt|Onwards)/;
    // the openings of the frames that answer it (`GOOD_FRAMES.rejectedAgain`), before "the <item>"
    const openings = new Set<string>();
    const rng = createRng('openings');
    for (let k = 0; k < 400; k++)
      openings.add(expandOne(rng, GOOD_FRAMES.rejectedAgain, { t: 'ITEM', why: 'y' }).split('the ITEM')[0]);
    const opening = (text: string) => [...openings].find((o) => text.startsWith(`${o}the `));
    let second = 0;
    let pairs = 0;
    for (let i = 0; i < 80; i++) {
      const session = agent.createSession(`c${i}`, createRng(`restate-good-${i}`), {});
      let rejectedBefore = false;
      let lastOpening: string | undefined;
      for (const line of script) {
        const r = session.reply(line);
        const rejecting = /^(?:I don't|None|Not)/.test(line) && (r.acts ?? []).includes('recommend');
        if (rejecting && rejectedBefore && !r.agent_trace?.['price_step_undone']) {
          second++;
          assert.doesNotMatch(r.utterance, apologies, r.utterance);
          const o = opening(r.utterance);
          assert.ok(o !== undefined, r.utterance);
          // nor the same opening as the second rejection answered just before
          if (lastOpening !== undefined) {
            pairs++;
            assert.notEqual(o.split(' ').slice(0, 2).join(' '), lastOpening, r.utterance);
          }
          lastOpening = o.split(' ').slice(0, 2).join(' ');
        } else lastOpening = undefined;
        rejectedBefore = rejecting;
      }
    }
    assert.ok(second > 80 && pairs > 40, `${second} second rejections, ${pairs} in a row`);
    // the first rejection still says sorry in its own way: the apologising frames are kept
    assert.ok(GOOD_FRAMES.rejected.length > 0 && GOOD_VARIANTS.rejected.length > 0);
  });
});
