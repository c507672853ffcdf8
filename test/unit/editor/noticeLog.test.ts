import { test } from 'node:test';
import assert from 'node:assert/strict';
import { NoticeLog, NOTICE_REPLAY_MS } from '../../../src/extension/editor/noticeLog';
import { loadWebview } from './webviewHarness';

test('notice log: ids are unique and increasing; a reloading page is offered the notices of the last seconds only', () => {
  let now = 1_000_000;
  const log = new NoticeLog(() => now);
  const a = log.record({ type: 'notice', level: 'error', message: 'save failed' });
  now += 1_000;
  const b = log.record({ type: 'notice', level: 'info', message: 'File changed on disk.' });
  assert.ok(a.id !== undefined && b.id !== undefined && b.id > a.id);
  assert.deepEqual(
    log.replay().map((n) => n.message),
    ['save failed', 'File changed on disk.'],
  );
  // The first one ages out exactly at the window; the second stays until its own.
  now += NOTICE_REPLAY_MS - 1_000;
  assert.deepEqual(
    log.replay().map((n) => n.id),
    [b.id],
  );
  now += 1_000;
  assert.deepEqual(log.replay(), []);
});

test('editor page: a notice offered again with the same id is shown once; notices without an id are all shown', async () => {
  const hx = await loadWebview({
    conversations: [{ id: 'c-1', turns: [{ user_utterance: 'hi', assistant_utterance: 'hello' }] }],
  });
  try {
    await hx.waitFor('.conv-id', /c-1/);
    const notices = () => [...hx.document.querySelectorAll('.notices .notice')].map((n) => n.textContent ?? '');
    hx.send({ type: 'notice', level: 'warning', message: 'Annotation not saved', id: 7 });
    hx.send({ type: 'notice', level: 'warning', message: 'Annotation not saved', id: 7 });
    hx.send({ type: 'notice', level: 'error', message: 'Disk full', id: 8 });
    assert.deepEqual(
      notices().map((t) => t.replace(/Dismiss$/, '')),
      ['Annotation not saved', 'Disk full'],
    );
    hx.send({ type: 'notice', level: 'error', message: 'no id' });
    hx.send({ type: 'notice', level: 'error', message: 'no id' });
    assert.equal(notices().filter((t) => t.startsWith('no id')).length, 2);
  } finally {
    hx.close();
  }
});
