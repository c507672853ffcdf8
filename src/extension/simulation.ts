/**
 * VS Code shell of simulation runs: "SimLens: Run Simulation…" asks for user, interaction model,
 * preferences, meta-simulator, agent, number of conversations, seed and output file with quick
 * picks, then runs `runSimulation` (src/core/run) under a cancellable progress notification that
 * shows the count, the rate and the failures. Cancelling is the CLI's first Ctrl-C: no new
 * conversation and no new retry (LLM calls) is started, the conversations in flight finish and are
 * written, and the manifest says "cancelled" (the CLI's --resume continues such a run); "Abort"
 * in the notification that follows cancels the requests in flight too (a second Ctrl-C). `simlens.simulation.maxConsecutiveFailures` stops a run against a dead recommender
 * (manifest "stopped"); the closing message reports failures per reason.
 * Disabled in untrusted workspaces: a run reads workspace files and may call an HTTP agent.
 *
 * External simulators (docs/protocol.md): those registered in `simlens.simulators` are offered
 * first, and any command can be typed; their stderr goes to the SimLens output channel. A run can
 * pause ("break on a violation") at the first conversation whose turn breaks an invariant or a
 * condition: the file is opened at that conversation and turn, and the researcher continues, stops,
 * or plays the recommender from that turn (src/extension/play.ts).
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { BUILTIN_CATALOG_NOTE, MOVIE_CATALOG_LIMITS } from '../core/metrics/domain';
import {
  buildMovieCatalogFromFiles,
  movieCatalogSourceOfFormat,
  type MovieCatalogSource,
} from '../core/importers/movieCatalog';
import { writeCatalog } from '../core/catalog/io';
import { detectFormat, importFile } from '../core/importers/index';
import { notify } from './safeOutput';
import {
  RunStop,
  firstBreak,
  parseCondition,
  parseSimulationConfig,
  runSimulation,
  type BreakOptions,
  type RunProgress,
  type SimulationConfigInput,
} from '../core/run/index';
import {
  parseSimulatorSettings,
  simulatorCwd,
  simulatorUserSpec,
  type SimulatorSetting,
} from '../core/sim/users/external/settings';
import { isExternalUserSpec } from '../core/sim/users/external/simulator';
import type { Conversation } from '../core/model';
import { playFrom } from './play';
import { DEFAULT_MAX_CONSECUTIVE_FAILURES, FailureTally, type FailureCounts } from '../core/failures';
import { createLlmServicesFromWorkspace } from './llm';
import { prepareRunEnvironment } from './simulationRun';
import type { RunManifest } from '../core/model';

interface Pick<T> extends vscode.QuickPickItem {
  value: T;
}

/** Steps of "Run Simulation…" (the quick picks, then the number of conversations and the seed). */
const STEPS = 9;

async function pick<T>(title: string, step: number, items: Pick<T>[], placeHolder?: string): Promise<T | undefined> {
  const chosen = await vscode.window.showQuickPick(items, {
    title: `${title} (${step}/${STEPS})`,
    ignoreFocusOut: true,
    placeHolder,
  });
  return chosen?.value;
}

function positiveInteger(text: string): string | undefined {
  return /^\s*\d+\s*$/.test(text) && Number(text) > 0 ? undefined : 'Enter a positive whole number';
}

/** The simulators registered in `simlens.simulators` (invalid entries reported once in the output channel). */
export function registeredSimulators(output?: vscode.LogOutputChannel): SimulatorSetting[] {
  const { simulators, problems } = parseSimulatorSettings(
    vscode.workspace.getConfiguration('simlens').get('simulators'),
  );
  for (const p of problems) output?.warn(p);
  return simulators;
}

/** An external simulator the run talks to: how to start it. */
interface ExternalChoice {
  spec: string;
  cwd: string;
  env?: Record<string, string>;
  concurrency: number;
}

