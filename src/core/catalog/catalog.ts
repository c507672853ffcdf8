/**
 * The catalog module's public surface: items and the `Catalog` class, JSONL input/output, and the
 * synthetic apparel catalog generator.
 */
export {
  Catalog,
  itemFullText,
  itemPartialText,
  PARTIAL_DESCRIPTION_CHARS,
  type CatalogItem,
  type CatalogSearchOptions,
} from './item';
export { loadCatalog, writeCatalog, parseCatalog, splitFeatures, catalogItemLine, CatalogError } from './io';
export {
  generateApparelCatalog,
  APPAREL_ATTRIBUTES,
  APPAREL_CATEGORIES,
  APPAREL_COLOURS,
  PRICE_BANDS,
  type ApparelCatalogOptions,
} from './apparel';
