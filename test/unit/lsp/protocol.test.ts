/**
 * The language server through the protocol: a real server process (stdio), a fixture workspace
 * on disk, and JSON-RPC requests as VS Code's client sends them.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  createMessageConnection,
  StreamMessageReader,
  StreamMessageWriter,
  type MessageConnection,
} from 'vscode-languageserver/node';

const repo = resolve(__dirname, '../../..');

const conv = (id: string): string =>
  JSON.stringify({
    id,
    task_id: 'outerwear_bad',
    turns: [{ user_utterance: 'a warm coat', assistant_utterance: 'What colour?' }],
  });

describe('language server over stdio', () => {
  let proc: ChildProcess;
  let conn: MessageConnection;
  let dir: string;
  type Published = { uri: string; diagnostics: { message: string; range: { start: { line: number } } }[] };
  const publishWaiters = new Map<string, (p: Published) => void>();
  /** The next diagnostics the server publishes for `uri` (call before the request that causes them). */
  const nextPublished = (uri: string, timeoutMs = 10_000): Promise<Published> =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no diagnostics published for ${uri} within ${timeoutMs} ms`)),
        timeoutMs,
      );
      publishWaiters.set(uri, (p) => {
        clearTimeout(timer);
        resolve(p);
      });
    });
  let fileUri: string;
  let bigUri: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'simlens-lsp-'));
    writeFileSync(join(dir, 'runs.sim.jsonl'), [conv('sim-1'), conv('sim-2')].join('\n') + '\n');
    writeFileSync(join(dir, 'notes.jsonl'), '{"x": 1}\n');
    writeFileSync(join(dir, 'big.conv.jsonl'), [conv('big-1'), '{"turns": "nope"}', conv('big-3')].join('\n') + '\n');
    fileUri = pathToFileURL(join(dir, 'edit.conv.jsonl')).toString();
    bigUri = pathToFileURL(join(dir, 'big.conv.jsonl')).toString();
    proc = spawn(process.execPath, ['--import', 'tsx', join(repo, 'src/server/server.ts'), '--stdio'], {
      cwd: repo,
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    conn = createMessageConnection(new StreamMessageReader(proc.stdout!), new StreamMessageWriter(proc.stdin!));
    conn.onNotification('textDocument/publishDiagnostics', (p: Published) => {
      const waiter = publishWaiters.get(p.uri);
      publishWaiters.delete(p.uri);
      waiter?.(p);
    });
    conn.listen();
    const init = await conn.sendRequest('initialize', {
      processId: process.pid,
      rootUri: pathToFileURL(dir).toString(),
      workspaceFolders: [{ uri: pathToFileURL(dir).toString(), name: 'fixture' }],
      capabilities: {},
    });
    assert.ok((init as { capabilities: { diagnosticProvider?: unknown } }).capabilities.diagnosticProvider);
    await conn.sendNotification('initialized', {});
  });

  after(() => {
    conn?.dispose();
    if (proc?.pid) proc.kill();
    rmSync(dir, { recursive: true, force: true });
  });

  test('pull diagnostics, incremental edit, outline, hover, code actions', async () => {
    await conn.sendNotification('textDocument/didOpen', {
      textDocument: {
        uri: fileUri,
        languageId: 'jsonl',
        version: 1,
        text: [conv('e-1'), '{"id":"e-2","turns":[{"user_utterance": 7}]}', conv('e-3')].join('\n'),
      },
    });
    let report = (await conn.sendRequest('textDocument/diagnostic', { textDocument: { uri: fileUri } })) as {
      kind: string;
      items: { message: string; range: { start: { line: number; character: number } } }[];
    };
    assert.equal(report.kind, 'full');
    assert.equal(report.items.length, 1);
    assert.equal(report.items[0].range.start.line, 1);
    assert.match(report.items[0].message, /turns\[0\]\.user_utterance/);

    // Fix the value with an incremental edit: "7" -> "\"seven\"".
    const line1 = '{"id":"e-2","turns":[{"user_utterance": 7}]}';
    const col = line1.indexOf('7');
    await conn.sendNotification('textDocument/didChange', {
      textDocument: { uri: fileUri, version: 2 },
      contentChanges: [
        { range: { start: { line: 1, character: col }, end: { line: 1, character: col + 1 } }, text: '"seven"' },
      ],
    });
    report = (await conn.sendRequest('textDocument/diagnostic', { textDocument: { uri: fileUri } })) as typeof report;
    assert.equal(report.items.length, 0);

    const symbols = (await conn.sendRequest('textDocument/documentSymbol', { textDocument: { uri: fileUri } })) as {
      name: string;
    }[];
    assert.deepEqual(
      symbols.map((s) => s.name),
      ['e-1', 'e-2', 'e-3'],
    );

    const hover = (await conn.sendRequest('textDocument/hover', {
      textDocument: { uri: fileUri },
      position: { line: 0, character: conv('e-1').indexOf('warm') },
    })) as { contents: { value: string } };
    assert.match(hover.contents.value, /a warm coat/);

    const lenses = (await conn.sendRequest('textDocument/codeLens', { textDocument: { uri: fileUri } })) as unknown[];
    assert.equal(lenses.length, 6);

    await conn.sendNotification('textDocument/didChange', {
      textDocument: { uri: fileUri, version: 3 },
      contentChanges: [
        { range: { start: { line: 3, character: 0 }, end: { line: 3, character: 0 } }, text: '\n{"turns": [],}' },
      ],
    });
    report = (await conn.sendRequest('textDocument/diagnostic', { textDocument: { uri: fileUri } })) as typeof report;
    assert.equal(report.items.length, 1);
    const actions = (await conn.sendRequest('textDocument/codeAction', {
      textDocument: { uri: fileUri },
      range: report.items[0].range,
      context: { diagnostics: report.items },
    })) as { title: string; edit: { changes: Record<string, { newText: string }[]> } }[];
    assert.equal(actions[0].title, 'Remove trailing commas');
    assert.equal(actions[0].edit.changes[fileUri][0].newText, '{"turns": []}');
  });

  test('a JSONL file that is not conversations gets no diagnostics', async () => {
    const uri = pathToFileURL(join(dir, 'notes.jsonl')).toString();
    await conn.sendNotification('textDocument/didOpen', {
      textDocument: { uri, languageId: 'jsonl', version: 1, text: '{"x": 1}\n{"y": 2}' },
    });
    const report = (await conn.sendRequest('textDocument/diagnostic', { textDocument: { uri } })) as {
      items: unknown[];
    };
    assert.equal(report.items.length, 0);
  });

  test('files not synced are validated from disk and published', async () => {
    const progress: unknown[] = [];
    conn.onNotification('simlens/validationProgress', (p) => progress.push(p));
    const pubbed = nextPublished(bigUri);
    const result = (await conn.sendRequest('simlens/validateFromDisk', { uri: bigUri })) as {
      lines: number;
      conversations: number;
      errors: number;
    };
    assert.deepEqual(
      { lines: result.lines, conversations: result.conversations, errors: result.errors },
      { lines: 3, conversations: 2, errors: 1 },
    );
    const pub = await pubbed;
    assert.equal(pub.diagnostics.length, 1);
    assert.equal(pub.diagnostics[0].range.start.line, 1);
  });

  test('workspace symbols find conversation ids in files and open documents', async () => {
    const hits = (await conn.sendRequest('workspace/symbol', { query: 'sim-' })) as {
      name: string;
      location: { uri: string; range: { start: { line: number } } };
    }[];
    assert.deepEqual(hits.map((h) => h.name).sort(), ['sim-1', 'sim-2']);
    assert.equal(hits.find((h) => h.name === 'sim-2')!.location.range.start.line, 1);
    const open = (await conn.sendRequest('workspace/symbol', { query: 'E-2' })) as { name: string }[];
    assert.deepEqual(
      open.map((h) => h.name),
      ['e-2'],
    );
  });
});
