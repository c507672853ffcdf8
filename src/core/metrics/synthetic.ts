/**
 * Deterministic synthetic conversation populations for tests, benchmarks and demos of the metrics.
 * A profile sets how long conversations are, how wordy and inquisitive the user is, which user
 * acts it favours and how it feels; utterances are assembled from small per-act phrase lists plus
 * a profile-specific filler vocabulary, so both the act tagger and the n-gram discriminator have
 * something to find. Same seed, same conversations.
 */
import type { Conversation, Turn } from '../model';
import { createRng, type Rng } from '../random';

/** How a synthetic population behaves. */
interface SyntheticProfile {
  name: string;
  /** Mean number of turns (1 + Poisson(mean - 1)). */
  meanTurns: number;
  /** Relative weights of the ConvApparel user acts. */
  actWeights: Partial<Record<string, number>>;
  /** Extra filler words per utterance (mean). */
  fillerWords: number;
  /** Filler vocabulary (the population's "style"). */
  vocabulary: readonly string[];
  /** Probability that a turn's user utterance ends with a question. */
  questionRate: number;
  /** Probability of ticking Satisfied / Frustrated / Confused on a turn. */
  satisfied: number;
  frustrated: number;
  confused: number;
  /** Probability that the conversation ends with an accepted recommendation. */
  acceptRate: number;
  condition?: string;
  source?: string;
  /** Add first-person ratings (humans) or not (simulators). */
  ratings?: boolean;
}

const PHRASES: Record<string, readonly string[]> = {
  inform_preference: [
    "I'm looking for a warm jacket",
    'I need running shoes in size 9',
    'I want something casual for the weekend',
    'my budget is about 60 dollars',
    'I prefer dark colors',
  ],
  accept_recommendation: [
    "I'll take the second one",
    "I'll buy the navy one",
    'adding it to my cart',
    "that's the one",
  ],
  reject_recommendation: ["I don't like those", 'not really my style', 'none of these work for me', 'no thanks'],
  ask_clarification: ['what material is it', 'does it come in black', 'is it waterproof', 'how does it fit'],
  critique: [
    'something cheaper please',
    'can you show me a lighter one',
    'more formal than that',
    'maybe in a darker color',
  ],
  provide_feedback_positive: ['these look great', 'I love that color', 'nice suggestions'],
  provide_feedback_negative: ["you're not listening", 'this is not helpful', 'I already told you'],
  greet_thank: ['hi there', 'thanks for your help', 'thank you, bye'],
  other: ['ok', 'hmm', 'maybe', 'interesting'],
};

const ACTS = Object.keys(PHRASES);

function poisson(rng: Rng, mean: number): number {
  const l = Math.exp(-mean);
  let k = 0;
  let p = rng.next();
  while (p > l) {
    k++;
    p *= rng.next();
  }
  return k;
}

/** One synthetic conversation of a profile (index i of the population). */
function syntheticConversation(profile: SyntheticProfile, rng: Rng, i: number): Conversation {
  const nTurns = 1 + poisson(rng, Math.max(0, profile.meanTurns - 1));
  const weights = ACTS.map((a) => profile.actWeights[a] ?? 0.2);
  const accepted = rng.chance(profile.acceptRate);
  const turns: Turn[] = [];
  for (let t = 0; t < nTurns; t++) {
    let act = ACTS[rng.weighted(weights)];
    if (t === nTurns - 1 && accepted) act = 'accept_recommendation';
    if (act === 'accept_recommendation' && !(t === nTurns - 1 && accepted)) act = 'critique';
    const words: string[] = [rng.pick(PHRASES[act])];
    const filler = poisson(rng, profile.fillerWords);
    for (let w = 0; w < filler; w++) words.push(rng.pick(profile.vocabulary));
    let text = words.join(' ');
    if (rng.chance(profile.questionRate) && !text.endsWith('?')) text += '?';
    const turn: Turn = {
      user_utterance: text,
      assistant_utterance: rng.chance(0.5)
        ? 'Here are some options you might like. Which one do you prefer?'
        : 'Here are a few items that match.',
      recommendations: Array.from({ length: 4 }, (_, k) => ({ item_id: `item-${rng.int(200)}`, title: `Item ${k}` })),
    };
    if (profile.ratings) {
      turn.ratings = {
        Satisfied: rng.chance(profile.satisfied),
        Frustrated: rng.chance(profile.frustrated),
        Confused: rng.chance(profile.confused),
        Engaged: rng.chance(0.5),
      };
    }
    turns.push(turn);
  }
  const conv: Conversation = {
    id: `${profile.name}-${i}`,
    task_id: `footwear_${profile.condition ?? 'good'}`,
    condition: profile.condition,
    source: profile.source,
    turns,
    outcome: accepted ? 'accepted' : 'ended',
  };
  if (profile.ratings) conv.ratings = { 'Were you able to find a product?': accepted ? 'Yes' : 'No' };
  return conv;
}

