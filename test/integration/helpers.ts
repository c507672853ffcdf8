/** Small helpers shared by the in-host integration suites. */
import * as vscode from 'vscode';

/** The extension identifier (`publisher.name` from package.json). */
export const EXTENSION_ID = 'simlens.simlens';

/** Returns the SimLens extension, activated. Throws when it is not installed. */
export async function activeExtension(): Promise<vscode.Extension<unknown>> {
  const extension = vscode.extensions.getExtension(EXTENSION_ID);
  if (!extension) throw new Error(`extension ${EXTENSION_ID} is not installed in this VS Code`);
  if (!extension.isActive) await extension.activate();
  return extension;
}

/** The first workspace folder; throws when the window has none. */
export function workspaceFolder(): vscode.WorkspaceFolder {
  const folder = vscode.workspace.workspaceFolders?.[0];
  if (!folder) throw new Error('the integration suites need a window with a workspace folder open');
  return folder;
}

/** The `contributes` block of the installed extension's package.json. */
export function contributes(extension: vscode.Extension<unknown>): {
  commands?: Array<{ command: string; title: string }>;
  customEditors?: Array<{ viewType: string }>;
} {
  const pkg = extension.packageJSON as { contributes?: ReturnType<typeof contributes> };
  return pkg.contributes ?? {};
}
