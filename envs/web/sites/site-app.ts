/**
 * Builds one site's hono app: the instance middleware (the `x-actorgym-instance` header picks
 * the database a request reads and writes; a missing or unknown one is a 400 page), the site's
 * routes, and plain 404 and 500 pages.
 */
import { Hono } from 'hono';
import { html } from 'hono/html';
import { layout } from './html.ts';
import type { SiteEnv } from './site-env.ts';
import type { Database } from './sqlite.ts';

export const INSTANCE_HEADER = 'x-actorgym-instance';

export type SiteName = 'shop' | 'forum';

export interface SiteAppOptions {
  readonly site: SiteName;
  /** The site's display name for the error pages. */
  readonly title: string;
  /** The database of an instance id, or undefined when the id is unknown. */
  readonly lookup: (instance: string) => Database | undefined;
  readonly routes: readonly ((app: Hono<SiteEnv>) => void)[];
}

function errorPage(site: string, title: string, message: string) {
  return layout({ title, site, nav: [], body: html`<p>${message}</p>` });
}

export function createSiteApp(options: SiteAppOptions): Hono<SiteEnv> {
  const app = new Hono<SiteEnv>();
  app.use(async (c, next) => {
    const id = c.req.header(INSTANCE_HEADER);
    const db = id === undefined ? undefined : options.lookup(id);
    if (!db) {
      const message = id === undefined
        ? `This ${options.site} site serves env instances only: the request has no ${INSTANCE_HEADER} header.`
        : `This ${options.site} site has no env instance '${id}' (it was dropped, or never created).`;
      return c.html(errorPage(options.title, 'Unknown env instance', message), 400);
    }
    c.set('db', db);
    await next();
  });
  for (const register of options.routes) register(app);
  app.notFound((c) => c.html(errorPage(options.title, 'Page not found', `There is no page at ${c.req.path}.`), 404));
  app.onError((error, c) => c.html(errorPage(options.title, 'Server error', `The ${options.site} site failed on this request: ${error.message}`), 500));
  return app;
}
