/** The conversation document: summaries, search, annotation journal, save/backup, agreement. */
export * from './document';
export * from './journal';
export * from './lineEdit';
export * from './search';
export * from './summaries';
export * from './backup';
export * from './taxonomySetting';
export * from './agreement';
