/**
 * The metric panels: "SimLens: Compare Populations…", "Human-Likeness…", "Counterfactual
 * Validation…", "Simulation Metrics…", "Validate Simulator…" (the fidelity report) and "Check
 * Behavioural Invariants" (src/core/check on one file, violations linked to the editor), plus the
 * serializer that brings panels back after a window reload.
 *
 * Each command either takes a report spec as its argument (scripts, tests, keybindings:
 * `vscode.commands.executeCommand('simlens.comparePopulations', { kind: 'plsa', … })`) or asks for
 * files and options with quick picks. Reports are computed in a worker thread, off the extension
 * host's event loop (panel.ts).
 */
import * as vscode from 'vscode';
import { notify } from '../safeOutput';
import { join } from 'node:path';
import { conversationCondition, conversationSource, type Conversation } from '../../core/model';
import { parseReport, type Report } from '../../core/report/model';
import { defaultLabel, matchesFilter, PopulationLoader, type PopulationSpec } from '../../core/report/populations';
import { parseInlineSimulator } from '../../core/report/simulator';
import {
  CounterfactualSpecSchema,
  FidelitySpecSchema,
  HlsSpecSchema,
  InvariantsSpecSchema,
  PlsaSpecSchema,
  SimulationSpecSchema,
  type ConditionPairSpec,
  type ReportSpec,
} from '../../core/report/specs';
import { PanelStateSchema } from '../../shared/panelProtocol';
import { MetricPanel, type PanelDeps } from './panel';
import {
  activeConversationFile,
  askInteger,
  loadWithProgress,
  pickActSource,
  pickFiles,
  pickFilter,
  populationSpec,
} from './pickers';
import { domainMismatchWarnings } from './populationFiles';

const PANEL_COMMANDS = {
  compare: 'simlens.comparePopulations',
  humanLikeness: 'simlens.humanLikeness',
  counterfactual: 'simlens.counterfactualValidation',
  simulation: 'simlens.simulationMetrics',
  validate: 'simlens.validateSimulator',
  invariants: 'simlens.checkInvariants',
} as const;

function cwd(): string {
  return vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? process.cwd();
}

/** A spec from a command argument, when one was given and is valid for this command. */
function specArgument<T extends ReportSpec>(
  arg: unknown,
  schema: {
    safeParse(
      v: unknown,
    ): { success: true; data: T } | { success: false; error: { issues: { path: PropertyKey[]; message: string }[] } };
  },
): T | undefined | Error {
  if (arg === undefined || arg === null || arg instanceof vscode.Uri) return undefined;
  const r = schema.safeParse(arg);
  if (r.success) return r.data;
  const issue = r.error.issues[0];
  return new Error(`invalid report spec: ${issue.path.map(String).join('.') || '(root)'}: ${issue.message}`);
}

/** Picks a file and a filter on it; undefined when cancelled. */
async function pickPopulation(
  loader: PopulationLoader,
  title: string,
  initial?: vscode.Uri,
): Promise<{ spec: PopulationSpec; conversations: Conversation[] } | undefined> {
  const uri = initial ?? (await pickFiles(title))?.[0];
  if (!uri) return undefined;
  const spec = populationSpec(uri, cwd(), undefined);
  const conversations = await loadWithProgress(loader, spec.file);
  if (!conversations.length) throw new Error(`${spec.file} has no valid conversations`);
  const filter = await pickFilter(`${title}: filter ${defaultLabel(spec)}`, conversations);
  if (filter === undefined) return undefined;
  return { spec: populationSpec(uri, cwd(), filter), conversations };
}

/** Picks several files, each with a filter. */
async function pickPopulations(
  loader: PopulationLoader,
  title: string,
): Promise<{ spec: PopulationSpec; conversations: Conversation[] }[] | undefined> {
  const uris = await pickFiles(title, { many: true, placeholder: 'Select one or more files' });
  if (!uris) return undefined;
  const out: { spec: PopulationSpec; conversations: Conversation[] }[] = [];
  for (const uri of uris) {
    const p = await pickPopulation(loader, title, uri);
    if (!p) return undefined;
    out.push(p);
  }
  return out;
}

