/**
 * A loopback OpenAI-compatible server for tests, the E2E helper and the LLM benchmark.
 *
 * It speaks just enough of the API for the `openai` client: `POST /v1/chat/completions`
 * (plain JSON and `stream: true` server-sent events), `POST /v1/embeddings` and `GET /v1/models`.
 * Replies are scripted: queue them with `enqueue()` (consumed in order by chat requests), or
 * install a `handler` that computes one per request. Each reply can set a status code, headers
 * (e.g. Retry-After), a delay, a raw body (invalid or truncated JSON), a hang (for timeouts) or a
 * stream cut short. Every request is recorded (method, path, headers, parsed body) so tests can
 * check model, messages and parameters.
 *
 * Binds 127.0.0.1 on an ephemeral port. Always `close()` it.
 */
import * as http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface FakeUsage {
  prompt_tokens: number;
  completion_tokens: number;
}

/** One scripted reply. Everything is optional: the default is a 200 with `content`. */
export interface FakeReply {
  /** HTTP status (default 200). Non-2xx replies send an OpenAI-style error body unless `body` is set. */
  status?: number;
  /** The assistant message text of a successful chat completion. */
  content?: string;
  /** Raw response body, sent verbatim (for invalid or truncated JSON). */
  body?: string;
  headers?: Record<string, string>;
  /** Extra delay before the reply starts, on top of the server's `latencyMs`. */
  delayMs?: number;
  /** Never answer; the socket stays open until the client gives up or the server closes. */
  hang?: boolean;
  /** For streamed replies: destroy the socket after this many content chunks. */
  cutStreamAfter?: number;
  /** For streamed replies: split the content into chunks of this many characters (default 8). */
  chunkSize?: number;
  usage?: FakeUsage;
  /** finish_reason of the choice (default "stop"). */
  finishReason?: string;
  /** Error message for non-2xx replies. */
  errorMessage?: string;
  /** Embedding vectors to return instead of the built-in hashed bag of words. */
  embeddings?: number[][];
  // Fault modes of answers SimLens must not use as data (see test/unit/llm/answers.test.ts).
  /** Send `message.content` as this list of parts (e.g. [{type: "text", text: "..."}]) instead of a string. */
  contentParts?: unknown[];
  /** Leave `usage` out of the answer (some self-hosted servers do). */
  omitUsage?: boolean;
  /** Set `message.refusal` (OpenAI's structured refusal) and leave the content null. */
  refusal?: string;
  /**
   * For error replies: echo the credentials the request carried in the error message, the way
   * some servers do: the bearer token in full, partly masked (first 6, stars, last 4), and the
   * request's query string and userinfo.
   */
  echoCredentials?: boolean;
}

export interface RecordedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  /** The parsed JSON body (undefined for GET or unparsable bodies). */
  body: Record<string, unknown> | undefined;
  rawBody: string;
  /** The query string of the request URL (without "?"). */
  query: string;
  /** Milliseconds since the server started when the request arrived. */
  at: number;
}

export type FakeHandler = (request: RecordedRequest) => FakeReply | Promise<FakeReply>;

interface FakeOpenAIOptions {
  /** Added to every reply, counted from the request's arrival (the benchmark uses 200 ms). */
  latencyMs?: number;
  /** Computes replies when the queue is empty (default: a short echo of the last message). */
  handler?: FakeHandler;
  /** Model ids listed by GET /v1/models. */
  models?: string[];
  /** Keep recorded requests (default true). The benchmark turns this off. */
  record?: boolean;
  /** Port to listen on (default 0: any free port). */
  port?: number;
}

const EMBEDDING_DIM = 64;

/** A deterministic embedding: hashed bag of lower-cased words, L2-normalised. */
function hashedEmbedding(text: string, dim = EMBEDDING_DIM): number[] {
  const v = new Array<number>(dim).fill(0);
  for (const word of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
    let h = 2166136261;
    for (let i = 0; i < word.length; i++) h = Math.imul(h ^ word.charCodeAt(i), 16777619) >>> 0;
    v[h % dim] += 1;
  }
  const norm = Math.sqrt(v.reduce((s, x) => s + x * x, 0)) || 1;
  return v.map((x) => x / norm);
}

function lastMessageText(body: Record<string, unknown> | undefined): string {
  const messages = body?.messages;
  if (!Array.isArray(messages) || messages.length === 0) return '';
  const last = messages[messages.length - 1] as { content?: unknown };
  return typeof last.content === 'string' ? last.content : '';
}

