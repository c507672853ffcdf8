/** Test helper: plays a fixed user script against a recommender session. */
import type { AgentResponse, AgentSession, HistoryEntry } from '../../src/core/sim/types';

/** Sends each utterance in turn, keeping the history the session sees; `onTurn` runs after each answer. */
export async function playScript(
  session: AgentSession,
  script: string[],
  onTurn?: (r: AgentResponse) => void,
): Promise<AgentResponse[]> {
  const history: HistoryEntry[] = [];
  const out: AgentResponse[] = [];
  for (const u of script) {
    const r = await session.respond(u, history);
    history.push({ speaker: 'user', text: u }, { speaker: 'assistant', text: r.utterance });
    out.push(r);
    onTurn?.(r);
  }
  return out;
}
