/**
 * What an episode changed on a site, read from the instance's database: the logged-in user's
 * new rows (ids above the seeded maxima, or above a task's own bound) and the rows that differ
 * from the seeded state (the cart, the votes). A state task's check compares these with the one
 * effect it asked for, so an effect it did not ask for is seen too (db-check.ts).
 */
import { CURRENT_USER_ID } from '../sites/forum/schema.ts';
import { CURRENT_CUSTOMER_ID } from '../sites/shop/schema.ts';
import { forumSeededMax } from './forum-entities.ts';
import { forumData, shopData } from './seeded.ts';
import { shopSeededMax } from './shop-entities.ts';
import type { ShippingAddress, WebOutcome } from './task.ts';

export type SiteDb = NonNullable<WebOutcome['db']>;

export interface NewOrder extends ShippingAddress {
  readonly number: string;
  readonly shipping_method: string;
  /** `productId x quantity`, sorted, e.g. `12x2,40x1`. */
  readonly items: string;
}
export interface NewReview { readonly product_id: number; readonly rating: number; readonly title: string; readonly body: string }
export interface ShopEffects {
  readonly orders: readonly NewOrder[];
  readonly reviews: readonly NewReview[];
  /** The whole cart (the seeded cart is empty), as `productId x quantity`, sorted. */
  readonly cart: string;
}

export interface NewPost { readonly forum: string; readonly title: string; readonly body: string }
export interface NewComment { readonly post_id: number; readonly parent_id: number | null; readonly body: string }
export interface VoteChange { readonly postId: number; readonly was: number; readonly now: number }
export interface ForumEffects {
  readonly posts: readonly NewPost[];
  readonly comments: readonly NewComment[];
  readonly votes: readonly VoteChange[];
}

export const itemsKey = (items: readonly { productId: number; quantity: number }[]) => items.map((i) => `${i.productId}x${i.quantity}`).sort().join(',');

/** The logged-in customer's address in the seeded state: "my default address". */
export function defaultShippingAddress(): ShippingAddress {
  const me = shopData().customers.find((c) => c.id === CURRENT_CUSTOMER_ID);
  if (!me) throw new Error(`the seeded shop has no customer ${CURRENT_CUSTOMER_ID}`);
  return { ship_name: `${String(me.first_name)} ${String(me.last_name)}`, street: String(me.street), city: String(me.city), region: String(me.region), postcode: String(me.postcode) };
}

export function shopEffects(db: SiteDb, after: { order?: number; review?: number } = {}): ShopEffects {
  const seeded = shopSeededMax();
  const orders = (db.all('SELECT id, number, shipping_method, ship_name, street, city, region, postcode FROM orders WHERE id > ? AND customer_id = ? ORDER BY id',
    after.order ?? seeded.order, CURRENT_CUSTOMER_ID) as (Omit<NewOrder, 'items'> & { id: number })[]).map(({ id, ...o }) => {
    const items = db.all('SELECT product_id AS productId, quantity FROM order_items WHERE order_id = ?', id) as { productId: number; quantity: number }[];
    return { ...o, items: itemsKey(items) };
  });
  const reviews = db.all('SELECT product_id, rating, title, body FROM reviews WHERE id > ? AND customer_id = ? ORDER BY id', after.review ?? seeded.review, CURRENT_CUSTOMER_ID) as NewReview[];
  const cart = itemsKey(db.all('SELECT product_id AS productId, quantity FROM cart_items WHERE customer_id = ?', CURRENT_CUSTOMER_ID) as { productId: number; quantity: number }[]);
  return { orders, reviews, cart };
}

let seededVotes: ReadonlyMap<number, number> | undefined;

export function forumEffects(db: SiteDb, after: { post?: number; comment?: number } = {}): ForumEffects {
  const seeded = forumSeededMax();
  const posts = db.all('SELECT f.name AS forum, p.title, p.body FROM posts p JOIN forums f ON f.id = p.forum_id WHERE p.id > ? AND p.user_id = ? ORDER BY p.id',
    after.post ?? seeded.post, CURRENT_USER_ID) as NewPost[];
  const comments = db.all('SELECT post_id, parent_id, body FROM comments WHERE id > ? AND user_id = ? ORDER BY id', after.comment ?? seeded.comment, CURRENT_USER_ID) as NewComment[];
  seededVotes ??= new Map(forumData().votes.filter((v) => v.user_id === CURRENT_USER_ID).map((v) => [v.post_id as number, v.value as number]));
  const now = new Map((db.all('SELECT post_id, value FROM votes WHERE user_id = ?', CURRENT_USER_ID) as { post_id: number; value: number }[]).map((v) => [v.post_id, v.value]));
  const votes: VoteChange[] = [];
  for (const postId of new Set([...seededVotes.keys(), ...now.keys()])) {
    const was = seededVotes.get(postId) ?? 0;
    const value = now.get(postId) ?? 0;
    if (was !== value) votes.push({ postId, was, now: value });
  }
  return { posts, comments, votes: votes.sort((a, b) => a.postId - b.postId) };
}

/** The effects in `effects` other than the kinds `asked`, described for a reason ('' when none). */
export function unaskedEffects(effects: Partial<ShopEffects & ForumEffects>, asked: readonly string[]): string {
  const found: string[] = [];
  const count = (kind: string, n: number, noun: string) => {
    if (!asked.includes(kind) && n > 0) found.push(`${n} ${noun}${n === 1 ? '' : 's'}`);
  };
  count('orders', effects.orders?.length ?? 0, 'new order');
  count('reviews', effects.reviews?.length ?? 0, 'new review');
  if (!asked.includes('cart') && effects.cart) found.push(`a cart holding ${effects.cart}`);
  count('posts', effects.posts?.length ?? 0, 'new post');
  count('comments', effects.comments?.length ?? 0, 'new comment');
  count('votes', effects.votes?.length ?? 0, 'changed vote');
  return found.join(', ');
}
