/**
 * Builds src/core/sim/users/corpus-frames.json, the bank of user utterance frames drawn from the
 * human corpora in test/fixtures/datasets (issue 21, build item 3), deterministically:
 *
 *   npx tsx scripts/user-frames.ts          (writes the bank)
 *   npx tsx scripts/user-frames.ts --check  (exit 1 when the committed bank differs)
 *
 * Every user utterance of IARD gold, AB-ReDial (one copy per dialogue), MovieBot and the
 * DialogueKit test dialogues is cut into sentences. A sentence becomes a frame when it is about
 * the conversation, not about films: no film word, no name (a capital inside the sentence), no digit
 * or quote, every word of it used at least twice across the corpora (typos stay out), and it reads
 * as nothing in the apparel catalog (the local recommenders' lexicon finds no value and no catalog
 * word in it). Each frame then goes to the one pool whose rule it meets (greetings, asking for
 * help, thanks, farewells, taking an item, asking for more, wanting something, liking or
 * dislinking a shown item, asides), its opinion checked with the checker's own reader: a pool for
 * liking keeps only sentences the reader reads as liking, and so on. Relexicalisation: "i" is
 * capitalised, plural pronouns for the shown item ("them", "those") become singular ("it",
 * "that one") so the frame agrees with the one item the template names, the final punctuation is
 * dropped (the template adds its own). Each frame keeps its source file and line.
 */
import * as path from 'node:path';
import { CORPUS_SOURCES, corpusUtterances, writeFrameBank, type Frame, type FrameBank } from './corpusUtterances';
import { parseSimulationConfig, prepareEnvironment } from '../src/core/run/index';
import { Lexicon } from '../src/core/sim/recommenders/local/lexicon';
import { readOpinion } from '../src/core/check/opinion';
import type { Catalog } from '../src/core/catalog/catalog';

const ROOT = path.resolve(__dirname, '..');
const OUT = path.join(ROOT, 'src/core/sim/users/corpus-frames.json');

/** Film-domain words and words that would change what a frame means in a shop. */
const FILM =
  /\b(movies?|films?|watch\w*|seen|saw|see|actors?|actress|genres?|comed\w*|horror|scar\w*|funny|thrill\w*|drama\w*|action|romance|romantic|animated|disney|marvel|shows?|series|sequel|trailers?|plot|story|character|cast|director|netflix|dvd|theat\w*|kids?|family|old|older|new|newer|book|music|laugh\w*|cry|cried|sad|classic|fan|scene|remake|original|rent|read|heard|hear|about|talent|ending|tonight|tomorrow|guy|woman|man|husband|wife|mom|baby|nerds?|dead|death|killer|blood|gore\w*|ghosts?|sci|fi|lol|haha|jk|kidding|oops|sorry|asking|doing|today|anyway|anyways)\b/i;
