/**
 * The SimLens language server: diagnostics, outline, hovers, code lenses, quick fixes and
 * workspace symbols for conversation JSONL. Thin: every feature is computed by src/core/lsp.
 *
 * Documents are kept as line arrays with incremental sync (see LineDocument), so a one-line edit
 * re-validates one line. Files too large for VS Code to sync (over 50 MB) are validated from
 * disk on request (`simlens/validateFromDisk`), streaming, with progress notifications.
 */
import {
  createConnection,
  DocumentDiagnosticReportKind,
  ProposedFeatures,
  TextDocumentSyncKind,
  type Connection,
  type InitializeResult,
  type WorkspaceFolder,
  type DocumentSymbol as LspDocumentSymbol,
} from 'vscode-languageserver/node';
import { fileURLToPath } from 'node:url';
import { DocumentAnalysis, DIAGNOSTIC_SOURCE, type Diagnostic } from '../core/lsp/analysis';
import { LineDocument } from '../core/lsp/lineDocument';
import { WorkspaceIdIndex } from '../core/lsp/workspaceIds';
import { validateFile } from '../core/jsonl';

/** Always treated as conversations, whatever the first line holds. */
const CONVERSATION_FILE = /\.(conv|sim)\.jsonl$/i;
/** At most this many diagnostics are published for one file read from disk. */
const MAX_DISK_DIAGNOSTICS = 5000;

interface OpenDocument {
  doc: LineDocument;
  analysis: DocumentAnalysis;
}

/** The quick fixes for the diagnostics of the request, grouped by line (the cursor's line when none are ours). */
function codeActions(
  entry: OpenDocument,
  uri: string,
  cursorLine: number,
  diagnostics: readonly { source?: string; range: { start: { line: number } } }[],
) {
  const ours = diagnostics.filter((d) => d.source === DIAGNOSTIC_SOURCE) as unknown as Diagnostic[];
  const byLine = new Map<number, Diagnostic[]>();
  for (const d of ours) {
    const list = byLine.get(d.range.start.line) ?? [];
    list.push(d);
    byLine.set(d.range.start.line, list);
  }
  if (byLine.size === 0) byLine.set(cursorLine, []);
  const actions = [];
  for (const [line, diags] of byLine) {
    for (const fix of entry.analysis.quickFixes(line, diags)) {
      actions.push({
        title: fix.title,
        kind: fix.kind,
        isPreferred: fix.isPreferred,
        diagnostics: fix.diagnostics as unknown as import('vscode-languageserver/node').Diagnostic[],
        edit: fix.edit ? { changes: { [uri]: [fix.edit] } } : undefined,
        command: fix.command,
      });
    }
  }
  return actions;
}

/**
 * Validates a file from disk (for files VS Code does not sync), streaming with progress
 * notifications, and publishes its diagnostics (at most MAX_DISK_DIAGNOSTICS, then a count of the
 * rest). A new request for the same file aborts the previous one.
 */
async function validateFromDisk(connection: Connection, diskRuns: Map<string, AbortController>, uri: string) {
  diskRuns.get(uri)?.abort();
  const controller = new AbortController();
  diskRuns.set(uri, controller);
  const path = fileURLToPath(uri);
  let lastSent = 0;
  try {
    const report = await validateFile(path, {
      signal: controller.signal,
      onProgress: (done: number, total: number) => {
        const now = Date.now();
        if (now - lastSent > 200) {
          lastSent = now;
          void connection.sendNotification('simlens/validationProgress', { uri, done, total });
        }
      },
    });
    const diagnostics = report.errors.slice(0, MAX_DISK_DIAGNOSTICS).map((e) => ({
      range: { start: { line: e.line - 1, character: e.column - 1 }, end: { line: e.line - 1, character: e.column } },
      severity: e.severity === 'warning' ? 2 : 1,
      message: e.message,
      source: DIAGNOSTIC_SOURCE,
    }));
    if (report.errors.length > MAX_DISK_DIAGNOSTICS) {
      diagnostics.push({
        range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } },
        severity: 2,
        message: `${report.errors.length - MAX_DISK_DIAGNOSTICS} more problems not shown; run \`simlens validate\` for the full list.`,
        source: DIAGNOSTIC_SOURCE,
      });
    }
    await connection.sendDiagnostics({
      uri,
      diagnostics: diagnostics as import('vscode-languageserver/node').Diagnostic[],
    });
    const errors = report.errors.filter((e) => e.severity !== 'warning').length;
    return {
      lines: report.lines,
      conversations: report.conversations,
      errors,
      warnings: report.errors.length - errors,
    };
  } finally {
    if (diskRuns.get(uri) === controller) diskRuns.delete(uri);
  }
}

