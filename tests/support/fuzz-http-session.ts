/**
 * Plays one generated fuzz session against the AgentGym HTTP endpoint (issue 24) and judges
 * every response against docs/agentgym-http.md:
 *
 * - every request is answered within a bound with a documented status (never a 5xx but 503),
 *   a JSON body, and in a 200 `{"error"}` only a documented code, never `ENV_INTERNAL`;
 *   malformed HTTP on a raw socket gets a 4xx or a closed connection, never a 5xx or a hang;
 * - a request without the fuzzer's token is refused; nothing succeeds on an instance the fuzzer
 *   does not hold (never made, closed, or another client's: the session's victim, made with
 *   another token, whose observation must be the same at the end); `/step` never succeeds on
 *   an instance never reset.
 *
 * Requests of a batch run concurrently over a few keep-alive sockets; a batch is judged against
 * what the fuzzer held when it started.
 */
import http from 'node:http';
import net from 'node:net';
import fc from 'fast-check';
import { bodyText, HTTP_FLAVORS, httpRequest, rawHttp, type HttpFlavor, type HttpFuzzInput, type HttpFuzzRequest, type HttpRef } from './fuzz-http-requests.ts';

/** A server that has not answered a request within this long is hung: the test fails. */
const REQUEST_DEADLINE_MS = 20_000;
const ON_INSTANCE = new Set(['/reset', '/step', '/close', '/observation']);

/** How a request presents (or fails to present) the fuzzer's token. */
export type Credential = 'bearer' | 'prefix' | 'basic' | 'query' | 'wrong' | 'none';

export interface HttpSession {
  readonly flavor: number;
  readonly batches: readonly (readonly (readonly [HttpFuzzInput, Credential])[])[];
}

export function httpSession(taskCount: number, actions: readonly string[]): fc.Arbitrary<HttpSession> {
  const credential = fc.oneof(
    { arbitrary: fc.constant<Credential>('bearer'), weight: 24 },
    { arbitrary: fc.constantFrom<Credential>('prefix', 'basic', 'query', 'wrong', 'none'), weight: 5 },
  );
  return fc.nat(HTTP_FLAVORS.length - 1).chain((flavor) => {
    const input = fc.oneof(
      { arbitrary: httpRequest(HTTP_FLAVORS[flavor] as HttpFlavor, taskCount, actions), weight: 30 },
      { arbitrary: rawHttp, weight: 1 },
    );
    return fc.record({
      flavor: fc.constant(flavor),
      batches: fc.array(fc.array(fc.tuple(input, credential), { minLength: 1, maxLength: 12 }), { minLength: 1, maxLength: 4 }),
    });
  });
}

export interface HttpTarget {
  /** Base URL of the server speaking `flavor`'s field names. */
  urlFor(flavor: HttpFlavor): string;
  /** The fuzzer's token, and the victim's; `undefined` when the servers have no tokens. */
  readonly tokens: { readonly fuzzer: string; readonly victim: string } | undefined;
  /** HTTP statuses docs/agentgym-http.md documents. */
  readonly statuses: ReadonlySet<number>;
  /** Codes a 200 `{"error"}` may carry, as documented. */
  readonly errorCodes: ReadonlySet<string>;
}

export interface HttpTally {
  requests: number;
  raw: number;
  statuses: Record<string, number>;
  errors: Record<string, number>;
  /** Huge bodies the server cut off by closing the connection (after or instead of its 413). */
  cutOff: number;
  victimsIntact: number;
}

export const emptyHttpTally = (): HttpTally => ({ requests: 0, raw: 0, statuses: {}, errors: {}, cutOff: 0, victimsIntact: 0 });

interface Reply {
  readonly status: number;
  readonly body: unknown;
}

function fail(message: string, context: unknown): never {
  throw new Error(`${message}: ${JSON.stringify(context, (_k, v: unknown) => (typeof v === 'string' && v.length > 300 ? `${v.slice(0, 300)}…` : v))}`);
}

/** What the fuzzer holds on one server. */
class Holdings {
  readonly open = new Set<number>();
  readonly closed = new Set<number>();
  readonly everReset = new Set<number>();
  readonly victims = new Map<number, string>();

