/**
 * A scripted OpenAI-compatible server for tests and benchmarks (node:http on 127.0.0.1, port 0):
 * `GET /v1/models` and `POST /v1/chat/completions`. A script decides each chat response: a reply
 * (with usage), an HTTP error (429 with Retry-After, 500, 400…), a hang, a malformed JSON body, a
 * cut body or SSE stream, an HTML page, a completion without choices. It counts requests in
 * flight (and their maximum) and keeps every request it saw, headers and parsed body, so tests
 * can check the bearer header, seeds and what was sent.
 *
 * @example
 * const server = await startFaultServer({ script: [{ kind: 'status', status: 429, retryAfter: '1' }] });
 * const client = createChatClient({ baseURL: server.baseURL });
 * ... // first call answers 429, the retry gets the default reply
 * expect(server.maxInFlight).toBe(1);
 * await server.close();
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type FaultStep =
  /** A chat completion; streamed as SSE when the request asked for `stream: true`. */
  | { readonly kind: 'ok'; readonly content?: string; readonly promptTokens?: number; readonly completionTokens?: number; readonly omitUsage?: boolean }
  /** An HTTP error with an OpenAI-shaped error body, or `body` as given (e.g. vLLM's older `{"object": "error", "message": …}`). */
  | { readonly kind: 'status'; readonly status: number; readonly message?: string; readonly retryAfter?: string; readonly retryAfterMs?: string; readonly body?: unknown }
  /** Never answers; the connection stays open until the client gives up or the server closes. */
  | { readonly kind: 'hang' }
  /** 200, `application/json`, a body that is not JSON. */
  | { readonly kind: 'malformed-json' }
  /** Streamed: a few SSE chunks, then the socket is destroyed. Not streamed: half a JSON body, then the same. */
  | { readonly kind: 'cut' }
  /** Streamed: a few SSE chunks, then a clean end with no finish_reason and no [DONE]. */
  | { readonly kind: 'truncated-stream' }
  /** 200 with a `text/html` page (a proxy's error page, a wrong URL). */
  | { readonly kind: 'html' }
  /** 200, a JSON object with an empty `choices`. */
  | { readonly kind: 'no-choice' };

export interface SeenRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /** The parsed JSON body; the raw text when it was not JSON; undefined for a GET. */
  readonly body: unknown;
}

export interface FaultServerOptions {
  /** Steps taken in order by successive chat requests, then `fallback`; or a function of each request. */
  readonly script?: readonly FaultStep[] | ((request: SeenRequest, index: number) => FaultStep);
  /** The step once an array script is used up (default ok). */
  readonly fallback?: FaultStep;
  /** Delay before each chat response starts, ms: a number or a function of the request index (default 0). */
  readonly latencyMs?: number | ((index: number) => number);
  /** The reply text of an `ok` step without content (default `Thought: fine\nAction: go`). */
  readonly content?: (request: SeenRequest, index: number) => string;
  /** When set, a request without `Authorization: Bearer <apiKey>` gets a 401 that quotes the key it sent. */
  readonly apiKey?: string;
  /** When set, another model name gets a 404 (default: any name is accepted). */
  readonly models?: readonly string[];
}

export interface FaultServer {
  /** `http://127.0.0.1:PORT/v1` */
  readonly baseURL: string;
  readonly port: number;
  /** Every request seen, in arrival order (models and chat). */
  readonly requests: readonly SeenRequest[];
  /** Chat requests seen. */
  readonly chatRequests: number;
  /** Chat requests whose response has not ended or been abandoned yet. */
  readonly inFlight: number;
  /** Most chat requests in flight at once. */
  readonly maxInFlight: number;
  /** Stops listening, destroys every connection (hung ones included) and cancels pending latency timers. */
  close(): Promise<void>;
}

const DEFAULT_CONTENT = 'Thought: fine\nAction: go';

