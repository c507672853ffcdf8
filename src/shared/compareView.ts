/**
 * The pure code the Compare Runs webview shares with the CLI's Markdown report: the order and
 * names of dialogue parts, the one-line description of a divergence, number formatting. No zod
 * and no Node (see compareProtocol.ts for the messages).
 */
export { DIALOGUE_PARTS } from '../core/diff/model';
export { partLabel, describeDivergence } from '../core/diff/labels';
export { formatP, formatFixed } from '../core/report/format';
