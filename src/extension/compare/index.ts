/**
 * "SimLens: Compare Runs…" (simlens.compareRuns): the diff of two runs, conversation by
 * conversation, in a webview. The host computes the report with the same core function as
 * `simlens diff` (src/core/diff) and reads a pair's two conversations from disk when the webview
 * asks for one; the webview only filters and draws.
 *
 * The command takes `{ a, b, pairing? }` (paths, relative to the first workspace folder) from
 * scripts and tests, or asks for the two files with quick picks.
 */
import * as vscode from 'vscode';
import { isAbsolute, resolve } from 'node:path';
import { turnDifferences, PAIRING_MODES, type DiffReport, type PairingMode } from '../../core/diff';
import { diffRunsInWorker } from '../../core/worker/worker';
import { JsonlFile } from '../../core/jsonl';
import { COMPARE_VIEW_TYPE, parseCompareMessage, type HostToCompare } from '../../shared/compareProtocol';
import { webviewHtml, webviewResourceRoots } from '../webviewHtml';
import { notify } from '../safeOutput';
import { pickFiles } from '../panels/pickers';

const COMPARE_COMMAND = 'simlens.compareRuns';

function cwd(): string {
  return vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? process.cwd();
}

interface CompareArgs {
  a: string;
  b: string;
  pairing?: PairingMode | 'auto';
}

function parseArgs(arg: unknown): CompareArgs | undefined | Error {
  if (arg === undefined || arg === null || arg instanceof vscode.Uri) return undefined;
  const o = arg as Record<string, unknown>;
  if (typeof o.a !== 'string' || typeof o.b !== 'string')
    return new Error('simlens.compareRuns expects { a: FILE, b: FILE, pairing? }');
  if (o.pairing !== undefined && !PAIRING_MODES.includes(o.pairing as PairingMode))
    return new Error(`pairing must be one of ${PAIRING_MODES.join(', ')}`);
  return { a: o.a, b: o.b, ...(o.pairing ? { pairing: o.pairing as PairingMode } : {}) };
}

class ComparePanel {
  static readonly all = new Set<ComparePanel>();
  private ready = false;
  private report: DiffReport | undefined;
  private busy: { message: string; fraction?: number } | undefined;
  private error: string | undefined;
  private selected: number | undefined;
  private readonly controller = new AbortController();
  private readonly disposables: vscode.Disposable[] = [];
  /** Resolves when the diff is computed (or failed). */
  readonly computed: Promise<void>;

  private constructor(
    private readonly panel: vscode.WebviewPanel,
    private readonly log: vscode.LogOutputChannel,
    private readonly args: CompareArgs,
    private readonly workerFile: string,
  ) {
    ComparePanel.all.add(this);
    this.disposables.push(
      panel.webview.onDidReceiveMessage((m: unknown) => void this.onMessage(m)),
      panel.onDidChangeViewState(() => {
        if (!panel.visible) this.ready = false;
      }),
      panel.onDidDispose(() => this.dispose()),
    );
    this.computed = this.compute();
  }

  static open(extensionUri: vscode.Uri, log: vscode.LogOutputChannel, args: CompareArgs): ComparePanel {
    const name = (p: string) => p.replace(/^.*[\\/]/, '');
    const panel = vscode.window.createWebviewPanel(
      COMPARE_VIEW_TYPE,
      `SimLens: Compare ${name(args.a)} ↔ ${name(args.b)}`,
      vscode.ViewColumn.Active,
      {
        enableScripts: true,
        localResourceRoots: webviewResourceRoots(extensionUri),
        retainContextWhenHidden: false,
      },
    );
    panel.webview.html = webviewHtml(panel.webview, extensionUri, {
      css: 'compare.css',
      script: 'compare.js',
      title: 'SimLens: Compare Runs',
      body: '<div id="app" aria-busy="true"></div>',
    });
    return new ComparePanel(panel, log, args, vscode.Uri.joinPath(extensionUri, 'dist', 'reportWorker.js').fsPath);
  }

  get currentReport(): DiffReport | undefined {
    return this.report;
  }

  private path(p: string): string {
    return isAbsolute(p) ? p : resolve(cwd(), p);
  }

  private send(m: HostToCompare): void {
    if (this.ready) void this.panel.webview.postMessage(m);
  }