/** Warns (without blocking the flow) about candidates from another domain than the reference. */
function warnDomainMismatch(
  ref: { spec: PopulationSpec; conversations: Conversation[] },
  cands: { spec: PopulationSpec; conversations: Conversation[] }[],
): void {
  const population = (p: { spec: PopulationSpec; conversations: Conversation[] }) => ({
    label: defaultLabel(p.spec),
    conversations: p.conversations.filter((c) => matchesFilter(c, p.spec.filter)),
  });
  for (const w of domainMismatchWarnings(population(ref), cands.map(population))) void notify.warning(`SimLens: ${w}`);
}

async function compareFlow(loader: PopulationLoader): Promise<ReportSpec | undefined> {
  const ref = await pickPopulation(loader, 'Compare Populations: reference (e.g. human conversations)');
  if (!ref) return undefined;
  const cands = await pickPopulations(loader, 'Compare Populations: candidates (e.g. simulated runs)');
  if (!cands) return undefined;
  warnDomainMismatch(ref, cands);
  const acts = await pickActSource([...ref.conversations, ...cands.flatMap((c) => c.conversations)]);
  if (!acts) return undefined;
  return { kind: 'plsa', reference: ref.spec, candidates: cands.map((c) => c.spec), acts };
}

async function humanLikenessFlow(loader: PopulationLoader): Promise<ReportSpec | undefined> {
  const human = await pickPopulation(loader, 'Human-Likeness: human conversations');
  if (!human) return undefined;
  const sims = await pickPopulations(loader, 'Human-Likeness: simulated conversations');
  if (!sims) return undefined;
  warnDomainMismatch(human, sims);
  return { kind: 'human-likeness', human: human.spec, simulated: sims.map((s) => s.spec) };
}

async function counterfactualFlow(loader: PopulationLoader): Promise<ReportSpec | undefined> {
  const humanUri = (await pickFiles('Counterfactual Validation: human conversations in both conditions'))?.[0];
  if (!humanUri) return undefined;
  const human = populationSpec(humanUri, cwd(), undefined);
  const humanConvs = await loadWithProgress(loader, human.file);
  const conditions = [
    ...new Set(humanConvs.map(conversationCondition).filter((c): c is string => c !== undefined)),
  ].sort();
  if (conditions.length < 2)
    throw new Error(
      `${human.file} needs conversations in two conditions (found: ${conditions.join(', ') || 'none'}); conditions ` +
        `come from "condition" or a task_id ending in _good/_bad`,
    );
  const order = (xs: string[], first: string) => [...xs.filter((x) => x === first), ...xs.filter((x) => x !== first)];
  const from = await vscode.window.showQuickPick(order(conditions, 'good'), {
    title: 'Counterfactual Validation: the condition the simulator was built from',
    ignoreFocusOut: true,
  });
  if (!from) return undefined;
  const to = await vscode.window.showQuickPick(
    order(
      conditions.filter((c) => c !== from),
      'bad',
    ),
    { title: `Counterfactual Validation: the unseen condition (shift from "${from}")`, ignoreFocusOut: true },
  );
  if (!to) return undefined;
  const uris = await pickFiles(
    'Counterfactual Validation: simulated conversations (both conditions, in one file or one file each)',
    { many: true },
  );
  if (!uris) return undefined;
  const pairs: ConditionPairSpec[] = [];
  const single = new Map<string, { from?: PopulationSpec; to?: PopulationSpec }>();
  const all: Conversation[] = [...humanConvs];
  for (const uri of uris) {
    const spec = populationSpec(uri, cwd(), undefined);
    const convs = await loadWithProgress(loader, spec.file);
    all.push(...convs);
    const has = new Set(convs.map(conversationCondition));
    if (has.has(from) && has.has(to)) {
      pairs.push({
        label: defaultLabel(spec),
        from: { ...spec, filter: { condition: from } },
        to: { ...spec, filter: { condition: to } },
      });
      continue;
    }
    const which = has.has(from) ? 'from' : has.has(to) ? 'to' : undefined;
    if (!which) throw new Error(`${spec.file} has no conversations in condition "${from}" or "${to}"`);
    const source = convs.length ? conversationSource(convs[0]) : defaultLabel(spec);
    const slot = single.get(source) ?? {};
    slot[which] = { ...spec, filter: { condition: which === 'from' ? from : to } };
    single.set(source, slot);
  }
  for (const [source, slot] of single) {
    if (!slot.from || !slot.to)
      throw new Error(
        `simulator "${source}": pick its conversations in both "${from}" and "${to}" (one file with both, or one file each)`,
      );
    pairs.push({ label: source, from: slot.from, to: slot.to });
  }
  const acts = await pickActSource(all);
  if (!acts) return undefined;
  return { kind: 'counterfactual', human, simulators: pairs, from, to, acts };
}

