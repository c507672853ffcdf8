import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { createAgent, Lexicon, sayableDetails } from '../../../src/core/sim/recommenders/index';
import { generateApparelCatalog, type Catalog } from '../../../src/core/catalog/catalog';
import { createRng } from '../../../src/core/random';
import { parseSimulationConfig, prepareEnvironment } from '../../../src/core/run/config';
import { simulateConversation } from '../../../src/core/run/conversation';
import type { AgentResponse } from '../../../src/core/sim/types';
import { playScript } from '../../support/agents';
import { valuePhrase } from '../../../src/core/sim/users/phrases';

/**
 * What the target-free user negated in an utterance, read from its own wording ("I'm not keen on
 * anything in spandex.", "I'm not into anything navy or pink."), independently of the agents' NLU:
 * each listed phrase is mapped back to the attribute value it was rendered from.
 */
function negatedByUser(catalog: Catalog, utterance: string): { slot: string; value: string }[] {
  const byPhrase = new Map<string, { slot: string; value: string }[]>();
  for (const slot of catalog.attributeNames()) {
    for (const value of catalog.attributeValues(slot)) {
      const p = valuePhrase(slot, value);
      const list = byPhrase.get(p) ?? [];
      list.push({ slot, value });
      byPhrase.set(p, list);
    }
  }
  const out: { slot: string; value: string }[] = [];
  for (const m of utterance.matchAll(
    /(?:not (?:keen on|into|fond of|after|one for|go for)|never (?:wear|buy|go for)) anything ([^.]*)/g,
  )) {
    for (const part of m[1].split(/, | or /)) out.push(...(byPhrase.get(part.trim()) ?? []));
  }
  return out;
}

/** Runs `n` target-free conversations against `agent`; counts negated values shown in the top 3. */
async function negationViolations(agent: string, n: number) {
  const env = await prepareEnvironment(
    parseSimulationConfig({ user: 'target-free', agent, n, seed: 'negation', typo_rate: 0, catalog_size: 3000 }),
  );
  let negated = 0;
  let sameTurn = 0;
  let later = 0;
  const examples: string[] = [];
  for (let i = 0; i < n; i++) {
    const { conversation } = await simulateConversation(env, i);
    const ruledOut = new Map<string, { slot: string; value: string }>();
    for (const t of conversation.turns) {
      for (const v of negatedByUser(env.catalog, t.user_utterance ?? '')) ruledOut.set(`${v.slot}=${v.value}`, v);
      const now = new Set(negatedByUser(env.catalog, t.user_utterance ?? '').map((v) => `${v.slot}=${v.value}`));
      negated += now.size;
      const top3 = (t.recommendations ?? []).slice(0, 3).map((r) => env.catalog.get(r.item_id)!);
      for (const [key, v] of ruledOut) {
        if (!top3.some((it) => it.attributes[v.slot] === v.value)) continue;
        if (now.has(key)) sameTurn++;
        else later++;
        if (examples.length < 3) examples.push(`${conversation.id}: "${t.user_utterance}" -> ${key} shown`);
      }
    }
  }
  return { negated, sameTurn, later, examples };
}

