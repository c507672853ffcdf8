/**
 * Test fixtures for the simulated users: a small hand-written catalog (so tests and golden traces
 * do not depend on the synthetic catalog generator) and scripted agents.
 */
import * as path from 'node:path';
import { Catalog, type CatalogItem } from '../../../src/core/catalog/catalog';
import type { Rng } from '../../../src/core/random';
import type { Agent, AgentResponse, AgentSession, HistoryEntry, SessionContext } from '../../../src/core/sim/types';
import assert from 'node:assert/strict';
import type { Conversation } from '../../../src/core/model';
import { createRng } from '../../../src/core/random';
import {
  parseSimulationConfig,
  prepareEnvironment,
  runConversation,
  simulateConversation,
  type SimulationEnvironment,
} from '../../../src/core/run/index';
import {
  createUserSimulator,
  defaultTransitionCounts,
  type TransitionModel,
  type UserSpec,
} from '../../../src/core/sim/users/index';
import { TemplateNlg } from '../../../src/core/sim/users/nlg';
import { isPluralNoun } from '../../../src/core/text/articles';

const REPO_ROOT = path.resolve(__dirname, '../../..');
export const FIXTURES = path.resolve(REPO_ROOT, 'test/fixtures');

const COLOURS = ['black', 'white', 'red', 'blue', 'green'];
const MATERIALS = ['leather', 'suede', 'canvas', 'wool'];
const STYLES = ['casual', 'classic', 'sporty'];
const TYPES: Record<string, string[]> = {
  footwear: ['sneakers', 'boots', 'sandals'],
  outerwear: ['parka', 'blazer', 'raincoat'],
};

/** 2 categories x 60 items, attributes cycling deterministically through small value sets. */
export function tinyCatalog(): Catalog {
  const items: CatalogItem[] = [];
  for (const category of ['footwear', 'outerwear']) {
    for (let i = 0; i < 60; i++) {
      const type = TYPES[category][i % 3];
      const colour = COLOURS[(i * 7) % COLOURS.length];
      const material = MATERIALS[(i * 3 + (category === 'footwear' ? 0 : 1)) % MATERIALS.length];
      const style = STYLES[(i * 5) % STYLES.length];
      const gender = ['women', 'men', 'unisex'][(i * 11) % 3];
      items.push({
        item_id: `${category === 'footwear' ? 'F' : 'O'}${String(i).padStart(3, '0')}`,
        title: `${style} ${colour} ${material} ${type} ${i}`,
        description: `A ${style} ${type} in ${colour} ${material} for ${gender}.`,
        features: [`${material} upper`, `${style} look`],
        category,
        attributes: { type, colour, material, style, gender, price_band: ['budget', 'mid-range', 'premium'][i % 3] },
      });
    }
  }
  return new Catalog(items);
}

/** One scripted agent turn: what to say, which acts to report, which items to show. */
interface ScriptStep {
  utterance: string;
  acts?: string[];
  items?: string[];
  error?: string;
}

/** An agent that plays a fixed script (the last step repeats). */
export class ScriptedAgent implements Agent {
  readonly name: string;
  readonly condition?: string;
  constructor(
    private readonly catalog: Catalog,
    private readonly script: ScriptStep[],
    name = 'scripted',
    condition?: string,
  ) {
    this.name = name;
    this.condition = condition;
  }
  createSession(_id: string, _rng: Rng, _ctx: SessionContext): AgentSession {
    let i = 0;
    const { catalog, script } = this;
    return {
      async respond(_u: string, _h: readonly HistoryEntry[]): Promise<AgentResponse> {
        const step = script[Math.min(i++, script.length - 1)];
        const r: AgentResponse = {
          utterance: step.utterance,
          recommendations: (step.items ?? []).map((id) => catalog.toRecommendedItem(catalog.get(id)!)),
        };
        if (step.acts) r.acts = step.acts;
        if (step.error) r.error = step.error;
        return r;
      },
    };
  }
}

/**
 * A deterministic stand-in recommender over the tiny catalog: asks for a colour first, then shows
 * the items of the task category that match the most words of everything the user said (ties by
 * id), reporting ConvApparel acts. Independent of the real local agents, so golden traces only
 * change when the simulators change.
 */
