/**
 * The importers on the real datasets in test/fixtures/datasets, read completely: counts from the
 * issue and the datasets README, DialogueKit's reference statistics recomputed from the output,
 * and a lossless round trip back to the original DialogueKit JSON.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Conversation } from '../../../src/core/model';
import { dialogueKitStats, importFile } from '../../../src/core/importers/index';
import { fixturePath } from '../../fixtures';
import { countUtterances, dataset, importDetected, toDialogueKit } from './helpers';

const MOVIEBOT = 'usersimcrs-moviebot/annotated_dialogues.json';
const DKTESTS = 'dialoguekit-tests/annotated_dialogues.json';
const IARD = 'usersimcrs-iard-gold/formatted_IARD_annotated_gold.json';
const ABREDIAL = 'ab-redial/annotated_dialogues.csv';

/** The DialogueKit reference table in test/fixtures/README.md: folder -> figures. */
function readmeFigures(): Map<string, { avgTurns: number; user: number; agent: number; ratio: number }> {
  const p = fixturePath('README.md');
  const out = new Map<string, { avgTurns: number; user: number; agent: number; ratio: number }>();
  for (const line of readFileSync(p, 'utf8').split('\n')) {
    const m = /^\|\s*([a-z-]+)\s*\|\s*([\d.]+)\s*\|\s*([\d,]+)\s*\|\s*([\d,]+)\s*\|\s*([\d.]+)\s*\|\s*$/.exec(line);
    if (m)
      out.set(m[1], {
        avgTurns: Number(m[2]),
        user: Number(m[3].replace(/,/g, '')),
        agent: Number(m[4].replace(/,/g, '')),
        ratio: Number(m[5]),
      });
  }
  return out;
}

const CASES = [
  { rel: MOVIEBOT, folder: 'usersimcrs-moviebot', dialogues: 8, utterances: 210 },
  { rel: DKTESTS, folder: 'dialoguekit-tests', dialogues: 3, utterances: 109 },
  { rel: IARD, folder: 'usersimcrs-iard-gold', dialogues: 77, utterances: 1103 },
];

describe('DialogueKit / UserSimCRS real files', () => {
  for (const c of CASES) {
    test(`${c.folder}: ${c.dialogues} dialogues, ${c.utterances} utterances, README statistics recomputed`, async () => {
      const file = dataset(c.rel);
      const r = await importDetected(file, 'dialoguekit');
      assert.equal(r.conversations.length, c.dialogues);
      const counted = countUtterances(r.conversations);
      assert.equal(counted.total, c.utterances);
      // metadata.utterances is the importer's own count of the source; it must agree with the segments.
      assert.equal(
        r.conversations.reduce((s, x) => s + Number(x.metadata?.['utterances']), 0),
        c.utterances,
      );
      // Every conversation is valid canonical data.
      for (const conv of r.conversations)
        assert.ok(Conversation.safeParse(conv).success, `conversation ${conv.id} invalid`);
      // Every utterance carries its source annotation (these files annotate every utterance).
      const annotations = r.conversations.flatMap((x) => x.turns.flatMap((tn) => tn.annotations ?? []));
      assert.equal(annotations.length, c.utterances);
      assert.ok(annotations.every((a) => a.annotator === 'source'));

      const stats = dialogueKitStats(r.conversations);
      assert.equal(stats.userUtterances + stats.agentUtterances, c.utterances);
      // Cross-check AvgTurns against the stored speaker changes.
      const changes = r.conversations.reduce((s, x) => s + Number(x.metadata?.['speaker_changes']), 0);
      assert.equal(stats.avgTurns, changes / 2 / c.dialogues);
      const ref = readmeFigures().get(c.folder);
      assert.ok(ref, `no row for ${c.folder} in the reference table of test/fixtures/README.md`);
      assert.equal(Number(stats.avgTurns.toFixed(4)), ref.avgTurns);
      assert.equal(stats.userUtterances, ref.user);
      assert.equal(stats.agentUtterances, ref.agent);
      assert.equal(Number(stats.ratio.toFixed(4)), ref.ratio);
    });

    test(`${c.folder}: lossless (rebuilding the DialogueKit JSON gives the original)`, async () => {
      const file = dataset(c.rel);
      const original = JSON.parse(readFileSync(file, 'utf8')) as unknown[];
      const r = await importFile(file);
      // Through JSON, as the converted file would be written and read back.
      const reread = JSON.parse(JSON.stringify(r.conversations)) as Conversation[];
      assert.deepEqual(toDialogueKit(reread), original);
    });
  }

  test('moviebot: ids with embedded quotes kept exactly; agent-first dialogues', async () => {
    const file = dataset(MOVIEBOT);
    const original = JSON.parse(readFileSync(file, 'utf8')) as { conversation_id: string }[];
    const r = await importFile(file);
    assert.deepEqual(
      r.conversations.map((c) => c.id),
      original.map((d) => d.conversation_id),
    );
    assert.equal(r.conversations.filter((c) => c.id?.includes('"')).length, 4);
    for (const c of r.conversations) {
      // Agent-first: the first turn has only the assistant side.
      assert.equal(c.turns[0].user_utterance, undefined);
      assert.equal(typeof c.turns[0].assistant_utterance, 'string');
      assert.equal(c.source, 'human');
      assert.equal(c.agent, 'IAI MovieBot');
      assert.equal(c.metadata?.['user'], 'User');
      assert.equal(c.metadata?.['format'], 'dialoguekit');
    }
    const taxonomies = new Set(
      r.conversations.flatMap((c) => c.turns.flatMap((tn) => (tn.annotations ?? []).map((a) => a.taxonomy))),
    );
    assert.deepEqual([...taxonomies], ['dialoguekit']);
  });

  test('dialoguekit-tests: consecutive same-speaker utterances merged with segments; ids and feedback kept', async () => {
    const file = dataset(DKTESTS);
    const r = await importFile(file);
    const records = r.conversations.flatMap((c) =>
      c.turns.flatMap(
        (tn) => ((tn as Record<string, unknown>)['source_utterances'] ?? []) as Record<string, unknown>[],
      ),
    );
    assert.equal(records.filter((x) => 'utterance_id' in x).length, 23);
    assert.equal(records.filter((x) => 'utterance_feedback' in x).length, 2);
    const merged = r.conversations
      .flatMap((c) => c.turns)
      .filter((tn) => (tn.annotations ?? []).some((a) => (a.segment ?? 0) > 0));
    assert.ok(merged.length > 0, 'expected merged utterances');
    for (const tn of merged) {
      const recs = ((tn as Record<string, unknown>)['source_utterances'] ?? []) as {
        speaker: string;
        text_start: number;
        text_end: number;
      }[];
      for (const rec of recs) {
        const field = rec.speaker === 'user' ? tn.user_utterance! : tn.assistant_utterance!;
        assert.ok(rec.text_end <= field.length);
        // Segments are separated by exactly one "\n" in the merged field.
        if (rec.text_start > 0) assert.equal(field[rec.text_start - 1], '\n');
      }
    }
    // All three start with the user.
    assert.ok(r.conversations.every((c) => c.turns[0].user_utterance !== undefined));
  });

  test('iard-gold: 491 utterances with several acts, 29 user-first, metadata and taxonomy', async () => {
    const file = dataset(IARD);
    const r = await importFile(file);
    const anns = r.conversations.flatMap((c) => c.turns.flatMap((tn) => tn.annotations ?? []));
    assert.equal(anns.filter((a) => a.acts.length > 1).length, 491);
    assert.equal(r.conversations.filter((c) => c.turns[0].user_utterance !== undefined).length, 29);
    assert.ok(r.conversations.every((c) => Array.isArray(c.metadata?.['accepted_recommendations'])));
    assert.ok(anns.every((a) => a.taxonomy === 'iard'));
    // Null slot values are kept as null.
    assert.ok(anns.some((a) => (a.slots ?? []).some((s) => s.value === null)));
    // The one slot whose "start" is a year is reported, and the original kept.
    assert.equal(r.warnings.length, 1);
    assert.match(r.warnings[0].path ?? '', /^\[\d+\]\.conversation\[\d+\]\.dialogue_acts\[0\]\.slot_values\[0\]$/);
    const raw = anns.flatMap((a) => a.slots ?? []).filter((s) => s['raw'] !== undefined);
    assert.deepEqual(
      raw.map((s) => s['raw']),
      [['TITLE', 'Conan the Barbarian', '1982', null]],
    );
    // Numeric participant ids become strings for `agent`, and stay as they were in metadata.
    assert.ok(r.conversations.every((c) => typeof c.agent === 'string' && typeof c.metadata?.['user'] === 'number'));
  });
});

