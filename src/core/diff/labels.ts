/**
 * Words for the parts of a diff, shared by the Markdown report and the Compare Runs panel.
 * Browser-safe: no Node imports. Turns are shown 1-based.
 */
import type { PairSummary } from './model';

const PART_LABELS: Record<string, string> = {
  user_act: 'user act',
  user_utterance: 'user utterance',
  agent_act: 'recommender act',
  assistant_utterance: 'recommender utterance',
  recommendations: 'recommendations',
  ended: 'one side ended',
};

/** A readable name of a dialogue part. */
export function partLabel(part: string): string {
  return PART_LABELS[part] ?? part;
}

/** "turn 3: user utterance (trace: patience, agenda)" or "identical". */
export function describeDivergence(p: PairSummary): string {
  if (p.turn === undefined)
    return p.traceTurn !== undefined
      ? `dialogue equal; trace from turn ${p.traceTurn + 1}: ${p.traceFields.join(', ')}`
      : 'identical';
  const trace = p.traceFieldsAtTurn.length ? ` (trace: ${p.traceFieldsAtTurn.join(', ')})` : '';
  return `turn ${p.turn + 1}: ${p.parts.map(partLabel).join(', ')}${trace}`;
}
