import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import type { Conversation } from '../../../src/core/model';
import { loadWebview, type Harness } from './webviewHarness';

/** Three turns; alice already annotated both utterances of turn 1. */
function partlyAnnotated(): Conversation {
  return {
    id: 'ann-1',
    turns: [
      {
        user_utterance: 'I want running shoes',
        assistant_utterance: 'What size?',
        annotations: [
          { speaker: 'user', annotator: 'alice', acts: ['inform_preference'] },
          { speaker: 'assistant', annotator: 'alice', acts: ['elicit_preference'] },
        ],
      },
      { user_utterance: 'Size 42', assistant_utterance: 'Here are three.' },
      { user_utterance: 'Thanks, bye', assistant_utterance: 'Bye!' },
    ],
  };
}

async function annotateMode(hx: Harness): Promise<void> {
  await hx.waitFor('.conv-id', /ann-1/);
  (hx.document.querySelector('.modes .mode:nth-child(2)') as HTMLButtonElement).click();
  await hx.settle();
}

describe('annotation input never fails silently', () => {
  test('annotate mode starts at the first utterance the annotator has not annotated', async () => {
    const hx = await loadWebview({ conversations: [partlyAnnotated()] });
    try {
      await annotateMode(hx);
      assert.match(hx.document.querySelector('.cursor-head')?.textContent ?? '', /Utterance 3 of 6 · turn 2 · user/);
      assert.equal(hx.document.querySelector('.msg.cursor')?.getAttribute('data-turn'), '1');
    } finally {
      hx.close();
    }
  });

  test('a digit with no act gives visible feedback and sends nothing', async () => {
    const hx = await loadWebview({ conversations: [partlyAnnotated()] });
    try {
      await annotateMode(hx);
      hx.key('n'); // turn 2 assistant: 8 acts in ConvApparel
      const before = hx.posted.filter((m) => m.type === 'annotate').length;
      hx.key('9', { code: 'Digit9' });
      await hx.settle();
      assert.equal(hx.posted.filter((m) => m.type === 'annotate').length, before);
      const status = await hx.waitFor('[role="status"]', /key 9/i, 1000);
      assert.match(status.textContent ?? '', /assistant utterances have 8 acts/);
    } finally {
      hx.close();
    }
  });

  test('saving a note with Ctrl+Enter sends it once and keeps cursor, focus and transcript', async () => {
    const hx = await loadWebview({ conversations: [partlyAnnotated()] });
    try {
      await annotateMode(hx);
      hx.key('n'); // turn 2 assistant
      const scroller = hx.document.querySelector('.transcript-scroll');
      const note = hx.document.querySelector('textarea.note') as HTMLTextAreaElement;
      note.focus();
      note.value = 'vague answer';
      note.dispatchEvent(
        new hx.window.KeyboardEvent('keydown', { key: 'Enter', ctrlKey: true, bubbles: true, cancelable: true }),
      );
      // Chrome fires blur on a focused element when it is removed from the page.
      note.dispatchEvent(new hx.window.FocusEvent('blur'));
      await hx.settle();
      const notes = hx.posted.filter((m) => m.type === 'annotate' && m.note !== undefined);
      assert.equal(notes.length, 1, 'the note is sent exactly once');
      assert.deepEqual(
        { ...notes[0], requestId: undefined },
        {
          type: 'annotate',
          requestId: undefined,
          line: 0,
          turn: 1,
          speaker: 'assistant',
          acts: [],
          note: 'vague answer',
        },
      );
      assert.match(hx.document.querySelector('.cursor-head')?.textContent ?? '', /turn 2 · assistant/);
      // The transcript was updated in place (its scroll position is kept), and focus is on the utterance.
      assert.equal(hx.document.querySelector('.transcript-scroll'), scroller);
      const active = hx.document.activeElement as HTMLElement | null;
      assert.equal(active?.classList.contains('msg'), true, `focus is on ${active?.tagName}.${active?.className}`);
      assert.equal(active?.getAttribute('data-turn'), '1');
      assert.equal(active?.getAttribute('data-speaker'), 'assistant');
    } finally {
      hx.close();
    }
  });

  test('the taxonomy of the existing annotations is offered, and the active taxonomy and annotator are shown', async () => {
    const conv: Conversation = {
      id: 'ann-1',
      turns: [
        {
          user_utterance: 'Any sci-fi?',
          assistant_utterance: 'Alien?',
          annotations: [
            { speaker: 'user', annotator: 'source', acts: ['INQ'] },
            { speaker: 'assistant', annotator: 'source', taxonomy: 'iard', acts: ['REC-S'] },
          ],
        },
      ],
    };
    const hx = await loadWebview({ conversations: [conv], init: { annotator: '' } });
    try {
      await annotateMode(hx);
      const head = hx.document.querySelector('.annotate-panel .annotator')?.textContent ?? '';
      assert.match(head, /Annotator not set · taxonomy convapparel/);
      const offer = hx.document.querySelector('.taxonomy-offer');
      assert.match(offer?.textContent ?? '', /\(source\) use the iard taxonomy; you are annotating in convapparel/);
      (offer?.querySelector('button') as HTMLButtonElement).click();
      assert.deepEqual(hx.posted.at(-1), { type: 'setTaxonomy', name: 'iard' });
    } finally {
      hx.close();
    }
  });
});
