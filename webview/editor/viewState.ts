/**
 * View state (filter, conversation, turn, cursor, mode, scroll). Kept with getState/setState so it
 * survives hide/show, and sent to the host (at most every half second), which keeps it per file:
 * reopening the file or reloading the window gives it back in the page (#app data-view-state).
 * Both are versioned (VIEW_STATE_VERSION): a state of another version is dropped, and the reason
 * goes to the SimLens log, instead of being read field by field as if it were this build's.
 */
import { VIEW_STATE_VERSION, viewStateVersionProblem } from '../../src/shared/editorView';
import type { HostApi, ViewState } from './api';

/** A persisted state of this version with its fields' shapes made safe, or why it is dropped. */
function readViewState(raw: unknown): { state: ViewState } | { reason: string } {
  const problem = viewStateVersionProblem(raw);
  if (problem) return { reason: problem };
  const v = raw as Partial<ViewState>;
  return {
    state: {
      ...v,
      v: VIEW_STATE_VERSION,
      filter: v.filter && typeof v.filter === 'object' && !Array.isArray(v.filter) ? v.filter : {},
      mode: v.mode === 'annotate' || v.mode === 'agreement' ? v.mode : 'replay',
      line: typeof v.line === 'number' && Number.isInteger(v.line) && v.line >= 0 ? v.line : undefined,
      wholeCards:
        Array.isArray(v.wholeCards) && v.wholeCards.every((t) => Number.isInteger(t) && t >= 0)
          ? v.wholeCards
          : undefined,
    },
  };
}

/** The state the host put in the page for this file (validated by the host), unparsed. */
function stateFromPage(): unknown {
  const raw = document.getElementById('app')?.dataset.viewState;
  if (!raw) return undefined;
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return 'not JSON';
  }
}

export class ViewStateStore {
  readonly state: ViewState;
  private timer = 0;
  private hostTimer = 0;

  constructor(private readonly api: HostApi) {
    this.state = this.restore();
  }

  /** The page's own state (hide/show), else the host's for this file, else a fresh one. */
  private restore(): ViewState {
    for (const [where, raw] of [
      ['page', this.api.getState()],
      ['file', stateFromPage()],
    ] as const) {
      if (raw === undefined || raw === null) continue;
      const read = readViewState(raw);
      if ('state' in read) return read.state;
      this.api.post({ type: 'log', level: 'info', message: `${where} ${read.reason}` });
    }
    return { v: VIEW_STATE_VERSION, filter: {}, mode: 'replay' };
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
    const { agreement: _report, v: _v, ...rest } = this.state;
    this.api.post({ type: 'viewState', state: { v: VIEW_STATE_VERSION, ...rest } });
  }
}
