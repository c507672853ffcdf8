/**
 * E2E for the metric panels in a real VS Code (local server + Chromium), on a small workspace of
 * human conversations (two conditions) and simulated runs made by the real run orchestrator:
 *
 * - "SimLens: Compare Populations…" driven through its quick picks (file, filter, candidates, act
 *   source), then a chart exported as PNG through the save dialog (bytes checked on disk);
 * - "Human-Likeness…", "Counterfactual Validation…", "Simulation Metrics…" and "Validate
 *   Simulator…" (which runs the simulator against both local agents) through their quick picks;
 * - every panel checked for its tables and drawn charts (canvas, no CSP violations) and
 *   screenshotted in the light and dark themes (test-results/panels-*.png);
 * - a window reload brings the panels back (restored from the webview state).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { FrameLocator, Page } from 'playwright-core';
import { runSimulation } from '../../src/core/run/orchestrator';
import {
  e2eReady,
  iconFontStatus,
  makeWorkspace,
  nextFrames,
  pickQuickInput,
  pollUntil,
  runCommand,
  screenshot,
  startVsCode,
  type VsCodeSession,
} from './harness';
import { humanConversations, jsonl } from '../unit/report/fixtures';

async function simulate(dir: string, name: string, config: Record<string, unknown>): Promise<void> {
  await runSimulation({ n: 30, seed: 5, ...config } as Parameters<typeof runSimulation>[0], {
    out: path.join(dir, name),
    overwrite: true,
  });
}

/** The webview frame of the panel whose tab is active (the visible one). */
function panelFrame(page: Page): FrameLocator {
  return page
    .locator('iframe.webview.ready')
    .filter({ visible: true })
    .first()
    .contentFrame()
    .locator('iframe#active-frame')
    .contentFrame();
}

async function waitForReport(page: Page, title: RegExp, timeoutMs = 120_000): Promise<FrameLocator> {
  const frame = panelFrame(page);
  await frame.locator('h1', { hasText: title }).waitFor({ state: 'visible', timeout: timeoutMs });
  return frame;
}

/** Checks a rendered panel: a section exists, charts are drawn on canvases, no CSP violation. */
async function checkPanel(frame: FrameLocator, section: string): Promise<void> {
  await frame.locator(`[data-section="${section}"]`).first().waitFor({ state: 'visible', timeout: 30_000 });
  const canvases = await frame.locator('canvas').count();
  assert.ok(canvases > 0, `${section}: charts are drawn (${canvases} canvases)`);
  // chart.js sized the canvas (it draws only after layout)
  const size = await frame
    .locator('canvas')
    .first()
    .evaluate((c: HTMLCanvasElement) => [c.width, c.height]);
  assert.ok(size[0] > 100 && size[1] > 100, `canvas size ${size}`);
  assert.equal(await frame.locator('body').getAttribute('data-csp-violations'), null, 'no CSP violations in the panel');
  assert.equal(await iconFontStatus(frame), 'loaded', `${section}: the icon font loaded (icons are not empty boxes)`);
}

async function focusTab(page: Page, title: string): Promise<void> {
  await page.locator(`.tabs-container .tab[aria-label^="${title}"]`).first().click();
  await page
    .locator(`.tabs-container .tab.active[aria-label^="${title}"]`)
    .first()
    .waitFor({ state: 'visible', timeout: 15_000 });
}

/** Waits until the panel shows `theme` and has drawn since: it redraws its charts on the next animation frame. */
async function waitForTheme(frame: FrameLocator, theme: 'light' | 'dark'): Promise<void> {
  await frame.locator(`body.vscode-${theme}`).waitFor({ state: 'attached', timeout: 30_000 });
  await nextFrames(frame);
}

/** Checks several rows of a multi-select quick pick (typing each label) and accepts. */
async function pickMany(page: Page, labels: string[]): Promise<void> {
  for (const label of labels) await pickQuickInput(page, label);
  await page.keyboard.press('Enter');
}

const PANELS = [
  {
    tab: 'SimLens: Compare Populations',
    shot: 'compare',
    title: /^Population alignment/,
    section: 'plsa-table',
    chart: 'hist-num_turns',
  },
  {
    tab: 'SimLens: Human-Likeness',
    shot: 'human-likeness',
    title: /^Human-likeness/,
    section: 'hls-cv',
    chart: 'hls-distribution',
  },
  {
    tab: 'SimLens: Counterfactual Validation',
    shot: 'counterfactual',
    title: /^Counterfactual validation/,
    section: 'cf-shifts',
    chart: 'cf-shift-chart',
  },
  {
    tab: 'SimLens: Simulation Metrics',
    shot: 'simulation',
    title: /^Simulation metrics/,
    section: 'zb-table',
    chart: 'pepper-pc',
  },
  {
    tab: 'SimLens: Simulator Fidelity',
    shot: 'fidelity',
    title: /^Simulator fidelity/,
    section: 'plsa-table',
    chart: 'cf-shift-chart',
  },
];

