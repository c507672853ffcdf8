/**
 * Conversations that are already canonical-compatible: SimLens JSONL, ConvApparel JSONL (one
 * conversation per line) and the ConvApparel release document (`{metadata, conversations: [...]}`,
 * or a bare JSON array of conversations). Each conversation is validated with the `Conversation`
 * schema; an invalid one becomes a warning (index/line and field path) and is skipped.
 *
 * The imported object is the original one, not zod's output: every field, including unknown ones,
 * stays exactly as it was, in its original order. The ConvApparel importers add one thing: an
 * `id` (`convapparel-<index>`, 0-based position in the file) when the conversation has none, so
 * that every tool can address it; an existing `id` is never changed. Canonical import adds nothing.
 */
import { Conversation, isRecord } from '../model';
import { describeValue, explainZodIssue, formatJsonPath } from '../jsonl/zodIssues';
import { ImportError, type ImportWarning, joinPath } from './errors';

type Rec = Record<string, unknown>;

/** Where a conversation came from, for messages and fallback ids. */
interface ConversationSite {
  /** 0-based position among the conversations of the file (blank lines not counted). */
  index: number;
  /** 1-based line for JSONL. */
  line?: number;
  /** Path prefix inside a document, e.g. `conversations[3]`; '' for a JSONL line. */
  path: string;
}

/**
 * Validates one value as a Conversation. Returns the warnings (one per schema issue, at most 5,
 * each with the full field path) or none.
 */
function conversationProblems(value: unknown, site: ConversationSite): ImportWarning[] {
  const label = site.line !== undefined ? `conversation on line ${site.line}` : `conversation ${site.index}`;
  if (!isRecord(value)) {
    return [
      {
        line: site.line,
        path: site.path || undefined,
        message: `${label}: expected a conversation object, found ${describeValue(value)}; skipped`,
      },
    ];
  }
  const r = Conversation.safeParse(value);
  if (r.success) return [];
  // The same explanations as the JSONL diagnostics (src/core/jsonl/zodIssues.ts).
  const problems = r.error.issues.flatMap((issue) => explainZodIssue(issue, value));
  const shown = problems.slice(0, 5).map((p): ImportWarning => {
    const rel = formatJsonPath(p.path);
    return {
      line: site.line,
      path: joinPath(site.path, rel) || undefined,
      message: `${label}: ${rel || '(root)'}: ${p.text}; skipped`,
    };
  });
  if (problems.length > 5)
    shown.push({
      line: site.line,
      path: site.path || undefined,
      message: `${label}: ${problems.length - 5} more schema problems`,
    });
  return shown;
}

/** Adds `id` = `convapparel-<index>` in front when the conversation has no usable id. */
function withConvApparelId(conv: Rec, index: number): Rec {
  if (typeof conv['id'] === 'string' && conv['id'] !== '') return conv;
  if ('id' in conv) return conv; // present but odd (validation already accepted it): leave it alone
  return { id: `convapparel-${index}`, ...conv };
}

/** Which flavour of already-canonical input. */
export type CanonicalFlavor = 'canonical' | 'convapparel';

/** Handles one parsed JSONL record (or one element of a document). */
export function acceptConversation(
  value: unknown,
  site: ConversationSite,
  flavor: CanonicalFlavor,
  out: { conversations: Conversation[]; warnings: ImportWarning[] },
): void {
  const problems = conversationProblems(value, site);
  if (problems.length) {
    out.warnings.push(...problems);
    return;
  }
  const rec = value as Rec;
  out.conversations.push((flavor === 'convapparel' ? withConvApparelId(rec, site.index) : rec) as Conversation);
}

/**
 * The ConvApparel release document: `{metadata?, conversations: [...]}` or a bare JSON array of
 * conversations. Returns the conversations, the warnings, and the document's other top-level
 * fields (e.g. the release `metadata`) so a caller can keep them.
 */
export function importConvApparelDocument(
  doc: unknown,
  origin: string,
): { conversations: Conversation[]; warnings: ImportWarning[]; documentMetadata?: Record<string, unknown> } {
  let list: unknown[];
  let base: string;
  let documentMetadata: Record<string, unknown> | undefined;
  if (Array.isArray(doc)) {
    list = doc;
    base = '';
  } else if (isRecord(doc)) {
    const convs = doc['conversations'];
    if (!Array.isArray(convs)) {
      const keys = Object.keys(doc).slice(0, 8).join(', ') || 'none';
      const hint = Array.isArray(doc['turns'])
        ? ' (it looks like a single conversation: write one conversation per line)'
        : '';
      throw new ImportError(
        origin,
        convs === undefined
          ? `expected a ConvApparel document with a "conversations" array, found an object with keys ${keys}${hint}`
          : `"conversations" must be an array, found ${describeValue(convs)}`,
        { path: 'conversations' },
      );
    }
    list = convs;
    base = 'conversations';
    const rest = Object.fromEntries(Object.entries(doc).filter(([k]) => k !== 'conversations'));
    if (Object.keys(rest).length) documentMetadata = rest;
  } else {
    throw new ImportError(
      origin,
      `expected a ConvApparel document (an object with a "conversations" array), found ${describeValue(doc)}`,
    );
  }
  const out = { conversations: [] as Conversation[], warnings: [] as ImportWarning[] };
  list.forEach((value, index) => acceptConversation(value, { index, path: `${base}[${index}]` }, 'convapparel', out));
  return { ...out, documentMetadata };
}
