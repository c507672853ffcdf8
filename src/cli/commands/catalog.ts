/**
 * `simlens catalog generate`: write the deterministic synthetic apparel catalog; `catalog build`:
 * a movie catalog from ReDial or IARD dialogues (src/core/importers/movieCatalog.ts); `catalog info`.
 */
import { existsSync, statSync } from 'node:fs';
import { generateApparelCatalog, loadCatalog, writeCatalog } from '../../core/catalog/catalog';
import {
  buildMovieCatalogFromFiles,
  MOVIE_CATALOG_SOURCES,
  type MovieCatalogSource,
} from '../../core/importers/movieCatalog';
import { ImportError } from '../../core/importers/index';
import { formatFlags, parseArgs } from '../args';
import { UsageError, type CliCommand } from '../types';
import { resolvePath } from '../util';

const FLAGS = {
  out: { type: 'string', short: 'o', valueName: 'FILE', description: 'catalog JSONL to write (generate)' },
  size: { type: 'number', description: 'number of items (default 3000)' },
  seed: { type: 'string', valueName: 'S', description: 'seed (default "simlens"); same seed and size, same bytes' },
  from: {
    type: 'string',
    valueName: 'redial|iard',
    description: "build: the dialogues' format (ReDial, or IARD raw or the UserSimCRS copy)",
  },
  force: { type: 'boolean', description: 'build: replace an existing --out' },
} as const;

export const catalogCommand: CliCommand = {
  name: 'catalog',
  summary:
    'generate the synthetic apparel catalog, build a movie catalog from ReDial/IARD, or summarise a catalog file',
  help: `Usage: simlens catalog generate --out FILE [--size N] [--seed S]
       simlens catalog build --from redial|iard FILE... --out FILE [--force]
       simlens catalog info FILE

generate  writes the synthetic apparel catalog (ConvApparel-like task categories such as
          footwear and outerwear; attributes type, colour, material, style, gender, occasion,
          price band, brand; generated titles and descriptions) as JSONL, one item per line:
          item_id, title, description, features, category, attributes, price.
build     writes a movie catalog from human movie dialogues, so simulations run in their domain:
          every movie the dialogues name (ReDial movieMentions; IARD @id <Title (year)> mentions,
          or TITLE slots in the UserSimCRS copy), one item each: item_id (the ReDial movie id, or
          iard:<title-year>), title "Title (YYYY)", category "movies", attributes.year. The files
          give no genre, director, actors, plot or price; the counts of what could not be carried
          (mentions without a title, conflicting titles, titles without a year) are printed.
          The built-in agenda user discloses catalog attributes, so against such a catalog it can
          only ask for a year (docs/formats.md, "Movie catalogs").
info      prints the number of items per category and the attribute names of a catalog file.

Options:
${formatFlags(FLAGS)}

Exit codes: 0 success, 1 no movie with a title in the files, 2 usage or I/O error (a missing
file, --out exists without --force).

Example:
  simlens catalog generate --out catalog.jsonl --size 3000 --seed 1
  simlens simulate --catalog catalog.jsonl --n 100 --out run.sim.jsonl
  simlens catalog build --from iard test/fixtures/datasets/usersimcrs-iard-gold/formatted_IARD_annotated_gold.json --out movies.catalog.jsonl --force
`,
  async run(args, io) {
    const { flags, positionals } = parseArgs(args, FLAGS, {
      positionals: { min: 1, names: 'generate | build FILE... | info FILE' },
    });
    const [action, file] = positionals;
    if (action === 'generate') {
      if (file) throw new UsageError(`generate takes no file argument (use --out), got "${file}"`);
      if (!flags.out) throw new UsageError('generate needs --out FILE');
      if (flags.size !== undefined && (!Number.isInteger(flags.size) || flags.size < 1))
        throw new UsageError('--size must be a positive integer');
      const seed = flags.seed !== undefined && /^-?\d+$/.test(flags.seed) ? Number(flags.seed) : flags.seed;
      const catalog = generateApparelCatalog({ size: flags.size, seed });
      await writeCatalog(catalog, resolvePath(io, flags.out));
      io.stdout(`wrote ${catalog.size} items in ${catalog.categories().length} categories to ${flags.out}\n`);
      return 0;
    }
    if (action === 'build') {
      const files = positionals.slice(1);
      const from = flags.from?.toLowerCase();
      if (!from || !(MOVIE_CATALOG_SOURCES as readonly string[]).includes(from))
        throw new UsageError(
          `build needs --from ${MOVIE_CATALOG_SOURCES.join(' or ')}${flags.from ? `, got "${flags.from}"` : ''}`,
        );
      if (!files.length) throw new UsageError('build needs at least one dialogue FILE');
      if (!flags.out) throw new UsageError('build needs --out FILE');
      const outPath = resolvePath(io, flags.out);
      if (!flags.force && existsSync(outPath) && !statSync(outPath).isDirectory())
        throw new UsageError(`${flags.out} already exists; use --force to replace it`);
      for (const file of files) if (!existsSync(resolvePath(io, file))) throw new UsageError(`${file}: no such file`);
      let result;
      try {
        result = await buildMovieCatalogFromFiles(
          from as MovieCatalogSource,
          files.map((file) => ({ path: resolvePath(io, file), label: file })),
        );
      } catch (e) {
        if (e instanceof ImportError) throw new UsageError((e as Error).message);
        io.stderr(`simlens catalog: ${(e as Error).message}\n`);
        return 1;
      }
      for (const w of result.warnings.slice(0, 10)) io.stderr(`simlens catalog: ${w}\n`);
      if (result.warnings.length > 10)
        io.stderr(`simlens catalog: … and ${result.warnings.length - 10} more import warnings\n`);
      await writeCatalog(result.catalog, outPath);
      const c = result.counts;
      io.stdout(
        `wrote ${c.items} movies (${c.withYear} with a year) from ${c.mentions} mentions in ${c.dialogues} dialogues to ${flags.out}\n`,
      );
      for (const n of result.notes) io.stderr(`simlens catalog: ${n}\n`);
      return 0;
    }
    if (action === 'info') {
      if (!file) throw new UsageError('info needs a catalog FILE');
      if (positionals.length > 2) throw new UsageError('info takes one catalog FILE');
      const catalog = await loadCatalog(resolvePath(io, file));
      const rows = catalog.categories().map((c) => `  ${c.padEnd(14)} ${catalog.byCategory(c).length}`);
      io.stdout(
        `${file}: ${catalog.size} items\n${rows.join('\n')}\nattributes: ${catalog.attributeNames().join(', ')}\n`,
      );
      return 0;
    }
    throw new UsageError(`unknown action "${action}" (expected generate, build or info)`);
  },
};
