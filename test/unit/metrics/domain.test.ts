/**
 * Domains of populations (issue 26): human movie dialogues compared with apparel simulations give
 * a warning in the report (CLI and panel show report.warnings); the same domain gives none.
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { importFile } from '../../../src/core/importers';
import { conversationDomain, populationDomain } from '../../../src/core/metrics/domain';
import { computeReport } from '../../../src/core/report/compute';
import type { Conversation } from '../../../src/core/model';
import { runCli } from '../../support/cli';
import { datasetPath, fixturePath } from '../../fixtures';
import { withTempDir } from '../jsonl/helpers';

function apparel(n: number, seed: number): Conversation[] {
  return Array.from({ length: n }, (_, i) => ({
    id: `sim-${seed}-${i}`,
    task_id: ['footwear_good', 'tops_bad', 'bags_good'][i % 3],
    source: 'agenda-cir6-pkg',
    turns: Array.from({ length: 2 + ((i * seed) % 4) }, (_, k) => ({
      user_utterance: `I want something ${'nice '.repeat(1 + ((i + k) % 5))}`,
      assistant_utterance: 'How about these?',
    })),
  })) as Conversation[];
}

describe('population domains', () => {
  test('movie corpora and apparel runs are told apart from what the data says', async () => {
    const iard = (await importFile(datasetPath('usersimcrs-iard-gold/formatted_IARD_annotated_gold.json')))
      .conversations;
    assert.deepEqual(populationDomain(iard), {
      domain: 'movies',
      movies: 77,
      apparel: 0,
      total: 77,
      catalogSource: 'iard',
    });
    const redial = (await importFile(fixturePath('formats/redial/train_data.jsonl'))).conversations;
    assert.ok(redial.every((c) => conversationDomain(c) === 'movies'));
    assert.deepEqual(populationDomain(apparel(9, 1)), { domain: 'apparel', movies: 0, apparel: 9, total: 9 });
    // Nothing to go by: no domain, no verdict.
    assert.equal(conversationDomain({ id: 'x', turns: [{ user_utterance: 'hi' }] } as Conversation), undefined);
  });

  test('plsa (Compare Populations) warns on movies vs apparel, in the report and on the CLI; not on apparel vs apparel', async () => {
    await withTempDir(async (dir) => {
      const iard = (await importFile(datasetPath('usersimcrs-iard-gold/formatted_IARD_annotated_gold.json')))
        .conversations;
      const write = (name: string, convs: Conversation[]) =>
        writeFileSync(join(dir, name), convs.map((c) => JSON.stringify(c)).join('\n') + '\n');
      write('human.jsonl', iard);
      write('sim.jsonl', apparel(60, 3));
      write('sim2.jsonl', apparel(60, 5));
      const mixed = await computeReport({
        kind: 'plsa',
        reference: { file: join(dir, 'human.jsonl') },
        candidates: [{ file: join(dir, 'sim.jsonl') }],
      });
      assert.ok(
        mixed.warnings?.some((w) =>
          /different domains .*movie dialogues \(77 of 77\).*apparel \(shopping\) dialogues \(60 of 60\)/.test(w),
        ),
        JSON.stringify(mixed.warnings),
      );
      const same = await computeReport({
        kind: 'plsa',
        reference: { file: join(dir, 'sim2.jsonl') },
        candidates: [{ file: join(dir, 'sim.jsonl') }],
      });
      assert.ok(!same.warnings?.some((w) => /different domains/.test(w)), JSON.stringify(same.warnings));
      const cli = await runCli(['metrics', 'plsa', '--reference', 'human.jsonl', '--candidate', 'sim.jsonl'], dir);
      assert.match(cli.err, /warning: the populations come from different domains/);
    }, 'simlens-domain-');
  });
});
