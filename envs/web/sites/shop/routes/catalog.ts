/** GET routes of the catalog: home, category listings, search and product pages. */
import { html } from 'hono/html';
import type { Hono } from 'hono';
import { pageCount, pageParam, wholeNumber } from '../../params.ts';
import type { SiteEnv } from '../../site-env.ts';
import { categories, categoryBySlug, productPage, searchWhere, SORTS, topRated } from '../queries.ts';
import { homeView, listingView } from '../views/catalog.ts';
import { notFoundView } from '../views/chrome.ts';
import { renderProduct } from './product-page.ts';

import { PAGE_SIZE } from '../../page-sizes.ts';

export { PAGE_SIZE };

const FLASH: Readonly<Record<string, string>> = { review: 'Thank you for your review.' };

export function catalogRoutes(app: Hono<SiteEnv>): void {
  app.get('/', (c) => {
    const db = c.get('db');
    return c.html(homeView(categories(db), topRated(db, 8)));
  });

  app.get('/category/:slug', (c) => {
    const db = c.get('db');
    const category = categoryBySlug(db, c.req.param('slug'));
    if (!category) return c.html(notFoundView(`There is no category named ${c.req.param('slug')}.`), 404);
    const sort = SORTS[c.req.query('sort') ?? ''] ? (c.req.query('sort') as string) : 'position';
    const page = pageParam(c.req.query('page'));
    const { total, rows } = productPage(db, 'p.category_id = ?', [category.id], sort, PAGE_SIZE, (page - 1) * PAGE_SIZE);
    return c.html(listingView({ title: category.name, path: `/category/${category.slug}`, intro: html`<p>${category.description}</p>`, sort, page, pages: pageCount(total, PAGE_SIZE), total, rows }));
  });

  app.get('/search', (c) => {
    const q = (c.req.query('q') ?? '').trim();
    const sort = SORTS[c.req.query('sort') ?? ''] ? (c.req.query('sort') as string) : 'position';
    const page = pageParam(c.req.query('page'));
    const { where, params } = searchWhere(q);
    const { total, rows } = productPage(c.get('db'), where, params, sort, PAGE_SIZE, (page - 1) * PAGE_SIZE);
    const title = q ? `Search results for '${q}'` : 'Search';
    return c.html(listingView({ title, path: '/search', q, ...(q ? {} : { intro: html`<p>Type a product name in the search box.</p>` }), sort, page, pages: pageCount(total, PAGE_SIZE), total, rows }));
  });

  app.get('/product/:id', (c) => {
    const id = wholeNumber(c.req.param('id'));
    if (id === undefined) return c.html(notFoundView(`There is no product with id ${c.req.param('id')}.`), 404);
    return renderProduct(c, id, { flash: FLASH[c.req.query('done') ?? ''] });
  });
}
