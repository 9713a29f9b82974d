/**
 * Who may call the AgentGym HTTP server, and as whom. AgentGym's Python clients send no header
 * and build every URL as `f"{env_server_base}/{route}"`, so besides `Authorization: Bearer T`
 * the token is also read where an unmodified client can put it:
 *
 * - `Authorization: Basic` with the token as password: what `requests` sends by itself from a
 *   `~/.netrc` (or `$NETRC`) line `machine HOST login actorgym password T`;
 * - a base-URL prefix `/token/T`: `env_server_base = "http://HOST:PORT/token/T"` puts the token in
 *   every route the client builds (`/token/T/create`, `/token/T/observation?id=N`);
 * - the `?token=T` query parameter, for hand-written requests (curl).
 *
 * A caller is its token's hash (the instances it creates belong to it) or, on a server without
 * a token, its remote address, which counts toward a quota but owns nothing.
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage, OutgoingHttpHeaders } from 'node:http';
import { tokenMatches } from '../../transport/wire/auth.ts';
import { originAllowed } from '../../transport/wire/origin.ts';

export interface Caller {
  /** The token's hash: instances made by this caller are its own. Undefined without a token. */
  readonly owner: string | undefined;
  /** What the per-client quota counts: the owner, else the remote address. */
  readonly client: string;
}

export type Admission =
  | { readonly ok: true; readonly caller: Caller; readonly path: string }
  | { readonly ok: false; readonly path: string };

const BEARER = /^Bearer\s+(\S+)\s*$/i;
const BASIC = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i;
const PREFIX = /^\/token\/([^/?]+)(\/.*)?$/;

/** The first 16 hex digits of the token's SHA-256: enough to tell tokens apart, useless to replay. */
export function tokenOwner(token: string): string {
  return createHash('sha256').update(token).digest('hex').slice(0, 16);
}

function presentedToken(request: IncomingMessage, path: string, query: string): string | undefined {
  const header = request.headers.authorization;
  if (header !== undefined) {
    const bearer = BEARER.exec(header);
    if (bearer) return bearer[1];
    const basic = BASIC.exec(header);
    if (!basic) return undefined;
    const decoded = Buffer.from(basic[1] as string, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    return colon < 0 ? undefined : decoded.slice(colon + 1);
  }
  const prefixed = PREFIX.exec(path);
  if (prefixed) {
    try {
      return decodeURIComponent(prefixed[1] as string);
    } catch {
      return undefined;
    }
  }
  return new URLSearchParams(query).get('token') ?? undefined;
}

/**
 * Checks the request's token against `tokens` (any of them admits; none configured admits
 * everyone) and names the caller. `path` comes back without a `/token/T` prefix.
 */
export function admit(request: IncomingMessage, tokens: readonly string[]): Admission {
  const url = request.url ?? '/';
  const q = url.indexOf('?');
  const rawPath = q < 0 ? url : url.slice(0, q);
  const query = q < 0 ? '' : url.slice(q + 1);
  const prefixed = PREFIX.exec(rawPath);
  const path = prefixed ? (prefixed[2] ?? '/') : rawPath;
  if (tokens.length === 0) return { ok: true, caller: { owner: undefined, client: request.socket.remoteAddress ?? 'unknown' }, path };
  const given = presentedToken(request, rawPath, query);
  // Every configured token is compared, so the time taken does not say which one came close.
  let matched: string | undefined;
  for (const token of tokens) if (tokenMatches(given, token) && matched === undefined) matched = token;
  if (matched === undefined) return { ok: false, path };
  const owner = tokenOwner(matched);
  return { ok: true, caller: { owner, client: owner }, path };
}

/**
 * CORS for browser pages: programs send no `Origin` and get no CORS headers; a page's origin
 * must pass `originAllowed` (the `--allow-origin` list, or a loopback page of this server).
 */
export function corsHeaders(request: IncomingMessage, allowOrigins: readonly string[]): OutgoingHttpHeaders | 'forbidden' {
  const origin = request.headers.origin;
  if (origin === undefined) return {};
  if (!originAllowed(request, allowOrigins)) return 'forbidden';
  return { 'access-control-allow-origin': origin, vary: 'Origin' };
}

/** Headers of a preflight reply for an allowed origin. */
export const PREFLIGHT_HEADERS: OutgoingHttpHeaders = {
  'access-control-allow-methods': 'GET, POST',
  'access-control-allow-headers': 'authorization, content-type',
  'access-control-max-age': '600',
};
