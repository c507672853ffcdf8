// The local VS Code server (code-server 4.100.3 from npm, installed by scripts/setup.sh): a small
// library used by the demo and the E2E tests, and a command line. CommonJS so that both the
// ES-module scripts and the TypeScript (CommonJS) tests can import it; types: vscode-server.d.cts.
//
// Usage:
//   node scripts/vscode-server.cjs start [--workspace DIR] [--vsix FILE] [--extensions-dir DIR]
//        [--user-data-dir DIR] [--port N] [--disable-workspace-trust] [--detach]
//     Starts the server on 127.0.0.1 (a free port unless --port), installs the VSIX first when
//     given, waits until it answers HTTP and prints its URL. Stays in the foreground until Ctrl-C,
//     or with --detach prints `{"url","pid"}` as JSON and leaves it running.
//   node scripts/vscode-server.cjs stop PID       stops a detached server (its process group)
//   node scripts/vscode-server.cjs install --vsix FILE --extensions-dir DIR [--user-data-dir DIR]
//   node scripts/vscode-server.cjs status         says whether the server and Chromium are installed
//
// Every server binds 127.0.0.1 only and runs in its own process group, so stopping it ends the
// extension host and the other helpers it forks too.
'use strict';
const { spawn, spawnSync } = require('node:child_process');
const { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync } = require('node:fs');
const { createServer } = require('node:net');
const http = require('node:http');
const os = require('node:os');
const path = require('node:path');

const REPO_ROOT = path.resolve(__dirname, '..');
const CODE_SERVER_VERSION = '4.100.3';
/** Where scripts/setup.sh installs the server. */
const SERVER_DIR = process.env.SIMLENS_VSCODE_SERVER_DIR ?? path.join(REPO_ROOT, '.cache', 'vscode-server');

/** Path of code-server's entry script inside `dir`. */
function serverEntry(dir = SERVER_DIR) {
  return path.join(dir, 'node_modules', 'code-server', 'out', 'node', 'entry.js');
}

/** True when scripts/setup.sh finished installing the server into `dir`. */
function serverInstalled(dir = SERVER_DIR) {
  return existsSync(path.join(dir, '.simlens-setup-stamp')) && existsSync(serverEntry(dir));
}

/** Finds a Chromium executable: $SIMLENS_CHROMIUM, else the first of chromium/chromium-browser/google-chrome on PATH. */
function findChromium() {
  if (process.env.SIMLENS_CHROMIUM)
    return existsSync(process.env.SIMLENS_CHROMIUM) ? process.env.SIMLENS_CHROMIUM : null;
  for (const name of ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable']) {
    const found = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' });
    if (found.status === 0 && found.stdout.trim()) return found.stdout.trim();
  }
  return null;
}

