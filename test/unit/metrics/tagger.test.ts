import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { ActTagger, crossValidateTagger, evaluateTagger, type TaggedExample } from '../../../src/core/metrics/tagger';
import { IARD_TO_CONVAPPAREL, mapActs } from '../../../src/core/taxonomy/acts';
import { importFile } from '../../../src/core/importers';
import { datasetPath } from '../../fixtures';

describe('lexical act tagger', () => {
  const tagger = ActTagger.default();

  test('tags formulaic utterances (rules and model)', () => {
    assert.ok(tagger.tag('Hi there, thanks!').includes('greet_thank'));
    assert.ok(tagger.tag("I'll take the blue one").includes('accept_recommendation'));
    assert.ok(tagger.tag('none of these work for me').includes('reject_recommendation'));
    assert.ok(tagger.tag('What material is the sole?').includes('ask_clarification'));
    assert.ok(tagger.tag("I'm looking for a raincoat for hiking").includes('inform_preference'));
    assert.deepEqual(tagger.tag('   '), []);
    assert.ok(tagger.tag('zzz qqq').length >= 1, 'always at least one act');
  });

  test('trains on custom labels', () => {
    const ex: TaggedExample[] = [
      { text: 'red please', acts: ['color'] },
      { text: 'blue one', acts: ['color'] },
      { text: 'green', acts: ['color'] },
      { text: 'size 9', acts: ['size'] },
      { text: 'size medium', acts: ['size'] },
      { text: 'large size', acts: ['size'] },
    ];
    const t = ActTagger.train(ex, { acts: ['color', 'size'], rules: false });
    assert.deepEqual(t.tag('size small'), ['size']);
    const e = evaluateTagger(t, ex);
    assert.equal(e.exactMatch, 1);
    assert.equal(e.microF1, 1);
  });

  test('maps IARD labels', () => {
    assert.deepEqual(mapActs(['ACC', 'OTH', 'XYZ'], IARD_TO_CONVAPPAREL), [
      'accept_recommendation',
      'greet_thank',
      'other',
    ]);
  });

  test('accuracy on IARD gold user acts (mapped to ConvApparel acts)', async () => {
    const r = await importFile(datasetPath('usersimcrs-iard-gold/formatted_IARD_annotated_gold.json'));
    const groups = r.conversations.map((c) =>
      c.turns.flatMap((turn) => {
        const segs = (turn.user_utterance ?? '').split('\n');
        return (turn.annotations ?? [])
          .filter((a) => a.speaker === 'user')
          .map((a) => ({ text: segs[a.segment ?? 0] ?? '', acts: mapActs(a.acts, IARD_TO_CONVAPPAREL) }));
      }),
    );
    const all = groups.flat();
    assert.equal(all.length, 549);
    const builtin = evaluateTagger(tagger, all);
    const cv = crossValidateTagger(groups, { k: 5, seed: 1, withSeed: true });
    // majority-act baseline (always greet_thank) is 171/549 = 0.31 primary-act accuracy
    assert.ok(builtin.primaryAccuracy > 0.5, `built-in primary accuracy ${builtin.primaryAccuracy}`);
    assert.ok(cv.primaryAccuracy > 0.7, `cross-validated primary accuracy ${cv.primaryAccuracy}`);
    assert.ok(cv.microF1 > builtin.microF1);
  });
});