/** The user step of Run Simulation / Play: built-in users, registered simulators, or a typed command. */
export async function pickUser(
  title: string,
  step: number,
  output?: vscode.LogOutputChannel,
): Promise<{ user: string; external?: ExternalChoice } | undefined> {
  const workspace = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? process.cwd();
  const registered = registeredSimulators(output);
  const items: Pick<string>[] = [
    ...registered.map((s, i) => ({
      label: s.name,
      description: s.command,
      detail: 'your simulator (simlens.simulators)',
      value: `registered:${i}`,
    })),
    { label: 'Agenda-based', description: 'Zhang & Balog 2020: agenda, goal, preference model', value: 'agenda' },
    {
      label: 'Target-free',
      description: 'PEPPER: general and reflected preferences, preference coverage',
      value: 'target-free',
    },
    {
      label: 'Your simulator (command or URL)…',
      description: 'any program speaking the SimLens simulator protocol (docs/protocol.md)',
      value: 'command',
    },
  ];
  const chosen = await pick(title, step, items, BUILTIN_CATALOG_NOTE);
  if (!chosen) return undefined;
  if (chosen.startsWith('registered:')) {
    const s = registered[Number(chosen.slice('registered:'.length))];
    return {
      user: simulatorUserSpec(s),
      external: {
        spec: simulatorUserSpec(s),
        cwd: simulatorCwd(s, workspace),
        env: s.env,
        concurrency: s.concurrency ?? 1,
      },
    };
  }
  if (chosen === 'command') {
    const typed = await vscode.window.showInputBox({
      title: 'Simulator command or URL',
      prompt:
        'Started in the workspace folder, e.g. python3 my_sim.py; or http://127.0.0.1:8765/ for a simulator served over HTTP',
      value: 'python3 my_sim.py',
      ignoreFocusOut: true,
      validateInput: (v) => (v.trim() ? undefined : 'Enter a command or a URL'),
    });
    if (!typed) return undefined;
    const spec = /^https?:\/\//.test(typed.trim()) ? typed.trim() : `exec:${typed.trim()}`;
    return { user: spec, external: { spec, cwd: workspace, concurrency: 1 } };
  }
  return { user: chosen };
}

/** Conversation files open in an editor tab (text or the SimLens editor), most recent group first. */
function openFiles(): string[] {
  const out: string[] = [];
  for (const group of vscode.window.tabGroups.all) {
    for (const tab of group.tabs) {
      const input = tab.input;
      const uri =
        input instanceof vscode.TabInputText || input instanceof vscode.TabInputCustom ? input.uri : undefined;
      if (uri?.scheme === 'file' && /\.jsonl?$/i.test(uri.fsPath) && !out.includes(uri.fsPath)) out.push(uri.fsPath);
    }
  }
  return out;
}

/**
 * The catalog step: the built-in apparel catalog, a movie catalog built from an open ReDial or
 * IARD file (written beside it as <name>.movies.catalog.jsonl), or a catalog file. '' = the
 * built-in catalog, undefined = backed out.
 */
async function pickCatalog(output: vscode.LogOutputChannel): Promise<string | undefined> {
  const human: { file: string; source: MovieCatalogSource }[] = [];
  for (const file of openFiles()) {
    try {
      const format = await detectFormat(file);
      if (format !== 'redial' && format !== 'iard' && format !== 'dialoguekit') continue;
      // A DialogueKit file is a movie source only when it is the IARD copy (TITLE slots): read it to know.
      const source =
        format === 'dialoguekit'
          ? movieCatalogSourceOfFormat(format, (await importFile(file)).conversations)
          : movieCatalogSourceOfFormat(format, []);
      if (source) human.push({ file, source });
    } catch {
      // not a conversation file: not offered
    }
  }
  const items: Pick<string>[] = [
    {
      label: 'Built-in apparel catalog',
      description: 'synthetic clothes, shoes, bags, accessories (3,000 items)',
      detail: 'Compare such runs with apparel human data (ConvApparel), not with movie dialogues.',
      value: '',
    },
    ...human.map((h) => ({
      label: `Movie catalog from ${path.basename(h.file)}`,
      description: `built now from the ${h.source === 'redial' ? 'ReDial' : 'IARD'} file open in the editor`,
      detail: MOVIE_CATALOG_LIMITS,
      value: `build:${human.indexOf(h)}`,
    })),
    {
      label: 'Catalog file…',
      description: 'a SimLens catalog (JSONL, docs/formats.md), e.g. from simlens catalog build',
      value: 'file',
    },
  ];
  const chosen = await pick(
    'Catalog',
    5,
    items,
    human.length
      ? BUILTIN_CATALOG_NOTE
      : `${BUILTIN_CATALOG_NOTE} Open a ReDial or IARD file to have a movie catalog built from it here.`,
  );
  if (chosen === undefined) return undefined;
  if (chosen === '') return '';
  if (chosen === 'file') {
    const picked = await vscode.window.showOpenDialog({
      title: 'Catalog (JSONL)',
      canSelectMany: false,
      filters: { 'Catalog (JSONL)': ['jsonl'] },
    });
    return picked?.[0]?.fsPath;
  }
  const h = human[Number(chosen.slice('build:'.length))];
  const target = h.file.replace(/(\.[^./\\]+)?$/, '.movies.catalog.jsonl');
  try {
    const result = await buildMovieCatalogFromFiles(h.source, [{ path: h.file, label: path.basename(h.file) }]);
    await writeCatalog(result.catalog, target);
    const c = result.counts;
    output.info(
      `movie catalog: ${c.items} movies (${c.withYear} with a year) from ${c.mentions} mentions in ${c.dialogues} ` +
        `dialogues of ${h.file} -> ${target}; ${result.notes.join('; ')}`,
    );
    for (const w of result.warnings.slice(0, 20)) output.warn(`movie catalog: ${w}`);
    void notify.info(
      `SimLens: built a movie catalog of ${c.items} movies from ${path.basename(h.file)} (${path.basename(target)}). ${MOVIE_CATALOG_LIMITS}`,
    );
    return target;
  } catch (e) {
    void notify.error(`SimLens could not build a movie catalog from ${path.basename(h.file)}: ${(e as Error).message}`);
    return undefined;
  }
}