describe('AB-ReDial real file', () => {
  test('640 rating rows, 195 ConvIds; ConvIds naming two dialogues are split', async () => {
    const file = dataset(ABREDIAL);
    const r = await importDetected(file, 'ab-redial');
    const ratings = r.conversations.flatMap((c) => c.annotations ?? []);
    assert.equal(ratings.length, 640);
    // Every data row appears exactly once, as rater:<row>.
    assert.deepEqual(
      ratings.map((a) => a.annotator).sort(),
      Array.from({ length: 640 }, (_, i) => `rater:${i + 1}`).sort(),
    );
    const convIds = new Set(r.conversations.map((c) => c.metadata?.['conv_id']));
    assert.equal(convIds.size, 195);
    const collisions = r.warnings.filter((w) => /names 2 different dialogues/.test(w.message));
    assert.equal(r.conversations.length, 195 + collisions.length);
    assert.ok(collisions.length > 0);
    for (const w of collisions) {
      const id = /imported as "([^"]+)"/.exec(w.message)?.[1];
      assert.ok(id && r.conversations.some((c) => c.id === id), `missing ${id}`);
    }
    // Four rows have no ratings at all (5 empty cells each) and are reported.
    assert.equal(r.warnings.filter((w) => /is empty; left out/.test(w.message)).length, 20);
    // Ratings are numbers on the published scales.
    for (const a of ratings) {
      for (const [k, v] of Object.entries(a.fields ?? {})) {
        assert.equal(typeof v, 'number', `${a.annotator} ${k}`);
        assert.ok((v as number) >= 0 && (v as number) <= 5);
      }
    }
    for (const c of r.conversations) {
      assert.ok(Conversation.safeParse(c).success);
      assert.ok(c.turns.length > 0);
      assert.equal(c.source, 'human');
    }
    // Role separators other than a tab (spaces, an em space) were recognised: no utterance keeps a role prefix.
    const texts = r.conversations.flatMap((c) =>
      c.turns.flatMap((tn) => [tn.user_utterance ?? '', tn.assistant_utterance ?? '']),
    );
    assert.ok(!texts.some((x) => /^(USER|SYSTEM)\b/.test(x)));
    // (After a tab the text is kept exactly, leading space included; other separators are stripped.)
    assert.ok(!texts.some((x) => /^[\u2003\t]/.test(x)));
    assert.ok(dialogueKitStats(r.conversations).avgTurns > 0);
  });
});
