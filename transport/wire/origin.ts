/**
 * Browser Origin and Host checks for every server a command opens. A page on any site can open a
 * WebSocket or send a form to a server on the user's machine; a DNS-rebinding page can even make
 * its requests look same-origin. Programs send no `Origin` and pass; a browser page passes only
 * when its origin is on the allow-list (`--allow-origin`, repeatable; `*` allows any) or is a
 * loopback page of this same server (same host name and port as the request's `Host`).
 */
import type { IncomingMessage } from 'node:http';

const LOOPBACK_NAMES = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\]|::1)$/i;

/** `host[:port]` split, IPv6 brackets kept (`[::1]:8100` → `[::1]`, `8100`). */
function splitHost(value: string): { name: string; port: string } {
  const match = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(value.trim());
  return match ? { name: (match[1] as string).toLowerCase(), port: match[2] ?? '' } : { name: value.toLowerCase(), port: '' };
}

export function isLoopbackName(name: string): boolean {
  return LOOPBACK_NAMES.test(name);
}

/** True when a bind address reaches only this machine. */
export function isLoopbackHost(host: string): boolean {
  return isLoopbackName(host);
}

export function originAllowed(request: IncomingMessage, allow: readonly string[] = []): boolean {
  const origin = request.headers.origin;
  if (origin === undefined) return true;
  if (allow.includes('*') || allow.includes(origin)) return true;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  const host = request.headers.host;
  if (host === undefined) return false;
  const own = splitHost(host);
  const page = splitHost(url.host);
  return isLoopbackName(page.name) && isLoopbackName(own.name) && page.port === own.port;
}

/**
 * DNS-rebinding guard for HTTP servers that browsers use (the dashboard): the `Host` header must
 * name this machine by a loopback name, or be one of `allowedHosts` (the names a server bound
 * beyond loopback is reached by).
 */
export function hostAllowed(request: IncomingMessage, allowedHosts: readonly string[] = []): boolean {
  const host = request.headers.host;
  if (host === undefined) return false;
  const { name } = splitHost(host);
  return isLoopbackName(name) || allowedHosts.some((allowed) => splitHost(allowed).name === name);
}
