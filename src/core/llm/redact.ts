/**
 * Keeps API keys out of every text SimLens writes (errors, logs, traces, manifests, cache files).
 * Endpoints sometimes echo a partial key in their error messages ("Incorrect API key provided:
 * sk-abc***xyz"), so besides the exact secret we also mask key-shaped tokens and auth headers.
 */
const KEY_SHAPES: RegExp[] = [
  /\b(sk|rk|pk)-[A-Za-z0-9_*.\-]{4,}/g,
  /(Bearer\s+)[^\s"',}]+/gi,
  /((?:api[-_]?key|key|token|secret|password|authorization)["']?\s*[:=]\s*["']?)(?!Bearer\b)[^\s"',}]+/gi,
];

export const REDACTED = '[REDACTED]';

/** Replaces each secret (exact occurrences) and anything shaped like a key with [REDACTED]. */
export function redactSecrets(text: string, secrets: readonly (string | undefined)[] = []): string {
  let out = text;
  for (const secret of secrets) {
    if (!secret || secret.length < 4) continue;
    out = out.split(secret).join(REDACTED);
  }
  out = out.replace(KEY_SHAPES[0], REDACTED);
  out = out.replace(KEY_SHAPES[1], `$1${REDACTED}`);
  out = out.replace(KEY_SHAPES[2], `$1${REDACTED}`);
  return out;
}
