/**
 * "SimLens: Play the Recommender…": the researcher writes the recommender's replies (and picks catalog
 * items for the carousel) and the simulated user, built-in or external, answers; its act and state
 * are shown with each utterance. Also reached from a paused run ("Play the Recommender from Here"),
 * which continues the paused conversation's user from that turn. The played conversation is
 * appended to `simlens-play.sim.jsonl` in the workspace folder and opened there, its state beside
 * each turn. The logic is core's `playConversation` (src/core/run/play.ts); this file only asks.
 */
import * as path from 'node:path';
import { appendFile } from 'node:fs/promises';
import * as vscode from 'vscode';
import { notify } from './safeOutput';
import {
  parseSimulationConfig,
  prepareEnvironment,
  playConversation,
  type PlayView,
  type SimulationEnvironment,
} from '../core/run/index';
import { encodeConversationLine } from '../core/run/output';
import type { Conversation, RecommendedItem } from '../core/model';
import type { AgentResponse } from '../core/sim/types';
import { escapeControl } from '../core/text/terminal';
import { pickUser } from './simulation';

const PLAY_FILE = 'simlens-play.sim.jsonl';

/** One line of state for the prompt: act, agenda, patience, goal (escaped, short). */
function stateLine(view: PlayView): string {
  const t = view.trace as Record<string, unknown>;
  const parts = [`act ${view.act}`];
  if (Array.isArray(t['agenda'])) parts.push(`agenda [${(t['agenda'] as unknown[]).map(String).join(', ')}]`);
  if (typeof t['patience'] === 'number') parts.push(`patience ${t['patience']}`);
  const goal = (t['goal'] as { constraints?: Record<string, unknown> } | undefined)?.constraints;
  if (goal && Object.keys(goal).length)
    parts.push(
      `goal ${Object.entries(goal)
        .map(([k, v]) => `${k}=${String(v)}`)
        .join(', ')}`,
    );
  const extra = Object.keys(t).filter(
    (k) => !['agenda', 'patience', 'goal', 'user_act', 'said', 'operation', 'pulled', 'pushed'].includes(k),
  );
  if (extra.length) parts.push(`also ${extra.join(', ')}`);
  return escapeControl(parts.join(' · '));
}

async function askReply(env: SimulationEnvironment, view: PlayView, task: string): Promise<AgentResponse | undefined> {
  const utterance = await vscode.window.showInputBox({
    title: `Turn ${view.turn + 1}, the user says: "${escapeControl(view.utterance).slice(0, 200)}"`,
    prompt: `${stateLine(view)}. Type the recommender's reply (Escape ends the conversation).`,
    ignoreFocusOut: true,
  });
  if (utterance === undefined) return undefined;
  const items = env.catalog.categoryItems(task).length ? env.catalog.categoryItems(task) : [];
  const chosen = items.length
    ? await vscode.window.showQuickPick(
        items.map((it) => ({
          label: it.title,
          description: it.item_id,
          detail: Object.entries(it.attributes)
            .map(([k, v]) => `${k}: ${v}`)
            .join(', '),
          item: it,
        })),
        {
          title: 'Items to show in the carousel (none: press Enter)',
          canPickMany: true,
          ignoreFocusOut: true,
          matchOnDescription: true,
          matchOnDetail: true,
        },
      )
    : [];
  const recommendations: RecommendedItem[] = (chosen ?? []).map((c) => env.catalog.toRecommendedItem(c.item));
  return { utterance, recommendations, acts: recommendations.length ? ['recommend'] : [] };
}

async function play(
  env: SimulationEnvironment,
  output: vscode.LogOutputChannel,
  from?: { conversation: Conversation; turn: number },
): Promise<void> {
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  if (!folder) {
    void notify.error('Open a folder first: the played conversation is saved there.');
    return;
  }
  let task = '';
  const result = await playConversation(env, {
    index: Math.floor(Math.random() * 1_000_000),
    from,
    ask: async (view) => {
      task ||=
        String(from?.conversation.task_id ?? '').replace(/_(good|bad)$/, '') ||
        env.config.task ||
        env.catalog.categories()[0];
      return askReply(env, view, task);
    },
  });
  const file = path.join(folder, PLAY_FILE);
  // One line, newline included (the run's own encoder: the same bytes a run would write).
  await appendFile(file, Buffer.concat(encodeConversationLine(result.conversation)));
  output.info(
    `played ${result.conversation.id} (${result.conversation.turns.length} turns, ${result.conversation.outcome}) -> ${file}`,
  );
  if (result.failure) void notify.warning(`The simulated user failed: ${result.failure.message}`);
  await vscode.commands.executeCommand('simlens.goToConversation', { file, id: result.conversation.id });
}

/** From a paused run: the same user and configuration, continuing `conversation` at `turn`. */
export async function playFrom(
  env: SimulationEnvironment,
  conversation: Conversation,
  turn: number,
  output: vscode.LogOutputChannel,
): Promise<void> {
  try {
    await play(env, output, { conversation, turn });
  } catch (err) {
    void notify.error(`SimLens could not play from this turn: ${err instanceof Error ? err.message : String(err)}`);
  }
}

async function playFromCommand(output: vscode.LogOutputChannel): Promise<void> {
  if (!vscode.workspace.isTrusted) {
    void notify.error('SimLens starts simulators only in a trusted workspace.');
    return;
  }
  const picked = await pickUser('Simulated user to play against', 1, output);
  if (!picked) return;
  const cwd = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? process.cwd();
  let env: SimulationEnvironment | undefined;
  try {
    env = await prepareEnvironment(parseSimulationConfig({ user: picked.user, agent: 'local-good', n: 1 }), cwd, {
      simulator: picked.external
        ? { cwd: picked.external.cwd, env: picked.external.env, onStderr: (line) => output.info(`[simulator] ${line}`) }
        : undefined,
    });
    await play(env, output);
  } catch (err) {
    void notify.error(`SimLens: ${err instanceof Error ? err.message : String(err)}`);
  } finally {
    await env?.user.dispose?.();
  }
}

export function registerPlay(context: vscode.ExtensionContext, output: vscode.LogOutputChannel): void {
  context.subscriptions.push(vscode.commands.registerCommand('simlens.playRecommender', () => playFromCommand(output)));
}
