/** `simlens catalog generate`: write the deterministic synthetic apparel catalog. */
import { generateApparelCatalog, loadCatalog, writeCatalog } from '../../core/catalog/catalog';
import { formatFlags, parseArgs } from '../args';
import { UsageError, type CliCommand } from '../types';
import { resolvePath } from '../util';

const FLAGS = {
  out: { type: 'string', short: 'o', valueName: 'FILE', description: 'catalog JSONL to write (generate)' },
  size: { type: 'number', description: 'number of items (default 3000)' },
  seed: { type: 'string', valueName: 'S', description: 'seed (default "simlens"); same seed and size, same bytes' },
} as const;

export const catalogCommand: CliCommand = {
  name: 'catalog',
  summary: 'generate the synthetic apparel catalog, or summarise a catalog file',
  help: `Usage: simlens catalog generate --out FILE [--size N] [--seed S]
       simlens catalog info FILE

generate  writes the synthetic apparel catalog (ConvApparel-like task categories such as
          footwear and outerwear; attributes type, colour, material, style, gender, occasion,
          price band, brand; generated titles and descriptions) as JSONL, one item per line:
          item_id, title, description, features, category, attributes, price.
info      prints the number of items per category and the attribute names of a catalog file.

Options:
${formatFlags(FLAGS)}

Exit codes: 0 success, 2 usage or I/O error.

Example:
  simlens catalog generate --out catalog.jsonl --size 3000 --seed 1
  simlens simulate --catalog catalog.jsonl --n 100 --out run.sim.jsonl
`,
  async run(args, io) {
    const { flags, positionals } = parseArgs(args, FLAGS, { positionals: { min: 1, max: 2, names: 'generate | info FILE' } });
    const [action, file] = positionals;
    if (action === 'generate') {
      if (file) throw new UsageError(`generate takes no file argument (use --out), got "${file}"`);
      if (!flags.out) throw new UsageError('generate needs --out FILE');
      if (flags.size !== undefined && (!Number.isInteger(flags.size) || flags.size < 1)) throw new UsageError('--size must be a positive integer');
      const seed = flags.seed !== undefined && /^-?\d+$/.test(flags.seed) ? Number(flags.seed) : flags.seed;
      const catalog = generateApparelCatalog({ size: flags.size, seed });
      await writeCatalog(catalog, resolvePath(io, flags.out));
      io.stdout(`wrote ${catalog.size} items in ${catalog.categories().length} categories to ${flags.out}\n`);
      return 0;
    }
    if (action === 'info') {
      if (!file) throw new UsageError('info needs a catalog FILE');
      const catalog = await loadCatalog(resolvePath(io, file));
      const rows = catalog.categories().map((c) => `  ${c.padEnd(14)} ${catalog.byCategory(c).length}`);
      io.stdout(`${file}: ${catalog.size} items\n${rows.join('\n')}\nattributes: ${catalog.attributeNames().join(', ')}\n`);
      return 0;
    }
    throw new UsageError(`unknown action "${action}" (expected generate or info)`);
  },
};