function roughTokens(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4));
}

export class FakeOpenAI {
  readonly requests: RecordedRequest[] = [];
  /** Base URL including `/v1`, e.g. http://127.0.0.1:41234/v1 */
  url = '';
  private readonly queue: FakeReply[] = [];
  private handler: FakeHandler;
  private readonly sockets = new Set<Socket>();
  private readonly started = Date.now();
  private counter = 0;
  private server: http.Server;
  /** Chat and embedding requests answered (including errors). */
  served = 0;

  private constructor(private readonly options: FakeOpenAIOptions) {
    this.handler = options.handler ?? ((req) => ({ content: `echo: ${lastMessageText(req.body).slice(0, 60)}` }));
    this.server = http.createServer((req, res) => void this.handle(req, res));
    this.server.keepAliveTimeout = 60_000;
    this.server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
  }

  /** Starts a server on 127.0.0.1, port 0. */
  static async start(options: FakeOpenAIOptions = {}): Promise<FakeOpenAI> {
    const fake = new FakeOpenAI(options);
    await new Promise<void>((resolve) => fake.server.listen(options.port ?? 0, '127.0.0.1', resolve));
    const { port } = fake.server.address() as AddressInfo;
    fake.url = `http://127.0.0.1:${port}/v1`;
    return fake;
  }

  /** Queues replies for the next chat/embedding requests, in order. */
  enqueue(...replies: FakeReply[]): this {
    this.queue.push(...replies);
    return this;
  }

  /** Replaces the handler used when the queue is empty. */
  setHandler(handler: FakeHandler): this {
    this.handler = handler;
    return this;
  }

  /** Chat completion requests only. */
  get chatRequests(): RecordedRequest[] {
    return this.requests.filter((r) => r.path.endsWith('/chat/completions'));
  }

  /** Drops every open connection (simulates an endpoint that dies mid-run); the server keeps listening. */
  dropConnections(): void {
    for (const s of this.sockets) s.destroy();
  }

  /** Stops listening and drops every connection. */
  async close(): Promise<void> {
    this.dropConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    // The latency counts from the request's arrival: the server's own work (reading and parsing
    // the body, the handler) happens inside it, so a 200 ms server answers 200 ms after arrival.
    const arrived = performance.now();
    const rawBody = await new Promise<string>((resolve, reject) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
      req.on('error', reject);
    }).catch(() => undefined);
    if (rawBody === undefined) return; // the client went away mid-request
    let body: Record<string, unknown> | undefined;
    try {
      body = rawBody ? (JSON.parse(rawBody) as Record<string, unknown>) : undefined;
    } catch {
      body = undefined;
    }
    const path = (req.url ?? '/').split('?')[0];
    const recorded: RecordedRequest = {
      method: req.method ?? 'GET',
      path,
      query: (req.url ?? '').split('?')[1] ?? '',
      headers: req.headers,
      body,
      rawBody,
      at: Date.now() - this.started,
    };
    if (this.options.record !== false) this.requests.push(recorded);
    const requestId = `req_fake_${++this.counter}`;

    if (req.method === 'GET' && path.endsWith('/models')) {
      const data = (this.options.models ?? ['fake-model']).map((id) => ({
        id,
        object: 'model',
        created: 0,
        owned_by: 'fake',
      }));
      return this.sendJson(res, 200, { object: 'list', data }, { 'x-request-id': requestId });
    }
    const isChat = req.method === 'POST' && path.endsWith('/chat/completions');
    const isEmbed = req.method === 'POST' && path.endsWith('/embeddings');
    if (!isChat && !isEmbed)
      return this.sendJson(res, 404, { error: { message: `no route ${req.method} ${path}`, type: 'not_found' } }, {});

    this.served++;
    const reply = this.queue.length ? this.queue.shift()! : await this.handler(recorded);
    const wait = (this.options.latencyMs ?? 0) + (reply.delayMs ?? 0) - (performance.now() - arrived);
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    if (reply.hang) return; // the client times out; close() destroys the socket
    if (res.destroyed) return;

