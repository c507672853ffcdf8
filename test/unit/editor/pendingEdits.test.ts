import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Conversation } from '../../../src/core/model';
import { loadWebview } from './webviewHarness';

const conv: Conversation = {
  id: 'c-1',
  task_id: 'shoes',
  turns: [{ user_utterance: 'I need boots', assistant_utterance: 'Which size?' }],
} as Conversation;

test('annotation edits the host has not answered yet are counted on the page (tests and users can wait on them)', async () => {
  const hx = await loadWebview({ conversations: [conv] });
  try {
    await hx.waitFor('.conv-id', /c-1/);
    (hx.document.querySelector('.modes .mode:nth-child(2)') as HTMLButtonElement).click();
    await hx.settle();
    hx.key('1', { code: 'Digit1' });
    hx.key('2', { code: 'Digit2' });
    // Sent, not answered yet: the optimistic acts show, the edits are still pending.
    assert.equal(hx.posted.filter((m) => m.type === 'annotate').length, 2);
    assert.equal(hx.document.body.dataset.pendingEdits, '2');
    await hx.settle();
    assert.equal(hx.document.body.dataset.pendingEdits, '0');
  } finally {
    hx.close();
  }
});
