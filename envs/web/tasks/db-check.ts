/**
 * The state-change evaluators: what an episode changed on the task's site (site-effects.ts)
 * against the one effect the task asks for. Every required field is checked (an order's items,
 * shipping method and address; a review's rating, summary and text; a post's forum, title and
 * body), and any effect the task did not ask for fails the check (a second order, an extra
 * product in the cart, a vote on another post). Text compares as `sameText`: case, spacing,
 * quotes and a final period do not matter; words do.
 */
import { sameText } from './normalise.ts';
import { defaultShippingAddress, forumEffects, itemsKey, shopEffects, unaskedEffects, type SiteDb } from './site-effects.ts';
import type { DbEvaluator, ShippingAddress, WebVerdict } from './task.ts';

const verdict = (ok: boolean, reason: string): WebVerdict => ({ reward: ok ? 1 : 0, reason });
type Check<C extends DbEvaluator['check']> = Extract<DbEvaluator, { check: C }>;

/** Fails with the extra effects when there are any, else gives the main check's verdict. */
function withoutExtras(name: string, extras: string, main: () => WebVerdict): WebVerdict {
  const result = main();
  if (result.reward === 1 && extras !== '') return verdict(false, `${name}: the asked change was made, but the episode also made ${extras}`);
  return result;
}

const ADDRESS_FIELDS = ['ship_name', 'street', 'city', 'region', 'postcode'] as const;
const addressLine = (a: ShippingAddress) => ADDRESS_FIELDS.map((f) => a[f]).join(', ');

function order(db: SiteDb, spec: Check<'order'>): WebVerdict {
  const effects = shopEffects(db, { order: spec.afterOrderId });
  const want = itemsKey(spec.items);
  const to = spec.shipTo ?? defaultShippingAddress();
  const expected = `one new order of ${want} with ${spec.shippingMethod} shipping to ${addressLine(to)}`;
  return withoutExtras('order', unaskedEffects(effects, ['orders']), () => {
    if (effects.orders.length !== 1) return verdict(false, `order: expected ${expected}; new orders: ${effects.orders.length === 0 ? 'none' : effects.orders.map((o) => `${o.number}: ${o.items}`).join('; ')}`);
    const o = effects.orders[0]!;
    const wrong = [
      ...(o.items === want ? [] : [`items ${o.items}`]),
      ...(o.shipping_method === spec.shippingMethod ? [] : [`${o.shipping_method} shipping`]),
      ...ADDRESS_FIELDS.filter((f) => !sameText(o[f], to[f])).map((f) => `${f} '${o[f]}'`),
    ];
    return verdict(wrong.length === 0, wrong.length === 0 ? `order: ${o.number} holds ${want} with ${o.shipping_method} shipping to ${addressLine(to)}` : `order: expected ${expected}; ${o.number} has ${wrong.join(', ')}`);
  });
}

function review(db: SiteDb, spec: Check<'review'>): WebVerdict {
  const effects = shopEffects(db, { review: spec.afterReviewId });
  const expected = `one new ${spec.rating}-star review '${spec.title}' of product ${spec.productId} with the asked text`;
  return withoutExtras('review', unaskedEffects(effects, ['reviews']), () => {
    if (effects.reviews.length !== 1) return verdict(false, `review: expected ${expected}; new reviews: ${effects.reviews.length === 0 ? 'none' : effects.reviews.map((r) => `${r.rating} '${r.title}' of ${r.product_id}`).join('; ')}`);
    const r = effects.reviews[0]!;
    const wrong = [
      ...(r.product_id === spec.productId ? [] : [`product ${r.product_id}`]),
      ...(r.rating === spec.rating ? [] : [`${r.rating} stars`]),
      ...(sameText(r.title, spec.title) ? [] : [`summary '${r.title}'`]),
      ...(sameText(r.body, spec.body) ? [] : [`text '${r.body}'`]),
    ];
    return verdict(wrong.length === 0, wrong.length === 0 ? `review: a ${r.rating}-star review '${r.title}' of product ${r.product_id} with the asked text` : `review: expected ${expected}; the new review has ${wrong.join(', ')}`);
  });
}

