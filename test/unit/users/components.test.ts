import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { createRng } from '../../../src/core/random';
import {
  AgentNlu,
  DEFAULT_AGENDA_RULE,
  FALLBACK_AGENDA,
  PkgPreferences,
  SingleItemPreferences,
  TemplateNlg,
  TransitionModel,
  addTypo,
  agentActClassifier,
  builtinAgentActExamples,
  createInteractionModel,
  createPreferenceModel,
  defaultAnswerMapping,
  defaultTransitionCounts,
  isAppropriateAnswer,
  sampleTaste,
  type Taste,
} from '../../../src/core/sim/users/index';
import { mainAct } from '../../../src/core/taxonomy/acts';
import { askedAttributes, questionSentences, valuePhrase } from '../../../src/core/sim/users/phrases';
import { tinyCatalog } from './fixtures';

const catalog = tinyCatalog();
const transitions = new TransitionModel(defaultTransitionCounts());

describe('interaction models', () => {
  for (const name of ['cir6', 'qrfa'] as const) {
    test(`${name}: initial agendas obey the KDD'20 rule and repeat with the seed`, () => {
      const model = createInteractionModel(name, { transitions });
      const rng = createRng(`agenda-${name}`);
      const lengths: number[] = [];
      for (let i = 0; i < 500; i++) {
        const { agenda, fallback } = model.initialAgenda(rng);
        assert.equal(fallback, false);
        assert.ok(agenda.length >= 1 && agenda.length <= DEFAULT_AGENDA_RULE.maxLength, `length ${agenda.length}`);
        assert.ok(
          agenda.slice(0, 5).some((a) => mainAct(a) === 'Disclose'),
          `no Disclose in ${agenda.join(' ')}`,
        );
        lengths.push(agenda.length);
      }
      assert.ok(new Set(lengths).size > 2, 'agendas should vary in length');
      const a = createInteractionModel(name, { transitions }).initialAgenda(createRng(42)).agenda;
      const b = createInteractionModel(name, { transitions }).initialAgenda(createRng(42)).agenda;
      assert.deepEqual(a, b);
    });
  }

  test('CIR6 agendas end with Complete (Stop is only reachable from it)', () => {
    const model = createInteractionModel('cir6', { transitions });
    const rng = createRng(3);
    for (let i = 0; i < 200; i++) {
      const { agenda } = model.initialAgenda(rng);
      assert.equal(agenda[agenda.length - 1], 'Complete');
      assert.ok(agenda.slice(0, -1).every((a) => a !== 'Complete'));
    }
  });

  test('a model whose chains never satisfy the rule falls back after maxAttempts', () => {
    const counts = defaultTransitionCounts();
    counts.cir6.Start = { Inquire: 100 };
    counts.cir6.Inquire = { Inquire: 100, Complete: 100 };
    const model = createInteractionModel('cir6', {
      transitions: new TransitionModel(counts, { alpha: 0 }),
      rule: { maxAttempts: 20 },
    });
    const r = model.initialAgenda(createRng(1));
    assert.equal(r.fallback, true);
    assert.deepEqual(r.agenda, FALLBACK_AGENDA);
  });

  test('appropriate answers: own entry, main-act entry, bare main act accepts sub-acts', () => {
    const m = defaultAnswerMapping();
    assert.equal(isAppropriateAnswer(m, 'Disclose', 'Inquire.Elicit'), true);
    assert.equal(isAppropriateAnswer(m, 'Disclose', 'Reveal.Similar'), true);
    assert.equal(isAppropriateAnswer(m, 'Inquire.List', 'Reveal.List'), true);
    assert.equal(isAppropriateAnswer(m, 'Inquire.List', 'Traverse.End'), false);
    assert.equal(isAppropriateAnswer(m, 'Navigate.More', 'Traverse.More'), true);
    assert.equal(isAppropriateAnswer(m, 'Navigate.More', 'Inquire.Elicit'), false);
    assert.equal(isAppropriateAnswer(m, 'Disclose', 'Other'), false);
    assert.equal(isAppropriateAnswer({ answers: { Note: ['Explain'] } }, 'Note.Like', 'Explain'), true);
  });

  test('QRFA replacements follow P(class | agent class)', () => {
    const model = createInteractionModel('qrfa', { transitions });
    const rng = createRng(9);
    const after = (agentAct: string) => Array.from({ length: 4000 }, () => model.replacement(agentAct, rng));
    const queryShare = (acts: string[]) =>
      acts.filter((a) => ['Disclose', 'Reveal', 'Inquire'].includes(mainAct(a)) || a === 'Navigate.Repeat').length /
      acts.length;
    const afterRequest = queryShare(after('Inquire.Elicit'));
    const expected =
      transitions.qrfaProbability('Request', 'Query') /
      (transitions.qrfaProbability('Request', 'Query') + transitions.qrfaProbability('Request', 'Feedback'));
    assert.ok(Math.abs(afterRequest - expected) < 0.03, `${afterRequest} vs ${expected}`);
    assert.ok(
      queryShare(after('Reveal.Show')) < afterRequest,
      'answers are followed by feedback more often than requests are',
    );
  });
});

