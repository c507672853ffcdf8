/**
 * Export to DialogueKit / UserSimCRS: the round trip DialogueKit -> SimLens -> DialogueKit on the
 * real files in test/fixtures/datasets gives the original JSON; acts of a chosen annotator are
 * written in the shape DialogueKit's reader takes; `simlens convert --to` end to end.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Conversation } from '../../../src/core/model';
import {
  createExporter,
  normalizeExportFormat,
  toConvApparelLine,
  toDialogueKitDialogue,
  type DialogueKitExportCounts,
} from '../../../src/core/export/index';
import { importFile, importText } from '../../../src/core/importers/index';
import { main } from '../../../src/cli/cli';
import type { CliIo } from '../../../src/cli/types';
import { datasetPath, fixturePath } from '../../fixtures';
import { withTempDir } from '../jsonl/helpers';

type Rec = Record<string, unknown>;

async function run(args: string[], cwd: string) {
  const io = {
    out: '',
    err: '',
    cwd,
    env: {},
    stdout: (t: string) => void (io.out += t),
    stderr: (t: string) => void (io.err += t),
  } as CliIo & { out: string; err: string };
  const code = await main(args, io);
  return { code, out: io.out, err: io.err };
}

/** What DialogueKit's json_to_dialogues needs of every dialogue (dialoguekit/utils/dialogue_reader.py). */
function assertDialogueKitReadable(dialogues: unknown): void {
  assert.ok(Array.isArray(dialogues));
  for (const d of dialogues as Rec[]) {
    for (const who of ['agent', 'user']) {
      const p = d[who];
      assert.ok(
        p === undefined || (typeof p === 'object' && p !== null && 'id' in p),
        `${who} must be an object with an id`,
      );
    }
    for (const u of d['conversation'] as Rec[]) {
      assert.ok(u['participant'] === 'USER' || u['participant'] === 'AGENT');
      assert.equal(typeof u['utterance'], 'string');
      for (const da of (u['dialogue_acts'] ?? []) as Rec[]) {
        assert.equal(typeof da['intent'], 'string');
        for (const sv of da['slot_values'] as unknown[])
          assert.ok(
            Array.isArray(sv) && sv.length === 4,
            `slot value ${JSON.stringify(sv)} must be [slot, value, start, end]`,
          );
      }
    }
  }
}

const REAL = [
  { rel: 'usersimcrs-moviebot/annotated_dialogues.json', dialogues: 8, utterances: 210 },
  { rel: 'dialoguekit-tests/annotated_dialogues.json', dialogues: 3, utterances: 109 },
  { rel: 'usersimcrs-iard-gold/formatted_IARD_annotated_gold.json', dialogues: 77, utterances: 1103 },
];

describe('DialogueKit -> SimLens -> DialogueKit on the real files', () => {
  for (const c of REAL) {
    test(`${c.rel}: the export equals the original (${c.dialogues} dialogues, ${c.utterances} utterances)`, async () => {
      const file = datasetPath(c.rel);
      const original = JSON.parse(readFileSync(file, 'utf8')) as Rec[];
      const r = await importFile(file);
      const reread = JSON.parse(JSON.stringify(r.conversations)) as Conversation[];
      const counts: DialogueKitExportCounts = { dialogues: 0, utterances: 0, acts: 0, slotValues: 0 };
      const exported = reread.map((conv) => toDialogueKitDialogue(conv, {}, counts));
      assert.deepEqual(exported, original);
      // The counts agree with the original file's own.
      const acts = original.flatMap((d) =>
        (d['conversation'] as Rec[]).flatMap((u) => (u['dialogue_acts'] ?? []) as Rec[]),
      );
      assert.deepEqual(counts, {
        dialogues: c.dialogues,
        utterances: c.utterances,
        acts: acts.length,
        slotValues: acts.reduce((n, a) => n + ((a['slot_values'] ?? []) as unknown[]).length, 0),
      });
    });
  }

  test('simlens convert: DialogueKit -> JSONL -> --to dialoguekit gives the original JSON', async () => {
    await withTempDir(async (dir) => {
      const src = datasetPath('dialoguekit-tests/annotated_dialogues.json');
      const a = await run(['convert', src, '-o', 'mid.jsonl'], dir);
      assert.equal(a.code, 0, a.err);
      const b = await run(['convert', 'mid.jsonl', '--to', 'dialoguekit', '-o', 'back.json'], dir);
      assert.equal(b.code, 0, b.err);
      assert.match(
        b.out,
        /format canonical, 3 dialogues \(109 utterances, \d+ dialogue acts by "source", \d+ slot values\) as dialoguekit written to back\.json/,
      );
      assert.deepEqual(JSON.parse(readFileSync(join(dir, 'back.json'), 'utf8')), JSON.parse(readFileSync(src, 'utf8')));
    }, 'simlens-dkx-');
  });
});

