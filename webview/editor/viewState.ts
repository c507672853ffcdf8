/** View state (filter, conversation, turn, cursor, mode, scroll) kept with getState/setState so it survives hide/show. */
import type { HostApi, ViewState } from './api';

export class ViewStateStore {
  readonly state: ViewState;
  private timer = 0;

  constructor(private readonly api: HostApi) {
    this.state = api.getState() ?? { filter: {}, mode: 'replay' };
  }

  save(): void {
    clearTimeout(this.timer);
    this.api.setState(this.state);
  }

  /** Saves after a short pause (scroll handlers). */
  saveSoon(): void {
    clearTimeout(this.timer);
    this.timer = window.setTimeout(() => this.save(), 200);
  }
}
