/**
 * `local-bad`: a subtly unhelpful recommender standing in for ConvApparel's "bad" agent. Every
 * behaviour below is drawn from the session's seeded Rng with the probability in
 * `BAD_BEHAVIOURS`, and the behaviours of the latest turn are readable as `lastBehaviours`.
 *
 * - misread: a recognised value is swapped for a near neighbour ("black" heard as "navy",
 *   "sneakers" as "running shoes"); the agent says what it (mis)heard and searches for it.
 * - tangent: asks a question that is beside the point or assumes something never said.
 * - latch: when the user gives two or more criteria, fixates on the least important one, asks
 *   about it in needless detail and searches for it alone.
 * - trivia: adds a fun fact, mostly right after the user gave information.
 * - reask: circles back to a preference the user already gave, phrased differently.
 * - no_clear_path: never closes; an acceptance gets a hedge instead of a confirmation, and
 *   carousels are introduced without a definite recommendation.
 * Retrieval uses the partial-text index (title and the first 80 characters of the description)
 * with the category as the only filter; negations and rejections are not honoured (the agent
 * reads them, and says so in `agent_trace.negated`, but does not filter on them). When the
 * partial text matches nothing, it shows random items of the category (`agent_trace.fallback`).
 */
import type { Catalog, CatalogItem } from '../../../catalog/item';
import type { RecommendedItem } from '../../../model';
import type { AgentResponse } from '../../types';
import { LocalAgent, LocalSession } from './agent';
import { mentionsOutside, type Mention, type ParsedUtterance } from './lexicon';
import { DETAIL_FRAMES, categoryNoun, expand, expandOne, shortWanted } from './phrases';
import { withArticle } from '../../../text/articles';
import { CAROUSEL_SIZE, dropTitleWords, negatedValues, referencedItem, slotWord, type AgentTrace } from './good';
import { slotRank } from './state';

/** Probability of each bad behaviour per turn (where it applies). */
export const BAD_BEHAVIOURS = {
  /** Swap one recognised non-category value for a neighbour, when the user gave one. */
  misread: 0.5,
  /** Ask a tangential question. */
  tangent: 0.5,
  /** Fixate on the least important criterion, when the user gave two or more. */
  latch: 0.7,
  /** Add a fun fact after the user gave information. */
  triviaAfterInfo: 0.6,
  /** Add a fun fact otherwise. */
  trivia: 0.25,
  /** Re-ask an already answered preference. */
  reask: 0.35,
} as const;

/** Names of the bad behaviours, as recorded in `LocalBadSession.lastBehaviours`. */
export type BadBehaviour = 'misread' | 'tangent' | 'latch' | 'trivia' | 'reask' | 'no_clear_path';