/** Asks where a run should pause; undefined = backed out, {} = never. */
async function askForPause(): Promise<BreakOptions | undefined> {
  const how = await pick('Pause the run (break on a violation)', STEPS, [
    { label: 'Do not pause', value: 'none' as const },
    {
      label: 'At the first invariant violation',
      description: 'the behavioural invariants of Check Behavioural Invariants',
      value: 'invariants' as const,
    },
    {
      label: 'Where a condition holds…',
      description: 'e.g. act == "Complete" && agenda.length > 0',
      value: 'condition' as const,
    },
    { label: 'At either', value: 'both' as const },
  ]);
  if (!how) return undefined;
  if (how === 'none') return {};
  const options: BreakOptions = { invariants: how === 'invariants' || how === 'both' };
  if (how === 'condition' || how === 'both') {
    const text = await vscode.window.showInputBox({
      title: 'Pause where this holds for a turn',
      prompt:
        'Names: act, utterance, reply, turn, recommendations, last, outcome, and the trace fields (agenda, patience, ' +
        'goal.constraints.colour, ...); operators == != < <= > >= && || ! ( ) and .length',
      value: 'act == "Complete" && agenda.length > 0',
      ignoreFocusOut: true,
      validateInput: (v) => {
        try {
          parseCondition(v);
          return undefined;
        } catch (e) {
          return (e as Error).message;
        }
      },
    });
    if (!text) return undefined;
    options.condition = parseCondition(text);
  }
  return options;
}

/** Asks for a run configuration and an output file; undefined when the user backs out. */
async function askForRun(
  output: vscode.LogOutputChannel,
): Promise<
  { config: SimulationConfigInput; out: vscode.Uri; external?: ExternalChoice; pause: BreakOptions } | undefined
