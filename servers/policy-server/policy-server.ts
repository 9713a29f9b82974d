/**
 * `actorgym serve-policy`: a trained checkpoint behind an OpenAI-compatible chat endpoint, so any
 * OpenAI client can drive a trained agent, and actorgym's LLM policy can be tested end to end
 * against a real server. Plain `node:http`, keep-alive on.
 *
 *   GET  /v1/models            → { object: 'list', data: [{ id, object: 'model', created, owned_by: 'actorgym' }] }
 *   GET  /v1/models/{any}      → the served model
 *   POST /v1/chat/completions  → a chat.completion, or with `stream: true` an SSE stream of
 *                                chat.completion.chunk deltas ended by `data: [DONE]`
 *                                (`stream_options.include_usage` adds a usage chunk)
 *
 * The conversation must be one actorgym's LLM policy renders for the checkpoint's env (the env
 * family's prompt template, policy/llm/prompts/): the server reads it back into the observation
 * sequence the transformer was trained on and answers `template.formatReply(thought, action)`.
 * Sessions, seeds and batching: servers/policy-server/served-policy.ts. Any model name is accepted
 * (`default` included); the reply names the served model, `actorgym-<env>-step<N>`.
 *
 * Request fields read: `messages` (system/developer, user, assistant; text content), `seed` (the
 * episode's seed; absent = random), `temperature` (0 = greedy; absent = the checkpoint's
 * evaluation temperature), `top_p`, `stream`, `stream_options.include_usage`, `n` (1 only).
 * Others are accepted and ignored (a reply is always one whole action, so `max_tokens` and
 * `stop` do not apply). `usage.prompt_tokens` is the length of the context window the model read,
 * `completion_tokens` the action tokens it sampled (`</act>` included), both in our tokenizer.
 *
 * Errors are OpenAI's shape `{ error: { message, type, param, code } }` with the codes of
 * ./policy-server/api-error.ts: 400 bad JSON, a bad field or a conversation the template did not
 * render; 401 a missing or wrong bearer token (when `token` is set; every route); 404 unknown
 * path; 405 wrong method; 413 body over `maxBodyBytes`; 403 a browser Origin not allowed; 503
 * decode queue full (`Retry-After: 1`) or the server draining. `GET /healthz` and `/readyz`
 * answer without a token (readyz 503 while draining); on close, running completions get
 * `drainMs` to finish.
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { promptFor } from '../../policy/llm/prompts/index.ts';
import { requestToken, tokenMatches } from '../../transport/wire/auth.ts';
import { originAllowed } from '../../transport/wire/origin.ts';
import { answerHealth } from '../listener/health.ts';
import { listen } from '../listener/listen.ts';
import { BadRequest, readJsonBody } from '../agentgym-http/http-io.ts';
import { ApiError, asApiError, sendError, sendJson } from './api-error.ts';
import { closingChunks, completionObject, roleChunk, usageOf, type CompletionMeta } from './completion-objects.ts';
import { parseChatCompletionBody } from './request-schema.ts';
import { ServedPolicy, type ServedPolicyOptions } from './served-policy.ts';
import type { ServedPrompt } from './served-prompt.ts';
import { SseWriter } from './sse-writer.ts';
import type { CheckpointAgent } from '../../learner/checkpoint/checkpoint-agent.ts';

import { DEFAULT_DRAIN_MS, DEFAULT_KEEP_ALIVE_TIMEOUT_MS, DEFAULT_MAX_BODY_BYTES, DEFAULT_REQUEST_TIMEOUT_MS } from './limits.ts';

export { DEFAULT_DRAIN_MS, DEFAULT_KEEP_ALIVE_TIMEOUT_MS, DEFAULT_MAX_BODY_BYTES, DEFAULT_REQUEST_TIMEOUT_MS };

export interface PolicyServerOptions extends Pick<ServedPolicyOptions, 'maxSessions' | 'sessionIdleMs' | 'maxBatch' | 'maxQueue' | 'randomSeed'> {
  /** 0 picks a free port. */
  readonly port: number;
  /** Default 127.0.0.1. */
  readonly host?: string;
  /** Require `Authorization: Bearer <token>` on every route. */
  readonly token?: string;
  /** The checkpoint (`loadCheckpointAgent`); its policy is served with its filter and hidden actions. */
  readonly agent: Pick<CheckpointAgent, 'policy' | 'config' | 'step'>;
  /** The env family's prompt template (default `promptFor(agent.config.env)`, as the LLM policy renders it). */
  readonly prompt?: ServedPrompt;
  /** Browser origins allowed besides the server's own loopback pages (`*` = any); programs send none. */
  readonly allowOrigins?: readonly string[];
  /** On close, running requests get this long to finish before their sockets are closed. Default 10 s. */
  readonly drainMs?: number;
  /** Whole-request and header deadline for receiving a request (ms). Default 30 s. */
  readonly requestTimeoutMs?: number;
  /** Default `actorgym-<env>-step<N>`. */
  readonly modelId?: string;
  readonly maxBodyBytes?: number;
  readonly keepAliveTimeoutMs?: number;
  /** Milliseconds (default Date.now): `created` stamps and session idleness. */
  readonly now?: () => number;
}

export interface PolicyServer {
  readonly port: number;
  /** The OpenAI base URL, `http://host:port/v1`. */
  readonly url: string;
  readonly modelId: string;
  /** Sessions and counts (resumed / rebuilt requests). */
  readonly served: ServedPolicy;
  /** HTTP requests received and not yet answered. */
  readonly inFlight: number;
  /** Stops accepting, lets running requests finish within `drainMs`, then drops connections and frees every session. Idempotent. */
  close(): Promise<void>;
}

