/**
 * XSS corpus: hostile strings placed in every field the editor displays (utterances, item titles,
 * descriptions, features, ids, image URLs, annotation notes and annotator names, trace fields,
 * rating keys, invalid-line errors). The real webview bundle renders them in jsdom with scripts
 * enabled; no payload may run, no element or attribute may come from the data, and the text must
 * appear verbatim.
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import type { Conversation } from '../../../src/core/model';
import { loadWebview, type Harness } from './webviewHarness';
import { XSS_PAYLOADS, markupFromData } from './xssCorpus';

/** A conversation with the payload in every displayed field. */
function hostile(p: string, i: number): Conversation {
  return {
    id: `${p}#${i}`,
    task_id: `${p}_good`,
    source: p,
    agent: p,
    condition: p,
    ratings: { [p]: p, 'Were you able to find a product?': p },
    turns: [
      {
        user_utterance: p,
        assistant_utterance: p,
        recommendations: [{ item_id: p, title: p, description: p, features: `${p}, plain`, image_url: p }],
        ratings: { [p]: true, 'How likely would you be to purchase': p },
        annotations: [
          { speaker: 'user', annotator: p, acts: [p, 'critique'], note: p, taxonomy: p },
          { speaker: 'user', annotator: 'alice', acts: ['critique'], note: p },
        ],
        trace: {
          agenda: [p, 'Inquire'],
          pushed: [p],
          pulled: [p],
          user_act: p,
          agent_act: p,
          goal: { constraints: { [p]: p }, requests: [p], fulfilled_requests: [p] },
          preferences: { liked_items: [p], disliked_attributes: [p], reflected: { [p]: 'like' }, general: p, model: p },
          target: { item_id: p, alternatives: [p], switched_from: p, switch_reason: p },
          nlu: { agent_act: p, source: 'classifier', slots: [{ slot: p, value: p }] },
          llm_calls: [{ id: p, role: p, model: p, error: p, request: { prompt: p }, response: p }],
          error: p,
          [p]: p,
        },
      },
    ],
  };
}

async function renderAllViews(hx: Harness): Promise<void> {
  await hx.waitFor('.conv-id');
  await hx.waitFor('.row.invalid');
  // Replay view (transcript + state panel), every turn state.
  hx.key('Home');
  // Annotation view (note textarea, other annotators).
  (hx.document.querySelector('.modes .mode:nth-child(2)') as HTMLButtonElement).click();
  await hx.settle();
  // Expand every <details>.
  for (const d of Array.from(hx.document.querySelectorAll('details'))) d.setAttribute('open', '');
  await hx.settle();
}

describe('XSS corpus in the editor webview', () => {
  test(`the corpus has at least 20 payloads (${XSS_PAYLOADS.length})`, () => {
    assert.ok(XSS_PAYLOADS.length >= 20);
  });

  test('the checker catches markup built from data (it can fail)', async () => {
    const hx = await loadWebview({ conversations: [] });
    try {
      const div = hx.document.createElement('div');
      div.innerHTML = XSS_PAYLOADS[1] + XSS_PAYLOADS[6]; // what an innerHTML bug would do
      hx.document.body.appendChild(div);
      const problems = markupFromData(hx.document);
      assert.ok(
        problems.some((p) => p.includes('onerror')),
        problems.join('; '),
      );
      assert.ok(
        problems.some((p) => p.includes('href')),
        problems.join('; '),
      );
      // And script execution is live in this jsdom: a handler that is attached does fire.
      const b = hx.document.createElement('button');
      b.setAttribute('onclick', "window.__xss('canary')");
      hx.document.body.appendChild(b);
      b.click();
      assert.deepEqual(hx.fired, ['canary']);
    } finally {
      hx.close();
    }
  });

  for (const [i, p] of XSS_PAYLOADS.entries()) {
    test(`payload ${i + 1}: ${p.slice(0, 60)}`, async () => {
      const conv = hostile(p, i);
      const hx = await loadWebview({
        conversations: [conv, { invalid: JSON.stringify({ id: p, turns: p }) }],
        init: { fileName: p, annotator: p },
      });
      try {
        await renderAllViews(hx);
        // Agreement view with hostile annotator, act and taxonomy names: computed by the real host
        // from the file's annotations once the mode is chosen.
        const beforeAgreement = markupFromData(hx.document);
        (hx.document.querySelector('.modes .mode:nth-child(3)') as HTMLButtonElement).click();
        hx.send({ type: 'notice', level: 'error', message: p });
        await hx.settle();
        const agreementText = hx.document.querySelector('.agreement')?.textContent ?? '';
        // Also the invalid row's error and the list row with the hostile id.
        const listText = hx.document.querySelector('.list-pane')?.textContent ?? '';

        assert.deepEqual(hx.fired, [], 'no payload executed');
        assert.deepEqual(beforeAgreement, [], 'no markup from data (replay/annotate)');
        assert.deepEqual(markupFromData(hx.document), [], 'no markup from data (agreement/notice)');
        assert.equal(
          hx.document.querySelectorAll('img').length,
          0,
          'no images (remote images are off, payload URLs are not images)',
        );
        // Verbatim text.
        assert.ok(listText.includes(`${p}#${i}`), 'id shown verbatim in the list');
        assert.ok(listText.includes(p), 'invalid-line error shown verbatim');
        assert.ok(agreementText.includes(p), 'annotator shown verbatim in agreement');
        assert.ok((hx.document.querySelector('.notices')?.textContent ?? '').includes(p), 'notice verbatim');
      } finally {
        hx.close();
      }
    });
  }

  test('utterances, items, notes and trace text render verbatim', async () => {
    const p = XSS_PAYLOADS[1];
    const hx = await loadWebview({ conversations: [hostile(p, 0)] });
    try {
      await hx.waitFor('.conv-id');
      hx.key('Home');
      const bubbles = Array.from(hx.document.querySelectorAll('.bubble')).map((b) => b.textContent);
      assert.deepEqual(bubbles, [p, p]);
      assert.equal(hx.document.querySelector('.card-title')?.textContent, p);
      assert.equal(hx.document.querySelector('.card-desc')?.textContent, p);
      assert.equal(hx.document.querySelector('.chip.feature')?.textContent, p);
      assert.equal(hx.document.querySelector('.conv-id')?.textContent, `${p}#0`);
      assert.ok((hx.document.querySelector('.agenda')?.textContent ?? '').includes(p));
      assert.ok((hx.document.querySelector('pre.raw')?.textContent ?? '').includes(JSON.stringify(p).slice(1, -1)));
      (hx.document.querySelector('.modes .mode:nth-child(2)') as HTMLButtonElement).click();
      await hx.settle();
      hx.key('p');
      assert.equal((hx.document.querySelector('textarea.note') as HTMLTextAreaElement).value, p);
      assert.ok((hx.document.querySelector('.others')?.textContent ?? '').includes(p));
    } finally {
      hx.close();
    }
  });
});