> {
  const picked = await pickUser('Simulated user', 1, output);
  if (!picked) return undefined;
  const { user, external } = picked;
  let interaction: 'cir6' | 'qrfa' | undefined;
  let preferences: 'single' | 'pkg' | undefined;
  if (user === 'agenda') {
    interaction = await pick('Interaction model', 2, [
      {
        label: 'CIR6',
        description: 'six user main acts, transitions gated by the CIR6 diagram',
        value: 'cir6' as const,
      },
      { label: 'QRFA', description: 'Query/Request/Feedback/Answer two-step transitions', value: 'qrfa' as const },
    ]);
    if (!interaction) return undefined;
    preferences = await pick('Preference model', 3, [
      {
        label: 'Personal knowledge graph (PKG)',
        description: 'item and attribute ratings, consistent answers',
        value: 'pkg' as const,
      },
      {
        label: 'Single item',
        description: 'consumed items real, like/dislike a remembered coin flip',
        value: 'single' as const,
      },
    ]);
    if (!preferences) return undefined;
  }
  const meta = isExternalUserSpec(user)
    ? 'none'
    : await pick('Alternative targets (Fashion-AlterEval)', 4, [
        { label: 'None', value: 'none' as const },
        { label: 'MetaSimTol', description: 'switch target after 2 turns of tolerance', value: 'tol' as const },
        {
          label: 'MetaSimProb',
          description: 'switch after a perceived loss with probability 0.75',
          value: 'prob' as const,
        },
      ]);
  if (!meta) return undefined;
  let catalog: string | undefined;
  if (!isExternalUserSpec(user)) {
    const chosenCatalog = await pickCatalog(output);
    if (chosenCatalog === undefined) return undefined;
    catalog = chosenCatalog || undefined;
  }
  let agent = await pick('Recommender', 6, [
    { label: 'local-good', description: 'helpful local recommender', value: 'local-good' },
    { label: 'local-bad', description: 'subtly unhelpful local recommender', value: 'local-bad' },
    {
      label: 'HTTP endpoint…',
      description: 'your own CRS: POST {conversation_id, history, user_utterance}',
      value: 'http',
    },
  ]);
  if (!agent) return undefined;
  if (agent === 'http') {
    agent = await vscode.window.showInputBox({
      title: 'Recommender URL',
      prompt:
        'The endpoint receives {conversation_id, history, user_utterance} and returns {utterance, recommendations[], acts?}',
      value: 'http://127.0.0.1:8080/chat',
      ignoreFocusOut: true,
      validateInput: (v) => (/^https?:\/\/\S+$/i.test(v.trim()) ? undefined : 'Enter an http:// or https:// URL'),
    });
    if (!agent) return undefined;
    agent = agent.trim();
  }
  const n = await vscode.window.showInputBox({
    title: `Number of conversations (7/${STEPS})`,
    value: '100',
    ignoreFocusOut: true,
    validateInput: positiveInteger,
  });
  if (!n) return undefined;
  const seed = await vscode.window.showInputBox({
    title: `Seed (8/${STEPS})`,
    prompt: 'The same seed and options give byte-identical output',
    value: '1',
    ignoreFocusOut: true,
    validateInput: (v) => (v.trim() ? undefined : 'Enter a seed'),
  });
  if (!seed) return undefined;
  const pause = await askForPause();
  if (!pause) return undefined;
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
  const userLabel = external
    ? `sim-${(
        user
          .replace(/^exec:/, '')
          .split(/[\s/\\]+/)
          .filter(Boolean)
          .pop() ?? 'external'
      ).replace(/[^A-Za-z0-9_.-]+/g, '_')}`
    : user === 'agenda'
      ? `agenda-${interaction}-${preferences}`
      : 'target-free';
  const name = `${userLabel}${meta !== 'none' ? `-meta-${meta}` : ''}-vs-${agent.startsWith('http') ? 'http' : agent}-seed${seed.trim()}.sim.jsonl`;
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
  if (catalog) config.catalog = catalog;
  return { config, out, external, pause };
}

/** The configured failure policy (0 = never stop). */
function maxConsecutiveFailures(): number {
  const v = vscode.workspace
    .getConfiguration('simlens')
    .get<number>('simulation.maxConsecutiveFailures', DEFAULT_MAX_CONSECUTIVE_FAILURES);
  return typeof v === 'number' && Number.isFinite(v) && v >= 0 ? Math.floor(v) : DEFAULT_MAX_CONSECUTIVE_FAILURES;
}

/** The closing message: what happened, how many conversations, and the failures per reason. */
function runSummary(m: RunManifest, file: string): string {
  const c = m.counts;
  const failures = new FailureTally(0, {
    failed: c.failed,
    agent_errors: Number(c.agent_errors ?? 0),
    by_reason: (c.by_reason ?? {}) as FailureCounts['by_reason'],
  });
  const extra = m as Record<string, unknown>;
  const head =
    m.status === 'cancelled'
      ? `Cancelled after ${c.finished} of ${c.planned} conversations`
      : m.status === 'stopped'
        ? `Run ${String(extra['stop_reason'])}; ${c.finished} of ${c.planned} conversations written`
        : m.status === 'crashed'
          ? `Crashed after ${c.finished} of ${c.planned} conversations${extra['error'] ? `: ${String(extra['error'])}` : ''}`
          : `Simulated ${c.finished} of ${c.planned} conversations`;
  const tail = c.failed ? ` (${failures.describe()}; see metadata.error in the file)` : ' (0 failed)';
  return `${head}${tail}: ${file}`;
}

