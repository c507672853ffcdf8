// `npm run demo`: the main job from a fresh clone. Installs the npm dependencies when missing,
// builds and packages the VSIX (dist/simlens.vsix), builds the sample workspace
// (`npm run sample` → sample-workspace/, or a minimal one when that script does not exist yet),
// and opens it in VS Code with SimLens installed:
//   - the desktop `code` when it is on PATH (`code --install-extension … && code sample-workspace`);
//   - otherwise the local VS Code server (installed by `npm run setup`, run here when missing),
//     printed as a 127.0.0.1 URL with the SSH port-forward line for reaching it from a laptop;
//     it stays in the foreground until Ctrl-C (or SIGTERM, or the terminal closing: SIGHUP), which
//     stops the server and exits 0.
//
// Options:
//   --check        start the server, check that the workbench URL answers 200 and SimLens is
//                  installed, then stop and exit (for CI and tests; never uses desktop `code`)
//   --no-open      same as --check
//   --server       use the local VS Code server even when `code` is on PATH
//   --port N       port for the server (default: a free one); a busy port stops the demo at once
//                  (exit 2), before anything is built
//   --host ADDR    address to bind (default 127.0.0.1). The server has no password: binding
//                  anything but loopback exposes your files to the network, so prefer SSH forwarding.
//   --vsix FILE    use this VSIX instead of packaging one
//   --workspace D  open this folder instead of building sample-workspace/
//   --restricted   keep workspace trust on (the folder opens in Restricted Mode)
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
process.chdir(root);
const require = createRequire(import.meta.url);
const server = require('./vscode-server.cjs');

const args = process.argv.slice(2);
const flag = (name) => args.includes(name);
const option = (name) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const check = flag('--check') || flag('--no-open');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

// A given --port is checked before anything is built: a busy port is one clear line, at once.
const port = option('--port') !== undefined ? Number(option('--port')) : undefined;
if (port !== undefined && !(Number.isInteger(port) && port > 0 && port < 65536)) {
  console.error(`demo: --port needs a port number (1-65535), got "${option('--port')}"`);
  process.exit(2);
}
const host = option('--host') ?? '127.0.0.1';
if (port !== undefined) {
  const problem = await portProblem(host, port);
  if (problem) {
    console.error(
      `demo: cannot use ${host}:${port} for the VS Code server: ${problem}. Choose another with --port N, or leave --port out for a free one.`,
    );
    process.exit(2);
  }
}

const step = (text) => console.log(`\n▶ ${text}`);
function sh(command, commandArgs, options = {}) {
  console.log(`  $ ${command} ${commandArgs.join(' ')}`);
  const result = spawnSync(command, commandArgs, { stdio: 'inherit', cwd: root, ...options });
  if (result.status !== 0) {
    console.error(`demo: \`${command} ${commandArgs.join(' ')}\` failed (exit ${result.status ?? result.signal})`);
    process.exit(1);
  }
}
function onPath(name) {
  return spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' }).status === 0;
}

const pkg = JSON.parse(readFileSync('package.json', 'utf8'));
const extensionId = `${pkg.publisher}.${pkg.name}`;

// 1. dependencies
if (!existsSync('node_modules/.bin/esbuild') || !existsSync('node_modules/@vscode/vsce')) {
  step('installing npm dependencies');
  sh(npm, [existsSync('package-lock.json') ? 'ci' : 'install', '--no-audit', '--no-fund']);
}

// 2. VSIX
let vsix = option('--vsix');
if (vsix) {
  vsix = path.resolve(vsix);
} else {
  step('building and packaging the extension (npm run package)');
  sh(npm, ['run', '--silent', 'package']);
  vsix = path.join(root, 'dist', 'simlens.vsix');
}
if (!existsSync(vsix)) {
  console.error(`demo: no VSIX at ${vsix}`);
  process.exit(1);
}

// 3. sample workspace
let workspace = option('--workspace');
if (workspace) {
  workspace = path.resolve(workspace);
} else {
  workspace = path.join(root, 'sample-workspace');
  if (pkg.scripts?.sample) {
    step('building the sample workspace (npm run sample)');
    sh(npm, ['run', '--silent', 'sample']);
  } else {
    step('writing a minimal sample workspace (no `npm run sample` script yet)');
    writeMinimalSample(workspace);
  }
}
if (!existsSync(workspace)) {
  console.error(`demo: the sample workspace ${workspace} was not created`);
  process.exit(1);
}

// 4a. desktop VS Code
if (!check && !flag('--server') && onPath('code')) {
  step('opening the sample workspace in VS Code (desktop `code`)');
  sh('code', ['--install-extension', vsix, '--force']);
  sh('code', [workspace]);
  console.log(`\nSimLens is installed; VS Code opened ${path.relative(root, workspace) || workspace}.`);
  process.exit(0);
}

