/**
 * A setting the extension writes for a workspace folder must declare a scope that allows it
 * (issue 26: the gear's taxonomy picker failed with "Unable to write to Folder Settings because
 * simlens.taxonomy does not support the folder resource scope"). VS Code's default scope, "window",
 * refuses ConfigurationTarget.WorkspaceFolder.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

const REPO = resolve(__dirname, '../../..');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') ? [p] : [];
  });
}

test('every setting written with ConfigurationTarget.WorkspaceFolder has scope resource (or language-overridable)', () => {
  const pkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8'));
  const props = pkg.contributes.configuration.properties as Record<string, { scope?: string }>;
  const written: string[] = [];
  for (const f of files(join(REPO, 'src', 'extension'))) {
    const text = readFileSync(f, 'utf8');
    // update('name', value, ... WorkspaceFolder ...) on the same statement
    // (the call may be spread over several lines).
    for (const m of text.matchAll(/\.update\(\s*'([\w.]+)',[^;]*WorkspaceFolder/g)) written.push(m[1]);
  }
  assert.ok(written.includes('taxonomy'), `found: ${written.join(', ')}`);
  for (const name of written) {
    const scope = props[`simlens.${name}`]?.scope;
    assert.ok(
      scope === 'resource' || scope === 'language-overridable',
      `simlens.${name} is written per folder but its scope is ${scope ?? 'window (the default)'}`,
    );
  }
});