/** Near neighbours used for misreadings (values of the synthetic catalog); others fall back to a random value of the same slot. */
const NEIGHBOURS: Record<string, string[]> = {
  black: ['navy', 'grey'],
  white: ['cream', 'beige'],
  grey: ['black', 'navy'],
  navy: ['blue', 'black'],
  blue: ['navy', 'purple'],
  red: ['burgundy', 'orange'],
  burgundy: ['red', 'purple'],
  green: ['olive'],
  olive: ['green', 'brown'],
  brown: ['tan', 'burgundy'],
  tan: ['beige', 'brown'],
  beige: ['cream', 'tan'],
  cream: ['white', 'beige'],
  pink: ['red', 'purple'],
  purple: ['pink', 'burgundy'],
  yellow: ['orange', 'cream'],
  orange: ['yellow', 'red'],
  leather: ['suede', 'synthetic'],
  suede: ['leather'],
  canvas: ['mesh', 'knit'],
  mesh: ['knit', 'canvas'],
  knit: ['mesh'],
  rubber: ['synthetic'],
  synthetic: ['leather', 'rubber'],
  wool: ['cashmere', 'fleece'],
  cashmere: ['wool'],
  down: ['polyester', 'nylon'],
  nylon: ['polyester'],
  polyester: ['nylon'],
  denim: ['twill', 'cotton'],
  fleece: ['wool'],
  cotton: ['linen', 'jersey'],
  linen: ['cotton'],
  silk: ['satin'],
  satin: ['silk', 'chiffon'],
  chiffon: ['satin'],
  jersey: ['cotton'],
  twill: ['denim'],
  spandex: ['nylon'],
  merino: ['polyester'],
  sneakers: ['running shoes'],
  'running shoes': ['sneakers'],
  'ankle boots': ['chelsea boots'],
  'chelsea boots': ['ankle boots'],
  'hiking boots': ['ankle boots'],
  sandals: ['slippers'],
  loafers: ['ballet flats'],
  heels: ['ballet flats'],
  'ballet flats': ['loafers'],
  slippers: ['sandals'],
  parka: ['puffer jacket'],
  'puffer jacket': ['parka', 'gilet'],
  'rain jacket': ['trench coat'],
  'trench coat': ['wool coat'],
  'wool coat': ['trench coat'],
  'bomber jacket': ['leather jacket'],
  'denim jacket': ['bomber jacket'],
  'leather jacket': ['bomber jacket'],
  'fleece jacket': ['gilet'],
  gilet: ['fleece jacket'],
  't-shirt': ['tank top', 'polo shirt'],
  shirt: ['blouse', 'polo shirt'],
  blouse: ['shirt'],
  sweater: ['cardigan', 'turtleneck'],
  hoodie: ['sweater'],
  cardigan: ['sweater'],
  'polo shirt': ['t-shirt'],
  'tank top': ['t-shirt'],
  turtleneck: ['sweater'],
  jeans: ['chinos'],
  chinos: ['trousers'],
  trousers: ['chinos'],
  shorts: ['skirt'],
  skirt: ['shorts'],
  leggings: ['joggers'],
  joggers: ['leggings'],
  'cargo pants': ['chinos'],
  'maxi dress': ['midi dress'],
  'midi dress': ['maxi dress', 'wrap dress'],
  'mini dress': ['midi dress'],
  'wrap dress': ['shirt dress'],
  'shirt dress': ['wrap dress'],
  'slip dress': ['mini dress'],
  'sweater dress': ['shirt dress'],
  jumpsuit: ['maxi dress'],
  'sports bra': ['tank top'],
  'running tights': ['yoga pants'],
  'yoga pants': ['running tights'],
  'training shorts': ['running tights'],
  'track jacket': ['performance tee'],
  'performance tee': ['track jacket'],
  'cycling jersey': ['performance tee'],
  swimsuit: ['sports bra'],
  scarf: ['gloves'],
  beanie: ['baseball cap'],
  'baseball cap': ['sun hat'],
  'sun hat': ['baseball cap'],
  belt: ['watch'],
  gloves: ['scarf'],
  sunglasses: ['sun hat'],
  watch: ['belt'],
  backpack: ['messenger bag'],
  'tote bag': ['crossbody bag'],
  'crossbody bag': ['belt bag'],
  'duffel bag': ['backpack'],
  clutch: ['crossbody bag'],
  'messenger bag': ['laptop bag'],
  'belt bag': ['crossbody bag'],
  'laptop bag': ['messenger bag'],
  women: ['unisex'],
  men: ['unisex'],
  unisex: ['women', 'men'],
  budget: ['mid-range'],
  'mid-range': ['premium', 'budget'],
  premium: ['luxury', 'mid-range'],
  luxury: ['premium'],
  everyday: ['lounge', 'travel'],
  work: ['travel', 'everyday'],
  party: ['date night', 'wedding'],
  wedding: ['party'],
  travel: ['everyday'],
  hiking: ['travel', 'running'],
  running: ['gym', 'hiking'],
  gym: ['yoga', 'running'],
  beach: ['travel'],
  winter: ['hiking', 'everyday'],
  lounge: ['everyday'],
  'date night': ['party'],
  yoga: ['gym'],
  cycling: ['running'],
  swimming: ['beach', 'gym'],
  school: ['work'],
  casual: ['sporty', 'minimalist'],
  classic: ['vintage', 'preppy'],
  sporty: ['streetwear', 'casual'],
  minimalist: ['classic'],
  vintage: ['bohemian', 'classic'],
  streetwear: ['sporty'],
  elegant: ['classic'],
  bohemian: ['vintage'],
  rugged: ['sporty'],
  preppy: ['classic'],
};

/**
 * Questions beside the point, each a frame (`{a|b}` choice points, phrases.ts `expand`) whose
 * alternatives are worded from the words Rng. Which question is asked is a decision (drawn from
 * `rng` by its place in this list); every alternative of one question reads the same to a
 * simulated user: the same attribute cue words (users/phrases.ts `askedAttributes`), the same
 * "wearing", "shopping for", "different", and no catalog type named (checked by
 * test/unit/agents/local-wording.test.ts). Cue words stay in the same share of the questions as
 * before the rewording (wearing, kind, look, colour, style: 9 of 28).
 */
