/**
 * Column layout of the metric panels' tables at 1,000, 1,400 and 2,200 px in a real VS Code
 * (issue 26): no header is clipped or overlaps its neighbour (Compare Populations and invariants
 * tables), and the invariants table's Invariant and Status columns are on screen without scrolling
 * sideways (the Statement column used to push Status ~1,700 px off-screen). Screenshots:
 * test-results/panel-layout-<panel>-<width>.png.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import type { FrameLocator, Page } from 'playwright-core';
import { runSimulation } from '../../src/core/run/orchestrator';
import {
  e2eReady,
  makeWorkspace,
  nextFrames,
  pickQuickInput,
  runCommand,
  screenshot,
  startVsCode,
  type VsCodeSession,
} from './harness';
import { humanConversations, jsonl } from '../unit/report/fixtures';

function panelFrame(page: Page): FrameLocator {
  return page
    .locator('iframe.webview.ready')
    .filter({ visible: true })
    .first()
    .contentFrame()
    .locator('iframe#active-frame')
    .contentFrame();
}

interface HeaderFacts {
  viewport: number;
  headers: { text: string; left: number; right: number; clipped: boolean }[];
}

/** The header cells of a table section: their box and whether their text is cut off. */
async function headerFacts(frame: FrameLocator, section: string): Promise<HeaderFacts> {
  return frame
    .locator(`[data-section="${section}"] table`)
    .first()
    .evaluate((table) => {
      const heads = [...table.querySelectorAll('thead th')] as HTMLElement[];
      return {
        viewport: document.documentElement.clientWidth,
        headers: heads.map((th) => {
          const r = th.getBoundingClientRect();
          return {
            text: th.textContent ?? '',
            left: r.left,
            right: r.right,
            clipped: th.scrollWidth > th.clientWidth + 1 || th.scrollHeight > th.clientHeight + 1,
          };
        }),
      };
    });
}

function checkHeaders(facts: HeaderFacts, where: string): void {
  for (const h of facts.headers) assert.equal(h.clipped, false, `${where}: header "${h.text}" is clipped`);
  for (let i = 1; i < facts.headers.length; i++) {
    const a = facts.headers[i - 1];
    const b = facts.headers[i];
    assert.ok(
      a.right <= b.left + 1,
      `${where}: headers "${a.text}" (right ${a.right}) and "${b.text}" (left ${b.left}) overlap`,
    );
  }
}

test(
  'panel tables: headers neither clipped nor overlapping, every invariants column on screen, at 1000 / 1400 / 2200 px',
  { timeout: 600_000 },
  async (t) => {
    if (!e2eReady(t)) return;
    const workspace = makeWorkspace({ 'human.conv.jsonl': jsonl(humanConversations(40, 'layout')) });
    await runSimulation({ n: 30, seed: 5, agent: 'local-good' } as Parameters<typeof runSimulation>[0], {
      out: path.join(workspace, 'sim-good.sim.jsonl'),
      overwrite: true,
    });
    const vscode: VsCodeSession = await startVsCode({
      workspace,
      theme: 'light',
      viewport: { width: 1400, height: 1000 },
    });
    t.after(() => vscode.close());
    const { page } = vscode;

    await runCommand(page, 'SimLens: Compare Populations…', 60_000);
    await pickQuickInput(page, 'human.conv.jsonl');
    await pickQuickInput(page, 'All 40 conversations', 30_000);
    await pickQuickInput(page, 'sim-good.sim.jsonl');
    await page.keyboard.press('Enter');
    await pickQuickInput(page, 'All 30 conversations', 30_000);
    await pickQuickInput(page, 'Lexical tagger', 30_000);
    let frame = panelFrame(page);
    await frame.locator('[data-section="plsa-table"] table').first().waitFor({ state: 'visible', timeout: 120_000 });
    for (const width of [1000, 1400, 2200]) {
      await page.setViewportSize({ width, height: 1000 });
      await nextFrames(frame);
      await screenshot(page, `panel-layout-compare-${width}`);
      checkHeaders(await headerFacts(frame, 'plsa-table'), `Compare Populations at ${width} px`);
    }

    await page.setViewportSize({ width: 1400, height: 1000 });
    await runCommand(page, 'SimLens: Check Behavioural Invariants', 60_000);
    await pickQuickInput(page, 'sim-good.sim.jsonl', 30_000);
    frame = panelFrame(page);
    await frame.locator('[data-section="invariants"] table').first().waitFor({ state: 'visible', timeout: 120_000 });
    for (const width of [1000, 1400, 2200]) {
      await page.setViewportSize({ width, height: 1000 });
      await nextFrames(frame);
      await screenshot(page, `panel-layout-invariants-${width}`);
      const facts = await headerFacts(frame, 'invariants');
      checkHeaders(facts, `invariants at ${width} px`);
      // The verdict is readable without scrolling sideways at every width: the invariant and its status.
      for (const name of ['Invariant', 'Status']) {
        const h = facts.headers.find((x) => x.text.trim() === name);
        assert.ok(h, `a ${name} column`);
        assert.ok(
          h.right <= facts.viewport + 1,
          `invariants at ${width} px: column "${name}" ends at ${Math.round(h.right)} px, beyond the panel's ${facts.viewport} px`,
        );
      }
    }
  },
);
