/**
 * The site server's isolation (issue 27): each env instance has its own copy of every site's
 * database, so 16 concurrent instances placing orders, reviewing and voting see only their own
 * changes; a reset restores the seeded state exactly; unknown instances get a 400 page; the
 * seeded snapshots are byte-identical across generations.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildForumSnapshot } from '../../../envs/web/sites/forum/snapshot.ts';
import { buildShopSnapshot, shopSnapshot } from '../../../envs/web/sites/shop/snapshot.ts';
import { forumSnapshot } from '../../../envs/web/sites/forum/snapshot.ts';
import { startSiteServer, type SiteServer } from '../../../envs/web/site-server.ts';
import { externalSiteUrls } from '../../../envs/web/site-urls.ts';
import { fetchAs, postAs } from './fetch-as.ts';

let server: SiteServer;

beforeAll(async () => {
  server = await startSiteServer({ env: {} });
});
afterAll(() => server.close());

/** Every table's rows, in rowid order: equal dumps mean equal states. */
function dump(id: string, site: 'shop' | 'forum'): string {
  const db = server.database(id, site);
  const tables = db.all("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name") as { name: string }[];
  return JSON.stringify(tables.map(({ name }) => [name, db.all(`SELECT * FROM ${name} ORDER BY rowid`)]));
}

/** The in-stock product with the least stock: every instance buys all of it, which only works if each has its own copy. */
function scarcest(id: string): { id: number; stock: number } {
  return server.database(id, 'shop').get('SELECT id, stock FROM products WHERE stock > 0 ORDER BY stock, id') as { id: number; stock: number };
}

async function changeEverything(id: string, n: number): Promise<void> {
  const { id: product, stock } = scarcest(id);
  expect((await postAs(server, id, 'shop', '/cart/add', { product_id: String(product), qty: String(stock) })).status).toBe(303);
  const placed = await postAs(server, id, 'shop', '/checkout', { ship_name: `Buyer ${n}`, street: `${n} Main St`, city: 'Austin', region: 'TX', postcode: '73301', shipping_method: 'standard' });
  expect(placed.status).toBe(303);
  expect((await postAs(server, id, 'shop', `/product/${product}/reviews`, { rating: String(1 + (n % 5)), nickname: `r${n}`, title: `Review ${n}`, body: 'Fine.' })).status).toBe(303);
  expect((await postAs(server, id, 'forum', `/f/books/submit`, { title: `Post number ${n}`, body: 'Body.' })).status).toBe(303);
}