async function simulationFlow(loader: PopulationLoader): Promise<ReportSpec | undefined> {
  const uris = await pickFiles('Simulation Metrics: simulated runs', { many: true });
  if (!uris) return undefined;
  const populations = uris.map((u) => populationSpec(u, cwd(), undefined));
  const NONE = 'No real-user reference';
  const refPick = await vscode.window.showQuickPick(
    [NONE, 'Pick a real-user file (for DS-KL and ranking agreement)…'],
    { title: 'Simulation Metrics: reference', ignoreFocusOut: true },
  );
  if (!refPick) return undefined;
  let reference: PopulationSpec | undefined;
  if (refPick !== NONE) {
    const r = await pickPopulation(loader, 'Simulation Metrics: real users');
    if (!r) return undefined;
    reference = r.spec;
  }
  return { kind: 'simulation', populations, ...(reference ? { reference } : {}) };
}

/**
 * "Check Behavioural Invariants": the file given (explorer or editor title menu, the editor's
 * toolbar), else the file of the active editor tab, else a picked file. The whole file is checked.
 */
async function invariantsFlow(_loader: PopulationLoader, arg?: unknown): Promise<ReportSpec | undefined> {
  const uri =
    arg instanceof vscode.Uri
      ? arg
      : (activeConversationFile() ?? (await pickFiles('Check Behavioural Invariants: conversation file'))?.[0]);
  if (!uri) return undefined;
  return { kind: 'invariants', population: populationSpec(uri, cwd(), undefined) };
}

interface SimulatorItem extends vscode.QuickPickItem {
  spec?: string;
  action?: 'json' | 'custom';
}

async function validateFlow(loader: PopulationLoader): Promise<ReportSpec | undefined> {
  const human = await pickPopulation(loader, 'Validate Simulator: human conversations');
  if (!human) return undefined;
  const items: SimulatorItem[] = [
    {
      label: 'agenda:cir6:pkg',
      description: 'agenda-based, CIR6 interaction model, PKG preferences',
      spec: 'agenda:cir6:pkg',
    },
    {
      label: 'agenda:qrfa:pkg',
      description: 'agenda-based, QRFA interaction model, PKG preferences',
      spec: 'agenda:qrfa:pkg',
    },
    {
      label: 'agenda:cir6:single',
      description: 'agenda-based, CIR6, single-item preferences',
      spec: 'agenda:cir6:single',
    },
    { label: 'target-free', description: 'PEPPER-style target-free user', spec: 'target-free' },
    {
      label: 'llm-prompted',
      description: 'prompted LLM user (SimLens LLM settings and API key)',
      spec: 'llm-prompted',
    },
    { label: '$(json) Simulation options file…', description: 'a JSON object with simulate options', action: 'json' },
    { label: '$(edit) Other…', description: 'e.g. agenda:cir6:pkg:patience=6', action: 'custom' },
  ];
  const pick = await vscode.window.showQuickPick(items, {
    title: 'Validate Simulator: simulated user',
    ignoreFocusOut: true,
  });
  if (!pick) return undefined;
  let simulator = pick.spec;
  if (pick.action === 'json') {
    const file = await vscode.window.showOpenDialog({
      title: 'Simulation options (JSON)',
      filters: { JSON: ['json'] },
      canSelectMany: false,
    });
    if (!file?.[0]) return undefined;
    simulator = file[0].fsPath;
  } else if (pick.action === 'custom') {
    simulator = await vscode.window.showInputBox({
      title: 'Validate Simulator: simulator spec',
      value: 'agenda:cir6:pkg',
      ignoreFocusOut: true,
      validateInput: (v) => {
        try {
          parseInlineSimulator(v);
          return undefined;
        } catch (e) {
          return (e as Error).message;
        }
      },
    });
  }
  if (!simulator) return undefined;
  const agentsText = await vscode.window.showInputBox({
    title: 'Validate Simulator: agents (comma-separated; the first two drive the counterfactual test)',
    value: 'local-good,local-bad',
    ignoreFocusOut: true,
    validateInput: (v) =>
      v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean).length
        ? undefined
        : 'at least one agent, e.g. local-good,local-bad',
  });
  if (!agentsText) return undefined;
  const n = await askInteger('Validate Simulator: conversations per agent', 300, 10, 100_000);
  if (n === undefined) return undefined;
  const out = join(cwd(), 'simlens-reports', `fidelity-${new Date().toISOString().replace(/[:.]/g, '-').slice(0, 19)}`);
  return {
    kind: 'fidelity',
    human: human.spec,
    simulator,
    agents: agentsText
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    n,
    out,
  };
}

