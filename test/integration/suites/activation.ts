/** The extension is installed, activates, and runs on the VS Code / Node versions we target. */
import assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { activeExtension, EXTENSION_ID, workspaceFolder } from '../helpers';

export function register(): void {
  suite('activation', () => {
    test('the extension is installed and activates', async () => {
      const extension = await activeExtension();
      assert.equal(extension.id, EXTENSION_ID);
      assert.equal(extension.isActive, true);
    });

    test('runs in a Node extension host of VS Code >= 1.100', () => {
      const [major, minor] = vscode.version.split('.').map(Number);
      assert.ok(major > 1 || (major === 1 && minor >= 100), `VS Code ${vscode.version}`);
      assert.equal(typeof process.versions.node, 'string');
      assert.ok(Number(process.versions.node.split('.')[0]) >= 20, `Node ${process.version}`);
    });

    test('a workspace folder is open', () => {
      assert.ok(workspaceFolder().uri.fsPath.length > 0);
    });
  });
}
