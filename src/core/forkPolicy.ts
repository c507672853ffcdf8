/** Which conversations can be forked (no imports: the editor webview uses it too, through src/shared). */

/**
 * Why a conversation cannot be forked without its run's manifest, or undefined when it can: a
 * human dialogue has no simulated user to continue it (its `agent` is a person, e.g. a crowd
 * worker's id, not a recommender). The editor shows the same reason on its disabled fork button.
 */
export function forkRefusal(conv: { source?: string }): string | undefined {
  if ((conv.source ?? 'human') !== 'human') return undefined;
  return 'a human dialogue has no simulated user to continue it; fork a conversation of a simulator run (its source names the simulator)';
}