/**
 * Registers the panel commands; returns `revive`, which the panel serializer registered at
 * activation (src/extension/lazy.ts) calls to restore a panel.
 */
export function registerMetricPanels(
  context: vscode.ExtensionContext,
  log: vscode.LogOutputChannel,
): { panels: ReadonlySet<MetricPanel>; revive: (panel: vscode.WebviewPanel, state: unknown) => void } {
  const deps: PanelDeps = { extensionUri: context.extensionUri, log, cwd };
  const command = <T extends ReportSpec>(
    id: string,
    schema: Parameters<typeof specArgument<T>>[1],
    flow: (loader: PopulationLoader, arg?: unknown) => Promise<ReportSpec | undefined>,
    needsTrust = false,
  ) =>
    vscode.commands.registerCommand(id, async (arg?: unknown) => {
      try {
        if (needsTrust && !vscode.workspace.isTrusted) {
          void notify.warning('SimLens: running simulations needs a trusted workspace (Manage Workspace Trust).');
          return undefined;
        }
        const given = specArgument<T>(arg, schema);
        if (given instanceof Error) throw given;
        const spec = given ?? (await flow(new PopulationLoader(cwd()), arg));
        if (!spec) return undefined;
        return MetricPanel.open(deps, spec);
      } catch (e) {
        log.error(`${id}: ${(e as Error).message}`);
        void notify.error(`SimLens: ${(e as Error).message}`);
        return undefined;
      }
    });
  context.subscriptions.push(
    command(PANEL_COMMANDS.compare, PlsaSpecSchema, compareFlow),
    command(PANEL_COMMANDS.humanLikeness, HlsSpecSchema, humanLikenessFlow),
    command(PANEL_COMMANDS.counterfactual, CounterfactualSpecSchema, counterfactualFlow),
    command(PANEL_COMMANDS.simulation, SimulationSpecSchema, simulationFlow),
    command(PANEL_COMMANDS.validate, FidelitySpecSchema, validateFlow, true),
    command(PANEL_COMMANDS.invariants, InvariantsSpecSchema, invariantsFlow),
  );
  /** Restores a panel VS Code kept from the last session (the serializer lives in dist/extension.js). */
  const revive = (panel: vscode.WebviewPanel, state: unknown): void => {
    const parsed = PanelStateSchema.safeParse(state);
    if (!parsed.success) {
      log.warn(`metric panel: could not restore a panel (state: ${parsed.error.issues[0]?.message ?? 'invalid'})`);
      MetricPanel.revive(deps, panel, null, undefined, undefined);
      return;
    }
    let report: Report | undefined;
    if (parsed.data.report !== undefined) {
      try {
        report = parseReport(parsed.data.report, 'saved report');
      } catch (e) {
        log.warn(`metric panel: ${(e as Error).message}; recomputing`);
      }
    }
    MetricPanel.revive(deps, panel, parsed.data.spec, report, parsed.data.outDir);
  };
  return { panels: MetricPanel.all, revive };
}
