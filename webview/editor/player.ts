/** Replay: the current turn, play/pause on a timer, speed, and the replay toolbar. */
import { forkRefusal, type Conversation } from '../../src/shared/model';
import { button, h } from './dom';
import type { ViewStateStore } from './viewState';

const SPEEDS = [0.5, 1, 2, 4];

interface PlayerHost {
  conversation(): Conversation | undefined;
  intervalMs(): number;
  /** The turn changed: update the marks, side panel and scroll. */
  turnChanged(): void;
  fork(turn: number): void;
}

export class Player {
  /** The fork button: enabled for simulated conversations; on a human dialogue disabled, its title saying why. */
  private forkButton(n: number): HTMLButtonElement {
    const conv = this.host.conversation();
    const refusal = conv ? forkRefusal(conv) : 'no conversation';
    const b = button({
      icon: 'repo-forked',
      title: refusal
        ? `Fork from here is not available: ${refusal}`
        : 'Fork from here: simulate other continuations after this turn and open them beside',
      class: 'icon fork',
      onClick: () => {
        if (!refusal) this.host.fork(Math.min(this.turn, n - 1));
      },
    });
    if (refusal) {
      b.disabled = true;
      b.setAttribute('aria-disabled', 'true');
    }
    return b;
  }

  /** Current (0-based) turn. */
  turn = 0;
  private playing: number | undefined;
  private bar: HTMLElement | undefined;

  constructor(
    private readonly store: ViewStateStore,
    private readonly host: PlayerHost,
  ) {}

  get isPlaying(): boolean {
    return this.playing !== undefined;
  }

  private turnCount(): number {
    return this.host.conversation()?.turns.length ?? 0;
  }

  setTurn(t: number): void {
    const n = this.turnCount();
    if (n === 0) return;
    this.turn = Math.max(0, Math.min(n - 1, t));
    this.store.state.turn = this.turn;
    this.store.save();
    this.refreshBar();
    this.host.turnChanged();
  }

  step(d: number): void {
    this.setTurn(this.turn + d);
  }

  togglePlay(): void {
    if (this.playing !== undefined) this.stop();
    else this.play();
    this.refreshBar();
  }

  play(): void {
    const n = this.turnCount();
    if (n === 0) return;
    if (this.turn >= n - 1) this.setTurn(0);
    const interval = this.host.intervalMs() / (this.store.state.speed ?? 1);
    this.playing = window.setInterval(() => {
      if (this.turn >= n - 1) {
        this.stop();
        this.setTurn(this.turn);
        return;
      }
      this.setTurn(this.turn + 1);
    }, interval);
  }

  stop(): void {
    if (this.playing !== undefined) clearInterval(this.playing);
    this.playing = undefined;
  }

  /** The replay toolbar for the shown conversation (kept so turn changes can redraw it in place). */
  buildBar(): HTMLElement | undefined {
    this.bar =
      this.host.conversation() && this.store.state.mode === 'replay' ? this.renderBar(this.turnCount()) : undefined;
    return this.bar;
  }

  /** Forgets the toolbar (the main area was replaced by something else). */
  detach(): void {
    this.bar = undefined;
  }

  private refreshBar(): void {
    if (!this.bar || this.store.state.mode !== 'replay' || !this.host.conversation()) return;
    const next = this.renderBar(this.turnCount());
    this.bar.replaceWith(next);
    this.bar = next;
  }

  private renderBar(n: number): HTMLElement {
    const state = this.store.state;
    const speed = h('select', { class: 'speed', attrs: { 'aria-label': 'Replay speed', title: 'Replay speed' } });
    for (const s of SPEEDS) speed.appendChild(h('option', { attrs: { value: s } }, `${s}×`));
    speed.value = String(state.speed ?? 1);
    speed.addEventListener('change', () => {
      state.speed = Number(speed.value);
      this.store.save();
      if (this.playing !== undefined) {
        this.stop();
        this.play();
      }
    });
    const playing = this.playing !== undefined;
    return h(
      'div',
      { class: 'replay-bar', attrs: { role: 'toolbar', 'aria-label': 'Replay' } },
      button({ icon: 'debug-restart', title: 'First turn (Home)', class: 'icon', onClick: () => this.setTurn(0) }),
      button({ icon: 'chevron-left', title: 'Previous turn (← or k)', class: 'icon', onClick: () => this.step(-1) }),
      button({
        icon: playing ? 'debug-pause' : 'play',
        title: playing ? 'Pause (Space)' : 'Play (Space)',
        class: 'icon play',
        onClick: () => this.togglePlay(),
      }),
      button({ icon: 'chevron-right', title: 'Next turn (→ or j)', class: 'icon', onClick: () => this.step(1) }),
      h('span', { class: 'turn-pos', attrs: { 'aria-live': 'polite' } }, `Turn ${Math.min(this.turn + 1, n)} / ${n}`),
      speed,
      this.forkButton(n),
      h('span', 'muted keys', '← → / j k step · Space play · [ ] conversation'),
    );
  }
}