// 4b. local VS Code server
if (!server.serverInstalled()) {
  step('installing the local VS Code server (npm run setup)');
  sh('bash', ['scripts/setup.sh']);
}
const state = path.join(root, '.cache', 'demo');
const extensionsDir = path.join(state, 'extensions');
const userDataDir = path.join(state, 'user-data');
step(`installing ${path.relative(root, vsix)} into the VS Code server`);
server.installExtension({ vsix, extensionsDir, userDataDir });
const installed = readdirSync(extensionsDir).filter((name) => name.toLowerCase().startsWith(`${extensionId}-`));
if (installed.length === 0) {
  console.error(`demo: ${extensionId} is not in ${extensionsDir} after installing`);
  process.exit(1);
}
const settingsFile = path.join(userDataDir, 'User', 'settings.json');
if (!existsSync(settingsFile)) {
  mkdirSync(path.dirname(settingsFile), { recursive: true });
  writeFileSync(
    settingsFile,
    JSON.stringify({ 'workbench.startupEditor': 'none', 'telemetry.telemetryLevel': 'off' }, null, 2),
  );
}

step(`starting the local VS Code server on ${host}${port ? `:${port}` : ''}`);
const running = await server.startServer({
  workspace,
  extensionsDir,
  userDataDir,
  disableWorkspaceTrust: !flag('--restricted'),
  port,
  host,
});
if (check) {
  const status = await server.waitForHttp(running.workspaceUrl, { timeoutMs: 30_000 });
  const page = await fetch(running.workspaceUrl).then((r) => r.text());
  await running.stop();
  if (status !== 200 || !page.includes('workbench')) {
    console.error(`demo: ${running.workspaceUrl} answered ${status} without the workbench page`);
    process.exit(1);
  }
  console.log(
    `\ndemo check passed: ${running.workspaceUrl} answered 200 with the workbench; ${installed.join(', ')} installed.`,
  );
  process.exit(0);
}
// The handlers are in place before the URL is printed: a signal right after it still stops the server.
let stopping = false;
// Ctrl-C, SIGTERM, or the terminal closing (SIGHUP): the server runs in its own process group, so it
// must be stopped here or it would outlive the demo.
const stop = async () => {
  if (stopping) return;
  stopping = true;
  try {
    console.log('\nstopping the VS Code server');
  } catch {
    // the terminal may be gone (SIGHUP)
  }
  await running.stop();
  process.exit(0);
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
process.on('SIGHUP', stop);
// After SIGHUP the terminal is gone: writing to it must not kill the demo before it stops the server.
for (const stream of [process.stdout, process.stderr]) stream.on('error', () => undefined);
const user = process.env.USER || process.env.LOGNAME || 'you';
const machine = (await import('node:os')).hostname();
const loopback = host === '127.0.0.1' || host === 'localhost';
console.log(`\nSimLens is running in VS Code at:\n\n    ${running.workspaceUrl}\n`);
console.log(
  `Open it in a browser on this machine. From another machine (e.g. your laptop, over SSH), forward the port first:\n\n    ssh -N -L ${running.port}:127.0.0.1:${running.port} ${user}@${machine}\n\nthen open the same URL there.`,
);
if (!loopback)
  console.log(
    `\nWarning: the server listens on ${host} WITHOUT a password; anyone who can reach this machine can open your files.`,
  );
console.log('\nCtrl-C stops the server.');

running.child.on('exit', (code) => {
  if (stopping) return;
  console.error(`demo: the VS Code server exited (code ${code})\n${running.output().slice(-4000)}`);
  process.exit(1);
});

/** Why `host:port` cannot be listened on (e.g. "it is in use (EADDRINUSE)"), or undefined when it can. */
async function portProblem(host, port) {
  const net = await import('node:net');
  return new Promise((resolve) => {
    const probe = net.createServer();
    probe.once('error', (err) => {
      const why = {
        EADDRINUSE: 'it is in use',
        EACCES: 'permission denied',
        EADDRNOTAVAIL: 'the address is not on this machine',
      }[err.code];
      resolve(`${why ?? err.message} (${err.code ?? 'error'})`);
    });
    probe.listen(port, host, () => probe.close(() => resolve(undefined)));
  });
}

function writeMinimalSample(dir) {
  mkdirSync(dir, { recursive: true });
  const turn = (user, assistant, items = []) => ({
    user_utterance: user,
    assistant_utterance: assistant,
    recommendations: items.map(([item_id, title]) => ({ item_id, title })),
    ratings: {},
  });
  const conversations = [
    {
      id: 'demo-1',
      task_id: 'winter-jacket',
      source: 'human',
      turns: [
        turn('I need a warm winter jacket under $150.', 'Here are two insulated jackets in your budget.', [
          ['J-100', 'Alpine Down Parka'],
          ['J-200', 'Trail Puffer'],
        ]),
        turn('Does the parka come in navy?', 'Yes, it comes in navy and black.'),
      ],
      ratings: { satisfaction: 4 },
    },
    {
      id: 'demo-2',
      task_id: 'running-shoes',
      source: 'human',
      turns: [
        turn('Show me running shoes.', 'Here are some sandals.', [['S-9', 'Beach Sandal']]),
        turn('Those are not running shoes.', 'Sorry about that.'),
      ],
      ratings: { satisfaction: 1 },
    },
  ];
  writeFileSync(path.join(dir, 'demo.conv.jsonl'), conversations.map((c) => JSON.stringify(c)).join('\n') + '\n');
}
