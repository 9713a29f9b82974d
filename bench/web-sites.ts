/**
 * The web env's sites without a browser: snapshot size and build time, the cost of an instance's
 * database copy (what a reset pays on the next request), memory per instance with 32 instances
 * that have each rendered a page of both sites, and page latency over HTTP.
 *
 *   node --expose-gc --import tsx bench/web-sites.ts [instances=32] [copies=200]
 */
import { pathToFileURL } from 'node:url';
import { buildForumSnapshot, forumSnapshot } from '../envs/web/sites/forum/snapshot.ts';
import { buildShopSnapshot, shopSnapshot } from '../envs/web/sites/shop/snapshot.ts';
import { openCopy } from '../envs/web/sites/snapshot.ts';
import { INSTANCE_HEADER, startSiteServer, type SiteName, type SiteServer } from '../envs/web/site-server.ts';
import { median } from './stats.ts';

const MB = 1024 * 1024;

function timeMs(run: () => void): number {
  const start = performance.now();
  run();
  return performance.now() - start;
}

function settle(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  for (let i = 0; i < 3; i++) gc?.();
}

async function get(server: SiteServer, id: string, site: SiteName, path: string): Promise<number> {
  const start = performance.now();
  const response = await fetch(`${server.urls[site]}${path}`, { headers: { [INSTANCE_HEADER]: id } });
  await response.text();
  if (response.status !== 200) throw new Error(`${site} ${path}: HTTP ${response.status}`);
  return performance.now() - start;
}

export async function runWebSitesBench(instances = 32, copies = 200): Promise<void> {
  const rows: [string, string][] = [];
  for (const [site, build, cached] of [['shop', buildShopSnapshot, shopSnapshot], ['forum', buildForumSnapshot, forumSnapshot]] as const) {
    const buildMs = median([0, 1, 2].map(() => timeMs(() => build())));
    const snapshot = cached();
    const copyMs = median(Array.from({ length: copies }, () => timeMs(() => openCopy(snapshot).close())));
    rows.push([`${site}: snapshot size`, `${(snapshot.length / 1024).toFixed(0)} KiB`]);
    rows.push([`${site}: build snapshot (median of 3)`, `${buildMs.toFixed(1)} ms`]);
    rows.push([`${site}: open an instance copy (median of ${copies})`, `${copyMs.toFixed(3)} ms`]);
  }

  const server = await startSiteServer({ env: {} });
  try {
    // Warm both sites once so the RSS delta counts instances, not first-request code paths.
    const warm = server.createInstance();
    await get(server, warm, 'shop', '/product/1');
    await get(server, warm, 'forum', '/user/curious_otter');
    settle();
    const before = process.memoryUsage().rss;
    const ids = Array.from({ length: instances }, () => server.createInstance());
    for (const id of ids) {
      await get(server, id, 'shop', '/category/books');
      await get(server, id, 'forum', '/f/books');
    }
    settle();
    const perInstance = (process.memoryUsage().rss - before) / instances;
    rows.push([`memory per instance (RSS delta / ${instances}, both sites open)`, `${(perInstance / MB).toFixed(2)} MB`]);
    // One request at a time, so the number is a page's cost, not queueing.
    const latency = async (site: SiteName, path: string) => {
      const times: number[] = [];
      for (const id of ids) times.push(await get(server, id, site, path));
      return median(times).toFixed(2);
    };
    const busiest = server.database(warm, 'forum').get('SELECT f.name, p.id FROM posts p JOIN forums f ON f.id = p.forum_id ORDER BY (SELECT count(*) FROM comments c WHERE c.post_id = p.id) DESC, p.id') as { name: string; id: number };
    const pages: [SiteName, string][] = [['shop', '/product/9'], ['shop', '/search?q=black'], ['forum', '/f/books'], ['forum', `/f/${busiest.name}/${busiest.id}`]];
    for (const [site, path] of pages) {
      rows.push([`GET ${path} (${site}), median of ${instances}, sequential`, `${await latency(site, path)} ms`]);
    }
    const resetMs = median(ids.map((id) => timeMs(() => server.resetInstance(id))));
    rows.push(['resetInstance (drop the copies), median', `${resetMs.toFixed(3)} ms`]);
  } finally {
    await server.close();
  }
  const width = Math.max(...rows.map(([k]) => k.length));
  for (const [key, value] of rows) console.log(`${key.padEnd(width)}  ${value}`);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await runWebSitesBench(Number(process.argv[2] ?? 32), Number(process.argv[3] ?? 200));
}
