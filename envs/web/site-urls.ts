/**
 * Where the sites are. By default the env serves its own shop and forum; an environment variable
 * points a site at an external server instead (as WebArena's SHOPPING / REDDIT variables do), for
 * driving real WebArena sites with the same observation and action layer.
 */

export type SiteName = 'shop' | 'forum';
export const SITE_NAMES: readonly SiteName[] = ['shop', 'forum'];

/** The environment variable that points each site at an external server. */
export const SITE_URL_VARIABLES: Readonly<Record<SiteName, string>> = {
  shop: 'ACTORGYM_WEB_SHOP_URL',
  forum: 'ACTORGYM_WEB_FORUM_URL',
};

/** Checks an external base URL (http or https, no query or fragment) and drops a trailing slash. */
export function parseSiteUrl(site: SiteName, text: string, source: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new Error(`${source} must be an http(s) URL for the ${site} site, got '${text}'`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`${source} must be an http(s) URL for the ${site} site, got '${text}'`);
  if (url.search || url.hash) throw new Error(`${source} must be a base URL without query or fragment, got '${text}'`);
  return url.href.replace(/\/$/, '');
}

/** The external base URLs set in `env` (usually process.env), by site; sites without one are served here. */
export function externalSiteUrls(env: Readonly<Record<string, string | undefined>>): Partial<Record<SiteName, string>> {
  const urls: Partial<Record<SiteName, string>> = {};
  for (const site of SITE_NAMES) {
    const value = env[SITE_URL_VARIABLES[site]]?.trim();
    if (value) urls[site] = parseSiteUrl(site, value, SITE_URL_VARIABLES[site]);
  }
  return urls;
}
