/**
 * Where the user's WebArena sites are: each site's base URL comes from an environment variable
 * (`ACTORGYM_WEB_SHOPPING_URL`, …), and a config's placeholders (`__SHOPPING__`, …) are replaced
 * by it, as WebArena's generate_test_data.py does with its own variables. The same URLs are the
 * browser's allow-list: an episode may reach only the origins of its task's sites.
 */
import { EnvError } from '../../contract.ts';
import { WEBARENA_SITES, type WebArenaSite } from './config-schema.ts';

/** The placeholder of each site in WebArena's raw configs. */
export const SITE_PLACEHOLDERS: Readonly<Record<WebArenaSite, string>> = {
  shopping: '__SHOPPING__',
  shopping_admin: '__SHOPPING_ADMIN__',
  reddit: '__REDDIT__',
  gitlab: '__GITLAB__',
  wikipedia: '__WIKIPEDIA__',
  map: '__MAP__',
  homepage: '__HOMEPAGE__',
};

/** The ports WebArena's docker images listen on, for the examples in error messages. */
const WEBARENA_PORTS: Readonly<Record<WebArenaSite, number>> = {
  shopping: 7770, shopping_admin: 7780, reddit: 9999, gitlab: 8023, wikipedia: 8888, map: 3000, homepage: 4399,
};

/** `ACTORGYM_WEB_SHOPPING_URL`, `ACTORGYM_WEB_SHOPPING_ADMIN_URL`, … */
export const siteUrlVariable = (site: WebArenaSite): string => `ACTORGYM_WEB_${site.toUpperCase()}_URL`;

const PLACEHOLDER = /__(SHOPPING_ADMIN|SHOPPING|REDDIT|GITLAB|WIKIPEDIA|MAP|HOMEPAGE)__/g;

/** The sites whose placeholders appear anywhere in `value` (a parsed config). */
export function placeholderSites(value: unknown, into = new Set<WebArenaSite>()): Set<WebArenaSite> {
  if (typeof value === 'string') {
    for (const match of value.matchAll(PLACEHOLDER)) into.add(match[1]!.toLowerCase() as WebArenaSite);
  } else if (Array.isArray(value)) {
    for (const item of value) placeholderSites(item, into);
  } else if (value !== null && typeof value === 'object') {
    for (const item of Object.values(value)) placeholderSites(item, into);
  }
  return into;
}

/** `value` with every placeholder replaced by its site's URL (every string, at any depth). */
export function replacePlaceholders<T>(value: T, urls: Readonly<Partial<Record<WebArenaSite, string>>>): T {
  if (typeof value === 'string') {
    return value.replace(PLACEHOLDER, (whole, name: string) => urls[name.toLowerCase() as WebArenaSite] ?? whole) as T;
  }
  if (Array.isArray(value)) return value.map((item) => replacePlaceholders(item, urls)) as T;
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, replacePlaceholders(item, urls)])) as T;
  }
  return value;
}

/**
 * The base URL of every site in `needed` from `env`, without a trailing slash. A missing or
 * malformed variable is an error naming it and the tasks that need it (`neededBy`).
 */
export function readSiteUrls(
  needed: ReadonlyMap<WebArenaSite, readonly string[]>,
  env: Readonly<Record<string, string | undefined>>,
): Partial<Record<WebArenaSite, string>> {
  const urls: Partial<Record<WebArenaSite, string>> = {};
  const problems: string[] = [];
  for (const site of WEBARENA_SITES) {
    const tasks = needed.get(site);
    if (!tasks) continue;
    const name = siteUrlVariable(site);
    const raw = env[name]?.trim();
    const example = `task${tasks.length > 1 ? 's' : ''} ${tasks.slice(0, 3).join(', ')}${tasks.length > 3 ? ', …' : ''}`;
    if (!raw) {
      problems.push(`${name} is not set: ${tasks.length} task(s) need the ${site} site (${example}); set it to the base URL of your ${site} server, e.g. http://localhost:${WEBARENA_PORTS[site]}`);
      continue;
    }
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      problems.push(`${name}=${raw} is not a URL (${example} need it)`);
      continue;
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      problems.push(`${name}=${raw} must be an http:// or https:// URL`);
      continue;
    }
    if (url.search || url.hash || url.username) {
      problems.push(`${name}=${raw} must be a base URL without query, fragment or credentials`);
      continue;
    }
    // As the browser writes it (lower-case host, no default port), so url_match compares like with like.
    urls[site] = `${url.origin}${url.pathname}`.replace(/\/+$/, '');
  }
  if (problems.length > 0) throw new EnvError('ENV_INTERNAL', `webarena: ${problems.join('; ')}`);
  return urls;
}

/** The origins (`http://host:port`) of `sites`' URLs: what the browser of a task may reach. */
export function originsOf(sites: Iterable<WebArenaSite>, urls: Readonly<Partial<Record<WebArenaSite, string>>>): string[] {
  const origins = new Set<string>();
  for (const site of sites) {
    const url = urls[site];
    if (url) origins.add(new URL(url).origin);
  }
  return [...origins].sort();
}

/** Where more origins for every task's allow-list come from: backends a site's pages call (the map's tile server). */
export const EXTRA_ORIGINS_VARIABLE = 'ACTORGYM_WEBARENA_EXTRA_ORIGINS';

/** The origins of `ACTORGYM_WEBARENA_EXTRA_ORIGINS` (comma-separated URLs); a malformed one is an error naming the variable. */
export function readExtraOrigins(env: Readonly<Record<string, string | undefined>>): string[] {
  const raw = env[EXTRA_ORIGINS_VARIABLE]?.trim();
  if (!raw) return [];
  return raw.split(',').map((text) => text.trim()).filter((text) => text !== '').map((text) => {
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      throw new EnvError('ENV_INTERNAL', `webarena: ${EXTRA_ORIGINS_VARIABLE}: '${text}' is not a URL (give comma-separated http(s) URLs)`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new EnvError('ENV_INTERNAL', `webarena: ${EXTRA_ORIGINS_VARIABLE}: '${text}' must be an http:// or https:// URL`);
    return url.origin;
  });
}
