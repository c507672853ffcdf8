/**
 * Eighteenth round, user language: number agreement with an item named in the plural. Every verb,
 * pronoun and reason that refers to an {item} agrees with its number ("Halden Navy Loafers are
 * nice, since they're in leather", not "... is nice, since it's ..."); an item named by its place
 * ("the second one") stays singular.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createRng } from '../../../src/core/random';
import { TemplateNlg, defaultNlgTemplates, parseTemplate, templatePools } from '../../../src/core/sim/users/nlg';
import { namedInPlural, reasonPhrase } from '../../../src/core/sim/users/phrases';

const PLURAL_TITLE = 'Halden Navy Loafers';
const SINGULAR_TITLE = 'Saltmarsh Classic Belt';

/** Singular verb forms that must not follow a plural title. */
const SINGULAR_VERBS =
  /^(?:is|isn't|was|wasn't|has|does|doesn't|looks|seems|comes|appeals|grabs|impresses|wins|tempts|delights|excites|speaks|misses|disappoints|bores|puts|leaves|underwhelms|interests)\b/;

/**
 * Pool wordings whose "it" means no item ("for what it's worth", "as I see it", "I appreciate
 * it"): taken out before looking for a singular pronoun. The corpus frames that do refer to the
 * item just named ("It's great", "I will check it out", "I think I will pass on it") are kept in.
 */
function genericItPhrases(): string[] {
  const pools = templatePools(defaultNlgTemplates());
  const out: string[] = [];
  for (const [name, list] of Object.entries(pools)) {
    if (name === 'c_good' || name === 'c_take' || name === 'c_pass' || name === 'feel' || name === 'meh') continue;
    for (const p of list) if (/\bit\b|\bit's\b/i.test(p) && !/[{}<>()[\]|]/.test(p)) out.push(p.toLowerCase());
  }
  // idioms of the templates themselves, where "it" is the deal, not the item
  out.push('as it happens', 'as it is', 'nearly made it', 'settles it', 'found it', 'be it', 'it over', 'it is,');
  out.push(
    "it's the",
    "it's all about",
    'clinched it',
    'did it',
    'tipped it',
    'settled it',
    'what tipped it',
    'what settled it',
  );
  out.push("doesn't do it for me", "don't do it for me", "isn't doing it", "aren't doing it");
  return out.sort((a, b) => b.length - a.length);
}

function wordingsOf(act: string, template: string, plural: boolean, draws = 40): string[] {
  const base = defaultNlgTemplates();
  const nlg = new TemplateNlg({ templates: { acts: { [act]: [template] }, pools: base.pools }, typoRate: 0 });
  const out = new Set<string>();
  for (let i = 0; i < draws; i++) {
    const r = nlg.realise(
      act,
      {
        item: plural ? PLURAL_TITLE : SINGULAR_TITLE,
        item2: 'Lumen Cream Belt',
        plural,
        liked: 'in leather',
        disliked: 'in suede',
        attribute: 'colour',
        value: 'navy',
        category: 'shoes',
        feature: 'storm flap',
        detail: 'a storm flap',
      },
      createRng(`agree-${i}`),
    );
    out.add(r.text);
  }
  return [...out];
}

describe('number agreement with the item (eighteenth round)', () => {
  test("the grammar: {singular|plural} says the form of the fill's number, not a random one", () => {
    assert.deepEqual(parseTemplate('{item} {is|are} (nice|fab)'), [
      { slot: 'item' },
      ' ',
      { agree: [['is'], ['are']] },
      ' ',
      { choice: [['nice'], ['fab']] },
    ]);
    // a slot name alone is a slot, an unbalanced brace a plain character
    assert.deepEqual(parseTemplate('{item}'), [{ slot: 'item' }]);
    assert.deepEqual(parseTemplate('a {b'), ['a {b']);
    const nlg = new TemplateNlg({ templates: { acts: { X: ['{item} {is|are} {here|there}.'] } }, typoRate: 0 });
    for (let i = 0; i < 10; i++) {
      assert.equal(nlg.generate('X', { item: 'A', plural: false }, createRng(i)), 'A is here.');
      assert.equal(nlg.generate('X', { item: 'B', plural: true }, createRng(i)), 'B are there.');
    }
  });

  test('an item is named in the plural by its title when its type is plural, never by its place', () => {
    const loafers = { item_id: 'F1', title: PLURAL_TITLE, attributes: { type: 'loafers' } };
    const belt = { item_id: 'A1', title: SINGULAR_TITLE, attributes: { type: 'belt' } };
    const dress = { item_id: 'D1', title: 'Lumen Dress', attributes: { type: 'dress' } };
    assert.equal(namedInPlural(loafers, PLURAL_TITLE), true);
    assert.equal(namedInPlural(loafers, 'the second one'), false);
    assert.equal(namedInPlural(belt, SINGULAR_TITLE), false);
    assert.equal(namedInPlural(dress, 'Lumen Dress'), false);
    // a type as the reason: "they're loafers" of a plural name, "it's a pair of loafers" else
    assert.equal(reasonPhrase('type', 'loafers', true), 'loafers');
    assert.equal(reasonPhrase('type', 'loafers'), 'a pair of loafers');
    assert.equal(reasonPhrase('colour', 'navy', true), 'navy');
  });

  test('every template naming an {item}: a plural title gets plural verbs and pronouns, a singular one singular', () => {
    const generic = genericItPhrases();
    const bad: string[] = [];
    let checked = 0;
    for (const [act, list] of Object.entries(defaultNlgTemplates().acts)) {
      for (const template of list) {
        if (!template.includes('{item}') && act !== 'Accept.Reason') continue;
        for (const text of wordingsOf(act, template, true)) {
          checked++;
          let at = text.indexOf(PLURAL_TITLE);
          while (at >= 0) {
            const after = text.slice(at + PLURAL_TITLE.length).replace(/^[ ,:;]+/, '');
            // the item as the object of "on" or "of" ("The navy on Halden Navy Loafers is lovely") is not the subject
            const object = /\b(?:on|of) $/.test(text.slice(0, at));
            if (SINGULAR_VERBS.test(after) && !object) bad.push(`${act}: ${text}`);
            at = text.indexOf(PLURAL_TITLE, at + 1);
          }
          let rest = text.toLowerCase().split(PLURAL_TITLE.toLowerCase()).join(' ');
          for (const g of generic) rest = rest.split(g).join(' ');
          if (/\b(?:it|it's|its)\b/.test(rest)) bad.push(`${act} (pronoun): ${text}`);
        }
        for (const text of wordingsOf(act, template, false, 10))
          if (
            /\b(?:they|they're|them|their|are|aren't)\b/.test(
              text.replace(/\b(?:there )?are (?:you|there|any)\b/gi, ''),
            ) &&
            !/\bthey\b|\bthem\b/.test(template.replace(/\{[^}]*\}/g, ''))
          )
            bad.push(`${act} (singular said as plural): ${text}`);
      }
    }
    assert.ok(checked > 1000, `checked ${checked} wordings`);
    assert.deepEqual(bad, []);
  });
});