/** A SimLens conversation annotated by a reviewer, with merged segments and a slot without intent. */
const ANNOTATED: Conversation = {
  id: 'sim-1',
  source: 'agenda-user',
  agent: 'good',
  turns: [
    {
      user_utterance: 'I want a red dress',
      assistant_utterance: 'Here are some.\nDo you like satin?',
      annotations: [
        {
          speaker: 'user',
          annotator: 'alice',
          acts: ['DISCLOSE'],
          slots: [
            { slot: 'COLOR', value: 'red', start: 9, end: 12 },
            { slot: 'TYPE', value: 'dress' },
          ],
        },
        { speaker: 'user', annotator: 'bob', acts: ['OTHER'] },
        {
          speaker: 'assistant',
          annotator: 'alice',
          acts: ['REVEAL', 'INQUIRE'],
          slots: [{ slot: 'MATERIAL', value: 'satin', intent: 'INQUIRE' }],
          segment: 1,
        },
      ],
      source_utterances: [
        { speaker: 'assistant', segment: 0, text_start: 0, text_end: 14 },
        { speaker: 'assistant', segment: 1, text_start: 15, text_end: 33 },
      ],
    } as Conversation['turns'][number],
    { user_utterance: 'Yes, thanks' },
  ],
  outcome: 'accepted',
};

describe('acts annotated in SimLens, out to DialogueKit', () => {
  test("one annotator's acts and slot values in DialogueKit's reader shape", () => {
    const d = toDialogueKitDialogue(ANNOTATED, { annotator: 'alice' });
    assertDialogueKitReadable([d]);
    assert.deepEqual(d['agent'], { id: 'good', type: 'AGENT' });
    assert.deepEqual(d['user'], { id: 'agenda-user', type: 'SIMULATOR' });
    const conv = d['conversation'] as Rec[];
    assert.deepEqual(
      conv.map((u) => [u['participant'], u['utterance']]),
      [
        ['USER', 'I want a red dress'],
        ['AGENT', 'Here are some.'],
        ['AGENT', 'Do you like satin?'],
        ['USER', 'Yes, thanks'],
      ],
    );
    assert.deepEqual(conv[0]['dialogue_acts'], [
      {
        intent: 'DISCLOSE',
        slot_values: [
          ['COLOR', 'red', 9, 12],
          ['TYPE', 'dress', null, null],
        ],
      },
    ]);
    assert.equal(conv[1]['dialogue_acts'], undefined);
    assert.deepEqual(conv[2]['dialogue_acts'], [
      { intent: 'REVEAL', slot_values: [] },
      { intent: 'INQUIRE', slot_values: [['MATERIAL', 'satin', null, null]] },
    ]);
    assert.deepEqual(d['metadata'], { outcome: 'accepted' });
    // Another annotator gives other acts.
    const bob = toDialogueKitDialogue(ANNOTATED, { annotator: 'bob' });
    assert.deepEqual((bob['conversation'] as Rec[])[0]['dialogue_acts'], [{ intent: 'OTHER', slot_values: [] }]);
  });

  test('the export reads back into SimLens with the same utterances, acts and slots', () => {
    const d = toDialogueKitDialogue(ANNOTATED, { annotator: 'alice' });
    const back = importText(JSON.stringify([d]), { origin: 'x.json' });
    assert.equal(back.format, 'dialoguekit');
    const c = back.conversations[0];
    assert.equal(c.id, 'sim-1');
    assert.deepEqual(
      c.turns.map((t) => [t.user_utterance, t.assistant_utterance]),
      ANNOTATED.turns.map((t) => [t.user_utterance, t.assistant_utterance]),
    );
    const acts = c.turns.flatMap((t) =>
      (t.annotations ?? []).map((a) => [a.speaker, a.segment, a.acts, (a.slots ?? []).map((s) => [s.slot, s.value])]),
    );
    assert.deepEqual(acts, [
      [
        'user',
        0,
        ['DISCLOSE'],
        [
          ['COLOR', 'red'],
          ['TYPE', 'dress'],
        ],
      ],
      ['assistant', 1, ['REVEAL', 'INQUIRE'], [['MATERIAL', 'satin']]],
    ]);
  });

  test('simlens convert --to dialoguekit --annotator, and a warning when the annotator has no acts', async () => {
    await withTempDir(async (dir) => {
      writeFileSync(join(dir, 'ann.jsonl'), JSON.stringify(ANNOTATED) + '\n');
      const ok = await run(
        ['convert', 'ann.jsonl', '--to', 'dialoguekit', '--annotator', 'alice', '-o', 'out.json'],
        dir,
      );
      assert.equal(ok.code, 0, ok.err);
      assert.match(ok.out, /1 dialogue \(4 utterances, 3 dialogue acts by "alice", 3 slot values\)/);
      assertDialogueKitReadable(JSON.parse(readFileSync(join(dir, 'out.json'), 'utf8')));
      const none = await run(['convert', 'ann.jsonl', '--to', 'dialoguekit', '-o', 'none.json'], dir);
      assert.equal(none.code, 0);
      assert.match(
        none.err,
        /no dialogue acts by annotator "source"; dialogue_acts were left out \(annotators present: alice, bob; choose one with --annotator\)/,
      );
      const bad = await run(['convert', 'ann.jsonl', '--to', 'xml', '-o', 'x'], dir);
      assert.equal(bad.code, 2);
      assert.match(bad.err, /unknown format "xml" for --to; known formats: canonical, dialoguekit, convapparel-jsonl/);
      const misplaced = await run(['convert', 'ann.jsonl', '--annotator', 'alice', '-o', 'x.jsonl'], dir);
      assert.equal(misplaced.code, 2);
    }, 'simlens-dka-');
  });

  test('an empty input writes an empty DialogueKit array', () => {
    const ex = createExporter('dialoguekit');
    assert.deepEqual(JSON.parse(ex.begin() + ex.end()), []);
    assert.equal(normalizeExportFormat('UserSimCRS'), 'dialoguekit');
  });
});

