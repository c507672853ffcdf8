/**
 * Terminal-safe output for the extension: what is written to the SimLens output channel (wrapped by
 * `safeLogChannel`) and every notification (`notify`; src/extension calls `vscode.window.show*Message`
 * nowhere else, test/unit/architecture/safeOutput.test.ts checks it) goes through `escapeControl`,
 * so control and bidi characters from untrusted files show as visible `\u001b` escapes instead of acting.
 */
import * as vscode from 'vscode';
import { escapeControl } from '../core/text/terminal';

const LOG_METHODS = new Set(['trace', 'debug', 'info', 'warn', 'error', 'append', 'appendLine', 'replace']);

function safeArg(a: unknown): unknown {
  if (typeof a === 'string') return escapeControl(a);
  if (a instanceof Error) return escapeControl(a.stack ?? a.message);
  return a;
}

/** The channel with every logged string escaped; everything else passes through. */
export function safeLogChannel(channel: vscode.LogOutputChannel): vscode.LogOutputChannel {
  return new Proxy(channel, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver) as unknown;
      if (typeof prop === 'string' && LOG_METHODS.has(prop) && typeof value === 'function') {
        return (...args: unknown[]) => (value as (...a: unknown[]) => unknown).apply(target, args.map(safeArg));
      }
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/**
 * `showErrorMessage` / `showWarningMessage` / `showInformationMessage` with the message escaped:
 * same signatures (items, options), so every notification in the extension goes through here.
 */
/* eslint-disable @typescript-eslint/no-explicit-any */
export const notify = {
  error: ((message: string, ...rest: any[]) =>
    (vscode.window.showErrorMessage as any)(escapeControl(message), ...rest)) as typeof vscode.window.showErrorMessage,
  warning: ((message: string, ...rest: any[]) =>
    (vscode.window.showWarningMessage as any)(
      escapeControl(message),
      ...rest,
    )) as typeof vscode.window.showWarningMessage,
  info: ((message: string, ...rest: any[]) =>
    (vscode.window.showInformationMessage as any)(
      escapeControl(message),
      ...rest,
    )) as typeof vscode.window.showInformationMessage,
};
