/** Catalog pages: home, product listings (category and search) and the product page. */
import { html } from 'hono/html';
import { errorList, money, pager, query, type Html } from '../../html.ts';
import type { Category, Product, ProductSummary, Review } from '../queries.ts';
import { SORTS } from '../queries.ts';
import { shopPage, stars } from './chrome.ts';

function productList(rows: readonly ProductSummary[]): Html {
  return html`<ol class="products">${rows.map(
    (p) => html`<li><a href="/product/${p.id}">${p.name}</a> — ${money(p.price_cents)} — ${stars(p.rating, p.review_count)}${p.stock === 0 ? html` — <em>Out of stock</em>` : ''}</li>`,
  )}</ol>`;
}

export function homeView(categories: readonly Category[], top: readonly ProductSummary[]): Html {
  return shopPage({
    title: 'Home',
    heading: 'Welcome to Corner Market',
    body: html`<section aria-labelledby="cats"><h2 id="cats">Shop by category</h2><ul>${categories.map(
      (c) => html`<li><a href="/category/${c.slug}">${c.name}</a> (${c.product_count} products): ${c.description}</li>`,
    )}</ul></section>
<section aria-labelledby="top"><h2 id="top">Top rated products</h2>${productList(top)}</section>`,
  });
}

export interface ListingView {
  readonly title: string;
  readonly path: string;
  readonly q?: string;
  readonly intro?: Html;
  readonly sort: string;
  readonly page: number;
  readonly pages: number;
  readonly total: number;
  readonly rows: readonly ProductSummary[];
}

export function listingView(v: ListingView): Html {
  const href = (page: number) => `${v.path}${query({ q: v.q, sort: v.sort === 'position' ? undefined : v.sort, page: page === 1 ? undefined : page })}`;
  const sortForm = html`<form method="get" action="${v.path}">${v.q !== undefined ? html`<input type="hidden" name="q" value="${v.q}">` : ''}
<label for="sort">Sort by</label><select id="sort" name="sort">${Object.entries(SORTS).map(
    ([key, s]) => html`<option value="${key}"${key === v.sort ? ' selected' : ''}>${s.label}</option>`,
  )}</select><button type="submit">Apply</button></form>`;
  const first = (v.page - 1) * 20 + 1;
  return shopPage({
    title: v.title,
    ...(v.q !== undefined ? { q: v.q } : {}),
    body: html`${v.intro ?? ''}${
      v.total === 0
        ? html`<p>No products found.</p>`
        : html`<p>Items ${first}–${first + v.rows.length - 1} of ${v.total}</p>${sortForm}${productList(v.rows)}${pager(v.page, v.pages, href)}`
    }`,
  });
}

export interface ProductForm {
  readonly errors: readonly string[];
  readonly values: Readonly<Record<string, string>>;
}

export function productView(p: Product, reviews: readonly Review[], flash: string | undefined, cart: ProductForm, review: ProductForm): Html {
  const v = review.values;
  const ratingOptions = [5, 4, 3, 2, 1].map((r) => html`<option value="${r}"${v.rating === String(r) ? ' selected' : ''}>${r} star${r === 1 ? '' : 's'}</option>`);
  return shopPage({
    title: p.name,
    flash,
    body: html`<nav aria-label="Breadcrumb"><a href="/">Home</a> › <a href="/category/${p.category_slug}">${p.category_name}</a></nav>
<p>Price: <strong>${money(p.price_cents)}</strong></p><p>SKU: ${p.sku}</p><p>Brand: ${p.brand}</p>
<p>${p.stock > 0 ? `In stock (${p.stock} left)` : 'Out of stock'}</p><p>${stars(p.rating, p.review_count)}</p>
<section aria-labelledby="desc"><h2 id="desc">Description</h2><p>${p.description}</p></section>
<form method="post" action="/cart/add"><input type="hidden" name="product_id" value="${p.id}">${errorList(cart.errors)}
<label for="qty">Quantity</label><input id="qty" name="qty" type="number" min="1" max="99" value="${cart.values.qty ?? '1'}">
<button type="submit">Add to Cart</button></form>
<section aria-labelledby="reviews"><h2 id="reviews">Customer reviews (${reviews.length})</h2>${
      reviews.length === 0
        ? html`<p>No reviews yet. Be the first to review this product.</p>`
        : html`<ul>${reviews.map((r) => html`<li><article aria-label="Review by ${r.nickname}"><h3>${r.title}</h3><p>Rating: ${r.rating} out of 5, by ${r.nickname} on ${r.created_at.slice(0, 10)}</p><p>${r.body}</p></article></li>`)}</ul>`
    }</section>
<section aria-labelledby="write"><h2 id="write">Write a review</h2>
<form method="post" action="/product/${p.id}/reviews">${errorList(review.errors)}
<label for="rating">Your rating</label><select id="rating" name="rating"><option value="">Choose a rating</option>${ratingOptions}</select>
<label for="nickname">Nickname</label><input id="nickname" name="nickname" value="${v.nickname ?? 'Emma'}" maxlength="40">
<label for="title">Summary</label><input id="title" name="title" value="${v.title ?? ''}" maxlength="100">
<label for="body">Review</label><textarea id="body" name="body" maxlength="2000">${v.body ?? ''}</textarea>
<button type="submit">Submit Review</button></form></section>`,
  });
}
