/**
 * E2E for the conversation editor across editor groups in a real VS Code: after moving an open
 * editor into the next group and back (VS Code reloads the webview page on each move) the page
 * shows the conversation again, with the selected conversation and turn kept (the webview keeps
 * them with getState/setState, and a conversation revealed earlier by "Go to Conversation" is not
 * revealed again) and no webview errors. "Split Editor Right" opens an empty group
 * (the editor does not support several editors per document) and leaves the editor working.
 * Screenshots: test-results/editor-groups-*.png.
 * SIMLENS_E2E_DEBUG=1 prints the host's [simlens-editor] traces and the page's console.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { FrameLocator, Page } from 'playwright-core';
import path from 'node:path';
import { RESULTS_DIR, e2eReady, focusWorkbench, makeWorkspace, pickQuickInput, sampleConversations, openFileInEditor, runCommand, screenshot, startVsCode, waitForText, waitForWebview } from './harness';

/** Editor groups with their tabs' labels, left to right. */
async function groups(page: Page): Promise<string[][]> {
  return page
    .locator('.part.editor .editor-group-container')
    .evaluateAll((els) => els.map((g) => Array.from(g.querySelectorAll('.tabs-container .tab')).map((t) => t.getAttribute('aria-label') ?? '')));
}

/** The visible webview in the `index`-th editor group (by DOM order of the visible webviews) shows h-2 at turn 1 of 2. */
async function expectSelection(page: Page, index: number, what: string, narrow = false): Promise<FrameLocator> {
  const frame = await waitForWebview(page, index).catch((e: Error) => {
    throw new Error(`${what}: webview ${index} shows nothing: ${e.message.split('\n')[0]}`);
  });
  try {
    // A narrow editor hides the list pane (the page's responsive layout): its rows must exist.
    const list = narrow ? 'attached' : 'visible';
    await waitForText(frame, '.list-status', /3 of 3 conversations/, 20_000, list);
    await waitForText(frame, '.conv-id', /h-2/);
    await waitForText(frame, '.row.selected', /h-2/, 20_000, list);
    await waitForText(frame, '.turn-pos', /Turn 1 \/ 2/);
  } catch (e) {
    await page.screenshot({ path: path.join(RESULTS_DIR, `editor-groups-failed.png`) });
    throw new Error(`${what}: ${(e as Error).message} (screenshot test-results/editor-groups-failed.png)`);
  }
  return frame;
}