export class KeywordAgent implements Agent {
  readonly name = 'keyword-test-agent';
  readonly condition = 'good';
  constructor(private readonly catalog: Catalog) {}
  createSession(_id: string, _rng: Rng, ctx: SessionContext): AgentSession {
    const catalog = this.catalog;
    const task = typeof ctx.task === 'string' ? ctx.task : 'footwear';
    const said: string[] = [];
    let turn = 0;
    return {
      async respond(u: string): Promise<AgentResponse> {
        turn++;
        said.push(
          ...u
            .toLowerCase()
            .split(/[^a-z-]+/)
            .filter(Boolean),
        );
        if (/\b(take|buy|go with|that's the one|perfect)\b/i.test(u))
          return { utterance: 'Great choice, enjoy!', recommendations: [], acts: ['greet_acknowledge'] };
        if (/\b(thanks|thank you|bye)\b/i.test(u))
          return { utterance: 'Goodbye!', recommendations: [], acts: ['greet_acknowledge'] };
        if (turn === 1)
          return { utterance: 'What colour would you like?', recommendations: [], acts: ['elicit_preference'] };
        const words = new Set(said);
        const scored = catalog
          .byCategory(task)
          .map((item) => ({ item, s: Object.values(item.attributes).filter((v) => words.has(v)).length }))
          .sort((a, b) => b.s - a.s || (a.item.item_id < b.item.item_id ? -1 : 1))
          .slice(0, 4);
        return {
          utterance: `Here are some options. The ${scored[0].item.title} is a good match.`,
          recommendations: scored.map((x) => catalog.toRecommendedItem(x.item)),
          acts: ['recommend', 'explain_recommendation'],
        };
      },
    };
  }
}

/** A one-conversation environment: `agent` against the user `spec` over `catalog`. */
export function userEnv(
  agent: Agent,
  spec: UserSpec,
  deps: { catalog: Catalog; transitions: TransitionModel; nlg?: TemplateNlg },
  maxTurns = 20,
): SimulationEnvironment {
  return {
    config: parseSimulationConfig({ n: 1 }),
    catalog: deps.catalog,
    user: createUserSimulator(spec, deps),
    agent,
    transitions: defaultTransitionCounts(),
    maxTurns,
    inputs: {},
  };
}

/** Runs conversation `i` of `e` (seeded by `seed/i`) and asserts that it did not fail. */
export async function simulateOne(
  e: SimulationEnvironment,
  i: number,
  seed: string,
  task: string,
): Promise<Conversation> {
  const rng = createRng(`${seed}/${i}`);
  const user = e.user.createSession(`c${i}`, rng.fork('user'), { task });
  const agent = e.agent.createSession(`c${i}`, rng.fork('agent'), { task });
  const { conversation, failed } = await runConversation({ env: e, id: `c${i}`, index: i, user, agent, task });
  assert.equal(failed, false, String(conversation.metadata?.error));
  return conversation;
}

/**
 * The four agenda configurations (CIR6 / QRFA x single / PKG) against local-good, `n` conversations
 * each on the 800-item catalog: `visit` gets each conversation and its configuration's name.
 */
export async function eachAgendaVsLocalGood(
  seed: string,
  n: number,
  visit: (conversation: Conversation, config: string, catalog: Catalog) => void,
): Promise<void> {
  for (const interaction of ['cir6', 'qrfa'] as const)
    for (const preferences of ['single', 'pkg'] as const) {
      const env = await prepareEnvironment(
        parseSimulationConfig({
          user: 'agenda',
          interaction,
          preferences,
          agent: 'local-good',
          n,
          seed,
          catalog_size: 800,
        }),
      );
      for (let c = 0; c < n; c++)
        visit((await simulateConversation(env, c)).conversation, `${interaction}-${preferences}`, env.catalog);
    }
}

/**
 * For grammar tests over every wording and value: the bench's catalog (800 items), its clothing
 * types split into singular and plural nouns, a typo-free template NLG and a seeded generator.
 */
export async function grammarFixture(seed: string): Promise<{
  catalog: Catalog;
  singular: string[];
  plural: string[];
  nlg: TemplateNlg;
  rng: Rng;
}> {
  const env = await prepareEnvironment(parseSimulationConfig({ n: 1, catalog_size: 800 }));
  const types = [...env.catalog.attributeValues('type')].map((v) => v.toLowerCase());
  return {
    catalog: env.catalog,
    singular: types.filter((v) => !isPluralNoun(v)),
    plural: types.filter(isPluralNoun),
    nlg: new TemplateNlg({ typoRate: 0 }),
    rng: createRng(seed),
  };
}
