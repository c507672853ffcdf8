/**
 * A small `fetch` over node:http/https with keep-alive agents, handed to the `openai` client.
 *
 * Why: with many conversations in flight, the built-in fetch (undici's spec-complete
 * implementation) costs several times more CPU per request than node:http on our machines, and
 * that CPU, not the endpoint, became the limit on conversations per minute (see bench/RESULTS.md,
 * "LLM"). The client only needs a subset of fetch: string or byte bodies, headers, AbortSignal, and
 * a streamed response body (for server-sent events). Anything else falls back to the global fetch.
 * Compressed responses (gzip, deflate, br) are decoded.
 */
import * as http from 'node:http';
import * as https from 'node:https';
import { Readable } from 'node:stream';
import * as zlib from 'node:zlib';

interface NodeFetchOptions {
  /** Sockets per origin (default 256). */
  maxSockets?: number;
}

function toHeaderRecord(init: ConstructorParameters<typeof Headers>[0]): Record<string, string> {
  const out: Record<string, string> = {};
  new Headers(init).forEach((value, key) => {
    out[key] = value;
  });
  return out;
}

type Agents = { 'http:': http.Agent; 'https:': https.Agent };

function createAgents(maxSockets: number): Agents {
  return {
    'http:': new http.Agent({ keepAlive: true, maxSockets }),
    'https:': new https.Agent({ keepAlive: true, maxSockets }),
  };
}

/** Creates a fetch function with its own keep-alive agents. */
export function createNodeFetch(options: NodeFetchOptions = {}): typeof fetch {
  return fetchWithAgents(createAgents(options.maxSockets ?? 256));
}

function fetchWithAgents(agents: Agents): typeof fetch {
  const nodeFetch = async (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    const body = init.body;
    const simpleBody = body === undefined || body === null || typeof body === 'string' || body instanceof Uint8Array;
    if (input instanceof Request || !simpleBody) return fetch(input, init);
    const url = new URL(typeof input === 'string' ? input : input.href);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return fetch(input, init);
    const signal = init.signal ?? undefined;
    if (signal?.aborted) throw abortError();
    const headers = toHeaderRecord(init.headers);
    headers['accept-encoding'] ??= 'gzip, deflate, br';
    const payload =
      body === undefined || body === null
        ? undefined
        : typeof body === 'string'
          ? Buffer.from(body)
          : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
    if (payload) headers['content-length'] = String(payload.length);
    const mod = url.protocol === 'https:' ? https : http;
    return new Promise<Response>((resolve, reject) => {
      const req = mod.request(
        url,
        { method: init.method ?? 'GET', headers, agent: agents[url.protocol as 'http:' | 'https:'] },
        (res) => {
          signal?.removeEventListener('abort', onAbort);
          // Abort after the headers: destroying the response errors the body stream the client reads.
          const onBodyAbort = () => res.destroy(abortError());
          signal?.addEventListener('abort', onBodyAbort, { once: true });
          res.once('close', () => signal?.removeEventListener('abort', onBodyAbort));
          const responseHeaders = new Headers();
          for (const [key, value] of Object.entries(res.headers)) {
            if (Array.isArray(value)) for (const v of value) responseHeaders.append(key, v);
            else if (value !== undefined) responseHeaders.set(key, String(value));
          }
          const status = res.statusCode ?? 500;
          if (status === 204 || status === 304 || init.method === 'HEAD') {
            res.resume();
            resolve(new Response(null, { status, statusText: res.statusMessage, headers: responseHeaders }));
            return;
          }
          let stream: Readable = res;
          const encoding = String(res.headers['content-encoding'] ?? '').toLowerCase();
          if (encoding === 'gzip' || encoding === 'x-gzip') stream = res.pipe(zlib.createGunzip());
          else if (encoding === 'deflate') stream = res.pipe(zlib.createInflate());
          else if (encoding === 'br') stream = res.pipe(zlib.createBrotliDecompress());
          if (stream !== res) {
            res.on('error', (e) => stream.destroy(e));
            responseHeaders.delete('content-encoding');
            responseHeaders.delete('content-length');
          }
          resolve(
            new Response(Readable.toWeb(stream) as ReadableStream<Uint8Array>, {
              status,
              statusText: res.statusMessage,
              headers: responseHeaders,
            }),
          );
        },
      );
      const onAbort = () => req.destroy(abortError());
      signal?.addEventListener('abort', onAbort, { once: true });
      req.on('error', (e) => {
        signal?.removeEventListener('abort', onAbort);
        reject(signal?.aborted ? abortError() : e);
      });
      req.end(payload);
    });
  };
  return nodeFetch as typeof fetch;
}

