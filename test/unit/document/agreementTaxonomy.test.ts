import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { agreementFromConversations, formatAgreementText } from '../../../src/core/document/agreement';
import { fleissKappa } from '../../../src/core/stats/agreement';
import { inferTaxonomyName } from '../../../src/core/taxonomy';
import { runCli } from '../../support/cli';
import type { Annotation, Conversation } from '../../../src/core/model';
import { tempDir } from '../jsonl/helpers';

/** A movie dialogue as `simlens convert` writes it (source = IARD) plus a ConvApparel annotator (root). */
function movie(): Conversation {
  const u = (text: string, source: string, root: string, extra: Annotation[] = []) => ({
    user_utterance: text,
    assistant_utterance: 'ok',
    annotations: [
      { speaker: 'user' as const, annotator: 'source', taxonomy: 'iard', acts: [source] },
      { speaker: 'user' as const, annotator: 'root', taxonomy: 'convapparel', acts: [root] },
      ...extra,
    ],
  });
  return {
    id: 'movie-1',
    turns: [
      u('I liked Alien', 'PRO', 'inform_preference'),
      u('Yes, that one!', 'ACC', 'accept_recommendation'),
      u('Not that one', 'REJ', 'reject_recommendation'),
      u('Anything older?', 'REF', 'critique'),
    ],
  };
}

describe('agreement across taxonomies', () => {
  test('annotators on different taxonomies are not compared, and a warning says why', () => {
    const r = agreementFromConversations([movie()]);
    assert.deepEqual(r.taxonomies, { root: 'convapparel', source: 'iard' });
    assert.equal(r.reports.length, 0, 'no kappa across ConvApparel and IARD labels');
    assert.match(r.warnings.join('\n'), /different taxonomies: root \(convapparel\) and source \(iard\)/);
    assert.match(formatAgreementText(r), /warning: Not compared/);
  });

  test('--map compares through the act aliases and names the mapping', () => {
    const r = agreementFromConversations([movie()], { map: true });
    assert.equal(r.reports.length, 1);
    const rep = r.reports[0];
    assert.equal(rep.taxonomy, 'zhang-balog');
    assert.equal(rep.mapping, 'convapparel and iard mapped to zhang-balog acts through act-aliases.json');
    // PRO/inform_preference -> Disclose, ACC/accept -> Note.Accept, REJ/reject -> Note.Dislike, REF/critique -> Reveal.Refine.
    assert.deepEqual(rep.labels, ['Disclose', 'Note.Accept', 'Note.Dislike', 'Reveal.Refine']);
    assert.equal(rep.primaryKappa, 1);
    assert.match(formatAgreementText(r), /mapped to zhang-balog acts through act-aliases\.json/);
  });

  test('an annotator that used two taxonomies is read as the one it used most, and told', () => {
    const conv = movie();
    // "root" labels one of its four utterances with an IARD act: still a ConvApparel annotator.
    conv.turns[3].annotations![1] = { speaker: 'user', annotator: 'root', taxonomy: 'iard', acts: ['REF'] };
    const r = agreementFromConversations([conv]);
    assert.deepEqual(r.taxonomies, { root: 'convapparel', source: 'iard' });
    assert.match(
      r.warnings.join('\n'),
      /root used more than one taxonomy \(convapparel: 3, iard: 1\); treated as convapparel\./,
    );
  });

  test('the taxonomy is inferred from the labels when the annotation does not name it', () => {
    assert.equal(inferTaxonomyName(['ACC', 'inq']), 'iard');
    assert.equal(inferTaxonomyName(['recommend', 'critique']), 'convapparel');
    assert.equal(inferTaxonomyName(['Reveal.Refine']), 'zhang-balog');
    assert.equal(inferTaxonomyName(['made_up']), undefined);
  });

  test("Fleiss' kappa matches the published worked example (Fleiss 1971 data as tabulated on Wikipedia: 0.210)", () => {
    const counts = [
      [0, 0, 0, 0, 14],
      [0, 2, 6, 4, 2],
      [0, 0, 3, 5, 6],
      [0, 3, 9, 2, 0],
      [2, 2, 8, 1, 1],
      [7, 7, 0, 0, 0],
      [3, 2, 6, 3, 0],
      [2, 5, 3, 2, 2],
      [6, 5, 2, 1, 0],
      [0, 2, 2, 3, 7],
    ];
    // P̄ = 0.378, P̄e = 0.213 → κ = 0.210 (rounded); our exact value to 1e-3.
    assert.ok(Math.abs(fleissKappa(counts) - 0.21) < 1e-3, String(fleissKappa(counts)));
    assert.throws(
      () =>
        fleissKappa([
          [1, 1],
          [3, 0],
        ]),
      /row 1 has 3 ratings/,
    );
  });

  test("three annotators on one taxonomy get Fleiss' kappa over the utterances all three annotated", () => {
    const acts = {
      a: ['critique', 'other', 'critique', 'other'],
      b: ['critique', 'other', 'other', 'other'],
      c: ['critique', 'critique', 'critique', 'other'],
    };
    const conv: Conversation = {
      id: 'three',
      turns: [0, 1, 2, 3].map((i) => ({
        user_utterance: `u${i}`,
        annotations: (['a', 'b', 'c'] as const).map((n) => ({
          speaker: 'user' as const,
          annotator: n,
          acts: [acts[n][i]],
        })),
      })),
    };
    const r = agreementFromConversations([conv]);
    assert.equal(r.fleiss.length, 1);
    const f = r.fleiss[0];
    assert.deepEqual([f.speaker, f.annotators, f.taxonomy, f.items], ['user', ['a', 'b', 'c'], 'convapparel', 4]);
    // Hand count per utterance (critique, other): [3,0], [1,2], [2,1], [0,3].
    assert.equal(
      f.kappa,
      fleissKappa([
        [3, 0],
        [1, 2],
        [2, 1],
        [0, 3],
      ]),
    );
    assert.ok(Math.abs((f.kappa ?? NaN) - 1 / 3) < 1e-12); // P̄ = 2/3, P̄e = 1/2
  });

  test('simlens agreement prints the same report, --map included', async () => {
    const { dir, cleanup } = tempDir();
    writeFileSync(join(dir, 'movies.jsonl'), JSON.stringify(movie()) + '\n');
    const run = (args: string[]) => runCli(args, dir);
    const plain = await run(['agreement', 'movies.jsonl', '--annotators', 'root,source']);
    assert.equal(plain.code, 1, plain.err);
    assert.equal(
      plain.out,
      formatAgreementText(agreementFromConversations([movie()], { annotators: ['root', 'source'] })),
    );
    const mapped = await run(['agreement', 'movies.jsonl', '--annotators', 'root,source', '--map']);
    assert.equal(mapped.code, 0, mapped.err);
    assert.match(
      mapped.out,
      /root vs source — user utterances \(4\), taxonomy zhang-balog \(convapparel and iard mapped/,
    );
    assert.match(mapped.out, /primary-act Cohen's kappa: 1\.000/);
    cleanup();
  });
});