describe('ConvApparel JSONL out', () => {
  test('ConvApparel lines -> SimLens -> convapparel-jsonl give the same lines', async () => {
    const lines = [
      {
        task_id: 'tops_good',
        turns: [
          {
            user_utterance: 'a linen shirt',
            assistant_utterance: 'Here is one.',
            recommendations: [{ item_id: 'S1', title: 'Linen Shirt', features: 'linen, short sleeve' }],
            ratings: { Satisfied: true },
          },
        ],
        ratings: { 'Were you able to find a product you liked?': 'No' },
        version: 3,
      },
      {
        task_id: 'tops_bad',
        turns: [{ user_utterance: 'cotton tee', assistant_utterance: 'What colour?' }],
        version: 3,
      },
    ];
    const r = importText(lines.map((l) => JSON.stringify(l)).join('\n') + '\n', { origin: 'ca.jsonl' });
    assert.equal(r.format, 'convapparel-jsonl');
    assert.deepEqual(r.conversations.map(toConvApparelLine), lines);
  });

  test('SimLens additions are left out; features arrays become one string; real ids are kept', () => {
    const line = toConvApparelLine({
      id: 'run-7',
      source: 'sim',
      task_id: 'shoes_good',
      turns: [
        {
          user_utterance: 'boots',
          assistant_utterance: 'These?',
          recommendations: [{ item_id: 'B', features: ['leather', 'brown'], score: 0.9 }],
          trace: { user_act: 'inform' },
          annotations: [],
        },
      ],
      metadata: { seed: 1 },
    });
    assert.deepEqual(line, {
      id: 'run-7',
      task_id: 'shoes_good',
      turns: [
        {
          user_utterance: 'boots',
          assistant_utterance: 'These?',
          recommendations: [{ item_id: 'B', features: 'leather, brown' }],
        },
      ],
    });
  });

  test('simlens convert --to convapparel-jsonl on a DialogueKit file', async () => {
    await withTempDir(async (dir) => {
      const r = await run(
        [
          'convert',
          fixturePath('datasets/usersimcrs-moviebot/annotated_dialogues.json'),
          '--to',
          'convapparel-jsonl',
          '-o',
          'out.jsonl',
        ],
        dir,
      );
      assert.equal(r.code, 0, r.err);
      assert.match(r.out, /8 conversations as convapparel-jsonl written to out\.jsonl/);
      const out = readFileSync(join(dir, 'out.jsonl'), 'utf8')
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l) as Rec);
      assert.equal(out.length, 8);
      assert.ok(
        out.every((l) => Object.keys(l).every((k) => ['id', 'task_id', 'turns', 'ratings', 'version'].includes(k))),
      );
    }, 'simlens-cax-');
  });
});
