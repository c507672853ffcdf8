/**
 * The conversation custom editor inside a real extension host: it opens by default for
 * *.conv.jsonl, edits are VS Code undo steps with dirty state, save writes only the edited line,
 * revert discards, and a clean document follows changes on disk.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync, appendFileSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { activeExtension, contributes } from '../helpers';

const HOOK = 'simlens.test.conversationEditor';

function sample(): string {
  const conv = (i: number) => ({
    id: `int-${i}`,
    task_id: 'footwear_good',
    turns: [{ user_utterance: `I need boots ${i}`, assistant_utterance: 'Here are boots.' }],
    extra: { keep: i },
  });
  return `${JSON.stringify(conv(0))}\r\n${JSON.stringify(conv(1))}\n{"broken": \n${JSON.stringify(conv(2))}`;
}

async function until<T>(
  what: string,
  f: () => PromiseLike<T | undefined> | T | undefined,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await f();
    if (v !== undefined && v !== false) return v as T;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

interface EditorState {
  dirty: boolean;
  lineCount: number;
  journal: number;
  summarized: number;
  hasSession: boolean;
}

function tabIsDirty(uri: vscode.Uri): boolean {
  for (const group of vscode.window.tabGroups.all) {
    for (const tab of group.tabs) {
      if (tab.input instanceof vscode.TabInputCustom && tab.input.uri.toString() === uri.toString()) return tab.isDirty;
    }
  }
  return false;
}

export function register(): void {
  suite('conversation editor', () => {
    let dir: string;
    setup(() => {
      dir = mkdtempSync(join(tmpdir(), 'simlens-int-editor-'));
    });
    teardown(async () => {
      await vscode.commands
        .executeCommand('workbench.action.revertAndCloseActiveEditor')
        .then(undefined, () => undefined);
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    });

    test('contributes the editor for *.conv.jsonl and *.sim.jsonl (default) and any *.jsonl (option)', async () => {
      const ext = await activeExtension();
      const editors = (contributes(ext).customEditors ?? []) as Array<{
        viewType: string;
        priority?: string;
        selector: Array<{ filenamePattern: string }>;
      }>;
      const main = editors.find((e) => e.viewType === 'simlens.conversations');
      assert.deepEqual(
        main?.selector.map((s) => s.filenamePattern),
        ['*.conv.jsonl', '*.sim.jsonl'],
      );
      assert.equal(main?.priority, 'default');
      assert.equal(editors.find((e) => e.viewType === 'simlens.conversationsAnyJsonl')?.priority, 'option');
    });

    test('opens *.conv.jsonl in the custom editor by default', async () => {
      const file = join(dir, 'a.conv.jsonl');
      writeFileSync(file, sample());
      const uri = vscode.Uri.file(file);
      await vscode.commands.executeCommand('vscode.open', uri);
      const input = await until('custom editor tab', () => {
        const tab = vscode.window.tabGroups.activeTabGroup.activeTab;
        return tab?.input instanceof vscode.TabInputCustom ? tab.input : undefined;
      });
      assert.equal(input.viewType, 'simlens.conversations');
      const state = await until('document', () =>
        vscode.commands.executeCommand<EditorState>(HOOK, 'state', uri).then(
          (s) => s,
          () => undefined,
        ),
      );
      assert.equal(state.lineCount, 4);
    });

    test('annotation edits: dirty, VS Code undo/redo, save writes only that line', async () => {
      const file = join(dir, 'b.conv.jsonl');
      const original = sample();
      writeFileSync(file, original);
      const uri = vscode.Uri.file(file);
      await vscode.commands.executeCommand('vscode.openWith', uri, 'simlens.conversations');
      await until('document', () =>
        vscode.commands.executeCommand<EditorState>(HOOK, 'state', uri).then(
          (s) => s,
          () => undefined,
        ),
      );
      await vscode.commands.executeCommand(HOOK, 'annotate', uri, {
        line: 1,
        turn: 0,
        speaker: 'user',
        acts: ['critique'],
      });
      await vscode.commands.executeCommand(HOOK, 'annotate', uri, {
        line: 1,
        turn: 0,
        speaker: 'user',
        acts: ['critique', 'other'],
      });
      await until('dirty tab', () => tabIsDirty(uri));
      await vscode.commands.executeCommand('undo');
      await until(
        'undo applied',
        async () => (await vscode.commands.executeCommand<EditorState>(HOOK, 'state', uri)).journal === 1,
      );
      await vscode.commands.executeCommand('redo');
      await until(
        'redo applied',
        async () => (await vscode.commands.executeCommand<EditorState>(HOOK, 'state', uri)).journal === 2,
      );
      await vscode.commands.executeCommand('undo');
      await until(
        'undo applied again',
        async () => (await vscode.commands.executeCommand<EditorState>(HOOK, 'state', uri)).journal === 1,
      );
      await vscode.commands.executeCommand('workbench.action.files.save');
      await until('clean tab', () => !tabIsDirty(uri));
      const saved = readFileSync(file, 'utf8').split('\n');
      const before = original.split('\n');
      assert.equal(saved.length, before.length);
      assert.equal(saved[0], before[0], 'CRLF line untouched');
      assert.equal(saved[2], before[2], 'invalid line untouched');
      assert.equal(saved[3], before[3], 'last line (no final newline) untouched');
      const line = JSON.parse(saved[1]);
      assert.deepEqual(
        line.turns[0].annotations.map((a: { acts: string[]; annotator: string }) => [a.annotator, a.acts]),
        [['integration', ['critique']]],
      );
      assert.deepEqual(line.extra, { keep: 1 });
    });

    test('revert discards unsaved annotations', async () => {
      const file = join(dir, 'c.conv.jsonl');
      writeFileSync(file, sample());
      const uri = vscode.Uri.file(file);
      await vscode.commands.executeCommand('vscode.openWith', uri, 'simlens.conversations');
      await until('document', () =>
        vscode.commands.executeCommand<EditorState>(HOOK, 'state', uri).then(
          (s) => s,
          () => undefined,
        ),
      );
      await vscode.commands.executeCommand(HOOK, 'annotate', uri, {
        line: 0,
        turn: 0,
        speaker: 'assistant',
        acts: ['recommend'],
      });
      await until('dirty tab', () => tabIsDirty(uri));
      await vscode.commands.executeCommand('workbench.action.files.revert');
      await until('clean tab', () => !tabIsDirty(uri));
      const conv = await vscode.commands.executeCommand<{ turns: Array<{ annotations?: unknown[] }> }>(
        HOOK,
        'read',
        uri,
        { line: 0 },
      );
      assert.equal(conv.turns[0].annotations, undefined);
      assert.equal(readFileSync(file, 'utf8'), sample());
    });

    test('a clean document reloads when the file changes on disk', async () => {
      const file = join(dir, 'd.conv.jsonl');
      writeFileSync(file, sample());
      const uri = vscode.Uri.file(file);
      await vscode.commands.executeCommand('vscode.openWith', uri, 'simlens.conversations');
      await until('document', () =>
        vscode.commands.executeCommand<EditorState>(HOOK, 'state', uri).then(
          (s) => s,
          () => undefined,
        ),
      );
      appendFileSync(file, '\n' + JSON.stringify({ id: 'new', turns: [] }) + '\n');
      const t = new Date(Date.now() + 2000);
      utimesSync(file, t, t);
      const lines = await until('reload', async () => {
        const count = await vscode.commands.executeCommand<number>(HOOK, 'diskCheck', uri);
        return count === 5 ? count : undefined;
      });
      assert.equal(lines, 5);
      assert.equal(tabIsDirty(uri), false);
    });
  });
}
