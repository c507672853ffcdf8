/** Reads the editor's settings (simlens.annotator, simlens.taxonomy, ...) into plain values. */
import * as vscode from 'vscode';
import { userInfo } from 'node:os';
import { dirname } from 'node:path';
import { resolveTaxonomySetting } from '../../core/document/taxonomySetting';
import type { EditorSettings } from './controller';

/** The OS user name, or "annotator" when the platform cannot tell. */
export function defaultAnnotator(): string {
  try {
    return userInfo().username || 'annotator';
  } catch {
    return 'annotator';
  }
}

/** Current settings for a document (relative taxonomy paths resolve against the workspace folder or the file's folder). */
/** simlens.allowRemoteImages for this file (the page's CSP depends on it). */
export function allowRemoteImages(documentUri: vscode.Uri): boolean {
  return vscode.workspace.getConfiguration('simlens', documentUri).get<boolean>('allowRemoteImages') === true;
}

export async function readEditorSettings(documentUri: vscode.Uri): Promise<EditorSettings> {
  const config = vscode.workspace.getConfiguration('simlens', documentUri);
  // Empty when unset: the editor asks for an id on the first annotation instead of guessing.
  const annotator = (config.get<string>('annotator') ?? '').trim();
  const folder = vscode.workspace.getWorkspaceFolder(documentUri)?.uri.fsPath ?? dirname(documentUri.fsPath);
  const resolved = await resolveTaxonomySetting(config.get<unknown>('taxonomy'), folder);
  const speed = config.get<number>('replaySpeed') ?? 1.5;
  return {
    annotator,
    taxonomy: resolved.taxonomy,
    taxonomyError: resolved.error,
    allowRemoteImages: allowRemoteImages(documentUri),
    replayIntervalMs: Math.round(Math.min(30, Math.max(0.2, speed)) * 1000),
  };
}