  resolve(r: HttpRef): string {
    const pick = (set: Set<number>, n: number) => [...set][n % Math.max(1, set.size)];
    const absent = 2 ** 52 + 17;
    switch (r.kind) {
      case 'own': {
        const id = pick(this.open, r.pick) ?? absent;
        return r.asString ? JSON.stringify(String(id)) : String(id);
      }
      case 'closed':
        return String(pick(this.closed, r.pick) ?? absent);
      case 'recent':
        return String(pick(new Set(this.victims.keys()), r.back) ?? absent);
      case 'absent':
        return String(absent + r.n);
    }
  }
}

function send(url: string, agent: http.Agent, method: string, path: string, headers: http.OutgoingHttpHeaders, body: string | undefined): Promise<Reply | 'cut-off'> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      request.destroy();
      reject(new Error(`no reply to ${method} ${path.slice(0, 100)} within ${REQUEST_DEADLINE_MS} ms`));
    }, REQUEST_DEADLINE_MS);
    // The path goes as generated: a URL string would have `/%2e%2e/create` resolved to `/create` on the way.
    const { hostname, port } = new URL(url);
    const options = { hostname, port, path, method, agent, headers: body === undefined ? headers : { ...headers, 'content-length': Buffer.byteLength(body) } };
    const request = http.request(options, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', () => {});
      response.on('end', () => {
        clearTimeout(timer);
        const text = Buffer.concat(chunks).toString('utf8');
        const status = response.statusCode ?? 0;
        if (method === 'HEAD' || text === '') return resolve({ status, body: undefined });
        if (!(response.headers['content-type'] ?? '').startsWith('application/json')) return resolve({ status, body: text });
        try {
          resolve({ status, body: JSON.parse(text) as unknown });
        } catch {
          reject(new Error(`a ${status} reply whose JSON body does not parse: ${text.slice(0, 200)}`));
        }
      });
    });
    request.on('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      // A body the server refused (413) may still be in flight when it closes the connection.
      if (error.code === 'EPIPE' || error.code === 'ECONNRESET') resolve('cut-off');
      else reject(error);
    });
    request.end(body);
  });
}

/** Writes `bytes`, half-closes, and returns every status line the server sent before closing. */
function sendRaw(url: string, bytes: string | Uint8Array): Promise<number[]> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`raw connection still open ${REQUEST_DEADLINE_MS} ms after its bytes ended`));
    }, REQUEST_DEADLINE_MS);
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(timer);
      const text = Buffer.concat(chunks).toString('latin1');
      resolve([...text.matchAll(/(?:^|\r\n)HTTP\/1\.[01] (\d{3}) /g)].map((m) => Number(m[1])));
    });
    socket.end(bytes);
  });
}

/** The instance id the server reads from a request (an integer or a digit string), if any. */
function namedId(request: HttpFuzzRequest, path: string, text: string | undefined, flavor: HttpFlavor): number | undefined {
  let raw: unknown;
  if (request.method === 'GET') raw = new URLSearchParams(path.slice(path.indexOf('?') + 1)).get(flavor.idField) ?? undefined;
  else {
    try {
      const body: unknown = text === undefined ? undefined : JSON.parse(text);
      raw = typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>)[flavor.idField] : undefined;
    } catch {
      return undefined;
    }
  }
  if (typeof raw === 'number' && Number.isInteger(raw)) return raw;
  if (typeof raw === 'string' && /^-?\d+$/.test(raw)) return Number(raw);
  return undefined;
}

const succeeded = (reply: Reply) => reply.status === 200 && reply.body !== false && !(typeof reply.body === 'object' && reply.body !== null && 'error' in reply.body);

