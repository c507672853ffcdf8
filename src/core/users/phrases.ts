/**
 * Small wording helpers shared by the template users: how an attribute value reads after
 * "something", and which attribute an agent question is about.
 */
import { tokenize } from '../text/tokenize';

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

/** The attributes an agent utterance asks about, in the order of `candidates`. */
export function askedAttributes(text: string, candidates: readonly string[]): string[] {
  if (!text) return [];
  const tokens = new Set(tokenize(text));
  const out: string[] = [];
  for (const attr of candidates) {
    const cues = ATTRIBUTE_CUES[attr] ?? attr.split(/[_-]+/);
    if (cues.some((c) => tokens.has(c))) out.push(attr);
  }
  return out;
}
