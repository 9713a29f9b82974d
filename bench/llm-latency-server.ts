/**
 * A stand-in for a loaded LLM endpoint, for `bench llm-rollout`: an OpenAI-compatible
 * `POST /v1/chat/completions` on 127.0.0.1 that answers after a long-tailed delay, and counts the
 * requests in flight over time.
 *
 * - Delay: lognormal with median `p50Ms` and σ = ln(10) / 2.326 by default, so p99 ≈ 10 × p50
 *   (a busy vLLM's tail: long generations, preemptions, queueing behind other tenants).
 * - Reply: `Thought: …\nAction: <action>`, the action picked from the `Available actions: [...]`
 *   list of the last user message (BabyAI prints one in every observation): with probability
 *   `goalBias` one of the `go to` / `pickup` actions, else any listed action, so episodes end at
 *   every length up to the horizon, as a model's do.
 * - Determinism: each call's delay and action are drawn from a generator seeded by the call itself
 *   (the server's seed, the request's `seed` field, the number of messages and the last user
 *   message). The same call gets the same delay and the same reply whatever order calls arrive
 *   in, so two rollout schemes that play the same tasks play the same episodes, with the same
 *   latencies; only how they overlap the calls differs.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Rng } from '../envs/rng.ts';

/** σ of a lognormal whose p99 is 10 × its median: ln(10) over the standard normal's 99th percentile. */
export const TAIL_SIGMA = Math.log(10) / 2.3263478740408408;

export interface LatencyServerOptions {
  /** Median delay of a reply, ms. */
  readonly p50Ms: number;
  /** Lognormal σ; default TAIL_SIGMA (p99 ≈ 10 × p50). */
  readonly sigma?: number;
  /** Probability that a reply picks a `go to` / `pickup` action when one is listed; default 0.5. */
  readonly goalBias?: number;
  readonly seed?: number;
}

/** What the server saw between two `window()` calls. */
export interface LatencyWindow {
  readonly requests: number;
  readonly seconds: number;
  /** Time-average of requests in flight (arrived, not yet answered). */
  readonly meanInFlight: number;
  readonly maxInFlight: number;
  /** Delays drawn for the window's requests, ms, in arrival order. */
  readonly drawnMs: readonly number[];
  /** Measured time from a request's arrival to its reply being handed to the socket, ms. */
  readonly servedMs: readonly number[];
}

export interface LatencyServer {
  /** `http://127.0.0.1:PORT/v1` */
  readonly baseURL: string;
  /** Closes the current measurement window, returns it, and opens the next one. */
  window(): LatencyWindow;
  close(): Promise<void>;
}

interface ChatBody {
  readonly model?: unknown;
  readonly seed?: unknown;
  readonly messages?: unknown;
}

export function startLatencyServer(options: LatencyServerOptions): Promise<LatencyServer> {
  const sigma = options.sigma ?? TAIL_SIGMA;
  const goalBias = options.goalBias ?? 0.5;
  const seed = options.seed ?? 0;
  let inFlight = 0;
  let maxInFlight = 0;
  let area = 0;
  let lastChange = performance.now();
  let windowStart = lastChange;
  let requests = 0;
  let drawnMs: number[] = [];
  let servedMs: number[] = [];
  let nextId = 0;

  const move = (delta: number) => {
    const now = performance.now();
    area += inFlight * (now - lastChange);
    lastChange = now;
    inFlight += delta;
    maxInFlight = Math.max(maxInFlight, inFlight);
  };

  const answer = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };

  const handle = (req: IncomingMessage, res: ServerResponse, arrived: number) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (text += chunk));
    req.on('end', () => {
      let body: ChatBody;
      try {
        body = JSON.parse(text) as ChatBody;
      } catch {
        return answer(res, 400, { error: { message: 'the body is not JSON', type: 'invalid_request_error' } });
      }
      const messages = Array.isArray(body.messages) ? (body.messages as Array<{ role?: unknown; content?: unknown }>) : [];
      const lastUser = [...messages].reverse().find((m) => m.role === 'user');
      const prompt = typeof lastUser?.content === 'string' ? lastUser.content : '';
      const rng = Rng.fromString(`${seed}|${String(body.seed)}|${messages.length}|${prompt}`);
      const delay = options.p50Ms * Math.exp(sigma * standardNormal(rng));
      const action = pickAction(prompt, rng, goalBias);
      const content = `Thought: the next step toward the goal is to ${action}.\nAction: ${action}`;
      const promptChars = messages.reduce((sum, m) => sum + (typeof m.content === 'string' ? m.content.length : 0), 0);
      drawnMs.push(delay);
      setTimeout(() => {
        const completionTokens = Math.ceil(content.length / 4);
        const promptTokens = Math.ceil(promptChars / 4);
        answer(res, 200, {
          id: `chatcmpl-${nextId++}`,
          object: 'chat.completion',
          created: Math.floor(Date.now() / 1000),
          model: typeof body.model === 'string' ? body.model : 'latency-server',
          choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop', logprobs: null }],
          usage: { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens },
        });
        servedMs.push(performance.now() - arrived);
      }, delay);
    });
  };

  const server = createServer((req, res) => {
    const arrived = performance.now();
    requests += 1;
    move(1);
    // 'close' fires once whether the reply was sent or the client went away.
    res.once('close', () => move(-1));
    if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
      req.resume();
      return answer(res, 404, { error: { message: `no route ${req.method} ${req.url}`, type: 'invalid_request_error' } });
    }
    handle(req, res, arrived);
  });

  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        baseURL: `http://127.0.0.1:${port}/v1`,
        window: () => {
          move(0);
          const seconds = (lastChange - windowStart) / 1000;
          const result: LatencyWindow = {
            requests,
            seconds,
            meanInFlight: seconds > 0 ? area / (seconds * 1000) : 0,
            maxInFlight,
            drawnMs,
            servedMs,
          };
          windowStart = lastChange;
          area = 0;
          requests = 0;
          maxInFlight = inFlight;
          drawnMs = [];
          servedMs = [];
          return result;
        },
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}

/** Box–Muller; 1 − u keeps the logarithm's argument in (0, 1]. */
function standardNormal(rng: Rng): number {
  const u = 1 - rng.next();
  const v = rng.next();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

/** The listed actions of the last `Available actions: [...]` in a prompt. */
export function availableActions(prompt: string): string[] {
  const at = prompt.lastIndexOf('Available actions:');
  if (at < 0) return [];
  const list = /\[([^\]]*)\]/.exec(prompt.slice(at));
  if (!list) return [];
  return [...(list[1] as string).matchAll(/"([^"]*)"/g)].map((m) => m[1] as string);
}

function pickAction(prompt: string, rng: Rng, goalBias: number): string {
  const all = availableActions(prompt).filter((a) => a !== 'check available actions');
  if (all.length === 0) return 'check available actions';
  const toward = all.filter((a) => a.startsWith('go to') || a.startsWith('pickup'));
  const pool = rng.next() < goalBias && toward.length > 0 ? toward : all;
  return pool[rng.int(pool.length)] as string;
}