export const TANGENTS: readonly string[] = [
  '{Wearing them indoors or out|Mostly wearing them inside, or out|Wearing them in, or out}?',
  '{Is this for a trip|Off on a trip soon|Heading somewhere nice|Got a journey coming up|Any holidays planned|Jetting off anywhere|Going away soon|Any trips this year|Any weekends away planned|Away anywhere soon}?',
  '{For yourself, or a gift|A gift, or a treat for you|Buying for yourself, or a friend|Treating yourself, or spoiling someone|Is this a birthday present}?',
  '{How do you feel about|Any thoughts on|Strong views on|Big fan of|Where do you stand on|Opinions on} pockets?',
  '{The kind who plans outfits ahead|The kind to lay clothes out early|The outfit-planning kind, are you}?',
  '{Lots of rain where you live|Rainy in your town|Damp climate where you live|Is your weather mostly soggy|Drizzly where you are|Sunny or grey where you live|Hot summers where you are|Windy where you live}?',
  '{Ever had something tailored|Have you ever visited a tailor|Ever had a hem taken up|Do you know a good tailor|Ever had a sleeve shortened}?',
  '{Do your friends like your style|How would friends describe your style|Does your family approve of your style}?',
  '{Morning or evening shopper|Early or late shopper|Weekday or weekend shopper|Lunch-break shopper, by any chance|Do you browse after dinner|Online or in person, usually|Window shopper, by any chance}?',
  '{City person or country person|Town or country|Busy city or somewhere quiet|Urban or rural|Hills or flatlands|Flat or house|Garden or balcony}?',
  '{How will it look in photos|Worried how it will look in pictures|Will it look good on camera}?',
  '{Do you walk a lot|Much of a walker|Walk far most days|Clocking many steps daily|Stairs or lift|Bus or bike|Train or car, mostly}?',
  '{Must it fit in a locker|Must it squeeze into a suitcase|Will it live in a tiny wardrobe}?',
  '{Any colour you refuse on principle|Is there a colour you avoid|Any colour with bad memories}?',
  '{Do you iron things, honestly|Be honest: do you ever iron|Iron or steamer, at home|Do you own an ironing board|Tumble dryer or washing line}?',
  '{Cats or dogs|Cat person or dog person|Dogs or cats, if you had to pick|Hamsters or parrots|Any pets at home|Goldfish or tortoise|Any rabbits at home}?',
  '{Are you an early riser|Up with the birds most days|Early bird or night owl|Do you hit snooze much|Alarm clock or natural waking}?',
  '{Do you keep receipts|Are you a receipt keeper|Do you hang on to receipts|Receipt hoarder, by chance|Paper receipts or emailed ones}?',
  '{Any hobbies I should know about|What do you do for fun|Got a hobby that matters here|Gardening, baking, chess, anything|What fills your weekends}?',
  '{Tea or coffee|Coffee drinker or tea drinker|Tea, coffee, or hot chocolate|Espresso or herbal tea|Milk, sugar, or both|Latte or cappuccino|Sweet tooth or savoury}?',
  '{Do you sleep well|Are you a light sleeper|Do you get enough sleep|Do you nap in the afternoon|Early nights or late ones}?',
  '{Which season do you like most|Favourite season|Spring or autumn person|Snow days or heatwaves|Long evenings or crisp mornings}?',
  '{Do you ever wear two different socks|Would you wear different socks}?',
  '{What music do you like|What songs do you play|What is on your playlist|Radio or podcasts|Do you sing in the shower}?',
  '{Would a friend approve of the look|Would your best friend like the look|Does the look need a second opinion}?',
  '{Do you like museums|Are you into galleries|Been to a museum lately|Art lover, by any chance|Theatre or cinema|Concerts or quiet nights in|Read any good books lately|Board games or card games}?',
  '{Ever lost an umbrella|How many umbrellas have you lost|Ever left an umbrella on a bus|Do umbrellas vanish on you|Folding umbrella or big one}?',
  '{A colour that reminds you of home|A colour that feels like home|Which colour brings back memories}?',
];

/**
 * Fun facts (chit_chat), short; keyed by a value or category they are about. Which one is said is
 * wording (the words Rng): the list may grow freely. Each is a plain statement (no "?").
 */