export function startServer(connection: Connection): void {
  const documents = new Map<string, OpenDocument>();
  let workspaceFolders: WorkspaceFolder[] = [];
  const workspaceIds = new WorkspaceIdIndex();
  const diskRuns = new Map<string, AbortController>();

  const isConversationDoc = (entry: OpenDocument): boolean =>
    CONVERSATION_FILE.test(entry.doc.uri) || entry.analysis.looksLikeConversations();

  connection.onInitialize((params): InitializeResult => {
    workspaceFolders = params.workspaceFolders ?? [];
    return {
      capabilities: {
        textDocumentSync: { openClose: true, change: TextDocumentSyncKind.Incremental },
        diagnosticProvider: { interFileDependencies: false, workspaceDiagnostics: false },
        documentSymbolProvider: true,
        hoverProvider: true,
        codeLensProvider: { resolveProvider: false },
        codeActionProvider: { codeActionKinds: ['quickfix'] },
        workspaceSymbolProvider: true,
      },
      serverInfo: { name: 'simlens-language-server' },
    };
  });

  connection.onDidOpenTextDocument(({ textDocument }) => {
    const doc = new LineDocument(textDocument.uri, textDocument.version, textDocument.text);
    documents.set(textDocument.uri, { doc, analysis: new DocumentAnalysis(doc) });
  });

  connection.onDidChangeTextDocument(({ textDocument, contentChanges }) => {
    const entry = documents.get(textDocument.uri);
    if (!entry) return;
    for (const change of contentChanges) {
      const edit = entry.doc.apply(change as { range?: LineDocumentRange; text: string });
      entry.analysis.update(edit);
    }
    entry.doc.version = textDocument.version;
  });

  connection.onDidCloseTextDocument(({ textDocument }) => {
    documents.delete(textDocument.uri);
  });

  connection.languages.diagnostics.on((params) => {
    const entry = documents.get(params.textDocument.uri);
    if (!entry || !isConversationDoc(entry)) return { kind: DocumentDiagnosticReportKind.Full, items: [] };
    const items = entry.analysis.diagnostics();
    return {
      kind: DocumentDiagnosticReportKind.Full,
      items: items as unknown as import('vscode-languageserver/node').Diagnostic[],
    };
  });

  connection.onDocumentSymbol(({ textDocument }) => {
    const entry = documents.get(textDocument.uri);
    if (!entry || !isConversationDoc(entry)) return [];
    return entry.analysis.symbols() as unknown as LspDocumentSymbol[];
  });

  connection.onHover(({ textDocument, position }) => {
    const entry = documents.get(textDocument.uri);
    if (!entry || !isConversationDoc(entry)) return null;
    const h = entry.analysis.hover(position);
    return h ? { contents: { kind: 'markdown', value: h.contents }, range: h.range } : null;
  });

  connection.onCodeLens(({ textDocument }) => {
    const entry = documents.get(textDocument.uri);
    if (!entry || !isConversationDoc(entry)) return [];
    return entry.analysis.codeLenses();
  });

  connection.onCodeAction(({ textDocument, range, context }) => {
    const entry = documents.get(textDocument.uri);
    if (!entry) return [];
    return codeActions(entry, textDocument.uri, range.start.line, context.diagnostics);
  });

  connection.onWorkspaceSymbol(async ({ query }) => {
    const roots = workspaceFolders.map((f) => fileURLToPath(f.uri));
    const open = new Map<string, { id: string; line: number }[]>();
    for (const [uri, entry] of documents) {
      if (!isConversationDoc(entry)) continue;
      const ids: { id: string; line: number }[] = [];
      for (const s of entry.analysis.symbols()) ids.push({ id: s.name, line: s.range.start.line });
      open.set(uri, ids);
    }
    const hits = await workspaceIds.search(roots, query, open);
    return hits.map((h) => ({
      name: h.id,
      kind: 19,
      location: { uri: h.uri, range: { start: { line: h.line, character: 0 }, end: { line: h.line, character: 0 } } },
      containerName: h.file,
    }));
  });

  /** Validates a file from disk (for files VS Code does not sync) and publishes its diagnostics. */
  connection.onRequest('simlens/validateFromDisk', async (params: { uri: string }) => {
    return validateFromDisk(connection, diskRuns, params.uri);
  });

  connection.onRequest('simlens/cancelValidateFromDisk', (params: { uri: string }) => {
    diskRuns.get(params.uri)?.abort();
  });

  connection.listen();
}

type LineDocumentRange = { start: { line: number; character: number }; end: { line: number; character: number } };

// Started as its own process by the extension (node IPC) or by tests (stdio).
if (require.main === module) {
  startServer(createConnection(ProposedFeatures.all));
}
