/**
 * The web env's site server: one per process, one HTTP listener per bundled site (the shop and
 * the forum, on ephemeral ports of 127.0.0.1 by default), and per env instance its own copy of
 * each site's database, chosen by the `x-actorgym-instance` request header. So concurrent
 * episodes can place orders, post and vote without seeing each other's changes.
 *
 * A site whose URL variable is set (ACTORGYM_WEB_SHOP_URL, ACTORGYM_WEB_FORUM_URL) is not served
 * here: `urls` points at that server and its state cannot be read.
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { serve } from '@hono/node-server';
import type { Hono } from 'hono';
import { createForumApp } from './sites/forum/app.ts';
import { forumSnapshot } from './sites/forum/snapshot.ts';
import { createShopApp } from './sites/shop/app.ts';
import { shopSnapshot } from './sites/shop/snapshot.ts';
import type { SiteEnv } from './sites/site-env.ts';
import { loadSqlite } from './sites/sqlite.ts';
import { SiteInstances, type SiteQuery } from './site-instances.ts';
import { externalSiteUrls, SITE_NAMES, type SiteName } from './site-urls.ts';

export { INSTANCE_HEADER } from './sites/site-app.ts';
export type { SiteQuery } from './site-instances.ts';
export type { SiteName } from './site-urls.ts';

export interface SiteServerOptions {
  /** Interface to listen on (default 127.0.0.1). */
  readonly host?: string;
  /** Ports per site (default 0: an ephemeral port). */
  readonly ports?: Readonly<Partial<Record<SiteName, number>>>;
  /** Environment read for the external-site variables (default process.env). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Let the process exit while the listeners are open (the shared server of the env does). */
  readonly unref?: boolean;
}

export interface SiteServer {
  /** Base URL of each site, without a trailing slash. */
  readonly urls: Readonly<Record<SiteName, string>>;
  /** The sites served here (the others are external). */
  readonly local: readonly SiteName[];
  /** A new env instance with the seeded state of every site; returns its id for the request header. */
  createInstance(): string;
  /** Restores the instance's seeded state (its next request sees a fresh copy). */
  resetInstance(id: string): void;
  /** Frees the instance's databases; its requests get the 400 page from then on. */
  dropInstance(id: string): void;
  /** Read-only queries on an instance's database of a local site, for evaluators. */
  database(id: string, site: SiteName): SiteQuery;
  close(): Promise<void>;
}

function listen(app: Hono<SiteEnv>, host: string, port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = serve({ fetch: app.fetch, hostname: host, port }, () => resolve(server as Server)) as Server;
    server.once('error', reject);
  });
}

export async function startSiteServer(options: SiteServerOptions = {}): Promise<SiteServer> {
  const host = options.host ?? '127.0.0.1';
  const external = externalSiteUrls(options.env ?? process.env);
  const local = SITE_NAMES.filter((site) => !external[site]);
  if (local.length > 0) loadSqlite(); // fail here, with the install hint, rather than on the first request
  const instances = new SiteInstances({
    ...(local.includes('shop') ? { shop: shopSnapshot() } : {}),
    ...(local.includes('forum') ? { forum: forumSnapshot() } : {}),
  });
  const apps: Record<SiteName, () => Hono<SiteEnv>> = {
    shop: () => createShopApp((id) => instances.lookup(id, 'shop')),
    forum: () => createForumApp((id) => instances.lookup(id, 'forum')),
  };
  const servers: Server[] = [];
  const urls: Partial<Record<SiteName, string>> = { ...external };
  try {
    for (const site of local) {
      const server = await listen(apps[site](), host, options.ports?.[site] ?? 0);
      servers.push(server);
      if (options.unref) server.unref();
      const { port } = server.address() as AddressInfo;
      urls[site] = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
    }
  } catch (error) {
    for (const server of servers) server.close();
    throw error;
  }
  return {
    urls: urls as Record<SiteName, string>,
    local,
    createInstance: () => instances.create(),
    resetInstance: (id) => instances.reset(id),
    dropInstance: (id) => instances.drop(id),
    database: (id, site) => instances.query(id, site),
    async close() {
      await Promise.all(servers.map((server) => new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      })));
      instances.closeAll();
    },
  };
}