  private async compute(): Promise<void> {
    this.busy = { message: 'Pairing conversations…', fraction: 0 };
    this.send({ type: 'busy', ...this.busy });
    try {
      await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: 'SimLens: Compare Runs', cancellable: true },
        async (progress, token) => {
          token.onCancellationRequested(() => this.controller.abort());
          let last = 0;
          // In the report worker thread: the same diffRuns as `simlens diff`, off the extension host.
          const report = await diffRunsInWorker(
            this.path(this.args.a),
            this.path(this.args.b),
            { pairing: this.args.pairing ?? 'auto' },
            {
              cwd: cwd(),
              signal: this.controller.signal,
              progress: (message, fraction) => {
                const f = fraction ?? last;
                if (f - last < 0.01 && f < 1) return;
                progress.report({ message, increment: Math.max(0, (f - last) * 100) });
                last = f;
                this.busy = { message: `${message}…`, fraction: f };
                this.send({ type: 'busy', ...this.busy });
              },
            },
            { file: this.workerFile },
          );
          report.a.file = vscode.workspace.asRelativePath(report.a.file);
          report.b.file = vscode.workspace.asRelativePath(report.b.file);
          this.report = report;
        },
      );
      this.busy = undefined;
      this.log.info(
        `compare runs: ${this.report!.aggregate.pairs} pairs, ${this.report!.aggregate.diverged} diverged, ` +
          `${this.report!.aggregate.outcomeChanged} outcomes changed`,
      );
      this.send({ type: 'report', report: this.report! });
    } catch (e) {
      this.busy = undefined;
      this.error = (e as Error).message;
      this.log.error(`compare runs: ${this.error}`);
      this.send({ type: 'error', message: this.error });
      void notify.error(`SimLens: Compare Runs: ${this.error}`);
    }
  }

  /** Sends pair `index` with both conversations (read from disk now) and their per-turn differences. */
  async selectPair(index: number): Promise<void> {
    const p = this.report?.pairs[index];
    if (!p) throw new Error(`no pair ${index}`);
    this.selected = index;
    const read = async (file: string, line: number) => {
      const f = await JsonlFile.open(this.path(file));
      try {
        const parsed = await f.parseLine(line - 1);
        if (parsed.kind !== 'valid')
          throw new Error(`${file}:${line} is no longer a valid conversation (the file changed?)`);
        return parsed.conversation;
      } finally {
        await f.close();
      }
    };
    const [a, b] = await Promise.all([read(this.args.a, p.lineA), read(this.args.b, p.lineB)]);
    this.send({ type: 'pair', index, a, b, turns: turnDifferences(a, b) });
  }

  private async onMessage(raw: unknown): Promise<void> {
    const parsed = parseCompareMessage(raw);
    if (!parsed.ok) {
      this.log.warn(parsed.error);
      return;
    }
    const m = parsed.message;
    try {
      switch (m.type) {
        case 'ready':
          this.ready = true;
          if (this.report) this.send({ type: 'report', report: this.report });
          if (this.busy) this.send({ type: 'busy', ...this.busy });
          else if (this.error) this.send({ type: 'error', message: this.error });
          if (this.selected !== undefined) await this.selectPair(this.selected);
          break;
        case 'selectPair':
          await this.selectPair(m.index);
          break;
        case 'openConversation': {
          const p = this.report?.pairs[m.index];
          if (!p) throw new Error(`no pair ${m.index}`);
          const file = this.path(m.side === 'A' ? this.args.a : this.args.b);
          const turn = p.turn;
          await vscode.commands.executeCommand('simlens.goToConversation', {
            file,
            id: m.side === 'A' ? p.idA : p.idB,
            ...(turn !== undefined ? { turn } : {}),
          });
          break;
        }
        case 'log':
          this.log[m.level](`compare panel webview: ${m.message}`);
          break;
      }
    } catch (e) {
      this.log.error(`compare panel: ${(e as Error).message}`);
      void notify.error(`SimLens: ${(e as Error).message}`);
    }
  }

  dispose(): void {
    this.controller.abort();
    ComparePanel.all.delete(this);
    for (const d of this.disposables.splice(0)) d.dispose();
  }
}

/** Registers simlens.compareRuns. */
export function registerCompareRuns(context: vscode.ExtensionContext, log: vscode.LogOutputChannel): void {
  context.subscriptions.push(
    vscode.commands.registerCommand(COMPARE_COMMAND, async (arg?: unknown) => {
      const parsed = parseArgs(arg);
      if (parsed instanceof Error) {
        void notify.error(`SimLens: ${parsed.message}`);
        return undefined;
      }
      let args = parsed;
      if (!args) {
        const a = (await pickFiles('Compare Runs: run A (before the change)'))?.[0];
        if (!a) return undefined;
        const b = (await pickFiles('Compare Runs: run B (after the change)', { exclude: [a.fsPath] }))?.[0];
        if (!b) return undefined;
        args = { a: a.fsPath, b: b.fsPath };
      }
      const panel = ComparePanel.open(context.extensionUri, log, args);
      await panel.computed;
      return undefined;
    }),
  );
}
