/**
 * DialogueKit's corpus statistics, recomputed from canonical conversations:
 * AvgTurns = per conversation, the number of speaker changes / 2, averaged over conversations;
 * user and agent utterance counts; UserActRatio = user utterances / agent utterances.
 *
 * Utterances are counted the way the importers record them: a turn field with
 * `source_utterances` records counts one per record of that speaker (consecutive same-speaker
 * utterances merged into one field), any other present field counts as one utterance. So the
 * figures equal DialogueKit's on imported DialogueKit data and are well defined for any
 * canonical conversation (ConvApparel, simulator runs).
 */
import type { Conversation } from '../model';
import { utteranceRuns } from './turns';

interface DialogueKitStats {
  conversations: number;
  /** Mean over conversations of speaker changes / 2 (0 when there are no conversations). */
  avgTurns: number;
  userUtterances: number;
  agentUtterances: number;
  /** userUtterances / agentUtterances (NaN when there are no agent utterances). */
  ratio: number;
}

/** Computes DialogueKit's AvgTurns, utterance counts and user/agent ratio over `conversations`. */
export function dialogueKitStats(conversations: readonly Conversation[]): DialogueKitStats {
  let changes = 0;
  let user = 0;
  let agent = 0;
  for (const conv of conversations) {
    const runs = utteranceRuns(conv.turns);
    changes += Math.max(0, runs.length - 1) / 2;
    for (const r of runs) {
      if (r.speaker === 'user') user += r.count;
      else agent += r.count;
    }
  }
  const n = conversations.length;
  return {
    conversations: n,
    avgTurns: n ? changes / n : 0,
    userUtterances: user,
    agentUtterances: agent,
    ratio: agent ? user / agent : Number.NaN,
  };
}
