/**
 * Who may read the dashboard. Three checks, in this order, on every request and `/live` upgrade:
 *
 * 1. `Host` (DNS rebinding): a page of `evil.example`, whose name was re-pointed at 127.0.0.1,
 *    sends `Host: evil.example:8787` and is refused. Loopback names always pass, and so do this
 *    machine's own names (its host name, its FQDN when resolvable, its interface addresses:
 *    ./machine-names.ts), wherever the dashboard is bound; beyond loopback also its bind address;
 *    and `allowedHosts` (`--allow-host`).
 * 2. `Origin`: a browser page of another site is refused; programs send none and pass.
 * 3. The token, when one is set (the CLI sets it when bound beyond loopback): `Authorization:
 *    Bearer T`, a Basic password (the browser's own prompt), `?token=T` once (answered with a
 *    cookie and, for a page, a redirect that drops the token from the address bar), then the
 *    cookie, which the page's fetches and its `/live` WebSocket carry by themselves.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { hostAllowed, isLoopbackHost, originAllowed } from '../../transport/wire/origin.ts';
import { bracket, localNames } from './machine-names.ts';

export type AccessDecision =
  | { readonly ok: true; readonly setCookie?: string; readonly redirect?: string }
  | { readonly ok: false; readonly status: 401 | 403; readonly code: 'FORBIDDEN_HOST' | 'FORBIDDEN_ORIGIN' | 'UNAUTHORIZED'; readonly message: string };

export interface AccessOptions {
  /** The address the server is bound to. */
  readonly host: string;
  readonly token?: string;
  /** Extra `Host` names the dashboard answers to (beyond loopback: a DNS name, a tunnel). */
  readonly allowedHosts?: readonly string[];
  /** This machine's names (`machineNames()`, with the FQDN); default `localNames()`. */
  readonly machineNames?: readonly string[];
}

const BEARER = /^Bearer\s+(\S+)\s*$/i;
const BASIC = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i;
const WILDCARDS = new Set(['0.0.0.0', '::', '[::]']);

const digest = (value: string) => createHash('sha256').update(value).digest();

/** The names a server bound to `host` is reached by, besides loopback ones: this machine's, and beyond loopback its bind address. */
export function defaultAllowedHosts(host: string, machineNames: readonly string[] = localNames()): string[] {
  const bound = isLoopbackHost(host) || WILDCARDS.has(host) ? [] : [bracket(host)];
  return [...bound, ...machineNames];
}

export class DashboardAccess {
  readonly #allowedHosts: readonly string[];
  readonly #token: Buffer | undefined;

  constructor(options: AccessOptions) {
    this.#allowedHosts = [...defaultAllowedHosts(options.host, options.machineNames), ...(options.allowedHosts ?? [])];
    this.#token = options.token === undefined ? undefined : digest(options.token);
  }

  check(request: IncomingMessage): AccessDecision {
    if (!hostAllowed(request, this.#allowedHosts)) {
      return { ok: false, status: 403, code: 'FORBIDDEN_HOST', message: `this dashboard does not answer to Host ${JSON.stringify(request.headers.host ?? '')} (dashboard --allow-host)` };
    }
    if (!this.#sameSite(request)) {
      return { ok: false, status: 403, code: 'FORBIDDEN_ORIGIN', message: `pages of ${request.headers.origin ?? ''} may not read this dashboard` };
    }
    if (this.#token === undefined) return { ok: true };
    const url = new URL(request.url ?? '/', 'http://dashboard');
    // Cookies ignore ports: one name per port keeps two dashboards of one machine apart.
    const cookieName = `actorgym_dashboard_${request.socket.localPort ?? 0}`;
    const given = this.#presented(request, url, cookieName);
    if (given === undefined || !timingSafeEqual(given.hash, this.#token)) {
      return { ok: false, status: 401, code: 'UNAUTHORIZED', message: 'this dashboard needs its token: open it once as /?token=T, or send Authorization: Bearer T' };
    }
    if (given.from === 'cookie') return { ok: true };
    const setCookie = `${cookieName}=${this.#token.toString('hex')}; HttpOnly; SameSite=Strict; Path=/`;
    if (given.from !== 'query' || url.pathname.startsWith('/api/') || url.pathname === '/live') return { ok: true, setCookie };
    url.searchParams.delete('token');
    return { ok: true, setCookie, redirect: `${url.pathname}${url.search}` };
  }

  /** No Origin (a program), a loopback page of this server, or a page of the very host it asked for. */
  #sameSite(request: IncomingMessage): boolean {
    const origin = request.headers.origin;
    if (origin === undefined || originAllowed(request, [])) return true;
    try {
      return new URL(origin).host.toLowerCase() === (request.headers.host ?? '').toLowerCase();
    } catch {
      return false;
    }
  }

  #presented(request: IncomingMessage, url: URL, cookieName: string): { hash: Buffer; from: 'header' | 'query' | 'cookie' } | undefined {
    const header = request.headers.authorization;
    if (header !== undefined) {
      const bearer = BEARER.exec(header)?.[1];
      if (bearer !== undefined) return { hash: digest(bearer), from: 'header' };
      const basic = BASIC.exec(header)?.[1];
      const decoded = basic === undefined ? '' : Buffer.from(basic, 'base64').toString('utf8');
      return decoded.includes(':') ? { hash: digest(decoded.slice(decoded.indexOf(':') + 1)), from: 'header' } : undefined;
    }
    const query = url.searchParams.get('token');
    if (query !== null) return { hash: digest(query), from: 'query' };
    const cookie = cookieValue(request.headers.cookie, cookieName);
    if (cookie !== undefined && /^[0-9a-f]{64}$/.test(cookie)) return { hash: Buffer.from(cookie, 'hex'), from: 'cookie' };
    return undefined;
  }
}

function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}
