/** Renders a product page, shared by its GET route and the forms on it that fail validation. */
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { SiteEnv } from '../../site-env.ts';
import { productById, reviewsOf } from '../queries.ts';
import { notFoundView } from '../views/chrome.ts';
import { productView, type ProductForm } from '../views/catalog.ts';

const EMPTY: ProductForm = { errors: [], values: {} };

export function renderProduct(
  c: Context<SiteEnv>,
  id: number,
  options: { status?: ContentfulStatusCode; flash?: string | undefined; cart?: ProductForm; review?: ProductForm } = {},
): Response | Promise<Response> {
  const db = c.get('db');
  const product = productById(db, id);
  if (!product) return c.html(notFoundView(`There is no product with id ${id}.`), 404);
  return c.html(productView(product, reviewsOf(db, id), options.flash, options.cart ?? EMPTY, options.review ?? EMPTY), options.status ?? 200);
}
