/**
 * Entry of dist/features.js: the areas loaded on first use (src/extension/lazy.ts), with the
 * simulators, the LLM client and the report code they need. Registering them here replaces the
 * command stubs that activation put in their place.
 */
import type * as vscode from 'vscode';
import { registerLlm } from './llm';
import { registerSimulation } from './simulation';
import { registerFork } from './fork';
import { registerPlay } from './play';
import { registerMetricPanels } from './panels';
import { registerRuns } from './runs';
import { registerCompareRuns } from './compare';

export interface FeatureApi {
  /** Restores a metric panel kept from the last session. */
  reviveMetricPanel(panel: vscode.WebviewPanel, state: unknown): void;
}

/** Registers every lazily loaded area once; called by the loader in lazy.ts. */
export function registerFeatures(context: vscode.ExtensionContext, output: vscode.LogOutputChannel): FeatureApi {
  registerLlm(context, output);
  registerSimulation(context, output);
  registerFork(context, output);
  registerPlay(context, output);
  const panels = registerMetricPanels(context, output);
  registerRuns(context, output);
  registerCompareRuns(context, output);
  return { reviveMetricPanel: panels.revive };
}
