/**
 * A report input that holds nothing to measure: a file without a conversation, or a population
 * whose every conversation failed. The CLI exits 1 for it (a finding about the input, as
 * docs/cli.md says), not 2 (usage): a filter the options chose that matches nothing stays a
 * plain Error. The message names the file.
 */
export class InputProblemError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InputProblemError';
  }
}

/** The "no conversations" error of a population: an input problem when the file itself holds none. */
export function noConversationsError(file: string, filter: string | undefined, inFile: number): Error {
  const message = `${file}: no conversations${filter ? ` match ${filter}` : ''} (${inFile} in the file)`;
  return inFile === 0 ? new InputProblemError(message) : new Error(message);
}
