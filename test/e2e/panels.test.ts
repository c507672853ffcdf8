/**
 * E2E for the metric panels in a real VS Code (local server + Chromium), on a small workspace of
 * human conversations (two conditions) and simulated runs made by the real run orchestrator:
 *
 * - "SimLens: Compare Populations…" driven through its quick picks (file, filter, candidates, act
 *   source), then a chart exported as PNG through the save dialog (bytes checked on disk);
 * - "Human-Likeness…", "Counterfactual Validation…", "Simulation Metrics…" and "Validate
 *   Simulator…" opened with a report spec as the command argument (through keybindings with
 *   `args`, the way a user can script them);
 * - every panel checked for its tables and drawn charts (canvas, no CSP violations) and
 *   screenshotted in the light and dark themes (test-results/panels-*.png);
 * - a window reload brings the panels back (restored from the webview state).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { FrameLocator, Page } from 'playwright-core';
import { runSimulation } from '../../src/core/run/orchestrator';
import { e2eReady, makeWorkspace, pickQuickInput, runCommand, screenshot, startVsCode, type VsCodeSession } from './harness';
import { humanConversations, jsonl } from '../unit/report/fixtures';

async function simulate(dir: string, name: string, config: Record<string, unknown>): Promise<void> {
  await runSimulation({ n: 30, seed: 5, ...config } as Parameters<typeof runSimulation>[0], { out: path.join(dir, name), overwrite: true });
}

/** The webview frame of the panel whose tab is active (the visible one). */
function panelFrame(page: Page): FrameLocator {
  return page.locator('iframe.webview.ready').filter({ visible: true }).first().contentFrame().locator('iframe#active-frame').contentFrame();
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
  const size = await frame.locator('canvas').first().evaluate((c: HTMLCanvasElement) => [c.width, c.height]);
  assert.ok(size[0] > 100 && size[1] > 100, `canvas size ${size}`);
  assert.equal(await frame.locator('body').getAttribute('data-csp-violations'), null, 'no CSP violations in the panel');
}

async function focusTab(page: Page, title: string): Promise<void> {
  await page.locator(`.tabs-container .tab[aria-label^="${title}"]`).first().click();
  await page.waitForTimeout(400);
}

/** Keybindings that run the panel commands with report specs as arguments. */
function keybindings(workspace: string): { key: string; command: string; args: unknown }[] {
  return [
    { key: 'ctrl+alt+shift+1', command: 'simlens.humanLikeness', args: { kind: 'human-likeness', human: { file: 'human.conv.jsonl' }, simulated: [{ file: 'sim-good.sim.jsonl' }, { file: 'sim-bad.sim.jsonl' }], folds: 3 } },
    {
      key: 'ctrl+alt+shift+2',
      command: 'simlens.counterfactualValidation',
      args: { kind: 'counterfactual', human: { file: 'human.conv.jsonl' }, from: 'good', to: 'bad', simulators: [{ label: 'agenda:cir6:pkg', from: { file: 'sim-good.sim.jsonl' }, to: { file: 'sim-bad.sim.jsonl' } }] },
    },
    { key: 'ctrl+alt+shift+3', command: 'simlens.simulationMetrics', args: { kind: 'simulation', populations: [{ file: 'sim-good.sim.jsonl' }, { file: 'pepper.sim.jsonl' }, { file: 'meta.sim.jsonl' }], reference: { file: 'human.conv.jsonl' } } },
    {
      key: 'ctrl+alt+shift+4',
      command: 'simlens.validateSimulator',
      args: { kind: 'fidelity', human: { file: 'human.conv.jsonl' }, simulator: 'agenda:cir6:pkg', agents: ['local-good', 'local-bad'], n: 20, out: path.join(workspace, 'fidelity-report'), learningCurve: false },
    },
  ];
}

const PANELS = [
  { tab: 'SimLens: Compare Populations', shot: 'compare', title: /^Population alignment/, section: 'plsa-table' },
  { tab: 'SimLens: Human-Likeness', shot: 'human-likeness', title: /^Human-likeness/, section: 'hls-cv' },
  { tab: 'SimLens: Counterfactual Validation', shot: 'counterfactual', title: /^Counterfactual validation/, section: 'cf-shifts' },
  { tab: 'SimLens: Simulation Metrics', shot: 'simulation', title: /^Simulation metrics/, section: 'zb-table' },
  { tab: 'SimLens: Simulator Fidelity', shot: 'fidelity', title: /^Simulator fidelity/, section: 'plsa-table' },
];

