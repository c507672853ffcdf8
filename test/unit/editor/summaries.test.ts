import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import {
  ConversationDocumentModel,
  SummaryIndex,
  searchUtterances,
  countRawValueMatches,
  makeSnippet,
  resolveTaxonomySetting,
} from '../../../src/core/document';
import { parseWebviewMessage } from '../../../src/shared/editorProtocol';
import { awkwardFile, conversation, tempFile } from './fixtures';
import { writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';

describe('summaries, filters and search', () => {
  test('summaries of valid, invalid and blank lines; facets; streaming pass', async () => {
    const { path } = awkwardFile();
    const doc = await ConversationDocumentModel.open(path);
    try {
      let progressCalls = 0;
      await doc.summarizeAll({ onProgress: () => progressCalls++, batchLines: 2 });
      assert.ok(progressCalls >= 3);
      const s = doc.summaries;
      assert.ok(s.complete);
      const rows = [0, 1, 2, 3, 4, 5, 6].map((i) => s.summary(i));
      assert.deepEqual(
        rows.map((r) => r.state),
        ['valid', 'valid', 'blank', 'invalid', 'invalid', 'valid', 'valid'],
      );
      assert.equal(rows[0].id, 'conv-1');
      assert.equal(rows[0].task, 'outerwear');
      assert.equal(rows[0].condition, 'good');
      assert.equal(rows[0].source, 'agenda-cir6');
      assert.equal(rows[0].turns, 2);
      assert.equal(rows[0].outcome, 'accepted');
      assert.match(rows[1].snippet, /^Café Looking/);
      assert.match(rows[3].error ?? '', /^4:\d+ .*JSON/);
      assert.match(rows[4].error ?? '', /^5:\d+ turns/);
      const f = s.facets();
      assert.equal(f.valid, 4);
      assert.equal(f.invalid, 2);
      assert.equal(f.blank, 1);
      assert.deepEqual(f.outcome, [
        ['accepted', 3],
        ['abandoned', 1],
      ]);
    } finally {
      await doc.close();
    }
  });

  test('facet filters and validity', () => {
    const s = new SummaryIndex(6);
    const convs = [0, 1, 2, 3, 4].map((i) => conversation(i));
    convs.forEach((c, i) => s.set(i, { kind: 'valid', line: i + 1, conversation: c as never }));
    s.set(5, { kind: 'invalid', line: 6, errors: [{ line: 6, column: 1, path: '', message: 'bad' }] });
    assert.deepEqual([...s.filterLines({})], [0, 1, 2, 3, 4, 5]);
    assert.deepEqual([...s.filterLines({ condition: 'bad' })], [0]);
    assert.deepEqual([...s.filterLines({ task: 'footwear' })], [0, 3]);
    assert.deepEqual([...s.filterLines({ outcome: 'abandoned' })], [0, 4]);
    assert.deepEqual([...s.filterLines({ validity: 'invalid' })], [5]);
    assert.deepEqual([...s.filterLines({ validity: 'valid', source: 'human' })], [0, 2, 4]);
    assert.deepEqual([...s.filterLines({ task: 'nope' })], []);
    assert.equal(s.lineOfId('conv-3'), 3);
    assert.equal(s.lineOfId('line:6'), 5);
    assert.deepEqual(s.searchIds('conv-'), [0, 1, 2, 3, 4]);
  });

  test('a conversation that reports no outcome has no outcome in its row, an "unknown" facet and filter, never "ended"', () => {
    const s = new SummaryIndex(4);
    const human = { id: 'h-1', turns: [{ user_utterance: 'a coat please', assistant_utterance: 'here' }] };
    const traced = { id: 's-1', turns: [{ user_utterance: 'bye', trace: { user_act: 'Complete', patience: 2 } }] };
    const rated = {
      id: 'r-1',
      ratings: { 'Were you able to find a product?': 'No' },
      turns: [{ user_utterance: 'hm' }],
    };
    const stated = { id: 'a-1', outcome: 'accepted', turns: [{ user_utterance: 'yes' }] };
    [human, traced, rated, stated].forEach((c, i) =>
      s.set(i, { kind: 'valid', line: i + 1, conversation: c as never }),
    );
    assert.deepEqual(
      [0, 1, 2, 3].map((i) => s.summary(i).outcome),
      [undefined, 'ended', 'ended', 'accepted'],
    );
    assert.deepEqual(s.facets().outcome, [
      ['accepted', 1],
      ['ended', 2],
      ['unknown', 1],
    ]);
    assert.deepEqual([...s.filterLines({ outcome: 'unknown' })], [0]);
    assert.deepEqual([...s.filterLines({ outcome: 'ended' })], [1, 2]);
    assert.equal(parseWebviewMessage({ type: 'setFilter', filter: { outcome: 'unknown' } }).ok, true);
  });

  test('pending lines show in the unfiltered list while the pass runs', () => {
    const s = new SummaryIndex(3);
    s.set(1, { kind: 'valid', line: 2, conversation: conversation(1) as never });
    assert.deepEqual([...s.filterLines({})], [0, 1, 2]);
    assert.deepEqual([...s.filterLines({ source: 'agenda-cir6' })], [1]);
    assert.equal(s.summary(0).state, 'pending');
  });

  test('text search: case-insensitive, per speaker, escapes decoded, counts utterances, cap', async () => {
    const lines = [
      {
        id: 'a',
        turns: [
          { user_utterance: 'Waterproof BOOTS please', assistant_utterance: 'boots here' },
          { user_utterance: 'more boots' },
        ],
      },
      {
        id: 'b',
        turns: [{ user_utterance: 'a "quoted" \\ text\nnext', assistant_utterance: 'Café crème' }],
        note: 'boots in a description only',
      },
      {
        id: 'c',
        turns: [{ user_utterance: 'nothing', recommendations: [{ item_id: 'x', description: 'boots boots' }] }],
      },
    ];
    const text =
      [
        JSON.stringify(lines[0]),
        JSON.stringify(lines[1]).replace('Café', 'Caf\\u00e9'),
        JSON.stringify(lines[2]),
        '{bad json boots',
      ].join('\n') + '\n';
    const path = tempFile('s.conv.jsonl', text);
    for (const cached of [false, true]) {
      const doc = await ConversationDocumentModel.open(path, { utteranceCacheChars: cached ? undefined : 0 });
      try {
        await doc.summarizeAll();
        assert.equal(doc.summaries.utterances(0) !== undefined, cached);
        const all = Uint32Array.from([0, 1, 2, 3]);
        const reader = {
          readLines: async (from: number, count: number) =>
            (await readFile(path))
              .toString('latin1')
              .split('\n')
              .slice(from, from + count)
              .map((l) => Buffer.from(l, 'latin1')),
        };
        const boots = await searchUtterances(reader, all, 'BOOTS', {
          cached: cached ? (l) => doc.summaries.utterances(l) : undefined,
        });
        assert.deepEqual([...boots.lines], [0], `boots (cached=${cached})`);
        assert.equal(boots.utterances, 3);
        const user = await doc.filter({ text: 'boots', speaker: 'user' });
        assert.equal(user.search?.utterances, 2);
        const cafe = await doc.filter({ text: 'café' });
        assert.deepEqual([...cafe.lines], [1], 'decoded \\u escape');
        const quoted = await doc.filter({ text: '"quoted" \\ text\nnext' });
        assert.deepEqual([...quoted.lines], [1], 'quotes, backslash and newline');
        const capped = await searchUtterances(reader, all, 'o', { maxMatches: 1 });
        assert.equal(capped.capped, true);
        assert.equal(capped.lines.length, 1);
      } finally {
        await doc.close();
      }
    }
  });

  test('raw value matcher ignores keys inside strings and non-string values', () => {
    const buf = Buffer.from(
      JSON.stringify({
        x: 'say \\"user_utterance\\": \\"hi\\"',
        turns: [{ user_utterance: 'Hi there' }, { user_utterance: null }],
      }),
    );
    assert.equal(countRawValueMatches(buf, '"user_utterance"', 'hi'), 1);
  });

  test('snippets are short and flat', () => {
    assert.equal(makeSnippet('  a\n\n b  ', 10), 'a b');
    assert.equal(makeSnippet('x'.repeat(300)).length, 120);
  });
});

describe('protocol validation', () => {
  test('accepts good messages', () => {
    for (const m of [
      { type: 'ready' },
      { type: 'setFilter', filter: { task: 'footwear', text: 'boots', speaker: 'user' } },
      { type: 'requestPage', requestId: 1, viewVersion: 2, start: 0, count: 100 },
      { type: 'annotate', requestId: 3, line: 5, turn: 0, speaker: 'assistant', acts: ['recommend'], note: 'n' },
      { type: 'command', command: 'undo' },
    ]) {
      const r = parseWebviewMessage(m);
      assert.ok(r.ok, JSON.stringify(r));
    }
  });

  test('rejects bad messages with the offending field', () => {
    const cases: Array<[unknown, RegExp]> = [
      [null, /^invalid webview message: \(root\): expected an object, got null$/],
      [{ type: 'nope' }, /type/],
      [{ type: 'requestPage', requestId: 1, viewVersion: 0, start: -1, count: 10 }, /start/],
      [{ type: 'requestPage', requestId: 1, viewVersion: 0, start: 0, count: 100000 }, /count/],
      [{ type: 'annotate', line: 1.5, turn: 0, speaker: 'user', acts: [] }, /line/],
      [{ type: 'annotate', line: 1, turn: 0, speaker: 'judge', acts: [] }, /speaker/],
      [{ type: 'annotate', line: 1, turn: 0, speaker: 'user', acts: [''] }, /acts\[0\]: must not be empty/],
      [{ type: 'annotate', line: 1, turn: 0, speaker: 'user', acts: ['x'], annotator: 'mallory' }, /ok|annotator/],
      [{ type: 'setFilter', filter: { outcome: 'won' } }, /filter\.outcome/],
      [{ type: 'command', command: 'workbench.action.terminal.new' }, /command/],
      [{ type: 'openConversation', requestId: 1, line: 'x' }, /line/],
    ];
    for (const [m, re] of cases) {
      const r = parseWebviewMessage(m);
      if (re.source === 'ok|annotator') {
        // Unknown keys are stripped: the host never reads an annotator from the webview.
        assert.ok(r.ok && !('annotator' in r.message));
        continue;
      }
      assert.equal(r.ok, false, JSON.stringify(m));
      if (!r.ok) assert.match(r.error, re);
    }
  });
});

describe('taxonomy setting', () => {
  test('built-in names, files, inline objects, and clear errors', async () => {
    const dir = dirname(tempFile('x.json', '{}'));
    assert.equal((await resolveTaxonomySetting('zhang-balog', dir)).taxonomy.name, 'zhang-balog');
    assert.equal((await resolveTaxonomySetting(undefined, dir)).taxonomy.name, 'convapparel');
    writeFileSync(join(dir, 'tax.json'), JSON.stringify({ name: 'mine', user: ['a'], assistant: ['b'] }));
    assert.deepEqual((await resolveTaxonomySetting('tax.json', dir)).taxonomy.user, ['a']);
    assert.equal(
      (await resolveTaxonomySetting({ name: 'inline', user: ['u'], assistant: ['v'] }, dir)).taxonomy.name,
      'inline',
    );
    const missing = await resolveTaxonomySetting('nope.json', dir);
    assert.equal(missing.taxonomy.name, 'convapparel');
    assert.match(missing.error ?? '', /simlens\.taxonomy: "nope\.json" is neither a built-in taxonomy/);
    writeFileSync(join(dir, 'bad.json'), JSON.stringify({ name: 'x', user: [] }));
    assert.match((await resolveTaxonomySetting('bad.json', dir)).error ?? '', /bad\.json: invalid taxonomy at user/);
  });
});
