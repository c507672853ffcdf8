export * from './protocol';
export * from './framing';
export * from './connection';
export * from './simulator';
export * from './settings';