describe('preference models', () => {
  const taste: Taste = {
    category: 'footwear',
    anchor: 'F000',
    liked: { colour: ['black'] },
    disliked: { material: ['suede'] },
  };
  // F000: black leather sneakers; F001: green suede boots; F002: blue canvas sandals (see fixtures).
  const items = ['F000', 'F001', 'F002', 'F003'].map((id) => catalog.get(id)!);

  test('PKG: item and attribute thresholds of the paper, acceptance by the attribute sum', () => {
    const history = [
      { item_id: 'F000', rating: 4.5 },
      { item_id: 'F001', rating: 1.5 },
      { item_id: 'F002', rating: 3 },
      { item_id: 'F003', rating: 4 },
    ];
    const p = new PkgPreferences(taste, history, catalog);
    const snap = p.snapshot();
    assert.deepEqual(snap.liked_items, ['F000', 'F003']);
    assert.deepEqual(snap.disliked_items, ['F001']);
    const ratingOf = (attr: string, value: string) => snap.attribute_ratings?.[`${attr}=${value}`];
    for (const [k, v] of Object.entries(items[0].attributes)) {
      const having = history.filter((h) => catalog.get(h.item_id)!.attributes[k] === v);
      const mean = having.reduce((s, h) => s + h.rating, 0) / having.length;
      assert.equal(ratingOf(k, v), Math.round(mean * 1000) / 1000, `${k}=${v}`);
      assert.equal(p.attributePreference(k, v), mean >= 3.5 ? 1 : mean <= 2 ? -1 : 0);
    }
    // An unseen item: accepted iff the sum of its attribute preferences is >= 0.
    for (const item of catalog.byCategory('footwear').slice(4, 40)) {
      let sum = 0;
      for (const [k, v] of Object.entries(item.attributes)) sum += p.attributePreference(k, v);
      assert.equal(p.accepts(item), sum >= 0, item.item_id);
    }
    assert.equal(p.accepts(items[0]), false, 'consumed items are not bought again');
    assert.equal(p.opinion(items[1]), 'dislike');
    assert.equal(p.accepts(catalog.byCategory('outerwear')[0]), false, 'other categories are never accepted');
  });

  test('PKG thresholds are configurable', () => {
    const history = [{ item_id: 'F000', rating: 3 }];
    assert.equal(
      new PkgPreferences(taste, history, catalog).attributePreference('colour', items[0].attributes.colour),
      0,
    );
    const lenient = new PkgPreferences(taste, history, catalog, { likedAttribute: 3 });
    assert.equal(lenient.attributePreference('colour', items[0].attributes.colour), 1);
    const strict = new PkgPreferences(taste, history, catalog, { accept: 10 });
    assert.equal(strict.accepts(catalog.get('F010')!), false);
  });

  test('single item: consumed from history, opinions are coin flips remembered', () => {
    const p = new SingleItemPreferences(taste, [{ item_id: 'F000', rating: 4 }], createRng(1));
    assert.equal(p.isConsumed('F000'), true);
    assert.equal(p.isConsumed('F001'), false);
    const all = catalog.byCategory('footwear');
    const first = all.map((i) => p.opinion(i));
    assert.deepEqual(
      all.map((i) => p.opinion(i)),
      first,
      'remembered',
    );
    const likes = first.filter((o) => o === 'like').length;
    assert.ok(likes > 15 && likes < 45, `about half liked, got ${likes}/60`);
  });

  test('createPreferenceModel: 8 history items of the task category, at least one liked', () => {
    for (let seed = 0; seed < 100; seed++) {
      const p = createPreferenceModel(
        'pkg',
        catalog,
        seed % 2 ? 'footwear' : 'outerwear',
        createRng(seed),
      ) as PkgPreferences;
      const ratings = p.ratings();
      assert.equal(ratings.length, 8);
      assert.ok(
        ratings.some((r) => r.rating >= 4),
        `seed ${seed}`,
      );
      for (const r of ratings) {
        assert.equal(catalog.get(r.item_id)!.category, seed % 2 ? 'footwear' : 'outerwear');
        assert.ok(r.rating >= 0.5 && r.rating <= 5 && Number.isInteger(r.rating * 2));
      }
    }
  });

  test('tastes are seeded', () => {
    assert.deepEqual(sampleTaste(catalog, 'footwear', createRng(4)), sampleTaste(catalog, 'footwear', createRng(4)));
  });
});

