/**
 * E2E: the language server in a real VS Code. A JSONL file of conversations with a schema error
 * and a trailing comma is opened as text; the diagnostics must reach the Problems view and the
 * status bar item, and the quick fix must repair the trailing comma.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import {
  e2eReady,
  makeWorkspace,
  openFileInEditor,
  pollUntil,
  runCommand,
  screenshot,
  startVsCode,
  waitForWebview,
} from './harness';

const good = (id: string): string =>
  JSON.stringify({
    id,
    task_id: 'footwear_good',
    turns: [{ user_utterance: 'running shoes please', assistant_utterance: 'What size?' }],
  });

test('language server diagnostics and quick fix in a real VS Code', { timeout: 240_000 }, async (t) => {
  if (!e2eReady(t)) return;
  const lines = [
    good('ok-1'),
    '{"id":"bad-type","turns":[{"user_utterance": 42}]}',
    '{"id":"comma","turns":[],}',
    good('ok-4'),
  ];
  const workspace = makeWorkspace({ 'edited.jsonl': lines.join('\n') + '\n' });
  const vscode = await startVsCode({ workspace, theme: 'dark' });
  t.after(() => vscode.close());
  const { page } = vscode;

  await openFileInEditor(page, 'edited.jsonl');
  // The status bar item counts SimLens's problems in the active file.
  const status = page.locator('.statusbar-item', { hasText: 'SimLens' }).first();
  await page.waitForFunction(
    () =>
      Array.from(document.querySelectorAll('.statusbar-item')).some(
        (el) => /2\s*\S*\s*0\s*SimLens|SimLens/.test(el.textContent ?? '') && /2/.test(el.textContent ?? ''),
      ),
    undefined,
    { timeout: 60_000 },
  );
  assert.match((await status.textContent()) ?? '', /2/);

  await runCommand(page, 'View: Focus Problems (Errors, Warnings, Infos)');
  const problems = page.locator('.markers-panel');
  await problems.locator('text=turns[0].user_utterance').first().waitFor({ state: 'visible', timeout: 30_000 });
  await problems.locator('text=/invalid JSON/').first().waitFor({ state: 'visible', timeout: 30_000 });
  await screenshot(page, 'language-server-problems-dark');

  // Quick fix on line 3: put the cursor there and apply the preferred fix.
  await runCommand(page, 'Go to Line/Column...');
  await page.keyboard.type('3:27');
  await page.keyboard.press('Enter');
  await runCommand(page, 'Auto Fix...');
  // Auto Fix either lists the fixes (pick ours) or applies the only preferred one at once: wait for either.
  const menuItem = page.locator('.action-widget .monaco-list-row', { hasText: 'Remove trailing commas' }).first();
  const fixedLine = page.locator('.monaco-editor .view-line', { hasText: '{"id":"comma","turns":[]}' }).first();
  await menuItem.or(fixedLine).first().waitFor({ state: 'visible', timeout: 15_000 });
  if (await menuItem.isVisible().catch(() => false)) await menuItem.click();
  await runCommand(page, 'File: Save');
  const saved = await pollUntil(
    () => readFileSync(path.join(workspace, 'edited.jsonl'), 'utf8'),
    (text) => text.includes('"turns":[]}'),
    30_000,
  );
  const savedLines = saved.split('\n');
  assert.equal(savedLines[2], '{"id":"comma","turns":[]}');
  assert.equal(savedLines[0], lines[0], 'other lines untouched');
  assert.equal(savedLines[1], lines[1], 'other lines untouched');

  // The code lens above line 4 opens that conversation in the SimLens editor.
  const lens = page.locator('.codelens-decoration a', { hasText: 'Open in SimLens' });
  await lens.first().waitFor({ state: 'visible', timeout: 30_000 });
  assert.ok((await lens.count()) >= 2, 'one "Open in SimLens" lens per valid conversation');
  await lens.last().click();
  const view = await waitForWebview(page, 0, 60_000);
  await view.locator('text=ok-4').first().waitFor({ state: 'visible', timeout: 30_000 });
  await screenshot(page, 'language-server-codelens-open-dark');
});
