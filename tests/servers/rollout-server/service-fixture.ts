/**
 * Test fixtures of the rollout service: the service with the real runner (the rollout system and
 * the token-exact LLM policy) against the scripted completions server, a delaying proxy in front
 * of it (so a batch is still running when a test cuts it), and a reader of the NDJSON stream.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadHfTokenizer } from '../../../policy/hf/tokenizer/index.ts';
import { startTokenBatch, type TokenBatchOptions } from '../../../actors/rollout-service/token-batch.ts';
import { startRolloutServer, type RolloutServer, type RolloutServerOptions } from '../../../servers/rollout-server/rollout-server.ts';
import { startScriptedServer, type ScriptedServer } from '../../policy/llm/scripted-completions-server.ts';

export const TOKENIZER_DIR = 'tests/fixtures/hf/serve-tiny';
export const tokenizer = loadHfTokenizer(TOKENIZER_DIR);
const REPLIES = ['Thought: go\nAction: turn left', 'Thought: on\nAction: go forward', 'Thought: hm\nAction: turn right'];

/** The scripted server answering BabyAI moves in turn. */
export function startBabyAiScripted(): Promise<ScriptedServer> {
  return startScriptedServer({ tokenizer, reply: (_, n) => REPLIES[n % REPLIES.length]! });
}

export function startService(options: Partial<RolloutServerOptions> & { batch?: TokenBatchOptions } = {}): Promise<RolloutServer> {
  const { batch, ...server } = options;
  return startRolloutServer({ port: 0, runner: (spec, sink) => startTokenBatch(spec, sink, { llmRetries: 0, ...batch }), ...server });
}

export function policyOf(baseUrl: string): { baseUrl: string; model: string; tokenizer: string } {
  return { baseUrl, model: 'scripted', tokenizer: `hf:${TOKENIZER_DIR}` };
}

export interface Reply {
  readonly status: number;
  readonly headers: Headers;
  readonly lines: Record<string, unknown>[];
  readonly body: string;
}

/** POSTs a batch and reads the whole answer, line by line. */
export async function postBatch(url: string, body: unknown, token?: string): Promise<Reply> {
  const res = await fetch(`${url}/v1/rollouts`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token !== undefined ? { authorization: `Bearer ${token}` } : {}) },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  const lines = res.headers.get('content-type')?.includes('ndjson') ? text.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>) : [];
  return { status: res.status, headers: res.headers, lines, body: text };
}

/** A proxy that holds every request `delayMs` before passing it on; counts its open sockets. */
export interface DelayProxy {
  readonly baseURL: string;
  /** TCP connections open now (the batch's LLM client's sockets). */
  connections(): Promise<number>;
  close(): Promise<void>;
}

export async function startDelayProxy(target: string, delayMs: number): Promise<DelayProxy> {
  const upstream = new URL(target);
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      setTimeout(() => {
        if (res.destroyed) return;
        const forward = http.request({ host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: req.headers }, (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        });
        forward.on('error', () => res.destroy());
        forward.end(Buffer.concat(chunks));
      }, delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}${upstream.pathname}`,
    connections: () => new Promise((resolve, reject) => server.getConnections((error, n) => (error ? reject(error) : resolve(n)))),
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