async function runFromCommand(output: vscode.LogOutputChannel): Promise<void> {
  if (!vscode.workspace.isTrusted) {
    void notify.error('SimLens runs simulations only in a trusted workspace.');
    return;
  }
  const request = await askForRun(output);
  if (!request) return;
  const { config, out, external, pause } = request;
  let pausing = !!(pause.invariants || pause.condition);
  const cwd = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? path.dirname(out.fsPath);
  output.info(`simulation: ${JSON.stringify(config)} -> ${out.fsPath}`);
  try {
    const result = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: 'SimLens: simulating', cancellable: true },
      async (progress, token) => {
        // Cancel is the CLI's first Ctrl-C (src/core/run/stop.ts): no new conversation, no new retry,
        // the conversations in flight finish and are written; "Abort" then cancels those too.
        const stop = new RunStop();
        const requestStop = () => {
          if (stop.stage !== 'running') return;
          stop.request();
          output.info('simulation: cancelled; finishing the conversations in flight');
          void notify
            .info('SimLens: finishing the conversations in flight (no new conversation or retry is started)…', 'Abort')
            .then((choice) => {
              if (choice === 'Abort' && stop.stage === 'stopping') stop.request();
            });
        };
        const sub = token.onCancellationRequested(requestStop);
        let reported = 0;
        const parsed = parseSimulationConfig(config);
        // Built here (not by runSimulation) so a pause can play the recommender with the same user.
        const env = await prepareRunEnvironment(parsed, cwd, stop, {
          simulator: external
            ? { cwd: external.cwd, env: external.env, onStderr: (line) => output.info(`[simulator] ${line}`) }
            : undefined,
          llmServices: (signals) => createLlmServicesFromWorkspace(signals),
        });
        let opened = false;
        try {
          return await runSimulation(parsed, {
            environment: env,
            out: out.fsPath,
            cwd,
            overwrite: true,
            // A pause holds one conversation: other workers would run on, so pausing runs one at a time.
            concurrency:
              pause.invariants || pause.condition
                ? 1
                : external
                  ? external.concurrency
                  : config.agent?.startsWith('http')
                    ? 4
                    : 1,
            onConversation: async (conversation: Conversation) => {
              if (!opened) {
                // Conversations stream into the editor: open the file once the first one is written.
                opened = true;
                void vscode.commands.executeCommand('simlens.openConversations', out);
              }
              if (!pausing || stop.stage !== 'running') return;
              const hit = firstBreak(conversation, { ...pause, maxTurns: env.maxTurns });
              if (!hit) return;
              const where = `${conversation.id}${hit.turn !== undefined ? `, turn ${hit.turn + 1}` : ''}`;
              output.info(`simulation paused at ${where}: ${hit.reason}`);
              await vscode.commands.executeCommand('simlens.goToConversation', {
                file: out.fsPath,
                id: conversation.id,
                ...(hit.turn !== undefined ? { turn: hit.turn } : {}),
              });
              for (;;) {
                const choice = await notify.warning(
                  `Paused at ${where}: ${hit.reason}`,
                  'Continue',
                  'Continue Without Pausing',
                  'Play the Recommender from Here',
                  'Stop',
                );
                if (choice === 'Play the Recommender from Here') {
                  // Played beside the paused run (same user and configuration), then paused again here.
                  await playFrom(env, conversation, hit.turn ?? 0, output);
                  continue;
                }
                if (choice === 'Continue Without Pausing') pausing = false;
                if (choice === 'Stop') requestStop();
                break;
              }
            },
            ...stop.runOptions(),
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
          await env.user.dispose?.();
        }
      },
    );
    const m = result.manifest;
    const summary = runSummary(m, path.basename(out.fsPath));
    output.info(`simulation ${m.status}: ${summary}`);
    const failed = m.counts.failed > 0 || m.status !== 'finished';
    const choice = failed ? await notify.warning(summary, 'Open') : await notify.info(summary, 'Open');
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
