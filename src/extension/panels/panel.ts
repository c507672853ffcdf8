/**
 * One metric panel: a webview that shows a report computed from a report spec in a worker thread
 * (src/core/worker/worker.ts), off the extension host's event loop. The host owns the spec and the
 * report; the webview renders and asks for exports.
 *
 * - Computation runs here with a cancellable progress notification (and a status line in the
 *   panel); a new computation cancels the previous one.
 * - retainContextWhenHidden is off: when the webview comes back it says "ready" and the host sends
 *   the current state again, so nothing is lost while it is hidden.
 * - After a window reload the serializer (index.ts) revives the panel from the webview state:
 *   a valid saved report is shown as is ("restored"); otherwise the spec is recomputed.
 */
import * as vscode from 'vscode';
import { notify } from '../safeOutput';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { CancelledError, type ComputeContext } from '../../core/report/compute';
import { computeReportInWorker, runFidelityInWorker } from '../../core/worker/worker';
import { fidelityNeedsLlm } from '../../core/report/fidelity';
import { createLlmServicesFromWorkspace } from '../llm';
import type { ChartSection, Report, TableSection } from '../../core/report/model';
import { slug } from '../../core/report/format';
import type { ReportSpec } from '../../core/report/specs';
import { renderMarkdown } from '../../core/report/render/markdown';
import { chartToTable, tableToCsv, tableToJson } from '../../core/report/render/tables';
import {
  PANEL_VIEW_TYPE,
  parsePanelMessage,
  pngBytes,
  type HostToPanel,
  type PanelToHost,
} from '../../shared/panelProtocol';
import { panelHtml, panelResourceRoots } from './html';

export interface PanelDeps {
  extensionUri: vscode.Uri;
  log: vscode.LogOutputChannel;
  /** Working folder for relative paths in specs (the first workspace folder). */
  cwd(): string;
}

const KIND_TITLE: Record<ReportSpec['kind'], string> = {
  plsa: 'Compare Populations',
  'human-likeness': 'Human-Likeness',
  counterfactual: 'Counterfactual Validation',
  simulation: 'Simulation Metrics',
  fidelity: 'Simulator Fidelity',
  invariants: 'Behavioural Invariants',
};

/** Whether a spec may be computed here (simulations need a trusted workspace). */
function canCompute(spec: ReportSpec | null): boolean {
  if (!spec) return false;
  return spec.kind !== 'fidelity' || vscode.workspace.isTrusted;
}

export class MetricPanel {
  /** Open panels (tests and the E2E reach them through `MetricPanel.all`). */
  static readonly all = new Set<MetricPanel>();

  private ready = false;
  private report: Report | undefined;
  private restored = false;
  private busy: { message: string; fraction?: number } | undefined;
  private lastError: { message: string; cancelled?: boolean } | undefined;
  private running: AbortController | undefined;
  private readonly disposables: vscode.Disposable[] = [];

  private constructor(
    private readonly panel: vscode.WebviewPanel,
    private readonly deps: PanelDeps,
    private spec: ReportSpec | null,
    private outDir: string | undefined,
  ) {
    MetricPanel.all.add(this);
    panel.webview.options = { enableScripts: true, localResourceRoots: panelResourceRoots(deps.extensionUri) };
    panel.webview.html = panelHtml(panel.webview, deps.extensionUri);
    this.disposables.push(
      panel.webview.onDidReceiveMessage((m: unknown) => void this.onMessage(m)),
      panel.onDidChangeViewState(() => {
        // A hidden webview is torn down (retainContextWhenHidden is off); it says "ready" again.
        if (!panel.visible) this.ready = false;
      }),
      panel.onDidDispose(() => this.dispose()),
    );
  }

  /** Opens a new panel and computes the spec. */
  static open(deps: PanelDeps, spec: ReportSpec): MetricPanel {
    const panel = vscode.window.createWebviewPanel(
      PANEL_VIEW_TYPE,
      `SimLens: ${KIND_TITLE[spec.kind]}`,
      vscode.ViewColumn.Active,
      {
        enableScripts: true,
        localResourceRoots: panelResourceRoots(deps.extensionUri),
        retainContextWhenHidden: false,
      },
    );
    const p = new MetricPanel(panel, deps, spec, spec.kind === 'fidelity' ? spec.out : undefined);
    void p.compute();
    return p;
  }

