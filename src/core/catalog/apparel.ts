/**
 * A deterministic synthetic apparel catalog shaped like the ConvApparel shopping tasks
 * (footwear, outerwear, tops, bottoms, dresses, activewear, accessories, bags). Every item has a
 * type, colour, material, style, gender, occasion, price band and a made-up brand; its title,
 * features and a 300-500 character description are assembled from templates written for
 * SimLens, so the text mentions the item's own attribute values and no others (retrieval over
 * the text is then meaningful). Same seed and size give the same catalog, byte for byte.
 */
import { createRng, type Rng } from '../random';
import { Catalog, type CatalogItem } from './item';

/** One product type of a category and what it restricts. */
interface TypeSpec {
  name: string;
  /** Plural nouns ("sneakers", "jeans") are written as "a pair of ..." in descriptions. */
  plural?: boolean;
  /** Restricts gender, material or occasion when the type implies it. */
  genders?: string[];
  materials?: string[];
  occasions?: string[];
  features?: string[];
  /** Category features an item of this type cannot have (a skirt has no tapered leg). */
  without?: string[];
}

/** One category of the synthetic catalog: its share, vocabularies and types. */
interface CategorySpec {
  name: string;
  /** Share of the catalog. */
  weight: number;
  /** Two-letter id prefix. */
  prefix: string;
  genders: string[];
  materials: string[];
  occasions: string[];
  styles: string[];
  /** Typical price range (USD) of a mid-range item; bands scale it. */
  basePrice: [number, number];
  features: string[];
  /** Features of which an item has at most one (a tapered or a straight leg, not both). */
  exclusive?: string[][];
  types: TypeSpec[];
}

const ALL_STYLES = [
  'casual',
  'classic',
  'sporty',
  'minimalist',
  'vintage',
  'streetwear',
  'elegant',
  'bohemian',
  'rugged',
  'preppy',
];

/** The attribute names every generated item carries. */
export const APPAREL_ATTRIBUTES = [
  'type',
  'colour',
  'material',
  'style',
  'gender',
  'occasion',
  'price_band',
  'brand',
] as const;

/** The colours of the synthetic catalog. */
const APPAREL_COLOURS = [
  'black',
  'white',
  'grey',
  'navy',
  'blue',
  'red',
  'green',
  'olive',
  'brown',
  'tan',
  'beige',
  'pink',
  'burgundy',
  'yellow',
  'purple',
  'cream',
  'orange',
];

/** Price bands, cheapest first. */
const PRICE_BANDS = ['budget', 'mid-range', 'premium', 'luxury'];
const PRICE_FACTORS: Record<string, [number, number]> = {
  budget: [0.3, 0.6],
  'mid-range': [0.7, 1.2],
  premium: [1.5, 2.6],
  luxury: [3.2, 6],
};

const BRANDS = [
  'Northvale',
  'Brindle & Co',
  'Alder Lane',
  'Marlowe',
  'Fenwick',
  'Tidewater',
  'Oakhurst',
  'Lumen',
  'Saltmarsh',
  'Corvid',
  'Halden',
  'Wren Studio',
  'Juniper Row',
  'Ardent',
  'Ridgeline',
  'Calder',
  'Mistral',
  'Pennant',
  'Sable Row',
  'Quillon',
  'Harbor & Pine',
  'Vesper',
  'Copperleaf',
  'Ostrander',
  'Lark Field',
  'Bellweather',
  'Thistle',
  'Greyhaven',
  'Emberly',
  'Solvik',
];