const TRIVIA: Record<string, string[]> = {
  general: [
    'Pockets began as pouches on belts.',
    '"Fashion" comes from Latin for "making".',
    'Buttons began as ornaments.',
    'Zips caught on in the 1930s.',
    'The first needles were bone.',
    "Denim began as miners' work wear.",
    'Fun fact: ties began as scarves.',
    'Standard sizes are a modern idea.',
    'Velcro copied burrs on a dog.',
    'The kilt is younger than you think.',
    'The safety pin was patented in 1849.',
    'Rayon was sold as artificial silk.',
    '"Spandex" is an anagram of "expands".',
    'Corduroy ridges are called wales.',
    'The tiny jeans pocket held watches.',
    'Jean rivets were patented in 1873.',
    'Flip-flops go back to ancient Egypt.',
    'The cravat came from Croatian soldiers.',
    'Shoelace tips are called aglets.',
    'Cotton is the top natural fibre.',
    'Wellingtons are named after a duke.',
    'The tuxedo is named after Tuxedo Park.',
    'Plimsolls are named after a line.',
    '"Khaki" comes from a word for dust.',
    'Seersucker means milk and sugar.',
    'Jerseys are named after the island.',
    'Merino sheep come from Spain.',
    'Alpaca fleece is lanolin-free.',
    'The zip was once a clasp locker.',
    'Fashion week began in 1943.',
    'Early dress forms were wicker.',
    'Denim is a twill weave.',
    'Raincoats owe a lot to Macintosh.',
    'Bowler hats were made for gamekeepers.',
    'Paisley is named after a Scottish town.',
    'The fedora is named after a play.',
    'Hawaiian shirts date from the 1930s.',
    'Panama hats are woven in Ecuador.',
    'Stilettos are named after a dagger.',
    'Mohair comes from Angora goats.',
    'Aviator shades were made for pilots.',
    'Espadrilles have rope soles.',
    'The trilby is named after a novel.',
    'Argyle echoes a Scottish tartan.',
    'Jodhpurs are named after an Indian city.',
    'The bow tie grew out of the cravat.',
    'Sailors made the striped top famous.',
    'Early buttons were carved from shell.',
    'Spats kept mud off shoes.',
    'The modern bra was patented in 1914.',
    'Ancient Romans wore socks with sandals.',
    'Top hats were once made of beaver felt.',
    'Victorian skirts needed cage frames.',
    'Corsets once used whalebone.',
    'Buttons once showed off wealth.',
    'Collars were once detachable.',
    'Hemlines rose in the 1920s.',
    'Shoulder pads peaked in the 1980s.',
    'Platform soles go back to ancient Greece.',
    'Cufflinks caught on in the 1800s.',
    'Braces held trousers up before belts.',
    'The first zip fastened with hooks.',
    'Sunglasses began as snow goggles.',
    'Bell-bottoms started at sea.',
    'Berets go back to the Bronze Age.',
    'Tartans once marked Scottish clans.',
    'Elastic arrived in the 1820s.',
    'Paper shopping bags got handles in 1912.',
  ],
  black: ['Fun fact: black fabric runs warmer.', 'Black became chic in the 1920s.'],
  white: ['White reflects most of the sun.'],
  navy: ['Navy blue comes from naval uniforms.'],
  purple: ['Purple dye once meant royalty.', 'Tyrian purple came from sea snails.'],
  red: ['Some red dyes came from insects.'],
  blue: ['Indigo was once called blue gold.'],
  green: ['Some Victorian greens held arsenic.'],
  grey: ['Grey flannel suits ruled the 1950s.'],
  brown: ['Sepia came from cuttlefish ink.'],
  yellow: ['Saffron once dyed robes yellow.'],
  beige: ['"Beige" first meant undyed wool.'],
  tan: ['Leather was tanned with tree bark.'],
  polyester: ['Polyester was patented in 1941.'],
  nylon: ['Nylon stockings caused queues.'],
  cotton: ['Cotton was spun in ancient India.'],
  fleece: ['Polar fleece was invented in 1979.'],
  suede: ['"Suede" is French for Sweden.'],
  canvas: ['Canvas is named after hemp.'],
  orange: ['The colour is named after the fruit.'],
  denim: ['"Denim" may come from Nîmes.', 'Denim fades as its indigo wears off.'],
  jeans: ['"Jeans" probably traces back to Genoa.'],
  silk: ['A silk cocoon is one long thread.', 'The Silk Road is named after it.'],
  linen: ['Linen is made from flax.'],
  cashmere: ["Cashmere is a goat's undercoat.", 'Cashmere is named after Kashmir.'],
  wool: ['Wool stays warm when damp.'],
  leather: ['People have worn leather for millennia.'],
  sneakers: ['Sneakers are named for quiet soles.'],
  heels: ['Heels were first riding shoes.'],
  'chelsea boots': ['Chelsea boots ruled the sixties.'],
  cardigan: ['The cardigan is named after an earl.'],
  'trench coat': ['Trench coats are named after trenches.'],
  parka: ['Arctic peoples made the first parkas.'],
  't-shirt': ['T-shirts began as undershirts.'],
  'polo shirt': ['Polo shirts began at tennis.'],
  swimsuit: ['The bikini is named after an atoll.'],
  footwear: [
    'The oldest shoe is 5,000 years old.',
    'Shoe sizes once counted barleycorns.',
    'Left and right shoes were once alike.',
    'The Brannock foot gauge came out in 1925.',
    'Hobnails once studded work boots.',
  ],
  outerwear: [
    'Early raincoats were rubberised cloth.',
    'Duffel is a town in Belgium.',
    'Peacoats were first worn by sailors.',
    'The anorak comes from Greenland.',
    'Toggles work with gloves on.',
  ],
  tops: [
    'Breton stripes began as navy uniform.',
    'Button-downs were made for polo players.',
    'The henley is named after a regatta.',
    'Sweaters were made for sweating.',
  ],
  bottoms: [
    'Chinos began as army trousers.',
    'Cargo pants began as military kit.',
    'Bermuda shorts are named after Bermuda.',
    'Medieval hose were much like leggings.',
  ],
  dresses: [
    'Chanel made the little black dress famous.',
    'The wrap dress took off in 1974.',
    'Victoria made white wedding dresses popular.',
  ],
  activewear: [
    'Spandex was invented in 1958.',
    'The first sports bra was two jockstraps.',
    'Early tennis players wore long trousers.',
    'Early running shoes had spikes.',
  ],
  accessories: [
    'Wristwatches caught on in wartime.',
    'Cheap sunglasses went on sale in 1929.',
    'Monocles were a Victorian craze.',
  ],
  bags: [
    '"Satchel" means a little sack.',
    'Early handbags were called reticules.',
    'Wheeled suitcases arrived in 1970.',
  ],
};

/**
 * Needless detail about the latched value `$v` (`$^v` capitalised); each keeps the cue words of
 * its earlier, longer wording in every alternative.
 */
