/**
 * E2E accessibility and responsive layout of SimLens's webviews in a real VS Code (local server +
 * Chromium): the conversation editor (replaying a simulated run) and the Compare Populations panel
 * (three candidates), side by side in a split view.
 *
 * - axe-core (WCAG 2.0/2.1 A and AA rules, colour contrast included) runs inside both webviews in
 *   the four built-in themes: Light Modern, Dark Modern, Dark High Contrast, Light High Contrast.
 *   The violations per theme go to test-results/a11y-axe.json; the test fails on any.
 * - Screenshots at 400, 1,000 and 2,500 px wide, of the split view and of each webview alone
 *   (test-results/layout-*.png), with layout checks: no page-wide horizontal scrolling, the
 *   filters take one row, the transcript keeps a readable width, the table's feature column stays
 *   pinned.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Frame, FrameLocator, Page } from 'playwright-core';
import { runSimulation } from '../../src/core/run/orchestrator';
import { humanConversations, jsonl } from '../unit/report/fixtures';
import {
  RESULTS_DIR,
  THEMES,
  axeCheck,
  e2eReady,
  makeWorkspace,
  nextFrames,
  openFileInEditor,
  openQuickInput,
  pickQuickInput,
  runCommand,
  screenshot,
  startVsCode,
  webviewContentFrame,
  webviewFrame,
  type AxeViolation,
  type Theme,
} from './harness';

async function simulate(dir: string, name: string, config: Record<string, unknown>): Promise<void> {
  await runSimulation({ n: 30, seed: 5, ...config } as Parameters<typeof runSimulation>[0], {
    out: path.join(dir, name),
    overwrite: true,
  });
}

/** The content frames of the visible webviews, editor first (it is in the left group). */
async function frames(page: Page): Promise<{ editor: Frame; panel: Frame }> {
  const found: Frame[] = [];
  for (let i = 0; i < 2; i++) found.push(await webviewContentFrame(page, i));
  const isEditor = async (f: Frame) => (await f.locator('.list-pane, .transcript-scroll').count()) > 0;
  return (await isEditor(found[0])) ? { editor: found[0], panel: found[1] } : { editor: found[1], panel: found[0] };
}

async function waitForWebviewTheme(frame: Frame, theme: Theme): Promise<void> {
  await frame.locator(`body.${THEMES[theme].webviewClass}`).waitFor({ state: 'attached', timeout: 30_000 });
  await frame.evaluate(() => new Promise<void>((r) => requestAnimationFrame(() => requestAnimationFrame(() => r()))));
}

/**
 * Layout facts of a webview page. A string, so the bundler's helpers (tsx names functions with
 * `__name`) never reach the page.
 */
const LAYOUT_SCRIPT = `(() => {
  const box = (sel) => {
    const el = document.querySelector(sel);
    if (!el || el.offsetParent === null) return null;
    return el.getBoundingClientRect();
  };
  const filters = document.querySelector('.filters');
  const firstControl = filters ? filters.querySelector('button, select, input') : null;
  const transcript = box('.transcript-scroll');
  const feature = document.querySelector('[data-section="plsa-table"] tbody th');
  return {
    viewportWidth: document.documentElement.clientWidth,
    pageOverflow: document.documentElement.scrollWidth > document.documentElement.clientWidth + 1,
    filtersHeight: filters && filters.offsetParent !== null ? filters.getBoundingClientRect().height : null,
    controlHeight: firstControl ? firstControl.getBoundingClientRect().height : null,
    transcriptWidth: transcript ? transcript.width : null,
    listVisible: box('.list-pane') !== null,
    featurePinned: feature ? getComputedStyle(feature).position === 'sticky' : null,
  };
})()`;

async function layout(frame: Frame): Promise<Record<string, number | boolean | null>> {
  return frame.evaluate(LAYOUT_SCRIPT) as Promise<Record<string, number | boolean | null>>;
}

