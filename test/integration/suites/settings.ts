/**
 * Settings the editor writes, written by VS Code's real configuration service (issue 26 item 13:
 * the gear's taxonomy picker failed with "Unable to write to Folder Settings because
 * simlens.taxonomy does not support the folder resource scope"). The static test
 * (test/unit/editor/settingsScope.test.ts) reads package.json; this one makes the write.
 */
import assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { activeExtension, workspaceFolder } from '../helpers';
import { useTaxonomy } from '../../../src/extension/editor/annotationSettings';

export function register(): void {
  suite('settings the editor writes', () => {
    test("choosing a taxonomy (gear, or the offer in the annotation panel) writes simlens.taxonomy for the file's folder", async () => {
      await activeExtension();
      const folder = workspaceFolder();
      const file = vscode.Uri.joinPath(folder.uri, 'sample.conv.jsonl');
      const config = () => vscode.workspace.getConfiguration('simlens', file);
      const before = config().inspect<unknown>('taxonomy')?.workspaceFolderValue;
      const other = before === 'iard' ? 'zhang-balog' : 'iard';
      try {
        // The same function the gear's quick pick and the page's setTaxonomy message call.
        assert.equal(await useTaxonomy(file, other), true);
        assert.equal(config().inspect<unknown>('taxonomy')?.workspaceFolderValue, other);
        assert.equal(config().get('taxonomy'), other);
        assert.equal(await useTaxonomy(file, 'no-such-taxonomy'), false);
      } finally {
        await config().update('taxonomy', before, vscode.ConfigurationTarget.WorkspaceFolder);
      }
    });
  });
}