function abortError(): Error {
  const e = new Error('The operation was aborted');
  e.name = 'AbortError';
  return e;
}

let sharedAgentsInstance: Agents | undefined;
let shared: typeof fetch | undefined;

function sharedAgents(): Agents {
  return (sharedAgentsInstance ??= createAgents(256));
}

/** One process-wide instance, so every client shares the keep-alive sockets. */
export function sharedNodeFetch(): typeof fetch {
  return (shared ??= fetchWithAgents(sharedAgents()));
}

/** A whole HTTP answer, body decoded to text. */
interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/**
 * POSTs a JSON text and reads the whole answer (decompressed) as text, over the shared keep-alive
 * sockets. The lean path for non-streamed chat completions: no WHATWG Headers/Request/Response or
 * web streams per request, which cost more CPU than the request itself when many conversations
 * run at once. Rejects with an AbortError when `signal` aborts, with the socket error when the
 * connection fails or closes before the answer is complete. `onSent` is called once, when the
 * request is on the wire (or failed before).
 */
export function postJson(
  url: URL,
  headers: Record<string, string>,
  json: string,
  signal: AbortSignal,
  onSent?: () => void,
): Promise<RawResponse> {
  let sentOnce = false;
  // Once: when the request is flushed to the socket, or when it fails before that.
  const sent = () => {
    if (sentOnce) return;
    sentOnce = true;
    onSent?.();
  };
  if (signal.aborted) {
    sent();
    return Promise.reject(abortError());
  }
  const payload = Buffer.from(json);
  const mod = url.protocol === 'https:' ? https : http;
  const agent = sharedAgents()[url.protocol === 'https:' ? 'https:' : 'http:'];
  return new Promise<RawResponse>((resolve, reject) => {
    let settled = false;
    let response: http.IncomingMessage | undefined;
    const finish = (error: Error | undefined, value?: RawResponse) => {
      if (settled) return;
      settled = true;
      sent();
      signal.removeEventListener('abort', onAbort);
      if (error) reject(signal.aborted ? abortError() : error);
      else resolve(value!);
    };
    const onAbort = () => {
      const e = abortError();
      response?.destroy(e);
      req.destroy(e);
      finish(e);
    };
    const req = mod.request(
      url,
      {
        method: 'POST',
        agent,
        headers: {
          ...headers,
          'content-type': 'application/json',
          'content-length': String(payload.length),
          'accept-encoding': 'gzip, deflate, br',
        },
      },
      (res) => {
        response = res;
        let stream: Readable = res;
        const encoding = String(res.headers['content-encoding'] ?? '').toLowerCase();
        if (encoding === 'gzip' || encoding === 'x-gzip') stream = res.pipe(zlib.createGunzip());
        else if (encoding === 'deflate') stream = res.pipe(zlib.createInflate());
        else if (encoding === 'br') stream = res.pipe(zlib.createBrotliDecompress());
        if (stream !== res) res.on('error', (e) => stream.destroy(e));
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('error', (e) => finish(e));
        stream.on('end', () => {
          if (!res.complete) return finish(new Error('the connection closed before the answer was complete'));
          finish(undefined, {
            status: res.statusCode ?? 500,
            headers: res.headers,
            body: Buffer.concat(chunks).toString('utf8'),
          });
        });
        res.on('close', () => {
          if (!res.complete) finish(new Error('the connection closed before the answer was complete'));
        });
      },
    );
    signal.addEventListener('abort', onAbort, { once: true });
    req.on('error', (e) => finish(e));
    req.on('finish', sent);
    req.end(payload);
  });
}
