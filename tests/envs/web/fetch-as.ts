/** Test helpers: requests to a site server as one env instance, without following redirects. */
import { INSTANCE_HEADER, type SiteName, type SiteServer } from '../../../envs/web/site-server.ts';

export interface Page {
  readonly status: number;
  readonly location: string | null;
  readonly html: string;
}

export async function fetchAs(server: SiteServer, id: string, site: SiteName, path: string, init: RequestInit = {}): Promise<Page> {
  const headers = new Headers(init.headers);
  headers.set(INSTANCE_HEADER, id);
  const response = await fetch(`${server.urls[site]}${path}`, { ...init, headers, redirect: 'manual' });
  return { status: response.status, location: response.headers.get('location'), html: await response.text() };
}

/** POSTs a form as a browser would (urlencoded). */
export function postAs(server: SiteServer, id: string, site: SiteName, path: string, form: Record<string, string>): Promise<Page> {
  return fetchAs(server, id, site, path, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form).toString() });
}

/** The text of the page's <title>. */
export function titleOf(html: string): string {
  return /<title>([^<]*)<\/title>/.exec(html)?.[1] ?? '';
}

/** Every href on the page, in order. */
export function linksOf(html: string): string[] {
  return [...html.matchAll(/href="([^"]*)"/g)].map((m) => (m[1] ?? '').replaceAll('&amp;', '&'));
}
