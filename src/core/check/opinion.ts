/**
 * The opinion an utterance voices, read from its words: a small, high-precision lexicon of
 * appraisal words and phrases ("nice", "I quite like", "looks good", "not for me", "no thanks",
 * "too pricey"), with negation in the same clause flipping a positive word ("not keen", "don't
 * love it") and wishes not read as opinions ("I'd like something red", "something nice for work").
 *
 * It is the read-back's own reader (./readback.ts): written from general English appraisal
 * wording, it shares no code or phrase list with the simulators' language generation, and it is
 * measured on human utterances (IARD gold acts; test/unit/check-opinion.test.ts and
 * scripts/readback-human.ts) as well as on the built-in users.
 */
import { clauses } from './text';

/** What a text voices: a liking, a disliking, both (several clauses that disagree), or neither. */
type Opinion = 'like' | 'dislike' | 'mixed' | 'none';

/** Appraisal words that voice a liking unless negated. */
const POSITIVE = new Set([
  'nice',
  'good',
  'great',
  'perfect',
  'lovely',
  'beautiful',
  'gorgeous',
  'cute',
  'fantastic',
  'amazing',
  'awesome',
  'excellent',
  'cool',
  'appealing',
  'promising',
  'wonderful',
  'neat',
  'stunning',
  'stylish',
  'fabulous',
  'brilliant',
  'terrific',
  'superb',
  'ideal',
  'impressive',
  'sweet',
  'fun',
  'interesting',
  'interested',
  'tempting',
  'fond',
  'keen',
  'fan',
  'favourite',
  'favorite',
  'enjoy',
  'enjoyed',
  'enjoys',
  'loved',
  'loves',
  'liked',
  'likes',
  'adore',
  'adored',
  'smart',
  'classy',
  'chic',
  'elegant-looking',
  'best',
  'better',
  'solid',
  'decent',
  'suits',
  'appeals',
  'appeal',
  'works',
  'fine',
  'winner',
  'spot',
  'exactly',
  'right',
  'favourites',
  'favorites',
  'into',
  'fab',
  'charming',
  'splendid',
  'adorable',
  'delightful',
  'marvellous',
  'marvelous',
  'glorious',
  'appreciate',
  'appreciated',
  'impressed',
  'intriguing',
]);
/** Words that voice a disliking unless negated ("not bad" then reads as a liking). */
const NEGATIVE = new Set([
  'hate',
  'hated',
  'hates',
  'dislike',
  'disliked',
  'dislikes',
  'ugly',
  'awful',
  'terrible',
  'horrible',
  'hideous',
  'boring',
  'bland',
  'meh',
  'gross',
  'tacky',
  'overpriced',
  'pricey',
  'disappointing',
  'disappointed',
  'unappealing',
  'nope',
  'dull',
  'worse',
  'worst',
  'bad',
  'dated',
  'frumpy',
  'garish',
  'cheap-looking',
  'pass',
  'skip',
  'unimpressed',
  'uninterested',
  'wrong',
  'miss',
  'underwhelming',
  'sucks',
  'sucked',
  'unconvinced',
]);
/** Verbs of a disliking with "me" as their object: "disappoints me", "bores me", "puts me off". */
const DISLIKE_VERB_ME = new Set(['disappoints', 'disappointed', 'bores', 'bored', 'puts', 'put']);
/** Verbs of an appraisal with "me" as their object: "wins me over", "grabs me", "impresses me". */
const OPINION_VERB_ME = new Set([
  'grab',
  'win',
  'tempt',
  'impress',
  'wins',
  'won',
  'grabs',
  'grabbed',
  'tempts',
  'tempted',
  'impresses',
  'impressed',
  'excites',
  'delights',
]);
/** Negators: a positive word after one of these (within a few words, same clause) is a disliking. */
const NEGATORS = new Set([
  'not',
  'no',
  'never',
  "don't",
  'dont',
  "doesn't",
  'doesnt',
  "isn't",
  'isnt',
  "aren't",
  "wasn't",
  "won't",
  "wouldn't",
  "didn't",
  'didnt',
  "can't",
  'cannot',
  'hardly',
  'neither',
  'nor',
  'less',
]);
/** Words before "like" / "love" that make it the verb of an opinion ("I like", "really like"). */
/** Nouns of "my style", "not my thing", "more my speed": the speaker's own taste. */
const MY_TASTE = new Set(['style', 'thing', 'taste', 'type', 'kind', 'speed']);

