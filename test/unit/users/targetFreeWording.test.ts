/**
 * The target-free user's wording, thirteenth round (issue 21, class 13, user side): a wish is said
 * as a wish, never as a counter-question about it ("Would it be like a scarf?"); the opening
 * narrative's noun varies per user; a pass or a turn-down may name one of the item's own catalog
 * features, and then only one the item named in that turn has.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRng } from '../../../src/core/random';
import { generateApparelCatalog } from '../../../src/core/catalog/catalog';
import { Lexicon } from '../../../src/core/sim/recommenders/local/lexicon';
import { sayableDetails } from '../../../src/core/sim/recommenders/index';
import { TemplateNlg, defaultNlgTemplates } from '../../../src/core/sim/users/nlg';
import { NARRATIVE_NOUNS } from '../../../src/core/sim/users/targetFree';
import { parseSimulationConfig, prepareEnvironment, simulateConversation } from '../../../src/core/run/index';

/** A question whose subject is the thing the user wants ("Would it be ...?", "Can it also be ...?"). */
const COUNTER_QUESTION = /\b(?:would|could|can|will|should|might|may|is|does) it (?:\w+ )?(?:be|have|come)\b[^.!?]*\?/i;

test('a stated or added wish is never worded as a counter-question about it (review finding, 436 turns per 9,600 conversations)', () => {
  const nlg = new TemplateNlg({ typoRate: 0 });
  const rng = createRng('counter-question');
  const acts = Object.keys(defaultNlgTemplates().acts).filter((a) =>
    /^(Disclose|Reveal|Pepper\.(More|Lacks|Revise|Open))/.test(a),
  );
  assert.ok(acts.includes('Disclose') && acts.includes('Pepper.More'), acts.join(', '));
  const fill = { category: 'coats', value: 'like a scarf', attribute: 'colour', general: 'I like navy.' };
  const found: string[] = [];
  for (const act of acts)
    for (let i = 0; i < 400; i++) {
      const text = nlg.generate(act, fill, rng);
      if (COUNTER_QUESTION.test(text)) found.push(`${act}: ${text}`);
    }
  assert.deepEqual(found.slice(0, 5), []);
});

test("the opening narrative's noun varies between users; no noun reads as a value, no new one as a word of the catalog's items", async () => {
  const N = 120;
  const env = await prepareEnvironment(
    parseSimulationConfig({
      user: 'target-free',
      agent: 'local-good',
      n: N,
      seed: 'narrative-nouns',
      catalog_size: 800,
    }),
  );
  const lexicon = Lexicon.for(env.catalog);
  for (const noun of NARRATIVE_NOUNS) {
    const parsed = lexicon.parse(`I usually go for navy ${noun} in fleece.`);
    assert.deepEqual(
      parsed.mentions.map((m) => `${m.slot}=${m.value}`).sort(),
      ['colour=navy', 'material=fleece'],
      `"${noun}" reads as a value`,
    );
    for (const k of [...parsed.keywords, ...parsed.unknownWords])
      assert.ok(
        // "pieces", the one noun before this round, is a word of some item descriptions
        noun === 'pieces' ||
          k === 'navy' ||
          !env.catalog.categories().some((c) => env.catalog.categoryIndex(c).documentFrequency(k) > 0),
        `"${noun}": "${k}" is a word of the catalog's items`,
      );
  }
  const used = new Set<string>();
  for (let c = 0; c < N; c++) {
    const opening = (await simulateConversation(env, c)).conversation.turns[0]?.user_utterance ?? '';
    for (const noun of NARRATIVE_NOUNS) if (new RegExp(`\\b${noun}\\b`).test(opening)) used.add(noun);
  }
  assert.deepEqual([...used].sort(), [...NARRATIVE_NOUNS].sort());
});

