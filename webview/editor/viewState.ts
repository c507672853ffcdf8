/**
 * View state (filter, conversation, turn, cursor, mode, scroll). Kept with getState/setState so it
 * survives hide/show, and sent to the host (at most every half second), which keeps it per file:
 * reopening the file or reloading the window gives it back in the page (#app data-view-state).
 */
import type { HostApi, ViewState } from './api';

/** The state the host put in the page for this file, if any (validated by the host; read defensively). */
function stateFromPage(): ViewState | undefined {
  const raw = document.getElementById('app')?.dataset.viewState;
  if (!raw) return undefined;
  try {
    const v = JSON.parse(raw) as Partial<ViewState>;
    if (!v || typeof v !== 'object') return undefined;
    return { ...v, filter: v.filter && typeof v.filter === 'object' ? v.filter : {}, mode: v.mode === 'annotate' || v.mode === 'agreement' ? v.mode : 'replay' };
  } catch {
    return undefined;
  }
}

export class ViewStateStore {
  readonly state: ViewState;
  private timer = 0;
  private hostTimer = 0;

  constructor(private readonly api: HostApi) {
    this.state = api.getState() ?? stateFromPage() ?? { filter: {}, mode: 'replay' };
  }

  save(): void {
    clearTimeout(this.timer);
    this.api.setState(this.state);
    if (!this.hostTimer) {
      this.hostTimer = window.setTimeout(() => {
        this.hostTimer = 0;
        this.sendToHost();
      }, 500);
    }
  }

  /** Saves after a short pause (scroll handlers). */
  saveSoon(): void {
    clearTimeout(this.timer);
    this.timer = window.setTimeout(() => this.save(), 200);
  }

  /** The per-file part of the state, to the host (the agreement report stays in the page). */
  private sendToHost(): void {
    const { agreement: _report, ...rest } = this.state;
    this.api.post({ type: 'viewState', state: rest });
  }
}