const LIKE_SUBJECT = new Set([
  'i',
  'we',
  'really',
  'do',
  'also',
  'quite',
  'definitely',
  'totally',
  'actually',
  'kinda',
  'genuinely',
  'honestly',
  'absolutely',
  'still',
  'rather',
  'truly',
  'personally',
  'sorta',
  "don't",
  'dont',
  "didn't",
  'didnt',
  'just',
  'so',
  'much',
  'always',
  'both',
  'all',
  'certainly',
]);
/** Words that make a following positive word a wish or a description, not an appraisal ("something nice"). */
const WISH_BEFORE = new Set([
  'something',
  'anything',
  'any',
  'some',
  'more',
  'a',
  'an',
  'another',
  'other',
  'somewhat',
]);
/** "good morning", "fine with" (a constraint), "best price"... : positive words followed by these are not appraisals. */
const NOT_APPRAISAL_AFTER: Record<string, ReadonlySet<string>> = {
  good: new Set(['morning', 'afternoon', 'evening', 'night', 'day']),
  right: new Set(['now', 'away', 'here', 'there']),
  spot: new Set(['for']),
  pass: new Set(['me']),
  works: new Set(['out']),
};

/**
 * The appraisal words a one-letter slip must not hide ("I liike it", "not ken on", "looks goood"):
 * a word of four letters or more one typo away (two neighbouring letters swapped, a letter dropped
 * or doubled; never the first letter) reads as the word. Kept to words whose slips are not
 * themselves common words ("suits" is not here: "suit" is a garment).
 */
const TYPO_TOLERANT = [
  'like',
  'love',
  'nice',
  'good',
  'great',
  'keen',
  'really',
  'quite',
  'appealing',
  'promising',
  'perfect',
  'lovely',
  'thanks',
  'want',
  'looking',
  'close',
  'style',
  'beautiful',
  'gorgeous',
  'awesome',
  'amazing',
  'excellent',
  'rather',
  'honestly',
  'definitely',
  'actually',
  'interested',
  'stylish',
  'wonderful',
  'fantastic',
  'ugly',
  'awful',
  'terrible',
  'horrible',
  'boring',
  'favourite',
  'favorite',
  'charming',
  'splendid',
  'adorable',
  'delightful',
  'appreciate',
  'impresses',
  'tempts',
  'would',
  'could',
  'anything',
  'whatever',
  'that',
  'this',
  'fancy',
  'feeling',
  'convinced',
  'intriguing',
];
const CANONICAL = new Map<string, string>();
for (const w of TYPO_TOLERANT) {
  const add = (v: string) => {
    if (v !== w && v.length >= 3 && !CANONICAL.has(v) && !TYPO_TOLERANT.includes(v)) CANONICAL.set(v, w);
  };
  for (let i = 1; i < w.length; i++) {
    add(w.slice(0, i) + w.slice(i + 1)); // dropped
    add(w.slice(0, i) + w[i] + w.slice(i)); // doubled
    if (i + 1 < w.length) add(w.slice(0, i) + w[i + 1] + w[i] + w.slice(i + 2)); // swapped
  }
}
// slips that are words of their own
for (const w of ['lose', 'wold', 'cold']) CANONICAL.delete(w);

/** A token with a one-letter slip of an appraisal word read as that word. */
function canonical(w: string): string {
  return CANONICAL.get(w) ?? w;
}

/** "too" before these is "also" or a quantity ("me too", "too many", "too thanks"), not an excess. */
const NOT_AFTER_TOO = new Set([
  'much',
  'many',
  'late',
  'early',
  'may',
  'might',
  'will',
  'would',
  'can',
  'could',
  'i',
  'and',
  'but',
  'as',
  'so',
  'the',
  'a',
  'an',
  'thanks',
  'thank',
  'please',
  'if',
  'though',
  'lol',
  'haha',
  'to',
  'for',
  'in',
  'on',
  'at',
  'with',
  'by',
  'of',
  'or',
  'then',
  'which',
  'that',
  'it',
  'this',
  'was',
  'is',
  "i'm",
  "i'll",
  'you',
  'we',
  'they',
  'he',
  'she',
]);