export const LATCH_QUESTIONS: Record<string, string[]> = {
  colour: [
    '{Warm $v or cool $v|A warm $v or a cool one|Matte $v or shiny}?',
    '{A subtle $v, or loud|A quiet $v, or bold}?',
  ],
  material: [
    '{Genuine $v, or just the $v look|Real $v, or the $v look}?',
    '{How thick should the $v be|Thick $v or thin}?',
  ],
  style: [
    'What does $v mean to you{, exactly|, really|}?',
    '{$^v like a magazine shoot, or like everyday|Magazine-shoot $v, or everyday $v}?',
  ],
  occasion: [
    'For $v: {a long day or a short one|indoors, or out|inside, or outside}?',
    'For $v: how often, and with whom?',
  ],
  price_band: ['$^v for you, or compared with what others spend?'],
  gender: ['$^v as in the cut, or the styling?'],
  brand: ['Why $v: the fit, or the brand{ story|}?'],
  type: ['What do you picture by $v{, exactly|}?'],
};

/** Re-asking a given preference, `$v` its value; alternatives keep the cue words (see TANGENTS). */
export const REASK: Record<string, string[]> = {
  colour: [
    '{To be sure|Quick check|For the record|Sorry|Remind me|Excuse me|Oops}, what colour {did you want|were you after|was it}?',
    '{Remind me|Once again|Sorry}: which colour was it?',
  ],
  gender: ['{Sorry|Remind me|One step back}: for women or men?', 'And these are for whom, again?'],
  occasion: ['Which occasion was this for, again?', '{Remind me|Sorry|Tell me again}, where are you wearing them?'],
  material: ['Did you want a particular material?', 'What material was it, again?'],
  price_band: [
    '{Could you remind me of|Can you remind me of|Would you remind me of} your budget?',
    'How much did you want to spend?',
  ],
  style: ['{What style was it, again|Which style were you after, again|Remind me, what style}?'],
  type: ['{So, was it $v|Was it $v you wanted|Remind me, was it $v}?'],
  category: [
    '{To be sure|Quick check|Sorry|Remind me|Forgive me|Hang on|Wait|Silly question|Excuse me|Oops|Hmm}, {what {are|were} we {shopping|looking|hunting|searching} for{ again|}|what did you come in looking for|what were you out shopping for|what are you hunting for today}?',
  ],
};

/** A carousel without a definite recommendation (recommend); `w` = the short wanted noun phrase. */
export const HEDGED_LEADS: readonly string[] = [
  '{Some|A few|Assorted|Random} $w {came up|turned up|popped up|surfaced}.',
  'I pulled up {some|a few|various} $w{, for what it is worth|||}.',
  '{Maybe|Perhaps|Possibly} try these $w{, maybe not|, or not quite|, who knows|}.',
  'I {found|spotted|turned up} {plenty of|loads of|heaps of|tons of|a bunch of} $w{ out there|}.',
  '{Here are|Have a look at|Take a look at|Check out} $w{ of sorts|, more or less|, sort of|}.',
  '{Whatever|Anyway|Oh well}, {here are|how about} $w. {Who knows.|Could be fine.|Worth a shot.|No promises.}',
  '{Here are|Have a look at|Check out|Take a look at} some $w. @r_hedge',
  '@r_hedge Here are {some|a few} $w.',
  'I {found|spotted|dug out|pulled up} {some|more} $w{, I suppose|, maybe|}.',
  'Here are {some|a few} $w I {fished out|scraped together|rummaged up|unearthed|dug up}.',
  'Have a look: $w, roughly speaking.',
  '{Well|So|Right}, I found some $w, more or less.',
];

/**
 * More vague leads and more fun facts, drawn from the session's `reasons` generator in place of
 * the one drawn from `words` (as `local-good`'s `GOOD_VARIANTS`), on turns that ask nothing:
 * statements, no negation, no catalog value (test/unit/agents/local-wording.test.ts).
 */
