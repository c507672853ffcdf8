/** Annotation: the utterance cursor, act toggles and notes, sent to the host and shown optimistically. */
import type { Conversation, Taxonomy } from '../../src/shared/model';
import type { HostMessage } from '../../src/shared/editorProtocol';
import type { HostApi } from './api';
import { currentAnnotation } from './annotation';
import { utterancesOf, type UtteranceRef } from './transcript';
import type { ViewStateStore } from './viewState';

interface AnnotatorHost {
  current(): { line: number; conversation?: Conversation } | undefined;
  annotator(): string;
  taxonomy(): Taxonomy | undefined;
  /** The cursor moved (to a new turn): update the marks, side panel and scroll. */
  cursorMoved(turn: number): void;
  /** The shown conversation's annotations changed locally. */
  annotationsEdited(): void;
  /** The document's state after the newest edit (the answer to it) replaces the optimistic one. */
  documentState(message: Extract<HostMessage, { type: 'annotationsChanged' }>): void;
}

export class AnnotationController {
  /** Index of the selected utterance within the conversation. */
  cursor = 0;
  /** Annotate messages sent and not answered yet (shown as body[data-pending-edits]). */
  private readonly pending = new Set<number>();

  /** The host answered annotate message `requestId` (its edit reached the document, or failed). */
  private answered(message: HostMessage): void {
    if (message.type !== 'annotationsChanged' || message.requestId === undefined) return;
    this.pending.delete(message.requestId);
    this.showPending();
  }

  private showPending(): void {
    document.body.dataset.pendingEdits = String(this.pending.size);
  }

  constructor(
    private readonly api: HostApi,
    private readonly store: ViewStateStore,
    private readonly host: AnnotatorHost,
  ) {}

  utterances(): UtteranceRef[] {
    const conv = this.host.current()?.conversation;
    return conv ? utterancesOf(conv) : [];
  }

  cursorRef(): UtteranceRef | undefined {
    return this.utterances()[this.cursor];
  }

  setCursor(i: number): void {
    const refs = this.utterances();
    if (refs.length === 0) return;
    this.cursor = Math.max(0, Math.min(refs.length - 1, i));
    this.store.state.cursor = this.cursor;
    this.store.save();
    this.host.cursorMoved(refs[this.cursor].turn);
  }

  /** Index of the first utterance the annotator has not annotated (0 when all are). */
  firstUnannotated(): number {
    const conv = this.host.current()?.conversation;
    if (!conv) return 0;
    const me = this.host.annotator();
    const i = this.utterances().findIndex(
      (u) =>
        !(conv.turns[u.turn]?.annotations ?? []).some(
          (a) => a.speaker === u.speaker && a.annotator === me && a.segment === undefined,
        ),
    );
    return i < 0 ? 0 : i;
  }

  move(d: number): void {
    this.setCursor(this.cursor + d);
  }

  /** Acts of the taxonomy for the selected utterance's speaker. */
  actsForCursor(): readonly string[] {
    const ref = this.cursorRef();
    const tax = this.host.taxonomy();
    if (!ref || !tax) return [];
    return ref.speaker === 'user' ? tax.user : tax.assistant;
  }

  toggleAct(act: string): void {
    const conv = this.host.current()?.conversation;
    const ref = this.cursorRef();
    if (!conv || !ref) return;
    const mine = currentAnnotation(conv, ref, this.host.annotator());
    const acts = mine.acts.includes(act) ? mine.acts.filter((a) => a !== act) : [...mine.acts, act];
    this.send(ref, acts, mine.note);
  }

  setNote(note: string): void {
    const conv = this.host.current()?.conversation;
    const ref = this.cursorRef();
    if (!conv || !ref) return;
    const mine = currentAnnotation(conv, ref, this.host.annotator());
    this.send(ref, mine.acts, note);
  }

  /**
   * Sends an edit and shows it at once (optimistically) so fast key presses build on each other;
   * the host's answer (the document's state) replaces it.
   */
  private send(ref: UtteranceRef, acts: string[], note: string): void {
    const cur = this.host.current();
    if (!cur?.conversation) return;
    const annotator = this.host.annotator();
    const trimmed = note.trim() ? note : undefined;
    const turn = cur.conversation.turns[ref.turn];
    if (turn) {
      const list = (turn.annotations ??= []).filter(
        (a) => !(a.speaker === ref.speaker && a.annotator === annotator && a.segment === undefined),
      );
      if (acts.length || trimmed)
        list.push({ speaker: ref.speaker, annotator, acts, ...(trimmed ? { note: trimmed } : {}) });
      turn.annotations = list;
      this.host.annotationsEdited();
    }
    // Every edit is answered; only the answer to the newest one is shown (an older answer would
    // undo the optimistic state of the edits after it), the others only count as answered.
    const requestId = this.api.rpc.request(
      'annotate',
      (id) => ({
        type: 'annotate',
        requestId: id,
        line: cur.line,
        turn: ref.turn,
        speaker: ref.speaker,
        acts,
        note: trimmed,
      }),
      {
        reply: (m) => {
          this.answered(m);
          if (m.type === 'annotationsChanged') this.host.documentState(m);
        },
        stale: (m) => this.answered(m),
      },
    );
    this.pending.add(requestId);
    this.showPending();
  }
}