describe('template NLG', () => {
  test('fills slots, skips templates it cannot fill, avoids repeating itself', () => {
    const nlg = new TemplateNlg({
      typoRate: 0,
      templates: { acts: { Disclose: ['I want {value}.', 'Something {value} for {category}.', 'Hello.'] } },
    });
    const rng = createRng(2);
    for (let i = 0; i < 50; i++) {
      const text = nlg.generate('Disclose', { value: 'black' }, rng);
      assert.ok(text === 'I want black.' || text === 'Hello.', text);
    }
    let prev = nlg.generate('Disclose', { value: 'black', category: 'shoes' }, rng);
    for (let i = 0; i < 50; i++) {
      const next = nlg.generate('Disclose', { value: 'black', category: 'shoes' }, rng, prev);
      assert.notEqual(next, prev);
      prev = next;
    }
  });

  test('falls back to the main act, then Other', () => {
    const nlg = new TemplateNlg({ typoRate: 0, templates: { acts: { Reveal: ['refine'], Other: ['ok'] } } });
    assert.equal(nlg.generate('Reveal.Refine', {}, createRng(1)), 'refine');
    assert.equal(nlg.generate('Navigate.More', {}, createRng(1)), 'ok');
  });

  test('typos: one word changed, rate respected, deterministic', () => {
    const rng = createRng(7);
    const text = 'Something leather would be great';
    for (let i = 0; i < 100; i++) {
      const t = addTypo(text, rng);
      const a = text.split(' ');
      const b = t.split(' ');
      assert.equal(a.length, b.length);
      assert.equal(a.filter((w, j) => w !== b[j]).length, 1, t);
    }
    const nlg = new TemplateNlg({ typoRate: 0.5, templates: { acts: { Complete: ['Thanks for the help today'] } } });
    const r = createRng(11);
    const changed = Array.from({ length: 2000 }, () => nlg.generate('Complete', {}, r)).filter(
      (t) => t !== 'Thanks for the help today',
    ).length;
    assert.ok(changed > 850 && changed < 1150, `${changed}/2000 with typos`);
    const none = new TemplateNlg({ typoRate: 0 });
    assert.equal(
      none.generate('Complete.Abandon', {}, createRng(1)),
      none.generate('Complete.Abandon', {}, createRng(1)),
    );
  });

  test('every built-in user act has templates', () => {
    const nlg = new TemplateNlg();
    for (const act of [
      'Disclose',
      'Disclose.NonDisclose',
      'Reveal.Revise',
      'Reveal.Refine',
      'Reveal.Expand',
      'Inquire.List',
      'Inquire.Compare',
      'Inquire.Subset',
      'Inquire.Similar',
      'Navigate',
      'Navigate.Repeat',
      'Navigate.Back',
      'Navigate.More',
      'Note.Like',
      'Note.Dislike',
      'Note.Accept',
      'Note.Seen',
      'Complete',
      'Complete.Abandon',
      'Pepper.Open',
      'Pepper.Like',
      'Pepper.Dislike',
      'Pepper.More',
      'Pepper.None',
    ]) {
      assert.ok(nlg.has(act), act);
    }
  });
});