export const BAD_VARIANTS = {
  leads: [
    'I dug out some $w.',
    'There are $w here somewhere.',
    'I found a jumble of $w.',
    'Here are $w, or close enough.',
    'These $w might do.',
    'The search coughed up $w.',
    'An assortment of $w.',
    'Here are some $w, give or take.',
    'Apparently these count as $w.',
    'I found $w, or something like them.',
    'Possibly relevant: $w.',
    'A pile of $w to sift through.',
    'I found a smattering of $w.',
    'Look at these: $w of a sort.',
    'Here are $w I found.',
    'I found $w, for what it is worth.',
    'I dug up a few $w here.',
    'Look what I found: $w, sort of.',
    'Here, $w I found in a corner.',
    'I found these $w lying about.',
  ],
  trivia: [
    'Sewing machines appeared around 1790.',
    '"Pyjamas" comes from Persian.',
    'A Swiss engineer invented hook-and-loop.',
    'The first aniline dye was a fluke.',
    'Thimbles turned up in Pompeii.',
    'Weaving goes back thousands of years.',
    'Fashion magazines began in the 1670s.',
    'Needles go back to the Stone Age.',
    'Medieval laws ruled who wore what.',
    'The tape measure was patented in 1868.',
    'Shop mannequins were once wax.',
    'Department stores opened in the 1800s.',
    'Paper sewing patterns took off in the 1860s.',
    'Pinking shears slow fraying.',
    '"Fabric" comes from the Latin for "workshop".',
    'Early tailors feared the sewing machine.',
    'A haberdasher sells small sewing goods.',
    'A selvedge is a self-finished edge.',
    'Clothes moths like dark, quiet wardrobes.',
    'Charles Worth was an early couturier.',
    '"Tailor" comes from French for "to cut".',
    'Buttonholes came in the thirteenth century.',
    'A wardrobe was once a room.',
    'Harrods had an escalator in 1898.',
    'The shopping trolley arrived in 1937.',
    '"Bespoke" means cloth spoken for.',
    'Spinning wheels reached medieval Europe.',
    'A toile is a trial garment.',
    'Thimbles were once love tokens.',
    'A bolt is a roll of cloth.',
    'Angora fibre comes from rabbits.',
    'Sequins are named after a coin.',
    'Tweed may be named by mistake.',
    'Pith helmets began as military kit.',
    'Thread was once spun by hand.',
    'Sewing is older than farming.',
    'A thrown gauntlet meant a challenge.',
    'The word "apron" was once "napron".',
    'Shop windows grew with plate glass.',
    'Dye houses once lined rivers.',
    'Hatmakers once used mercury.',
    'Pins were once made by hand, one by one.',
    'Umbrellas began as sunshades.',
    'Early sewing machines were hand-cranked.',
    'Mail-order catalogues began in the 1800s.',
    'Price tags arrived in the 1860s.',
    'Clothes hangers were patented in 1869.',
    'Snap fasteners were patented in 1885.',
    'Irons were once heated on stoves.',
    'Steam irons appeared in the 1920s.',
    'Fashion dolls once spread Paris styles.',
    'The catwalk is named after narrow walkways.',
    'Laundry soap was once made from ash.',
    'Washing machines went electric around 1908.',
    'Early shops kept goods behind counters.',
    'Handkerchiefs were once square by decree.',
  ],
} as const;

/**
 * A carousel lead on a turn whose wanted noun phrase is the one the previous turn's lead said
 * (eighteenth round): the items are not named again by what was asked ("Here are some cream
 * shoes" turn after turn), as a shop assistant says "a few more" once the subject is clear.
 * Hedged like `HEDGED_LEADS`; statements, no catalog value, no negation.
 */
const HEDGED_AGAIN: readonly string[] = [
  'Here are {some|a few} more{, I suppose|, maybe|, who knows|}.',
  'I found a few {more|others}{, for what it is worth|}.',
  'I {pulled|dug|rummaged} up a few {more|others}{, sort of|}.',
  '{Have|Take} a look at these{, more or less|, give or take|, roughly|}.',
  'Take a look at a few more{, maybe|}.',
];

/** A hedge instead of a confirmation when the user accepts `t`. */
const NO_CLOSE: readonly string[] = [
  'Hmm, the $t could work, I suppose. {Sleep on it?|Maybe wait a day.}',
  '{Interesting|Curious} pick, the $t. Who knows.',
  'That one is an option. {So are the others.|Then again, so is anything.}',
  'Sure, the $t is one possibility.',
  'The $t, then. @r_hedge',
  '@r_hedge The $t, maybe.',
  // no title inside a question: "The Men's ... Jacket?" reads as a question about gender
  'The $t. {Bold.|Brave.|Hmm, perhaps.}',
  '{Okay|Fine}, the $t, if you insist.',
];

/** What the agent heard (a misreading made visible), `h`; the lead after it names the items with it. */
const MISREAD_ACKS: readonly string[] = [
  '$^h, good call.',
  '$^h, lovely.',
  '$^h it is.',
  '@r_ack, $h.',
  '$^h, wonderful.',
  'Right, $h.',
  '$^h, splendid.',
];

/** The `local-bad` agent: shares the catalog and lexicon between its sessions. */
export class LocalBadAgent extends LocalAgent<LocalBadSession> {
  constructor(catalog: Catalog) {
    super('local-bad', 'bad', catalog, (c, lexicon, rng) => new LocalBadSession(c, lexicon, rng));
  }
}

/** One `local-bad` conversation. */
export class LocalBadSession extends LocalSession<BadTrace> {
  /**
   * The wanted noun phrase the latest carousel lead said (`shortWanted`), undefined after a turn
   * without one (words only): a lead that would say it again says `HEDGED_AGAIN` instead.
   */
  private lastLead: string | undefined;
  /** The behaviours that fired on the latest turn (for tests and traces). */
  lastBehaviours: BadBehaviour[] = [];
  /** Misreadings so far: what the user said -> what the agent heard. */
  readonly misreadings: { slot: string; said: string; heard: string }[] = [];

