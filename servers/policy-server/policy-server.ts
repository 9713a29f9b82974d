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
 * family's prompt template, envs/<family>/prompt.ts): the server reads it back into the observation
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
 * decode queue full (`Retry-After: 1`), the server draining, or a new connection past
 * `maxConnections` (`TOO_MANY_CONNECTIONS`, the connection closed). `GET /healthz` and `/readyz`
 * answer without a token (readyz 503 while draining); on close, running completions get
 * `drainMs` to finish.
 *
 * `startPolicyServer` composes the served policy (./served-policy.ts), the completion route
 * (./chat-completion.ts) and the request gate (./policy-routes.ts); `PolicyHttpServer` is the
 * handle that drains and closes them. `listenPolicy` is that gate and handle for any completion
 * route: a Hugging Face model's server (./hf/hf-policy-server.ts) is built on it.
 */
import http from 'node:http';
import { promptFor } from '../../envs/prompt/prompt-for.ts';
import { HttpConnectionBudget, httpBudgetOf, type HttpConnectionLimits } from '../listener/http-connection-budget.ts';
import { listen } from '../listener/listen.ts';
import type { OpsLog } from '../listener/ops-log.ts';
import { ChatCompletion } from './chat-completion.ts';
import { PolicyRoutes, type CompletionRoute, type HealthDetail } from './policy-routes.ts';
import { ServedPolicy, type ServedPolicyOptions } from './served-policy.ts';
import type { ServedPrompt } from './served-prompt.ts';
import type { CheckpointAgent } from '../../learner/checkpoint/checkpoint-agent.ts';

import { DEFAULT_DRAIN_MS, DEFAULT_KEEP_ALIVE_TIMEOUT_MS, DEFAULT_MAX_BODY_BYTES, DEFAULT_REQUEST_TIMEOUT_MS } from './limits.ts';

export { DEFAULT_DRAIN_MS, DEFAULT_KEEP_ALIVE_TIMEOUT_MS, DEFAULT_MAX_BODY_BYTES, DEFAULT_REQUEST_TIMEOUT_MS };

/**
 * How the server listens and who may call: shared by the checkpoint's and a Hugging Face model's server (./hf/).
 * The connection budget (`maxConnections`, `maxPendingConnections`, `maxPendingPerAddress`,
 * `handshakeTimeoutMs`) is the env server's (../listener/http-connection-budget.ts): a socket is
 * pending until a request on it passes the token check.
 */
export interface PolicyListenOptions extends HttpConnectionLimits {
  /** 0 picks a free port. */
  readonly port: number;
  /** Default 127.0.0.1. */
  readonly host?: string;
  /** Require `Authorization: Bearer <token>` on every route. */
  readonly token?: string;
  /** Browser origins allowed besides the server's own loopback pages (`*` = any); programs send none. */
  readonly allowOrigins?: readonly string[];
  /** One JSON line per refused request (`createOpsLog`, which redacts tokens); default none. */
  readonly log?: OpsLog;
  /** On close, running requests get this long to finish before their sockets are closed. Default 10 s. */
  readonly drainMs?: number;
  /** Whole-request and header deadline for receiving a request (ms). Default 30 s. */
  readonly requestTimeoutMs?: number;
  /** Largest request body (bytes); a bigger one is a 413. Default 4 MiB. */
  readonly maxBodyBytes?: number;
  /** How long an idle keep-alive socket stays open (ms). Default 60 s. */
  readonly keepAliveTimeoutMs?: number;
  /** Milliseconds (default Date.now): `created` stamps and session idleness. */
  readonly now?: () => number;
}

/** Options of `startPolicyServer`; the session and batching limits are `ServedPolicy`'s (./served-policy.ts). */
export interface PolicyServerOptions extends PolicyListenOptions, Pick<ServedPolicyOptions, 'maxSessions' | 'sessionIdleMs' | 'maxBatch' | 'maxQueue' | 'randomSeed'> {
  /** The checkpoint (`loadCheckpointAgent`); its policy is served with its filter and hidden actions. */
  readonly agent: Pick<CheckpointAgent, 'policy' | 'config' | 'step'>;
  /** The env family's prompt template (default `promptFor(agent.config.env)`, as the LLM policy renders it). */
  readonly prompt?: ServedPrompt;
  /** Default `actorgym-<env>-step<N>`. */
  readonly modelId?: string;
}

/** A running policy server (`startPolicyServer`, or `startHfPolicyServer` with `S` = HfServedModel). */
export interface PolicyServer<S = ServedPolicy> {
  /** The port it listens on (the one the OS picked for `port: 0`). */
  readonly port: number;
  /** The OpenAI base URL, `http://host:port/v1`. */
  readonly url: string;
  /** The model every reply names (`options.modelId`, default `actorgym-<env>-step<N>`). */
  readonly modelId: string;
  /** What answers the completions: the checkpoint's sessions and counts (resumed / rebuilt requests), or the HF model's batch counts. */
  readonly served: S;
  /** HTTP requests received and not yet answered. */
  readonly inFlight: number;
  /** Stops accepting, lets running requests finish within `drainMs`, then drops connections and frees every session. Idempotent. */
  close(): Promise<void>;
}

