/**
 * `node scripts/demo.mjs --server`: closing the terminal (SIGHUP) stops the VS Code server, as
 * Ctrl-C does (issue 26: the server has its own process group and outlived the demo). The demo
 * runs with the E2E VSIX and a small workspace, so nothing is rebuilt.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { connect } from 'node:net';
import path from 'node:path';
import { REPO_ROOT, buildVsix, e2eReady, makeWorkspace } from './harness';

/** True when something accepts connections on 127.0.0.1:port. */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

for (const signal of ['SIGHUP', 'SIGINT'] as const) {
  test(`demo: ${signal} stops the VS Code server and exits 0`, { timeout: 300_000 }, async (t) => {
    if (!e2eReady(t)) return;
    const { vsix } = buildVsix();
    const workspace = makeWorkspace();
    const child = spawn(
      process.execPath,
      [path.join(REPO_ROOT, 'scripts', 'demo.mjs'), '--server', '--vsix', vsix, '--workspace', workspace],
      {
        cwd: REPO_ROOT,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    const exited = new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
    t.after(() => {
      if (child.exitCode === null) child.kill('SIGKILL');
    });
    // Wait for the URL the demo prints once the server answers.
    let port = 0;
    const deadline = Date.now() + 240_000;
    while (!port) {
      assert.equal(child.exitCode, null, `the demo ended early:\n${out}\n${err}`);
      assert.ok(Date.now() < deadline, `no URL printed:\n${out}\n${err}`);
      const m = /SimLens is running in VS Code at:\s+http:\/\/127\.0\.0\.1:(\d+)\//.exec(out);
      if (m) port = Number(m[1]);
      else await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal(await listening(port), true, 'the server answers before the signal');
    child.kill(signal);
    assert.equal(await exited, 0, `${out}\n${err}`);
    // The server is gone: wait (bounded) until nothing accepts connections on its port.
    const gone = Date.now() + 30_000;
    while (await listening(port)) {
      assert.ok(Date.now() < gone, `the VS Code server still listens on ${port} after ${signal}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  });
}