function negates(w: string): boolean {
  return NEGATORS.has(w) || w.endsWith("n't");
}

/** The opinion one clause (its tokens) voices. */
function clauseOpinion(c: readonly string[]): Opinion {
  let like = false;
  let dislike = false;
  const n = c.length;
  // a clause that is only "not" + a referent ("Not this one.", "Not for me", "no thanks", "no")
  if (
    (c[0] === 'not' || c[0] === 'no') &&
    (c[1] === 'this' ||
      c[1] === 'that' ||
      c[1] === 'thanks' ||
      c[1] === 'thank' ||
      c[1] === 'for' ||
      c[1] === 'really' ||
      c[1] === 'it' ||
      c[1] === 'quite' ||
      c[1] === 'my' ||
      c[1] === 'the' ||
      c[1] === 'those' ||
      c[1] === 'these' ||
      c[1] === 'them')
  )
    dislike = true;
  if (c[0] === 'nah' || c[0] === 'nope') dislike = true;
  for (let i = 0; i < n; i++) {
    const w = c[i];
    const prev = i > 0 ? c[i - 1] : '';
    const next = i + 1 < n ? c[i + 1] : '';
    // "not for me", "isn't for me", "not my style / thing / taste"
    if (w === 'for' && next === 'me' && i > 0 && negates(prev)) {
      dislike = true;
      continue;
    }
    if (w === 'my' && (MY_TASTE.has(next) || next === 'cup') && nearNegator(c, i, 4)) {
      dislike = true;
      continue;
    }
    // "catches my eye", "caught my eye" (a like; "nothing catches my eye", "doesn't catch my eye": a dislike)
    if (
      (w === 'catches' || w === 'caught' || w === 'catch' || w === 'catching') &&
      next === 'my' &&
      c[i + 2] === 'eye'
    ) {
      if (nearNegator(c, i, 3) || c.slice(Math.max(0, i - 3), i).includes('nothing')) dislike = true;
      else like = true;
      continue;
    }
    // "leaves me cold", "left me cold"; "does nothing for me"
    if ((w === 'leaves' || w === 'left' || w === 'leave') && next === 'me' && c[i + 2] === 'cold') {
      dislike = true;
      continue;
    }
    if (w === 'nothing' && next === 'for' && c[i + 2] === 'me' && ['does', 'did', 'do'].includes(prev)) {
      dislike = true;
      continue;
    }
    // "falls flat", "fell short"
    if (['falls', 'fell', 'fall', 'falling'].includes(w) && (next === 'flat' || next === 'short') && !wish(c, i)) {
      if (!nearNegator(c, i, 3)) dislike = true;
      continue;
    }
    // "hits the spot", "ticks (all) the boxes"
    if (
      ((w === 'hits' || w === 'hit') && next === 'the' && c[i + 2] === 'spot') ||
      ((w === 'ticks' || w === 'tick') &&
        (c.slice(i + 1, i + 4).includes('boxes') || c.slice(i + 1, i + 4).includes('box')))
    ) {
      if (wish(c, i)) continue;
      if (nearNegator(c, i, 3)) dislike = true;
      else like = true;
      continue;
    }
    // "right up my street / alley"
    if (w === 'up' && next === 'my' && (c[i + 2] === 'street' || c[i + 2] === 'alley')) {
      if (nearNegator(c, i, 4)) dislike = true;
      else like = true;
      continue;
    }
    // "not interested", "no interest (in it)" ("interested in something red" is a wish: opinionFrame)
    if ((w === 'interested' && nearNegator(c, i, 3) && next !== 'in') || (w === 'interest' && prev === 'no')) {
      dislike = true;
      continue;
    }
    // "not so much", "not really feeling it", "not sold (on it)", "not convinced", "couldn't get into it"
    if (w === 'so' && next === 'much' && (prev === 'not' || prev === 'no') && i + 2 >= n) {
      dislike = true;
      continue;
    }
    if (w === 'feeling' && ['it', 'this', 'that', 'these', 'those', 'them'].includes(next)) {
      if (nearNegator(c, i, 3)) dislike = true;
      else if (prev === 'really' || prev === "i'm" || prev === 'am' || prev === 'totally') like = true;
      continue;
    }
    if ((w === 'sold' || w === 'convinced') && nearNegator(c, i, 3)) {
      dislike = true;
      continue;
    }
    if (w === 'get' && next === 'into' && (negates(prev) || (prev === 'really' && negates(c[i - 2] ?? '')))) {
      dislike = true;
      continue;
    }
    // "I don't want anything in wool", "don't want it": a dislike ("don't want to ..." is no appraisal)
    if (
      w === 'want' &&
      negates(prev) &&
      ['anything', 'any', 'it', 'this', 'that', 'these', 'those', 'them', 'one'].includes(next)
    ) {
      dislike = true;
      continue;
    }
    // "I'll let it go", "I'll let the first one go": passing on it ("let me go", "let's go" are not)
    if (w === 'let' && next !== 'me' && next !== 'us' && c.slice(i + 1, i + 5).includes('go')) {
      dislike = true;
      continue;
    }
    // the verb "fancy": "I fancy this one", "I don't fancy anything purple" ("something fancy", "I fancy something red": no appraisal)
    if (w === 'fancy' && (prev === 'i' || LIKE_SUBJECT.has(prev)) && prev !== 'so' && prev !== 'much') {
      if (nearNegator(c, i, 3)) dislike = true;
      else if (!WISH_BEFORE.has(next) && next !== 'to') like = true;
      continue;
    }
    // "that's my kind of ...", "more my speed", "definitely my style" (negated: rule below)
    if (
      w === 'my' &&
      MY_TASTE.has(next) &&
      !nearNegator(c, i, 4) &&
      [
        "that's",
        "it's",
        'is',
        'more',
        'definitely',
        'totally',
        'just',
        'exactly',
        'very',
        'so',
        'really',
        'absolutely',
        'quite',
        'looks',
        'seems',
        'sounds',
      ].includes(prev) &&
      !wish(c, i)
    ) {
      like = true;
      continue;
    }
    if (w === 'rather' && next === 'not') {
      dislike = true;
      continue;
    }
    // "didn't do it for me", "didn't really care for them", "so-so"
    if (w === 'do' && next === 'it' && c[i + 2] === 'for' && nearNegator(c, i, 3)) {
      dislike = true;
      continue;
    }
    if (w === 'care' && next === 'for' && nearNegator(c, i, 3)) {
      dislike = true;
      continue;
    }
    if (w === 'so' && next === 'so' && n <= 6) {
      dislike = true;
      continue;
    }
    if (
      w === 'too' &&
      i + 1 < n &&
      !NOT_AFTER_TOO.has(next) &&
      prev !== 'me' &&
      prev !== 'it' &&
      prev !== 'one' &&
      prev !== 'that'
    ) {
      dislike = true;
      continue;
    }
    if (
      (w === 'what' || w === 'close') &&
      (next === 'i' || next === 'to' || next === "i'm" || next === "i've" || next === 'im' || next === 'ive') &&
      /want|looking|need|after|mind|hoping|wanted|had/.test(c.slice(i + 1, i + 5).join(' '))
    ) {
      if (nearNegator(c, i, 3)) dislike = true;
      else like = true;
      continue;
    }
    if (w === 'like' || w === 'love') {
      // "I'd like", "would love to", "like to", "something like", "looks like": a wish or a comparison
      // "Love it!", "Like the colour": a clause that opens with the verb
      const opens =
        i === 0 && ['it', 'this', 'that', 'the', 'them', 'these', 'those', 'how', 'its', "it's"].includes(next);
      if (
        prev === "i'd" ||
        prev === 'would' ||
        prev === "we'd" ||
        prev === 'd' ||
        next === 'to' ||
        (!LIKE_SUBJECT.has(prev) && !opens)
      )
        continue;
      if (nearNegator(c, i, 3)) dislike = true;
      else like = true;
      continue;
    }
    if (OPINION_VERB_ME.has(w) && next === 'me' && (!w.startsWith('w') || c[i + 2] === 'over')) {
      // "X wins me over", "it grabs me", "tempts me", "impresses me"; "nothing here wins me over"
      if (nearNegator(c, i, 3) || c.slice(Math.max(0, i - 3), i).includes('nothing')) dislike = true;
      else like = true;
      continue;
    }
    if (DISLIKE_VERB_ME.has(w) && next === 'me' && (!w.startsWith('put') || c[i + 2] === 'off')) {
      // "X disappoints me", "it bores me", "it puts me off" ("doesn't disappoint me" voices nothing)
      if (!nearNegator(c, i, 3)) dislike = true;
      continue;
    }
    if ((w === 'misses' || w === 'missed') && next === 'the' && c[i + 2] === 'mark') {
      // "X misses the mark"
      if (!nearNegator(c, i, 3)) dislike = true;
      continue;
    }
    if (w === 'speaks' && next === 'to' && c[i + 2] === 'me') {
      if (nearNegator(c, i, 3)) dislike = true;
      else like = true;
      continue;
    }
    if (w === 'right' && prev === 'quite' && nearNegator(c, i, 3)) {
      // "it isn't quite right"
      dislike = true;
      continue;
    }
    // an appraisal as a noun: "it being cream is a big plus", "a real bonus" ("would be a plus" is a wish)
    if (
      (w === 'plus' || w === 'bonus') &&
      (prev === 'a' || (c[i - 2] === 'a' && ['big', 'real', 'huge', 'nice', 'definite', 'major'].includes(prev))) &&
      !wish(c, i)
    ) {
      if (nearNegator(c, i, 4)) dislike = true;
      else like = true;
      continue;
    }
    // "off-putting" (the tokenizer cuts it in two)
    if (w === 'off' && next === 'putting') {
      if (!nearNegator(c, i, 2)) dislike = true;
      continue;
    }
    if (w === 'doing' && next === 'it' && nearNegator(c, i, 3)) {
      // "it isn't doing it (for me)"
      dislike = true;
      continue;
    }
    if (POSITIVE.has(w)) {
      if ((WISH_BEFORE.has(prev) && w !== 'fan') || NOT_APPRAISAL_AFTER[w]?.has(next) || wish(c, i)) continue;
      if (
        (w === 'into' ||
          w === 'fine' ||
          w === 'works' ||
          w === 'right' ||
          w === 'exactly' ||
          w === 'spot' ||
          w === 'better' ||
          w === 'best' ||
          w === 'fan' ||
          w === 'keen' ||
          w === 'fond' ||
          w === 'interested' ||
          w === 'interesting') &&
        !opinionFrame(c, i)
      )
        continue;
      if (nearNegator(c, i, 4)) dislike = true;
      else like = true;
      continue;
    }
    if (NEGATIVE.has(w)) {
      if (NOT_APPRAISAL_AFTER[w]?.has(next)) continue;
      // "I'll pass", "Pass.", and the noun: "it's a pass", "a hard pass", "that one's a skip", "a miss"
      const noun = prev === 'a' || (prev === 'hard' && c[i - 2] === 'a');
      // the verb only when nothing but "on ..." / "thanks" / "this time" follows ("Can I pass by later?" is no opinion)
      const verbEnds = next === '' || next === 'on' || next === 'thanks' || next === 'thank' || next === 'this';
      if (w === 'pass' && !(((prev === "i'll" || prev === 'i' || prev === 'will' || i === 0) && verbEnds) || noun))
        continue;
      if (w === 'skip' && !(prev === "i'll" || prev === 'i' || i === 0 || noun)) continue;
      if (w === 'miss' && !noun) continue;
      if (
        w === 'wrong' &&
        !(
          prev === 'all' ||
          prev === 'just' ||
          prev === 'is' ||
          prev === "it's" ||
          prev === "that's" ||
          prev === 'looks' ||
          prev === 'seems' ||
          prev === 'feels'
        )
      )
        continue;
      if (nearNegator(c, i, 2)) {
        if (w === 'bad') like = true;
        continue;
      }
      dislike = true;
    }
  }
  return like && dislike ? 'mixed' : like ? 'like' : dislike ? 'dislike' : 'none';
}

