/**
 * The catalog module's public surface: items and the `Catalog` class, JSONL input/output, and the
 * synthetic apparel catalog generator.
 */
export { Catalog, itemPartialText, type CatalogItem } from './item';
export { loadCatalog, writeCatalog, catalogItemLine, CatalogError } from './io';
export { generateApparelCatalog, APPAREL_ATTRIBUTES, APPAREL_CATEGORIES } from './apparel';
