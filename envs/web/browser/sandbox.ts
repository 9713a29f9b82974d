/**
 * The web sandbox's rule: a session's browser may open `about:blank` and http(s) URLs of its
 * allowed origins (the task's sites), nothing else — no other port on this machine (an env
 * server's HTTP API is one), no other host, no file:, data:, chrome:, javascript: or blob: URL.
 * The same rule is applied twice: to `goto` before navigating (sandbox-proxy.ts cannot see
 * non-http schemes) and to every request the browser sends (sandbox-proxy.ts).
 */

/** Longest URL echoed back in a message: a data: URL can be megabytes. */
const SHOWN_URL_CHARS = 160;

/** The origins (`scheme://host:port`) of these base URLs, deduplicated; throws on a non-http(s) one. */
export function allowedOriginsOf(urls: readonly string[]): readonly string[] {
  const origins = new Set<string>();
  for (const text of urls) {
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      throw new Error(`allowedOrigins: '${text}' is not a URL`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`allowedOrigins: '${text}' is not an http(s) URL`);
    origins.add(url.origin);
  }
  return [...origins];
}

/** The URL as shown to the agent: cut, so a huge data: URL does not flood the observation. */
export function shownUrl(url: string): string {
  return url.length > SHOWN_URL_CHARS ? `${url.slice(0, SHOWN_URL_CHARS)}…` : url;
}

/** The message the agent reads when a URL is refused. */
export function blockedMessage(url: string, allowed: readonly string[]): string {
  return `blocked: ${shownUrl(url)} is outside this task's sites (allowed: ${allowed.join(', ')})`;
}

/** Whether the browser may load `url` (about:blank, or http(s) on an allowed origin). */
export function isAllowedUrl(url: string, allowed: readonly string[]): boolean {
  if (url === 'about:blank') return true;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  return (parsed.protocol === 'http:' || parsed.protocol === 'https:') && allowed.includes(parsed.origin);
}

/**
 * What `goto [text]` opens: the URL (a URL without a scheme gets `http://`), or the message for
 * the agent when it is not a URL or is outside the allowed origins.
 */
export function gotoTarget(text: string, allowed: readonly string[]): string | { readonly error: string } {
  const hasScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(text) || /^(about|data|javascript|blob|file|chrome|view-source|filesystem|mailto):/i.test(text);
  let url: URL;
  try {
    url = new URL(hasScheme ? text : `http://${text}`);
  } catch {
    return { error: `'${shownUrl(text)}' is not a URL.` };
  }
  return isAllowedUrl(url.href, allowed) ? url.href : { error: blockedMessage(url.href, allowed) };
}

/** `host:port` of an origin, with the scheme's default port filled in (CONNECT names a tunnel so). */
export function hostPort(origin: string): string {
  const url = new URL(origin);
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  return `${url.hostname}:${port}`;
}