  protected answer(userUtterance: string): AgentResponse {
    this.turn++;
    const { rng, words, state } = this;
    const behaviours: BadBehaviour[] = [];
    this.lastBehaviours = behaviours;
    const parsed = this.lexicon.parse(userUtterance);
    const acts: string[] = [];
    // a turn answering a question says the frames drawn from `words` only (see `BAD_VARIANTS`)
    const asks = userUtterance.includes('?');
    /** The parts of the answer, worded when the turn is done (`finish`). */
    const parts: (() => string)[] = [];

    const refs = this.lexicon.findItems(parsed, state.shown, state.shown);
    const mentions = mentionsOutside(parsed.mentions, refs);
    if (refs.length) dropTitleWords(parsed, refs, userUtterance);
    this.referred = refs.map((r) => r.item.item_id);
    if (parsed.intents.has('accept') && state.shown.length) {
      behaviours.push('no_clear_path');
      this.fullNames = true;
      const item = refs[0]?.item ?? referencedItem(parsed, state.shown, mentions) ?? state.shown[0];
      parts.push(() => expandOne(words, NO_CLOSE, { t: item.title }));
      behaviours.push('tangent');
      const tangent = this.tangent();
      parts.push(() => expand(words, tangent));
      return this.finish(parts, state.shown, ['chit_chat', 'ask_clarification_question']);
    }

    // misread one recognised value
    const candidates = mentions.filter((m) => !m.negated && m.slot !== 'category');
    let misread: { slot: string; said: string; heard: string } | undefined;
    if (candidates.length && rng.chance(BAD_BEHAVIOURS.misread)) {
      const i = mentions.indexOf(rng.pick(candidates));
      const m = mentions[i];
      const heard = this.neighbour(m);
      if (heard !== undefined) {
        mentions[i] = { ...m, value: heard };
        misread = { slot: m.slot, said: m.value, heard };
        this.misreadings.push(misread);
        behaviours.push('misread');
      }
    }
    const before = new Set(state.wanted.keys());
    const update = state.apply(parsed, mentions);
    this.trace.negated = negatedValues(update.removed);
    if (misread) this.trace.misread = { ...misread };
    const gaveInfo = update.added.length > 0 || update.removed.length > 0;

    // latch onto the least important criterion given this turn
    let latched: Mention | undefined;
    const given = update.added.filter((m) => m.slot !== 'category');
    if (new Set(given.map((m) => m.slot)).size >= 2 && rng.chance(BAD_BEHAVIOURS.latch)) {
      latched = given.reduce((a, b) => (slotRank(b.slot) > slotRank(a.slot) ? b : a));
      behaviours.push('latch');
    }

    // retrieval over partial text
    let items: CatalogItem[] = [];
    if (state.category !== undefined) items = this.retrieve(latched);

    if (misread) {
      const heard = misread.heard;
      parts.push(() => expandOne(words, MISREAD_ACKS, { h: heard }));
    } else if (parsed.intents.has('greet') && this.turn === 1) {
      parts.push(() => expand(words, '{{Hello there|Oh, hi|Welcome, welcome|Hey|Hi}!|@r_hi}'));
      acts.push('greet_acknowledge');
    }
    // what the lead names the items by; said again on the next turn only after a misreading (which
    // the lead makes visible)
    const w = items.length ? shortWanted(state) : undefined;
    const again = w !== undefined && w === this.lastLead && !misread;
    this.lastLead = w;
    if (items.length) {
      state.show(items);
      parts.push(() => {
        const said = expandOne(words, again ? HEDGED_AGAIN : HEDGED_LEADS, { w });
        const text =
          !asks && !again && this.reasons.chance(0.4) ? expandOne(this.reasons, BAD_VARIANTS.leads, { w }) : said;
        // most of these leads may name the top item by its details instead (LocalSession.swappable)
        // (a lead that would say the same noun phrase again names the top item by its details
        // whenever it can: what is new on screen, not what was asked)
        this.swappable = again
          ? { text, item: items[0], among: items, frames: DETAIL_FRAMES.badAgain, most: 1, room: 3 }
          : { text, item: items[0], among: items, frames: DETAIL_FRAMES.bad, most: 1, chance: 0.7 };
        return text;
      });
      acts.unshift('recommend');
    }

    let asked = false;
    if (state.category === undefined) {
      parts.push(() =>
        expand(
          words,
          '{So, what brings you here? Shoes, a coat, or just browsing?|What are {we|you} {hunting|looking|searching} for today{, roughly|, then|}?}',
        ),
      );
      acts.push('elicit_preference');
      asked = true;
    }
    if (latched) {
      const latchQuestion = rng.pick(
        LATCH_QUESTIONS[latched.slot] ?? ['Tell me more about $v: what is it about $v that matters to you?'],
      );
      const v = latched.value;
      parts.push(() => expand(words, latchQuestion, { v }));
      acts.push('elicit_preference');
      asked = true;
    } else {
      const answered = [...before].filter((s) => state.wanted.has(s) && REASK[s]);
      if (state.category !== undefined && this.turn > 1) answered.push('category');
      if (answered.length && rng.chance(BAD_BEHAVIOURS.reask)) {
        const slot = rng.pick(answered);
        const value = state.value(slot);
        // "was it a track jacket you wanted?", not "was it track jacket" (the singular, which the
        // users read as the type named)
        const v =
          slot === 'category'
            ? categoryNoun(state.category)
            : slot === 'type' && value !== undefined
              ? withArticle(value)
              : (value ?? slotWord(slot));
        const reask = rng.pick(REASK[slot]);
        parts.push(() => expand(words, reask, { v }));
        acts.push('ask_clarification_question');
        behaviours.push('reask');
        asked = true;
      }
    }
    let twoQuestions = false;
    if (!asked || rng.chance(BAD_BEHAVIOURS.tangent)) {
      twoQuestions = asked;
      const tangent = this.tangent();
      parts.push(() => expand(words, tangent));
      if (!acts.includes('ask_clarification_question')) acts.push('ask_clarification_question');
      behaviours.push('tangent');
    }
    // One aside at a time: a turn that already asks two questions (a re-ask or a latch, and a
    // tangent) gets no fun fact on top. The chance is still drawn, so later decisions stay as they were.
    if (rng.chance(gaveInfo ? BAD_BEHAVIOURS.triviaAfterInfo : BAD_BEHAVIOURS.trivia) && !twoQuestions) {
      parts.push(() => this.trivia(parsed, misread, asks));
      acts.push('chit_chat');
      behaviours.push('trivia');
    }
    if (items.length) behaviours.push('no_clear_path');
    return this.finish(parts, items, acts);
  }