test('a pass or a turn-down that names a feature names one of the item it turns down (its own catalog features)', async () => {
  const N = 80;
  const env = await prepareEnvironment(
    parseSimulationConfig({ user: 'target-free', agent: 'local-bad', n: N, seed: 'pass-features', catalog_size: 800 }),
  );
  const details = sayableDetails(env.catalog);
  const all = [...new Set(env.catalog.items.flatMap((i) => [...details(i)]))].sort((a, b) => b.length - a.length);
  // the wordings of Pepper.Pass and Pepper.Dislike that say {feature}
  const frames = [
    /almost had me with the (.+?), but/i,
    /tempted me with the (.+?); still/i,
    /(?:despite|for all) the (.+?), /i,
  ];
  const frames2 = [/has the (.+?), but /i, /(?:^|\. )the (.+?) aside, /i];
  let named = 0;
  const wrong: string[] = [];
  for (let c = 0; c < N; c++) {
    const conv = (await simulateConversation(env, c)).conversation;
    for (const t of conv.turns) {
      const text = t.user_utterance ?? '';
      const act = t.trace?.user_act;
      if (act !== 'Note.Dislike' && act !== 'Navigate.More' && act !== 'Note.Like') continue;
      const items = (t.trace?.said?.items ?? []).map((id) => env.catalog.get(id)).filter((x) => x !== undefined);
      const own = new Set(items.flatMap((i) => [...details(i)].map((d) => d.toLowerCase())));
      for (const re of [...frames, ...frames2]) {
        const m = re.exec(text);
        if (!m) continue;
        const said = m[1].toLowerCase();
        if (!all.some((f) => f.toLowerCase() === said)) continue; // not a feature frame (e.g. a title "has the")
        named++;
        if (!own.has(said)) wrong.push(`${conv.id} turn ${t.trace?.turn ?? '?'}: "${said}" in "${text}"`);
      }
    }
  }
  assert.deepEqual(wrong.slice(0, 5), []);
  assert.ok(named >= 20, `${named} features named in passes and turn-downs`);
});

test('every acceptance wording is read as taking the item by the local recommenders (they close the conversation on it)', () => {
  const lexicon = Lexicon.for(generateApparelCatalog({ size: 800, seed: 1 }));
  const nlg = new TemplateNlg({ typoRate: 0 });
  const missed = new Set<string>();
  for (let s = 0; s < 3000; s++) {
    const u = nlg.generate('Note.Accept', { item: 'Halden Navy Coat' }, createRng(`accept-${s}`));
    if (!lexicon.parse(u).intents.has('accept')) missed.add(u);
  }
  assert.deepEqual([...missed].slice(0, 5), [], `${missed.size} acceptances not read as one`);
});

test('an opening says one or two liked values and at most one not keen on, in frames of several kinds, and the local agents read exactly what its trace says (fourteenth round)', async () => {
  const N = 150;
  const frames = new Map<string, RegExp>([
    ['lead', /^(?!.*(?:Ideally something|would be ideal|Thinking something|Just nothing|, but nothing)).*$/],
    ['but nothing', /, but nothing /],
    ['ideally', /Ideally something /],
    ['would be ideal', /Something .+ would be ideal\./],
    ['thinking', /Thinking something /],
    ['just nothing', /\. Just nothing /],
  ]);
  const used = new Set<string>();
  const wrong: string[] = [];
  for (const meta of [undefined, 'tol'] as const) {
    const env = await prepareEnvironment(
      parseSimulationConfig({
        user: 'target-free',
        meta,
        agent: 'local-good',
        n: N,
        seed: 'openings-14',
        catalog_size: 800,
      }),
    );
    const lexicon = Lexicon.for(env.catalog);
    for (let c = 0; c < N; c++) {
      const first = (await simulateConversation(env, c)).conversation.turns[0];
      const text = first?.user_utterance ?? '';
      const said = first?.trace?.said ?? {};
      const liked = Object.entries(said.constraints ?? {})
        .filter(([k]) => k !== 'category')
        .map(([k, v]) => `${k}=${String(v)}`)
        .sort();
      const negated = [...(said.negated ?? [])].sort();
      // no liked value at all only for a user that likes none ("I am open to suggestions.")
      if (liked.length > 2 || negated.length > 1 || /(?:^|[.!?] )nothing /.test(text))
        wrong.push(`${liked.length} liked, ${negated.length} not keen on: "${text}"`);
      const mentions = lexicon.parse(text).mentions.filter((m) => m.slot !== 'category');
      const read = [...new Set(mentions.filter((m) => !m.negated).map((m) => `${m.slot}=${m.value}`))].sort();
      const readNot = [...new Set(mentions.filter((m) => m.negated).map((m) => m.value))].sort();
      if (read.join() !== liked.join() || readNot.join() !== negated.join())
        wrong.push(
          `read ${read.join()} / not ${readNot.join()}, said ${liked.join()} / not ${negated.join()}: "${text}"`,
        );
      for (const [name, re] of frames) if (re.test(text)) used.add(name);
    }
  }
  assert.deepEqual(wrong.slice(0, 5), [], `${wrong.length} openings`);
  assert.deepEqual([...used].sort(), [...frames.keys()].sort());
});
