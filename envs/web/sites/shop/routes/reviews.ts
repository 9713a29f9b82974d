/** POST /product/:id/reviews: validates and stores the customer's review, then redirects to the product. */
import type { Hono } from 'hono';
import { SITE_NOW, isoMinute } from '../../clock.ts';
import { field, wholeNumber } from '../../params.ts';
import type { SiteEnv } from '../../site-env.ts';
import { productById } from '../queries.ts';
import { CURRENT_CUSTOMER_ID } from '../schema.ts';
import { notFoundView } from '../views/chrome.ts';
import { renderProduct } from './product-page.ts';

export const REVIEW_LIMITS = { nickname: 40, title: 100, body: 2000 } as const;

export function reviewErrors(values: Readonly<Record<string, string>>): string[] {
  const errors: string[] = [];
  const rating = wholeNumber(values.rating ?? '');
  if (rating === undefined || rating < 1 || rating > 5) errors.push('Choose a rating from 1 to 5 stars.');
  for (const [name, label] of [['nickname', 'Nickname'], ['title', 'Summary'], ['body', 'Review']] as const) {
    const value = values[name] ?? '';
    if (value === '') errors.push(`${label} is required.`);
    else if (value.length > REVIEW_LIMITS[name]) errors.push(`${label} must be at most ${REVIEW_LIMITS[name]} characters.`);
  }
  return errors;
}

export function reviewRoutes(app: Hono<SiteEnv>): void {
  app.post('/product/:id/reviews', async (c) => {
    const id = wholeNumber(c.req.param('id'));
    const db = c.get('db');
    if (id === undefined || !productById(db, id)) return c.html(notFoundView(`There is no product with id ${c.req.param('id')}.`), 404);
    const body = await c.req.parseBody();
    const values = { rating: field(body, 'rating'), nickname: field(body, 'nickname'), title: field(body, 'title'), body: field(body, 'body') };
    const errors = reviewErrors(values);
    if (errors.length > 0) return renderProduct(c, id, { status: 422, review: { errors, values } });
    db.prepare('INSERT INTO reviews (product_id, customer_id, nickname, rating, title, body, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)').run(
      id, CURRENT_CUSTOMER_ID, values.nickname, Number(values.rating), values.title, values.body, isoMinute(SITE_NOW),
    );
    return c.redirect(`/product/${id}?done=review#reviews`, 303);
  });
}