    const headers: Record<string, string> = { 'x-request-id': requestId, ...(reply.headers ?? {}) };
    const status = reply.status ?? 200;
    if (reply.body !== undefined) {
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(reply.body);
      return;
    }
    if (status >= 400) {
      let message = reply.errorMessage ?? `fake error ${status}`;
      if (reply.echoCredentials) {
        const auth = String(req.headers.authorization ?? '');
        const token = auth.replace(/^(Bearer|Basic)\s+/i, '');
        const masked =
          token.length > 10 ? `${token.slice(0, 6)}${'*'.repeat(token.length - 10)}${token.slice(-4)}` : token;
        message += `; Incorrect API key provided: ${masked}. You sent Authorization: ${auth} with query ${recorded.query}; api_key=${token}`;
      }
      return this.sendJson(res, status, { error: { message, type: 'fake_error', code: null } }, headers);
    }
    if (isEmbed) return this.sendEmbeddings(res, body, reply, headers);
    const model = typeof body?.model === 'string' ? body.model : 'fake-model';
    const content = reply.content ?? '';
    const usage = reply.usage ?? { prompt_tokens: roughTokens(rawBody), completion_tokens: roughTokens(content) };
    if (body?.stream === true) return this.sendStream(res, model, content, reply, usage, headers, body);
    const message: Record<string, unknown> = {
      role: 'assistant',
      content: reply.refusal !== undefined ? null : (reply.contentParts ?? content),
    };
    if (reply.refusal !== undefined) message.refusal = reply.refusal;
    this.sendJson(
      res,
      status,
      {
        id: `chatcmpl-${this.counter}`,
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model,
        choices: [{ index: 0, message, finish_reason: reply.finishReason ?? 'stop', logprobs: null }],
        ...(reply.omitUsage
          ? {}
          : { usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens } }),
      },
      headers,
    );
  }

  private sendJson(res: http.ServerResponse, status: number, value: unknown, headers: Record<string, string>): void {
    if (res.destroyed) return;
    const text = JSON.stringify(value);
    res.writeHead(status, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(text),
      ...headers,
    });
    res.end(text);
  }

  private sendEmbeddings(
    res: http.ServerResponse,
    body: Record<string, unknown> | undefined,
    reply: FakeReply,
    headers: Record<string, string>,
  ): void {
    const input = body?.input;
    const texts = Array.isArray(input) ? input.map(String) : [String(input ?? '')];
    const vectors = reply.embeddings ?? texts.map((t) => hashedEmbedding(t));
    // The openai client asks for base64 (little-endian float32) unless told otherwise.
    const encode = (v: number[]) =>
      body?.encoding_format === 'base64' ? Buffer.from(new Float32Array(v).buffer).toString('base64') : v;
    this.sendJson(
      res,
      200,
      {
        object: 'list',
        model: body?.model ?? 'fake-embedding',
        data: vectors.map((embedding, index) => ({ object: 'embedding', index, embedding: encode(embedding) })),
        usage: {
          prompt_tokens: texts.reduce((s, t) => s + roughTokens(t), 0),
          total_tokens: texts.reduce((s, t) => s + roughTokens(t), 0),
        },
      },
      headers,
    );
  }

  private sendStream(
    res: http.ServerResponse,
    model: string,
    content: string,
    reply: FakeReply,
    usage: FakeUsage,
    headers: Record<string, string>,
    body: Record<string, unknown>,
  ): void {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...headers });
    const id = `chatcmpl-${this.counter}`;
    const created = Math.floor(Date.now() / 1000);
    const chunk = (delta: Record<string, unknown>, finish: string | null, extra: Record<string, unknown> = {}) =>
      `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, finish_reason: finish }], ...extra })}\n\n`;
    res.write(chunk({ role: 'assistant', content: '' }, null));
    const size = Math.max(1, reply.chunkSize ?? 8);
    let sent = 0;
    for (let i = 0; i < content.length; i += size) {
      if (reply.cutStreamAfter !== undefined && sent >= reply.cutStreamAfter) {
        res.socket?.destroy();
        return;
      }
      res.write(chunk({ content: content.slice(i, i + size) }, null));
      sent++;
    }
    res.write(chunk({}, reply.finishReason ?? 'stop'));
    const options = body.stream_options as { include_usage?: boolean } | undefined;
    if (options?.include_usage) {
      res.write(
        `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [], usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens } })}\n\n`,
      );
    }
    res.end('data: [DONE]\n\n');
  }
}

/** Runs `fn` against a fake server started with `options`; the server is closed afterwards. */
export async function withFakeOpenAI<T>(options: FakeOpenAIOptions, fn: (fake: FakeOpenAI) => Promise<T>): Promise<T> {
  const fake = await FakeOpenAI.start(options);
  try {
    return await fn(fake);
  } finally {
    await fake.close();
  }
}
