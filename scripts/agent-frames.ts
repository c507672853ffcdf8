/**
 * Builds src/core/sim/recommenders/local/corpus-frames.json, the bank of recommender sentences
 * drawn from the human corpora in test/fixtures/datasets (issue 21, build item 3, recommender
 * side), deterministically:
 *
 *   npx tsx scripts/agent-frames.ts          (writes the bank)
 *   npx tsx scripts/agent-frames.ts --check  (exit 1 when the committed bank differs)
 *
 * Every recommender utterance of IARD gold, AB-ReDial (each distinct one once), MovieBot and the
 * DialogueKit test dialogues is cut into sentences. A sentence becomes a frame when it is about
 * the conversation, not about films: no film word, no name (a capital inside the sentence), no
 * digit, quote or bracket, every word of it used at least twice across the corpora' recommender
 * and user turns (typos stay out), it reads as nothing in the apparel catalog (the local
 * recommenders' lexicon finds no value and no catalog word in it) and asks about no attribute
 * (users/phrases.ts `askedAttributes` finds no cue word: the simulated users read a question's
 * attribute by them). Each frame then goes to the one pool whose rule (below) it meets: greetings,
 * acknowledgements, "sure" before more items, regrets after a rejection, a remark on the item just
 * named, questions offering more, thanks received, farewells, wishes after a purchase, and
 * noncommittal hedges (the bad recommender's). Relexicalisation: lower case then sentence case,
 * "i" capitalised, "im" written out, the final punctuation the pool's (none where the frame goes on
 * after it; "?" for a question, which only pools used where the turn asks anyway hold); "it" in a remark is the one item the frame has just named. Each frame keeps its
 * source file and line (the first of its occurrences).
 */
import * as path from 'node:path';
import { CORPUS_SOURCES, corpusUtterances, writeFrameBank, type Frame, type FrameBank } from './corpusUtterances';
import { parseSimulationConfig, prepareEnvironment } from '../src/core/run/index';
import { Lexicon } from '../src/core/sim/recommenders/local/lexicon';
import { askedAttributes } from '../src/core/sim/users/phrases';

const ROOT = path.resolve(__dirname, '..');
const OUT = path.join(ROOT, 'src/core/sim/recommenders/local/corpus-frames.json');

/** Film-domain words and words that would change what a frame means in a shop. */
const FILM =
  /\b(movies?|films?|watch\w*|seen|saw|see|actors?|actress|genres?|comed\w*|horror|scar\w*|funny|thrill\w*|drama\w*|action|romance|romantic|animated|disney|marvel|shows?|series|sequel|trailers?|plot|story|stories|character|cast|director|netflix|dvd|theat\w*|kids?|family|book|music|laugh\w*|cry|cried|sad|classics?|fan|scene|remake|original|rent|read|heard|hear|reviews?|ending|tonight|tomorrow|night|evening|morning|afternoon|weekend|year|lol|haha\w*|jk|recommender|care\*)\b/i;

/** One pool: its name in the frames (`@name`), what it is for, and which sentences belong to it. */
interface Pool {
  name: string;
  doc: string;
  re: RegExp;
  /** The frame's final punctuation ('' when the frame using the pool goes on after it); a question gets "?". */
  end: '' | '.' | '!';
}

