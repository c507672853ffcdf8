/**
 * Diagnostic tracing of the editor's message flow, off unless SIMLENS_EDITOR_DEBUG is set in the
 * extension host's environment (the E2E test sets it to explain failures). Goes to the extension
 * host console, which the workbench's developer console shows as "[Extension Host] …".
 */
const enabled = Boolean(process.env.SIMLENS_EDITOR_DEBUG);

export function trace(message: () => string): void {
  if (enabled) console.log(`[simlens-editor] ${new Date().toISOString().slice(11, 23)} ${message()}`);
}