/** n conversations of a profile, deterministic in (profile.name, seed). */
export function syntheticPopulation(profile: SyntheticProfile, n: number, seed: string | number = 1): Conversation[] {
  const rng = createRng(`synthetic/${profile.name}/${seed}`);
  return Array.from({ length: n }, (_, i) => syntheticConversation(profile, rng, i));
}

const HUMAN_WORDS = [
  'um',
  'like',
  'really',
  'kinda',
  'lol',
  'actually',
  'pretty',
  'just',
  'idk',
  'tbh',
  'super',
  'honestly',
];
const SIM_WORDS = [
  'certainly',
  'additionally',
  'furthermore',
  'preferably',
  'ideally',
  'specifically',
  'overall',
  'moreover',
  'particularly',
  'definitely',
];

/** A human-like and a few simulator-like profiles for demos and benchmarks. */
export const DEMO_PROFILES: Readonly<Record<string, SyntheticProfile>> = {
  human: {
    name: 'human',
    meanTurns: 3,
    fillerWords: 3,
    vocabulary: HUMAN_WORDS,
    questionRate: 0.25,
    actWeights: {
      inform_preference: 1,
      critique: 0.4,
      greet_thank: 0.3,
      reject_recommendation: 0.3,
      ask_clarification: 0.3,
      other: 0.2,
    },
    satisfied: 0.38,
    frustrated: 0.06,
    confused: 0.06,
    acceptRate: 0.55,
    ratings: true,
    source: 'human',
  },
  prompted: {
    name: 'prompted',
    meanTurns: 6,
    fillerWords: 8,
    vocabulary: SIM_WORDS,
    questionRate: 0.5,
    actWeights: {
      inform_preference: 2,
      critique: 0.2,
      greet_thank: 0.6,
      reject_recommendation: 0.1,
      ask_clarification: 0.5,
      other: 0.05,
    },
    satisfied: 0.6,
    frustrated: 0.02,
    confused: 0.02,
    acceptRate: 0.8,
    source: 'prompted',
  },
  icl: {
    name: 'icl',
    meanTurns: 4,
    fillerWords: 4,
    vocabulary: [...HUMAN_WORDS.slice(0, 6), ...SIM_WORDS.slice(0, 4)],
    questionRate: 0.3,
    actWeights: {
      inform_preference: 1.2,
      critique: 0.35,
      greet_thank: 0.35,
      reject_recommendation: 0.25,
      ask_clarification: 0.3,
      other: 0.15,
    },
    satisfied: 0.45,
    frustrated: 0.05,
    confused: 0.05,
    acceptRate: 0.6,
    source: 'icl',
  },
  sft: {
    name: 'sft',
    meanTurns: 3.3,
    fillerWords: 3.5,
    vocabulary: [...HUMAN_WORDS, ...SIM_WORDS.slice(0, 2)],
    questionRate: 0.27,
    actWeights: {
      inform_preference: 1,
      critique: 0.4,
      greet_thank: 0.3,
      reject_recommendation: 0.3,
      ask_clarification: 0.3,
      other: 0.2,
    },
    satisfied: 0.4,
    frustrated: 0.06,
    confused: 0.06,
    acceptRate: 0.57,
    source: 'sft',
  },
};