describe('NLU', () => {
  test('reported acts win and are mapped to Zhang & Balog acts', () => {
    const nlu = new AgentNlu();
    const u = nlu.understand({
      utterance: 'Fun fact about shoes!',
      recommendations: [],
      acts: ['recommend', 'explain_recommendation'],
    });
    assert.equal(u.source, 'reported');
    assert.deepEqual(u.acts, ['Reveal.Show', 'Explain']);
    const zb = nlu.understand({ utterance: '', recommendations: [], acts: ['Inquire.Clarify'] });
    assert.equal(zb.agent_act, 'Inquire.Clarify');
    const unknown = nlu.understand({ utterance: 'x', recommendations: [], acts: ['chit_chat'] });
    assert.equal(unknown.agent_act, 'Other');
    assert.equal(unknown.source, 'reported');
    // acts in a vocabulary SimLens does not know (thirteenth round: a recommender reporting
    // `answer_question` was read as doing "Other", and the user pushed on every answer): the text is read
    for (const acts of [['answer_question'], ['ask_question', 'whatever']]) {
      const own = nlu.understand({
        utterance: 'Which colour do you prefer for your boots?',
        recommendations: [],
        acts,
      });
      assert.equal(own.source, 'classifier', acts.join());
      assert.equal(own.agent_act.split('.')[0], 'Inquire', acts.join());
    }
    assert.equal(nlu.understand({ utterance: '', recommendations: [], error: 'timeout' }).source, 'none');
  });

  test('the classifier reads unseen utterances of the main acts', () => {
    const nlu = new AgentNlu();
    const cases: [string, string][] = [
      ['What colour do you prefer for your boots?', 'Inquire'],
      ['Here are some jackets you might like.', 'Reveal'],
      ['Goodbye, have a nice day!', 'Traverse'],
      ['This one is made of wool and costs 40 dollars.', 'Explain'],
    ];
    for (const [text, main] of cases) {
      const u = nlu.understand({ utterance: text, recommendations: [] });
      assert.equal(u.source, 'classifier');
      assert.equal(mainAct(u.agent_act), main, `${text} -> ${u.agent_act}`);
    }
  });

  test('built-in training set: classifier fits it well (>= 90% on the training set)', () => {
    const ex = builtinAgentActExamples();
    const clf = agentActClassifier();
    const right = ex.filter((e) => clf.predict(e.text).label === e.label).length;
    assert.ok(right / ex.length >= 0.9, `${right}/${ex.length}`);
  });
});

describe('wording helpers', () => {
  const attrs = ['brand', 'colour', 'gender', 'material', 'occasion', 'price_band', 'style', 'type'];
  test('which attributes an agent question is about', () => {
    assert.deepEqual(askedAttributes('What colour would you like? Any budget in mind?', attrs), [
      'colour',
      'price_band',
    ]);
    assert.deepEqual(askedAttributes("Is it for women's or men's?", attrs), ['gender']);
    assert.deepEqual(askedAttributes('Colors and MATERIALS please', attrs), ['colour', 'material']);
    assert.deepEqual(askedAttributes('uncolourful', attrs), []);
    assert.deepEqual(
      askedAttributes(questionSentences('Great, pink items (unisex). What are you shopping for today?'), attrs),
      [],
    );
    assert.equal(questionSentences('No question here.'), '');
    assert.equal(questionSentences('Colour? Also: the material, please. Size?'), 'Colour? Size?');
  });
  test('value phrases read after "something"', () => {
    assert.equal(valuePhrase('colour', 'black'), 'black');
    assert.equal(valuePhrase('material', 'wool'), 'in wool');
    assert.equal(valuePhrase('occasion', 'work'), 'for work');
    assert.equal(valuePhrase('price_band', 'budget'), 'in the budget price range');
  });
});
