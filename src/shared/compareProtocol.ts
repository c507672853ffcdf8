/**
 * The message protocol of the Compare Runs panel ("SimLens: Compare Runs…"). The host computes
 * the diff (src/core/diff, the same report `simlens diff` prints) and sends it; the webview
 * filters and draws it, and asks for one pair's two conversations to replay them side by side.
 * Messages from the webview are validated here (the webview renders untrusted data). The webview
 * imports this module for types only (zod compiles validators with `new Function`, which the
 * webview's CSP forbids); its code comes from compareView.ts.
 */
import * as z from 'zod';
import type { Conversation } from '../core/model';
import type { DiffReport, TurnDifference } from '../core/diff/model';
import { zodErrorMessage } from '../core/jsonl/zodIssues';

export type { DiffReport, PairSummary, TurnDifference } from '../core/diff/model';

export const COMPARE_VIEW_TYPE = 'simlens.compareRuns';

export type HostToCompare =
  | { type: 'report'; report: DiffReport }
  | { type: 'busy'; message: string; fraction?: number }
  | { type: 'error'; message: string }
  /** The two conversations of pair `index` and every turn's differences. */
  | { type: 'pair'; index: number; a: Conversation; b: Conversation; turns: TurnDifference[] };

export const CompareToHostSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready') }),
  z.object({ type: z.literal('selectPair'), index: z.number().int().nonnegative().max(100_000_000) }),
  /** Open side A or B of pair `index` in the SimLens editor. */
  z.object({
    type: z.literal('openConversation'),
    index: z.number().int().nonnegative().max(100_000_000),
    side: z.enum(['A', 'B']),
  }),
  z.object({ type: z.literal('log'), level: z.enum(['info', 'warn', 'error']), message: z.string().max(4000) }),
]);
export type CompareToHost = z.infer<typeof CompareToHostSchema>;

export function parseCompareMessage(
  value: unknown,
): { ok: true; message: CompareToHost } | { ok: false; error: string } {
  const r = CompareToHostSchema.safeParse(value);
  if (r.success) return { ok: true, message: r.data };
  return { ok: false, error: zodErrorMessage('invalid compare panel message', r.error, value) };
}
