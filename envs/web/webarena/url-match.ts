/**
 * WebArena's `url_match` ("GOLD in PRED"): both URLs lose trailing slashes; the answer passes when
 * one reference's host and path (`reference_url` may join several with ` |OR| `) is contained in
 * the final page's host and path, and for every query parameter any reference gives, the final
 * URL carries one of the values the references give it. Parameters the references do not name
 * are ignored, as in WebArena.
 */
import type { Check } from './string-match.ts';

interface UrlParts {
  /** Host (with port and user info) and path, as Python's netloc + path. */
  readonly basePath: string;
  readonly query: ReadonlyMap<string, readonly string[]>;
}

const cleanUrl = (url: string): string => url.trim().replace(/\/+$/, '');

/** urlparse + parse_qs: query values decoded, blank ones dropped. */
export function parseUrlParts(url: string): UrlParts {
  const match = /^(?:[a-z][a-z0-9+.-]*:)?(?:\/\/([^/?#]*))?([^?#]*)(?:\?([^#]*))?/i.exec(url)!;
  const query = new Map<string, string[]>();
  for (const [key, value] of new URLSearchParams(match[3] ?? '')) {
    if (value === '') continue;
    query.set(key, [...(query.get(key) ?? []), value]);
  }
  return { basePath: `${match[1] ?? ''}${match[2] ?? ''}`, query };
}

/** Whether `finalUrl` matches `referenceUrl` (one URL or several joined by ` |OR| `). */
export function urlMatchCheck(referenceUrl: string, finalUrl: string): Check {
  const references = referenceUrl.split(' |OR| ').map((url) => parseUrlParts(cleanUrl(url)));
  const predicted = parseUrlParts(cleanUrl(finalUrl));
  const baseOk = references.some((ref) => predicted.basePath.includes(ref.basePath));
  const wanted = new Map<string, Set<string>>();
  for (const ref of references) {
    for (const [key, values] of ref.query) wanted.set(key, new Set([...(wanted.get(key) ?? []), ...values]));
  }
  const missing = [...wanted].filter(([key, values]) => !(predicted.query.get(key) ?? []).some((value) => values.has(value))).map(([key]) => key);
  const passed = baseOk && missing.length === 0;
  const why = passed ? '' : !baseOk ? ' (host and path differ)' : ` (query ${missing.join(', ')} differs)`;
  return { passed, detail: `url_match ${referenceUrl} against ${finalUrl}${why}` };
}
