/**
 * The raw releases of the field's CRS datasets (ReDial, INSPIRED, IARD) on small hand-written
 * fixtures in their published shape (test/fixtures/formats): detection, mapping, what metadata
 * keeps, bad records skipped with line and field, and streaming of a ReDial-sized file.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Conversation } from '../../../src/core/model';
import {
  detectTextFormat,
  formatWarning,
  importFile,
  importFileEach,
  importText,
} from '../../../src/core/importers/index';
import { parsePythonLiteral } from '../../../src/core/importers/inspired';
import { importSummary } from '../../../src/core/importers/summary';
import { fixturePath } from '../../fixtures';
import { withTempDir } from '../jsonl/helpers';
import { importDetected } from './helpers';

type Rec = Record<string, unknown>;
const REDIAL = 'formats/redial/train_data.jsonl';
const INSPIRED = 'formats/inspired/data/dialog_data/dev.tsv';
const IARD = 'formats/iard/umap2020_IARD_Cai.json';
const records = (turn: unknown): Rec[] => ((turn as Rec)['source_utterances'] ?? []) as Rec[];

describe('ReDial release (JSONL)', () => {
  test('detected; messages become turns, @mentions titles, recommender mentions recommendations', async () => {
    const file = fixturePath(REDIAL);
    const r = await importDetected(file, 'redial');
    // 7003 has one message from an unknown sender: that message is left out, the dialogue is kept.
    assert.deepEqual(
      r.conversations.map((c) => c.id),
      ['7001', '7002', '7003', '7004'],
    );
    for (const c of r.conversations) assert.ok(Conversation.safeParse(c).success, `conversation ${c.id} invalid`);
    const [a] = r.conversations;
    assert.equal(a.source, 'human');
    assert.equal(a.agent, '41');
    // Two recommender messages in a row are one field with two segments.
    assert.equal(a.turns[0].assistant_utterance, 'Hi there\nWhat did you enjoy lately?');
    assert.equal(a.turns[1].user_utterance, 'I loved Harbor Lights (1994) last week');
    assert.equal(a.turns[1].assistant_utterance, 'Then try The Glass Orchard (2009) or maybe Moonlit Ferry  (2015)');
    // Only what the recommender mentions is a recommendation; the seeker's mention is not.
    assert.equal(a.turns[0].recommendations, undefined);
    assert.deepEqual(a.turns[1].recommendations, [
      { item_id: '501002', title: 'The Glass Orchard (2009)' },
      { item_id: '501003', title: 'Moonlit Ferry  (2015)' },
    ]);
    // Each message keeps its ids, time offset and (when a mention was replaced) its original text.
    const recs = records(a.turns[1]);
    assert.deepEqual(
      recs.map((x) => [x['messageId'], x['timeOffset'], x['senderWorkerId'], x['text']]),
      [
        [9004, 40, 40, 'I loved @501001 last week'],
        [9005, 61, 41, 'Then try @501002 or maybe @501003'],
      ],
    );
  });

  test("the seeker's forms are first-person ratings; the recommender's an annotation", async () => {
    const r = await importFile(fixturePath(REDIAL));
    const a = r.conversations[0];
    assert.equal(a.ratings?.['liked: Harbor Lights (1994) [@501001]'], true);
    assert.equal(a.ratings?.['seen: The Glass Orchard (2009) [@501002]'], false);
    assert.equal(a.ratings?.['suggested: The Glass Orchard (2009) [@501002]'], true);
    assert.equal(a.ratings?.['liked: Moonlit Ferry  (2015) [@501003]'], null); // 2 = did not say
    const ann = a.annotations?.find((x) => x.annotator === 'redial:respondent');
    assert.equal(ann?.fields?.['seen: Moonlit Ferry  (2015) [@501003]'], null);
    assert.equal(ann?.fields?.['seen: Harbor Lights (1994) [@501001]'], true);
    // Empty maps written as [] are read as empty: no ratings, no annotation, no warning.
    const b = r.conversations[1];
    assert.equal(b.ratings, undefined);
    assert.equal(b.annotations, undefined);
    assert.equal(r.warnings.filter((w) => w.line === 2).length, 0);
  });

  test('lossless: every original line is rebuilt from the conversation', async () => {
    const file = fixturePath(REDIAL);
    const lines = readFileSync(file, 'utf8').split('\n');
    const r = await importFile(file);
    for (const conv of JSON.parse(JSON.stringify(r.conversations)) as Conversation[]) {
      const meta = { ...(conv.metadata as Rec) };
      for (const k of ['format', 'utterances', 'speaker_changes']) delete meta[k];
      const skipped = (meta['skipped_messages'] ?? []) as { index: number; message: Rec }[];
      delete meta['skipped_messages'];
      const messages: Rec[] = [];
      for (const turn of conv.turns) {
        for (const speaker of ['user', 'assistant'] as const) {
          const field = speaker === 'user' ? turn.user_utterance : turn.assistant_utterance;
          if (field === undefined) continue;
          for (const rec of records(turn).filter((x) => x['speaker'] === speaker)) {
            const { speaker: _s, segment: _g, text_start, text_end, text, ...rest } = rec;
            messages.push({ ...rest, text: text ?? field.slice(text_start as number, text_end as number) });
          }
        }
      }
      const original = JSON.parse(lines.find((l) => l.includes(`"conversationId": "${conv.id}"`))!) as Rec;
      for (const sk of skipped) messages.splice(sk.index, 0, sk.message);
      const rebuilt = { ...meta, messages: messages.map((m) => ({ ...m })) };
      const sortKeys = (m: Rec): Rec => Object.fromEntries(Object.entries(m).sort(([x], [y]) => x.localeCompare(y)));
      assert.deepEqual(
        { ...rebuilt, messages: (rebuilt.messages as Rec[]).map(sortKeys) },
        { ...original, messages: (original['messages'] as Rec[]).map(sortKeys) },
      );
    }
  });

  test('a bad record is skipped with file, line and field; the rest is kept', async () => {
    const file = fixturePath(REDIAL);
    const r = await importFile(file);
    assert.equal(r.warnings.length, 2);
    const [sender, json] = r.warnings;
    assert.equal(sender.line, 3);
    assert.equal(sender.path, 'messages[1].senderWorkerId');
    assert.match(
      sender.message,
      /dialogue "7003".*neither the initiator.*; message skipped \(kept in metadata\.skipped_messages\)/,
    );
    // The dialogue is kept with its good message; the bad one is in metadata, unchanged.
    const c = r.conversations.find((x) => x.id === '7003')!;
    assert.equal(c.turns[0].user_utterance, 'hi');
    assert.deepEqual(c.metadata?.['skipped_messages'], [
      { index: 1, message: { timeOffset: 3, text: 'who is this', senderWorkerId: 99, messageId: 9202 } },
    ]);
    assert.equal(json.line, 4);
    assert.match(json.message, /invalid JSON.*line skipped/);
    assert.match(formatWarning(file, sender), /train_data\.jsonl:3: messages\[1\]\.senderWorkerId: /);
  });

  test('movie-id maps keep their file order (original_key_order) where JavaScript would reorder them', () => {
    // Written by hand: JSON.stringify would itself put "12" first.
    const line =
      '{"movieMentions": {"900": "B (2001)", "12": "A (2000)"}, "messages": [{"timeOffset": 0, "text": "hi @900", "senderWorkerId": 1, "messageId": 1}], ' +
      '"conversationId": "5", "respondentWorkerId": 2, "initiatorWorkerId": 1, "initiatorQuestions": {"12": {"suggested": 1, "seen": 0, "liked": 1}}}';
    const r = importText(line + '\n', { origin: 'r.jsonl' });
    const md = r.conversations[0].metadata as Rec;
    // Object.keys gives 12 first; the file had 900 first.
    assert.deepEqual(Object.keys(md['movieMentions'] as Rec), ['12', '900']);
    assert.deepEqual(md['original_key_order'], { movieMentions: ['900', '12'] });
    // Top-level keys keep the file's order.
    assert.deepEqual(Object.keys(md).slice(0, 5), [
      'movieMentions',
      'conversationId',
      'respondentWorkerId',
      'initiatorWorkerId',
      'initiatorQuestions',
    ]);
    // Already ascending: nothing added.
    const asc = importText(
      line.replace('{"900": "B (2001)", "12": "A (2000)"}', '{"12": "A (2000)", "900": "B (2001)"}') + '\n',
      { origin: 'r.jsonl' },
    );
    assert.equal((asc.conversations[0].metadata as Rec)['original_key_order'], undefined);
  });

  test('streams a train-sized file (10,000 dialogues) line by line', async () => {
    await withTempDir(async (dir) => {
      const file = join(dir, 'train_data.jsonl');
      const lines: string[] = [];
      for (let k = 0; k < 10_000; k++) {
        lines.push(
          JSON.stringify({
            movieMentions: { [`${k}`]: `Film ${k} (2000)` },
            respondentQuestions: { [`${k}`]: { suggested: 1, seen: 0, liked: 1 } },
            messages: [
              { timeOffset: 0, text: 'hi', senderWorkerId: 1, messageId: 2 * k },
              { timeOffset: 4, text: `try @${k}`, senderWorkerId: 2, messageId: 2 * k + 1 },
            ],
            conversationId: `${k}`,
            respondentWorkerId: 2,
            initiatorWorkerId: 1,
            initiatorQuestions: { [`${k}`]: { suggested: 1, seen: 0, liked: 1 } },
          }),
        );
      }
      lines[5000] = '{"conversationId": "broken", "messages": 3, "initiatorWorkerId": 1}';
      writeFileSync(file, lines.join('\n') + '\n');
      let n = 0;
      let last: Conversation | undefined;
      const r = await importFileEach(file, (c) => {
        n++;
        last = c;
      });
      assert.equal(r.format, 'redial');
      assert.equal(n, 9_999);
      assert.equal(r.count, 9_999);
      assert.deepEqual(
        r.warnings.map((w) => [w.line, w.path]),
        [[5001, 'messages']],
      );
      assert.equal(last?.turns[0].assistant_utterance, 'try Film 9999 (2000)');
    }, 'simlens-redial-');
  });
});

describe('INSPIRED release (TSV)', () => {
  test('detected; strategies are source annotations; the movie database gives item ids', async () => {
    const file = fixturePath(INSPIRED);
    const r = await importDetected(file, 'inspired');
    assert.equal(r.conversations.length, 2);
    assert.ok(
      r.notes?.some((n) => /movie_database\.tsv \(2 movies\)/.test(n)),
      String(r.notes),
    );
    const [a, b] = r.conversations;
    for (const c of r.conversations) assert.ok(Conversation.safeParse(c).success);
    assert.equal(a.id, '20200101-090000_1_live.pkl');
    // Recommender first; two seeker rows merged; QUOTATION_MARK shown as a quote, original kept.
    assert.equal(a.turns[0].user_utterance, undefined);
    assert.equal(a.turns[1].user_utterance, 'I like quiet dramas\nnothing too loud');
    assert.equal(a.turns[1].assistant_utterance, 'You might like Harbor Lights, it has a "gentle" pace');
    const rec = records(a.turns[1]).find((x) => x['utt_id'] === 4)!;
    assert.equal(rec['text'], 'You might like Harbor Lights, it has a QUOTATION_MARKgentleQUOTATION_MARK pace');
    assert.deepEqual(rec['movies'], ['Harbor Lights (1994)', "Kite's End (2003)"]);
    assert.equal(rec['turn_id'], 2);
    assert.deepEqual(
      a.turns[1].annotations?.map((x) => [x.speaker, x.annotator, x.taxonomy, x.acts]),
      [['assistant', 'source', 'inspired', ['personal_opinion', 'credibility']]],
    );
    assert.deepEqual(
      a.turns[1].recommendations?.map((x) => [x.item_id, x.title, x.attributes?.['director']]),
      [
        ['vidHARBOR01', 'Harbor Lights (1994)', 'Jo Park'],
        ['vidKITE0002', "Kite's End (2003)", 'Mara Quint'],
      ],
    );
    // Per-dialogue columns: parsed Python dicts, labels, the recommended movie from the database.
    assert.deepEqual(a.metadata?.['movie_dict'], { 'Harbor Lights (1994)': 0, "Kite's End (2003)": 1 });
    assert.equal(a.metadata?.['fine_label'], 'accept_rating_good');
    assert.equal((a.metadata?.['recommended_movie'] as Rec)['title'], 'Harbor Lights');
    assert.equal(a.outcome, 'accepted');
    // A row whose per-dialogue column differs keeps its own value.
    assert.equal(rec['actor_dict'], "{'Ann Vale': 0}");
    // Not in the database: the title is the item id.
    assert.deepEqual(b.turns[0].recommendations, [{ item_id: 'Unknown Film (1999)', title: 'Unknown Film (1999)' }]);
    assert.equal(b.outcome, 'ended');
  });

  test('bad rows are skipped with line and column; without a database titles are ids', async () => {
    const file = fixturePath(INSPIRED);
    const r = await importFile(file);
    assert.deepEqual(
      r.warnings.map((w) => [w.line, w.path]),
      [
        [8, 'speaker'],
        [10, undefined],
      ],
    );
    assert.match(r.warnings[0].message, /speaker must be SEEKER or RECOMMENDER, found "CRITIC"; row skipped/);
    assert.match(r.warnings[1].message, /6 tab-separated fields, the header has 19; row skipped/);
    // The dialogue of the bad row is kept without it.
    assert.deepEqual(
      r.conversations[1].turns.map((t) => [t.user_utterance, t.assistant_utterance]),
      [['hello', 'hi, try Unknown Film']],
    );
    const t = importText(readFileSync(file, 'utf8'), { origin: 'dev.tsv' });
    assert.equal(t.format, 'inspired');
    assert.equal(t.conversations[0].turns[1].recommendations?.[0].item_id, 'Harbor Lights (1994)');
  });

  test('Python dict literals of the *_dict columns', () => {
    assert.deepEqual(parsePythonLiteral(`{'a': 0, "b's": 1, 'c\\'d': 2}`), { a: 0, "b's": 1, "c'd": 2 });
    assert.deepEqual(parsePythonLiteral('{}'), {});
    assert.deepEqual(parsePythonLiteral("['x', None, True, 1.5]"), ['x', null, true, 1.5]);
    assert.equal(parsePythonLiteral("{'a': 0"), undefined);
    assert.equal(parsePythonLiteral('not a dict'), undefined);
  });
});

describe('IARD release (JSON keyed by conversation id)', () => {
  test('detected; file order kept; sub-intents are acts with top-level kept; outcome', async () => {
    const file = fixturePath(IARD);
    const r = await importDetected(file, 'iard');
    // JSON.parse would put "12" before "900"; the file has 900 first.
    assert.deepEqual(
      r.conversations.map((c) => c.id),
      ['900', '12'],
    );
    const [a, b] = r.conversations;
    for (const c of r.conversations) assert.ok(Conversation.safeParse(c).success);
    assert.equal(a.turns[0].assistant_utterance, 'Sure, Harbor Lights (1994)  is lovely');
    assert.deepEqual(a.turns[0].recommendations, [{ item_id: '501001', title: 'Harbor Lights (1994)' }]);
    const ua = a.turns[0].annotations!.find((x) => x.speaker === 'user')!;
    assert.deepEqual(
      [ua.annotator, ua.taxonomy, ua.acts, ua['top_level']],
      ['source', 'iard', ['OTH', 'IQU'], ['OTH', 'AskForRec']],
    );
    assert.deepEqual(a.turns[1].annotations!.find((x) => x.speaker === 'assistant')!.acts, ['REC-S', 'REC-S']);
    const rec = records(a.turns[0]).find((x) => x['speaker'] === 'assistant')!;
    assert.deepEqual(
      [rec['utterance_id'], rec['utterance_pos'], rec['worker_id'], rec['utterance_text']],
      ['R2', 2, 8, 'Sure, @501001 <Harbor Lights  (1994)>  is lovely'],
    );
    assert.deepEqual(a.metadata?.['accepted_recommendation'], [5]);
    assert.equal(a.outcome, 'accepted');
    assert.equal(a.agent, '8');
    // Agent-first dialogue; empty accepted_recommendation.
    assert.equal(b.turns[0].user_utterance, undefined);
    assert.equal(b.outcome, 'ended');
  });

  test('a bad dialogue is skipped with its line and JSON path', async () => {
    const r = await importFile(fixturePath(IARD));
    assert.equal(r.warnings.length, 1);
    assert.equal(r.warnings[0].line, 103);
    assert.equal(r.warnings[0].path, '["35"].dialogue_info.S1.role');
    assert.match(
      r.warnings[0].message,
      /role must be "seeker" or "recommender", found string "critic"; dialogue skipped/,
    );
  });

  test('--from forces a format; a wrong one names the detected format', async () => {
    const file = fixturePath(IARD);
    const forced = await importFile(file, { from: 'IARD' });
    assert.equal(forced.format, 'iard');
    await assert.rejects(importFile(file, { from: 'dialoguekit' }), /try --from iard/);
    await assert.rejects(importFile(fixturePath(REDIAL), { from: 'inspired' }), /try --from redial/);
  });
});

describe('detection by content', () => {
  test('each raw shape is told apart from its neighbours', () => {
    assert.equal(detectTextFormat('{"conversationId": "1", "messages": [], "initiatorWorkerId": 1}\n'), 'redial');
    assert.equal(detectTextFormat('{"7": {"accepted_recommendation": [], "dialogue_info": {}}}'), 'iard');
    assert.equal(detectTextFormat('dialog_id\tutt_id\tspeaker\tturn_id\ttext\n'), 'inspired');
    // The UserSimCRS copy of IARD is still DialogueKit; a JSON object keyed by numbers without dialogue_info is not IARD.
    assert.equal(detectTextFormat('[{"conversation_id": "1", "conversation": []}]'), 'dialoguekit');
    assert.equal(detectTextFormat('{"7": {"turns": []}}'), undefined);
    assert.equal(detectTextFormat('dialog_id,speaker,text\n'), undefined);
  });

  test('the readable summary names the format and escapes control characters in warnings', () => {
    const s = importSummary('in.tsv', {
      format: 'inspired',
      count: 2,
      warnings: [{ line: 8, path: 'speaker', message: 'found "\u001b[31mX"; row skipped' }],
      notes: ['movie database: db.tsv (2 movies)'],
    });
    assert.equal(s.headline, 'INSPIRED dialogs (TSV) (detected): 2 conversations, 1 warning');
    assert.match(s.text, /format: INSPIRED dialogs \(TSV\) \[inspired\], detected from the content/);
    assert.match(s.text, /in\.tsv:8: speaker: found "\\u001b\[31mX"; row skipped/);
    // eslint-disable-next-line no-control-regex
    assert.ok(!/\u001b/.test(s.text));
  });
});
