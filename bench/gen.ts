/**
 * Deterministic generator of ConvApparel-scale JSONL files for benchmarks (and for the editor and
 * language-server benchmarks, which import `generateConvApparelFile` / `ensureBenchFile`).
 *
 * Shape follows the ConvApparel release (domain.md §2): task_id "<task>_<good|bad>" (80/20),
 * turns with user/assistant utterances, 12 recommended items per turn (item_id, title, ~500-char
 * description, image_url, comma-separated features), first-person turn ratings, session ratings,
 * version. Scale 1 = 4,146 conversations and 14,736 turns; scale 10 = ten times both.
 * The text is synthetic (word lists), produced with the seeded Rng so every run writes the same bytes.
 */
import { createWriteStream, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { createRng, type Rng } from '../src/core/random';
import { PURCHASE_ANSWERS, TURN_FEELINGS } from '../src/core/model';

export const CONVAPPAREL_CONVERSATIONS = 4146;
export const CONVAPPAREL_TURNS = 14736;

export interface GenerateOptions {
  conversations?: number;
  turns?: number;
  itemsPerTurn?: number;
  /** Target description length in characters (each is within ±15% of it). */
  descriptionChars?: number;
  seed?: string | number;
  /** Distinct catalog items the carousels draw from. */
  catalogSize?: number;
}

export interface GenerateResult {
  path: string;
  bytes: number;
  conversations: number;
  turns: number;
}

const TASKS = ['footwear', 'outerwear', 'tops', 'bottoms', 'dresses', 'activewear', 'accessories', 'sleepwear'];
const ADJECTIVES = [
  'soft',
  'breathable',
  'lightweight',
  'cozy',
  'durable',
  'stretchy',
  'waterproof',
  'warm',
  'relaxed',
  'slim',
  'classic',
  'modern',
  'vintage',
  'minimalist',
  'sporty',
  'casual',
  'elegant',
  'quilted',
  'ribbed',
  'textured',
  'heathered',
  'plush',
  'sleek',
  'oversized',
  'tailored',
  'versatile',
  'comfortable',
  'stylish',
  'subtle',
  'bold',
];
const MATERIALS = [
  'cotton',
  'polyester',
  'fleece',
  'wool',
  'linen',
  'denim',
  'leather',
  'nylon',
  'spandex',
  'rayon',
  'suede',
  'cashmere',
];
const COLORS = [
  'black',
  'navy blue',
  'heather gray',
  'sky blue',
  'olive',
  'burgundy',
  'cream',
  'tan',
  'pink',
  'charcoal',
  'white',
  'mustard',
];
const GARMENTS: Record<string, string[]> = {
  footwear: ['sneaker', 'boot', 'loafer', 'sandal', 'running shoe', 'slip-on'],
  outerwear: ['hoodie', 'parka', 'rain jacket', 'bomber jacket', 'fleece jacket', 'trench coat'],
  tops: ['t-shirt', 'blouse', 'polo shirt', 'sweater', 'tank top', 'henley'],
  bottoms: ['jeans', 'chinos', 'joggers', 'cargo pants', 'shorts', 'skirt'],
  dresses: ['maxi dress', 'wrap dress', 'shirt dress', 'sundress', 'cocktail dress', 'sweater dress'],
  activewear: ['leggings', 'sports bra', 'track jacket', 'running shorts', 'training tee', 'yoga pants'],
  accessories: ['beanie', 'scarf', 'belt', 'tote bag', 'baseball cap', 'gloves'],
  sleepwear: ['pajama set', 'robe', 'nightgown', 'lounge pants', 'sleep shirt', 'slippers'],
};
const DETAILS = [
  'a kangaroo pocket',
  'ribbed cuffs and hem',
  'a drawstring hood',
  'a full-length zipper',
  'flat-lock seams',
  'a cushioned insole',
  'reinforced stitching',
  'an elastic waistband',
  'contrast piping',
  'a brushed lining',
  'adjustable straps',
  'a tapered leg',
  'a relaxed silhouette',
  'hidden side pockets',
  'a curved hemline',
];
const USES = [
  'everyday wear',
  'the gym',
  'travel',
  'lounging at home',
  'the office',
  'weekend outings',
  'hiking',
  'layering',
  'cold mornings',
  'a night out',
];
const FILLER = [
  'The fabric feels',
  'It pairs well with',
  'Designed for',
  'Perfect for',
  'This piece offers',
  'Made with care, it brings',
  'The look is finished with',
  'Machine washable and',
  'Available in several sizes, it suits',
  'Its understated design adds',
];
const USER_OPENERS = [
  'I need',
  'Looking for',
  'Can you show me',
  'Do you have',
  'Something like',
  'I want',
  'Show me more',
  'Maybe',
];
const ASSISTANT_OPENERS = [
  'Here are some options for',
  'I found a few',
  'These might work for',
  'Take a look at these',
  'Would you like to narrow down',
  'Do you have a preferred color for',
  'Great choice! Here are more',
  'What size are you looking for in',
];
const SESSION_STATEMENTS = [
  'It was easy to use the system',
  'It was hard to use the system',
  'The conversation felt natural',
  'The conversation felt unnatural',
  'The system asked relevant questions',
  'The system understood my preferences',
  'The system did not understand my preferences',
  'The system was responsive',
  'It was easy to find what I wanted',
  'It was hard to find what I wanted',
  'The conversation was too long',
];
const SHOP_FREQ = ['Rarely', 'Monthly', 'Weekly', 'Several times a week'];

interface CatalogItem {
  item_id: string;
  title: string;
  description: string;
  image_url: string;
  features: string;
}

const ID_CHARS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

function itemId(rng: Rng): string {
  let s = 'B0';
  for (let i = 0; i < 8; i++) s += ID_CHARS[rng.int(ID_CHARS.length)];
  return s;
}

function sentence(rng: Rng, task: string): string {
  const g = rng.pick(GARMENTS[task]);
  switch (rng.int(4)) {
    case 0:
      return `This ${rng.pick(ADJECTIVES)} ${rng.pick(COLORS)} ${g} is made from ${rng.pick(MATERIALS)} and features ${rng.pick(DETAILS)}.`;
    case 1:
      return `${rng.pick(FILLER)} ${rng.pick(ADJECTIVES)} and ${rng.pick(ADJECTIVES)}, ideal for ${rng.pick(USES)}.`;
    case 2:
      return `It has ${rng.pick(DETAILS)} and ${rng.pick(DETAILS)}, giving a ${rng.pick(ADJECTIVES)} look that works for ${rng.pick(USES)}.`;
    default:
      return `Blended ${rng.pick(MATERIALS)} and ${rng.pick(MATERIALS)} keep it ${rng.pick(ADJECTIVES)} through ${rng.pick(USES)}.`;
  }
}

function capitalize(s: string): string {
  return s[0].toUpperCase() + s.slice(1);
}

function makeItem(rng: Rng, task: string, descriptionChars: number): CatalogItem {
  const target = Math.round(descriptionChars * (0.85 + rng.next() * 0.3));
  let description = '';
  while (description.length < target) description += (description ? ' ' : '') + sentence(rng, task);
  const garment = rng.pick(GARMENTS[task]);
  const features = new Set<string>();
  const nFeatures = 6 + rng.int(5);
  while (features.size < nFeatures) {
    const f = rng.pick([...ADJECTIVES, ...MATERIALS, ...DETAILS.map((d) => d.replace(/^an? /, ''))]);
    features.add(capitalize(f));
  }
  return {
    item_id: itemId(rng),
    title: capitalize(`${rng.pick(ADJECTIVES)} ${rng.pick(COLORS)} ${garment}`),
    description,
    image_url: `https://images.example.com/I/${itemId(rng)}._AC_UL1500_.jpg`,
    features: [...features].join(', '),
  };
}

/** Turns per conversation: most end within 3 turns, with a tail; adjusted to sum exactly to `total`. */
function turnCounts(rng: Rng, conversations: number, total: number): number[] {
  const weights = [0, 22, 20, 19, 14, 9, 6, 4, 3, 2, 1]; // index = number of turns
  const counts = Array.from({ length: conversations }, () => rng.weighted(weights));
  let sum = counts.reduce((a, b) => a + b, 0);
  while (sum !== total) {
    const k = rng.int(conversations);
    if (sum < total && counts[k] < 20) {
      counts[k]++;
      sum++;
    } else if (sum > total && counts[k] > 1) {
      counts[k]--;
      sum--;
    }
  }
  return counts;
}

/** One conversation as a plain object (ConvApparel shape). */
export function makeConversation(
  rng: Rng,
  task: string,
  condition: string,
  nTurns: number,
  pick: () => CatalogItem,
  itemsPerTurn: number,
): Record<string, unknown> {
  const turns: Record<string, unknown>[] = [];
  for (let t = 0; t < nTurns; t++) {
    const g = rng.pick(GARMENTS[task]);
    const recommendations: CatalogItem[] = [];
    for (let k = 0; k < itemsPerTurn; k++) recommendations.push(pick());
    const ratings: Record<string, unknown> = {};
    for (const f of TURN_FEELINGS) if (rng.chance(0.2)) ratings[f] = true;
    ratings['How likely would you be to purchase one of the recommended products in this turn?'] =
      rng.pick(PURCHASE_ANSWERS);
    turns.push({
      user_utterance: `${rng.pick(USER_OPENERS)} a ${rng.pick(COLORS)} ${g}${rng.chance(0.5) ? ` for ${rng.pick(USES)}` : ''}`,
      assistant_utterance: `${rng.pick(ASSISTANT_OPENERS)} ${rng.pick(ADJECTIVES)} ${g}s. ${sentence(rng, task)}`,
      recommendations,
      ratings,
    });
  }
  const found = rng.chance(condition === 'good' ? 0.6 : 0.4);
  const ratings: Record<string, unknown> = {
    'How often do you shop online?': rng.pick(SHOP_FREQ),
    'Were you able to find a product you would consider purchasing?': found ? 'Yes' : 'No',
    'If yes, which product would you consider purchasing? If no, why not?': found
      ? `The ${rng.pick(COLORS)} one`
      : 'Nothing matched what I wanted',
  };
  for (const s of SESSION_STATEMENTS) if (rng.chance(0.3)) ratings[s] = true;
  return { turns, ratings, task_id: `${task}_${condition}`, version: '1.0' };
}

/**
 * Writes a ConvApparel-shaped JSONL file. Defaults: ConvApparel scale (4,146 conversations,
 * 14,736 turns, 12 items per turn, ~500-character descriptions), seed "simlens-bench".
 */
export async function generateConvApparelFile(path: string, opts: GenerateOptions = {}): Promise<GenerateResult> {
  const conversations = opts.conversations ?? CONVAPPAREL_CONVERSATIONS;
  const totalTurns = opts.turns ?? Math.round((conversations * CONVAPPAREL_TURNS) / CONVAPPAREL_CONVERSATIONS);
  const itemsPerTurn = opts.itemsPerTurn ?? 12;
  const descriptionChars = opts.descriptionChars ?? 500;
  const rng = createRng(opts.seed ?? 'simlens-bench');
  const catalogRng = rng.fork('catalog');
  const catalogSize = opts.catalogSize ?? 6000;
  const catalog: Record<string, CatalogItem[]> = {};
  for (const task of TASKS) {
    catalog[task] = Array.from({ length: Math.ceil(catalogSize / TASKS.length) }, () =>
      makeItem(catalogRng, task, descriptionChars),
    );
  }
  const counts = turnCounts(rng.fork('turns'), conversations, totalTurns);
  mkdirSync(dirname(path), { recursive: true });
  const out = createWriteStream(path);
  let bytes = 0;
  let pendingText = '';
  const flush = async (): Promise<void> => {
    if (!pendingText) return;
    const chunk = pendingText;
    pendingText = '';
    bytes += Buffer.byteLength(chunk);
    if (!out.write(chunk)) await new Promise<void>((r) => out.once('drain', () => r()));
  };
  for (let c = 0; c < conversations; c++) {
    const r = rng.fork(c);
    const task = r.pick(TASKS);
    const condition = r.chance(0.8) ? 'good' : 'bad';
    const items = catalog[task];
    const conv = makeConversation(r, task, condition, counts[c], () => items[r.int(items.length)], itemsPerTurn);
    pendingText += JSON.stringify(conv) + '\n';
    if (pendingText.length > 1 << 20) await flush();
  }
  await flush();
  await new Promise<void>((res, rej) => out.end((err?: Error | null) => (err ? rej(err) : res())));
  return { path, bytes, conversations, turns: totalTurns };
}

/** Repository root (works from bench/*.ts under tsx and from dist/bench.js). */
export function repoRoot(): string {
  let dir = __dirname;
  for (let i = 0; i < 5; i++) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    dir = dirname(dir);
  }
  return resolve('.');
}

