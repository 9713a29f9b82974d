/** The shop's page frame: site name, main links and the search box on every page. */
import { html } from 'hono/html';
import { layout, type Html } from '../../html.ts';

export const SHOP_NAME = 'Corner Market';

export interface ShopPage {
  readonly title: string;
  readonly heading?: string;
  readonly flash?: string | undefined;
  readonly q?: string;
  readonly body: Html;
}

export function shopPage(page: ShopPage): Html {
  const search = html`<form method="get" action="/search" role="search"><label for="search-q">Search products</label>
<input id="search-q" name="q" type="search" value="${page.q ?? ''}"><button type="submit">Search</button></form>`;
  return layout({
    ...page,
    site: SHOP_NAME,
    nav: [['Home', '/'], ['My Cart', '/cart'], ['My Orders', '/orders'], ['My Account', '/account']],
    header: search,
  });
}

export function stars(rating: number | null, count: number): Html {
  if (rating === null || count === 0) return html`<span>No reviews yet</span>`;
  return html`<span>Rating: ${rating.toFixed(1)} out of 5 (${count} review${count === 1 ? '' : 's'})</span>`;
}

export function notFoundView(what: string): Html {
  return shopPage({ title: 'Page not found', body: html`<p>${what}</p><p><a href="/">Back to the home page</a></p>` });
}
