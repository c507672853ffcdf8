/**
 * The message protocol between the metric panels' extension-host side and their webview.
 *
 * The host computes; the webview only renders a `Report` and asks for exports. Everything the
 * host receives (messages and the persisted webview state that comes back after a reload) is
 * validated with the zod schemas below: the webview renders untrusted data, so the host treats
 * what it says as untrusted too. Exports name sections by id; the host renders CSV/JSON/Markdown
 * from its own copy of the report, so the webview only ever contributes chart pixels (PNG data
 * URLs, checked to be PNG).
 */
import * as z from 'zod';
import type { Report } from '../core/report/model';
import { SectionId } from '../core/report/model';
import { ReportSpecSchema, type ReportSpec } from '../core/report/specs';
import { parseAtEdge } from './rpc';

// The panel's view type lives in a module of its own: activation registers the panel serializer
// without loading this protocol's schemas.
export { PANEL_VIEW_TYPE } from './panelViewType';

// ---- host → webview (not validated by the webview: the host is trusted) --------------------

export type HostToPanel =
  /** Render this report. `restored`: it came from the persisted state, not a fresh computation. */
  | {
      type: 'report';
      report: Report;
      spec: ReportSpec | null;
      restored?: boolean;
      canRecompute: boolean;
      outDir?: string;
    }
  /** A computation is running. */
  | { type: 'busy'; message: string; fraction?: number }
  /** The computation failed or was cancelled; the last report (if any) stays visible. */
  | { type: 'error'; message: string; cancelled?: boolean; canRecompute: boolean }
  /** An export finished (the webview shows it in its status line). */
  | { type: 'exported'; file: string };

// ---- webview → host (validated) -------------------------------------------------------------

/** At most 25 MB of PNG per chart; base64 only. */
const PngDataUrl = z
  .string()
  .max(35_000_000)
  .regex(/^data:image\/png;base64,[A-Za-z0-9+/]+=*$/, 'expected a PNG data URL');

export const PanelToHostSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready') }),
  z.object({ type: z.literal('exportPng'), sectionId: SectionId, dataUrl: PngDataUrl }),
  z.object({ type: z.literal('exportTable'), sectionId: SectionId, format: z.enum(['csv', 'json']) }),
  z.object({
    type: z.literal('exportMarkdown'),
    charts: z.array(z.object({ sectionId: SectionId, dataUrl: PngDataUrl })).max(500),
  }),
  z.object({ type: z.literal('exportReportJson') }),
  /** Compute again from the same spec; `chart` switches PLSA distributions between histograms and box plots. */
  z.object({ type: z.literal('recompute'), chart: z.enum(['histogram', 'box']).optional() }),
  /** Open input `index` of the report (a conversation file) in the SimLens editor. */
  z.object({ type: z.literal('openInput'), index: z.number().int().nonnegative().max(10_000) }),
  /**
   * Open the conversation row `row` of table `sectionId` links to (e.g. an invariant violation) in
   * the SimLens editor at its turn. The host reads the link from its own copy of the report.
   */
  z.object({ type: z.literal('openLink'), sectionId: SectionId, row: z.number().int().nonnegative().max(10_000_000) }),
  /** Something went wrong in the webview (shown in the SimLens log). */
  z.object({ type: z.literal('log'), level: z.enum(['info', 'warn', 'error']), message: z.string().max(4000) }),
]);
export type PanelToHost = z.infer<typeof PanelToHostSchema>;

/** Validates a message from the webview; returns undefined (and the reason) for anything else. */
export function parsePanelMessage(value: unknown): { ok: true; message: PanelToHost } | { ok: false; error: string } {
  return parseAtEdge(PanelToHostSchema, value, 'invalid panel message');
}

// ---- persisted webview state ----------------------------------------------------------------

/**
 * What the webview keeps with `setState` so the panel can come back after a window reload: the
 * spec (to recompute) and the last report (to restore without recomputing). The host validates
 * both when VS Code hands the state back; the report is checked by `parseReport` separately so a
 * stale report never prevents recomputing from a valid spec.
 */
export const PanelStateSchema = z.object({
  version: z.literal(1),
  spec: ReportSpecSchema.nullable(),
  report: z.unknown().optional(),
  /** Where a fidelity report was written (restores its "open" actions). */
  outDir: z.string().max(4000).optional(),
});
export type PanelState = z.infer<typeof PanelStateSchema>;

/** Decodes a PNG data URL to bytes (after validation). Runs on both sides: `atob`, not Node's Buffer. */
export function pngBytes(dataUrl: string): Uint8Array {
  let binary: string;
  try {
    binary = atob(dataUrl.slice(dataUrl.indexOf(',') + 1));
  } catch {
    throw new Error('the chart image is not valid base64');
  }
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  // PNG signature: 89 50 4E 47 0D 0A 1A 0A.
  const sig = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
  if (bytes.length < 8 || sig.some((b, i) => bytes[i] !== b)) throw new Error('the chart image is not a PNG');
  return bytes;
}