/** The categories of the synthetic catalog (ConvApparel shopping tasks) with their vocabularies. */
export const APPAREL_CATEGORIES: readonly CategorySpec[] = [
  {
    name: 'footwear',
    weight: 18,
    prefix: 'FW',
    genders: ['women', 'men', 'unisex'],
    materials: ['leather', 'suede', 'canvas', 'mesh', 'rubber', 'synthetic', 'knit'],
    occasions: ['everyday', 'work', 'party', 'wedding', 'travel', 'beach'],
    styles: ALL_STYLES,
    basePrice: [45, 110],
    features: [
      'Cushioned insole',
      'Padded collar',
      'Breathable lining',
      'Non-slip grip',
      'Lightweight build',
      'Arch support',
      'Removable footbed',
      'Flexible sole',
      'Reinforced toe cap',
      'Pull tab at the heel',
    ],
    exclusive: [['Plush lining', 'Breathable lining']],
    types: [
      { name: 'sneakers', plural: true, features: ['Lace-up closure', 'Rubber cupsole'] },
      {
        name: 'running shoes',
        plural: true,
        occasions: ['running', 'gym', 'everyday'],
        materials: ['mesh', 'knit', 'synthetic'],
        features: ['Responsive foam midsole', 'Reflective details'],
      },
      { name: 'ankle boots', plural: true, features: ['Side zip', 'Stacked heel'] },
      {
        name: 'chelsea boots',
        plural: true,
        materials: ['leather', 'suede', 'rubber'],
        features: ['Elastic side panels', 'Almond toe'],
      },
      {
        name: 'hiking boots',
        plural: true,
        occasions: ['hiking', 'travel'],
        materials: ['leather', 'suede', 'synthetic'],
        features: ['Waterproof membrane', 'Lugged outsole', 'Ankle support'],
      },
      {
        name: 'sandals',
        plural: true,
        occasions: ['beach', 'everyday', 'travel', 'party'],
        features: ['Adjustable straps', 'Contoured footbed'],
        without: ['Padded collar', 'Pull tab at the heel', 'Reinforced toe cap'],
      },
      {
        name: 'loafers',
        plural: true,
        materials: ['leather', 'suede', 'canvas'],
        features: ['Penny strap', 'Slip-on design'],
      },
      {
        name: 'heels',
        plural: true,
        genders: ['women'],
        occasions: ['party', 'wedding', 'work', 'date night'],
        materials: ['leather', 'suede', 'synthetic'],
        features: ['Three-inch heel', 'Pointed toe', 'Ankle strap'],
        without: ['Padded collar', 'Pull tab at the heel', 'Reinforced toe cap'],
      },
      {
        name: 'ballet flats',
        plural: true,
        genders: ['women'],
        materials: ['leather', 'suede', 'synthetic', 'knit'],
        features: ['Bow detail', 'Round toe'],
        without: ['Padded collar', 'Pull tab at the heel', 'Reinforced toe cap'],
      },
      {
        name: 'slippers',
        plural: true,
        occasions: ['lounge'],
        materials: ['suede', 'knit', 'synthetic'],
        features: ['Plush lining', 'Soft sole'],
      },
    ],
  },
  {
    name: 'outerwear',
    weight: 14,
    prefix: 'OW',
    genders: ['women', 'men', 'unisex'],
    materials: ['wool', 'down', 'nylon', 'polyester', 'leather', 'denim', 'fleece', 'cotton'],
    occasions: ['everyday', 'work', 'travel', 'hiking', 'winter'],
    styles: ALL_STYLES,
    basePrice: [70, 160],
    features: [
      'Zip front',
      'Two hand pockets',
      'Inner chest pocket',
      'Adjustable cuffs',
      'Stand collar',
      'Packable design',
      'Storm flap',
      'Drop-tail hem',
      'Lined body',
      'Snap buttons',
    ],
    exclusive: [['Zip front', 'Double-breasted front', 'Button front', 'Asymmetric zip']],
    types: [
      {
        name: 'parka',
        occasions: ['winter', 'everyday', 'hiking'],
        materials: ['down', 'nylon', 'polyester'],
        features: ['Insulated hood', 'Faux-fur trim'],
      },
      {
        name: 'puffer jacket',
        occasions: ['winter', 'travel', 'everyday'],
        materials: ['down', 'nylon', 'polyester'],
        features: ['Quilted baffles', 'Packable into its pocket'],
      },
      {
        name: 'rain jacket',
        occasions: ['travel', 'hiking', 'everyday'],
        materials: ['nylon', 'polyester'],
        features: ['Sealed seams', 'Adjustable hood'],
      },
      {
        name: 'trench coat',
        occasions: ['work', 'everyday', 'travel'],
        materials: ['cotton', 'polyester'],
        features: ['Belted waist', 'Double-breasted front'],
      },
      {
        name: 'wool coat',
        materials: ['wool'],
        occasions: ['work', 'winter', 'everyday'],
        features: ['Notched lapels', 'Knee length'],
        without: ['Stand collar'],
      },
      {
        name: 'bomber jacket',
        materials: ['nylon', 'leather', 'polyester', 'cotton'],
        features: ['Ribbed collar', 'Sleeve pocket'],
        without: ['Stand collar'],
      },
      { name: 'denim jacket', materials: ['denim'], features: ['Button front', 'Chest flap pockets'] },
      { name: 'leather jacket', materials: ['leather'], features: ['Asymmetric zip', 'Quilted shoulders'] },
      {
        name: 'fleece jacket',
        materials: ['fleece'],
        occasions: ['hiking', 'everyday', 'travel'],
        features: ['Brushed interior', 'Zip chin guard'],
      },
      {
        name: 'gilet',
        materials: ['down', 'fleece', 'nylon'],
        features: ['Sleeveless cut', 'Layer-friendly fit'],
        without: ['Adjustable cuffs'],
      },
    ],
  },
  {
    name: 'tops',
    weight: 16,
    prefix: 'TP',
    genders: ['women', 'men', 'unisex'],
    materials: ['cotton', 'linen', 'silk', 'polyester', 'wool', 'cashmere', 'jersey'],
    occasions: ['everyday', 'work', 'party', 'lounge', 'date night'],
    styles: ALL_STYLES,
    basePrice: [20, 60],
    features: [
      'Ribbed cuffs',
      'Relaxed fit',
      'Slim fit',
      'Soft hand feel',
      'Tagless neck label',
      'Side vents',
      'Curved hem',
      'Pre-shrunk fabric',
      'Reinforced seams',
      'Crew neckline',
    ],
    exclusive: [['Relaxed fit', 'Slim fit']],
    types: [
      {
        name: 't-shirt',
        materials: ['cotton', 'jersey', 'linen', 'polyester'],
        features: ['Short sleeves', 'Crew neck'],
        without: ['Crew neckline', 'Ribbed cuffs'],
      },
      {
        name: 'shirt',
        materials: ['cotton', 'linen', 'silk', 'polyester'],
        features: ['Button-down collar', 'Long sleeves'],
        without: ['Crew neckline'],
      },
      {
        name: 'blouse',
        genders: ['women'],
        materials: ['silk', 'polyester', 'cotton', 'linen'],
        features: ['Tie neck', 'Gathered sleeves'],
        without: ['Crew neckline'],
      },
      { name: 'sweater', materials: ['wool', 'cashmere', 'cotton'], features: ['Cable knit', 'Ribbed trims'] },
      {
        name: 'hoodie',
        materials: ['cotton', 'jersey', 'polyester'],
        occasions: ['everyday', 'lounge'],
        features: ['Kangaroo pocket', 'Drawstring hood'],
        without: ['Crew neckline'],
      },
      { name: 'cardigan', materials: ['wool', 'cashmere', 'cotton'], features: ['Button front', 'Patch pockets'] },
      {
        name: 'polo shirt',
        materials: ['cotton', 'jersey', 'polyester'],
        features: ['Two-button placket', 'Ribbed collar'],
        without: ['Crew neckline'],
      },
      {
        name: 'tank top',
        materials: ['cotton', 'jersey', 'linen', 'silk'],
        features: ['Sleeveless', 'Scoop neck'],
        without: ['Crew neckline', 'Ribbed cuffs'],
      },
      {
        name: 'turtleneck',
        materials: ['wool', 'cashmere', 'jersey'],
        features: ['Folded high neck', 'Fine gauge knit'],
        without: ['Crew neckline'],
      },
    ],
  },
  {
    name: 'bottoms',
    weight: 13,
    prefix: 'BT',
    genders: ['women', 'men', 'unisex'],
    materials: ['denim', 'cotton', 'linen', 'wool', 'polyester', 'twill'],
    occasions: ['everyday', 'work', 'lounge', 'travel', 'party'],
    styles: ALL_STYLES,
    basePrice: [30, 80],
    features: [
      'Belt loops',
      'Zip fly',
      'Five pockets',
      'Stretch waistband',
      'Tapered leg',
      'Straight leg',
      'Mid rise',
      'High rise',
      'Back welt pockets',
      'Rolled hems',
    ],
    exclusive: [
      ['Tapered leg', 'Straight leg'],
      ['Mid rise', 'High rise'],
    ],
    types: [
      { name: 'jeans', plural: true, materials: ['denim'], features: ['Whiskered wash', 'Copper rivets'] },
      { name: 'chinos', plural: true, materials: ['cotton', 'twill'], features: ['Slant pockets', 'Pressed crease'] },
      {
        name: 'trousers',
        plural: true,
        materials: ['wool', 'polyester', 'linen', 'cotton'],
        features: ['Pleated front', 'Hook-and-bar closure'],
      },
      {
        name: 'shorts',
        plural: true,
        materials: ['cotton', 'linen', 'denim', 'twill'],
        features: ['Seven-inch inseam', 'Drawcord waist'],
      },
      {
        name: 'skirt',
        genders: ['women'],
        materials: ['cotton', 'linen', 'denim', 'wool', 'polyester'],
        features: ['A-line shape', 'Hidden side zip'],
        without: ['Tapered leg', 'Straight leg', 'Zip fly'],
      },
      {
        name: 'leggings',
        plural: true,
        materials: ['polyester', 'cotton'],
        occasions: ['everyday', 'lounge', 'travel'],
        features: ['Wide waistband', 'Four-way stretch'],
        without: ['Zip fly', 'Belt loops', 'Five pockets', 'Back welt pockets', 'Straight leg', 'Rolled hems'],
      },
      {
        name: 'joggers',
        plural: true,
        materials: ['cotton', 'polyester'],
        occasions: ['lounge', 'everyday', 'travel'],
        features: ['Elastic cuffs', 'Drawstring waist'],
        without: ['Zip fly', 'Belt loops', 'Five pockets', 'Straight leg', 'Rolled hems'],
      },
      {
        name: 'cargo pants',
        plural: true,
        materials: ['cotton', 'twill', 'polyester'],
        features: ['Bellows pockets', 'Adjustable hem'],
      },
    ],
  },
  {
    name: 'dresses',
    weight: 10,
    prefix: 'DR',
    genders: ['women'],
    materials: ['cotton', 'linen', 'silk', 'polyester', 'satin', 'chiffon', 'jersey'],
    occasions: ['party', 'wedding', 'work', 'beach', 'date night', 'everyday'],
    styles: ['casual', 'classic', 'minimalist', 'vintage', 'elegant', 'bohemian', 'preppy'],
    basePrice: [40, 110],
    features: [
      'Fully lined',
      'Hidden back zip',
      'Adjustable straps',
      'Side pockets',
      'Fitted bodice',
      'Flowing skirt',
      'V-neckline',
      'Square neckline',
      'Smocked back',
      'Tie belt',
    ],
    exclusive: [
      ['V-neckline', 'Square neckline'],
      ['Smocked back', 'Hidden back zip'],
      ['Puff sleeves', 'Adjustable straps'],
    ],
    types: [
      { name: 'maxi dress', features: ['Ankle length', 'Tiered skirt'] },
      { name: 'midi dress', features: ['Calf length', 'Flared hem'] },
      { name: 'mini dress', features: ['Above-the-knee length', 'Puff sleeves'] },
      {
        name: 'wrap dress',
        materials: ['jersey', 'silk', 'polyester', 'chiffon'],
        features: ['Wrap front', 'Self-tie waist'],
        without: ['Square neckline', 'Hidden back zip'],
      },
      {
        name: 'shirt dress',
        materials: ['cotton', 'linen', 'polyester'],
        features: ['Button placket', 'Point collar'],
        without: ['V-neckline', 'Square neckline', 'Hidden back zip'],
      },
      { name: 'slip dress', materials: ['silk', 'satin', 'polyester'], features: ['Bias cut', 'Thin straps'] },
      {
        name: 'sweater dress',
        materials: ['jersey', 'cotton'],
        occasions: ['everyday', 'work', 'date night'],
        features: ['Ribbed knit', 'Long sleeves'],
        without: ['Adjustable straps'],
      },
      { name: 'jumpsuit', features: ['Wide legs', 'Belted waist'], without: ['Flowing skirt'] },
    ],
  },
  {
    name: 'activewear',
    weight: 12,
    prefix: 'AW',
    genders: ['women', 'men', 'unisex'],
    materials: ['polyester', 'nylon', 'spandex', 'merino', 'mesh'],
    occasions: ['gym', 'running', 'yoga', 'hiking', 'cycling', 'swimming'],
    styles: ['sporty', 'minimalist', 'streetwear', 'classic', 'casual'],
    basePrice: [25, 70],
    features: [
      'Moisture-wicking fabric',
      'Four-way stretch',
      'Flatlock seams',
      'Quick-dry finish',
      'Reflective trims',
      'Zip key pocket',
      'Breathable panels',
      'Anti-odour treatment',
      'Sweat-proof phone pocket',
      'Chafe-free seams',
    ],
    types: [
      {
        name: 'sports bra',
        genders: ['women'],
        occasions: ['gym', 'running', 'yoga'],
        features: ['Removable pads', 'Racerback'],
      },
      {
        name: 'running tights',
        plural: true,
        occasions: ['running', 'cycling', 'gym'],
        features: ['Compression fit', 'Ankle zips'],
      },
      {
        name: 'training shorts',
        plural: true,
        occasions: ['gym', 'running'],
        features: ['Built-in liner', 'Split hem'],
      },
      { name: 'track jacket', occasions: ['gym', 'running', 'hiking'], features: ['Full zip', 'Stand collar'] },
      {
        name: 'yoga pants',
        plural: true,
        occasions: ['yoga', 'gym'],
        materials: ['spandex', 'nylon', 'polyester'],
        features: ['High waistband', 'Gusseted crotch'],
      },
      { name: 'performance tee', features: ['Raglan sleeves', 'Laser-cut vents'] },
      {
        name: 'cycling jersey',
        occasions: ['cycling'],
        materials: ['polyester', 'merino', 'mesh'],
        features: ['Three rear pockets', 'Silicone hem gripper'],
      },
      {
        name: 'swimsuit',
        occasions: ['swimming'],
        materials: ['nylon', 'spandex', 'polyester'],
        features: ['Chlorine-resistant fabric', 'Full lining'],
        without: ['Zip key pocket', 'Sweat-proof phone pocket', 'Reflective trims'],
      },
    ],
  },
  {
    name: 'accessories',
    weight: 9,
    prefix: 'AC',
    genders: ['women', 'men', 'unisex'],
    materials: ['wool', 'cotton', 'leather', 'straw', 'silk', 'acrylic', 'metal'],
    occasions: ['everyday', 'winter', 'beach', 'work', 'travel'],
    styles: ALL_STYLES,
    basePrice: [15, 45],
    features: [
      'One size',
      'Gift box included',
      'Soft to the touch',
      'Easy care',
      'Packs flat',
      'Adjustable fit',
      'Lightweight',
      'Durable stitching',
    ],
    types: [
      {
        name: 'scarf',
        materials: ['wool', 'cotton', 'silk', 'acrylic'],
        occasions: ['winter', 'everyday', 'work'],
        features: ['Fringed ends', 'Generous length'],
      },
      {
        name: 'beanie',
        materials: ['wool', 'acrylic', 'cotton'],
        occasions: ['winter', 'everyday'],
        features: ['Fold-up cuff', 'Ribbed knit'],
      },
      {
        name: 'baseball cap',
        materials: ['cotton'],
        occasions: ['everyday', 'beach', 'travel'],
        features: ['Curved brim', 'Adjustable strap'],
      },
      {
        name: 'sun hat',
        materials: ['straw', 'cotton'],
        occasions: ['beach', 'travel'],
        features: ['Wide brim', 'UPF 50 protection'],
      },
      {
        name: 'belt',
        materials: ['leather'],
        occasions: ['everyday', 'work'],
        features: ['Brushed buckle', 'Five holes'],
      },
      {
        name: 'gloves',
        plural: true,
        materials: ['wool', 'leather', 'acrylic'],
        occasions: ['winter', 'everyday'],
        features: ['Touchscreen fingertips', 'Knit cuffs'],
      },
      {
        name: 'sunglasses',
        plural: true,
        materials: ['metal'],
        occasions: ['beach', 'travel', 'everyday'],
        features: ['Polarized lenses', 'UV400 protection'],
        without: ['Soft to the touch', 'Packs flat', 'Durable stitching'],
      },
      {
        name: 'watch',
        materials: ['metal', 'leather'],
        occasions: ['everyday', 'work'],
        features: ['Water resistant to 50 m', 'Quartz movement'],
        without: ['Soft to the touch', 'Packs flat', 'Durable stitching'],
      },
    ],
  },
  {
    name: 'bags',
    weight: 8,
    prefix: 'BG',
    genders: ['women', 'men', 'unisex'],
    materials: ['leather', 'canvas', 'nylon', 'suede', 'polyester'],
    occasions: ['work', 'travel', 'everyday', 'party', 'school', 'gym'],
    styles: ALL_STYLES,
    basePrice: [35, 95],
    features: [
      'Interior zip pocket',
      'Magnetic snap',
      'Detachable strap',
      'Padded back panel',
      'Key clip',
      'Water-repellent coating',
      'Metal feet',
      'Lined interior',
      'Top handles',
    ],
    exclusive: [['Open top', 'Magnetic snap']],
    types: [
      {
        name: 'backpack',
        occasions: ['school', 'travel', 'everyday', 'work'],
        features: ['Padded laptop sleeve', 'Side bottle pockets'],
      },
      { name: 'tote bag', features: ['Open top', 'Long handles'] },
      {
        name: 'crossbody bag',
        occasions: ['everyday', 'travel', 'party'],
        features: ['Adjustable strap', 'Front flap'],
      },
      {
        name: 'duffel bag',
        occasions: ['travel', 'gym'],
        materials: ['canvas', 'nylon', 'leather', 'polyester'],
        features: ['Shoe compartment', 'Shoulder strap'],
      },
      {
        name: 'clutch',
        genders: ['women'],
        occasions: ['party'],
        materials: ['leather', 'suede', 'polyester'],
        features: ['Chain strap', 'Clasp closure'],
        without: ['Padded back panel', 'Top handles'],
      },
      {
        name: 'messenger bag',
        occasions: ['work', 'school', 'everyday'],
        features: ['Flap with buckles', 'Organizer panel'],
      },
      {
        name: 'belt bag',
        occasions: ['travel', 'everyday', 'gym'],
        features: ['Waist strap', 'Zip top'],
        without: ['Padded back panel', 'Metal feet', 'Top handles'],
      },
      {
        name: 'laptop bag',
        occasions: ['work', 'travel'],
        materials: ['leather', 'nylon', 'polyester', 'canvas'],
        features: ['Padded laptop compartment', 'Trolley sleeve'],
      },
    ],
  },
];