/** "would be perfect", "could be nice", "it'd be great": a wish, not an appraisal of what was shown. */
function wish(c: readonly string[], i: number): boolean {
  for (let j = i - 1; j >= 0 && j >= i - 3; j--) {
    const w = c[j];
    if (
      w === 'would' ||
      w === 'could' ||
      w === "it'd" ||
      w === "that'd" ||
      w === "i'd" ||
      w === 'might' ||
      w === 'should' ||
      w === 'if' ||
      w === 'wish' ||
      w === 'hope' ||
      w === 'hoping'
    )
      return true;
  }
  return false;
}

/** Words that frame a weak appraisal word as an opinion: "that works", "a fan of", "keen on", "that's fine". */
function opinionFrame(c: readonly string[], i: number): boolean {
  const w = c[i];
  const prev = i > 0 ? c[i - 1] : '';
  const next = i + 1 < c.length ? c[i + 1] : '';
  switch (w) {
    case 'into':
      // only "not into it", "wasn't into": an unnegated "into" is a preposition
      return (
        nearNegator(c, i, 3) &&
        (i + 1 >= c.length || ['it', 'them', 'this', 'that', 'those', 'these', 'the'].includes(next))
      );
    case 'fan':
      return next === 'of' || next === '' || prev === 'a' || prev === 'big' || prev === 'huge';
    case 'keen':
    case 'fond':
      return next === 'on' || next === 'of';
    case 'interested':
      return next === 'in' && !['something', 'anything', 'a', 'an', 'some'].includes(c[i + 2] ?? '');
    case 'interesting':
      return (
        prev === 'looks' ||
        prev === 'sounds' ||
        prev === 'is' ||
        prev === "that's" ||
        prev === "it's" ||
        prev === 'very' ||
        prev === 'quite'
      );
    case 'fine':
    case 'works':
      if (['anything', 'whatever', 'either', 'any', 'all'].includes(c[i - 2] ?? '')) return false;
      return (
        prev === "that's" ||
        prev === "it's" ||
        prev === 'that' ||
        prev === 'it' ||
        prev === 'looks' ||
        prev === 'sounds' ||
        prev === 'one' ||
        prev === 'is'
      );
    case 'right':
      return prev === 'just' || prev === 'looks' || prev === 'seems';
    case 'exactly':
      return next === 'what' || next === 'it' || next === 'right';
    case 'spot':
      return next === 'on';
    case 'better':
    case 'best':
      return (
        prev === 'much' ||
        prev === 'way' ||
        prev === "that's" ||
        prev === 'is' ||
        prev === 'looks' ||
        (prev === 'the' && next === 'one')
      );
    default:
      return true;
  }
}