const POOLS: Pool[] = [
  {
    name: 'r_hi',
    end: '!',
    doc: 'a greeting opening the conversation (before the first question)',
    re: /^(hi|hello|hey|howdy)( there)?(,? how are you( doing)?( today)?)?$/,
  },
  {
    name: 'r_ack',
    end: '',
    doc: 'acknowledging what the user just said it wants (before the wanted noun phrase)',
    re: /^((oh|ok|okay),? )?(ok|okay|alright|got it|gotcha|got you|great|perfect|sounds good|cool|nice|awesome|sure|sure thing|fair enough|i understand|good to know|that's good to know|i see|right)$/,
  },
  {
    name: 'r_sure',
    end: '.',
    doc: 'agreeing to show more (before the next page or a fresh set)',
    re: /^((hmm|ok|okay),? )?(sure|sure thing|sure can|of course|you bet|let me think|let me think a moment|just a second|i have another idea|i have some suggestions)$/,
  },
  {
    name: 'r_sorry',
    end: '.',
    doc: 'taking a rejection (before a fresh set)',
    re: /^((oh|ok|okay|yeah),? )?(sorry|sorry about that|i'm sorry|i'm sorry about that|i don't blame you|i can understand that|i understand|that's okay|fair enough|nothing wrong with that)$/,
  },
  {
    name: 'r_pitch',
    end: '.',
    doc: 'a remark on the item the frame has just named ("it")',
    re: /^(i think you('ll| will| would| would really) (like|enjoy|love) it|you('ll| will) (like|love) it|i think it's (pretty |really )?good|you should (really )?check it out|i highly recommend it|i('d| would) check that one out first|that one looks good|it's a great one for sure|that sounds like a good one)$/,
  },
  {
    name: 'r_offer',
    end: '.',
    doc: 'a question offering more, closing a carousel turn',
    re: /^(so )?(would you like (any|some) more (suggestions|recommendations)|do you need more suggestions|would you like one more recommendation|would you like to try that one|any other requests)$/,
  },
  {
    name: 'r_welcome',
    end: '!',
    doc: 'answering thanks',
    re: /^(you're( very)? welcome|you are( very)? welcome|my pleasure|glad i could help|glad to have helped|glad to be of help|not a problem|no problem|i hope i helped|hope i was able to help|i am glad i could help you today)$/,
  },
  {
    name: 'r_bye',
    end: '!',
    doc: 'a farewell (after the user leaves or after the purchase)',
    re: /^((ok|okay|well|nice),? )?(bye|bye now|goodbye|have a (good|great|nice|wonderful) (day|one)|take care|have fun|it was nice talking to you|it was nice to meet you|it's been great chatting with you|nice chatting with you|thanks for chatting|thank you for chatting with me|thanks for talking to me)$/,
  },
  {
    name: 'r_enjoy',
    end: '!',
    doc: 'a wish when the user takes an item ("it" = the item taken)',
    re: /^((great|of course|well),? )?(i )?hope you('ll)? (enjoy|like) it|ooh okay good pick|oh, good one$/,
  },
  {
    name: 'r_hedge',
    end: '.',
    doc: 'a noncommittal remark (the bad recommender instead of a recommendation or a confirmation)',
    re: /^(i don't know|i'm not sure|hmm+|kind of|sort of|yeah i suppose|probably|hope so|why not|lots of options there|i figured|they are all pretty good|this is a bit difficult for me|i believe i am stuck|there is a lot of stuff being made|hmm+, alright|ah gotcha, hmm)$/,
  },
];

/** The sentences of an utterance (a "..." or a line break ends one too). */
function sentences(text: string): string[] {
  return text
    .split(/(?<=[.!?])\s*|\.{2,}|\n/)
    .map((s) => s.replace(/\s+/g, ' ').trim())
    .filter(Boolean);
}

/** Lower case, no final punctuation, "im" written out, straight apostrophes. */
function normalise(sentence: string): string {
  return sentence
    .replace(/\u2019/g, "'")
    .toLowerCase()
    .replace(/[.!?,\s~]+$/, '')
    .replace(/^[,\s]+/, '')
    .replace(/\bim\b/g, "i'm");
}

/** How the frame is written: sentence case, "I" capitalised. */
function written(s: string): string {
  const t = s.replace(/\bi\b/g, 'I').replace(/\bi'(m|ll|d|ve)\b/g, "I'$1");
  return t.charAt(0).toUpperCase() + t.slice(1);
}

export async function buildAgentFrameBank(): Promise<FrameBank> {
  const env = await prepareEnvironment(parseSimulationConfig({ n: 1, catalog_size: 3000 }));
  const catalog = env.catalog;
  const lexicon = Lexicon.for(catalog);
  const names = catalog.attributeNames();
  const utterances = corpusUtterances();
  // how often each word occurs over every sentence: a word seen once is likely a typo
  const count = new Map<string, number>();
  for (const u of utterances)
    for (const w of normalise(u.text).match(/[a-z']+/g) ?? []) count.set(w, (count.get(w) ?? 0) + 1);
  const pools: Record<string, Frame[]> = {};
  for (const p of POOLS) pools[p.name] = [];
  const taken = new Set<string>();
  for (const u of utterances) {
    if (u.speaker !== 'agent') continue;
    for (const raw of sentences(u.text)) {
      if (/[^A-Za-z' ,.!?~\u2019]/.test(raw)) continue; // digits, quotes, brackets, emoticons
      if (/\S[A-Z]/.test(raw.slice(1).replace(/\bI\b|\bI'(m|ll|ve|d)\b/g, ''))) continue; // a name inside
      const s = normalise(raw);
      if (!s || taken.has(s) || FILM.test(s)) continue;
      const pool = POOLS.find((p) => p.re.test(s));
      if (!pool) continue;
      if ((s.match(/[a-z']+/g) ?? []).some((w) => (count.get(w) ?? 0) < 2)) continue;
      const text = written(s);
      const parsed = lexicon.parse(text);
      if (parsed.mentions.length) continue;
      if (
        [...parsed.keywords, ...parsed.unknownWords].some((k) =>
          catalog.categories().some((c) => catalog.categoryIndex(c).documentFrequency(k) > 0),
        )
      )
        continue;
      if (askedAttributes(text, names).length) continue;
      taken.add(s);
      const question = /^(so )?(would|do|any|what|can|could)\b|\bhow are you\b/.test(s);
      pools[pool.name].push({ text: text + (question ? '?' : pool.end), from: u.at });
    }
  }
  for (const list of Object.values(pools)) list.sort((a, b) => (a.text < b.text ? -1 : a.text > b.text ? 1 : 0));
  return {
    $doc: 'Generated by scripts/agent-frames.ts from the human corpora in test/fixtures/datasets (do not edit; run `npx tsx scripts/agent-frames.ts`). Sentences of human recommenders, chosen and relexicalised by the rules in the script header; each frame names its file and line. The local recommenders\' frames (phrases.ts) use a pool as `@name`. Licences: docs/simulation.md, "Corpus frames".',
    sources: CORPUS_SOURCES,
    pools: Object.fromEntries(POOLS.map((p) => [p.name, pools[p.name]])),
  };
}

async function main(): Promise<void> {
  writeFrameBank(OUT, await buildAgentFrameBank(), 'scripts/agent-frames.ts');
}

if (require.main === module) void main();
