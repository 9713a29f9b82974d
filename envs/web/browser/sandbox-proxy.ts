/**
 * One session's HTTP proxy, the network half of the web sandbox (sandbox.ts holds the rule).
 * Every request of the session's browser context goes through it, loopback included
 * (`<-loopback>`), so it sees what Playwright's request routing does not: the hops of a redirect
 * (a route handler is never called for them, so a site's redirect to 127.0.0.1:Q would read Q),
 * requests of iframes and workers, and WebSocket tunnels. A request outside the allowed origins
 * gets a 403 page saying so. An allowed one is forwarded with the session's instance header set
 * by us, overwriting any a page sent, so a page cannot reach another instance's copy of a site by
 * naming its id.
 */
import { createServer, request as httpRequest, Agent, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { blockedMessage, hostPort } from './sandbox.ts';

export interface SandboxProxyOptions {
  /** Origins the browser may reach, as `scheme://host:port`. */
  readonly allowedOrigins: readonly string[];
  /** A header set on every forwarded http request (the site instance header). */
  readonly header?: { readonly name: string; readonly value: string };
  /**
   * Called with each refused URL (`https://host:port` for a refused tunnel). Chromium's own
   * background requests (autofill, safe browsing) are refused here too, so this is not what the
   * agent is told: the session reads refusals from its pages' responses.
   */
  readonly onBlocked?: (url: string) => void;
}

export interface SandboxProxy {
  /** `http://127.0.0.1:port`, for the browser context's proxy setting. */
  readonly url: string;
  close(): Promise<void>;
}

/** Marks the proxy's 403 page, so the session tells a refused page request from a site's own 403. */
export const BLOCKED_HEADER = 'x-actorgym-blocked';

/** Upstream errors come back to the page as 502 with this header naming the error code. */
export const UNREACHABLE_HEADER = 'x-actorgym-unreachable';

// Hop-by-hop headers (RFC 9110 §7.6.1) and the proxy's own: never forwarded.
const HOP_HEADERS = new Set(['connection', 'keep-alive', 'proxy-connection', 'proxy-authorization', 'proxy-authenticate', 'te', 'trailer', 'transfer-encoding', 'upgrade']);

interface ProxyState {
  readonly options: SandboxProxyOptions;
  /** `host:port` of each allowed origin: the tunnels CONNECT may open. */
  readonly tunnels: ReadonlySet<string>;
  readonly agent: Agent;
}

function forwardable(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined && !HOP_HEADERS.has(name)) out[name] = value;
  return out;
}

const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function refuse(res: ServerResponse, message: string): void {
  const body = `<!doctype html><html><head><title>Blocked</title></head><body><h1>Blocked</h1><p>${escapeHtml(message)}</p></body></html>`;
  res.writeHead(403, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', 'content-length': Buffer.byteLength(body), [BLOCKED_HEADER]: '1' });
  res.end(body);
}

/** A plain http request (absolute URL): forwarded to an allowed origin, else the 403 page. */
function forward(state: ProxyState, req: IncomingMessage, res: ServerResponse): void {
  const allowed = state.options.allowedOrigins;
  let url: URL;
  try {
    url = new URL(req.url ?? '');
  } catch {
    res.writeHead(400).end('this proxy takes absolute URLs only');
    return;
  }
  if (url.protocol !== 'http:' || !allowed.includes(url.origin)) {
    state.options.onBlocked?.(url.href);
    refuse(res, blockedMessage(url.href, allowed));
    return;
  }
  const headers = forwardable(req.headers);
  if (state.options.header) headers[state.options.header.name] = state.options.header.value;
  const upstream = httpRequest(url, { method: req.method, headers, agent: state.agent }, (response) => {
    res.writeHead(response.statusCode ?? 502, response.statusMessage, forwardable(response.headers));
    response.pipe(res);
  });
  upstream.on('error', (error: NodeJS.ErrnoException) => {
    if (res.headersSent) return void res.destroy();
    res.writeHead(502, { 'content-type': 'text/plain; charset=utf-8', [UNREACHABLE_HEADER]: error.code ?? 'ERROR' });
    res.end(`Could not reach ${url.origin}: ${error.code ?? error.message}`);
  });
  req.pipe(upstream);
}

/** CONNECT carries https and WebSocket traffic: a tunnel only to an allowed origin's host and port. */
function tunnel(state: ProxyState, req: IncomingMessage, client: Duplex, head: Buffer): void {
  const target = req.url ?? '';
  if (!state.tunnels.has(target)) {
    state.options.onBlocked?.(`https://${target}`);
    client.end('HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\n\r\n');
    return;
  }
  const separator = target.lastIndexOf(':');
  const upstream: Socket = connect(Number(target.slice(separator + 1)), target.slice(0, separator).replace(/^\[|\]$/g, ''), () => {
    client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    if (head.length) upstream.write(head);
    upstream.pipe(client);
    client.pipe(upstream);
  });
  const drop = (): void => {
    upstream.destroy();
    client.destroy();
  };
  for (const end of [upstream, client]) {
    end.on('error', drop);
    end.on('close', drop);
  }
}

/** Starts the proxy on an ephemeral port of 127.0.0.1. */
export async function startSandboxProxy(options: SandboxProxyOptions): Promise<SandboxProxy> {
  const state: ProxyState = { options, tunnels: new Set(options.allowedOrigins.map(hostPort)), agent: new Agent({ keepAlive: true }) };
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => forward(state, req, res));
  server.on('connect', (req: IncomingMessage, client: Duplex, head: Buffer) => tunnel(state, req, client, head));
  // An absolute-form Upgrade (ws:// without CONNECT) is not what Chromium sends through a proxy; refuse it.
  server.on('upgrade', (req: IncomingMessage, client: Duplex) => {
    options.onBlocked?.(req.url ?? '');
    client.end('HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\n\r\n');
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.on('clientError', (_error, socket) => socket.destroy());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  server.unref();
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    async close() {
      state.agent.destroy();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
