/**
 * Quick picks for the metric commands: conversation files (workspace `*.jsonl` plus a file
 * dialog), a filter over a file's facets (condition / task / source / agent), the dialogue-act
 * source (lexical tagger, simulator trace, LLM judge, or one annotator) and small text inputs.
 * Every picker returns undefined when the user cancels.
 */
import * as vscode from 'vscode';
import { isAbsolute, relative } from 'node:path';
import type { Conversation } from '../../core/model';
import { conversationFilesOnly } from './populationFiles';
import {
  populationFacets,
  type PopulationFilter,
  type PopulationLoader,
  type PopulationSpec,
} from '../../core/report/populations';

const BROWSE = '$(folder-opened) Browse…';

interface FileItem extends vscode.QuickPickItem {
  uri?: vscode.Uri;
}

/** The path to store in a spec: relative to the working folder when inside it, else absolute. */
function specPath(uri: vscode.Uri, cwd: string): string {
  const rel = relative(cwd, uri.fsPath);
  return rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : uri.fsPath;
}

/** Workspace `*.jsonl` files whose first lines are conversations (catalogs, archives, empty files left out). */
async function workspaceConversationFiles(): Promise<{ uris: vscode.Uri[]; skipped: number }> {
  const found = (await vscode.workspace.findFiles('**/*.jsonl', '**/{node_modules,.git,dist,out}/**', 500)).filter(
    (u) => u.scheme === 'file',
  );
  const { files, skipped } = await conversationFilesOnly(found.map((u) => u.fsPath));
  const keep = new Set(files);
  return {
    uris: found.filter((u) => keep.has(u.fsPath)).sort((a, b) => a.fsPath.localeCompare(b.fsPath)),
    skipped: skipped.length,
  };
}

/**
 * Picks one or more conversation files: workspace `*.jsonl` files first, then "Browse…" for any
 * file (JSON exports included). `exclude` hides files already chosen.
 */
export async function pickFiles(
  title: string,
  opts: { many?: boolean; placeholder?: string; exclude?: readonly string[] } = {},
): Promise<vscode.Uri[] | undefined> {
  const found = await workspaceConversationFiles();
  const files = found.uris.filter((u) => !opts.exclude?.includes(u.fsPath));
  const items: FileItem[] = files.map((uri) => ({
    label: `$(file) ${uri.path.replace(/^.*\//, '')}`,
    description: vscode.workspace.asRelativePath(uri.with({ path: uri.path.replace(/\/[^/]*$/, '') || '/' })),
    uri,
  }));
  items.push({
    label: BROWSE,
    alwaysShow: true,
    description: found.skipped
      ? `${found.skipped} .jsonl file${found.skipped === 1 ? '' : 's'} that are not conversations (catalogs, archives, empty) not listed`
      : undefined,
  });
  const picked = opts.many
    ? await vscode.window.showQuickPick(items, {
        title,
        placeHolder: opts.placeholder,
        canPickMany: true,
        ignoreFocusOut: true,
        matchOnDescription: true,
      })
    : await vscode.window
        .showQuickPick(items, { title, placeHolder: opts.placeholder, ignoreFocusOut: true, matchOnDescription: true })
        .then((p) => (p ? [p] : undefined));
  if (!picked || picked.length === 0) return undefined;
  const uris = picked.filter((p) => p.uri).map((p) => p.uri!);
  if (picked.some((p) => p.label === BROWSE)) {
    const chosen = await vscode.window.showOpenDialog({
      title,
      canSelectMany: opts.many === true,
      openLabel: 'Use',
      filters: { Conversations: ['jsonl', 'json'], 'All files': ['*'] },
    });
    if (!chosen) return uris.length ? uris : undefined;
    uris.push(...chosen);
  }
  return uris.length ? uris : undefined;
}

/**
 * The conversation file the user is looking at: the active tab's file when it is a SimLens editor
 * (custom editor) or a text editor on a `.jsonl`/`.json` file; undefined otherwise.
 */
export function activeConversationFile(): vscode.Uri | undefined {
  const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
  const uri = input instanceof vscode.TabInputCustom || input instanceof vscode.TabInputText ? input.uri : undefined;
  return uri && uri.scheme === 'file' && /\.jsonl?$/i.test(uri.path) ? uri : undefined;
}