function cart(db: SiteDb, spec: Check<'cart'>): WebVerdict {
  const effects = shopEffects(db);
  const want = itemsKey([spec]);
  return withoutExtras('cart', unaskedEffects(effects, ['cart']), () =>
    verdict(effects.cart === want, `cart: expected exactly ${spec.quantity} of product ${spec.productId} (${want}), the cart holds ${effects.cart || 'nothing'}`));
}

const voteWord = (v: number) => (v === 0 ? 'no vote' : v === 1 ? 'an upvote' : 'a downvote');

function vote(db: SiteDb, spec: Check<'vote'>): WebVerdict {
  const effects = forumEffects(db);
  const mine = effects.votes.find((v) => v.postId === spec.postId);
  const others = effects.votes.filter((v) => v.postId !== spec.postId);
  const extras = [unaskedEffects(effects, ['votes']), others.length > 0 ? `${others.length} vote${others.length === 1 ? '' : 's'} on other posts` : ''].filter((e) => e !== '').join(', ');
  return withoutExtras('vote', extras, () =>
    verdict(mine?.now === spec.value, `vote: expected ${voteWord(spec.value)} on post ${spec.postId}, found ${voteWord(mine?.now ?? 0)}`));
}

function post(db: SiteDb, spec: Check<'post'>): WebVerdict {
  const effects = forumEffects(db, { post: spec.afterPostId });
  const expected = `one new post '${spec.title}' in f/${spec.forum} with the asked body`;
  return withoutExtras('post', unaskedEffects(effects, ['posts']), () => {
    if (effects.posts.length !== 1) return verdict(false, `post: expected ${expected}; new posts: ${effects.posts.length === 0 ? 'none' : effects.posts.map((p) => `'${p.title}' in f/${p.forum}`).join('; ')}`);
    const p = effects.posts[0]!;
    const wrong = [
      ...(p.forum === spec.forum ? [] : [`forum f/${p.forum}`]),
      ...(sameText(p.title, spec.title) ? [] : [`title '${p.title}'`]),
      ...(sameText(p.body, spec.body) ? [] : [`body '${p.body}'`]),
    ];
    return verdict(wrong.length === 0, wrong.length === 0 ? `post: '${p.title}' in f/${p.forum} with the asked body` : `post: expected ${expected}; the new post has ${wrong.join(', ')}`);
  });
}

function comment(db: SiteDb, spec: Check<'comment'>): WebVerdict {
  const effects = forumEffects(db, { comment: spec.afterCommentId });
  const expected = `one new comment '${spec.body}' on post ${spec.postId}`;
  return withoutExtras('comment', unaskedEffects(effects, ['comments']), () => {
    if (effects.comments.length !== 1) return verdict(false, `comment: expected ${expected}; new comments: ${effects.comments.length === 0 ? 'none' : effects.comments.map((c) => `'${c.body}' on ${c.post_id}`).join('; ')}`);
    const c = effects.comments[0]!;
    const wrong = [
      ...(c.post_id === spec.postId ? [] : [`post ${c.post_id}`]),
      ...(c.parent_id === null ? [] : ['a reply to a comment, not to the post']),
      ...(sameText(c.body, spec.body) ? [] : [`text '${c.body}'`]),
    ];
    return verdict(wrong.length === 0, wrong.length === 0 ? `comment: '${c.body}' on post ${c.post_id}` : `comment: expected ${expected}; the new comment has ${wrong.join(', ')}`);
  });
}

export function checkDatabase(spec: DbEvaluator, db: SiteDb): WebVerdict {
  switch (spec.check) {
    case 'order': return order(db, spec);
    case 'review': return review(db, spec);
    case 'cart': return cart(db, spec);
    case 'vote': return vote(db, spec);
    case 'post': return post(db, spec);
    case 'comment': return comment(db, spec);
  }
}