// -------------------------------------------------------------------------------------------
// Phrases used in titles and descriptions

const MATERIAL_PHRASE: Record<string, string> = {
  leather: 'smooth leather',
  suede: 'soft suede',
  canvas: 'sturdy canvas',
  mesh: 'airy mesh',
  rubber: 'molded rubber',
  synthetic: 'a durable synthetic',
  knit: 'a stretchy knit',
  wool: 'warm wool',
  down: 'lofty down fill',
  nylon: 'tough nylon',
  polyester: 'recycled polyester',
  denim: 'rigid denim',
  fleece: 'cozy fleece',
  cotton: 'breathable cotton',
  linen: 'light linen',
  silk: 'fluid silk',
  cashmere: 'fine cashmere',
  jersey: 'soft jersey',
  twill: 'dense twill',
  satin: 'glossy satin',
  chiffon: 'sheer chiffon',
  spandex: 'a spandex blend',
  merino: 'fine merino',
  straw: 'woven straw',
  acrylic: 'a soft acrylic',
  metal: 'brushed metal',
};

const MATERIAL_CARE: Record<string, string[]> = {
  leather: [
    'The leather softens and shapes itself to you with wear.',
    'Wipe the leather clean with a damp cloth and condition it now and then.',
  ],
  suede: ['Brush the suede gently to keep the nap looking fresh.', 'A suede protector spray helps keep stains away.'],
  canvas: [
    'Spot clean the canvas with mild soap and let it air dry.',
    'The canvas holds its shape and only gets better with age.',
  ],
  mesh: [
    'The mesh lets air move freely, so it stays cool for hours.',
    'Rinse the mesh by hand and let it dry away from direct heat.',
  ],
  rubber: ['The rubber rinses clean in seconds.', 'Rubber keeps water out and wipes down easily.'],
  synthetic: [
    'The synthetic upper shrugs off scuffs and is easy to wipe clean.',
    'Being synthetic, it is an animal-free choice that is simple to care for.',
  ],
  knit: [
    'The knit hugs your shape and springs back after each wear.',
    'Hand wash the knit cold and lay it flat to dry.',
  ],
  wool: ['Wool keeps you warm even on damp days.', 'Dry clean the wool or hand wash it cold to keep its shape.'],
  down: [
    'The down fill traps heat while staying light.',
    'Tumble dry the down on low with a couple of clean balls to restore its loft.',
  ],
  nylon: ['Nylon dries fast and resists abrasion.', 'The nylon shell brushes off light rain and wind.'],
  polyester: [
    'Polyester keeps its colour wash after wash.',
    'The polyester resists wrinkles, so it comes out of a bag ready to wear.',
  ],
  denim: [
    'The denim fades gradually into a look of its own.',
    'Wash the denim inside out and cold to keep its colour deep.',
  ],
  fleece: ['Fleece stays warm and dries quickly.', 'Machine wash the fleece cold and skip the fabric softener.'],
  cotton: ['Cotton feels soft against the skin and breathes well.', 'Machine wash the cotton cold and tumble dry low.'],
  linen: [
    'Linen keeps you cool and relaxes beautifully with every wash.',
    'Expect a few natural creases: linen wears them well.',
  ],
  silk: [
    'Silk drapes gracefully and feels cool to the touch.',
    'Hand wash the silk in cool water or have it dry cleaned.',
  ],
  cashmere: [
    'Cashmere is incredibly soft and warm for its weight.',
    'Hand wash the cashmere gently and fold it rather than hanging it.',
  ],
  jersey: ['Jersey stretches comfortably and resists creasing.', 'The jersey machine washes well and keeps its shape.'],
  twill: ['The twill weave holds a crisp line all day.', 'Twill is tough enough for daily wear and machine washable.'],
  satin: ['Satin catches the light with a soft sheen.', 'Steam the satin rather than ironing it directly.'],
  chiffon: ['Chiffon floats and moves with you.', 'Hand wash the chiffon and hang it to dry.'],
  spandex: ['The spandex blend moves with you in every direction.', 'Wash the spandex blend cold and skip the dryer.'],
  merino: [
    'Merino regulates temperature and resists odour naturally.',
    'Merino can be worn several times between washes.',
  ],
  straw: [
    'Woven straw is light and lets your head breathe.',
    'Keep the straw dry and store it flat to keep its shape.',
  ],
  acrylic: ['Acrylic is soft, warm and easy to wash.', 'The acrylic keeps its colour and shape through many washes.'],
  metal: [
    'The brushed metal resists fingerprints and scratches.',
    'Wipe the metal with a soft cloth to keep it bright.',
  ],
};

