/** Host bridge: typed access to the VS Code webview API (posting messages, request ids, incoming messages, persisted view state). */
import type { AgreementResult, HostMessage } from '../../src/shared/editorProtocol';
import type { SummaryFilter, WebviewMessage } from '../../src/shared/editorProtocol';

/** What the webview remembers across hide/show (VS Code keeps it while the tab exists). */
export interface ViewState {
  filter: SummaryFilter;
  /** Selected conversation's line (0-based). */
  line?: number;
  turn?: number;
  /** First visible row of the list. */
  listIndex?: number;
  /** Scroll offset of the transcript. */
  transcriptScroll?: number;
  mode: 'replay' | 'annotate' | 'agreement';
  /** Annotation cursor: utterance index within the conversation. */
  cursor?: number;
  /** Replay speed multiplier. */
  speed?: number;
  /** The last agreement report shown, and whether it mapped taxonomies (kept across hide/show). */
  agreement?: AgreementResult;
  agreementMap?: boolean;
}

interface VsCodeApi {
  postMessage(message: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}

declare function acquireVsCodeApi(): VsCodeApi;

export class HostApi {
  private readonly api: VsCodeApi;
  private next = 1;
  constructor() {
    this.api = acquireVsCodeApi();
  }
  /** A fresh, increasing request id (answers carry it back, so stale answers can be dropped). */
  nextId(): number {
    return this.next++;
  }
  /** Calls `handler` with every message the host sends. */
  listen(handler: (msg: HostMessage) => void): void {
    window.addEventListener('message', (e: MessageEvent) => {
      const msg = e.data as HostMessage;
      if (msg && typeof msg === 'object') handler(msg);
    });
  }
  post(message: WebviewMessage): void {
    this.api.postMessage(message);
  }
  getState(): ViewState | undefined {
    const s = this.api.getState();
    if (!s || typeof s !== 'object') return undefined;
    const v = s as Partial<ViewState>;
    return { filter: v.filter && typeof v.filter === 'object' ? v.filter : {}, ...v, mode: v.mode === 'annotate' || v.mode === 'agreement' ? v.mode : 'replay' };
  }
  setState(state: ViewState): void {
    this.api.setState(state);
  }
}
