/**
 * The page's boot data (EditorBoot in #app data-boot, written by the provider when it has it at
 * hand): the first conversation is drawn from the HTML, with no round trip through the extension
 * host, and nothing is lost or shown twice when the page wants something else. Real host and page
 * (webviewHarness), the HTML attribute written by the same function as the provider's.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Conversation } from '../../../src/core/model';
import { VIEW_STATE_VERSION } from '../../../src/shared/editorProtocol';
import { loadWebview } from './webviewHarness';
import { XSS_PAYLOADS, markupFromData } from './xssCorpus';

function human(i: number): Conversation {
  return {
    id: `h-${i}`,
    task_id: 'outerwear_bad',
    turns: [{ user_utterance: `hello ${i}`, assistant_utterance: 'hi there' }],
  };
}

const conversations = [human(0), human(1), human(2)];

describe('editor boot data in the page HTML', () => {
  test('a fresh page draws line 1 from its HTML: no init and no conversation by message', async () => {
    const hx = await loadWebview({ conversations, boot: true });
    try {
      await hx.waitFor('.conv-id', /^h-0$/);
      assert.match(hx.document.querySelector('.msg .bubble')?.textContent ?? '', /hello 0/);
      await hx.waitFor('.list-status', /of 3 conversations/);
      await hx.settle();
      assert.deepEqual(hx.posted[0], { type: 'ready', booted: true }, 'ready says booted and asks for nothing');
      assert.equal(hx.idAtLoad, 'h-0', 'on screen as soon as the script ran, before any host message');
      const sent = hx.received.map((m) => m.type);
      assert.equal(sent.includes('init'), false, `the host sent no init: ${sent.join(', ')}`);
      // The page is whole: the file name from the boot init, the list from the host's view.
      assert.equal(hx.document.querySelector('.file-name')?.textContent, 'test.conv.jsonl');
      assert.equal(hx.document.querySelector('#app')?.hasAttribute('data-boot'), false, 'read once, then dropped');
      hx.key(']');
      await hx.waitFor('.conv-id', /^h-1$/);
    } finally {
      hx.close();
    }
  });

  test('the same page without boot data asks for both (the path a slow boot falls back to)', async () => {
    const hx = await loadWebview({ conversations });
    try {
      await hx.waitFor('.conv-id', /^h-0$/);
      await hx.settle();
      assert.equal(hx.posted[0].type, 'ready');
      assert.equal((hx.posted[0] as { booted?: boolean }).booted, undefined);
      assert.equal(hx.idAtLoad, undefined, 'nothing on screen before the host answered');
      const sent = hx.received.map((m) => m.type);
      assert.ok(sent.includes('init') && sent.includes('conversation'), sent.join(', '));
    } finally {
      hx.close();
    }
  });

  test('the restored view state: its line and turn come from the HTML', async () => {
    const state = { v: VIEW_STATE_VERSION, filter: {}, line: 2, mode: 'annotate' as const, turn: 0 };
    const hx = await loadWebview({ conversations, boot: true, pageViewState: state });
    try {
      await hx.waitFor('.conv-id', /^h-2$/);
      await hx.waitFor('.annotate-panel');
      await hx.settle();
      assert.deepEqual(hx.posted[0], { type: 'ready', booted: true });
      assert.equal(hx.idAtLoad, 'h-2');
      assert.equal(
        hx.received.some((m) => m.type === 'init'),
        false,
      );
    } finally {
      hx.close();
    }
  });

  test('a page that wants another line (its own state) takes init from the HTML and asks for its line', async () => {
    const hx = await loadWebview({
      conversations,
      boot: true,
      savedState: { v: VIEW_STATE_VERSION, filter: {}, line: 1, mode: 'replay' },
    });
    try {
      await hx.waitFor('.conv-id', /^h-1$/);
      await hx.settle();
      const ready = hx.posted[0] as { type: string; booted?: boolean; first?: { line: number } };
      assert.deepEqual([ready.type, ready.booted, ready.first?.line], ['ready', true, 1]);
      assert.equal(
        hx.received.some((m) => m.type === 'init'),
        false,
        'init came with the HTML',
      );
      assert.ok(hx.received.some((m) => m.type === 'conversation' && m.line === 1));
      // Line 1 (h-0) from the boot data was never drawn in its place.
      assert.equal(hx.idAtLoad, undefined);
      assert.equal(hx.document.querySelector('.conv-id')?.textContent, 'h-1');
    } finally {
      hx.close();
    }
  });

  test('a filtered restored view: no first conversation in the HTML; the list opens its first row', async () => {
    const state = { v: VIEW_STATE_VERSION, filter: { text: 'hello 2' }, mode: 'replay' as const };
    const hx = await loadWebview({ conversations, boot: true, pageViewState: state });
    try {
      await hx.waitFor('.conv-id', /^h-2$/);
      assert.deepEqual(hx.posted[0], { type: 'ready', booted: true });
    } finally {
      hx.close();
    }
  });

  test('a conversation to reveal wins over line 1, and an importable file shows the conversion', async () => {
    const revealed = await loadWebview({ conversations, boot: true, init: { reveal: { line: 2 } } });
    try {
      await revealed.waitFor('.conv-id', /^h-2$/);
      await revealed.settle();
      assert.equal(revealed.document.querySelector('.conv-id')?.textContent, 'h-2');
    } finally {
      revealed.close();
    }
    const importable = await loadWebview({
      boot: true,
      init: {
        fileName: 'train_data.jsonl',
        importable: { format: 'redial', headline: 'ReDial release (JSONL) (detected)', text: 'x', target: 'y' },
      },
    });
    try {
      await importable.waitFor('.import-format', /ReDial release/);
      assert.equal(
        importable.received.some((m) => m.type === 'init'),
        false,
      );
    } finally {
      importable.close();
    }
  });

  test('a reveal is not lost to a reload that arrives before its answer (the page shows line 1 already)', async () => {
    const hx = await loadWebview({ conversations, boot: true });
    try {
      await hx.waitFor('.conv-id', /^h-0$/);
      await hx.settle();
      // A run appended a line and the editor was asked to go to it: the host reloads, then reveals.
      hx.send({ type: 'reveal', line: 2 });
      hx.send({ type: 'reloaded', reason: 'changed on disk', lineCount: 3 });
      await hx.settle();
      assert.equal(hx.document.querySelector('.conv-id')?.textContent, 'h-2');
      // The same with a new view (the list's filter answered) arriving before the revealed conversation.
      hx.send({ type: 'reveal', line: 1 });
      hx.controller.receive({ type: 'setFilter', filter: {} });
      await hx.settle();
      assert.equal(hx.document.querySelector('.conv-id')?.textContent, 'h-1');
    } finally {
      hx.close();
    }
  });

  test('a blank or broken line 1: blank is left to the list, broken is shown with its error', async () => {
    const blank = await loadWebview({ conversations: [{ blank: true }, human(1)], boot: true });
    try {
      await blank.waitFor('.conv-id', /^h-1$/);
    } finally {
      blank.close();
    }
    const broken = await loadWebview({ conversations: [{ invalid: '{"id": "x", "turns": [' }, human(1)], boot: true });
    try {
      await broken.waitFor('.main', /line 1/);
      await broken.settle();
      assert.equal(
        broken.received.some((m) => m.type === 'init'),
        false,
      );
    } finally {
      broken.close();
    }
  });

  test('hostile text through the HTML attribute: every XSS payload stays text', async () => {
    const turns = XSS_PAYLOADS.map((p) => ({
      user_utterance: p,
      assistant_utterance: p,
      recommendations: [{ item_id: p, title: p, description: p, features: `${p}, plain`, image_url: p }],
      trace: { agenda: [p], user_act: p, goal: { constraints: { [p]: p }, requests: [p] } },
    }));
    const conv: Conversation = { id: XSS_PAYLOADS.join(' '), task_id: XSS_PAYLOADS[4], turns };
    const hx = await loadWebview({ conversations: [conv], boot: true, init: { fileName: XSS_PAYLOADS[6] } });
    try {
      await hx.waitFor('.conv-id');
      hx.key('Home');
      await hx.settle();
      assert.deepEqual(hx.fired, [], 'no payload executed');
      assert.deepEqual(markupFromData(hx.document), [], 'no markup from data');
      assert.equal(hx.document.querySelector('.conv-id')?.textContent, conv.id, 'the id is shown as written');
      assert.equal(hx.idAtLoad, conv.id, 'it came through the HTML');
    } finally {
      hx.close();
    }
  });
});
