/** The large-JSONL engine: line index, lazy parsing and validation, locating fields, round-trip writer. */
export * from './lineIndex';
export * from './jsonSyntax';
export * from './locate';
export * from './parse';
export * from './stream';
export * from './file';
export * from './writer';
