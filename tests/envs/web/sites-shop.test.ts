/**
 * The shop's pages over HTTP, as a browser without JavaScript sees them: links resolve, listings
 * paginate and sort, forms validate and redirect after POST, user text is escaped.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSiteServer, type SiteServer } from '../../../envs/web/site-server.ts';
import { fetchAs, linksOf, postAs, titleOf } from './fetch-as.ts';

let server: SiteServer;
let id: string;
const get = (path: string) => fetchAs(server, id, 'shop', path);
const post = (path: string, form: Record<string, string>) => postAs(server, id, 'shop', path, form);

beforeAll(async () => {
  server = await startSiteServer({ env: {} });
  id = server.createInstance();
});
afterAll(() => server.close());

describe('shop pages', () => {
  it('links every category from the home page, and each category page and product link resolves', async () => {
    const home = await get('/');
    expect(home.status).toBe(200);
    expect(titleOf(home.html)).toBe('Home | Corner Market');
    const categories = linksOf(home.html).filter((l) => l.startsWith('/category/'));
    expect(categories).toHaveLength(10);
    for (const link of categories.slice(0, 3)) {
      const page = await get(link);
      expect(page.status).toBe(200);
      const product = linksOf(page.html).find((l) => l.startsWith('/product/'));
      expect(product).toBeDefined();
      expect((await get(product as string)).status).toBe(200);
    }
    for (const link of ['/cart', '/orders', '/account', '/checkout']) expect((await get(link)).status, link).toBe(200);
  });

  it('paginates a category 20 to a page and sorts by price both ways', async () => {
    const first = await get('/category/books?sort=price_asc');
    expect(first.html).toContain('Items 1–20 of 40');
    expect(first.html).toContain('Page 1 of 2');
    const second = await get(linksOf(first.html).find((l) => l.includes('page=2')) as string);
    expect(second.html).toContain('Items 21–40 of 40');
    const prices = (html: string) => [...html.matchAll(/— \$(\d+\.\d\d) —/g)].map((m) => Number(m[1]));
    const ascending = [...prices(first.html), ...prices(second.html)];
    expect(ascending).toHaveLength(40);
    expect(ascending).toEqual([...ascending].sort((a, b) => a - b));
    const descending = prices((await get('/category/books?sort=price_desc')).html);
    expect(descending[0]).toBe(ascending[39]);
  });

  it('searches names by every word, keeps the query in the pager, and says when nothing matches', async () => {
    const page = await get('/search?q=speaker');
    const names = [...page.html.matchAll(/<a href="\/product\/\d+">([^<]+)<\/a>/g)].map((m) => m[1] ?? '');
    expect(names.length).toBeGreaterThan(0);
    for (const name of names) expect(name.toLowerCase()).toContain('speaker');
    const wide = await get('/search?q=black&sort=name');
    expect(wide.html).toContain('Page 1 of 3');
    const next = linksOf(wide.html).find((l) => l.includes('page=2'));
    expect(next).toBe('/search?q=black&sort=name&page=2');
    expect((await get(next as string)).html).toContain('Items 21–40 of 48');
    expect((await get('/search?q=zzzz')).html).toContain('No products found.');
  });

  it('unknown products and pages are 404 pages with a way home', async () => {
    for (const path of ['/product/99999', '/product/abc', '/category/nope', '/nowhere', '/orders/000999999']) {
      const page = await get(path);
      expect(page.status, path).toBe(404);
      expect(page.html).toContain('href="/"');
    }
  });

  it('adds to the cart with quantity validation, updates and removes lines', async () => {
    for (const qty of ['0', '-1', '2.5', 'x', '100']) {
      const bad = await post('/cart/add', { product_id: '3', qty });
      expect(bad.status, qty).toBe(422);
      expect(bad.html).toContain('role="alert"');
      expect(bad.html).toContain('Enter a whole quantity from 1 to 99.');
    }
    const added = await post('/cart/add', { product_id: '3', qty: '2' });
    expect([added.status, added.location]).toEqual([303, '/cart?done=added']);
    const cart = await get('/cart?done=added');
    expect(cart.html).toContain('The product was added to your cart.');
    expect(cart.html).toMatch(/id="qty-3" name="qty" type="number" min="0" max="99" value="2"/);
    expect((await post('/cart/update', { product_id: '3', qty: '5' })).location).toBe('/cart?done=updated');
    expect((await get('/cart')).html).toContain('value="5"');
    expect((await post('/cart/update', { product_id: '3', qty: 'many' })).status).toBe(422);
    expect((await post('/cart/remove', { product_id: '3' })).location).toBe('/cart?done=removed');
    expect((await get('/cart')).html).toContain('You have no items in your shopping cart.');
    expect((await post('/cart/remove', { product_id: '3' })).status).toBe(422);
  });

  it('refuses more than the stock, and out-of-stock products', async () => {
    const out = server.database(id, 'shop').get('SELECT id FROM products WHERE stock = 0 ORDER BY id') as { id: number };
    const page = await post('/cart/add', { product_id: String(out.id), qty: '1' });
    expect(page.status).toBe(422);
    expect(page.html).toContain('This product is out of stock.');
    const few = server.database(id, 'shop').get('SELECT id, stock FROM products WHERE stock BETWEEN 1 AND 50 ORDER BY id') as { id: number; stock: number };
    expect((await post('/cart/add', { product_id: String(few.id), qty: String(few.stock + 1) })).html).toContain(`Only ${few.stock} left in stock.`);
  });

  it('checks out: validation errors keep the typed values, success shows the order number and empties the cart', async () => {
    expect((await get('/checkout')).html).toContain('Your cart is empty');
    await post('/cart/add', { product_id: '7', qty: '1' });
    await post('/cart/add', { product_id: '12', qty: '3' });
    const form = await get('/checkout');
    expect(form.html).toContain('value="Emma Lopez"');
    expect(form.html).toContain('<label for="postcode">ZIP code</label>');
    const bad = await post('/checkout', { ship_name: '', street: '1 Main St', city: 'Denver', region: 'Colorado', postcode: '80A', shipping_method: 'teleport' });
    expect(bad.status).toBe(422);
    for (const message of ['Full name is required.', 'State must be two letters', 'ZIP code must be 5 digits.', 'Choose a shipping method.']) expect(bad.html).toContain(message);
    expect(bad.html).toContain('value="1 Main St"');
    const placed = await post('/checkout', { ship_name: 'Emma Lopez', street: '1 Main St', city: 'Denver', region: 'co', postcode: '80202', shipping_method: 'express' });
    expect(placed.status).toBe(303);
    const number = /^\/orders\/(\d{9})\?done=placed$/.exec(placed.location ?? '')?.[1];
    expect(number).toBeDefined();
    const confirmation = await get(placed.location as string);
    expect(confirmation.html).toContain(`Your order number is ${number}.`);
    expect(confirmation.html).toContain('Denver, CO 80202');
    expect((await get('/cart')).html).toContain('You have no items');
    expect((await get('/orders')).html).toContain(`href="/orders/${number}"`);
    const order = server.database(id, 'shop').get('SELECT total_cents, shipping_cents FROM orders WHERE number = ?', number) as { total_cents: number; shipping_cents: number };
    expect(order.shipping_cents).toBe(1500);
  });

  it('posts a review after validation, and escapes its text', async () => {
    const bad = await post('/product/9/reviews', { rating: '6', nickname: 'Emma', title: '', body: 'x' });
    expect(bad.status).toBe(422);
    expect(bad.html).toContain('Choose a rating from 1 to 5 stars.');
    expect(bad.html).toContain('Summary is required.');
    const ok = await post('/product/9/reviews', { rating: '4', nickname: 'Emma', title: '<b>Nice</b> kettle', body: 'Works <script>alert(1)</script> well' });
    expect([ok.status, ok.location]).toEqual([303, '/product/9?done=review#reviews']);
    const page = await get('/product/9?done=review');
    expect(page.html).toContain('Thank you for your review.');
    expect(page.html).toContain('&lt;b&gt;Nice&lt;/b&gt; kettle');
    expect(page.html).not.toContain('<script>alert(1)</script>');
  });

  it('labels every visible input and select', async () => {
    for (const path of ['/product/9', '/cart', '/checkout', '/category/garden']) {
      const { html } = await get(path);
      const ids = [...html.matchAll(/<(?:input|select|textarea) id="([^"]+)"/g)].map((m) => m[1]);
      for (const inputId of ids) expect(html, `${path} #${inputId}`).toContain(`for="${inputId}"`);
    }
  });
});
