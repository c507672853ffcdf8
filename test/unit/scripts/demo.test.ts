/**
 * `node scripts/demo.mjs --port N` with N busy stops at once with one clear line (exit 2), before
 * installing or building anything (issue 26: it used to build for ~30 s and die with a stack trace).
 * Closing the terminal (SIGHUP) stopping the VS Code server is checked by test/e2e/demo.test.ts.
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';

const REPO = resolve(__dirname, '../../..');

describe('demo: a busy --port', () => {
  test('exit 2 with a message naming the port, nothing built', async () => {
    const busy = createServer();
    await new Promise<void>((r) => busy.listen(0, '127.0.0.1', () => r()));
    const port = (busy.address() as AddressInfo).port;
    try {
      const child = spawn(process.execPath, [join(REPO, 'scripts', 'demo.mjs'), '--port', String(port), '--server'], {
        cwd: REPO,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      let err = '';
      child.stdout.on('data', (d) => (out += d));
      child.stderr.on('data', (d) => (err += d));
      const code = await new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
      assert.equal(code, 2, `${out}\n${err}`);
      assert.match(
        err,
        new RegExp(
          `demo: cannot use 127\\.0\\.0\\.1:${port} for the VS Code server: it is in use \\(EADDRINUSE\\)\\. Choose another with --port N`,
        ),
      );
      assert.doesNotMatch(out, /▶/, 'no step was started');
      assert.doesNotMatch(err, /\n\s+at /, 'no stack trace');
    } finally {
      await new Promise((r) => busy.close(r));
    }
  });

  test('a port that is not a number is refused the same way', async () => {
    const child = spawn(process.execPath, [join(REPO, 'scripts', 'demo.mjs'), '--port', 'eighty'], {
      cwd: REPO,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    const code = await new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
    assert.equal(code, 2);
    assert.match(err, /--port needs a port number/);
  });
});