/**
 * Starts an OpenAI-compatible chat endpoint (`GET /v1/models`, `POST /v1/chat/completions`,
 * streaming included) for a trained checkpoint, so any OpenAI client — or actorgym's own LLM
 * policy — can drive the agent. Resolves once listening; `url` is the base URL to give a client.
 *
 * @example
 * const server = await startPolicyServer({ port: 8000, agent: await loadCheckpointAgent('runs/grpo/checkpoint') });
 * const llm = createLlmPolicy({ baseURL: server.url, model: server.modelId, env: 'babyai' });
 */
export async function startPolicyServer(options: PolicyServerOptions): Promise<PolicyServer> {
  const { agent } = options;
  const now = options.now ?? Date.now;
  const modelId = options.modelId ?? `actorgym-${agent.config.env}-step${agent.step}`;
  const served = createServedPolicy(options, now);
  const completion = new ChatCompletion({ served, modelId, maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES, now });
  return listenPolicy(options, { served, completion, modelId, detail: () => ({ sessions: served.sessions }) });
}

/** What a policy server serves: the completion route, its model id, health figures, and what `close` frees. */
export interface PolicyServing<S extends { close(): void }> {
  readonly served: S;
  readonly completion: CompletionRoute;
  /** `POST /v1/completions`, when the served model takes a prompt of its own (a Hugging Face model). */
  readonly textCompletion?: CompletionRoute;
  readonly modelId: string;
  readonly detail: HealthDetail;
}

/** Puts `serving` behind the request gate (./policy-routes.ts) on a listening HTTP server. */
export async function listenPolicy<S extends { close(): void }>(options: PolicyListenOptions, serving: PolicyServing<S>): Promise<PolicyServer<S>> {
  const host = options.host ?? '127.0.0.1';
  const now = options.now ?? Date.now;
  const { served, completion, modelId, detail, textCompletion } = serving;
  const model = { id: modelId, object: 'model', created: Math.floor(now() / 1000), owned_by: 'actorgym' };
  const server = createHttpServer(options);
  const budget = new HttpConnectionBudget(server, httpBudgetOf(options, () => {}));
  const routes = new PolicyRoutes({ ...options, budget }, detail, completion, model, textCompletion);
  server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => routes.handle(req, res));
  const port = await listen(server, options.port, host).catch((error: unknown) => {
    budget.close();
    throw error;
  });
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}/v1`;
  return new PolicyHttpServer({ server, budget, routes, served, port, url, modelId, drainMs: options.drainMs ?? DEFAULT_DRAIN_MS });
}

function createServedPolicy(options: PolicyServerOptions, now: () => number): ServedPolicy {
  const { agent } = options;
  return new ServedPolicy({
    policy: agent.policy.inner,
    view: { filter: agent.policy.filter, hide: agent.policy.options.hide ?? [] },
    prompt: options.prompt ?? promptFor(agent.config.env),
    envId: agent.config.env,
    now,
    ...pick(options, ['maxSessions', 'sessionIdleMs', 'maxBatch', 'maxQueue', 'randomSeed']),
  });
}

function createHttpServer(options: PolicyListenOptions): http.Server {
  const server = http.createServer();
  server.keepAliveTimeout = options.keepAliveTimeoutMs ?? DEFAULT_KEEP_ALIVE_TIMEOUT_MS;
  // A request must arrive whole within this; a socket that never sends one is closed by it too.
  server.requestTimeout = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  server.headersTimeout = Math.min(server.requestTimeout, server.keepAliveTimeout + 5_000);
  return server;
}

interface PolicyHttpServerParts<S extends { close(): void }> {
  readonly server: http.Server;
  readonly budget: HttpConnectionBudget;
  readonly routes: PolicyRoutes;
  readonly served: S;
  readonly port: number;
  readonly url: string;
  readonly modelId: string;
  readonly drainMs: number;
}

class PolicyHttpServer<S extends { close(): void }> implements PolicyServer<S> {
  readonly port: number;
  readonly url: string;
  readonly modelId: string;
  readonly served: S;
  #closing: Promise<void> | undefined;

  constructor(private readonly parts: PolicyHttpServerParts<S>) {
    ({ port: this.port, url: this.url, modelId: this.modelId, served: this.served } = parts);
  }

  get inFlight(): number {
    return this.parts.routes.inFlight.count;
  }

  close(): Promise<void> {
    this.#closing ??= this.drain();
    return this.#closing;
  }

  /** Refuses new work (readyz 503), lets running completions finish within `drainMs`, then drops every connection. */
  private async drain(): Promise<void> {
    const { server, budget, routes, served, drainMs } = this.parts;
    routes.startDraining();
    const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    await routes.inFlight.settled(drainMs);
    budget.destroyAll();
    served.close();
    await stopped;
  }
}

function pick<T extends object, K extends keyof T>(from: T, keys: readonly K[]): Partial<Pick<T, K>> {
  const out: Partial<Pick<T, K>> = {};
  for (const key of keys) if (from[key] !== undefined) out[key] = from[key];
  return out;
}
