/**
 * Temporary folders for tests that are removed when the test process exits (node's runner runs
 * each test file in its own process), so a test cannot leave folders behind even when it fails.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const created: string[] = [];
let hooked = false;

/** A new folder under the OS temp directory, removed at process exit. */
export function scratchDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  created.push(dir);
  if (!hooked) {
    hooked = true;
    process.on('exit', () => {
      for (const d of created) rmSync(d, { recursive: true, force: true });
    });
  }
  return dir;
}
