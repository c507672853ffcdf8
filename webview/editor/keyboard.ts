/** Keyboard: page-wide shortcuts per mode (replay stepping, annotation acts and cursor, search, neighbours). */
import { actIndexForKey, actKeyLabel } from './annotation';
import type { AnnotationController } from './annotator';
import type { Player } from './player';
import type { ViewStateStore } from './viewState';

interface KeyTargets {
  store: ViewStateStore;
  player: Player;
  annotation: AnnotationController;
  focusSearch(): void;
  neighbour(delta: number): void;
  /** Focuses the note box of the annotation panel; false when there is none. */
  focusNote(): boolean;
  /** Shows a short status message (e.g. a key that does nothing). */
  status(message: string): void;
}

export function handleKey(e: KeyboardEvent, t: KeyTargets): void {
  const target = e.target as HTMLElement | null;
  const tag = target?.tagName;
  if (tag === 'INPUT' || tag === 'TEXTAREA' || tag === 'SELECT') return;
  if (e.ctrlKey || e.metaKey || e.altKey) return; // leave undo/redo/save etc. to VS Code
  // A focused item carousel scrolls with the arrow keys instead of stepping the replay.
  if (target?.classList.contains('carousel-track') && (e.key === 'ArrowLeft' || e.key === 'ArrowRight')) return;
  const key = e.key;
  const handled = () => {
    e.preventDefault();
    e.stopPropagation();
  };
  if (key === '/') {
    handled();
    t.focusSearch();
    return;
  }
  if (key === '[' || key === ']') {
    handled();
    t.neighbour(key === ']' ? 1 : -1);
    return;
  }
  const mode = t.store.state.mode;
  const player = t.player;
  if (mode === 'replay') {
    if (key === 'ArrowRight' || key === 'j') return (handled(), player.step(1));
    if (key === 'ArrowLeft' || key === 'k') return (handled(), player.step(-1));
    if (key === 'Home') return (handled(), player.setTurn(0));
    if (key === 'End') return (handled(), player.setTurn(Number.MAX_SAFE_INTEGER));
    if (key === ' ') return (handled(), player.togglePlay());
  }
  if (mode === 'annotate') {
    const ann = t.annotation;
    if (key === 'n' || key === 'ArrowDown') return (handled(), ann.move(1));
    if (key === 'p' || key === 'ArrowUp') return (handled(), ann.move(-1));
    if (key === 'Enter' && t.focusNote()) return handled();
    const i = actIndexForKey(e);
    if (i >= 0 && ann.cursorRef()) {
      const acts = ann.actsForCursor();
      handled();
      if (i < acts.length) ann.toggleAct(acts[i]);
      else
        t.status(
          `Key ${actKeyLabel(i)} has no act: ${ann.cursorRef()!.speaker} utterances have ${acts.length} acts (keys ` +
            `${actKeyLabel(0)}–${actKeyLabel(Math.max(0, acts.length - 1))}).`,
        );
    }
  }
}
