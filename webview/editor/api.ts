/**
 * The editor page's persisted view state and its host bridge (the webviews' one bridge,
 * webview/shared/host.ts, over the editor seam's typed channel).
 */
import type { AgreementResult, HostMessage } from '../../src/shared/editorProtocol';
import type { SummaryFilter, WebviewMessage } from '../../src/shared/editorProtocol';
import { HostBridge } from '../shared/host';

/** What the webview remembers across hide/show (VS Code keeps it while the tab exists). */
export interface ViewState {
  /** VIEW_STATE_VERSION (src/shared/editorView.ts) of the build that wrote it. */
  v: number;
  filter: SummaryFilter;
  /** Selected conversation's line (0-based). */
  line?: number;
  turn?: number;
  /** First visible row of the list. */
  listIndex?: number;
  /** Scroll offset of the transcript. */
  transcriptScroll?: number;
  /** Turns (0-based) of the selected conversation whose carousel shows whole cards. */
  wholeCards?: number[];
  mode: 'replay' | 'annotate' | 'agreement';
  /** Annotation cursor: utterance index within the conversation. */
  cursor?: number;
  /** Replay speed multiplier. */
  speed?: number;
  /** The last agreement report shown, and whether it mapped taxonomies (kept across hide/show). */
  agreement?: AgreementResult;
  agreementMap?: boolean;
}

/** The editor page's host bridge: the shared one (webview/shared/host.ts) with the editor's messages and view state. */
export class HostApi extends HostBridge<WebviewMessage, HostMessage, ViewState> {}
