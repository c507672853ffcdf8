/**
 * Resolves the `simlens.taxonomy` setting: a built-in name ("convapparel", "zhang-balog"), a path
 * to a JSON taxonomy file, or an inline taxonomy object.
 */
import { readFile } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import { BUILTIN_TAXONOMIES, builtinTaxonomy, parseTaxonomy, CONVAPPAREL_TAXONOMY, type Taxonomy } from '../taxonomy';

/** The resolved taxonomy, plus an error when the setting was unusable (then the default is used). */
interface ResolvedTaxonomy {
  taxonomy: Taxonomy;
  error?: string;
}

/**
 * Resolves a taxonomy setting value. Relative paths are resolved against `baseDir` (the workspace
 * folder or the document's folder). Never throws: a bad setting falls back to ConvApparel with an
 * error message naming the setting and the problem.
 */
export async function resolveTaxonomySetting(value: unknown, baseDir: string): Promise<ResolvedTaxonomy> {
  if (value === undefined || value === null || value === '') return { taxonomy: CONVAPPAREL_TAXONOMY };
  try {
    if (typeof value === 'string') {
      const builtin = builtinTaxonomy(value.trim());
      if (builtin) return { taxonomy: builtin };
      const path = isAbsolute(value) ? value : resolve(baseDir, value);
      let text: string;
      try {
        text = await readFile(path, 'utf8');
      } catch (e) {
        throw new Error(
          `simlens.taxonomy: "${value}" is neither a built-in taxonomy ` +
            `(${BUILTIN_TAXONOMIES.map((t) => t.name).join(', ')}) nor a readable file (${(e as Error).message})`,
        );
      }
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch (e) {
        throw new Error(`simlens.taxonomy: ${path} is not valid JSON: ${(e as Error).message}`);
      }
      return { taxonomy: parseTaxonomy(json, path) };
    }
    return { taxonomy: parseTaxonomy(value, 'simlens.taxonomy (inline)') };
  } catch (e) {
    return { taxonomy: CONVAPPAREL_TAXONOMY, error: (e as Error).message };
  }
}
