/**
 * "SimLens: Fork from Here…": simulate K continuations of a recorded conversation from one of its
 * turns (`forkConversation` in src/core/run) and open them beside the original in the SimLens
 * editor. The conversation editor calls the command with `{ file, id, turn }` from its replay
 * toolbar; from the palette it asks for whatever is missing. Disabled in untrusted workspaces,
 * like every command that runs a simulator.
 */
import * as vscode from 'vscode';
import { notify } from './safeOutput';
import { basename, dirname, join } from 'node:path';
import { forkConversation } from '../core/run/fork';
import { writeFileAtomic } from '../core/atomicFile';
import { simulatorCwd, simulatorUserSpec } from '../core/sim/users/external/settings';
import { registeredSimulators } from './simulation';

const FORK_COMMAND = 'simlens.forkFromHere';
const EDITOR_VIEW_TYPE = 'simlens.conversations';

interface ForkRequest {
  /** Path (or URI) of the conversation file. */
  file?: string | vscode.Uri;
  /** Conversation id. */
  id?: string;
  /** 0-based turn to continue after. */
  turn?: number;
  /** Number of continuations. */
  n?: number;
}

/** The file of the active SimLens editor tab (or text editor), if any. */
function activeConversationFile(): vscode.Uri | undefined {
  const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
  if (input instanceof vscode.TabInputCustom || input instanceof vscode.TabInputText) {
    if (input.uri.path.endsWith('.jsonl')) return input.uri;
  }
  return undefined;
}

function wholeNumber(min: number) {
  return (text: string): string | undefined =>
    /^\s*\d+\s*$/.test(text) && Number(text) >= min ? undefined : `Enter a whole number ≥ ${min}`;
}

/** Where a fork's continuations are written: beside the file, named after the conversation and turn. */
function forkOutputPath(file: string, id: string, turn: number): string {
  const stem = basename(file).replace(/(\.conv|\.sim)?\.jsonl$/i, '');
  const safeId = id.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 60);
  return join(dirname(file), `${stem}.fork-${safeId}-t${turn + 1}.sim.jsonl`);
}

export function registerFork(context: vscode.ExtensionContext, output: vscode.LogOutputChannel): void {
  context.subscriptions.push(
    vscode.commands.registerCommand(FORK_COMMAND, async (request: ForkRequest = {}) => {
      if (!vscode.workspace.isTrusted) {
        void notify.warning('SimLens runs simulators only in trusted workspaces (Restricted Mode is on).');
        return;
      }
      const fileUri =
        typeof request.file === 'string' ? vscode.Uri.file(request.file) : (request.file ?? activeConversationFile());
      if (!fileUri) {
        void notify.info('Open a conversation file in the SimLens editor first, then fork from a turn.');
        return;
      }
      const id =
        request.id ??
        (await vscode.window.showInputBox({
          title: 'Fork from here: conversation id',
          prompt: `A conversation in ${basename(fileUri.fsPath)}`,
          ignoreFocusOut: true,
        }));
      if (!id) return;
      let turn = request.turn;
      if (turn === undefined) {
        const text = await vscode.window.showInputBox({
          title: 'Fork from here: continue after turn (1-based)',
          value: '1',
          validateInput: wholeNumber(1),
          ignoreFocusOut: true,
        });
        if (!text) return;
        turn = Number(text) - 1;
      }
      let n = request.n;
      if (n === undefined) {
        const text = await vscode.window.showInputBox({
          title: 'Fork from here: number of continuations',
          value: '5',
          validateInput: wholeNumber(1),
          ignoreFocusOut: true,
        });
        if (!text) return;
        n = Number(text);
      }
      const out = forkOutputPath(fileUri.fsPath, id, turn);
      try {
        const result = await vscode.window.withProgress(
          {
            location: vscode.ProgressLocation.Notification,
            title: `SimLens: forking "${id}" after turn ${turn + 1} (${n} continuations)`,
          },
          () =>
            forkConversation({
              file: fileUri.fsPath,
              id,
              turn: turn!,
              n: n!,
              cwd: dirname(fileUri.fsPath),
              // An external simulator starts as Run Simulation starts it: its simlens.simulators entry, else in the workspace folder.
              simulator: (user) => {
                const workspace = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? dirname(fileUri.fsPath);
                const s = registeredSimulators(output).find((r) => simulatorUserSpec(r) === user);
                return {
                  cwd: s ? simulatorCwd(s, workspace) : workspace,
                  env: s?.env,
                  onStderr: (line) => output.info(`[simulator] ${line}`),
                };
              },
            }),
        );
        // The original first, then its continuations, so the fork file reads as "what happened, what else could have".
        const lines = [result.original, ...result.conversations].map((c) => JSON.stringify(c)).join('\n') + '\n';
        await writeFileAtomic(out, lines);
        output.info(
          `Fork of ${fileUri.fsPath} "${id}" after turn ${turn + 1}: ${result.conversations.length} continuations ` +
            `(${[...new Set(result.methods)].join(', ')}), ${result.failed} failed -> ${out}`,
        );
        await vscode.commands.executeCommand(
          'vscode.openWith',
          vscode.Uri.file(out),
          EDITOR_VIEW_TYPE,
          vscode.ViewColumn.Beside,
        );
      } catch (err) {
        void notify.error(`SimLens could not fork "${id}" in ${basename(fileUri.fsPath)}: ${(err as Error).message}`);
      }
    }),
  );
}