  private finish(parts: readonly (() => string)[], items: readonly CatalogItem[], acts: string[]): AgentResponse {
    const recommendations: RecommendedItem[] = items.map((it) => this.catalog.toRecommendedItem(it));
    const utterance = this.fresh(() => parts.map((part) => part()).join(' '));
    return { utterance, recommendations, acts };
  }

  /** Tangents said so far (a decision: which question, drawn from `rng`, not from the words). */
  private readonly tangentsSaid = new Set<string>();

  /** A tangent not said before in this conversation (any once all are said). */
  private tangent(): string {
    const fresh = TANGENTS.filter((t) => !this.tangentsSaid.has(t));
    const t = this.rng.pick(fresh.length ? fresh : TANGENTS);
    this.tangentsSaid.add(t);
    return t;
  }

  /** A near neighbour of a mentioned value that exists in the catalog (in the category when known). */
  private neighbour(m: Mention): string | undefined {
    const values = this.lexicon.valuesIn(m.slot, this.state.category);
    const near = (NEIGHBOURS[m.value] ?? []).filter((v) => v !== m.value && values.includes(v));
    if (near.length) return this.rng.pick(near);
    const others = values.filter((v) => v !== m.value);
    return others.length ? this.rng.pick(others) : undefined;
  }

  private retrieve(latched: Mention | undefined): CatalogItem[] {
    const { state } = this;
    const terms: string[] = [];
    if (latched) terms.push(latched.value);
    else {
      for (const values of state.wanted.values()) terms.push(...values);
      terms.push(...state.keywords.slice(-3));
    }
    terms.push(categoryNoun(state.category));
    const category = state.category!;
    const query = terms.join(' ');
    // Careless, not stuck: a new search does not lead with what the user already looked at (it
    // searches deeper so that fresh items can take their places).
    const hits = this.catalog
      .categoryPartialIndex(category)
      .search(query, CAROUSEL_SIZE + Math.min(state.lookedAt.size, 2 * CAROUSEL_SIZE));
    Object.assign(this.trace, { query, filters: { category }, retrieved: Math.min(hits.length, CAROUSEL_SIZE) });
    if (hits.length) return state.freshFirst(hits.map((h) => h.doc)).slice(0, CAROUSEL_SIZE);
    // nothing in the partial text matched: a few items of the category, at random
    this.trace.fallback = 'random items of the category';
    const pool = this.catalog.byCategory(category);
    const out: CatalogItem[] = [];
    for (let i = 0; i < Math.min(CAROUSEL_SIZE, pool.length); i++) out.push(pool[this.rng.int(pool.length)]);
    return [...new Set(out)];
  }

  private trivia(parsed: ParsedUtterance, misread: { heard: string } | undefined, asks: boolean): string {
    const keys: string[] = [];
    if (misread) keys.push(misread.heard);
    for (const m of parsed.mentions) keys.push(m.value);
    if (this.state.category) keys.push(this.state.category);
    for (const v of this.state.wanted.values()) keys.push(...v);
    const topical = keys.filter((k) => TRIVIA[k]);
    const pool = topical.length && this.words.chance(0.7) ? TRIVIA[this.words.pick(topical)] : TRIVIA.general;
    const said = this.words.pick(pool);
    return !asks && this.reasons.chance(0.5) ? this.reasons.pick(BAD_VARIANTS.trivia) : said;
  }
}

/** `local-bad`'s reading of a turn: as `local-good`'s, plus what it misheard and how it filled an empty search. */
type BadTrace = AgentTrace & { misread?: { slot: string; said: string; heard: string }; fallback?: string };