export async function startPolicyServer(options: PolicyServerOptions): Promise<PolicyServer> {
  const { agent } = options;
  const host = options.host ?? '127.0.0.1';
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const now = options.now ?? Date.now;
  const modelId = options.modelId ?? `actorgym-${agent.config.env}-step${agent.step}`;
  const started = Math.floor(now() / 1000);
  const served = new ServedPolicy({
    policy: agent.policy.inner,
    view: { filter: agent.policy.filter, hide: agent.policy.options.hide ?? [] },
    prompt: options.prompt ?? promptFor(agent.config.env),
    envId: agent.config.env,
    now,
    ...pick(options, ['maxSessions', 'sessionIdleMs', 'maxBatch', 'maxQueue', 'randomSeed']),
  });
  const model = { id: modelId, object: 'model', created: started, owned_by: 'actorgym' };

  async function chatCompletion(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    let raw: unknown;
    try {
      raw = await readJsonBody(req, maxBodyBytes);
    } catch (error) {
      if (!(error instanceof BadRequest)) throw error;
      throw error.status === 413
        ? new ApiError(413, 'body_too_large', error.message)
        : new ApiError(400, 'invalid_request', error.message);
    }
    const body = parseChatCompletionBody(raw);
    const view = served.read(body.messages);
    const meta: CompletionMeta = { id: `chatcmpl-${randomUUID()}`, created: Math.floor(now() / 1000), model: modelId };
    const sampling = {
      ...(body.seed !== undefined ? { seed: body.seed } : {}),
      ...(body.temperature !== undefined ? { temperature: body.temperature } : {}),
      ...(body.topP !== undefined ? { topP: body.topP } : {}),
    };
    if (!body.stream) {
      const reply = await served.reply(body.messages, view, sampling);
      sendJson(res, 200, completionObject(meta, reply.content, usageOf(reply.promptTokens, reply.completionTokens)));
      return;
    }
    const sse = new SseWriter(res);
    sse.open();
    sse.send(roleChunk(meta, body.includeUsage));
    try {
      const reply = await served.reply(body.messages, view, sampling);
      for (const chunk of closingChunks(meta, reply.content, body.includeUsage ? usageOf(reply.promptTokens, reply.completionTokens) : undefined)) sse.send(chunk);
      sse.done();
    } catch (error) {
      sse.fail(asApiError(error).toJSON());
    }
  }

  let draining = false;
  let inFlight = 0;
  let drained: (() => void) | undefined;

  async function route(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    // Probes answer without a token, as orchestrators call them (servers/listener/health.ts).
    if (answerHealth(req, res, () => (draining ? { ready: false, reason: 'draining' } : { ready: true, detail: { sessions: served.sessions } }))) return;
    if (!originAllowed(req, options.allowOrigins ?? [])) {
      throw new ApiError(403, 'forbidden_origin', `browser origin ${String(req.headers.origin)} is not allowed (serve-policy --allow-origin)`);
    }
    if (draining) throw new ApiError(503, 'server_closing', 'the server is shutting down');
    if (options.token !== undefined && !tokenMatches(requestToken(req), options.token)) {
      throw new ApiError(401, 'invalid_api_key', 'missing or wrong bearer token: send Authorization: Bearer <token> (the server\'s --token)');
    }
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = (q < 0 ? url : url.slice(0, q)).replace(/\/+$/, '');
    const method = req.method ?? '?';
    if (path === '/v1/chat/completions') {
      if (method !== 'POST') throw new ApiError(405, 'method_not_allowed', `use POST on ${path}, not ${method}`);
      return chatCompletion(req, res);
    }
    if (path === '/v1/models' || path.startsWith('/v1/models/')) {
      if (method !== 'GET') throw new ApiError(405, 'method_not_allowed', `use GET on ${path}, not ${method}`);
      return sendJson(res, 200, path === '/v1/models' ? { object: 'list', data: [model] } : model);
    }
    throw new ApiError(404, 'unknown_url', `no route ${method} ${path || '/'}; routes: GET /v1/models, POST /v1/chat/completions`);
  }

  const server = http.createServer((req, res) => {
    inFlight += 1;
    res.once('close', () => {
      inFlight -= 1;
      if (inFlight === 0) drained?.();
    });
    route(req, res).catch((error: unknown) => {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      sendError(res, asApiError(error));
    });
  });
  server.keepAliveTimeout = options.keepAliveTimeoutMs ?? DEFAULT_KEEP_ALIVE_TIMEOUT_MS;
  // A request must arrive whole within this; a socket that never sends one is closed by it too.
  server.requestTimeout = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  server.headersTimeout = Math.min(server.requestTimeout, server.keepAliveTimeout + 5_000);

  const port = await listen(server, options.port, host);

  let closing: Promise<void> | undefined;
  return {
    port,
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}/v1`,
    modelId,
    served,
    get inFlight() {
      return inFlight;
    },
    close: () =>
      (closing ??= (async () => {
        // Drain: refuse new work (readyz 503), let running completions finish within drainMs.
        draining = true;
        const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        if (inFlight > 0) {
          let timer: NodeJS.Timeout | undefined;
          await Promise.race([
            new Promise<void>((resolve) => (drained = resolve)),
            new Promise<void>((resolve) => (timer = setTimeout(resolve, options.drainMs ?? DEFAULT_DRAIN_MS))),
          ]);
          clearTimeout(timer);
        }
        server.closeAllConnections();
        served.close();
        await stopped;
      })()),
  };
}

function pick<T extends object, K extends keyof T>(from: T, keys: readonly K[]): Partial<Pick<T, K>> {
  const out: Partial<Pick<T, K>> = {};
  for (const key of keys) if (from[key] !== undefined) out[key] = from[key];
  return out;
}
