/** Test helpers: LLM services pointed at a loopback server, temp folders, a small catalog. */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { resolveLlmSettings, type LlmSettingsInput } from '../../src/core/llm/config';
import { LlmServices } from '../../src/core/llm/services';
import { PromptLibrary } from '../../src/core/llm/templates';
import { Catalog, type CatalogItem } from '../../src/core/catalog/item';
import { scratchDir } from './scratch';

export const FAKE_KEY = 'sk-test-SECRET-0123456789abcdef';

/** A temporary folder, removed when the test process exits. */
export function tmpDir(prefix = 'simlens-llm-'): string {
  return scratchDir(prefix);
}

/** Services for every role at `url`, fast retries, optional cache. */
export function testServices(
  url: string,
  input: LlmSettingsInput = {},
  extra: { signal?: AbortSignal; prompts?: PromptLibrary; apiKey?: string } = {},
): LlmServices {
  const settings = resolveLlmSettings({
    ...input,
    defaults: {
      baseUrl: url,
      model: 'fake-chat',
      backoffMs: 5,
      maxBackoffMs: 20,
      timeoutMs: 3000,
      ...(input.defaults ?? {}),
    },
  });
  return new LlmServices({ settings, apiKey: extra.apiKey ?? FAKE_KEY, signal: extra.signal, prompts: extra.prompts });
}

function item(
  id: string,
  title: string,
  category: string,
  colour: string,
  material: string,
  features: string[],
): CatalogItem {
  return {
    item_id: id,
    title,
    description: `${title}. Made of ${material} in ${colour}; a dependable everyday choice for most people.`,
    features,
    category,
    attributes: { colour, material },
  };
}

/** Twelve items over footwear and outerwear. */
export function smallCatalog(): Catalog {
  return new Catalog([
    item('f1', 'Black leather ankle boots', 'footwear', 'black', 'leather', ['waterproof', 'low heel']),
    item('f2', 'Brown suede chelsea boots', 'footwear', 'brown', 'suede', ['elastic sides']),
    item('f3', 'White canvas sneakers', 'footwear', 'white', 'canvas', ['lightweight', 'casual']),
    item('f4', 'Black running shoes', 'footwear', 'black', 'mesh', ['breathable', 'cushioned']),
    item('f5', 'Red high heels', 'footwear', 'red', 'patent leather', ['party', 'pointed toe']),
    item('f6', 'Tan leather sandals', 'footwear', 'tan', 'leather', ['summer', 'flat']),
    item('f7', 'Grey hiking boots', 'footwear', 'grey', 'nubuck', ['waterproof', 'grippy sole']),
    item('o1', 'Navy rain jacket', 'outerwear', 'navy', 'nylon', ['waterproof', 'hood']),
    item('o2', 'Black wool coat', 'outerwear', 'black', 'wool', ['warm', 'long']),
    item('o3', 'Olive parka', 'outerwear', 'olive', 'cotton', ['fur hood', 'warm']),
    item('o4', 'Denim jacket', 'outerwear', 'blue', 'denim', ['casual']),
    item('o5', 'Puffer vest', 'outerwear', 'black', 'polyester', ['light', 'packable']),
  ]);
}

/** Every file's text under `dir`, concatenated (for "the key never appears" checks). */
export function readTree(dir: string): string {
  let out = '';
  if (!fs.existsSync(dir)) return out;
  for (const name of fs.readdirSync(dir)) {
    const p = path.join(dir, name);
    out += fs.statSync(p).isDirectory() ? readTree(p) : fs.readFileSync(p, 'utf8');
  }
  return out;
}