test('conversation editor: move into the next group and back, split right; the webview shows the conversation again', { timeout: 240_000 }, async (t) => {
  if (!e2eReady(t)) return;
  const debug = Boolean(process.env.SIMLENS_E2E_DEBUG);
  const workspace = makeWorkspace({ 'sample.conv.jsonl': sampleConversations(), 'notes.txt': 'Notes beside the conversations.\n' });
  const vscode = await startVsCode({ workspace, theme: 'light', env: debug ? { SIMLENS_EDITOR_DEBUG: '1' } : {} });
  t.after(() => vscode.close());
  const page = vscode.page;
  if (debug) page.on('console', (m) => console.log(`[console.${m.type()}] ${m.text().slice(0, 400)}`));
  const started = Date.now();

  // Two groups, each with a text editor, so that moving never closes or creates a group.
  await openFileInEditor(page, 'notes.txt');
  await runCommand(page, 'View: Split Editor Right');
  await page.locator('.part.editor .editor-group-container').nth(1).waitFor({ state: 'visible', timeout: 15_000 });
  await runCommand(page, 'View: Focus First Editor Group');
  await openFileInEditor(page, 'sample.conv.jsonl');
  const frame = await waitForWebview(page);
  await waitForText(frame, '.list-status', /3 of 3 conversations/);
  await waitForText(frame, '.conv-id', /h-1/);
  // "Go to Conversation…" reveals s-1; then the user selects another conversation and turn than
  // the defaults, so that keeping them is visible (and a reload must not reveal s-1 again).
  await focusWorkbench(page);
  await runCommand(page, 'SimLens: Go to Conversation…');
  await pickQuickInput(page, 's-1');
  await waitForText(frame, '.conv-id', /s-1/);
  await frame.locator('.row', { hasText: 'h-2' }).first().click();
  await waitForText(frame, '.conv-id', /h-2/);
  await frame.locator('.transcript-scroll').click({ position: { x: 5, y: 5 } });
  await page.keyboard.press('Home');
  await waitForText(frame, '.turn-pos', /Turn 1 \/ 2/);
  await screenshot(page, 'editor-groups-1-open');

  // Move into the next group (a new group on the right).
  await focusWorkbench(page);
  await runCommand(page, 'View: Move Editor into Next Group');
  await page
    .locator('.part.editor .editor-group-container')
    .nth(1)
    .locator('.tabs-container .tab[aria-label*="sample.conv.jsonl"]')
    .waitFor({ state: 'visible', timeout: 15_000 });
  const afterMove = await groups(page);
  assert.equal(afterMove.filter((g) => g.some((l) => l.includes('sample.conv.jsonl'))).length, 1, `one group holds the editor: ${JSON.stringify(afterMove)}`);
  assert.ok(afterMove[1].some((l) => l.includes('sample.conv.jsonl')), `the editor is in the second group: ${JSON.stringify(afterMove)}`);
  await expectSelection(page, 0, 'after moving into the next group');
  await screenshot(page, 'editor-groups-2-moved');

  // And back into the first group.
  await focusWorkbench(page);
  await runCommand(page, 'View: Move Editor into Previous Group');
  await page
    .locator('.part.editor .editor-group-container')
    .first()
    .locator('.tabs-container .tab[aria-label*="sample.conv.jsonl"]')
    .waitFor({ state: 'visible', timeout: 15_000 });
  await expectSelection(page, 0, 'after moving back');
  await screenshot(page, 'editor-groups-3-moved-back');

  // Two moves back to back: the second one while the page of the first is still loading.
  await focusWorkbench(page);
  await runCommand(page, 'View: Move Editor into Next Group');
  await focusWorkbench(page);
  await runCommand(page, 'View: Move Editor into Previous Group');
  await expectSelection(page, 0, 'after two quick moves');
  await screenshot(page, 'editor-groups-4-quick-moves');

  // SIMLENS_E2E_GROUP_MOVES=n: n more round trips, to hunt for a race.
  for (let k = 0; k < Number(process.env.SIMLENS_E2E_GROUP_MOVES ?? 0); k++) {
    await focusWorkbench(page);
    await runCommand(page, 'View: Move Editor into Next Group');
    await page.locator('.part.editor .editor-group-container').nth(1).locator('.tabs-container .tab[aria-label*="sample.conv.jsonl"]').waitFor({ state: 'visible', timeout: 15_000 });
    await expectSelection(page, 0, `loop ${k} next`);
    await focusWorkbench(page);
    await runCommand(page, 'View: Move Editor into Previous Group');
    await page.locator('.part.editor .editor-group-container').first().locator('.tabs-container .tab[aria-label*="sample.conv.jsonl"]').waitFor({ state: 'visible', timeout: 15_000 });
    await expectSelection(page, 0, `loop ${k} previous`);
  }

  // Split right. The editor is registered without supportsMultipleEditorsPerDocument
  // (src/extension/editor/index.ts), so VS Code cannot split it: it opens an empty group beside it
  // and no second webview. The conversation editor must keep showing its conversation.
  await focusWorkbench(page);
  await runCommand(page, 'View: Split Editor Right');
  await page.locator('.part.editor .editor-group-container').nth(2).waitFor({ state: 'visible', timeout: 15_000 });
  const afterSplit = await groups(page);
  assert.equal(afterSplit.filter((g) => g.some((l) => l.includes('sample.conv.jsonl'))).length, 1, `one group shows the file: ${JSON.stringify(afterSplit)}`);
  assert.deepEqual(afterSplit[1], [], `the split opened an empty group: ${JSON.stringify(afterSplit)}`);
  assert.equal(await page.locator('iframe.webview.ready').filter({ visible: true }).count(), 1, 'one visible webview');
  await expectSelection(page, 0, 'after split right', true);
  await screenshot(page, 'editor-groups-5-split');
  // The editor still works after the split: close the empty group (the list shows again), pick another conversation.
  await runCommand(page, 'View: Close Editor Group');
  await page.locator('.part.editor .editor-group-container').nth(2).waitFor({ state: 'detached', timeout: 15_000 });
  const frameAfter = await expectSelection(page, 0, 'after closing the empty group');
  await frameAfter.locator('.row', { hasText: 's-1' }).first().click();
  await waitForText(frameAfter, '.conv-id', /s-1/);
  await screenshot(page, 'editor-groups-6-split-used');
  console.log(`editor groups flow: ${Date.now() - started} ms after start-up`);
});
