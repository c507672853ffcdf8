/** The annotator id and annotation taxonomy, asked for and changed from the editor (gear button, first annotation, taxonomy offer). */
import * as vscode from 'vscode';
import { BUILTIN_TAXONOMIES, builtinTaxonomy } from '../../core/taxonomy';
import { defaultAnnotator } from './settings';

/** Asks for an annotator id and stores it in the user settings; undefined when cancelled. */
export async function askAnnotatorId(current: string): Promise<string | undefined> {
  const id = await vscode.window.showInputBox({
    title: 'SimLens: your annotator id',
    prompt: 'Stored with every dialogue-act annotation you make (setting simlens.annotator).',
    value: current || defaultAnnotator(),
    ignoreFocusOut: true,
    validateInput: (v) =>
      v.trim() === '' ? 'An annotator id cannot be empty.' : v.length > 200 ? 'At most 200 characters.' : undefined,
  });
  const trimmed = id?.trim();
  if (!trimmed) return undefined;
  await vscode.workspace.getConfiguration('simlens').update('annotator', trimmed, vscode.ConfigurationTarget.Global);
  return trimmed;
}

/** Sets `simlens.taxonomy` to a built-in taxonomy for this file's workspace folder (user settings without a folder). */
export async function useTaxonomy(documentUri: vscode.Uri, name: string): Promise<boolean> {
  const tax = builtinTaxonomy(name);
  if (!tax) return false;
  const folder = vscode.workspace.getWorkspaceFolder(documentUri);
  const config = vscode.workspace.getConfiguration('simlens', documentUri);
  await config.update(
    'taxonomy',
    tax.name,
    folder ? vscode.ConfigurationTarget.WorkspaceFolder : vscode.ConfigurationTarget.Global,
  );
  return true;
}

/** The gear button: a quick pick with exactly the annotator and taxonomy settings. */
export async function annotationSettingsPicker(
  documentUri: vscode.Uri,
  annotator: string,
  taxonomy: string,
): Promise<void> {
  const pick = await vscode.window.showQuickPick(
    [
      { label: '$(account) Annotator id', description: annotator || 'not set', id: 'annotator' },
      { label: '$(tag) Annotation taxonomy', description: taxonomy, id: 'taxonomy' },
    ],
    { title: 'SimLens annotation settings' },
  );
  if (pick?.id === 'annotator') await askAnnotatorId(annotator);
  else if (pick?.id === 'taxonomy') {
    const items = [
      ...BUILTIN_TAXONOMIES.map((t) => ({
        label: t.name,
        description: t.name === taxonomy ? `${t.description ?? ''} (current)` : t.description,
        custom: false,
      })),
      { label: '$(file) Custom taxonomy file…', description: 'edit the simlens.taxonomy setting', custom: true },
    ];
    const t = await vscode.window.showQuickPick(items, { title: 'Annotation taxonomy' });
    if (t?.custom) await vscode.commands.executeCommand('workbench.action.openSettings', 'simlens.taxonomy');
    else if (t) await useTaxonomy(documentUri, t.label);
  }
}