const OCCASION_PHRASE: Record<string, string> = {
  everyday: 'everyday wear',
  work: 'work and the office',
  party: 'parties and nights out',
  wedding: 'weddings and formal events',
  travel: 'travel days',
  hiking: 'hiking trails',
  running: 'running',
  gym: 'gym sessions',
  beach: 'the beach',
  winter: 'cold winter days',
  lounge: 'lounging at home',
  'date night': 'a date night',
  yoga: 'yoga classes',
  cycling: 'cycling',
  swimming: 'swimming',
  school: 'school and campus days',
};

const STYLE_PHRASE: Record<string, string> = {
  casual: 'casual',
  classic: 'classic',
  sporty: 'sporty',
  minimalist: 'minimalist',
  vintage: 'vintage-inspired',
  streetwear: 'streetwear',
  elegant: 'elegant',
  bohemian: 'bohemian',
  rugged: 'rugged',
  preppy: 'preppy',
};

const GENDER_SENTENCES: Record<string, string[]> = {
  women: ['Cut for women.', 'The fit is designed for women.', 'Sized and shaped for women.'],
  men: ['Cut for men.', 'The fit is designed for men.', 'Sized and shaped for men.'],
  unisex: [
    'The unisex cut works for anyone.',
    'Sized as unisex, so it suits anyone.',
    'A unisex fit that works for everyone.',
  ],
};
const GENDER_TITLE: Record<string, string> = { women: "Women's", men: "Men's", unisex: 'Unisex' };