/** Loads a file with a progress notification (the loader caches it for the computation). */
export async function loadWithProgress(loader: PopulationLoader, file: string): Promise<Conversation[]> {
  return vscode.window.withProgress(
    { location: vscode.ProgressLocation.Window, title: `SimLens: reading ${file}` },
    async () => (await loader.file(file)).conversations,
  );
}

interface FilterItem extends vscode.QuickPickItem {
  filter?: PopulationFilter;
}

/**
 * Offers "all conversations" or one facet value (condition, task, source, agent) of a file. Files
 * with nothing to choose from return {} without asking.
 */
export async function pickFilter(
  title: string,
  conversations: readonly Conversation[],
): Promise<PopulationFilter | undefined> {
  const f = populationFacets(conversations);
  const items: FilterItem[] = [{ label: `All ${f.total} conversations`, filter: {} }];
  for (const key of ['condition', 'task', 'source', 'agent'] as const) {
    const values = f[key];
    if (values.length < 2) continue;
    items.push({ label: key, kind: vscode.QuickPickItemKind.Separator });
    for (const [value, n] of values)
      items.push({ label: `${key} = ${value}`, description: `${n} conversations`, filter: { [key]: value } });
  }
  if (items.length === 1) return {};
  const picked = await vscode.window.showQuickPick(items, {
    title,
    placeHolder: 'Use all conversations or filter by condition, task, source or agent',
    ignoreFocusOut: true,
  });
  return picked?.filter;
}

/** A population spec for a file and an optional filter. */
export function populationSpec(uri: vscode.Uri, cwd: string, filter: PopulationFilter | undefined): PopulationSpec {
  const spec: PopulationSpec = { file: specPath(uri, cwd) };
  if (filter && Object.keys(filter).length) spec.filter = filter;
  return spec;
}

interface ActItem extends vscode.QuickPickItem {
  acts: string;
}

/**
 * Picks where dialogue acts come from, offering only what the conversations have: the lexical
 * tagger (always), the simulator trace, an LLM judge, and each utterance annotator. Returns
 * "tagger" without asking when nothing else is available.
 */
export async function pickActSource(conversations: readonly Conversation[]): Promise<string | undefined> {
  const annotators = new Map<string, number>();
  let traces = 0;
  let judges = 0;
  for (const c of conversations) {
    for (const a of c.annotations ?? []) if (a.annotator.startsWith('judge:')) judges++;
    for (const t of c.turns) {
      if (t.trace?.user_act) traces++;
      for (const a of t.annotations ?? [])
        if (a.speaker === 'user') annotators.set(a.annotator, (annotators.get(a.annotator) ?? 0) + 1);
    }
  }
  const items: ActItem[] = [
    { label: 'Lexical tagger', description: 'the same embedded tagger on every population (default)', acts: 'tagger' },
  ];
  if (traces) items.push({ label: 'Simulator trace', description: `trace.user_act (${traces} turns)`, acts: 'trace' });
  if (judges) items.push({ label: 'LLM judge', description: `${judges} judge annotations`, acts: 'judge' });
  for (const [name, n] of [...annotators.entries()].sort((a, b) => b[1] - a[1]))
    items.push({ label: `Annotator: ${name}`, description: `${n} user utterances`, acts: name });
  if (items.length === 1) return 'tagger';
  const picked = await vscode.window.showQuickPick(items, {
    title: 'Dialogue acts from…',
    placeHolder: 'Where the act-count features (act:<name>) come from',
    ignoreFocusOut: true,
  });
  return picked?.acts;
}

/** A positive integer from an input box. */
export async function askInteger(title: string, value: number, min: number, max: number): Promise<number | undefined> {
  const text = await vscode.window.showInputBox({
    title,
    value: String(value),
    ignoreFocusOut: true,
    validateInput: (v) =>
      /^\d+$/.test(v.trim()) && Number(v) >= min && Number(v) <= max
        ? undefined
        : `a whole number from ${min} to ${max}`,
  });
  return text === undefined ? undefined : Number(text.trim());
}