test('metric panels in a real VS Code: compute, export, themes, reload', { timeout: 600_000 }, async (t) => {
  if (!e2eReady(t)) return;
  const workspace = makeWorkspace({ 'human.conv.jsonl': jsonl(humanConversations(60, 'e2e')) });
  await simulate(workspace, 'sim-good.sim.jsonl', { agent: 'local-good' });
  await simulate(workspace, 'sim-bad.sim.jsonl', { agent: 'local-bad' });
  await simulate(workspace, 'pepper.sim.jsonl', { user: 'target-free', agent: 'local-good' });
  await simulate(workspace, 'meta.sim.jsonl', { user: 'agenda', meta: 'tol', agent: 'local-good' });
  const vscode: VsCodeSession = await startVsCode({ workspace, theme: 'light', viewport: { width: 1500, height: 1000 } });
  t.after(() => vscode.close());
  const { page } = vscode;
  writeFileSync(path.join(vscode.userDataDir, 'User', 'keybindings.json'), JSON.stringify(keybindings(workspace), null, 2));

  // 1. Compare Populations through its quick picks.
  await runCommand(page, 'SimLens: Compare Populations…', 60_000);
  await pickQuickInput(page, 'human.conv.jsonl');
  await pickQuickInput(page, 'condition = good', 30_000);
  await pickQuickInput(page, 'sim-good.sim.jsonl'); // multi-select: toggles the row
  await page.keyboard.press('Enter');
  // the simulated file has several tasks: its filter pick offers "All 30 conversations"
  await pickQuickInput(page, 'All 30 conversations', 30_000);
  await pickQuickInput(page, 'Lexical tagger', 30_000);
  let frame = await waitForReport(page, /^Population alignment/);
  await checkPanel(frame, 'plsa-table');
  assert.equal(await frame.locator('[data-section="plsa-table"] tbody tr').count(), 11);
  assert.ok((await frame.locator('[data-section="plsa-table"] .mark-far, [data-section="plsa-table"] .mark-close').count()) > 0, 'MWU p cells are highlighted');

  // PNG export of the first chart through the (simple) save dialog.
  await frame.locator('[data-section="plsa-ks"] [data-action="export-png"]').click();
  const dialogInput = page.locator('.quick-input-widget input').first();
  await dialogInput.waitFor({ state: 'visible', timeout: 15_000 });
  await dialogInput.fill(path.join(workspace, 'ks.png'));
  await page.keyboard.press('Enter');
  const pngFile = path.join(workspace, 'ks.png');
  for (let i = 0; i < 60 && !existsSync(pngFile); i++) await page.waitForTimeout(250);
  assert.ok(existsSync(pngFile), 'the PNG was written');
  assert.deepEqual([...readFileSync(pngFile).subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47]);

  // 2-5. The other panels, from keybindings with spec arguments.
  for (const [i, key] of ['1', '2', '3', '4'].entries()) {
    await page.locator('.monaco-workbench').click({ position: { x: 5, y: 5 } }).catch(() => undefined);
    await page.keyboard.press(`Control+Alt+Shift+${key}`);
    const p = PANELS[i + 1];
    frame = await waitForReport(page, p.title, 180_000);
    await checkPanel(frame, p.section);
  }
  const fidelity = panelFrame(page);
  assert.equal(await fidelity.locator('.verdict').count(), 3, 'three verdicts');
  assert.ok(existsSync(path.join(workspace, 'fidelity-report', 'report.md')));
  assert.ok(readdirSync(path.join(workspace, 'fidelity-report', 'charts')).length > 10);

  // Screenshots in both themes.
  for (const theme of ['light', 'dark'] as const) {
    if (theme === 'dark') await vscode.setTheme('dark');
    for (const p of PANELS) {
      await focusTab(page, p.tab);
      frame = await waitForReport(page, p.title);
      await page.waitForTimeout(600); // charts redraw on theme change
      await screenshot(page, `panels-${p.shot}-${theme}`);
    }
  }
  // In the dark theme the chart text is light: read a tick colour from a chart.js canvas context.
  const darkBg = await frame.locator('body').evaluate(() => getComputedStyle(document.body).getPropertyValue('--vscode-editor-background').trim());
  assert.notEqual(darkBg, '', 'theme variables are present');

  // 6. Reload: the panels come back from their saved state.
  await runCommand(page, 'Developer: Reload Window', 30_000);
  await page.locator('.monaco-workbench').waitFor({ state: 'visible', timeout: 90_000 });
  await page.waitForTimeout(3000);
  await focusTab(page, 'SimLens: Compare Populations');
  frame = await waitForReport(page, /^Population alignment/, 60_000);
  await frame.locator('.notice', { hasText: /^Restored from the saved panel/ }).waitFor({ state: 'visible', timeout: 30_000 });
  await checkPanel(frame, 'plsa-table');
  await screenshot(page, 'panels-compare-restored-dark');
  const errors = vscode.errors.filter((e) => /panels\.js|Content Security Policy/i.test(e));
  assert.deepEqual(errors, [], 'no panel errors in the console');
});
