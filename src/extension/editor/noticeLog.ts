/**
 * Notices a reloading page may have missed. VS Code reloads a webview page when its editor moves
 * to another group, without a visibility change the host could see; what the host posts in that
 * second can reach the old page only. The session keeps the notices of the last few seconds and
 * offers them again when a page says "ready"; the page ignores an id it has shown already.
 * (No vscode import: unit-tested on its own.)
 */
import type { HostMessage } from '../../shared/editorProtocol';

type NoticeMessage = Extract<HostMessage, { type: 'notice' }>;

/** How long a notice is offered to a page that (re)loads; info notices stay on screen as long. */
export const NOTICE_REPLAY_MS = 5_000;

export class NoticeLog {
  private nextId = 1;
  private recent: Array<{ message: NoticeMessage; at: number }> = [];

  constructor(private readonly now: () => number = Date.now) {}

  /** Gives the notice its id and remembers it. */
  record(message: Omit<NoticeMessage, 'id'>): NoticeMessage {
    const stamped: NoticeMessage = { ...message, id: this.nextId++ };
    this.prune();
    this.recent.push({ message: stamped, at: this.now() });
    return stamped;
  }

  /** The notices of the last NOTICE_REPLAY_MS, oldest first. */
  replay(): NoticeMessage[] {
    this.prune();
    return this.recent.map((r) => r.message);
  }

  private prune(): void {
    const cutoff = this.now() - NOTICE_REPLAY_MS;
    while (this.recent.length && this.recent[0].at <= cutoff) this.recent.shift();
  }
}