test(
  'webviews: axe-core WCAG AA in four themes; layouts from 400 to 2,500 px and a split view',
  { timeout: 600_000 },
  async (t) => {
    if (!e2eReady(t)) return;
    const workspace = makeWorkspace({ 'human.conv.jsonl': jsonl(humanConversations(60, 'e2e')) });
    await simulate(workspace, 'sim-good.sim.jsonl', { agent: 'local-good' });
    await simulate(workspace, 'sim-bad.sim.jsonl', { agent: 'local-bad' });
    await simulate(workspace, 'meta.sim.jsonl', { user: 'agenda', meta: 'tol', agent: 'local-good' });
    const vscode = await startVsCode({ workspace, theme: 'light', viewport: { width: 1400, height: 900 } });
    t.after(() => vscode.close());
    const { page } = vscode;

    // Compare Populations with three candidates; the panel opens over the editor, then the editor moves right.
    await runCommand(page, 'SimLens: Compare Populations…', 60_000);
    await pickQuickInput(page, 'human.conv.jsonl');
    await pickQuickInput(page, 'All 60 conversations', 30_000);
    for (const label of ['sim-good.sim.jsonl', 'sim-bad.sim.jsonl', 'meta.sim.jsonl'])
      await pickQuickInput(page, label);
    await page.keyboard.press('Enter');
    // Each candidate file may ask for a filter, then the act source.
    for (;;) {
      const row = page
        .locator('.quick-input-list .monaco-list-row')
        .filter({ has: page.locator('.label-name', { hasText: /^\s*(All \d+ conversations|Lexical tagger)\s*$/ }) })
        .first();
      await row.waitFor({ state: 'visible', timeout: 30_000 });
      const label = (await row.locator('.label-name').innerText()).trim();
      await row.click();
      if (label === 'Lexical tagger') break;
    }
    const panelView = page
      .locator('iframe.webview.ready')
      .filter({ visible: true })
      .first()
      .contentFrame()
      .locator('iframe#active-frame')
      .contentFrame();
    await panelView.locator('h1', { hasText: /^Population alignment/ }).waitFor({ state: 'visible', timeout: 120_000 });
    // The editor on a simulated run opens beside the panel (Quick Open, Ctrl+Enter: to the side),
    // replaying its first conversation. (Moving an open webview to another group left it blank in
    // this harness, so nothing is moved.)
    await page.locator('.part.sidebar .composite.title').first().click();
    const input = await openQuickInput(page);
    await input.fill('sim-good.sim.jsonl');
    await page
      .locator('.quick-input-list .monaco-list-row', {
        has: page.locator('.label-name', { hasText: /^\s*sim-good\.sim\.jsonl\s*$/ }),
      })
      .first()
      .waitFor({ state: 'visible', timeout: 30_000 });
    await page.keyboard.press('Control+Enter');
    await page
      .locator('.split-view-view .editor-group-container')
      .nth(1)
      .waitFor({ state: 'visible', timeout: 15_000 });
    const editorView: FrameLocator = webviewFrame(page, 1);
    await editorView
      .locator('.list-status', { hasText: /of 30 conversations/ })
      .waitFor({ state: 'visible', timeout: 30_000 });
    await editorView.locator('.conv-id').first().waitFor({ state: 'visible', timeout: 30_000 });

    const results: Record<string, { editor: AxeViolation[]; panel: AxeViolation[] }> = {};
    for (const theme of ['light', 'dark', 'hc-dark', 'hc-light'] as const) {
      if (theme !== 'light') {
        await page.locator('.part.sidebar .composite.title').first().click();
        await vscode.setTheme(theme);
      }
      const { editor, panel } = await frames(page);
      await waitForWebviewTheme(editor, theme);
      await waitForWebviewTheme(panel, theme);
      try {
        await panel.locator('[data-section="plsa-table"]').waitFor({ state: 'visible', timeout: 60_000 });
        await editor.locator('.conv-id').first().waitFor({ state: 'visible', timeout: 30_000 });
      } catch (e) {
        await page.screenshot({ path: path.join(RESULTS_DIR, `a11y-failed-${theme}.png`) });
        const text = await panel
          .evaluate(
            '[...document.querySelectorAll("script, link")].map((e) => e.outerHTML).join(" ") + " BODY: " + document.body.outerHTML.slice(0, 1200)',
          )
          .catch((x: Error) => `(unreadable: ${x.message})`);
        console.log('page errors:', vscode.errors.join('\n'));
        throw new Error(
          `${theme}: the webviews did not show their content; panel: ${String(text)}\n${(e as Error).message.split('\n')[0]}`,
        );
      }
      const replay = await axeCheck(editor);
      // The annotation mode too (act toggles, cursor, annotator header).
      await editor.locator('.modes .mode', { hasText: 'Annotate' }).click();
      await editor.locator('.act-toggle').first().waitFor({ state: 'visible', timeout: 30_000 });
      const annotate = await axeCheck(editor);
      await editor.locator('.modes .mode', { hasText: 'Replay' }).click();
      await editor.locator('.turn-pos').waitFor({ state: 'visible', timeout: 30_000 });
      results[theme] = {
        editor: [...replay, ...annotate.map((v) => ({ ...v, id: `annotate:${v.id}` }))],
        panel: await axeCheck(panel),
      };
      await screenshot(page, `a11y-split-${theme}`);
    }
    mkdirSync(RESULTS_DIR, { recursive: true });
    writeFileSync(path.join(RESULTS_DIR, 'a11y-axe.json'), JSON.stringify(results, null, 2));
    const summary = Object.entries(results).map(([theme, r]) => {
      const count = (vs: AxeViolation[]) => vs.map((v) => `${v.id}×${v.nodes.length}`).join(', ') || 'none';
      return `${theme}: editor ${count(r.editor)}; panel ${count(r.panel)}`;
    });
    console.log(summary.join('\n'));

    // Layouts: split view (editor | panel) at three widths, then each webview alone.
    const facts: Record<string, unknown> = {};
    for (const width of [400, 1000, 2500]) {
      await page.setViewportSize({ width, height: 900 });
      const { editor, panel } = await frames(page);
      await nextFrames(editorView);
      await screenshot(page, `layout-split-${width}`);
      facts[`split-${width}`] = { editor: await layout(editor), panel: await layout(panel) };
    }
    // The panel alone (editor group closed to one), then the editor alone.
    await page.locator('.tabs-container .tab[aria-label*="sim-good.sim.jsonl"]').first().click();
    await page.locator('.part.sidebar .composite.title').first().click();
    await runCommand(page, 'View: Close Editor Group');
    await page
      .locator('.split-view-view .editor-group-container')
      .nth(1)
      .waitFor({ state: 'detached', timeout: 15_000 });
    for (const width of [400, 1000, 2500]) {
      await page.setViewportSize({ width, height: 900 });
      const panel = await webviewContentFrame(page, 0);
      await panel.locator('[data-section="plsa-table"]').waitFor({ state: 'visible', timeout: 60_000 });
      await screenshot(page, `layout-panel-${width}`);
      facts[`panel-${width}`] = await layout(panel);
    }
    await page.setViewportSize({ width: 1400, height: 900 });
    await openFileInEditor(page, 'sim-good.sim.jsonl');
    for (const width of [400, 1000, 2500]) {
      await page.setViewportSize({ width, height: 900 });
      const editor = await webviewContentFrame(page, 0);
      await editor.locator('.conv-id').first().waitFor({ state: 'visible', timeout: 30_000 });
      await screenshot(page, `layout-editor-${width}`);
      facts[`editor-${width}`] = await layout(editor);
    }
    writeFileSync(path.join(RESULTS_DIR, 'layout-facts.json'), JSON.stringify(facts, null, 2));
    console.log(JSON.stringify(facts));

    // Checks (after all screenshots exist, so a failure still leaves them to look at).
    for (const [theme, r] of Object.entries(results)) {
      assert.deepEqual(
        [...r.editor, ...r.panel].map(
          (v) =>
            `${v.id}: ${v.nodes
              .map((n) => n.target)
              .slice(0, 5)
              .join(' | ')}`,
        ),
        [],
        `axe violations in ${theme}`,
      );
    }
    for (const [name, f] of Object.entries(facts)) {
      const views = name.startsWith('split')
        ? Object.entries(f as Record<string, Record<string, unknown>>)
        : [[name, f as Record<string, unknown>] as const];
      for (const [view, v] of views) {
        assert.equal(v.pageOverflow, false, `${name}/${view}: no page-wide horizontal scrolling`);
        if (typeof v.filtersHeight === 'number' && typeof v.controlHeight === 'number') {
          assert.ok(
            v.filtersHeight < v.controlHeight * 2 + 8,
            `${name}/${view}: filters in one row (${v.filtersHeight} px for ${v.controlHeight} px controls)`,
          );
        }
        if (typeof v.transcriptWidth === 'number')
          assert.ok(
            v.transcriptWidth >= Math.min(240, (v.viewportWidth as number) - 40),
            `${name}/${view}: transcript ${v.transcriptWidth} px wide`,
          );
        if (v.featurePinned !== null && v.featurePinned !== undefined)
          assert.equal(v.featurePinned, true, `${name}/${view}: feature column pinned`);
      }
    }
  },
);
