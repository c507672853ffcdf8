import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import type { Conversation } from '../../../src/core/model';
import { agreementFromConversations } from '../../../src/core/document/agreement';
import { loadWebview } from './webviewHarness';

function movie(): Conversation {
  return {
    id: 'movie-1',
    turns: [
      {
        user_utterance: 'I liked Alien',
        annotations: [
          { speaker: 'user', annotator: 'source', taxonomy: 'iard', acts: ['PRO'] },
          { speaker: 'user', annotator: 'root', taxonomy: 'convapparel', acts: ['inform_preference'] },
        ],
      },
    ],
  };
}

/** As it crosses postMessage. */
const json = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

describe('agreement view (jsdom)', () => {
  test('warns about mixed taxonomies, asks for mapping, and keeps its result across hide/show', async () => {
    const hx = await loadWebview({ conversations: [movie()] });
    let saved: unknown;
    try {
      await hx.waitFor('.conv-id', /movie-1/);
      (hx.document.querySelector('.modes .mode:nth-child(3)') as HTMLButtonElement).click();
      await hx.settle();
      const req = hx.posted.filter((m) => m.type === 'requestAgreement');
      assert.equal(req.length, 1);
      // The real host computed it from the file: the same result as from the conversations.
      await hx.waitFor('.agreement [role="alert"]');
      assert.deepEqual(
        hx.received.filter((m) => m.type === 'agreement').map((m) => (m as { result: unknown }).result),
        [json(agreementFromConversations([movie()]))],
      );
      const alert = hx.document.querySelector('.agreement [role="alert"]');
      assert.match(alert?.textContent ?? '', /different taxonomies: root \(convapparel\) and source \(iard\)/);
      assert.equal(hx.document.querySelectorAll('.agreement .pair').length, 0, 'no kappa table across taxonomies');
      // Ticking "Map through act aliases" asks again with map on.
      const box = hx.document.querySelector('#agreement-map') as HTMLInputElement;
      box.checked = true;
      box.dispatchEvent(new hx.window.Event('change'));
      await hx.settle();
      assert.deepEqual(
        hx.posted.filter((m) => m.type === 'requestAgreement').map((m) => (m as { map?: boolean }).map),
        [false, true],
      );
      await hx.waitFor('.agreement .pair');
      assert.deepEqual(
        hx.received.filter((m) => m.type === 'agreement').map((m) => (m as { result: unknown }).result)[1],
        json(agreementFromConversations([movie()], { map: true })),
      );
      assert.match(
        hx.document.querySelector('.agreement .pair')?.textContent ?? '',
        /mapped to zhang-balog acts through act-aliases\.json/,
      );
      saved = hx.state();
    } finally {
      hx.close();
    }
    // The tab is hidden and shown again: the page is rebuilt from the saved state.
    const again = await loadWebview({ conversations: [movie()], savedState: saved });
    try {
      await again.settle(50);
      assert.match(again.document.querySelector('.agreement .pair')?.textContent ?? '', /root vs source/);
      assert.equal((again.document.querySelector('#agreement-map') as HTMLInputElement).checked, true);
      assert.equal(again.posted.filter((m) => m.type === 'requestAgreement').length, 0, 'no recomputation needed');
    } finally {
      again.close();
    }
  });
});
