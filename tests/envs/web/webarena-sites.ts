/**
 * Two tiny sites in WebArena's roles for the webarena tests: a shop (`__SHOPPING__`: products,
 * search) and a Postmill-like forum (`__REDDIT__`: forums, a submit form that posts, post pages
 * at `/f/<forum>/<id>/<slug>`). Plain node:http, state in memory, on ephemeral ports.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FixtureSite {
  readonly url: string;
  close(): Promise<void>;
}

const escape = (text: string): string => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const page = (res: ServerResponse, title: string, body: string, status = 200): void => {
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8' });
  res.end(`<!doctype html><html lang="en"><head><title>${escape(title)}</title></head><body>${body}</body></html>`);
};

async function serve(handler: (req: IncomingMessage, res: ServerResponse, url: URL) => void): Promise<FixtureSite> {
  const server: Server = createServer((req, res) => handler(req, res, new URL(req.url ?? '/', 'http://site')));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }),
  };
}

const PRODUCTS = [
  { id: 1, name: 'Blue Mug', price: '$12.50' },
  { id: 2, name: 'Red Mug', price: '$11.00' },
  { id: 3, name: 'Oak Table', price: '$240.00' },
];

export function startShopSite(): Promise<FixtureSite> {
  return serve((req, res, url) => {
    const product = /^\/product\/(\d+)$/.exec(url.pathname);
    if (url.pathname === '/') {
      return page(res, 'Shop', `<h1>Shop</h1><ul>${PRODUCTS.map((p) => `<li><a href="/product/${p.id}">${p.name}</a></li>`).join('')}</ul><form action="/search"><label>Search <input name="q"></label><button>Go</button></form>`);
    }
    if (product) {
      const p = PRODUCTS.find((item) => item.id === Number(product[1]));
      if (!p) return page(res, 'Not found', '<h1>Not found</h1>', 404);
      return page(res, p.name, `<h1 class="product-name">${p.name}</h1><p>Price: <span class="price">${p.price}</span></p><a href="/">Home</a>`);
    }
    if (url.pathname === '/account') {
      // Logged in by the cookie a storage-state file brings (WebArena's auto_login.py writes one).
      const signedIn = /(?:^|; )session=emma(?:;|$)/.test(req.headers.cookie ?? '');
      return page(res, 'Account', signedIn ? '<h1>My account</h1><p>Signed in as Emma Lopez</p>' : '<h1>Sign in</h1><p>You are not signed in.</p>');
    }
    if (url.pathname === '/search') {
      const q = (url.searchParams.get('q') ?? '').toLowerCase();
      const found = PRODUCTS.filter((p) => p.name.toLowerCase().includes(q));
      return page(res, 'Search', `<h1>Results</h1><ul>${found.map((p) => `<li>${p.name}</li>`).join('')}</ul>`);
    }
    page(res, 'Not found', '<h1>Not found</h1>', 404);
  });
}

interface Post {
  readonly id: number;
  readonly forum: string;
  readonly title: string;
  readonly body: string;
}

const slug = (title: string): string => title.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');

export function startForumSite(): Promise<FixtureSite> {
  const posts: Post[] = [];
  return serve((req, res, url) => {
    const forum = /^\/f\/([a-z]+)\/?$/.exec(url.pathname);
    const post = /^\/f\/([a-z]+)\/(\d+)(?:\/.*)?$/.exec(url.pathname);
    if (url.pathname === '/') return page(res, 'Forum', '<h1>Forum</h1><a href="/f/cats">cats</a> <a href="/f/dogs">dogs</a> <a href="/submit">Submit</a>');
    if (forum) {
      const list = posts.filter((p) => p.forum === forum[1]).map((p) => `<li><a href="/f/${p.forum}/${p.id}/${slug(p.title)}">${escape(p.title)}</a></li>`);
      return page(res, `/f/${forum[1]}`, `<h1>Forum ${forum[1]}</h1><ul>${list.join('')}</ul><a href="/submit">Submit</a>`);
    }
    if (post) {
      const p = posts.find((item) => item.id === Number(post[2]) && item.forum === post[1]);
      if (!p) return page(res, 'Not found', '<h1>Not found</h1>', 404);
      return page(res, p.title, `<h1 class="submission__title">${escape(p.title)}</h1><div class="submission__body">${escape(p.body)}</div><p>comment 1</p>`);
    }
    if (url.pathname === '/submit' && req.method === 'POST') {
      let data = '';
      req.on('data', (chunk: Buffer) => (data += chunk.toString()));
      req.on('end', () => {
        const form = new URLSearchParams(data);
        const created = { id: posts.length + 1, forum: form.get('forum') ?? 'cats', title: form.get('title') ?? '', body: form.get('body') ?? '' };
        posts.push(created);
        // Postmill shows a new post at /f/<forum>/<id>/<slug>; a comment anchor keeps reddit_get_post_url honest.
        res.writeHead(303, { location: `/f/${created.forum}/${created.id}/${slug(created.title)}/comment` });
        res.end();
      });
      return;
    }
    if (url.pathname === '/submit') {
      return page(res, 'Submit', '<h1>Submit a post</h1><form method="post" action="/submit"><label>Forum <select name="forum"><option>cats</option><option>dogs</option></select></label><label>Title <input name="title"></label><label>Body <textarea name="body"></textarea></label><button type="submit">Create post</button></form>');
    }
    page(res, 'Not found', '<h1>Not found</h1>', 404);
  });
}
