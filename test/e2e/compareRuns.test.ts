/**
 * E2E for "SimLens: Compare Runs…" in a real VS Code: two runs of the agenda user against the
 * bad local recommender that share a seed and differ by one parameter (patience 2 vs 4). The
 * command is driven through its quick picks; the panel must show the pairs, the outcome changes,
 * and, for a pair whose outcome changed, the side-by-side replay with the first divergent turn
 * marked and the differing trace fields (patience) highlighted. Screenshots in the light and dark
 * themes and at a narrow width (test-results/compare-runs-*.png).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import type { FrameLocator, Page } from 'playwright-core';
import { runSimulation } from '../../src/core/run/orchestrator';
import { diffRuns } from '../../src/core/diff';
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

function panelFrame(page: Page): FrameLocator {
  return page
    .locator('iframe.webview.ready')
    .filter({ visible: true })
    .first()
    .contentFrame()
    .locator('iframe#active-frame')
    .contentFrame();
}

test(
  'Compare Runs in a real VS Code: pairs, divergent turn, trace fields, themes, narrow',
  { timeout: 600_000 },
  async (t) => {
    if (!e2eReady(t)) return;
    const workspace = makeWorkspace({});
    for (const patience of [2, 4]) {
      await runSimulation({ n: 40, seed: 11, agent: 'local-bad', patience } as Parameters<typeof runSimulation>[0], {
        out: path.join(workspace, `patience${patience}.sim.jsonl`),
        overwrite: true,
      });
    }
    // What the panel must show, from the same core function the CLI prints.
    const expected = await diffRuns(
      path.join(workspace, 'patience2.sim.jsonl'),
      path.join(workspace, 'patience4.sim.jsonl'),
      { resamples: 200 },
    );
    assert.equal(expected.pairing, 'seed');
    assert.ok(expected.aggregate.outcomeChanged > 0, 'the parameter changes some outcomes');

    const vscode: VsCodeSession = await startVsCode({
      workspace,
      theme: 'light',
      viewport: { width: 1500, height: 1000 },
    });
    t.after(() => vscode.close());
    const { page } = vscode;

    await runCommand(page, 'SimLens: Compare Runs…', 60_000);
    await pickQuickInput(page, 'patience2.sim.jsonl');
    await pickQuickInput(page, 'patience4.sim.jsonl', 30_000);
    const frame = panelFrame(page);
    await frame.locator('h1', { hasText: 'Compare runs' }).waitFor({ state: 'visible', timeout: 120_000 });
    assert.equal(await frame.locator('body').getAttribute('data-pairs'), String(expected.aggregate.pairs));
    assert.equal(await frame.locator('tr.pair').count(), expected.aggregate.pairs);

    // Filter: outcome changed only.
    await frame.locator('#f-outcome').check();
    assert.equal(await frame.locator('tr.pair').count(), expected.aggregate.outcomeChanged);
    // Filter: diverged before turn k (and the field filter) narrow it further, then clear them.
    const k = Math.max(...expected.pairs.filter((p) => p.outcomeA !== p.outcomeB).map((p) => p.turn ?? 0));
    await frame.locator('#f-before').fill(String(k + 1));
    const before = expected.pairs.filter(
      (p) => p.outcomeA !== p.outcomeB && p.turn !== undefined && p.turn + 1 < k + 1,
    ).length;
    assert.equal(await frame.locator('tr.pair').count(), before);
    await frame.locator('#f-before').fill('');
    await frame.locator('#f-field').selectOption('trace.patience');
    assert.equal(await frame.locator('tr.pair').count(), expected.aggregate.outcomeChanged);

    // Replay of the first pair whose outcome changed.
    const first = expected.pairs.find((p) => p.outcomeA !== p.outcomeB)!;
    await frame.locator('tr.pair').first().click();
    const divergent = frame.locator('[data-divergent="true"]');
    await divergent.first().waitFor({ state: 'visible', timeout: 30_000 });
    assert.equal(await divergent.first().getAttribute('data-turn'), String(first.turn));
    assert.match(
      (await frame.locator('.grid-row.divergent .turn-no').first().textContent()) ?? '',
      new RegExp(`turn ${first.turn! + 1}\\s*first divergence`),
    );
    assert.ok((await frame.locator('.grid-row.divergent .diff').count()) > 0, 'the differing parts are outlined');
    assert.ok(
      (await frame.locator('.field.hl .field-name', { hasText: 'patience' }).count()) >= 2,
      'patience is highlighted on both sides',
    );
    assert.equal(
      await frame.locator('body').getAttribute('data-csp-violations'),
      null,
      `no CSP violations (last: ${await frame.locator('body').getAttribute('data-csp-last')})`,
    );

    for (const theme of ['light', 'dark'] as const) {
      if (theme === 'dark') await vscode.setTheme('dark');
      await frame.locator(`body.vscode-${theme}`).waitFor({ state: 'attached', timeout: 30_000 });
      await nextFrames(frame);
      await frame.locator('h1').first().scrollIntoViewIfNeeded();
      await screenshot(page, `compare-runs-summary-${theme}`);
      await divergent.first().scrollIntoViewIfNeeded();
      await nextFrames(frame);
      await screenshot(page, `compare-runs-replay-${theme}`);
    }
    await page.setViewportSize({ width: 640, height: 900 });
    await nextFrames(frame);
    await divergent.first().scrollIntoViewIfNeeded();
    await screenshot(page, 'compare-runs-replay-narrow-dark');
  },
);
