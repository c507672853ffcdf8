/**
 * Supervised fine-tuning data for a user simulator (ConvApparel's SFT simulator): one example per
 * human user turn, the conversation before it as input and the human's utterance as the target.
 *
 * The simulator is the one speaking, so in chat form the roles are turned around: the assistant's
 * messages become `user` messages and the shopper's utterances become `assistant` messages, in the
 * same "Response: ... / Terminate: ..." shape the prompted user parses. A last example per
 * conversation teaches when to stop (empty response, Terminate: True). The same builder produces
 * the prompt of the `llm-sft` user at run time, so training and use match exactly.
 */
import type { Conversation } from '../model';
import { conversationCondition, conversationSource, conversationTask } from '../model';
import type { ChatMessage } from './client';
import type { PromptLibrary } from './templates';
import { conversationEntries, renderItems, type TranscriptEntry } from './transcript';

/** The first message when the shopper speaks first. */
const SFT_OPENING = '(The chat has started. Write your first message.)';

function target(utterance: string, terminate: boolean): string {
  return `Response: ${utterance.replace(/\s*\n\s*/g, ' ').trim()}\nTerminate: ${terminate ? 'True' : 'False'}`;
}

function agentMessage(entry: TranscriptEntry): string {
  const items = entry.items?.length ? `\n${renderItems(entry.items, { maxItems: 4 })}` : '';
  return `${entry.text}${items}`;
}

/** Chat messages for the shopper's next utterance given the history (role-flipped; see module doc). */
export function sftMessages(
  prompts: PromptLibrary,
  task: string,
  history: readonly TranscriptEntry[],
): { messages: ChatMessage[]; template: string } {
  const system = prompts.render('user-sft', { category: task.replace(/_/g, ' ') });
  const messages: ChatMessage[] = [{ role: 'system', content: system.text }];
  if (history.length === 0 || history[0].speaker === 'user') messages.push({ role: 'user', content: SFT_OPENING });
  for (const e of history) {
    messages.push(
      e.speaker === 'user'
        ? { role: 'assistant', content: target(e.text, false) }
        : { role: 'user', content: agentMessage(e) },
    );
  }
  return { messages, template: system.id };
}

interface SftOptions {
  /** Keep only conversations of this condition (e.g. "good" for counterfactual training). */
  condition?: string;
  /** Keep only conversations from this source (default "human"; "*" keeps all). */
  source?: string;
  /** Add the stop example after the last turn (default true). */
  terminalExample?: boolean;
  /** "chat" (OpenAI-style {"messages": [...]}) or "prompt" ({"prompt", "completion"}). */
  format?: 'chat' | 'prompt';
  /** Task used when a conversation has no task_id (default "clothing"). */
  defaultTask?: string;
}

type SftExample = { messages: ChatMessage[] } | { prompt: string; completion: string };

/** True when the conversation passes the condition/source filters. */
export function sftAccepts(conv: Conversation, opts: SftOptions = {}): boolean {
  if (opts.condition && conversationCondition(conv) !== opts.condition) return false;
  const source = opts.source ?? 'human';
  return source === '*' || conversationSource(conv) === source;
}

/** The fine-tuning examples of one conversation (none when it is filtered out). */
export function sftExamples(conv: Conversation, prompts: PromptLibrary, opts: SftOptions = {}): SftExample[] {
  if (!sftAccepts(conv, opts)) return [];
  const task = conversationTask(conv) ?? opts.defaultTask ?? 'clothing';
  const entries = conversationEntries(conv);
  const out: SftExample[] = [];
  const emit = (history: TranscriptEntry[], answer: string) => {
    const { messages } = sftMessages(prompts, task, history);
    if (opts.format === 'prompt') {
      const prompt = messages
        .map((m) => `${m.role === 'system' ? 'SYSTEM' : m.role === 'user' ? 'ASSISTANT' : 'SHOPPER'}: ${m.content}`)
        .join('\n\n');
      out.push({ prompt: `${prompt}\n\nSHOPPER:`, completion: ` ${answer}` });
    } else {
      out.push({ messages: [...messages, { role: 'assistant', content: answer }] });
    }
  };
  entries.forEach((e, i) => {
    if (e.speaker === 'user' && e.text.trim()) emit(entries.slice(0, i), target(e.text, false));
  });
  if ((opts.terminalExample ?? true) && entries.some((e) => e.speaker === 'user')) emit(entries, target('', true));
  return out;
}