/** A negator among the `span` words before `i` in the clause (a contrast word stops the search). */
function nearNegator(c: readonly string[], i: number, span: number): boolean {
  for (let j = i - 1; j >= 0 && j >= i - span; j--) {
    const w = c[j];
    if (w === 'but' || w === 'though' || w === 'although') return false;
    if (negates(w)) return true;
  }
  return false;
}

/**
 * The opinion `text` voices: `like` or `dislike` when its clauses voice only one, `mixed` when
 * clauses disagree ("X is nice, but too pricey"), `none` when no clause voices an opinion.
 */
export function readOpinion(text: string): Opinion {
  let v = OPINION_CACHE.get(text);
  if (v === undefined) {
    if (OPINION_CACHE.size >= 20000) OPINION_CACHE.clear();
    v = read(text);
    OPINION_CACHE.set(text, v);
  }
  return v;
}

/** Texts already read (simulated users repeat their wording), bounded. */
const OPINION_CACHE = new Map<string, Opinion>();

function read(text: string): Opinion {
  let like = false;
  let dislike = /\bno,?\s+(thanks|thank you)\b/i.test(text);
  const all = clauses(text).map((raw) => raw.map(canonical));
  const opinions = all.map(clauseOpinion);
  // An opening interjection ("Cool, I don't fancy anything purple.", "Right, ...") acknowledges the
  // agent's turn: when a later clause voices an opinion of its own, that one is the user's (a
  // contrast, "Nice, but too pricey", keeps both).
  if (
    all.length > 1 &&
    all[0].length === 1 &&
    opinions[0] === 'like' &&
    all[1][0] !== 'but' &&
    all[1][0] !== 'though' &&
    opinions.slice(1).some((o) => o !== 'none')
  )
    opinions[0] = 'none';
  for (const o of opinions) {
    if (o === 'like' || o === 'mixed') like = true;
    if (o === 'dislike' || o === 'mixed') dislike = true;
  }
  return like && dislike ? 'mixed' : like ? 'like' : dislike ? 'dislike' : 'none';
}
