/**
 * VS Code shell of simulation runs: "SimLens: Run Simulation…" asks for user, interaction model,
 * preferences, meta-simulator, agent, number of conversations, seed and output file with quick
 * picks, then runs `runSimulation` (src/core/run) under a cancellable progress notification that
 * shows the count, the rate and the failures. Cancelling stops scheduling: the conversations in
 * flight finish and are written, and the manifest says "cancelled" (the CLI's --resume continues
 * such a run). `simlens.simulation.maxConsecutiveFailures` stops a run against a dead recommender
 * (manifest "stopped"); the closing message reports failures per reason.
 * Disabled in untrusted workspaces: a run reads workspace files and may call an HTTP agent.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { BUILTIN_CATALOG_NOTE } from '../core/metrics/domain';
import { notify } from './safeOutput';
import { runSimulation, type RunProgress, type SimulationConfigInput } from '../core/run/index';
import { DEFAULT_MAX_CONSECUTIVE_FAILURES, FailureTally, type FailureCounts } from '../core/run/failures';
import type { RunManifest } from '../core/model';

interface Pick<T> extends vscode.QuickPickItem {
  value: T;
}

/** Steps of "Run Simulation…" (the quick picks, then the number of conversations and the seed). */
const STEPS = 7;

async function pick<T>(title: string, step: number, items: Pick<T>[], placeHolder?: string): Promise<T | undefined> {
  const chosen = await vscode.window.showQuickPick(items, { title: `${title} (${step}/${STEPS})`, ignoreFocusOut: true, placeHolder });
  return chosen?.value;
}

function positiveInteger(text: string): string | undefined {
  return /^\s*\d+\s*$/.test(text) && Number(text) > 0 ? undefined : 'Enter a positive whole number';
}

/** Asks for a run configuration and an output file; undefined when the user backs out. */
async function askForRun(): Promise<{ config: SimulationConfigInput; out: vscode.Uri } | undefined> {
  const user = await pick('Simulated user', 1, [
    { label: 'Agenda-based', description: 'Zhang & Balog 2020: agenda, goal, preference model', value: 'agenda' as const },
    { label: 'Target-free', description: 'PEPPER: general and reflected preferences, preference coverage', value: 'target-free' as const },
  ], BUILTIN_CATALOG_NOTE);
  if (!user) return undefined;
  let interaction: 'cir6' | 'qrfa' | undefined;
  let preferences: 'single' | 'pkg' | undefined;
  if (user === 'agenda') {
    interaction = await pick('Interaction model', 2, [
      { label: 'CIR6', description: 'six user main acts, transitions gated by the CIR6 diagram', value: 'cir6' as const },
      { label: 'QRFA', description: 'Query/Request/Feedback/Answer two-step transitions', value: 'qrfa' as const },
    ]);
    if (!interaction) return undefined;
    preferences = await pick('Preference model', 3, [
      { label: 'Personal knowledge graph (PKG)', description: 'item and attribute ratings, consistent answers', value: 'pkg' as const },
      { label: 'Single item', description: 'consumed items real, like/dislike a remembered coin flip', value: 'single' as const },
    ]);
    if (!preferences) return undefined;
  }
  const meta = await pick('Alternative targets (Fashion-AlterEval)', 4, [
    { label: 'None', value: 'none' as const },
    { label: 'MetaSimTol', description: 'switch target after 2 turns of tolerance', value: 'tol' as const },
    { label: 'MetaSimProb', description: 'switch after a perceived loss with probability 0.75', value: 'prob' as const },
  ]);
  if (!meta) return undefined;
  let agent = await pick('Recommender', 5, [
    { label: 'local-good', description: 'helpful local recommender', value: 'local-good' },
    { label: 'local-bad', description: 'subtly unhelpful local recommender', value: 'local-bad' },
    { label: 'HTTP endpoint…', description: 'your own CRS: POST {conversation_id, history, user_utterance}', value: 'http' },
  ]);
  if (!agent) return undefined;
  if (agent === 'http') {
    agent = await vscode.window.showInputBox({
      title: 'Recommender URL',
      prompt: 'The endpoint receives {conversation_id, history, user_utterance} and returns {utterance, recommendations[], acts?}',
      value: 'http://127.0.0.1:8080/chat',
      ignoreFocusOut: true,
      validateInput: (v) => (/^https?:\/\/\S+$/i.test(v.trim()) ? undefined : 'Enter an http:// or https:// URL'),
    });
    if (!agent) return undefined;
    agent = agent.trim();
  }
  const n = await vscode.window.showInputBox({ title: `Number of conversations (6/${STEPS})`, value: '100', ignoreFocusOut: true, validateInput: positiveInteger });
  if (!n) return undefined;
  const seed = await vscode.window.showInputBox({
    title: `Seed (7/${STEPS})`,
    prompt: 'The same seed and options give byte-identical output',
    value: '1',
    ignoreFocusOut: true,
    validateInput: (v) => (v.trim() ? undefined : 'Enter a seed'),
  });
  if (!seed) return undefined;
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
  const name = `${user === 'agenda' ? `agenda-${interaction}-${preferences}` : 'target-free'}${meta !== 'none' ? `-meta-${meta}` : ''}-vs-${agent.startsWith('http') ? 'http' : agent}-seed${seed.trim()}.sim.jsonl`;
  const out = await vscode.window.showSaveDialog({
    title: 'Save simulated conversations',
    defaultUri: folder ? vscode.Uri.joinPath(folder, name) : undefined,
    filters: { 'Conversations (JSONL)': ['jsonl'] },
  });
  if (!out) return undefined;
  const seedValue = /^-?\d+$/.test(seed.trim()) ? Number(seed.trim()) : seed.trim();
  const config: SimulationConfigInput = { user, agent, n: Number(n), seed: seedValue };
  if (interaction) config.interaction = interaction;
  if (preferences) config.preferences = preferences;
  if (meta !== 'none') config.meta = meta;
  return { config, out };
}

