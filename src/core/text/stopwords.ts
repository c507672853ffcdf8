/**
 * English function words that carry no retrieval signal. Written for SimLens; deliberately short
 * so that shopping words ("light", "warm", "top", "long") stay searchable. Negation words are in
 * the list because retrieval ignores them; code that needs negation (agent NLU) uses `tokenize`,
 * which keeps every word. No catalog value may be one: "down" (a material, as in down jackets) was,
 * and a search for it found nothing (thirteenth round: an agenda user who wanted down outerwear
 * heard "No luck with down outerwear pieces" 18 times although the catalog holds 44).
 */
const WORDS = `
a about above after again against all also am an and any are as at be because been before being
below between both but by can could did do does doing don't during each either else ever
few for from further had has have having he her here hers herself him himself his how i i'd i'll
i'm i've if in into is it it's its itself just let's me might mine more most much must my myself
neither no nor not now of off on once only or other our ours ourselves out over own please quite
rather really same shall she should so some such than that that's the their theirs them
themselves then there there's these they this those through to too under until up upon us very
was we we're were what what's when where which while who whom whose why will with would yet you
you'd you'll you're you've your yours yourself yourselves something anything thing things maybe
perhaps okay ok yes yeah hi hello hey thanks thank
`;

/** The stopword set (lowercase). */
export const STOPWORDS: ReadonlySet<string> = new Set(WORDS.split(/\s+/).filter((w) => w !== ''));

/** True when the (lowercase) token is a stopword. */
export function isStopword(token: string): boolean {
  return STOPWORDS.has(token);
}
