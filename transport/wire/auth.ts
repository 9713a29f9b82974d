/**
 * Bearer-token authentication of a WebSocket upgrade request. The token comes from
 * `Authorization: Bearer <token>` or, for browsers (whose WebSocket API cannot set headers),
 * from the `token` query parameter of the URL.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

const BEARER = /^Bearer\s+(\S+)\s*$/i;

export function requestToken(request: IncomingMessage): string | undefined {
  const header = request.headers.authorization;
  if (header !== undefined) return BEARER.exec(header)?.[1];
  const url = request.url ?? '';
  const query = url.indexOf('?');
  if (query < 0) return undefined;
  return new URLSearchParams(url.slice(query + 1)).get('token') ?? undefined;
}

/** Constant-time comparison; hashing first makes the lengths equal, as `timingSafeEqual` needs. */
export function tokenMatches(given: string | undefined, expected: string): boolean {
  if (given === undefined) return false;
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

/** `Authorization` header value for clients; undefined when there is no token. */
export function authHeaders(token: string | undefined): Record<string, string> {
  return token === undefined ? {} : { Authorization: `Bearer ${token}` };
}