/**
 * Path of bench/data/convapparel-<scale>x.jsonl, generating it if it is missing or was made with
 * other settings (a small `.meta.json` beside it records them).
 */
export async function ensureBenchFile(
  scale: 1 | 10 = 1,
  log: (msg: string) => void = () => undefined,
): Promise<GenerateResult> {
  const dataDir = join(repoRoot(), 'bench', 'data');
  const path = join(dataDir, `convapparel-${scale}x.jsonl`);
  const meta = {
    generator: 2,
    scale,
    conversations: CONVAPPAREL_CONVERSATIONS * scale,
    turns: CONVAPPAREL_TURNS * scale,
  };
  const metaPath = `${path}.meta.json`;
  if (existsSync(path) && existsSync(metaPath)) {
    try {
      const saved = JSON.parse(readFileSync(metaPath, 'utf8')) as typeof meta & { bytes: number };
      if (saved.generator === meta.generator && saved.scale === scale && statSync(path).size === saved.bytes) {
        return { path, bytes: saved.bytes, conversations: saved.conversations, turns: saved.turns };
      }
    } catch {
      // regenerate
    }
  }
  log(`generating ${path} (${meta.conversations} conversations, ${meta.turns} turns) ...`);
  const result = await generateConvApparelFile(path, {
    conversations: meta.conversations,
    turns: meta.turns,
    seed: `simlens-bench-${scale}x`,
  });
  writeFileSync(metaPath, JSON.stringify({ ...meta, bytes: result.bytes }));
  return result;
}
