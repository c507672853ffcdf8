/**
 * Keeps API keys out of every text SimLens writes (errors, logs, traces, manifests, cache files).
 * Endpoints sometimes echo a partial key in their error messages ("Incorrect API key provided:
 * sk-abc***xyz", "abc123******wxyz"), so besides the exact secret we also mask key-shaped tokens,
 * partly masked keys, auth headers and `key=value` pairs. The name of an environment variable
 * after "key:" (SIMLENS_API_KEY, which the user must set) is not a key and is kept.
 */
const KEY_SHAPES: RegExp[] = [
  /\b(sk|rk|pk)-[A-Za-z0-9_*.-]{4,}/g,
  /(Bearer\s+)[^\s"',}]+/gi,
  /((?:api[-_]?key|key|token|secret|password|authorization)["']?\s*[:=]\s*["']?)(?!Bearer\b)(?![A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+(?![A-Za-z0-9_-]))[^\s"',}&]+/gi,
  // A partly masked key: some characters, three or more masking stars, maybe some more.
  /[A-Za-z0-9_.-]*[A-Za-z0-9]\*{3,}[A-Za-z0-9_-]*/g,
  // Credentials in a URL: scheme://user:password@host
  /(\b[a-z][a-z0-9+.-]*:\/\/)[^\s/@"']+@/gi,
  // A credential query parameter: ?api-key=..., &token=...
  /([?&][A-Za-z0-9_.-]*(?:key|token|secret|password|passwd|auth|sig|signature|credential)[A-Za-z0-9_.-]*=)[^&\s"'#]+/gi,
];

const REDACTED = '[REDACTED]';

/** Replaces each secret (exact occurrences) and anything shaped like a key with [REDACTED]. */
export function redactSecrets(text: string, secrets: readonly (string | undefined)[] = []): string {
  let out = text;
  for (const secret of secrets) {
    if (!secret || secret.length < 4) continue;
    out = out.split(secret).join(REDACTED);
    // Also as it appears percent-encoded (in a URL).
    const encoded = encodeURIComponent(secret);
    if (encoded !== secret) out = out.split(encoded).join(REDACTED);
  }
  out = out.replace(KEY_SHAPES[0], REDACTED);
  out = out.replace(KEY_SHAPES[1], `$1${REDACTED}`);
  out = out.replace(KEY_SHAPES[2], `$1${REDACTED}`);
  out = out.replace(KEY_SHAPES[3], REDACTED);
  out = out.replace(KEY_SHAPES[4], `$1${REDACTED}@`);
  out = out.replace(KEY_SHAPES[5], `$1${REDACTED}`);
  return out;
}

/** Query parameters of a base URL that hold credentials (Azure's `api-key`, `key`, `token`, signatures). */
const SECRET_QUERY = /(key|token|secret|password|passwd|auth|sig|signature|credential)/i;

/**
 * The secrets a base URL carries: its userinfo (user and password) and the values of its
 * credential query parameters. The client sends them; nothing writes them.
 */
export function urlSecrets(url: string): string[] {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return [];
  }
  const out: string[] = [];
  if (u.username) out.push(decodeURIComponent(u.username), u.username);
  if (u.password) out.push(decodeURIComponent(u.password), u.password);
  for (const [name, value] of u.searchParams) if (value && SECRET_QUERY.test(name)) out.push(value);
  return out.filter((s) => s.length >= 1);
}

/**
 * A base URL as it may be written (manifests, cache entries, messages): userinfo and credential
 * query values replaced by [REDACTED]. Unparsable text is returned redacted by `redactSecrets`.
 */
export function publicBaseUrl(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return redactSecrets(url);
  }
  if (!u.username && !u.password && ![...u.searchParams.keys()].some((k) => SECRET_QUERY.test(k))) return url;
  const host = `${u.protocol}//${u.username || u.password ? `${REDACTED}@` : ''}${u.host}${u.pathname}`;
  const query = [...u.searchParams]
    .map(([k, v]) => `${encodeURIComponent(k)}=${SECRET_QUERY.test(k) && v ? REDACTED : encodeURIComponent(v)}`)
    .join('&');
  return `${host}${query ? `?${query}` : ''}${u.hash}`;
}
