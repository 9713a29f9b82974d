/**
 * WebArena's URL evaluator, stricter: the page an episode ends on is compared by path and by
 * every query parameter that changes what the page shows. The host is ignored (a task works on
 * any base URL). Each expected parameter must be present with its value; any other parameter
 * must be one that changes nothing (`done`, the message after a form), at its default
 * (`page=1`), or one the task lets vary (`ignoreQuery`) — so `?page=3` of a listing is not the
 * listing. Values compare case- and whitespace-insensitively: `/search?q=Dog+Bed` is `dog bed`.
 */
import type { UrlEvaluator, WebVerdict } from './task.ts';

/** Parameters the sites read for a message only: they never change what a page lists. */
const INERT_PARAMETERS: readonly string[] = ['done'];
/** Parameters at these values are the same page as without them. */
const DEFAULTS: Readonly<Record<string, string>> = { page: '1' };

function normalizePath(path: string): string {
  let decoded = path;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    // A malformed escape stays as typed; it will not match a well-formed expected path.
  }
  return decoded.length > 1 ? decoded.replace(/\/+$/, '') : decoded;
}

const normalizeValue = (value: string) => value.toLowerCase().replace(/\s+/g, ' ').trim();

/** Why the URL's parameters are not the page the spec asks for, or undefined when they are. */
function queryMismatch(spec: UrlEvaluator, params: URLSearchParams, path: string): string | undefined {
  const expected = spec.query ?? {};
  for (const [key, value] of Object.entries(expected)) {
    const got = params.getAll(key);
    if (got.length !== 1 || normalizeValue(got[0] as string) !== normalizeValue(value)) {
      return `url_match: expected ${key}=${value} on ${path}, got ${got.length === 0 ? 'none' : got.map((g) => `${key}=${g}`).join('&')}`;
    }
  }
  for (const [key, value] of params) {
    if (key in expected || INERT_PARAMETERS.includes(key) || spec.ignoreQuery?.includes(key)) continue;
    if (DEFAULTS[key] !== undefined && normalizeValue(value) === DEFAULTS[key]) continue;
    return `url_match: expected ${path}${Object.keys(expected).length > 0 ? ` with ${JSON.stringify(expected)}` : ''}, but ${key}=${value} shows another page`;
  }
  return undefined;
}

export function matchUrl(spec: UrlEvaluator, finalUrl: string): WebVerdict {
  let url: URL;
  try {
    url = new URL(finalUrl, 'http://site.invalid');
  } catch {
    return { reward: 0, reason: `url_match: the final URL '${finalUrl}' is not a URL` };
  }
  const path = normalizePath(url.pathname);
  if (path !== normalizePath(spec.path)) return { reward: 0, reason: `url_match: expected path ${spec.path}, ended on ${path}` };
  const mismatch = queryMismatch(spec, url.searchParams, path);
  if (mismatch) return { reward: 0, reason: mismatch };
  return { reward: 1, reason: `url_match: ended on ${spec.path}${spec.query ? ` with ${JSON.stringify(spec.query)}` : ''}` };
}
