/**
 * E2E: bring your own simulator in a real VS Code. The Python example simulator is registered in
 * `simlens.simulators`; "Run Simulation…" runs 1,000 of its conversations against local-good with a
 * pause condition; the run pauses at the first turn where the condition holds and opens the file;
 * "Play the Recommender from Here" asks for the recommender's reply at that turn and the simulated
 * user answers; the run then continues to the end and `simlens check` passes on its output.
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
  pickQuickInput,
  pollUntil,
  REPO_ROOT,
  runCommand,
  screenshot,
  startVsCode,
  waitForWebview,
} from './harness';

const CONDITION = 'act == "Note.Dislike" && patience == 1';

test(
  'a registered Python simulator runs 1,000 conversations, pauses at a condition, and is played from there',
  { timeout: 420_000 },
  async (t) => {
    if (!e2eReady(t)) return;
    const workspace = makeWorkspace({});
    const simulator = path.join(REPO_ROOT, 'examples/python/agenda_user.py');
    const vscode = await startVsCode({
      workspace,
      theme: 'dark',
      settings: { 'simlens.simulators': [{ name: 'example-agenda', command: `python3 ${simulator}` }] },
    });
    t.after(() => vscode.close());
    const { page } = vscode;
    const input = page.locator('.quick-input-widget input').first();
    const answer = async (title: string | RegExp, value: string) => {
      await page.locator('.quick-input-widget', { hasText: title }).waitFor({ state: 'visible', timeout: 30_000 });
      await input.fill(value);
      await page.keyboard.press('Enter');
    };

    await runCommand(page, 'SimLens: Run Simulation…');
    await pickQuickInput(page, 'example-agenda');
    await pickQuickInput(page, 'local-good');
    await answer('Number of conversations', '1000');
    await answer('Seed', '1');
    await pickQuickInput(page, 'Where a condition holds…');
    await answer('Pause where this holds', CONDITION);
    // The save dialog (VS Code's simple file dialog in the browser): accept the proposed name.
    await page
      .locator('.quick-input-widget', { hasText: 'Save simulated conversations' })
      .waitFor({ state: 'visible', timeout: 30_000 });
    await screenshot(page, 'external-simulator-save-dark');
    await page.keyboard.press('Enter');
    const out = path.join(workspace, 'sim-agenda_user.py-vs-local-good-seed1.sim.jsonl');

    // Paused: the notification names the conversation, the turn and the condition.
    const paused = page.locator('.notification-toast', { hasText: 'Paused at' }).first();
    await paused.waitFor({ state: 'visible', timeout: 120_000 });
    const text = (await notifications(page)).find((n) => n.includes('Paused at')) ?? '';
    const m = /Paused at (sim-1-\d+), turn (\d+): condition act == "Note.Dislike" && patience == 1/.exec(text);
    assert.ok(m, `paused notification: ${text}`);
    const [, id, turnText] = m;
    const turn = Number(turnText) - 1;
    // The file holds the conversation it paused at (as its last line) and is open in the SimLens editor.
    const onDisk = readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .map(
        (l) =>
          JSON.parse(l) as {
            id: string;
            turns: { user_utterance?: string; trace?: { user_act?: string; patience?: number } }[];
          },
      );
    const hit = onDisk[onDisk.length - 1];
    assert.equal(hit.id, id);
    assert.equal(hit.turns[turn].trace?.user_act, 'Note.Dislike');
    assert.equal(hit.turns[turn].trace?.patience, 1);
    const editor = await waitForWebview(page, 0, 60_000);
    await editor.locator(`text=${id}`).first().waitFor({ state: 'visible', timeout: 30_000 });
    // The editor went to the paused conversation (a line appended a moment before), not "No conversation with id".
    await editor.locator(`text=${id}`).nth(1).waitFor({ state: 'visible', timeout: 30_000 });
    assert.ok(
      !(await notifications(page)).some((n) => n.includes('No conversation with id')),
      (await notifications(page)).join(' | '),
    );
    await screenshot(page, 'external-simulator-paused-dark');

    // Play the recommender from the paused turn: the user says that turn again and answers our reply.
    await paused.locator('.monaco-button', { hasText: 'Play the Recommender from Here' }).click();
    const turnInput = page.locator('.quick-input-widget', { hasText: `Turn ${turn + 1}, the user says` });
    await turnInput.waitFor({ state: 'visible', timeout: 60_000 });
    assert.ok(
      (await turnInput.innerText()).includes(hit.turns[turn].user_utterance!.slice(0, 30)),
      'the replayed user says the recorded utterance',
    );
    assert.match(await turnInput.innerText(), /act Note\.Dislike · agenda \[.*\] · patience 1/);
    await screenshot(page, 'external-simulator-play-dark');
    await input.fill('Sorry about that. What colour would you like?');
    await page.keyboard.press('Enter');
    // The carousel picker: no items.
    await page
      .locator('.quick-input-widget', { hasText: 'Items to show in the carousel' })
      .waitFor({ state: 'visible', timeout: 30_000 });
    await page.keyboard.press('Enter');
    // The user answers; then end the played conversation.
    const next = page.locator('.quick-input-widget', { hasText: `Turn ${turn + 2}, the user says` });
    const played = path.join(workspace, 'simlens-play.sim.jsonl');
    const nextOrDone = await pollUntil(async () => (await next.isVisible()) || existsSync(played), Boolean, 60_000);
    assert.ok(nextOrDone, 'the user answered the typed reply');
    if (await next.isVisible()) {
      await screenshot(page, 'external-simulator-play-answer-dark');
      await page.keyboard.press('Escape');
    }
    // The played conversation is appended as a line: wait until it is there whole, not only the file.
    await pollUntil(() => existsSync(played) && readFileSync(played, 'utf8').endsWith('\n'), Boolean, 60_000);
    const playedConv = JSON.parse(readFileSync(played, 'utf8').trim().split('\n')[0]) as {
      turns: { assistant_utterance?: string }[];
      metadata?: Record<string, unknown>;
    };
    assert.deepEqual(playedConv.metadata?.['played_from'], { id, turn });
    assert.equal(playedConv.turns[turn].assistant_utterance, 'Sorry about that. What colour would you like?');

    // Paused again at the same turn after playing: continue without pausing; the run finishes and its output passes simlens check.
    const again = page.locator('.notification-toast', { hasText: 'Paused at' }).first();
    await again.waitFor({ state: 'visible', timeout: 60_000 });
    await again.locator('.monaco-button', { hasText: 'Continue Without Pausing' }).click();
    const finished = await pollUntil(
      () => (existsSync(out) ? readFileSync(out, 'utf8').trim().split('\n').length : 0),
      (n) => n >= 1000,
      180_000,
    );
    assert.equal(finished, 1000, `notifications: ${(await notifications(page)).join(' | ')}`);
    await page
      .locator('.notification-toast', { hasText: 'Simulated 1000 of 1000 conversations' })
      .first()
      .waitFor({ state: 'visible', timeout: 60_000 });
    await screenshot(page, 'external-simulator-finished-dark');
    const check = spawnSync(
      process.execPath,
      ['--import', 'tsx', path.join(REPO_ROOT, 'src/cli/cli.ts'), 'check', out],
      { cwd: REPO_ROOT, encoding: 'utf8' },
    );
    assert.equal(check.status, 0, check.stdout + check.stderr);
  },
);