export async function startFaultServer(options: FaultServerOptions = {}): Promise<FaultServer> {
  const requests: SeenRequest[] = [];
  const timers = new Set<NodeJS.Timeout>();
  let chatRequests = 0;
  let inFlight = 0;
  let maxInFlight = 0;

  function stepFor(request: SeenRequest, index: number): FaultStep {
    const { script } = options;
    if (typeof script === 'function') return script(request, index);
    return script?.[index] ?? options.fallback ?? { kind: 'ok' };
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const text = await readBody(req);
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const seen: SeenRequest = { method: req.method ?? 'GET', path, headers: { ...req.headers }, body: parseBody(text) };
    requests.push(seen);
    if (options.apiKey !== undefined && req.headers.authorization !== `Bearer ${options.apiKey}`) {
      const sent = (req.headers.authorization ?? '').replace(/^Bearer /, '');
      return sendError(res, 401, `Incorrect API key provided: ${sent}`);
    }
    if (req.method === 'GET' && path === '/v1/models') {
      const ids = options.models ?? ['fault-model'];
      return sendJson(res, 200, { object: 'list', data: ids.map((id) => ({ id, object: 'model', created: 0, owned_by: 'fault-server' })) });
    }
    if (req.method !== 'POST' || path !== '/v1/chat/completions') return sendError(res, 404, `no route ${req.method} ${path}`);

    const index = chatRequests++;
    inFlight += 1;
    maxInFlight = Math.max(maxInFlight, inFlight);
    res.on('close', () => {
      inFlight -= 1;
    });
    const body = (typeof seen.body === 'object' && seen.body !== null ? seen.body : {}) as { model?: unknown; stream?: unknown; stream_options?: { include_usage?: unknown } };
    if (options.models !== undefined && !options.models.includes(String(body.model))) {
      return sendError(res, 404, `The model \`${String(body.model)}\` does not exist.`);
    }
    const latency = typeof options.latencyMs === 'function' ? options.latencyMs(index) : (options.latencyMs ?? 0);
    if (latency > 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          timers.delete(timer);
          resolve();
        }, latency);
        timers.add(timer);
      });
    }
    if (res.destroyed) return;
    const step = stepFor(seen, index);
    const stream = body.stream === true;
    const content = options.content?.(seen, index) ?? DEFAULT_CONTENT;
    respond(res, step, { stream, includeUsage: body.stream_options?.include_usage === true, content, model: String(body.model ?? 'fault-model'), index });
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) sendError(res, 500, `fault server: ${String(error)}`);
      else res.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;

  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    port,
    requests,
    get chatRequests() {
      return chatRequests;
    },
    get inFlight() {
      return inFlight;
    },
    get maxInFlight() {
      return maxInFlight;
    },
    close() {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      return new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

interface ReplyContext {
  readonly stream: boolean;
  readonly includeUsage: boolean;
  readonly content: string;
  readonly model: string;
  readonly index: number;
}

function respond(res: ServerResponse, step: FaultStep, context: ReplyContext): void {
  switch (step.kind) {
    case 'ok':
      return context.stream ? sendStream(res, step, context) : sendJson(res, 200, completion(step, context));
    case 'status': {
      const headers: Record<string, string> = {};
      if (step.retryAfter !== undefined) headers['retry-after'] = step.retryAfter;
      if (step.retryAfterMs !== undefined) headers['retry-after-ms'] = step.retryAfterMs;
      if (step.body !== undefined) return sendJson(res, step.status, step.body, headers);
      return sendError(res, step.status, step.message ?? `scripted ${step.status}`, headers);
    }
    case 'hang':
      return;
    case 'malformed-json':
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"id": "chatcmpl-x", "choices": [{"message": {"content": "Thought');
      return;
    case 'cut':
      if (context.stream) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(sse(chunk(context, { role: 'assistant', content: 'Thought: ' }, null)));
        res.write(sse(chunk(context, { content: 'half a' }, null)));
      } else {
        const full = JSON.stringify(completion({ kind: 'ok' }, context));
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(full)) });
        res.write(full.slice(0, Math.floor(full.length / 2)));
      }
      // Let the written bytes leave before the connection is torn down mid-body.
      setTimeout(() => res.destroy(), 10);
      return;
    case 'truncated-stream':
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(sse(chunk(context, { role: 'assistant', content: 'Thought: ' }, null)));
      res.end(sse(chunk(context, { content: 'half a' }, null)));
      return;
    case 'html':
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end('<!doctype html><html><head><title>502 Bad Gateway</title></head><body><h1>Bad Gateway</h1></body></html>');
      return;
    case 'no-choice':
      return sendJson(res, 200, { id: `chatcmpl-${context.index}`, object: 'chat.completion', created: 0, model: context.model, choices: [] });
  }
}

function completion(step: Extract<FaultStep, { kind: 'ok' }>, context: ReplyContext) {
  return {
    id: `chatcmpl-${context.index}`,
    object: 'chat.completion',
    created: 0,
    model: context.model,
    choices: [{ index: 0, message: { role: 'assistant', content: step.content ?? context.content }, finish_reason: 'stop', logprobs: null }],
    ...(step.omitUsage === true ? {} : { usage: usageOf(step, context) }),
  };
}

function usageOf(step: Extract<FaultStep, { kind: 'ok' }>, context: ReplyContext) {
  const prompt = step.promptTokens ?? 10;
  const completionTokens = step.completionTokens ?? Math.max(1, Math.ceil((step.content ?? context.content).length / 4));
  return { prompt_tokens: prompt, completion_tokens: completionTokens, total_tokens: prompt + completionTokens };
}

function sendStream(res: ServerResponse, step: Extract<FaultStep, { kind: 'ok' }>, context: ReplyContext): void {
  const text = step.content ?? context.content;
  const third = Math.ceil(text.length / 3);
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.write(sse(chunk(context, { role: 'assistant', content: '' }, null)));
  for (let start = 0; start < text.length; start += Math.max(1, third)) res.write(sse(chunk(context, { content: text.slice(start, start + third) }, null)));
  res.write(sse(chunk(context, {}, 'stop')));
  if (context.includeUsage && step.omitUsage !== true) {
    res.write(sse({ id: `chatcmpl-${context.index}`, object: 'chat.completion.chunk', created: 0, model: context.model, choices: [], usage: usageOf(step, context) }));
  }
  res.end('data: [DONE]\n\n');
}

function chunk(context: ReplyContext, delta: Record<string, string>, finishReason: string | null) {
  return { id: `chatcmpl-${context.index}`, object: 'chat.completion.chunk', created: 0, model: context.model, choices: [{ index: 0, delta, finish_reason: finishReason }] };
}

function sse(data: unknown): string {
  return `data: ${JSON.stringify(data)}\n\n`;
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)), ...headers });
  res.end(text);
}

function sendError(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  sendJson(res, status, { error: { message, type: status === 429 ? 'rate_limit_error' : 'invalid_request_error', code: null, param: null } }, headers);
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (data: Buffer) => chunks.push(data));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function parseBody(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
