/** Every command contributed in package.json is registered by activate(). */
import assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { activeExtension, contributes } from '../helpers';

export function register(): void {
  suite('commands', () => {
    test('each contributed command is registered', async () => {
      const extension = await activeExtension();
      // The test-only command is registered only when its environment variable is set.
      const contributed = (contributes(extension).commands ?? [])
        .map((c) => c.command)
        .filter((id) => !id.startsWith('simlens.test.') || process.env.SIMLENS_INTEGRATION_RESULT);
      const registered = new Set(await vscode.commands.getCommands(true));
      const missing = contributed.filter((id) => !registered.has(id));
      assert.deepEqual(missing, [], `contributed in package.json but not registered: ${missing.join(', ')}`);
    });

    test('the test-only command is registered when its environment variable is set', async () => {
      const registered = await vscode.commands.getCommands(true);
      const expected = Boolean(process.env.SIMLENS_INTEGRATION_RESULT);
      assert.equal(registered.includes('simlens.test.runIntegration'), expected);
    });
  });
}
