/**
 * Browser-safe code of the editor protocol (no zod: the webview's CSP forbids the validators it
 * compiles, and the page's bundle stays small). editorProtocol.ts re-exports it for the host.
 */

import type { SummaryFilter } from '../core/document/types';

/**
 * The version of the persisted editor view state (`EditorViewState`) this build writes. Bump it
 * when a field changes meaning or shape: states of any other version (and states from before
 * versioning, which have none) are dropped with a logged reason, and the file opens fresh.
 */
export const VIEW_STATE_VERSION = 1;

/** Rows per page the webview's list requests (webview/editor/list.ts); the host never sends more rows than asked for. */
export const PAGE_SIZE = 100;

/**
 * No facet, text or state restriction: the view is every conversation line in file order (so a
 * fresh page shows line 1 first).
 */
export function isEmptyFilter(filter: SummaryFilter | undefined): boolean {
  if (!filter) return true;
  const { validity, speaker, ...rest } = filter;
  return (
    (validity === undefined || validity === 'all') &&
    (speaker === undefined || speaker === 'both' || !rest.text) &&
    Object.values(rest).every((v) => v === undefined || v === '')
  );
}

/** Why a persisted view state cannot be read by this build (undefined when its version is this one's). */
export function viewStateVersionProblem(raw: unknown): string | undefined {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return `saved view state is not an object: dropped`;
  const version = (raw as { v?: unknown }).v;
  if (version === VIEW_STATE_VERSION) return undefined;
  const which = version === undefined ? 'has no version' : `is version ${JSON.stringify(version).slice(0, 40)}`;
  return `saved view state ${which}, this build reads version ${VIEW_STATE_VERSION}: dropped`;
}