/** A TCP port that was free on 127.0.0.1 a moment ago. */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** One HTTP GET; resolves with the status code (redirects are not followed). */
function httpStatus(url, timeoutMs = 2000) {
  return new Promise((resolve, reject) => {
    const request = http.get(url, { timeout: timeoutMs }, (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    request.on('timeout', () => request.destroy(new Error('timeout')));
    request.on('error', reject);
  });
}

/** Polls `url` until it answers with a status below 400; throws after `timeoutMs`. */
async function waitForHttp(url, { timeoutMs = 60_000, isAlive = () => true } = {}) {
  const deadline = Date.now() + timeoutMs;
  let last = 'no answer';
  while (Date.now() < deadline) {
    if (!isAlive()) throw new Error(`the server exited before answering ${url}`);
    try {
      const status = await httpStatus(url);
      if (status > 0 && status < 400) return status;
      last = `HTTP ${status}`;
    } catch (error) {
      last = error.message;
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${url} did not answer within ${timeoutMs} ms (last: ${last})`);
}

function requireServer(dir) {
  if (!serverInstalled(dir)) {
    throw new Error(`the local VS Code server is not installed in ${dir}: run \`npm run setup\` first`);
  }
}

/**
 * Installs a VSIX (or a marketplace id, which fails offline) with the server's own
 * `--install-extension`. Returns the command's output; throws with it on failure.
 */
function installExtension({ vsix, extensionsDir, userDataDir, dir = SERVER_DIR }) {
  requireServer(dir);
  if (!existsSync(vsix)) throw new Error(`VSIX not found: ${vsix}`);
  mkdirSync(extensionsDir, { recursive: true });
  const args = [
    serverEntry(dir),
    '--extensions-dir',
    extensionsDir,
    '--force',
    '--install-extension',
    path.resolve(vsix),
  ];
  if (userDataDir) args.splice(1, 0, '--user-data-dir', userDataDir);
  // --config keeps code-server from writing a default config into ~/.config.
  const configDir = userDataDir ?? mkdtempSync(path.join(os.tmpdir(), 'simlens-vscode-cfg-'));
  mkdirSync(configDir, { recursive: true });
  args.splice(1, 0, '--config', path.join(configDir, 'code-server.yaml'));
  const run = spawnSync(process.execPath, args, { encoding: 'utf8', timeout: 120_000 });
  const output = `${run.stdout ?? ''}${run.stderr ?? ''}`;
  if (run.status !== 0 || /Failed|Error/i.test(run.stderr ?? '')) {
    throw new Error(`installing ${vsix} failed (exit ${run.status}):\n${output}`);
  }
  return output;
}

/**
 * Starts the server and resolves once it answers HTTP.
 * @param {object} options
 * @param {string} [options.workspace] folder to open
 * @param {string} options.extensionsDir
 * @param {string} options.userDataDir
 * @param {boolean} [options.disableWorkspaceTrust=true] false keeps workspace trust on (restricted mode)
 * @param {Record<string,string>} [options.env] extra environment for the server and its extension host
 * @param {number} [options.port] default: a free port
 * @param {string} [options.host='127.0.0.1'] address to bind; health checks still use 127.0.0.1
 * @param {number} [options.timeoutMs=90000]
 * @returns {Promise<{url: string, workspaceUrl: string, port: number, pid: number, output: () => string, stop: () => Promise<void>}>}
 */
async function startServer({
  workspace,
  extensionsDir,
  userDataDir,
  disableWorkspaceTrust = true,
  env = {},
  port,
  host = '127.0.0.1',
  timeoutMs = 90_000,
  dir = SERVER_DIR,
  logFile,
  extraArgs = [],
}) {
  requireServer(dir);
  mkdirSync(extensionsDir, { recursive: true });
  mkdirSync(userDataDir, { recursive: true });
  const chosenPort = port ?? (await freePort());
  const args = [
    serverEntry(dir),
    '--config',
    path.join(userDataDir, 'code-server.yaml'),
    '--auth',
    'none',
    '--bind-addr',
    `${host.includes(':') ? `[${host}]` : host}:${chosenPort}`,
    '--disable-telemetry',
    '--disable-update-check',
    '--disable-getting-started-override',
    '--disable-proxy',
    '--extensions-dir',
    extensionsDir,
    '--user-data-dir',
    userDataDir,
  ];
  if (disableWorkspaceTrust) args.push('--disable-workspace-trust');
  args.push(...extraArgs);
  if (workspace) args.push(path.resolve(workspace));

  let output = '';
  // With a log file the server outlives this process safely (no pipe to break).
  const logFd = logFile ? openSync(logFile, 'a') : undefined;
  const child = spawn(process.execPath, args, {
    detached: true, // own process group: stop() ends the extension host and its children too
    stdio: logFd === undefined ? ['ignore', 'pipe', 'pipe'] : ['ignore', logFd, logFd],
    env: { ...process.env, ...env },
  });
  if (logFd !== undefined) closeSync(logFd);
  const keep = (chunk) => {
    output += chunk.toString();
    if (output.length > 200_000) output = output.slice(-100_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const readOutput = () => (logFile ? readFileSync(logFile, 'utf8') : output);
  let exited = false;
  child.on('exit', () => (exited = true));

  // A wildcard bind is reached through loopback; a specific address through itself.
  const probeHost =
    ['0.0.0.0', '::', 'localhost'].includes(host) || host.startsWith('127.')
      ? '127.0.0.1'
      : host.includes(':')
        ? `[${host}]`
        : host;
  const url = `http://${probeHost}:${chosenPort}/`;
  const stop = () => stopServer(child.pid, { isAlive: () => !exited });
  try {
    await waitForHttp(`${url}healthz`, { timeoutMs, isAlive: () => !exited });
  } catch (error) {
    await stop();
    throw new Error(`${error.message}\n--- server output ---\n${readOutput()}`);
  }
  const workspaceUrl = workspace ? `${url}?folder=${encodeURIComponent(path.resolve(workspace))}` : url;
  return { url, workspaceUrl, port: chosenPort, pid: child.pid, output: readOutput, stop, child };
}

/** Stops a server started by startServer: SIGTERM to its process group, SIGKILL after `graceMs`. */
async function stopServer(pid, { graceMs = 5000, isAlive } = {}) {
  const alive =
    isAlive ??
    (() => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    });
  const signalGroup = (signal) => {
    try {
      process.kill(-pid, signal);
    } catch {
      /* already gone */
    }
  };
  if (!alive()) {
    signalGroup('SIGKILL'); // stray children of a leader that already exited
    return;
  }
  signalGroup('SIGTERM');
  const deadline = Date.now() + graceMs;
  while (alive() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  signalGroup('SIGKILL');
}

// ---- command line ------------------------------------------------------------------------
function parseArgs(argv) {
  const options = { _: [] };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (!arg.startsWith('--')) options._.push(arg);
    else if (['--disable-workspace-trust', '--detach'].includes(arg)) options[arg.slice(2)] = true;
    else options[arg.slice(2)] = argv[++i];
  }
  return options;
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  const [command] = options._;
  const scratch = () => mkdtempSync(path.join(os.tmpdir(), 'simlens-vscode-'));
  if (command === 'status') {
    console.log(
      `VS Code server (code-server ${CODE_SERVER_VERSION}): ${serverInstalled() ? SERVER_DIR : 'not installed (npm run setup)'}`,
    );
    console.log(`Chromium: ${findChromium() ?? 'not found (npm run setup)'}`);
  } else if (command === 'stop') {
    const pid = Number(options._[1]);
    if (!Number.isInteger(pid) || pid <= 0) throw new Error('usage: vscode-server.mjs stop PID');
    await stopServer(pid);
    console.log(`stopped ${pid}`);
  } else if (command === 'install') {
    if (!options.vsix || !options['extensions-dir'])
      throw new Error('usage: vscode-server.mjs install --vsix FILE --extensions-dir DIR');
    console.log(
      installExtension({
        vsix: options.vsix,
        extensionsDir: options['extensions-dir'],
        userDataDir: options['user-data-dir'],
      }).trim(),
    );
  } else if (command === 'start') {
    const base = options['extensions-dir'] && options['user-data-dir'] ? null : scratch();
    const extensionsDir = options['extensions-dir'] ?? path.join(base, 'extensions');
    const userDataDir = options['user-data-dir'] ?? path.join(base, 'user-data');
    if (options.vsix) {
      installExtension({ vsix: options.vsix, extensionsDir, userDataDir });
      console.log(`installed ${options.vsix}`);
    }
    const server = await startServer({
      workspace: options.workspace,
      extensionsDir,
      userDataDir,
      disableWorkspaceTrust: Boolean(options['disable-workspace-trust']),
      port: options.port ? Number(options.port) : undefined,
      logFile: options.detach ? path.join(userDataDir, 'server.log') : undefined,
    });
    if (options.detach) {
      server.child.unref();
      console.log(
        JSON.stringify({ url: server.workspaceUrl, pid: server.pid, log: path.join(userDataDir, 'server.log') }),
      );
      process.exit(0); // the server is in its own process group and keeps running
    }
    console.log(`VS Code server: ${server.workspaceUrl}  (Ctrl-C stops it)`);
    const shutdown = async () => {
      await server.stop();
      process.exit(0);
    };
    process.on('SIGINT', shutdown);
    process.on('SIGTERM', shutdown);
  } else {
    const header = readFileSync(__filename, 'utf8').split('\n');
    const start = header.indexOf('// Usage:');
    const end = header.findIndex((line, i) => i > start && line === '//');
    console.log(
      header
        .slice(start, end)
        .map((l) => l.replace(/^\/\/ ?/, ''))
        .join('\n'),
    );
    if (command) process.exit(2);
  }
}

module.exports = {
  REPO_ROOT,
  CODE_SERVER_VERSION,
  SERVER_DIR,
  serverEntry,
  serverInstalled,
  findChromium,
  freePort,
  waitForHttp,
  installExtension,
  startServer,
  stopServer,
};

if (require.main === module) {
  main().catch((error) => {
    console.error(`vscode-server: ${error.message}`);
    process.exit(1);
  });
}
