import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { conversionTarget, convertToJsonl, importPreview } from '../../../src/extension/editor/convert';
import { parseWebviewMessage } from '../../../src/shared/editorProtocol';
import { CONVAPPAREL_TAXONOMY } from '../../../src/core/taxonomy';
import { loadWebview } from './webviewHarness';
import { scratchDir } from '../../support/scratch';

const FIXTURES = join(__dirname, '..', '..', 'fixtures');

function copyToTemp(rel: string): string {
  const dir = scratchDir('simlens-convert-');
  const target = join(dir, rel.split('/').pop()!);
  copyFileSync(join(FIXTURES, rel), target);
  return target;
}

describe('editor: converting an importable file', () => {
  test('the preview names the detected format, counts and warnings with file, line and field, and writes nothing', async () => {
    const path = copyToTemp('formats/redial/train_data.jsonl');
    const p = await importPreview(path);
    assert.ok(p, 'a ReDial file is offered for conversion');
    assert.equal(p.format, 'redial');
    // Dialogue 7003 is kept without its one bad message (reported on line 3); line 4 is broken JSON.
    assert.match(p.headline, /ReDial release \(JSONL\) \(detected\): 4 conversations, 2 warnings/);
    assert.match(p.text, /train_data\.jsonl:3: messages\[1\]\.senderWorkerId: /);
    assert.match(p.text, /warnings by field: /);
    assert.equal(p.target, 'train_data.conv.jsonl');
    assert.equal(existsSync(conversionTarget(path)), false);
  });

  test('conversation JSONL needs no conversion', async () => {
    const dir = scratchDir('simlens-convert-');
    const path = join(dir, 'a.jsonl');
    writeFileSync(
      path,
      JSON.stringify({ id: 'c1', turns: [{ user_utterance: 'hi', assistant_utterance: 'hello' }] }) + '\n',
    );
    assert.equal(await importPreview(path), undefined);
  });

  test('a file that is detected but cannot be imported says why', async () => {
    const dir = scratchDir('simlens-convert-');
    const path = join(dir, 'broken.json');
    // A DialogueKit document cut off in the middle.
    writeFileSync(
      path,
      readFileSync(join(FIXTURES, 'datasets/dialoguekit-tests/annotated_dialogues.json'), 'utf8').slice(0, 400),
    );
    const p = await importPreview(path);
    assert.ok(p?.error, JSON.stringify(p));
    assert.match(p.error, /broken\.json/);
  });

  test('convertToJsonl writes <name>.conv.jsonl beside the input, one conversation per line', async () => {
    const path = copyToTemp('datasets/dialoguekit-tests/annotated_dialogues.json');
    const c = await convertToJsonl(path, 'annotated_dialogues.json');
    assert.equal(c.target, path.replace(/\.json$/, '.conv.jsonl'));
    const lines = readFileSync(c.target, 'utf8').trim().split('\n');
    assert.equal(lines.length, c.count);
    assert.equal(c.count, 3);
    const first = JSON.parse(lines[0]) as {
      id?: string;
      conversation_id?: string;
      turns: Array<{ user_utterance: string }>;
    };
    assert.equal(first.turns[0].user_utterance.trim(), 'hello');
  });

  test('the convert message is accepted by the host', () => {
    assert.equal(parseWebviewMessage({ type: 'convert' }).ok, true);
  });

  test('the webview shows the format, the summary and a Convert button instead of the list', async () => {
    const summary =
      'train_data.jsonl\n  conversations: 3\n  warnings (1):\n    train_data.jsonl:3: messages[1].senderWorkerId: <img src=x onerror=__xss("summary")>';
    const hz = await loadWebview({
      init: {
        fileName: 'train_data.jsonl',
        taxonomy: CONVAPPAREL_TAXONOMY,
        importable: {
          format: 'redial',
          headline: 'ReDial release (JSONL) (detected): 3 conversations, 1 warning',
          text: summary,
          target: 'train_data.conv.jsonl',
        },
      },
    });
    try {
      await hz.waitFor('.import-format', /ReDial release \(JSONL\) \(detected\): 3 conversations/);
      assert.equal(hz.document.querySelector('.import-summary')?.textContent, summary);
      assert.deepEqual(hz.fired, []);
      assert.equal(
        hz.posted.some((m) => m.type === 'setFilter'),
        false,
        'no list is requested for a file that is not JSONL',
      );
      const convert = hz.document.querySelector<HTMLButtonElement>('button.convert');
      assert.ok(convert);
      assert.match(convert.textContent ?? '', /Convert to train_data\.conv\.jsonl and open/);
      convert.click();
      assert.deepEqual(hz.posted.at(-1), { type: 'convert' });
      assert.equal(convert.disabled, true);
      // A failed conversion re-enables the button.
      hz.send({ type: 'notice', level: 'error', message: 'cannot write' });
      assert.equal(convert.disabled, false);
    } finally {
      hz.close();
    }
  });
});

describe('editor: first render', () => {
  test('a fresh, unfiltered editor asks for the first conversation with "ready" (one round trip before the first render)', async () => {
    const conv = { id: 'c1', turns: [{ user_utterance: 'first', assistant_utterance: 'hi' }] };
    const hz = await loadWebview({ conversations: [conv, { ...conv, id: 'c2' }] });
    try {
      await hz.waitFor('.conv-id', /c1/);
      const [ready] = hz.posted;
      assert.equal(ready.type, 'ready');
      assert.deepEqual(ready, {
        type: 'ready',
        first: { requestId: (ready as { first: { requestId: number } }).first.requestId, line: 0 },
      });
      // The host answered it after init: the page asks again only to find the conversation's
      // position in the view once the view arrives (same line).
      assert.ok(
        hz.posted.filter((m) => m.type === 'openConversation').every((m) => (m as { line: number }).line === 0),
      );
    } finally {
      hz.close();
    }
  });

  test('a saved filter still opens the first row of the filtered list', async () => {
    const conv = { id: 'c1', turns: [{ user_utterance: 'first', assistant_utterance: 'hi' }] };
    const shoes = { ...conv, task_id: 'footwear_good' };
    const hz = await loadWebview({
      conversations: [shoes, { ...shoes, id: 'c2' }],
      savedState: { v: 1, filter: { task: 'footwear' }, mode: 'replay' },
    });
    try {
      await hz.waitFor('.conv-id', /c1/);
      const types = hz.posted.map((m) => m.type);
      assert.ok(types.indexOf('requestPage') < types.indexOf('openConversation'), types.join(','));
    } finally {
      hz.close();
    }
  });
});
