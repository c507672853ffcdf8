/**
 * VS Code shell of the LLM layer: the API key in SecretStorage ("SimLens: Set API Key" / "Clear
 * API Key"), the per-role settings `simlens.llm.<role>.*`, a connection check, and
 * `createLlmServicesFromWorkspace` for other areas (simulation runs, judge, discriminator) to
 * obtain configured services. Nothing LLM-related runs in an untrusted workspace: its settings could
 * point requests (with the key) at any server.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { notify } from './safeOutput';
import { LLM_ROLES, type LlmRole, type LlmRoleInput, type LlmSettingsInput } from '../core/llm/config';
import type { LlmServices } from '../core/llm/services';
import { workspaceLlmServices } from './simulationRun';
import { WORKSPACE_PROMPTS_DIR } from '../core/llm/templates';
import { redactSecrets } from '../core/llm/redact';

const SECRET_KEY = 'simlens.llm.apiKey';
let secrets: vscode.SecretStorage | undefined;

/** The stored API key, if any. Never log it. */
async function getApiKey(): Promise<string | undefined> {
  return (await secrets?.get(SECRET_KEY)) || undefined;
}

function roleInput(config: vscode.WorkspaceConfiguration, role: LlmRole): LlmRoleInput {
  const out: LlmRoleInput = {};
  const str = (key: string) => {
    const v = config.get<string>(`${role}.${key}`);
    return typeof v === 'string' && v.trim() ? v.trim() : undefined;
  };
  const num = (key: string) => {
    const v = config.get<number | null>(`${role}.${key}`);
    return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
  };
  const baseUrl = str('baseUrl');
  const model = str('model');
  if (baseUrl) out.baseUrl = baseUrl;
  if (model) out.model = model;
  const temperature = num('temperature');
  if (temperature !== undefined) out.temperature = temperature;
  const maxTokens = num('maxTokens');
  if (maxTokens !== undefined) out.maxTokens = maxTokens;
  const timeoutMs = num('timeoutMs');
  if (timeoutMs !== undefined) out.timeoutMs = timeoutMs;
  const concurrency = num('concurrency');
  if (concurrency !== undefined) out.concurrency = concurrency;
  return out;
}

/** The LLM settings of the workspace (`simlens.llm.*`), as input for `resolveLlmSettings`. */
function workspaceLlmSettings(folder?: vscode.WorkspaceFolder): LlmSettingsInput {
  const config = vscode.workspace.getConfiguration('simlens.llm', folder?.uri);
  const roles: Partial<Record<LlmRole, LlmRoleInput>> = {};
  for (const role of LLM_ROLES) roles[role] = roleInput(config, role);
  const defaults = roleInput(config, 'default' as LlmRole);
  const maxRequests = config.get<number | null>('budget.maxRequests');
  const maxTokens = config.get<number | null>('budget.maxTokens');
  const root = folder?.uri.fsPath ?? vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  const cacheSetting = config.get<string>('cacheDir')?.trim();
  return {
    defaults,
    roles,
    budget: {
      ...(typeof maxRequests === 'number' ? { maxRequests } : {}),
      ...(typeof maxTokens === 'number' ? { maxTokens } : {}),
    },
    cacheDir: cacheSetting
      ? path.isAbsolute(cacheSetting) || !root
        ? cacheSetting
        : path.join(root, cacheSetting)
      : root
        ? path.join(root, '.simlens-cache', 'llm')
        : undefined,
    promptsDir: root ? path.join(root, WORKSPACE_PROMPTS_DIR) : undefined,
  };
}

/**
 * LLM services configured from the workspace settings and the stored key. Throws in an untrusted
 * workspace and names the offending setting when a value is invalid. The signals are a run's
 * `RunStop.llmSignals()` (src/core/run/stop.ts), as the CLI passes them: `signal` cancels requests
 * in flight, `stopRetries` (Cancel) ends every retry and every wait before one at once.
 */
export async function createLlmServicesFromWorkspace(
  opts: { signal?: AbortSignal; stopRetries?: AbortSignal; folder?: vscode.WorkspaceFolder } = {},
): Promise<LlmServices> {
  if (!vscode.workspace.isTrusted)
    throw new Error('SimLens does not call LLM endpoints in an untrusted workspace. Trust the workspace first.');
  return workspaceLlmServices(workspaceLlmSettings(opts.folder), await getApiKey(), opts);
}

async function setApiKey(): Promise<void> {
  const key = await vscode.window.showInputBox({
    title: 'SimLens: Set API Key',
    prompt:
      'API key for your OpenAI-compatible endpoint (stored in VS Code secret storage, never in settings or files)',
    password: true,
    ignoreFocusOut: true,
    validateInput: (v) => (v.trim() ? undefined : 'Enter a key, or use "SimLens: Clear API Key" to remove it'),
  });
  if (key === undefined) return;
  await secrets!.store(SECRET_KEY, key.trim());
  void notify.info('SimLens: API key stored in secret storage.');
}

async function clearApiKey(): Promise<void> {
  await secrets!.delete(SECRET_KEY);
  void notify.info('SimLens: API key removed.');
}

async function testConnection(output: vscode.LogOutputChannel): Promise<void> {
  const role = (await vscode.window.showQuickPick(
    LLM_ROLES.map((r) => r),
    { title: 'SimLens: Test LLM Connection', placeHolder: "Which role's endpoint?" },
  )) as LlmRole | undefined;
  if (!role) return;
  const key = await getApiKey();
  try {
    const services = await createLlmServicesFromWorkspace();
    const client = services.client(role);
    const models = await client.listModels();
    const found = client.model
      ? models.includes(client.model)
        ? `model "${client.model}" is available`
        : `model "${client.model}" is NOT in the list`
      : 'no model set';
    output.info(`LLM ${role} at ${client.publicBaseUrl}: ${models.length} models; ${found}`);
    void notify.info(`SimLens: ${role} endpoint answered with ${models.length} models; ${found}.`);
  } catch (e) {
    const message = redactSecrets(e instanceof Error ? e.message : String(e), [key]);
    output.error(`LLM connection test (${role}): ${message}`);
    void notify.error(`SimLens: ${message}`);
  }
}

/** Registers the LLM commands. Called once from activate(). */
export function registerLlm(context: vscode.ExtensionContext, output: vscode.LogOutputChannel): void {
  secrets = context.secrets;
  const trusted = (fn: () => Promise<void>) => async () => {
    if (!vscode.workspace.isTrusted) {
      void notify.warning('SimLens: LLM features are disabled in untrusted workspaces.');
      return;
    }
    await fn();
  };
  context.subscriptions.push(
    vscode.commands.registerCommand('simlens.llm.setApiKey', trusted(setApiKey)),
    vscode.commands.registerCommand('simlens.llm.clearApiKey', clearApiKey),
    vscode.commands.registerCommand(
      'simlens.llm.testConnection',
      trusted(() => testConnection(output)),
    ),
  );
}