/** The configured failure policy (0 = never stop). */
function maxConsecutiveFailures(): number {
  const v = vscode.workspace.getConfiguration('simlens').get<number>('simulation.maxConsecutiveFailures', DEFAULT_MAX_CONSECUTIVE_FAILURES);
  return typeof v === 'number' && Number.isFinite(v) && v >= 0 ? Math.floor(v) : DEFAULT_MAX_CONSECUTIVE_FAILURES;
}

/** The closing message: what happened, how many conversations, and the failures per reason. */
export function runSummary(m: RunManifest, file: string): string {
  const c = m.counts;
  const failures = new FailureTally(0, { failed: c.failed, agent_errors: Number(c.agent_errors ?? 0), by_reason: (c.by_reason ?? {}) as FailureCounts['by_reason'] });
  const extra = m as Record<string, unknown>;
  const head =
    m.status === 'cancelled' ? `Cancelled after ${c.finished} of ${c.planned} conversations`
      : m.status === 'stopped' ? `Run ${String(extra['stop_reason'])}; ${c.finished} of ${c.planned} conversations written`
        : m.status === 'crashed' ? `Crashed after ${c.finished} of ${c.planned} conversations${extra['error'] ? `: ${String(extra['error'])}` : ''}`
          : `Simulated ${c.finished} of ${c.planned} conversations`;
  const tail = c.failed ? ` (${failures.describe()}; see metadata.error in the file)` : ' (0 failed)';
  return `${head}${tail}: ${file}`;
}

async function runFromCommand(output: vscode.LogOutputChannel): Promise<void> {
  if (!vscode.workspace.isTrusted) {
    void notify.error('SimLens runs simulations only in a trusted workspace.');
    return;
  }
  const request = await askForRun();
  if (!request) return;
  const { config, out } = request;
  const cwd = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? path.dirname(out.fsPath);
  output.info(`simulation: ${JSON.stringify(config)} -> ${out.fsPath}`);
  try {
    const result = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: 'SimLens: simulating', cancellable: true },
      async (progress, token) => {
        const controller = new AbortController();
        const sub = token.onCancellationRequested(() => controller.abort());
        let reported = 0;
        try {
          return await runSimulation(config, {
            out: out.fsPath,
            cwd,
            overwrite: true,
            concurrency: config.agent?.startsWith('http') ? 4 : 1,
            signal: controller.signal,
            maxConsecutiveFailures: maxConsecutiveFailures(),
            progressIntervalMs: 250,
            command: 'SimLens: Run Simulation…',
            onProgress: (p: RunProgress) => {
              const pct = p.planned ? (100 * p.finished) / p.planned : 100;
              progress.report({
                message: `${p.finished}/${p.planned} conversations, ${p.rate.toFixed(0)}/s${p.failed ? `, ${new FailureTally(0, p.failures).describe()}` : ''}`,
                increment: Math.max(0, pct - reported),
              });
              reported = Math.max(reported, pct);
            },
          });
        } finally {
          sub.dispose();
        }
      },
    );
    const m = result.manifest;
    const summary = runSummary(m, path.basename(out.fsPath));
    output.info(`simulation ${m.status}: ${summary}`);
    const failed = m.counts.failed > 0 || m.status !== 'finished';
    const choice = failed
      ? await notify.warning(summary, 'Open')
      : await notify.info(summary, 'Open');
    if (choice === 'Open') await vscode.commands.executeCommand('vscode.open', out);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    output.error(`simulation failed: ${message}`);
    void notify.error(`SimLens simulation failed: ${message}`);
  }
}

/** Registers "SimLens: Run Simulation…". */
export function registerSimulation(context: vscode.ExtensionContext, output: vscode.LogOutputChannel): void {
  context.subscriptions.push(vscode.commands.registerCommand('simlens.runSimulation', () => runFromCommand(output)));
}
