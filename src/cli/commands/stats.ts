/** `simlens stats FILE [--json]`: corpus statistics of a conversation JSONL file, in one streaming pass. */
import { forEachLine, parseLineBytes } from '../../core/jsonl';
import {
  conversationCondition,
  conversationSource,
  conversationTask,
  countWords,
  type Conversation,
} from '../../core/model';
import { formatFlags, parseArgs } from '../args';
import { conversationFileAdvice } from '../../core/importers/index';
import type { CliCommand } from '../types';
import { count, ioErrorMessage, isIoError, resolvePath, table } from '../util';

const FLAGS = {
  json: { type: 'boolean', description: 'print one JSON object instead of text' },
} as const;

/** The numbers `simlens stats` reports. */
export interface CorpusStats {
  file: string;
  lines: number;
  blank_lines: number;
  invalid_lines: number;
  conversations: number;
  turns: number;
  user_turns: number;
  assistant_turns: number;
  user_words: number;
  assistant_words: number;
  items_shown: number;
  by_task: Record<string, number>;
  by_condition: Record<string, number>;
  by_source: Record<string, number>;
}

const NONE = '(none)';

/** Adds one conversation to the running totals. */
function addConversation(s: CorpusStats, conv: Conversation): void {
  s.conversations++;
  s.turns += conv.turns.length;
  for (const turn of conv.turns) {
    if (turn.user_utterance !== undefined) {
      s.user_turns++;
      s.user_words += countWords(turn.user_utterance);
    }
    if (turn.assistant_utterance !== undefined) {
      s.assistant_turns++;
      s.assistant_words += countWords(turn.assistant_utterance);
    }
    s.items_shown += turn.recommendations?.length ?? 0;
  }
  const bump = (m: Record<string, number>, k: string | undefined) => {
    const key = k ?? NONE;
    m[key] = (m[key] ?? 0) + 1;
  };
  bump(s.by_task, conversationTask(conv));
  bump(s.by_condition, conversationCondition(conv));
  bump(s.by_source, conversationSource(conv));
}

/** Streams `path` and computes its statistics (invalid lines are counted and skipped). */
export async function computeStats(path: string, displayName = path): Promise<CorpusStats> {
  const s: CorpusStats = {
    file: displayName,
    lines: 0,
    blank_lines: 0,
    invalid_lines: 0,
    conversations: 0,
    turns: 0,
    user_turns: 0,
    assistant_turns: 0,
    user_words: 0,
    assistant_words: 0,
    items_shown: 0,
    by_task: {},
    by_condition: {},
    by_source: {},
  };
  const res = await forEachLine(path, (bytes, i) => {
    const parsed = parseLineBytes(bytes, i, { preserveKeyOrder: false });
    if (parsed.kind === 'blank') s.blank_lines++;
    else if (parsed.kind === 'invalid') s.invalid_lines++;
    else addConversation(s, parsed.conversation);
  });
  s.lines = res.lines;
  return s;
}

function sortedEntries(m: Record<string, number>): [string, number][] {
  return Object.entries(m).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
}

function per(a: number, b: number): string {
  return b > 0 ? (a / b).toFixed(2) : '-';
}

/** Human-readable report. */
export function formatStats(s: CorpusStats): string {
  const rows: [string, string][] = [
    ['lines', `${s.lines} (${s.blank_lines} blank, ${s.invalid_lines} invalid)`],
    ['conversations', String(s.conversations)],
    ['turns', `${s.turns} (${per(s.turns, s.conversations)} per conversation)`],
    ['user words', `${s.user_words} (${per(s.user_words, s.user_turns)} per user turn)`],
    ['assistant words', `${s.assistant_words} (${per(s.assistant_words, s.assistant_turns)} per assistant turn)`],
    ['items shown', `${s.items_shown} (${per(s.items_shown, s.turns)} per turn)`],
  ];
  const groups = (title: string, m: Record<string, number>) => {
    const e = sortedEntries(m);
    if (e.length === 0) return '';
    return `\n\n${title}:\n${table(
      e.map(([k, v]) => [k, `${v}  ${((100 * v) / Math.max(1, s.conversations)).toFixed(1)}%`]),
      '  ',
    )}`;
  };
  // One blank line between the blocks, none at the end.
  return `${s.file}\n${table(rows, '  ')}${groups('conversations per task', s.by_task)}${groups('conversations per condition', s.by_condition)}${groups('conversations per source', s.by_source)}\n`;
}

export const statsCommand: CliCommand = {
  name: 'stats',
  summary: 'count conversations, turns, words and items, per task and condition',
  help: `Usage: simlens stats FILE [--json]

Reads FILE (JSONL, one conversation per line) in one streaming pass and reports: lines (blank
and invalid ones counted; invalid lines are skipped, run 'simlens validate' to see why),
conversations, turns, user and assistant words (runs of non-space characters), items shown in
carousels, and conversations per task, per condition (good/bad, from "condition" or the task_id
suffix) and per source (human or simulator).

JSON output (--json): {"file", "lines", "blank_lines", "invalid_lines", "conversations", "turns",
  "user_turns", "assistant_turns", "user_words", "assistant_words", "items_shown",
  "by_task": {...}, "by_condition": {...}, "by_source": {...}}
Conversations without a task or condition are counted under "${NONE}".

Options:
${formatFlags(FLAGS)}

Exit codes: 0 success (also when some lines are invalid), 1 no valid conversation or FILE is not
conversation JSONL (the message says what to run instead), 2 usage or I/O error.

Examples:
  simlens simulate --agent local-good --n 50 --seed 1 --out good.sim.jsonl
  simlens stats good.sim.jsonl
  simlens stats good.sim.jsonl --json
`,
  async run(args, io) {
    const { flags, positionals } = parseArgs(args, FLAGS, { positionals: { min: 1, max: 1, names: 'FILE' } });
    const file = positionals[0];
    let stats: CorpusStats;
    try {
      const advice = await conversationFileAdvice(resolvePath(io, file), file);
      if (advice) {
        io.stderr(`simlens stats: ${advice}\n`);
        return 1;
      }
      stats = await computeStats(resolvePath(io, file), file);
    } catch (err) {
      if (isIoError(err)) {
        io.stderr(`simlens stats: ${ioErrorMessage('read', file, err)}\n`);
        return 2;
      }
      throw err;
    }
    if (flags.json) io.stdout(JSON.stringify(stats) + '\n');
    else {
      io.stdout(formatStats(stats));
      if (stats.invalid_lines > 0)
        io.stderr(
          `${file}: ${count(stats.invalid_lines, 'invalid line')} skipped; run 'simlens validate ${file}' for details\n`,
        );
    }
    if (stats.conversations === 0) {
      io.stderr(
        `simlens stats: ${file}: no valid ` +
          `conversation${stats.invalid_lines ? ` (${count(stats.invalid_lines, 'invalid line')}; run 'simlens validate ${file}')` : ' (the file is empty)'}\n`,
      );
      return 1;
    }
    return 0;
  },
};
