/**
 * The one host bridge of the SimLens webviews (editor, metric panels, Compare Runs): the page's end
 * of the typed channel (src/shared/rpc.ts) over VS Code's webview API, and the state VS Code keeps
 * for the page. `Out` is what the page sends, `In` what the host sends, `State` what it persists.
 */
import { RpcClient, type Envelope } from '../../src/shared/rpc';

interface VsCodeApi {
  postMessage(message: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}

declare function acquireVsCodeApi(): VsCodeApi;

export class HostBridge<Out extends Envelope, In extends Envelope, State = unknown> {
  private readonly api: VsCodeApi;
  /** Requests (with their answers and stale answers dropped), plain messages and host events. */
  readonly rpc: RpcClient<Out, In>;

  /** Acquires the VS Code API (once per page) and routes every host message into `rpc`. */
  constructor() {
    this.api = acquireVsCodeApi();
    this.rpc = new RpcClient<Out, In>((m) => this.api.postMessage(m));
    window.addEventListener('message', (e: MessageEvent) => {
      const msg = e.data as In;
      if (msg && typeof msg === 'object' && typeof msg.type === 'string') this.rpc.receive(msg);
    });
  }

  /**
   * Hands every host message to `handler`, for a page that answers all of them in one switch:
   * `types` lists each of In's types (the compiler insists), so a new one cannot be left unrouted.
   */
  onEvery(types: Record<In['type'], true>, handler: (message: In) => void): void {
    for (const type of Object.keys(types) as In['type'][]) this.rpc.on(type, handler);
  }

  post(message: Out): void {
    this.rpc.post(message);
  }

  /** The state VS Code kept for this page: unchecked, each page validates its own. */
  getState(): unknown {
    return this.api.getState();
  }

  setState(state: State): void {
    this.api.setState(state);
  }
}
