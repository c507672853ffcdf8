/**
 * Making data safe to print. Conversation files are untrusted: an id or utterance can hold terminal
 * escape sequences (ESC ] 0 ; title BEL sets a window title, ESC [ 2 J clears the screen, C1 CSI
 * U+009B works like ESC [ on many terminals) or bidirectional overrides that make a message read
 * differently from what it says. `escapeControl` replaces each such character with a visible
 * `\u001b`-style escape; the CLI's untrusted output, the import summary and the extension's output
 * channel and notifications (src/extension/safeOutput.ts) go through it. Tab and line feed are kept:
 * they are layout, not commands.
 *
 * Inside a JSON string the replacement is itself the JSON escape of the same character, so a JSON
 * document printed through this function still parses to the same value.
 */

// C0 controls except TAB (09) and LF (0A), DEL, C1 controls, bidi embeddings/overrides/isolates,
// and the line/paragraph separators that some terminals and editors treat as line breaks.
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u200E\u200F\u2028\u2029\u202A-\u202E\u2066-\u2069]/g;
// eslint-disable-next-line no-control-regex
const UNSAFE_TEST = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u200E\u200F\u2028\u2029\u202A-\u202E\u2066-\u2069]/;

function escapeOne(c: string): string {
  return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/** The text with every control, C1 and bidi-override character written as a visible `\uXXXX`. */
export function escapeControl(text: string): string {
  return UNSAFE_TEST.test(text) ? text.replace(UNSAFE, escapeOne) : text;
}

/** True when `text` holds a character `escapeControl` would replace. */
export function hasControl(text: string): boolean {
  return UNSAFE_TEST.test(text);
}
