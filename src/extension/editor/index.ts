/**
 * Registers the conversation editor: the custom editor provider, "SimLens: Open Conversations…",
 * "SimLens: Go to Conversation…", and the deep-link URI handler
 * `vscode://simlens.simlens/open?file=<path>&id=<conversation id>&turn=<1-based turn>`.
 */
import * as vscode from 'vscode';
import { notify } from '../safeOutput';
import { existsSync, statSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { ConversationEditorProvider, EditorRegistry, VIEW_TYPE, VIEW_TYPE_ANY_JSONL } from './provider';

const OPEN_COMMAND = 'simlens.openConversations';
const GO_TO_COMMAND = 'simlens.goToConversation';

/** Wires the editor into the extension; returns the provider (tests reach documents through it). */
export function registerConversationEditor(
  context: vscode.ExtensionContext,
  log: vscode.LogOutputChannel,
): ConversationEditorProvider {
  const registry = new EditorRegistry();
  const provider = new ConversationEditorProvider(context, log, registry);
  const anyJsonl = new ConversationEditorProvider(context, log, registry, VIEW_TYPE_ANY_JSONL);
  // Several editors per file (Split Editor, two groups): each panel has its own session and view;
  // they share one document, so an annotation made in one shows in the others.
  const options = { webviewOptions: { retainContextWhenHidden: false }, supportsMultipleEditorsPerDocument: true };
  context.subscriptions.push(
    vscode.window.registerCustomEditorProvider(VIEW_TYPE, provider, options),
    vscode.window.registerCustomEditorProvider(VIEW_TYPE_ANY_JSONL, anyJsonl, options),
    vscode.commands.registerCommand(OPEN_COMMAND, async (uri?: vscode.Uri) => {
      let target = uri instanceof vscode.Uri ? uri : undefined;
      if (!target) {
        const picked = await vscode.window.showOpenDialog({
          canSelectMany: false,
          openLabel: 'Open Conversations',
          filters: { 'Conversation JSONL': ['jsonl'], 'All files': ['*'] },
        });
        target = picked?.[0];
      }
      if (target) await vscode.commands.executeCommand('vscode.openWith', target, VIEW_TYPE);
    }),
    vscode.commands.registerCommand(
      GO_TO_COMMAND,
      async (arg?: { file?: string | vscode.Uri; id?: string; line?: number; turn?: number }) => {
        // Other views (metrics panels, run results) call this with a file and an id.
        if (arg?.file !== undefined) {
          const uri = typeof arg.file === 'string' ? vscode.Uri.file(arg.file) : arg.file;
          await provider.reveal(uri, { id: arg.id, line: arg.line, turn: arg.turn });
          await vscode.commands.executeCommand('vscode.openWith', uri, VIEW_TYPE);
          return;
        }
        const doc = provider.activeDocument();
        if (!doc) {
          void notify.info('Open a conversation file in the SimLens editor first ("SimLens: Open Conversations…").');
          return;
        }
        if (arg && (arg.id !== undefined || arg.line !== undefined)) {
          await provider.reveal(doc.uri, arg);
          return;
        }
        await doc.ready;
        const line = await pickConversation(doc.model.summaries, () => doc.ensureSummaries());
        if (line !== undefined) await provider.reveal(doc.uri, { line });
      },
    ),
    vscode.window.registerUriHandler({
      handleUri: async (uri: vscode.Uri) => {
        try {
          await handleDeepLink(uri, provider);
        } catch (e) {
          void notify.error(`SimLens link ${uri.toString(true)}: ${(e as Error).message}`);
        }
      },
    }),
  );
  if (process.env.SIMLENS_INTEGRATION_RESULT) registerEditorTestHook(context, registry);
  return provider;
}

/** Test-only command id (registered only when SIMLENS_INTEGRATION_RESULT is set, like testHooks.ts). */
const EDITOR_TEST_COMMAND = 'simlens.test.conversationEditor';

/**
 * Lets the in-host integration suite drive an open conversation editor the way its webview does
 * (an annotate message goes through the same ConversationDocument.annotate) and read its state,
 * so VS Code's own undo / redo / save / revert / dirty handling can be tested for real.
 */
function registerEditorTestHook(context: vscode.ExtensionContext, registry: EditorRegistry): void {
  context.subscriptions.push(
    vscode.commands.registerCommand(
      EDITOR_TEST_COMMAND,
      async (action: string, uri: vscode.Uri, arg?: Record<string, unknown>) => {
        const doc = registry.documents.get(uri.toString());
        if (!doc) throw new Error(`no conversation editor open for ${uri.toString()}`);
        await doc.ready;
        if (action === 'state') {
          return {
            dirty: doc.dirty,
            lineCount: doc.model.lineCount,
            journal: doc.model.journal.position,
            summarized: doc.model.summaries.summarized,
            hasSession: registry.sessions.has(uri.toString()),
          };
        }
        if (action === 'annotate') {
          const a = arg as {
            line: number;
            turn: number;
            speaker: 'user' | 'assistant';
            acts: string[];
            note?: string;
            annotator?: string;
          };
          const edit = await doc.annotate({ ...a, annotator: a.annotator ?? 'integration' });
          return edit?.seq;
        }
        if (action === 'read') {
          const read = await doc.model.readConversation((arg as { line: number }).line);
          return read.conversation ?? read.error;
        }
        if (action === 'diskCheck') {
          await doc.onDiskChange();
          return doc.model.lineCount;
        }
        throw new Error(`unknown action ${action}`);
      },
    ),
  );
}

/** Quick pick over conversation ids, filled as the user types (never all 40,000 at once). */
async function pickConversation(
  summaries: {
    searchIds(q: string, limit?: number): number[];
    summary(i: number): { id: string; task?: string; condition?: string; turns: number; snippet: string };
  },
  summarizeAll: () => Promise<void>,
): Promise<number | undefined> {
  await summarizeAll();
  const qp = vscode.window.createQuickPick<vscode.QuickPickItem & { line: number }>();
  qp.placeholder = 'Conversation id (prefix or part of it)';
  qp.matchOnDescription = true;
  const update = (value: string) => {
    qp.items = summaries.searchIds(value, 200).map((line) => {
      const s = summaries.summary(line);
      return {
        label: s.id,
        description: `line ${line + 1} · ${[s.task, s.condition].filter(Boolean).join(' · ')} · ${s.turns} turns`,
        detail: s.snippet,
        line,
      };
    });
  };
  update('');
  qp.onDidChangeValue(update);
  return new Promise((resolve) => {
    qp.onDidAccept(() => {
      // Items are replaced as the user types; fall back to the highlighted item, then to an exact id.
      const exact = summaries.searchIds(qp.value, 1)[0];
      const picked = qp.selectedItems[0] ?? qp.activeItems[0];
      resolve(picked?.line ?? (exact !== undefined && summaries.summary(exact).id === qp.value ? exact : undefined));
      qp.hide();
    });
    qp.onDidHide(() => {
      resolve(undefined);
      qp.dispose();
    });
    qp.show();
  });
}

/** `/open?file=&id=&turn=&line=`: opens the file in the editor and goes to the conversation. */
async function handleDeepLink(uri: vscode.Uri, provider: ConversationEditorProvider): Promise<void> {
  if (uri.path !== '/open') throw new Error(`unknown path ${uri.path} (expected /open)`);
  const params = new URLSearchParams(uri.query);
  const file = params.get('file');
  if (!file) throw new Error('missing "file" parameter');
  if (!isAbsolute(file)) throw new Error(`"file" must be an absolute path, got ${file}`);
  if (!/\.jsonl$/i.test(file)) throw new Error(`only .jsonl files can be opened, got ${file}`);
  if (!existsSync(file) || !statSync(file).isFile()) throw new Error(`${file} does not exist`);
  const id = params.get('id') ?? undefined;
  const lineParam = params.get('line');
  const turnParam = params.get('turn');
  const line = lineParam ? Number(lineParam) - 1 : undefined;
  const turn = turnParam ? Number(turnParam) - 1 : undefined;
  if (line !== undefined && !(Number.isInteger(line) && line >= 0))
    throw new Error(`"line" must be a positive integer, got ${lineParam}`);
  if (turn !== undefined && !(Number.isInteger(turn) && turn >= 0))
    throw new Error(`"turn" must be a positive integer, got ${turnParam}`);
  const fileUri = vscode.Uri.file(file);
  await provider.reveal(fileUri, { id, line, turn });
  await vscode.commands.executeCommand('vscode.openWith', fileUri, VIEW_TYPE);
}
