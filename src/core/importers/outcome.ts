/**
 * The outcome of a dialogue whose source lists the recommendations the seeker accepted: the raw
 * IARD release (`accepted_recommendation`, movie ids) and the UserSimCRS copy of IARD in
 * DialogueKit format (`metadata.accepted_recommendations`, titles). Both importers use this one
 * rule so the same dialogues get the same outcome whichever copy was read.
 */
import { describeValue } from '../jsonl/parse';
import type { Outcome } from '../model';

/**
 * `accepted` when the list is not empty, `ended` when it is empty (the seeker accepted nothing),
 * undefined when there is no list (nothing says how the dialogue ended). A value that is not a
 * list gives no outcome and a problem to report.
 */
export function outcomeFromAcceptedList(accepted: unknown): { outcome?: Outcome; problem?: string } {
  if (accepted === undefined || accepted === null) return {};
  if (!Array.isArray(accepted))
    return { problem: `must be a list of accepted recommendations, found ${describeValue(accepted)}; outcome not set` };
  return { outcome: accepted.length > 0 ? 'accepted' : 'ended' };
}