  /** Revives a panel after a reload: shows the saved report, or recomputes the spec. */
  static revive(
    deps: PanelDeps,
    panel: vscode.WebviewPanel,
    spec: ReportSpec | null,
    report: Report | undefined,
    outDir: string | undefined,
  ): MetricPanel {
    const p = new MetricPanel(panel, deps, spec, outDir);
    if (spec) panel.title = `SimLens: ${KIND_TITLE[spec.kind]}`;
    if (report) {
      p.report = report;
      p.restored = true;
    } else if (spec && canCompute(spec) && spec.kind !== 'fidelity') {
      void p.compute();
    } else {
      p.lastError = {
        message: spec
          ? 'The saved report could not be restored; recompute it from the Recompute button.'
          : 'This panel has nothing to restore; open it again from the command palette.',
      };
    }
    return p;
  }

  get title(): string {
    return this.panel.title;
  }

  get currentReport(): Report | undefined {
    return this.report;
  }

  get currentSpec(): ReportSpec | null {
    return this.spec;
  }

  /** Resolves when the current computation (if any) ends. */
  private computing: Promise<void> | undefined;
  whenIdle(): Promise<void> {
    return this.computing ?? Promise.resolve();
  }

  private send(message: HostToPanel): void {
    if (this.ready) void this.panel.webview.postMessage(message);
  }

  /** Everything the webview needs to show the current state (sent on every "ready"). */
  private sendSnapshot(): void {
    const can = canCompute(this.spec);
    if (this.report)
      this.send({
        type: 'report',
        report: this.report,
        spec: this.spec,
        restored: this.restored,
        canRecompute: can,
        outDir: this.outDir,
      });
    if (this.busy) this.send({ type: 'busy', ...this.busy });
    else if (this.lastError) this.send({ type: 'error', ...this.lastError, canRecompute: can });
  }

  /** The worker thread's script (the extension host's event loop stays free while a report is computed). */
  private reportWorker(): string {
    return vscode.Uri.joinPath(this.deps.extensionUri, 'dist', 'reportWorker.js').fsPath;
  }

