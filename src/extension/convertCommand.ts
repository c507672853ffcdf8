/** "SimLens: Convert to JSONL": converts a wrapped JSON document (or any importable format) beside it. */
import * as vscode from 'vscode';
import { notify } from './safeOutput';
import { convertToJsonl } from './editor/convert';

const CONVERT_COMMAND = 'simlens.convertFile';

export function registerConvertCommand(context: vscode.ExtensionContext, output: vscode.LogOutputChannel): void {
  context.subscriptions.push(
    vscode.commands.registerCommand(CONVERT_COMMAND, (arg?: vscode.Uri | string) => convertAndOffer(arg, output)),
  );
}

/** Converts a wrapped JSON document (or any importable format) to canonical JSONL beside it. */
async function convertAndOffer(arg: vscode.Uri | string | undefined, output: vscode.LogOutputChannel): Promise<void> {
  const uri = typeof arg === 'string' ? vscode.Uri.parse(arg) : (arg ?? vscode.window.activeTextEditor?.document.uri);
  if (!uri || uri.scheme !== 'file') {
    void notify.error('SimLens: open a file to convert first.');
    return;
  }
  try {
    const conversion = await convertToJsonl(uri.fsPath, vscode.workspace.asRelativePath(uri));
    const finalTarget = conversion.target;
    // A readable summary (format, counts, notes, warnings with line and field) in the SimLens output.
    const summary = conversion.summary;
    output.info(`Converted to ${finalTarget}\n${summary.text}`);
    const open = 'Open';
    const details = 'Show Details';
    const choice = await notify.info(
      `SimLens: ${summary.headline}. Written to ${vscode.workspace.asRelativePath(finalTarget)}.`,
      open,
      ...(conversion.warnings || conversion.notes ? [details] : []),
    );
    if (choice === open) await vscode.commands.executeCommand('vscode.open', vscode.Uri.file(finalTarget));
    else if (choice === details) output.show(true);
  } catch (err) {
    void notify.error(`SimLens could not convert ${vscode.workspace.asRelativePath(uri)}: ${(err as Error).message}`);
  }
}
