/**
 * Conversations as the plain text LLMs read: one line per utterance, "USER: ..." / "ASSISTANT: ...",
 * with the items an assistant turn showed listed under it (titles, optionally features).
 */
import type { Conversation, HistoryEntry, RecommendedItem } from '../model';

interface TranscriptOptions {
  /** Items listed per assistant turn (default 4; 0 hides them). */
  maxItems?: number;
  /** Include each item's features (default false). */
  itemFeatures?: boolean;
  /** Cut utterances longer than this many characters (default: no cut). */
  maxUtteranceChars?: number;
  userLabel?: string;
  assistantLabel?: string;
}

/** A transcript entry: one utterance, and for the assistant the items it showed. */
export interface TranscriptEntry extends HistoryEntry {
  items?: readonly RecommendedItem[];
}

function cut(text: string, max?: number): string {
  const t = text.replace(/\s+/g, ' ').trim();
  return max !== undefined && t.length > max ? `${t.slice(0, max).trimEnd()}…` : t;
}

/** One line per item: "  [1] Title (features)". */
export function renderItems(items: readonly RecommendedItem[], opts: TranscriptOptions = {}): string {
  const max = opts.maxItems ?? 4;
  return items
    .slice(0, max)
    .map((item, i) => {
      const features =
        opts.itemFeatures && item.features
          ? ` (${Array.isArray(item.features) ? item.features.join(', ') : item.features})`
          : '';
      return `  [${i + 1}] ${cut(item.title ?? item.item_id, 120)}${features}`;
    })
    .join('\n');
}

/** Renders history entries as a transcript. */
export function renderTranscript(entries: readonly TranscriptEntry[], opts: TranscriptOptions = {}): string {
  const user = opts.userLabel ?? 'USER';
  const assistant = opts.assistantLabel ?? 'ASSISTANT';
  const lines: string[] = [];
  for (const e of entries) {
    lines.push(`${e.speaker === 'user' ? user : assistant}: ${cut(e.text, opts.maxUtteranceChars)}`);
    if (e.speaker === 'assistant' && e.items?.length && (opts.maxItems ?? 4) > 0)
      lines.push(renderItems(e.items, opts));
  }
  return lines.length ? lines.join('\n') : '(nothing has been said yet)';
}

/** The turns of a stored conversation as transcript entries (user first within each turn). */
export function conversationEntries(conv: Conversation): TranscriptEntry[] {
  const out: TranscriptEntry[] = [];
  for (const turn of conv.turns) {
    if (turn.user_utterance !== undefined && turn.user_utterance !== '')
      out.push({ speaker: 'user', text: turn.user_utterance });
    if (turn.assistant_utterance !== undefined && turn.assistant_utterance !== '') {
      out.push({ speaker: 'assistant', text: turn.assistant_utterance, items: turn.recommendations });
    }
  }
  return out;
}

/** A stored conversation rendered as a transcript. */
export function conversationTranscript(conv: Conversation, opts: TranscriptOptions = {}): string {
  return renderTranscript(conversationEntries(conv), opts);
}