const PRICE_PHRASE: Record<string, string[]> = {
  budget: ['A budget-friendly pick that does not cut corners.', 'A budget price makes this an easy yes.'],
  'mid-range': ['A mid-range price for the quality you get.', 'Fairly priced in the mid-range, and good value.'],
  premium: ['A premium piece built to last for many seasons.', 'Premium construction shows in every detail.'],
  luxury: [
    'A luxury finish and careful construction set this apart.',
    'A luxury piece, made in small runs with great care.',
  ],
};

// Filler sentences that mention no attribute value, used when a description is still short.
const FILLERS = [
  'Sizing runs true, so order your usual size.',
  'Every piece is checked by hand before it ships.',
  'Free returns within thirty days if it is not quite right.',
  'It arrives ready to wear straight out of the box.',
  'The details are finished cleanly inside and out.',
];

function cap(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

function titleCase(s: string): string {
  return s.replace(/(^|[\s-])([a-z])/g, (_m, p: string, c: string) => p + c.toUpperCase());
}

function aOrAn(word: string): string {
  return /^[aeiou]/i.test(word) ? 'an' : 'a';
}

function listPhrase(parts: string[]): string {
  if (parts.length <= 1) return parts.join('');
  return `${parts.slice(0, -1).join(', ')} and ${parts[parts.length - 1]}`;
}

interface Draft {
  brand: string;
  type: string;
  plural: boolean;
  /** Features that describe the item physically (no style or occasion labels). */
  physical: string[];
  colour: string;
  material: string;
  style: string;
  gender: string;
  occasion: string;
  band: string;
  features: string[];
  /** How many physical features were drawn before the type's rules took some out (`pickFeatures`). */
  drawn: number;
}

function makeTitle(rng: Rng, d: Draft): string {
  const t = titleCase(d.type);
  switch (rng.int(5)) {
    case 0:
      return `${d.brand} ${GENDER_TITLE[d.gender]} ${titleCase(d.colour)}${d.type.includes(d.material) ? '' : ' ' + titleCase(d.material)} ${t}`;
    case 1:
      return `${d.brand} ${titleCase(STYLE_PHRASE[d.style])} ${t} in ${titleCase(d.colour)}`;
    case 2:
      return d.type.includes(d.material) ? `${d.brand} ${t}` : `${d.brand} ${titleCase(d.material)} ${t}`;
    case 3:
      return `${d.brand} ${GENDER_TITLE[d.gender]} ${t} - ${titleCase(d.colour)}`;
    default:
      return `${d.brand} ${titleCase(d.colour)} ${t}`;
  }
}

function makeDescription(rng: Rng, d: Draft, title: string): string {
  const mat = MATERIAL_PHRASE[d.material] ?? d.material;
  const style = STYLE_PHRASE[d.style] ?? d.style;
  const occ = OCCASION_PHRASE[d.occasion] ?? d.occasion;
  // shuffled as a list of the length drawn, so an item whose rules took features out consumes the
  // same random numbers as before them (and every other item of the catalog stays as it was)
  const slots: (string | undefined)[] = [...d.physical];
  while (slots.length < d.drawn) slots.push(undefined);
  const f = rng
    .shuffle(slots)
    .filter((x): x is string => x !== undefined)
    .slice(0, 3)
    .map((x) => x.toLowerCase());
  // "a navy parka" / "a pair of navy sneakers"
  const one = (adj: string) => (d.plural ? `a pair of ${adj} ${d.type}` : `${aOrAn(adj)} ${adj} ${d.type}`);
  const it = d.plural ? 'they' : 'it';
  const It = cap(it);
  const is = d.plural ? 'are' : 'is';
  const openings = [
    `The ${title} ${d.plural ? 'are' : 'is'} ${one(style)} made from ${mat} in ${aOrAn(d.colour)} ${d.colour} shade.`,
    `${d.brand} built ${d.plural ? 'these' : 'this'} ${d.colour} ${d.type} around ${mat} and gave ${d.plural ? 'them' : 'it'} ${aOrAn(style)} ${style} look.`,
    `Meet ${one(d.colour)} in ${mat}, designed with ${aOrAn(style)} ${style} attitude for ${occ}.`,
    `${d.plural ? 'These' : 'This'} ${style} ${d.type} from ${d.brand} ${d.plural ? 'pair' : 'pairs'} ${mat} with a clean ${d.colour} finish.`,
  ];
  const body = [
    rng.pick([
      `${It} ${d.plural ? 'feature' : 'features'} ${listPhrase(f)}.`,
      `Details include ${listPhrase(f)}.`,
      `Look for ${listPhrase(f)}.`,
    ]),
    rng.pick([
      `${It} ${is} a natural choice for ${occ}, and the ${style} lines are easy to style.`,
      `Made with ${occ} in mind, ${it} ${d.plural ? 'keep' : 'keeps'} things comfortable from morning to night.`,
      `Reach for ${d.plural ? 'them' : 'it'} for ${occ}; ${it} ${d.plural ? 'go' : 'goes'} with most of what is already in your wardrobe.`,
    ]),
    rng.pick(GENDER_SENTENCES[d.gender] ?? [`Made for ${d.gender}.`]),
    rng.pick(MATERIAL_CARE[d.material] ?? [`Care for the ${d.material} as the label says.`]),
    rng.pick(PRICE_PHRASE[d.band] ?? [`Priced in the ${d.band} band.`]),
  ];
  let text = rng.pick(openings);
  for (const s of rng.shuffle(body)) {
    if (text.length + 1 + s.length <= 500) text += ' ' + s;
  }
  for (const s of rng.shuffle(FILLERS)) {
    if (text.length >= 300) break;
    if (text.length + 1 + s.length <= 500) text += ' ' + s;
  }
  return text;
}

/** Materials that are no fabric ("Metal fabric" on a watch); down is a fill. */
const NOT_FABRIC = new Set(['leather', 'suede', 'metal', 'rubber', 'straw', 'down']);

/**
 * The type's first feature, then the first `count` of the shuffled `pool` that the type can have
 * (`without`) and that share no exclusive group (`exclusive`) with one already taken: no skirt with a
 * tapered leg, no top both slim and relaxed. Draws nothing, so the catalog's other fields are what
 * they were before the rule (fifteenth round: 289 of 800 items broke it); when the rules leave fewer
 * than `count`, the item has fewer.
 */
function pickFeatures(cat: CategorySpec, type: TypeSpec, pool: readonly string[], count: number): string[] {
  const out = (type.features ?? []).slice(0, 1);
  const want = out.length + count;
  const clashes = (f: string) =>
    type.without?.includes(f) || cat.exclusive?.some((g) => g.includes(f) && out.some((o) => g.includes(o)));
  for (const f of pool) {
    if (out.length >= want) break;
    if (!clashes(f)) out.push(f);
  }
  return out;
}

function pickWeighted(rng: Rng, cats: readonly CategorySpec[]): CategorySpec {
  return cats[rng.weighted(cats.map((c) => c.weight))];
}

/** A type's own list when it restricts an attribute, else the category's. */
function allowed(base: string[], restrict?: string[]): string[] {
  return restrict ?? base;
}

/** Options of `generateApparelCatalog`. */
interface ApparelCatalogOptions {
  /** Any seed; equal seeds give equal catalogs (default "simlens"). */
  seed?: number | string;
  /** Number of items (default 3000, at least 1). */
  size?: number;
}

/**
 * Generates the synthetic apparel catalog. The first items cover every category and every type,
 * so even a small catalog has all categories; the rest are drawn by category weight.
 */
export function generateApparelCatalog(opts: ApparelCatalogOptions = {}): Catalog {
  const size = opts.size ?? 3000;
  if (!Number.isInteger(size) || size < 1)
    throw new RangeError(`generateApparelCatalog: size must be a positive integer, got ${size}`);
  const rng = createRng(`apparel-catalog/${opts.seed ?? 'simlens'}`);
  const allTypes: [CategorySpec, TypeSpec][] = [];
  for (const c of APPAREL_CATEGORIES) for (const t of c.types) allTypes.push([c, t]);
  const counters = new Map<string, number>();
  const items: CatalogItem[] = [];
  for (let i = 0; i < size; i++) {
    let cat: CategorySpec;
    let type: TypeSpec;
    if (i < APPAREL_CATEGORIES.length) {
      // one item per category first, then one per type, so small catalogs cover everything
      cat = APPAREL_CATEGORIES[i];
      type = rng.pick(cat.types);
    } else if (i < APPAREL_CATEGORIES.length + allTypes.length) {
      [cat, type] = allTypes[i - APPAREL_CATEGORIES.length];
    } else {
      cat = pickWeighted(rng, APPAREL_CATEGORIES);
      type = rng.pick(cat.types);
    }
    const gender = rng.pick(allowed(cat.genders, type.genders));
    const material = rng.pick(allowed(cat.materials, type.materials));
    const occasion = rng.pick(allowed(cat.occasions, type.occasions));
    const style = rng.pick(cat.styles);
    const colour = rng.pick(APPAREL_COLOURS);
    const band = PRICE_BANDS[rng.weighted([3, 4, 2, 1])];
    const brand = rng.pick(BRANDS);
    const [lo, hi] = cat.basePrice;
    const [flo, fhi] = PRICE_FACTORS[band];
    const base = lo + rng.next() * (hi - lo);
    const price = Math.max(5, Math.round(base * (flo + rng.next() * (fhi - flo)))) - 0.01;
    const pool = rng.shuffle([...(type.features ?? []).slice(1), ...cat.features]);
    const count = 3 + rng.int(4);
    const physical = pickFeatures(cat, type, pool, count);
    const drawn = (type.features ?? []).slice(0, 1).length + count;
    const made = cat.name === 'footwear' ? 'upper' : rng.pick(['fabric', 'construction', 'build']);
    const features = [
      `${cap(material)} ${material === 'down' ? 'fill' : made === 'fabric' && NOT_FABRIC.has(material) ? 'construction' : made}`,
      ...physical,
      cap(STYLE_PHRASE[style]),
      cap(OCCASION_PHRASE[occasion]),
    ];
    const draft: Draft = {
      brand,
      type: type.name,
      plural: type.plural ?? false,
      physical,
      colour,
      material,
      style,
      gender,
      occasion,
      band,
      features,
      drawn,
    };
    const title = makeTitle(rng, draft);
    const description = makeDescription(rng, draft, title);
    const n = (counters.get(cat.prefix) ?? 0) + 1;
    counters.set(cat.prefix, n);
    items.push({
      item_id: `${cat.prefix}${String(n).padStart(5, '0')}`,
      title,
      description,
      features,
      category: cat.name,
      attributes: { type: type.name, colour, material, style, gender, occasion, price_band: band, brand },
      price,
    });
  }
  return new Catalog(items);
}