function credentialed(target: HttpTarget, credential: Credential, path: string): { path: string; headers: http.OutgoingHttpHeaders; authorized: boolean } {
  const token = target.tokens?.fuzzer;
  if (token === undefined) return { path, headers: {}, authorized: true };
  switch (credential) {
    case 'bearer':
      return { path, headers: { authorization: `Bearer ${token}` }, authorized: true };
    case 'prefix':
      return { path: `/token/${encodeURIComponent(token)}${path}`, headers: {}, authorized: true };
    case 'basic':
      return { path, headers: { authorization: `Basic ${Buffer.from(`actorgym:${token}`).toString('base64')}` }, authorized: true };
    case 'query':
      return { path: `${path}${path.includes('?') ? '&' : '?'}token=${encodeURIComponent(token)}`, headers: {}, authorized: true };
    case 'wrong':
      return { path, headers: { authorization: `Bearer ${token}x` }, authorized: false };
    case 'none':
      return { path, headers: {}, authorized: false };
  }
}

export async function runHttpSession(target: HttpTarget, session: HttpSession, tally: HttpTally): Promise<void> {
  const flavor = HTTP_FLAVORS[session.flavor] as HttpFlavor;
  const url = target.urlFor(flavor);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
  const holdings = new Holdings();
  try {
    await makeVictim(url, agent, target, flavor, holdings);
    for (const batch of session.batches) {
      const before = { open: new Set(holdings.open), everReset: new Set(holdings.everReset) };
      const resetInBatch = new Set<number>();
      const outcomes = await Promise.all(
        batch.map(async ([input, credential]) => {
          tally.requests++;
          if (input.kind === 'raw') {
            tally.raw++;
            const statuses = await sendRaw(url, input.bytes);
            for (const status of statuses) {
              tally.statuses[status] = (tally.statuses[status] ?? 0) + 1;
              if (status >= 500 && status !== 503 && status !== 505) fail('malformed HTTP was answered with a server error', { status, bytes: String(input.bytes).slice(0, 200) });
            }
            return undefined;
          }
          const text = bodyText(input.body, (r) => holdings.resolve(r));
          const query = input.queryRef === undefined ? '' : holdings.resolve(input.queryRef).replaceAll('"', '');
          const sent = credentialed(target, credential, input.path + query);
          const headers = input.contentType === undefined ? sent.headers : { ...sent.headers, 'content-type': input.contentType };
          const id = namedId(input, input.path + query, text, flavor);
          if (input.route === '/reset' && id !== undefined) resetInBatch.add(id);
          const reply = await send(url, agent, input.method, sent.path, headers, text);
          return { input, reply, id, authorized: sent.authorized };
        }),
      );
      for (const outcome of outcomes) {
        if (outcome === undefined) continue;
        judge(target, flavor, outcome, before, resetInBatch, tally);
        if (outcome.reply !== 'cut-off') record(flavor, holdings, outcome.input, outcome.reply, outcome.id);
      }
    }
    await checkVictim(url, agent, target, flavor, holdings, tally);
  } finally {
    // Close what the fuzzer still holds, so the server ends the run with the honest client's instances only.
    for (const id of holdings.open) await send(url, agent, 'POST', '/close', { ...bearer(target.tokens?.fuzzer), 'content-type': 'application/json' }, JSON.stringify({ [flavor.idField]: id }));
    agent.destroy();
  }
}

const bearer = (token: string | undefined): http.OutgoingHttpHeaders => (token === undefined ? {} : { authorization: `Bearer ${token}` });