describe('local recommenders and what the user negated', () => {
  test('local-good never shows, in its top three, a value the target-free user ruled out', async () => {
    // 140 conversations: shorter ones since the eleventh round (a liked item is weighed once); 320
    // since the fourteenth (an opening rules out one value at most, not two: 62 negated values in 140)
    const r = await negationViolations('local-good', 320);
    assert.ok(r.negated > 100, `only ${r.negated} negated values: the check would prove nothing`);
    assert.equal(r.sameTurn, 0, `negated this turn and shown anyway: ${r.examples.join('; ')}`);
    assert.equal(r.later, 0, `negated earlier and shown later: ${r.examples.join('; ')}`);
  });

  const catalog = generateApparelCatalog({ seed: 'negation', size: 3000 });
  async function play(script: string[]): Promise<AgentResponse[]> {
    return playScript(createAgent('local-good', { catalog }).createSession('neg', createRng('neg'), {}), script);
  }

  test('a value ruled out stays out on later turns until the user takes it back', async () => {
    const rs = await play([
      'I need a top for women',
      "I'm not into anything black or white.",
      'show me more',
      'thanks',
      'go back to the earlier ones',
      'actually black would be fine',
    ]);
    const colours = (r: AgentResponse) => r.recommendations.map((x) => catalog.get(x.item_id)!.attributes.colour);
    for (const r of rs.slice(1, 5)) {
      assert.ok(
        !colours(r).includes('black') && !colours(r).includes('white'),
        `${r.utterance}: ${colours(r).join(', ')}`,
      );
    }
    assert.deepEqual(rs[1].agent_trace?.negated, ['black', 'white']);
    assert.ok(colours(rs[5]).includes('black'), 'taken back: black may come again');
  });

  test('"Not <title>." rejects that item', async () => {
    const rs = await play(['black sneakers for women please']);
    const first = rs[0].recommendations[0];
    assert.ok(first);
    const title = catalog.get(first.item_id)!.title;
    const [, r] = await play(['black sneakers for women please', `Not ${title}.`]);
    assert.equal(r.acts![0], 'recommend');
    assert.ok(!r.recommendations.some((x) => x.item_id === first.item_id), 'the rejected item is not shown again');
  });
  test('an item named by its place is read as its title is, by local-good and local-bad', async () => {
    const details = sayableDetails(catalog);
    let rejected = 0;
    let compared = 0;
    for (const spec of ['local-good', 'local-bad']) {
      const run = (words: string[]) =>
        playScript(createAgent(spec, { catalog }).createSession('neg', createRng('neg'), {}), [
          'black sneakers for women please',
          ...words,
        ]);
      // the agent's own first carousel (the same on every run: same seed, same words)
      const [opening] = await run([]);
      const [first, second] = opening.recommendations.map((x) => catalog.get(x.item_id)!);
      const detail = details(first)[0];
      assert.ok(detail, 'the first item has a detail a user may say');
      const pairs: [string, string][] = [
        ['Not the second one.', `Not ${second.title}.`],
        ['Not the second.', `Not ${second.title}.`],
        ['The second one, no thanks.', `${second.title}, no thanks.`],
        ['I like the first one.', `I like ${first.title}.`],
        ['I like the first one. The second, no thanks.', `I like ${first.title}. ${second.title}, no thanks.`],
        [
          `I like the first one, bonus marks for ${detail}. The second, no thanks.`,
          `I like ${first.title}, bonus marks for ${detail}. ${second.title}, no thanks.`,
        ],
        ["I'll take the second one.", `I'll take ${second.title}.`],
      ];
      for (const [place, title] of pairs) {
        const [, byPlace] = await run([place]);
        const [, byTitle] = await run([title]);
        const shown = (r: AgentResponse) => r.recommendations.map((x) => x.item_id);
        assert.deepEqual(shown(byPlace), shown(byTitle), `${spec}: "${place}"`);
        assert.deepEqual(byPlace.acts, byTitle.acts, `${spec}: "${place}"`);
        assert.deepEqual(byPlace.agent_trace?.negated, byTitle.agent_trace?.negated, `${spec}: "${place}"`);
        compared++;
        if (!shown(byPlace).includes(second.item_id)) rejected++;
        // the praise of a detail is said of the item: no query word
        for (const w of detail.split(/\W+/).filter((x) => x.length > 2))
          assert.doesNotMatch(byPlace.agent_trace?.query ?? '', new RegExp(`\\b${w}\\b`, 'i'), `${spec}: ${w}`);
      }
    }
    assert.equal(compared, 14);
    assert.ok(rejected >= 6, `the second item set aside in ${rejected} readings`);
    // a bare ordinal points at nothing ("at first"); "the last" is the carousel's last item
    const lexicon = Lexicon.for(catalog);
    const [opening] = await play(['black sneakers for women please']);
    const carousel = opening.recommendations.map((x) => catalog.get(x.item_id)!);
    const first = carousel[0];
    assert.deepEqual(lexicon.findItems(lexicon.parse('At first I wanted white'), [], carousel), []);
    // nor does "the first" before a noun of time or order; it does before anything else
    for (const phrase of [
      'This is the first time I shop here',
      'The last thing I need is grey',
      'the first step is a coat',
    ])
      assert.deepEqual(lexicon.findItems(lexicon.parse(phrase), [], carousel), [], phrase);
    assert.deepEqual(
      lexicon.findItems(lexicon.parse('I like the first, it is warm'), [], carousel).map((r) => r.item.item_id),
      [first.item_id],
    );
    const last = lexicon.findItems(lexicon.parse('Not the last one'), [], carousel);
    assert.deepEqual(
      last.map((r) => [r.item.item_id, r.start, r.end]),
      [[carousel[carousel.length - 1].item_id, 1, 4]],
    );
    // inside a typed title, a position word is the title's
    const titled = lexicon.findItems(lexicon.parse(`I like ${first.title}`), carousel, carousel);
    assert.deepEqual(
      titled.map((r) => r.item.item_id),
      [first.item_id],
    );
  });

  test('the details a user may say read as nothing; a feature that names a value is not one of them', () => {
    const details = sayableDetails(catalog);
    const lexicon = Lexicon.for(catalog);
    let said = 0;
    let held = 0;
    for (const category of catalog.categories())
      for (const item of catalog.categoryItems(category)) {
        const ok = details(item);
        said += ok.length;
        for (const d of ok) assert.ok(lexicon.readsNothing(d), d);
        held += item.features.length - ok.length;
      }
    assert.ok(said > 1000 && held > 1000, `${said} sayable, ${held} held back`);
    for (const f of ['Four-way stretch', 'Stacked heel', 'Relaxed fit', 'Reflective details', 'Shoe compartment'])
      assert.equal(lexicon.readsNothing(f.toLowerCase()), false, f);
    for (const f of ['storm flap', 'raglan sleeves', 'kangaroo pocket']) assert.equal(lexicon.readsNothing(f), true, f);
  });

  test('local-good and local-bad report their reading of each turn in agent_trace, deterministically', async () => {
    const script = ['I need shoes for women', "black please, but I'm not keen on anything in suede", 'show me more'];
    for (const spec of ['local-good', 'local-bad']) {
      const run = async () => {
        return playScript(createAgent(spec, { catalog }).createSession('t', createRng('trace'), {}), script);
      };
      const rs = await run();
      for (const r of rs) assert.ok(r.agent_trace, `${spec}: no agent_trace`);
      const t = rs[1].agent_trace!;
      assert.deepEqual(t.negated, ['suede'], spec);
      assert.equal(t.filters?.category, 'footwear', spec);
      // local-bad may mishear black (and says so in the trace): its query has what it heard
      const heard = (t as { misread?: { said: string; heard: string } }).misread;
      if (heard) assert.equal(heard.said, 'black');
      assert.ok((t.query ?? '').includes(heard?.heard ?? 'black'), `${spec}: ${t.query}`);
      assert.equal(t.retrieved, rs[1].recommendations.length, spec);
      if (spec === 'local-good') {
        assert.equal(t.filters?.gender, 'women|unisex');
        assert.doesNotMatch(t.query ?? '', /suede/);
        assert.ok(rs[1].recommendations.every((x) => catalog.get(x.item_id)!.attributes.material !== 'suede'));
      }
      assert.equal(
        JSON.stringify((await run()).map((r) => r.agent_trace)),
        JSON.stringify(rs.map((r) => r.agent_trace)),
        `${spec}: same seed, same trace`,
      );
    }
  });
  test('local-good drops a preference the user lets go of ("any colour is fine")', async () => {
    const rs = await play(['red heels for women', 'Actually, any colour is fine.']);
    const reds = (r: AgentResponse) =>
      r.recommendations.filter((x) => catalog.get(x.item_id)!.attributes.colour === 'red').length;
    assert.ok(reds(rs[0]) >= 3, `${reds(rs[0])} red items first`);
    assert.equal(rs[1].acts![0], 'recommend');
    assert.ok(reds(rs[1]) < reds(rs[0]), `still ${reds(rs[1])} red items of ${rs[1].recommendations.length}`);
    assert.deepEqual(rs[1].agent_trace?.relaxed, ['colour']);
  });
});
