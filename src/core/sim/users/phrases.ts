/**
 * Small wording helpers shared by the template users: how an attribute value reads after
 * "something", and which attribute an agent question is about.
 */

/** "black", "in leather", "for work", "like sneakers", "from Northvale", "in the budget price range". */
export function valuePhrase(attr: string, value: string): string {
  switch (attr) {
    case 'gender':
    case 'occasion':
      return `for ${value}`;
    case 'material':
      return `in ${value}`;
    case 'price_band':
      return `in the ${value} price range`;
    case 'brand':
      return `from ${value}`;
    case 'type':
      return `like ${value}`;
    default:
      return value;
  }
}

/** Words that show an agent question is about an attribute. */
const ATTRIBUTE_CUES: Record<string, string[]> = {
  colour: ['colour', 'color', 'colours', 'colors', 'shade'],
  material: ['material', 'materials', 'fabric', 'made'],
  style: ['style', 'styles', 'look', 'vibe'],
  gender: ['men', 'women', 'mens', 'womens', 'gender', 'unisex', 'him', 'her'],
  occasion: ['occasion', 'occasions', 'event', 'wear', 'use'],
  price_band: ['price', 'budget', 'cost', 'spend', 'expensive', 'cheap', 'afford'],
  type: ['type', 'kind', 'sort'],
  brand: ['brand', 'brands', 'label'],
};

const cueCache = new Map<string, { re: RegExp; attrOf: Map<string, string> }>();

/** One case-insensitive regex over every cue word of the candidate attributes (built once per list). */
function cuesFor(candidates: readonly string[]): { re: RegExp; attrOf: Map<string, string> } {
  const key = candidates.join('\u0000');
  let entry = cueCache.get(key);
  if (!entry) {
    const attrOf = new Map<string, string>();
    for (const attr of candidates) for (const cue of ATTRIBUTE_CUES[attr] ?? attr.toLowerCase().split(/[_-]+/)) if (!attrOf.has(cue)) attrOf.set(cue, attr);
    const words = [...attrOf.keys()].sort((a, b) => b.length - a.length).map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
    entry = { re: new RegExp(`(?<![\\p{L}\\p{N}])(?:${words.join('|')})(?![\\p{L}\\p{N}])`, 'giu'), attrOf };
    cueCache.set(key, entry);
  }
  return entry;
}

/** The attributes an agent utterance asks about, in the order of `candidates`. */
export function askedAttributes(text: string, candidates: readonly string[]): string[] {
  if (!text || candidates.length === 0) return [];
  const { re, attrOf } = cuesFor(candidates);
  const found = new Set<string>();
  re.lastIndex = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const attr = attrOf.get(m[0].toLowerCase());
    if (attr) found.add(attr);
  }
  return candidates.filter((a) => found.has(a));
}

/** The sentences of a text that ask something (contain "?"), joined; "" when none does. */
export function questionSentences(text: string): string {
  if (!text.includes('?')) return '';
  return text
    .split(/(?<=[.!?])\s+/)
    .filter((sentence) => sentence.includes('?'))
    .join(' ');
}