function judge(
  target: HttpTarget,
  flavor: HttpFlavor,
  outcome: { input: HttpFuzzRequest; reply: Reply | 'cut-off'; id: number | undefined; authorized: boolean },
  before: { open: Set<number>; everReset: Set<number> },
  resetInBatch: Set<number>,
  tally: HttpTally,
): void {
  const { input, reply, id, authorized } = outcome;
  const request = { method: input.method, path: input.path, route: input.route, id, authorized };
  if (reply === 'cut-off') {
    if (input.body.kind !== 'huge') fail('the server dropped the connection of a request that was not oversize', request);
    tally.cutOff++;
    return;
  }
  tally.statuses[reply.status] = (tally.statuses[reply.status] ?? 0) + 1;
  if (!target.statuses.has(reply.status)) fail('an undocumented HTTP status', { ...request, reply });
  if (reply.status === 200 && typeof reply.body === 'object' && reply.body !== null && 'error' in reply.body) {
    const code = (reply.body as { code?: unknown }).code;
    tally.errors[String(code)] = (tally.errors[String(code)] ?? 0) + 1;
    if (typeof code !== 'string' || !target.errorCodes.has(code)) fail('a 200 error without a documented code', { ...request, reply });
    // BabyAI never throws an unexpected exception: ENV_INTERNAL means the server failed on the request itself.
    if (code === 'ENV_INTERNAL') fail('ENV_INTERNAL', { ...request, reply });
  }
  if (!succeeded(reply)) return;
  if (!authorized && input.route !== '/' && input.route !== '/healthz' && input.route !== '/readyz') fail('a request without the right token succeeded', { ...request, reply });
  const onInstance = ON_INSTANCE.has(input.route) && input.method === (input.route === '/observation' ? 'GET' : 'POST') && input.path.startsWith(input.route);
  if (!onInstance) return;
  if (id === undefined || !before.open.has(id)) fail(`${input.route} succeeded on an instance the fuzzer does not hold`, { ...request, reply });
  if (input.route === '/step' && !before.everReset.has(id) && !resetInBatch.has(id)) fail('/step succeeded before any reset', { ...request, reply });
}

/** Updates what the fuzzer holds from a reply. */
function record(flavor: HttpFlavor, holdings: Holdings, input: HttpFuzzRequest, reply: Reply, id: number | undefined): void {
  if (!succeeded(reply) || input.method !== 'POST' || !input.path.startsWith(input.route)) return;
  if (input.route === '/create') {
    const body = reply.body;
    const created = typeof body === 'number' ? body : typeof body === 'object' && body !== null ? (body as Record<string, unknown>)['id'] : undefined;
    if (typeof created !== 'number') fail('/create succeeded without an id', { reply });
    holdings.open.add(created);
    if (flavor.resetOnCreate) holdings.everReset.add(created);
  } else if (id !== undefined && input.route === '/reset') holdings.everReset.add(id);
  else if (id !== undefined && input.route === '/close') {
    holdings.open.delete(id);
    holdings.closed.add(id);
  }
}

/** Another client's instance (the victim token), reset, for the fuzzer to aim at. */
async function makeVictim(url: string, agent: http.Agent, target: HttpTarget, flavor: HttpFlavor, holdings: Holdings): Promise<void> {
  if (target.tokens === undefined) return;
  const headers = { ...bearer(target.tokens.victim), 'content-type': 'application/json' };
  const created = await send(url, agent, 'POST', '/create', headers, flavor.adapter === 'search' ? JSON.stringify({ id: 0 }) : '{}');
  const body = created === 'cut-off' ? undefined : created.body;
  const id = typeof body === 'number' ? body : typeof body === 'object' && body !== null ? (body as Record<string, unknown>)['id'] : undefined;
  if (typeof id !== 'number') fail('the victim could not create an instance', { created });
  if (!flavor.resetOnCreate) await send(url, agent, 'POST', '/reset', headers, JSON.stringify({ [flavor.idField]: id, [flavor.indexField]: 0 }));
  const observed = await send(url, agent, 'GET', `/observation?${flavor.idField}=${id}`, headers, undefined);
  holdings.victims.set(id, JSON.stringify(observed));
}

async function checkVictim(url: string, agent: http.Agent, target: HttpTarget, flavor: HttpFlavor, holdings: Holdings, tally: HttpTally): Promise<void> {
  if (target.tokens === undefined) return;
  const headers = { ...bearer(target.tokens.victim), 'content-type': 'application/json' };
  for (const [id, observation] of holdings.victims) {
    const now = JSON.stringify(await send(url, agent, 'GET', `/observation?${flavor.idField}=${id}`, headers, undefined));
    if (now !== observation) fail("the fuzzer changed another client's instance", { id, before: observation, after: now });
    const closed = await send(url, agent, 'POST', '/close', headers, JSON.stringify({ [flavor.idField]: id }));
    if (closed === 'cut-off' || closed.body !== true) fail("another client's instance was gone", { id, closed });
    tally.victimsIntact++;
  }
}