  /** Computes the spec (cancelling a running computation) with a progress notification. */
  compute(): Promise<void> {
    const spec = this.spec;
    if (!spec) return Promise.resolve();
    if (!canCompute(spec)) {
      void notify.warning('SimLens: running simulations needs a trusted workspace.');
      return Promise.resolve();
    }
    this.running?.abort();
    const controller = new AbortController();
    this.running = controller;
    this.lastError = undefined;
    this.busy = { message: 'Starting…', fraction: 0 };
    this.send({ type: 'busy', ...this.busy });
    const title = `SimLens: ${KIND_TITLE[spec.kind]}`;
    const run = vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title, cancellable: true },
      async (progress, token) => {
        token.onCancellationRequested(() => controller.abort());
        let last = 0;
        let lastSent = 0;
        const ctx: ComputeContext = {
          cwd: this.deps.cwd(),
          signal: controller.signal,
          progress: (message, fraction) => {
            const f = fraction ?? last;
            progress.report({ message, increment: Math.max(0, (f - last) * 100) });
            last = Math.max(last, f);
            this.busy = { message, fraction };
            const now = Date.now();
            if (now - lastSent > 100) {
              lastSent = now;
              this.send({ type: 'busy', message, fraction });
            }
          },
        };
        const started = Date.now();
        try {
          let report: Report;
          if (spec.kind === 'fidelity') {
            const out =
              spec.out ??
              join(this.deps.cwd(), 'simlens-reports', `fidelity-${new Date().toISOString().replace(/[:.]/g, '-')}`);
            this.outDir = out;
            // LLM users/agents use the SimLens LLM settings and the stored API key. Cancel throws the
            // report away, so it is both stages of a run's stop at once: requests in flight and retries end.
            const llm = fidelityNeedsLlm(spec.simulator, spec.agents, ctx.cwd!)
              ? await createLlmServicesFromWorkspace({ signal: controller.signal, stopRetries: controller.signal })
              : undefined;
            // In a worker thread unless LLM services are needed (they cannot cross threads).
            const result = await runFidelityInWorker(
              {
                human: spec.human,
                simulator: spec.simulator,
                agents: spec.agents,
                n: spec.n,
                seed: spec.seed,
                out,
                features: spec.features,
                acts: spec.acts,
                folds: spec.folds,
                learningCurve: spec.learningCurve,
                llm,
              },
              ctx,
              { file: this.reportWorker() },
            );
            report = result.report;
            void notify
              .info(`SimLens: fidelity report written to ${vscode.workspace.asRelativePath(out)}`, 'Open report.md')
              .then((pick) => {
                if (pick) void vscode.window.showTextDocument(vscode.Uri.file(result.files.markdown));
              });
          } else {
            // In a worker thread: the extension host (every extension's, and the editor's) stays responsive.
            report = await computeReportInWorker(spec, ctx, { file: this.reportWorker() });
          }
          if (this.running !== controller) return;
          this.report = report;
          this.restored = false;
          this.busy = undefined;
          this.deps.log.info(`${title}: computed in ${Date.now() - started} ms (${report.sections.length} sections)`);
          this.send({ type: 'report', report, spec, canRecompute: canCompute(spec), outDir: this.outDir });
        } catch (e) {
          if (this.running !== controller) return;
          this.busy = undefined;
          const cancelled = e instanceof CancelledError || controller.signal.aborted;
          const message = cancelled ? 'Cancelled.' : (e as Error).message;
          this.lastError = { message, cancelled };
          this.send({ type: 'error', message, cancelled, canRecompute: canCompute(spec) });
          if (!cancelled) {
            this.deps.log.error(`${title}: ${(e as Error).stack ?? message}`);
            void notify.error(`${title}: ${message}`);
          }
        } finally {
          if (this.running === controller) this.running = undefined;
        }
      },
    );
    this.computing = Promise.resolve(run).then(() => undefined);
    return this.computing;
  }

  private async onMessage(raw: unknown): Promise<void> {
    const parsed = parsePanelMessage(raw);
    if (!parsed.ok) {
      this.deps.log.warn(`metric panel: ignored a malformed message (${parsed.error})`);
      return;
    }
    const m: PanelToHost = parsed.message;
    try {
      switch (m.type) {
        case 'ready':
          this.ready = true;
          this.sendSnapshot();
          break;
        case 'recompute':
          if (m.chart && this.spec?.kind === 'plsa') this.spec = { ...this.spec, chart: m.chart };
          await this.compute();
          break;
        case 'exportPng':
          await this.exportPng(m.sectionId, m.dataUrl);
          break;
        case 'exportTable':
          await this.exportTable(m.sectionId, m.format);
          break;
        case 'exportMarkdown':
          await this.exportMarkdown(m.charts);
          break;
        case 'exportReportJson':
          if (this.report)
            await this.save(
              `${this.baseName()}.json`,
              { JSON: ['json'] },
              Buffer.from(JSON.stringify(this.report, null, 2) + '\n'),
            );
          break;
        case 'openInput':
          await this.openInput(m.index);
          break;
        case 'openLink':
          await this.openLink(m.sectionId, m.row);
          break;
        case 'log':
          this.deps.log[m.level](`metric panel webview: ${m.message}`);
          break;
      }
    } catch (e) {
      this.deps.log.error(`metric panel: ${(e as Error).message}`);
      void notify.error(`SimLens: ${(e as Error).message}`);
    }
  }

  private baseName(): string {
    return slug(this.report?.title ?? 'simlens-report');
  }

  private defaultFolder(): vscode.Uri {
    return vscode.Uri.file(this.outDir ?? this.deps.cwd());
  }

  /** Asks where to save (default name in the default folder) and writes the bytes; returns the path. */
  private async save(
    defaultName: string,
    filters: Record<string, string[]>,
    bytes: Uint8Array,
  ): Promise<string | undefined> {
    const target = await vscode.window.showSaveDialog({
      defaultUri: vscode.Uri.joinPath(this.defaultFolder(), defaultName),
      filters,
    });
    if (!target) return undefined;
    await vscode.workspace.fs.writeFile(target, bytes);
    this.send({ type: 'exported', file: vscode.workspace.asRelativePath(target) });
    return target.fsPath;
  }

  private section(id: string): TableSection | ChartSection | undefined {
    const s = this.report?.sections.find((x) => x.id === id);
    return s && s.type !== 'text' ? s : undefined;
  }

  private async exportPng(sectionId: string, dataUrl: string): Promise<void> {
    const s = this.section(sectionId);
    if (!s || s.type !== 'chart') throw new Error(`no chart "${sectionId}" in this report`);
    await this.save(`${this.baseName()}-${sectionId}.png`, { 'PNG image': ['png'] }, pngBytes(dataUrl));
  }

  private async exportTable(sectionId: string, format: 'csv' | 'json'): Promise<void> {
    const s = this.section(sectionId);
    if (!s) throw new Error(`no table "${sectionId}" in this report`);
    const table = s.type === 'chart' ? chartToTable(s) : s;
    const text = format === 'csv' ? tableToCsv(table) : tableToJson(table);
    await this.save(
      `${this.baseName()}-${sectionId}.${format}`,
      format === 'csv' ? { CSV: ['csv'] } : { JSON: ['json'] },
      Buffer.from(text),
    );
  }

  /** Writes `<name>.md` plus `<name>-charts/<id>.png` for every chart the webview sent. */
  private async exportMarkdown(charts: { sectionId: string; dataUrl: string }[]): Promise<void> {
    const report = this.report;
    if (!report) return;
    const target = await vscode.window.showSaveDialog({
      defaultUri: vscode.Uri.joinPath(this.defaultFolder(), `${this.baseName()}.md`),
      filters: { Markdown: ['md'] },
    });
    if (!target) return;
    const base = target.path.replace(/^.*\//, '').replace(/\.md$/i, '');
    const folder = vscode.Uri.joinPath(target, '..', `${base}-charts`);
    const written = new Set<string>();
    for (const c of charts) {
      const s = this.section(c.sectionId);
      if (!s || s.type !== 'chart' || written.has(c.sectionId)) continue;
      if (!written.size) await vscode.workspace.fs.createDirectory(folder);
      await vscode.workspace.fs.writeFile(vscode.Uri.joinPath(folder, `${c.sectionId}.png`), pngBytes(c.dataUrl));
      written.add(c.sectionId);
    }
    const md = renderMarkdown(report, {
      chartImage: (chart) => (written.has(chart.id) ? `${base}-charts/${chart.id}.png` : undefined),
    });
    await vscode.workspace.fs.writeFile(target, Buffer.from(md));
    this.send({ type: 'exported', file: vscode.workspace.asRelativePath(target) });
    this.deps.log.info(`metric panel: wrote ${target.fsPath} with ${written.size} chart image(s)`);
  }

  /** The file of input `index` on disk (relative inputs: the report's folder, then the workspace), or undefined after a warning. */
  private async inputFile(index: number): Promise<string | undefined> {
    const input = this.report?.inputs[index];
    if (!input) return undefined;
    const candidates = isAbsolute(input.file)
      ? [input.file]
      : [...(this.outDir ? [resolve(this.outDir, input.file)] : []), resolve(this.deps.cwd(), input.file)];
    for (const file of candidates) {
      try {
        await vscode.workspace.fs.stat(vscode.Uri.file(file));
      } catch {
        continue;
      }
      return file;
    }
    void notify.warning(
      `SimLens: ${input.file} was not found (looked in ${candidates.map((c) => dirname(c)).join(', ')}).`,
    );
    return undefined;
  }

  private async openInput(index: number): Promise<void> {
    const file = await this.inputFile(index);
    if (file) await vscode.commands.executeCommand('simlens.openConversations', vscode.Uri.file(file));
  }

  /** Opens the conversation a table row links to in the SimLens editor, at its turn. */
  private async openLink(sectionId: string, row: number): Promise<void> {
    const s = this.section(sectionId);
    const link = s?.type === 'table' ? s.rows[row]?.link : undefined;
    if (!link) throw new Error(`no link in row ${row} of "${sectionId}"`);
    const file = await this.inputFile(link.input);
    if (!file) return;
    this.deps.log.info(
      `metric panel: opening ${link.conversation}${link.turn !== undefined ? ` at turn ${link.turn + 1}` : ''} in ${file}`,
    );
    await vscode.commands.executeCommand('simlens.goToConversation', {
      file,
      id: link.conversation,
      ...(link.turn !== undefined ? { turn: link.turn } : {}),
    });
  }

  dispose(): void {
    this.running?.abort();
    MetricPanel.all.delete(this);
    for (const d of this.disposables.splice(0)) d.dispose();
  }
}
