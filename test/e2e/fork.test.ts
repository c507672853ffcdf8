/**
 * E2E: "SimLens: Fork from Here…" in a real VS Code. A small simulation run is written into the
 * workspace, the command is run from the palette (id, turn, number of continuations), and the
 * continuations must land beside the file and open in the SimLens editor.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import {
  e2eReady,
  makeWorkspace,
  notifications,
  openFileInEditor,
  pollUntil,
  REPO_ROOT,
  runCommand,
  screenshot,
  startVsCode,
  waitForWebview,
} from './harness';

test('fork from here writes continuations and opens them beside', { timeout: 240_000 }, async (t) => {
  if (!e2eReady(t)) return;
  const workspace = makeWorkspace({});
  const run = path.join(workspace, 'run.sim.jsonl');
  const sim = spawnSync(
    process.execPath,
    [
      '--import',
      'tsx',
      path.join(REPO_ROOT, 'src/cli/cli.ts'),
      'simulate',
      '--user',
      'agenda',
      '--agent',
      'local-good',
      '--n',
      '3',
      '--seed',
      '7',
      '--out',
      run,
      '--quiet',
    ],
    { cwd: REPO_ROOT, encoding: 'utf8' },
  );
  assert.equal(sim.status, 0, sim.stderr);
  const first = JSON.parse(readFileSync(run, 'utf8').split('\n')[0]) as { id: string; turns: unknown[] };
  assert.ok(first.turns.length >= 2, 'the first simulated conversation has at least two turns');

  const vscode = await startVsCode({ workspace, theme: 'light' });
  t.after(() => vscode.close());
  const { page } = vscode;
  // Open the run in the SimLens editor (its default editor), then fork: the active tab supplies the file.
  await openFileInEditor(page, 'run.sim.jsonl');
  await waitForWebview(page, 0, 60_000);
  const input = page.locator('.quick-input-widget input').first();
  await runCommand(page, 'SimLens: Fork from Here…');
  await input.waitFor({ state: 'visible', timeout: 15_000 });
  // Three input boxes in turn: conversation id, turn (1-based), number of continuations.
  for (const [title, value] of [
    ['conversation id', first.id],
    ['continue after turn', '1'],
    ['number of continuations', '4'],
  ]) {
    await page.locator('.quick-input-widget', { hasText: title }).waitFor({ state: 'visible', timeout: 15_000 });
    await input.fill(value);
    await page.keyboard.press('Enter');
  }

  const out = path.join(workspace, `run.fork-${first.id}-t1.sim.jsonl`);
  await pollUntil(() => existsSync(out), Boolean, 60_000);
  if (!existsSync(out)) await screenshot(page, 'fork-failed-light').catch(() => undefined);
  assert.ok(existsSync(out), `fork output ${out} written; notifications: ${(await notifications(page)).join(' | ')}`);
  const lines = readFileSync(out, 'utf8')
    .trim()
    .split('\n')
    .map(
      (l) =>
        JSON.parse(l) as {
          id: string;
          turns: { user_utterance?: string }[];
          metadata?: { forked_from?: { id: string; turn: number } };
        },
    );
  assert.equal(lines.length, 5, 'the original and 4 continuations');
  assert.equal(lines[0].id, first.id);
  for (const c of lines.slice(1)) {
    assert.deepEqual(c.metadata?.forked_from && { id: c.metadata.forked_from.id, turn: c.metadata.forked_from.turn }, {
      id: first.id,
      turn: 0,
    });
    assert.deepEqual(c.turns[0], lines[0].turns[0], 'the prefix is kept');
  }
  // The fork opens in a second SimLens editor beside the original.
  const fork = await waitForWebview(page, 1, 60_000);
  await fork.locator(`text=${first.id}`).first().waitFor({ state: 'visible', timeout: 30_000 });
  await screenshot(page, 'fork-beside-light');
});
