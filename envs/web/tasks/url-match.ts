/**
 * WebArena's URL evaluator: the page an episode ends on, compared by path and the query
 * parameters that matter, ignoring the host (so a task works on any base URL) and any other
 * parameters (`page`, `done`). Values compare case- and whitespace-insensitively, so
 * `/search?q=Dog+Bed` matches an expected `dog bed`.
 */
import type { UrlEvaluator, WebVerdict } from './task.ts';

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

export function matchUrl(spec: UrlEvaluator, finalUrl: string): WebVerdict {
  let url: URL;
  try {
    url = new URL(finalUrl, 'http://site.invalid');
  } catch {
    return { reward: 0, reason: `url_match: the final URL '${finalUrl}' is not a URL` };
  }
  const path = normalizePath(url.pathname);
  if (path !== normalizePath(spec.path)) return { reward: 0, reason: `url_match: expected path ${spec.path}, ended on ${path}` };
  for (const [key, expected] of Object.entries(spec.query ?? {})) {
    const got = url.searchParams.get(key);
    if (got === null || normalizeValue(got) !== normalizeValue(expected)) {
      return { reward: 0, reason: `url_match: expected ${key}=${expected} on ${path}, got ${got === null ? 'none' : `${key}=${got}`}` };
    }
  }
  return { reward: 1, reason: `url_match: ended on ${spec.path}${spec.query ? ` with ${JSON.stringify(spec.query)}` : ''}` };
}