describe('site server', () => {
  it('serves both sites on 127.0.0.1 ephemeral ports', () => {
    expect(server.local).toEqual(['shop', 'forum']);
    expect(server.urls.shop).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(server.urls.forum).not.toBe(server.urls.shop);
  });

  it('isolates 16 concurrent instances: each sees only its own order, review and post; a fresh one sees the seed', async () => {
    const ids = Array.from({ length: 16 }, () => server.createInstance());
    const seeded = server.createInstance();
    const seededShop = dump(seeded, 'shop');
    const seededForum = dump(seeded, 'forum');
    const seededOutOfStock = (server.database(seeded, 'shop').get('SELECT count(*) AS n FROM products WHERE stock = 0') as { n: number }).n;
    await Promise.all(ids.map((id, n) => changeEverything(id, n)));
    for (const [n, id] of ids.entries()) {
      const db = server.database(id, 'shop');
      const mine = db.all("SELECT ship_name FROM orders WHERE created_at = '2024-06-01 12:00'") as { ship_name: string }[];
      expect(mine.map((o) => o.ship_name)).toEqual([`Buyer ${n}`]);
      expect(db.all("SELECT title FROM reviews WHERE title LIKE 'Review %'")).toEqual([{ title: `Review ${n}` }]);
      expect(db.get('SELECT count(*) AS n FROM products WHERE stock = 0')).toEqual({ n: seededOutOfStock + 1 });
      const posts = server.database(id, 'forum').all("SELECT title FROM posts WHERE title LIKE 'Post number %'");
      expect(posts).toEqual([{ title: `Post number ${n}` }]);
      const orders = await fetchAs(server, id, 'shop', '/orders');
      expect(orders.html.match(/Buyer \d+/g)).toEqual([`Buyer ${n}`]);
    }
    const fresh = server.createInstance();
    expect(dump(fresh, 'shop')).toBe(seededShop);
    expect(dump(fresh, 'forum')).toBe(seededForum);
    expect(dump(seeded, 'shop')).toBe(seededShop);
    for (const id of [...ids, seeded, fresh]) server.dropInstance(id);
  });

  it('reset restores the seeded state exactly, after orders, reviews, posts, comments and votes', async () => {
    const id = server.createInstance();
    const before = [dump(id, 'shop'), dump(id, 'forum')];
    await changeEverything(id, 1);
    await postAs(server, id, 'forum', '/f/books/1/vote', { direction: 'up' });
    await postAs(server, id, 'shop', '/cart/add', { product_id: '2', qty: '1' });
    expect([dump(id, 'shop'), dump(id, 'forum')]).not.toEqual(before);
    server.resetInstance(id);
    expect([dump(id, 'shop'), dump(id, 'forum')]).toEqual(before);
    expect((await fetchAs(server, id, 'shop', '/cart')).html).toContain('You have no items');
    server.dropInstance(id);
  });

  it('answers a missing, unknown or dropped instance with a 400 page naming the problem', async () => {
    const none = await fetch(`${server.urls.shop}/`);
    expect(none.status).toBe(400);
    expect(await none.text()).toContain('no x-actorgym-instance header');
    expect((await fetchAs(server, 'web-nope', 'forum', '/')).html).toContain('no env instance &#39;web-nope&#39;');
    const id = server.createInstance();
    expect((await fetchAs(server, id, 'forum', '/')).status).toBe(200);
    server.dropInstance(id);
    expect((await fetchAs(server, id, 'forum', '/')).status).toBe(400);
    expect(() => server.database(id, 'shop')).toThrow(/unknown env instance/);
    expect(() => server.resetInstance(id)).toThrow(/unknown env instance/);
  });

  it("gives evaluators read-only queries: a write is refused and the instance's state unchanged", () => {
    const id = server.createInstance();
    const db = server.database(id, 'shop');
    expect(() => db.all('DELETE FROM orders')).toThrow(/read-only/);
    expect(() => db.get("UPDATE products SET price_cents = 1")).toThrow(/read-only/);
    expect((db.get('SELECT count(*) AS n FROM products') as { n: number }).n).toBe(400);
    server.dropInstance(id);
  });

  it('generates byte-identical snapshots, and a different seed gives different content', () => {
    expect(buildShopSnapshot().equals(shopSnapshot())).toBe(true);
    expect(buildForumSnapshot().equals(forumSnapshot())).toBe(true);
    expect(buildShopSnapshot('another seed').equals(shopSnapshot())).toBe(false);
  });

  it('reads external site URLs from ACTORGYM_WEB_SHOP_URL / ACTORGYM_WEB_FORUM_URL and serves only the rest', async () => {
    expect(externalSiteUrls({ ACTORGYM_WEB_SHOP_URL: 'http://shop.test:7770/' })).toEqual({ shop: 'http://shop.test:7770' });
    expect(() => externalSiteUrls({ ACTORGYM_WEB_FORUM_URL: 'ftp://x' })).toThrow(/ACTORGYM_WEB_FORUM_URL must be an http\(s\) URL/);
    expect(() => externalSiteUrls({ ACTORGYM_WEB_FORUM_URL: 'not a url' })).toThrow(/ACTORGYM_WEB_FORUM_URL/);
    const mixed = await startSiteServer({ env: { ACTORGYM_WEB_SHOP_URL: 'http://shop.test:7770' } });
    try {
      expect(mixed.urls.shop).toBe('http://shop.test:7770');
      expect(mixed.local).toEqual(['forum']);
      const id = mixed.createInstance();
      expect(() => mixed.database(id, 'shop')).toThrow(/external/);
      expect((await fetchAs(mixed, id, 'forum', '/')).status).toBe(200);
    } finally {
      await mixed.close();
    }
  });
});