/** Negation and contrast words: a frame never says "not" on its own (the template says what is rejected). */
const NEGATION = /\b(not|no|nope|nah|never|neither|either|n't|\w+n't|dont|didnt|cant|isnt|wont|but|though|although)\b/i;
/** Tense words: a remark about the shown item is in the present. */
const PAST = /\b(was|were|did|didn't|had|been|used)\b/i;

interface Pool {
  /** The pool's name in the templates (`<name>`). */
  name: string;
  /** What the frames are for. */
  doc: string;
  /** True when a (relexicalised, lower-case) sentence belongs to the pool. */
  test: (s: string) => boolean;
  /** The opinion the checker must read in the frame ('none' for neutral pools). */
  opinion: 'none' | 'like' | 'dislike' | 'any';
  /** Longest frame in words. */
  maxWords: number;
  /** When set, the frame is the sentence's start this matches (the rest is the film-domain content). */
  prefix?: RegExp;
  /** Negation words allowed (a rejection pool). */
  negation?: boolean;
}

/** Openings that say what the user wants; what follows them is replaced by the template's slot. */
const WANT =
  /^(i would prefer|i'd prefer|i'm looking for|i am looking for|i'm after|i need|i was wanting|i'm in the mood for|i'm interested in|i would like|i'd like|i want|i'm searching for|i am searching for|i'd love|i would love|i really want|i'm hoping for|i am hoping for)(?= (something|anything|a|an|some|more)\b)/;

const POOLS: Pool[] = [
  {
    name: 'c_hi',
    doc: 'greetings that open a conversation',
    test: (s) => /^(hi|hello|hey|howdy|good (morning|afternoon|evening))( there| friend)?$/.test(s),
    opinion: 'any',
    maxWords: 3,
  },
  {
    name: 'c_help',
    doc: 'asking for help before saying what is wanted (a question)',
    test: (s) => /^(hi |hello |hey )?(can|could) you (help me|recommend me anything|help me out)$/.test(s),
    opinion: 'none',
    maxWords: 6,
  },
  {
    name: 'c_thanks',
    doc: 'thanks, for an accept or a closing',
    test: (s) =>
      /^((well|ok|okay|great|definitely|yeah),? )?(thank you|thanks|i appreciate|much appreciated|it is very appreciated|i thank you)\b/.test(
        s,
      ) && !/\b(bye|good ?bye|check|it recommendations|that one)\b/.test(s),
    opinion: 'any',
    maxWords: 8,
  },
  {
    name: 'c_bye',
    doc: 'farewells, for a closing that is not a complaint',
    test: (s) =>
      /^(bye|good ?bye|goodnight|good night|have a (good|great|nice) \w+|good speaking|great chatting|nice to meet)\b/.test(
        s,
      ) && !/\b(thank|do)\b/.test(s),
    opinion: 'any',
    maxWords: 9,
  },
  {
    name: 'c_take',
    doc: 'what a user says when it takes the item the template names ("it")',
    test: (s) =>
      /^(i'll|i will|i'm going to|i think i'll|i think i will|maybe i'll|i may|i might|i should|i need to)\b/.test(s) &&
      /\b(check|look|try|give it a|keep|consideration|add it|take a look|go)\b/.test(s) &&
      /\b(it|that one|that)\b/.test(s) &&
      !/\bboth\b/.test(s),
    opinion: 'any',
    maxWords: 10,
  },
  {
    name: 'c_more',
    doc: 'asking for more suggestions (a question)',
    test: (s) =>
      /^(any other (ideas|suggestions)|anything else|any others|another suggestion|do you have (any other|another|one more|anymore|any more) (suggestions?|recommendations?|ideas)|can you give me one more suggestion|do you have a different suggestion)$/.test(
        s,
      ),
    opinion: 'none',
    maxWords: 8,
  },
  {
    name: 'c_want',
    doc: 'how a user says it wants something: the words before what is wanted ("<c_want> something {value}")',
    prefix: WANT,
    test: () => true,
    opinion: 'any',
    maxWords: 12,
  },
  {
    name: 'c_pass',
    doc: 'a short remark turning down the item just named ("it")',
    negation: true,
    test: (s) =>
      /\b(pass on (it|that one)|not my cup of tea|care for it|not (really )?for me|not (really )?my thing|not into it)\b/.test(
        s,
      ),
    opinion: 'dislike',
    maxWords: 10,
  },
  {
    name: 'c_good',
    doc: 'a short remark liking the item just named',
    test: (s) =>
      /^(awesome|nice|cool|great|great choice|great idea|good recommendation|interesting|it's great|it actually sounds (really )?good|that sounds right up my alley|that sounds good|cool, that sounds good)$/.test(
        s,
      ),
    opinion: 'any',
    maxWords: 6,
  },
  {
    name: 'c_aside',
    doc: 'asides that state nothing about items (after what is wanted)',
    test: (s) => /^(i'm open to suggestions|i am open to ideas|i am making a list)$/.test(s),
    opinion: 'none',
    maxWords: 7,
  },
];

/** The sentences of an utterance (a "..." or a line break ends one too). */
function sentences(text: string): string[] {
  return text
    .split(/(?<=[.!?])\s+|\.{2,}|\n|(?<=[a-z])!(?=[A-Za-z])/)
    .map((s) => s.replace(/\s+/g, ' ').trim())
    .filter(Boolean);
}

/** Lower case, no final punctuation, "im"/"ill" written out, plural pronouns for the item made singular. */
function normalise(sentence: string): string {
  return sentence
    .toLowerCase()
    .replace(/[.!?,\s]+$/, '')
    .replace(/^[,\s]+/, '')
    .replace(/\bim\b/g, "i'm")
    .replace(/\bill\b/g, "i'll")
    .replace(/\bally\b/g, 'alley')
    .replace(/\bthose two\b/g, 'that one')
    .replace(/\bthose\b/g, 'that one')
    .replace(/\bthem both\b/g, 'it')
    .replace(/\bthem\b/g, 'it')
    .replace(/\bthese\b/g, 'it');
}

/** How the frame is written: sentence case, "I" capitalised. */
function written(s: string): string {
  const t = s.replace(/\bi\b/g, 'I');
  return t.charAt(0).toUpperCase() + t.slice(1);
}

/** True when a catalog reader would see a value or a product word in the frame. */
function readsAsCatalog(text: string, lexicon: Lexicon, catalog: Catalog): boolean {
  const parsed = lexicon.parse(text);
  if (parsed.mentions.length) return true;
  return [...parsed.keywords, ...parsed.unknownWords].some((k) =>
    catalog.categories().some((c) => catalog.categoryIndex(c).documentFrequency(k) > 0),
  );
}

export async function buildFrameBank(): Promise<FrameBank> {
  const env = await prepareEnvironment(parseSimulationConfig({ n: 1, catalog_size: 3000 }));
  const catalog = env.catalog;
  const lexicon = Lexicon.for(catalog);
  const utterances = corpusUtterances().filter((u) => u.speaker === 'user');
  // how often each word occurs over every user sentence: a word seen once is likely a typo
  const count = new Map<string, number>();
  for (const u of utterances)
    for (const w of u.text.toLowerCase().match(/[a-z']+/g) ?? []) count.set(w, (count.get(w) ?? 0) + 1);
  const pools: Record<string, Frame[]> = {};
  for (const p of POOLS) pools[p.name] = [];
  const taken = new Set<string>();
  for (const u of utterances) {
    for (const raw of sentences(u.text)) {
      if (/[^A-Za-z' ,.!?]/.test(raw)) continue; // digits, quotes, brackets, emoticons
      if (/\S[A-Z]/.test(raw.slice(1).replace(/\bI\b|\bI'(m|ll|ve|d)\b/g, ''))) continue; // a name inside
      const whole = normalise(raw);
      const want = WANT.exec(whole);
      const s = want ? want[0] : whole;
      const pool = want ? POOLS.find((p) => p.prefix === WANT) : POOLS.find((p) => !p.prefix && p.test(s));
      if (!pool || !s || taken.has(s) || FILM.test(s) || PAST.test(s)) continue;
      if (!pool.negation && NEGATION.test(s)) continue;
      const words = s.match(/[a-z']+/g) ?? [];
      if (words.length > pool.maxWords || words.some((w) => (count.get(w) ?? 0) < 2)) continue;
      const text = written(s);
      if (readsAsCatalog(text, lexicon, catalog)) continue;
      const opinion = readOpinion(text);
      if (pool.opinion !== 'any' && opinion !== pool.opinion) continue;
      if (pool.opinion === 'any' && (opinion === 'dislike' || opinion === 'mixed')) continue;
      taken.add(s);
      pools[pool.name].push({ text, from: u.at });
    }
  }
  for (const list of Object.values(pools)) list.sort((a, b) => (a.text < b.text ? -1 : a.text > b.text ? 1 : 0));
  return {
    $doc: 'Generated by scripts/user-frames.ts from the human corpora in test/fixtures/datasets (do not edit; run `npx tsx scripts/user-frames.ts`). Sentences of real users, chosen and relexicalised by the rules in the script header; each frame names its file and line. The user templates (nlg-templates.json) use a pool as `<name>`. Licences: docs/simulation.md, "Corpus frames".',
    sources: CORPUS_SOURCES,
    pools: Object.fromEntries(POOLS.map((p) => [p.name, pools[p.name]])),
  };
}

async function main(): Promise<void> {
  writeFrameBank(OUT, await buildFrameBank(), 'scripts/user-frames.ts');
}

if (require.main === module) void main();
