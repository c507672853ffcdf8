/**
 * Concepts with one implementation stay that way (issue 25, item 4): every notification of the
 * extension goes through safeOutput's `notify` (escaped), the webviews reach the host through one
 * bridge (webview/shared/host.ts), the editor's list has one page size, and files are converted by
 * core's one conversion. Read from the real tree, so a second copy fails here.
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

const REPO = join(__dirname, '..', '..', '..');

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(join(REPO, dir))) {
    const rel = join(dir, name);
    if (statSync(join(REPO, rel)).isDirectory()) out.push(...sources(rel));
    else if (name.endsWith('.ts')) out.push(rel.split(sep).join('/'));
  }
  return out;
}

/** `file:line` of every line of the files under `dirs` that matches `re`. */
function where(dirs: string[], re: RegExp): string[] {
  const hits: string[] = [];
  for (const file of dirs.flatMap(sources)) {
    const lines = readFileSync(join(REPO, file), 'utf8').split('\n');
    lines.forEach((l, i) => {
      if (re.test(l)) hits.push(`${relative('.', file)}:${i + 1}`);
    });
  }
  return hits;
}

const files = (hits: string[]): string[] => [...new Set(hits.map((h) => h.replace(/:\d+$/, '')))];

describe('one implementation per concept', () => {
  test("notifications: only safeOutput's notify calls vscode.window.show*Message", () => {
    const hits = where(['src/extension'], /window\s*\.\s*show(Error|Warning|Information)Message\b/);
    assert.ok(hits.length > 0, 'the pattern still finds notify itself');
    assert.deepEqual(files(hits), ['src/extension/safeOutput.ts'], hits.join('\n'));
  });

  test('webviews: one host bridge acquires the VS Code API and listens for host messages', () => {
    assert.deepEqual(files(where(['webview'], /acquireVsCodeApi\(\)/)), ['webview/shared/host.ts']);
    assert.deepEqual(files(where(['webview'], /addEventListener\(\s*'message'/)), ['webview/shared/host.ts']);
  });

  test('the editor list has one page size', () => {
    const hits = where(['src', 'webview'], /\bPAGE_SIZE\s*=/);
    assert.deepEqual(files(hits), ['src/shared/editorView.ts'], hits.join('\n'));
  });

  test("conversion: only core's convertFile imports and writes a converted file", () => {
    // The shells call convertFile: none imports the file itself or writes the output.
    for (const shell of [
      'src/extension/editor/convert.ts',
      'src/extension/convertCommand.ts',
      'src/cli/commands/convert.ts',
    ])
      assert.doesNotMatch(
        readFileSync(join(REPO, shell), 'utf8'),
        /\b(importFile|importFileEach|writeFileAtomic|writeAtomic|fsyncSync|renameSync|openSync)\(/,
        shell,
      );
    assert.deepEqual(files(where(['src'], /\bconvertFile\(/)).sort(), [
      'src/cli/commands/convert.ts',
      'src/core/importers/convert.ts',
      'src/extension/editor/convert.ts',
    ]);
  });
});
