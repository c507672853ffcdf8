/**
 * `simlens catalog build --from redial|iard` (issue 26 item 14): a movie catalog from human movie
 * dialogues, checked against counts an independent script computes from the same files
 * (test/fixtures/catalog/movie_catalog_counts.py, standard library only, not SimLens's importers),
 * and the domain warnings Compare Populations gives with and without such a catalog.
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runCli } from '../../support/cli';
import { scratchDir } from '../../support/scratch';
import { parseCatalog } from '../../../src/core/catalog/io';
import { buildMovieCatalog, splitMovieTitle } from '../../../src/core/importers/movieCatalog';
import { domainWarningsOf, populationDomain } from '../../../src/core/metrics/domain';
import { importFile } from '../../../src/core/importers/index';
import type { Conversation } from '../../../src/core/model';

const FIXTURES = path.resolve(__dirname, '../../fixtures');
const EXPECTED = JSON.parse(
  fs.readFileSync(path.join(FIXTURES, 'catalog/movie-catalog-counts.json'), 'utf8'),
) as Record<
  string,
  {
    dialogues: number;
    mentions: number;
    untitled: number;
    items: number;
    with_year: number;
    sample: Record<string, string>;
  }
>;

describe('catalog build: counts match the independent script on the real and format fixtures', () => {
  for (const [key, want] of Object.entries(EXPECTED)) {
    const [from, rel] = key.split(/:(.*)/s);
    test(`${from} ${rel}: ${want.items} movies from ${want.mentions} mentions in ${want.dialogues} dialogues`, async () => {
      const dir = scratchDir('simlens-movies-');
      const r = await runCli(
        ['catalog', 'build', '--from', from, path.join(FIXTURES, rel), '--out', 'movies.catalog.jsonl'],
        dir,
      );
      assert.equal(r.code, 0, r.err);
      assert.match(
        r.out,
        new RegExp(
          `^wrote ${want.items} movies \\(${want.with_year} with a year\\) from ${want.mentions} mentions in ${want.dialogues} dialogues`,
        ),
      );
      const text = fs.readFileSync(path.join(dir, 'movies.catalog.jsonl'), 'utf8');
      const catalog = parseCatalog(text, 'movies.catalog.jsonl');
      assert.equal(catalog.size, want.items);
      assert.deepEqual(catalog.categories(), ['movies']);
      assert.equal(catalog.items.filter((i) => i.attributes.year).length, want.with_year);
      for (const [id, title] of Object.entries(want.sample)) assert.equal(catalog.get(id)?.title, title, id);
      // Every item's year is the one its title gives; nothing else is invented.
      for (const item of catalog.items) {
        assert.equal(item.attributes.year, splitMovieTitle(item.title).year, item.item_id);
        assert.deepEqual(
          Object.keys(item.attributes).filter((k) => k !== 'year'),
          [],
        );
        assert.deepEqual(item.features, []);
      }
      assert.match(r.err, /attributes: year only; genre, director, actors, plot and price are not in these files/);
    });
  }

  test('the converted (canonical JSONL) IARD copy gives the same catalog as the original file', async () => {
    const dir = scratchDir('simlens-movies-');
    const src = path.join(FIXTURES, 'datasets/usersimcrs-iard-gold/formatted_IARD_annotated_gold.json');
    assert.equal((await runCli(['convert', src, '-o', 'human.jsonl'], dir)).code, 0);
    const a = await runCli(['catalog', 'build', '--from', 'iard', src, '--out', 'a.jsonl'], dir);
    const b = await runCli(['catalog', 'build', '--from', 'iard', 'human.jsonl', '--out', 'b.jsonl'], dir);
    assert.equal(a.code, 0, a.err);
    assert.equal(b.code, 0, b.err);
    assert.equal(
      fs.readFileSync(path.join(dir, 'a.jsonl'), 'utf8'),
      fs.readFileSync(path.join(dir, 'b.jsonl'), 'utf8'),
    );
  });

  test('usage: --from required and checked, --out not replaced without --force, a missing file named, a non-movie file refused', async () => {
    const dir = scratchDir('simlens-movies-');
    const redial = path.join(FIXTURES, 'formats/redial/train_data.jsonl');
    assert.match((await runCli(['catalog', 'build', redial, '--out', 'm.jsonl'], dir)).err, /--from redial or iard/);
    assert.equal((await runCli(['catalog', 'build', '--from', 'inspired', redial, '--out', 'm.jsonl'], dir)).code, 2);
    assert.equal((await runCli(['catalog', 'build', '--from', 'redial', redial, '--out', 'm.jsonl'], dir)).code, 0);
    const again = await runCli(['catalog', 'build', '--from', 'redial', redial, '--out', 'm.jsonl'], dir);
    assert.equal(again.code, 2);
    assert.match(again.err, /m\.jsonl already exists; use --force/);
    assert.equal(
      (await runCli(['catalog', 'build', '--from', 'redial', redial, '--out', 'm.jsonl', '--force'], dir)).code,
      0,
    );
    const missing = await runCli(['catalog', 'build', '--from', 'redial', 'nope.jsonl', '--out', 'x.jsonl'], dir);
    assert.equal(missing.code, 2);
    assert.match(missing.err, /nope\.jsonl: no such file/);
    // ReDial read as IARD: no IARD dialogue, so no movie; said, nothing written.
    const wrong = await runCli(['catalog', 'build', '--from', 'iard', redial, '--out', 'w.jsonl'], dir);
    assert.equal(wrong.code, 1);
    assert.match(wrong.err, /no movie with a title/);
    assert.equal(fs.existsSync(path.join(dir, 'w.jsonl')), false);
  });
});

describe('buildMovieCatalog: what it cannot carry is counted', () => {
  const redial = (id: string, mentions: Record<string, string>, texts: string[] = []): Conversation => ({
    id,
    metadata: { format: 'redial', movieMentions: mentions },
    turns: [
      {
        user_utterance: 'x',
        assistant_utterance: 'y',
        source_utterances: texts.map((text) => ({ text })),
      } as Conversation['turns'][number],
    ],
  });

  test('an id with two titles keeps the most frequent; an @id without a title is counted and left out', () => {
    const r = buildMovieCatalog('redial', [
      {
        label: 'f',
        conversations: [
          redial('a', { '1': 'Up  (2009)' }, ['I liked @1 and @7']),
          redial('b', { '1': 'Up (2009)' }),
          redial('c', { '1': 'Up (2009)', '2': 'Heat' }),
        ],
      },
    ]);
    assert.equal(r.catalog.get('1')?.title, 'Up (2009)');
    assert.equal(r.counts.conflictingTitles, 0, 'spaces are normalised, so "Up  (2009)" is the same title');
    assert.equal(r.counts.untitled, 1);
    assert.equal(r.catalog.get('7'), undefined);
    assert.equal(r.catalog.get('2')?.attributes.year, undefined);
    assert.ok(r.notes.some((n) => /1 mentions have no title \(1 movie id left out/.test(n)));
    const conflict = buildMovieCatalog('redial', [
      {
        label: 'f',
        conversations: [
          redial('a', { '1': 'Up (2009)' }),
          redial('b', { '1': 'Down (2009)' }),
          redial('c', { '1': 'Down (2009)' }),
        ],
      },
    ]);
    assert.equal(conflict.catalog.get('1')?.title, 'Down (2009)');
    assert.equal(conflict.counts.conflictingTitles, 1);
    assert.ok(
      conflict.notes.some((n) =>
        /^1 movie ids have different titles in different dialogues: the most frequent/.test(n),
      ),
      'the researcher is told which title was kept',
    );
  });
});

describe('Compare Populations: domains', () => {
  test('human IARD vs an apparel run: the warning names the command that builds the movie catalog from that file; vs a movie-catalog run: the limits instead', async () => {
    const human = (
      await importFile(path.join(FIXTURES, 'datasets/usersimcrs-iard-gold/formatted_IARD_annotated_gold.json'))
    ).conversations;
    const sim = (task: string, title: string): Conversation => ({
      id: `s-${task}`,
      task_id: `${task}_good`,
      source: 'agenda-cir6-pkg',
      turns: [
        {
          user_utterance: 'hi',
          assistant_utterance: 'here',
          recommendations: [{ item_id: '1', title, category: task }],
        },
      ],
    });
    const humanPop = { label: 'human', file: 'iard.json', domain: populationDomain(human) };
    assert.equal(humanPop.domain.catalogSource, 'iard');
    const apparel = domainWarningsOf([
      humanPop,
      { label: 'run', file: 'run.jsonl', domain: populationDomain([sim('footwear', 'Black boots')]) },
    ]);
    assert.equal(apparel.length, 1);
    assert.match(apparel[0], /different domains/);
    assert.match(apparel[0], /simlens catalog build --from iard iard\.json --out movies\.catalog\.jsonl/);
    const movies = domainWarningsOf([
      humanPop,
      { label: 'run', file: 'run.jsonl', domain: populationDomain([sim('movies', 'Up (2009)')]) },
    ]);
    assert.equal(movies.length, 1);
    assert.match(movies[0], /^run: built-in simulated users on a movie catalog/);
    assert.match(movies[0], /only attribute they can ask for, disclose or rate is the year/);
    // Human data against human data of the same domain: nothing to say.
    assert.deepEqual(domainWarningsOf([humanPop, { ...humanPop, label: 'again' }]), []);
  });
});
