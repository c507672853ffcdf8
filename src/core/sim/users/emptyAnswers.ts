/**
 * Agent turns with nothing in them, as both built-in users judge them (docs/simulation.md, "An
 * answer with nothing in it"; thirteenth round). A user came for items: an agent turn that shows
 * nothing is a missed answer (a push) when
 * - it is no recommender move (read as Other or Traverse.End: "Nothing matches", small talk; or
 *   Reveal.Show with nothing shown), unless it asks something (an Inquire act) and the agent's turn
 *   before was not such a turn ("Nothing matches. Another material?" is a question once, not twice);
 * - or it is the third agent turn in a row that shows nothing, whatever it is (two questions before
 *   the first carousel are fine; `local-good` asks at most two).
 * One per conversation; reads every agent turn the user answers (not failed ones) in order.
 */
export class EmptyAnswers {
  private noMoveBefore = false;
  private run = 0;

  /** The push reason when this agent turn is a missed answer, else undefined. */
  judge(shownCount: number, acts: readonly string[]): string | undefined {
    const nothing = shownCount === 0;
    const noMove = nothing && acts.some((a) => a === 'Other' || a === 'Traverse.End' || a === 'Reveal.Show');
    const asks = acts.some((a) => a.startsWith('Inquire'));
    let reason: string | undefined;
    if (noMove && (!asks || this.noMoveBefore)) reason = EMPTY_ANSWER_REASON;
    else if (nothing && this.run >= 2) reason = EMPTY_RUN_REASON;
    this.noMoveBefore = noMove;
    this.run = nothing ? this.run + 1 : 0;
    return reason;
  }
}

/** `push_reason` of an agent turn with nothing in it. */
const EMPTY_ANSWER_REASON = 'the agent had nothing to show';
/** `push_reason` of the third agent turn in a row that shows nothing. */
const EMPTY_RUN_REASON = 'the agent showed nothing for the third turn in a row';