test('metric panels in a real VS Code: compute, export, themes, reload', { timeout: 600_000 }, async (t) => {
  if (!e2eReady(t)) return;
  const workspace = makeWorkspace({ 'human.conv.jsonl': jsonl(humanConversations(60, 'e2e')) });
  await simulate(workspace, 'sim-good.sim.jsonl', { agent: 'local-good' });
  await simulate(workspace, 'sim-bad.sim.jsonl', { agent: 'local-bad' });
  await simulate(workspace, 'pepper.sim.jsonl', { user: 'target-free', agent: 'local-good' });
  await simulate(workspace, 'meta.sim.jsonl', { user: 'agenda', meta: 'tol', agent: 'local-good' });
  const vscode: VsCodeSession = await startVsCode({
    workspace,
    theme: 'light',
    viewport: { width: 1500, height: 1000 },
  });
  t.after(() => vscode.close());
  const { page } = vscode;

  // 1. Compare Populations through its quick picks.
  await runCommand(page, 'SimLens: Compare Populations…', 60_000);
  await pickQuickInput(page, 'human.conv.jsonl');
  await pickQuickInput(page, 'condition = good', 30_000);
  await pickMany(page, ['sim-good.sim.jsonl']);
  // the simulated file has several tasks: its filter pick offers "All 30 conversations"
  await pickQuickInput(page, 'All 30 conversations', 30_000);
  await pickQuickInput(page, 'Lexical tagger', 30_000);
  let frame = await waitForReport(page, /^Population alignment/);
  await checkPanel(frame, 'plsa-table');
  assert.equal(await frame.locator('[data-section="plsa-table"] tbody tr').count(), 11);
  assert.ok(
    (await frame.locator('[data-section="plsa-table"] .mark-far, [data-section="plsa-table"] .mark-close').count()) > 0,
    'MWU p cells are highlighted',
  );

  // PNG export of the first chart through the (simple) save dialog.
  await frame.locator('[data-section="plsa-ks"] [data-action="export-png"]').click();
  const dialogInput = page.locator('.quick-input-widget input').first();
  await dialogInput.waitFor({ state: 'visible', timeout: 15_000 });
  // The simple save dialog fills in the default name asynchronously: wait for it, then replace it.
  await pollUntil(
    () => dialogInput.inputValue(),
    (v) => /\.png$/.test(v),
    10_000,
  );
  assert.match(
    await dialogInput.inputValue(),
    /population-alignment.*-plsa-ks\.png$/,
    'the default file name names the report and the chart',
  );
  await dialogInput.fill(path.join(workspace, 'ks.png'));
  await page.keyboard.press('Enter');
  const pngFile = path.join(workspace, 'ks.png');
  await pollUntil(() => existsSync(pngFile), Boolean, 15_000);
  assert.ok(existsSync(pngFile), 'the PNG was written');
  assert.deepEqual([...readFileSync(pngFile).subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47]);

  // 2. Human-Likeness: human file (all conversations), both simulated runs.
  await runCommand(page, 'SimLens: Human-Likeness…', 30_000);
  await pickQuickInput(page, 'human.conv.jsonl');
  await pickQuickInput(page, 'All 60 conversations', 30_000);
  await pickMany(page, ['sim-good.sim.jsonl', 'sim-bad.sim.jsonl']);
  await pickQuickInput(page, 'All 30 conversations', 30_000);
  await pickQuickInput(page, 'All 30 conversations', 30_000);
  frame = await waitForReport(page, PANELS[1].title);
  await checkPanel(frame, PANELS[1].section);

  // 3. Counterfactual: good -> bad, the two runs paired by their conditions.
  await runCommand(page, 'SimLens: Counterfactual Validation…', 30_000);
  await pickQuickInput(page, 'human.conv.jsonl');
  await pickQuickInput(page, 'good', 30_000);
  await pickQuickInput(page, 'bad', 30_000);
  await pickMany(page, ['sim-good.sim.jsonl', 'sim-bad.sim.jsonl']);
  await pickQuickInput(page, 'Lexical tagger', 30_000);
  frame = await waitForReport(page, PANELS[2].title);
  await checkPanel(frame, PANELS[2].section);

  // 4. Simulation metrics: three runs (PEPPER and AlterEval users included) against the humans.
  await runCommand(page, 'SimLens: Simulation Metrics…', 30_000);
  await pickMany(page, ['sim-good.sim.jsonl', 'pepper.sim.jsonl', 'meta.sim.jsonl']);
  await pickQuickInput(page, 'Pick a real-user file (for DS-KL and ranking agreement)…', 30_000);
  await pickQuickInput(page, 'human.conv.jsonl');
  await pickQuickInput(page, 'All 60 conversations', 30_000);
  frame = await waitForReport(page, PANELS[3].title);
  await checkPanel(frame, PANELS[3].section);
  for (const id of ['pepper-pc', 'altereval-sr1'])
    await frame.locator(`[data-section="${id}"] canvas`).waitFor({ state: 'visible', timeout: 10_000 });

  // 5. Validate Simulator: runs the simulator against both local agents (n = 20) in the host.
  await runCommand(page, 'SimLens: Validate Simulator…', 30_000);
  await pickQuickInput(page, 'human.conv.jsonl');
  await pickQuickInput(page, 'All 60 conversations', 30_000);
  await pickQuickInput(page, 'agenda:cir6:pkg', 30_000);
  await page
    .locator('.quick-input-widget', { hasText: 'Validate Simulator: agents' })
    .waitFor({ state: 'visible', timeout: 30_000 });
  await page.keyboard.press('Enter'); // agents: local-good,local-bad
  await page
    .locator('.quick-input-widget', { hasText: 'Validate Simulator: conversations per agent' })
    .waitFor({ state: 'visible', timeout: 30_000 });
  await page.locator('.quick-input-widget input').first().fill('20');
  await page.keyboard.press('Enter');
  frame = await waitForReport(page, PANELS[4].title, 240_000);
  await checkPanel(frame, PANELS[4].section);
  const fidelity = panelFrame(page);
  assert.equal(await fidelity.locator('.verdict').count(), 3, 'three verdicts');
  const reports = readdirSync(path.join(workspace, 'simlens-reports'));
  assert.equal(reports.length, 1);
  assert.ok(existsSync(path.join(workspace, 'simlens-reports', reports[0], 'report.md')));
  assert.ok(readdirSync(path.join(workspace, 'simlens-reports', reports[0], 'charts')).length > 10);

  // Screenshots in both themes: the top of each panel, then one of its charts.
  await runCommand(page, 'Notifications: Clear All Notifications', 15_000);
  for (const theme of ['light', 'dark'] as const) {
    if (theme === 'dark') await vscode.setTheme('dark');
    for (const p of PANELS) {
      await focusTab(page, p.tab);
      frame = await waitForReport(page, p.title);
      await waitForTheme(frame, theme); // charts redraw on theme change
      await screenshot(page, `panels-${p.shot}-${theme}`);
      await frame.locator(`[data-section="${p.chart}"]`).scrollIntoViewIfNeeded();
      await nextFrames(frame);
      await screenshot(page, `panels-${p.shot}-chart-${theme}`);
      await frame.locator('h1').scrollIntoViewIfNeeded();
    }
  }
  // Box plots on demand (recomputed in the host), then a Markdown export with PNG charts.
  await focusTab(page, PANELS[0].tab);
  frame = await waitForReport(page, PANELS[0].title);
  await frame.locator('[data-action="toggle-distribution"]').click();
  await frame.locator('[data-section="box-num_turns"] canvas').waitFor({ state: 'visible', timeout: 60_000 });
  await frame.locator('[data-section="box-num_turns"]').scrollIntoViewIfNeeded();
  await nextFrames(frame);
  await screenshot(page, 'panels-compare-box-dark');
  await frame.locator('[data-action="export-markdown"]').click();
  const mdInput = page.locator('.quick-input-widget input').first();
  await mdInput.waitFor({ state: 'visible', timeout: 15_000 });
  await pollUntil(
    () => mdInput.inputValue(),
    (v) => /\.md$/.test(v),
    10_000,
  );
  await mdInput.fill(path.join(workspace, 'exported.md'));
  await page.keyboard.press('Enter');
  const mdFile = path.join(workspace, 'exported.md');
  await pollUntil(() => existsSync(mdFile), Boolean, 15_000);
  assert.ok(existsSync(mdFile), 'the Markdown report was written');
  const md = readFileSync(mdFile, 'utf8');
  assert.match(md, /^# Population alignment/);
  const pngs = readdirSync(path.join(workspace, 'exported-charts'));
  assert.ok(pngs.includes('box-num_turns.png') && pngs.length >= 10, `${pngs.length} chart images`);
  for (const f of pngs) assert.ok(md.includes(`](exported-charts/${f})`), `exported.md links ${f}`);

  // The theme variables reach the webview.
  const darkBg = await frame
    .locator('body')
    .evaluate(() => getComputedStyle(document.body).getPropertyValue('--vscode-editor-background').trim());
  assert.notEqual(darkBg, '', 'theme variables are present');

  // 6. Reload: the panels come back from their saved state.
  const reloaded = page.waitForEvent('load', { timeout: 90_000 });
  await runCommand(page, 'Developer: Reload Window', 30_000);
  await reloaded;
  await page.locator('.monaco-workbench').waitFor({ state: 'visible', timeout: 90_000 });
  // The editors come back with the window: wait for the panel's tab.
  await page
    .locator('.tabs-container .tab[aria-label^="SimLens: Compare Populations"]')
    .first()
    .waitFor({ state: 'visible', timeout: 60_000 });
  await focusTab(page, 'SimLens: Compare Populations');
  frame = await waitForReport(page, /^Population alignment/, 60_000);
  await frame
    .locator('.notice', { hasText: /^Restored from the saved panel/ })
    .waitFor({ state: 'visible', timeout: 30_000 });
  await checkPanel(frame, 'box-num_turns');
  await screenshot(page, 'panels-compare-restored-dark');
  const errors = vscode.errors.filter((e) => /panels\.js|Content Security Policy/i.test(e));
  assert.deepEqual(errors, [], 'no panel errors in the console');
});
