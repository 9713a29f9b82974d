/**
 * The state-change evaluators: queries on an instance's site database after an episode. Each
 * looks only at rows the episode could have written (ids above the seeded maximum, or, for
 * votes and the cart, rows the seeded state does not hold), by the logged-in user or customer.
 * Text compares case- and whitespace-insensitively, as the answer evaluators do.
 */
import { CURRENT_USER_ID } from '../sites/forum/schema.ts';
import { CURRENT_CUSTOMER_ID } from '../sites/shop/schema.ts';
import type { DbEvaluator, WebOutcome, WebVerdict } from './task.ts';

type Db = NonNullable<WebOutcome['db']>;

const same = (a: string, b: string) => a.toLowerCase().replace(/\s+/g, ' ').trim() === b.toLowerCase().replace(/\s+/g, ' ').trim();
const verdict = (ok: boolean, reason: string): WebVerdict => ({ reward: ok ? 1 : 0, reason });

function order(db: Db, spec: Extract<DbEvaluator, { check: 'order' }>): WebVerdict {
  const orders = db.all('SELECT id, number, shipping_method FROM orders WHERE id > ? AND customer_id = ? ORDER BY id', spec.afterOrderId, CURRENT_CUSTOMER_ID) as { id: number; number: string; shipping_method: string }[];
  const want = spec.items.map((i) => `${i.productId}x${i.quantity}`).sort().join(',');
  const seen: string[] = [];
  for (const o of orders) {
    const items = db.all('SELECT product_id, quantity FROM order_items WHERE order_id = ?', o.id) as { product_id: number; quantity: number }[];
    const got = items.map((i) => `${i.product_id}x${i.quantity}`).sort().join(',');
    if (got === want && o.shipping_method === spec.shippingMethod) return verdict(true, `order: ${o.number} holds ${want} with ${o.shipping_method} shipping`);
    seen.push(`${o.number}: ${got} (${o.shipping_method})`);
  }
  return verdict(false, `order: expected a new order of ${want} with ${spec.shippingMethod} shipping; new orders: ${seen.length > 0 ? seen.join('; ') : 'none'}`);
}

function review(db: Db, spec: Extract<DbEvaluator, { check: 'review' }>): WebVerdict {
  const rows = db.all('SELECT rating, title FROM reviews WHERE id > ? AND customer_id = ? AND product_id = ?', spec.afterReviewId, CURRENT_CUSTOMER_ID, spec.productId) as { rating: number; title: string }[];
  const ok = rows.some((r) => r.rating === spec.rating && same(r.title, spec.title));
  return verdict(ok, `review: expected a ${spec.rating}-star review '${spec.title}' of product ${spec.productId}; new reviews of it: ${rows.length > 0 ? rows.map((r) => `${r.rating} '${r.title}'`).join('; ') : 'none'}`);
}

function cart(db: Db, spec: Extract<DbEvaluator, { check: 'cart' }>): WebVerdict {
  const row = db.get('SELECT quantity FROM cart_items WHERE customer_id = ? AND product_id = ?', CURRENT_CUSTOMER_ID, spec.productId) as { quantity: number } | undefined;
  const quantity = row?.quantity ?? 0;
  return verdict(quantity === spec.quantity, `cart: expected ${spec.quantity} of product ${spec.productId}, the cart holds ${quantity}`);
}

function vote(db: Db, spec: Extract<DbEvaluator, { check: 'vote' }>): WebVerdict {
  const row = db.get('SELECT value FROM votes WHERE user_id = ? AND post_id = ?', CURRENT_USER_ID, spec.postId) as { value: number } | undefined;
  const value = row?.value ?? 0;
  return verdict(value === spec.value, `vote: expected ${spec.value === 1 ? 'an upvote' : 'a downvote'} on post ${spec.postId}, found ${value === 0 ? 'no vote' : value === 1 ? 'an upvote' : 'a downvote'}`);
}

function post(db: Db, spec: Extract<DbEvaluator, { check: 'post' }>): WebVerdict {
  const rows = db.all('SELECT p.title, p.body FROM posts p JOIN forums f ON f.id = p.forum_id WHERE p.id > ? AND p.user_id = ? AND f.name = ?', spec.afterPostId, CURRENT_USER_ID, spec.forum) as { title: string; body: string }[];
  const ok = rows.some((r) => same(r.title, spec.title) && same(r.body, spec.body));
  return verdict(ok, `post: expected a new post '${spec.title}' in f/${spec.forum}; new posts there: ${rows.length > 0 ? rows.map((r) => `'${r.title}'`).join('; ') : 'none'}`);
}

function comment(db: Db, spec: Extract<DbEvaluator, { check: 'comment' }>): WebVerdict {
  const rows = db.all('SELECT body FROM comments WHERE id > ? AND user_id = ? AND post_id = ?', spec.afterCommentId, CURRENT_USER_ID, spec.postId) as { body: string }[];
  const ok = rows.some((r) => same(r.body, spec.body));
  return verdict(ok, `comment: expected '${spec.body}' on post ${spec.postId}; new comments on it: ${rows.length > 0 ? rows.map((r) => `'${r.body}'`).join('; ') : 'none'}`);
}

export function checkDatabase(spec: DbEvaluator, db: Db): WebVerdict {
  switch (spec.check) {
    case 'order': return order(db, spec);
    case 'review': return review(db, spec);
    case 'cart': return cart(db, spec);
    case 'vote': return vote(db, spec);
    case 'post': return post(db, spec);
    case 'comment': return comment(db, spec);
  }
}
