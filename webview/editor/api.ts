/**
 * Host bridge: the page's end of the editor seam's typed channel (src/shared/rpc.ts) over the VS
 * Code webview API, and the page's persisted view state.
 */
import type { AgreementResult, HostMessage } from '../../src/shared/editorProtocol';
import type { SummaryFilter, WebviewMessage } from '../../src/shared/editorProtocol';
import { RpcClient } from '../../src/shared/rpc';

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

export type EditorRpc = RpcClient<WebviewMessage, HostMessage>;

export class HostApi {
  private readonly api: VsCodeApi;
  /** Requests (with their answers and stale answers dropped), plain messages and host events. */
  readonly rpc: EditorRpc;
  constructor() {
    this.api = acquireVsCodeApi();
    this.rpc = new RpcClient<WebviewMessage, HostMessage>((m) => this.api.postMessage(m));
    window.addEventListener('message', (e: MessageEvent) => {
      const msg = e.data as HostMessage;
      if (msg && typeof msg === 'object' && typeof msg.type === 'string') this.rpc.receive(msg);
    });
  }
  post(message: WebviewMessage): void {
    this.rpc.post(message);
  }
  /** The state VS Code kept for this page (unchecked: see ViewStateStore). */
  getState(): unknown {
    return this.api.getState();
  }
  setState(state: ViewState): void {
    this.api.setState(state);
  }
}
