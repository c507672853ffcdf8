/**
 * "SimLens: Open Run…": the progress of a sharded (cluster) run from its manifests, in a list that
 * refreshes itself while it is open: the whole run on top (tasks finished, running, failed or
 * missing; conversations; failures per reason), then one line per task. Picking the run's line
 * opens the merged file (once `simlens merge` wrote it); picking a task opens its part. The logic
 * lives in src/core/run/runProgress.ts.
 */
import * as vscode from 'vscode';
import { notify } from './safeOutput';
import * as path from 'node:path';
import {
  describeRun,
  describeTask,
  loadClusterRunProgress,
  runsInFolder,
  type ClusterRunProgress,
} from '../core/run/runProgress';

const OPEN_RUN_COMMAND = 'simlens.openRun';
const REFRESH_MS = 3000;

interface RunItem extends vscode.QuickPickItem {
  open?: vscode.Uri;
}

function items(p: ClusterRunProgress): RunItem[] {
  const mergeHint = `not merged yet: simlens merge ${path.basename(p.out)}`;
  const head: RunItem = {
    label: `$(${p.complete ? 'pass' : 'sync'}) ${p.merged ? `Open ${path.basename(p.merged)}` : path.basename(p.out)}`,
    description: describeRun(p),
    detail: p.merged ? p.merged : mergeHint,
    open: p.merged ? vscode.Uri.file(p.merged) : undefined,
  };
  const icon: Record<string, string> = {
    finished: 'pass',
    running: 'loading~spin',
    missing: 'circle-outline',
    cancelled: 'debug-pause',
    stopped: 'error',
    crashed: 'error',
  };
  return [
    head,
    { label: 'tasks', kind: vscode.QuickPickItemKind.Separator },
    ...p.tasks.map((t) => {
      const d = describeTask(t);
      return {
        label: `$(${t.stale ? 'warning' : (icon[t.status] ?? 'circle-outline')}) ${d.label}`,
        description: d.description,
        detail: d.detail,
        open: t.file ? vscode.Uri.file(t.file) : undefined,
      };
    }),
  ];
}

/** Asks for a merged run file or a folder of parts. */
async function pickTarget(): Promise<string | undefined> {
  const choice = await vscode.window.showQuickPick(
    [
      { label: 'Merged run or part file…', value: 'file' },
      { label: 'Folder of parts…', value: 'folder' },
    ],
    { title: 'SimLens: Open Run', placeHolder: 'What to open' },
  );
  if (!choice) return undefined;
  const picked = await vscode.window.showOpenDialog({
    canSelectFiles: choice.value === 'file',
    canSelectFolders: choice.value === 'folder',
    canSelectMany: false,
    filters: choice.value === 'file' ? { 'SimLens runs': ['jsonl'] } : undefined,
    title:
      choice.value === 'file'
        ? 'A merged run (with its manifest) or one of its parts'
        : 'A folder with the parts of a run',
  });
  return picked?.[0]?.fsPath;
}

/** Shows the run at `target` (file or folder) until the list is closed. */
async function showRun(target: string, output: vscode.LogOutputChannel): Promise<void> {
  // A folder with several runs: pick one.
  try {
    const { statSync } = await import('node:fs');
    if (statSync(target).isDirectory()) {
      const runs = runsInFolder(target);
      if (runs.length > 1) {
        const run = await vscode.window.showQuickPick(
          runs.map((r) => ({ label: path.basename(r), value: r })),
          { title: 'SimLens: Open Run', placeHolder: 'This folder holds the parts of several runs' },
        );
        if (!run) return;
        target = run.value;
      }
    }
  } catch {
    // loadClusterRunProgress names the problem below.
  }
  const load = () => loadClusterRunProgress(target);
  let progress: ClusterRunProgress;
  try {
    progress = load();
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    output.warn(`open run: ${message}`);
    void notify.error(`SimLens: ${message}`);
    return;
  }
  const pick = vscode.window.createQuickPick<RunItem>();
  pick.title = `SimLens run: ${path.basename(progress.out)} (${progress.taskCount} tasks)`;
  pick.placeholder = 'Pick the run to open the merged file, or a task to open its part';
  pick.matchOnDescription = true;
  pick.items = items(progress);
  const refresh = setInterval(() => {
    try {
      pick.items = items(load());
    } catch (err) {
      output.warn(`open run: refresh failed: ${err instanceof Error ? err.message : String(err)}`);
    }
  }, REFRESH_MS);
  const chosen = await new Promise<RunItem | undefined>((resolve) => {
    pick.onDidAccept(() => resolve(pick.selectedItems[0]));
    pick.onDidHide(() => resolve(undefined));
    pick.show();
  });
  clearInterval(refresh);
  pick.dispose();
  if (chosen?.open) await vscode.commands.executeCommand('vscode.open', chosen.open);
  else if (chosen) void notify.info(`SimLens: ${chosen.detail ?? 'nothing to open yet'}`);
}

/** Registers "SimLens: Open Run…" (from the palette, or the explorer with a file or folder). */
export function registerRuns(context: vscode.ExtensionContext, output: vscode.LogOutputChannel): void {
  context.subscriptions.push(
    vscode.commands.registerCommand(OPEN_RUN_COMMAND, async (uri?: vscode.Uri) => {
      const target = uri instanceof vscode.Uri && uri.scheme === 'file' ? uri.fsPath : await pickTarget();
      if (target) await showRun(target, output);
    }),
  );
}
