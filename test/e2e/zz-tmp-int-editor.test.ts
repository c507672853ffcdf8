import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeWorkspace, startVsCode, runIntegrationSuites } from '/work/main/test/e2e/harness';
test('integration editor suite', { timeout: 300_000 }, async (t) => {
  const workspace = makeWorkspace();
  const vscode = await startVsCode({ workspace, env: { SIMLENS_INTEGRATION_GREP: 'conversation editor' } });
  t.after(() => vscode.close());
  const r = await runIntegrationSuites(vscode);
  console.log(JSON.stringify(r, null, 1).slice(0, 4000));
  assert.equal(r.failed, 0);
});
