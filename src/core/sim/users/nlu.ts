/**
 * The simulated user's natural-language understanding: which agent act did the agent perform?
 * The act the agent reports wins (mapped to a Zhang & Balog act); otherwise a lexical classifier
 * (naive Bayes over unigrams and bigrams) trained on a built-in set of shopping-assistant
 * utterances, plus the annotated agent utterances of a corpus when one is given.
 */
import type { Conversation, NluResult } from '../../model';
import type { AgentResponse } from '../types';
import { LexicalClassifier, type TrainingExample } from '../../text/classifier';
import {
  AGENT_UNKNOWN,
  AGENT_ZB_ACTS,
  type ActAliases,
  defaultActAliases,
  knownAgentActToZhangBalog,
  toAgentAct,
} from '../../taxonomy/acts';
import trainingJson from './agent-act-training.json';

/** The built-in training examples (src/core/sim/users/agent-act-training.json). */
export function builtinAgentActExamples(): TrainingExample[] {
  return (trainingJson as { examples: TrainingExample[] }).examples.map((e) => ({ text: e.text, label: e.label }));
}

/**
 * Training examples from a corpus: each assistant utterance whose annotation maps to an agent act.
 * When a turn's assistant text holds several annotated segments, each act is paired with the whole text.
 */
export function agentActExamplesFromCorpus(
  conversations: Iterable<Conversation>,
  aliases: ActAliases = defaultActAliases(),
): TrainingExample[] {
  const out: TrainingExample[] = [];
  for (const conv of conversations) {
    for (const turn of conv.turns) {
      const text = turn.assistant_utterance;
      if (!text) continue;
      for (const ann of turn.annotations ?? []) {
        if (ann.speaker !== 'assistant') continue;
        for (const label of ann.acts) {
          const act = toAgentAct(label, aliases);
          if (act) out.push({ text, label: act });
        }
      }
    }
  }
  return out;
}

let builtin: LexicalClassifier | undefined;

/** A classifier trained on the built-in examples plus `extra` (the built-in one is cached). */
export function agentActClassifier(extra: readonly TrainingExample[] = []): LexicalClassifier {
  if (extra.length === 0) return (builtin ??= LexicalClassifier.train(builtinAgentActExamples()));
  return LexicalClassifier.train([...builtinAgentActExamples(), ...extra]);
}

const ZB_SET = new Set<string>(AGENT_ZB_ACTS);

/** What the NLU made of one agent response: `acts` in the agent's order, `agent_act` the first. */
export interface Understanding extends NluResult {
  acts: string[];
}

interface AgentNluOptions {
  classifier?: LexicalClassifier;
  aliases?: ActAliases;
  /** Maps an act the agent reports (in its own vocabulary) to a Zhang & Balog act. */
  mapReported?: (act: string) => string | undefined;
}

/** Reads agent responses into agent acts. One per run; stateless. */
export class AgentNlu {
  private readonly classifier: LexicalClassifier;
  private readonly aliases: ActAliases;
  private readonly mapReported?: (act: string) => string | undefined;

  constructor(options: AgentNluOptions = {}) {
    this.classifier = options.classifier ?? agentActClassifier();
    this.aliases = options.aliases ?? defaultActAliases();
    this.mapReported = options.mapReported;
  }

  /** The Zhang & Balog act for one reported act, or undefined. */
  mapAct(act: string): string | undefined {
    if (ZB_SET.has(act)) return act;
    const mapped = this.mapReported?.(act);
    if (mapped) return mapped;
    return toAgentAct(act, this.aliases) ?? knownAgentActToZhangBalog(act);
  }

  understand(response: AgentResponse): Understanding {
    if (response.error && !response.utterance)
      return { agent_act: AGENT_UNKNOWN, acts: [AGENT_UNKNOWN], source: 'none' };
    if (response.acts && response.acts.length) {
      const acts: string[] = [];
      for (const a of response.acts) {
        const m = this.mapAct(a);
        if (m && !acts.includes(m)) acts.push(m);
      }
      // acts reported in a vocabulary the user does not know: it reads the text instead
      if (acts.length) return { agent_act: acts[0], acts, source: 'reported' };
    }
    if (!response.utterance || !response.utterance.trim())
      return { agent_act: AGENT_UNKNOWN, acts: [AGENT_UNKNOWN], source: 'none' };
    const p = this.classifier.predict(response.utterance);
    let act = p.label;
    // Showing items is a strong cue the text classifier cannot see.
    if (
      act !== 'Other' &&
      response.recommendations.length > 0 &&
      !act.startsWith('Reveal') &&
      !act.startsWith('Traverse') &&
      act !== 'Explain'
    ) {
      return { agent_act: act, acts: [act, 'Reveal.Show'], source: 'classifier', confidence: round3(p.confidence) };
    }
    if (act === 'Other' && response.recommendations.length > 0) act = 'Reveal.Show';
    return { agent_act: act, acts: [act], source: 'classifier', confidence: round3(p.confidence) };
  }
}

function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}
