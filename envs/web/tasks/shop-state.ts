/** The shop's state-change templates: place an order, write a review, fill the cart. */
import type { Split } from '../../contract.ts';
import { Rng } from '../../rng.ts';
import { money } from '../sites/format.ts';
import { SHIPPING_METHODS } from '../sites/shop/schema.ts';
import { draw, pools, type EntitySplit } from './seeded.ts';
import { shopEntities, shopSeededMax, toProduct, type ShopProduct } from './shop-entities.ts';
import { makeTask, type DbEvaluator, type WebPlanStep, type WebTask } from './task.ts';

const state = (template: string, n: number, split: Split, objective: string, evaluator: DbEvaluator, plan: WebPlanStep[]) =>
  makeTask('shop', 'state', template, n, split, { objective, startPath: '/', evaluator, plan: [...plan, { stop: '' }] });

const REVIEW_TEXTS: readonly (readonly [number, string, string])[] = [
  [5, 'Great value', 'Works exactly as described and arrived early.'],
  [4, 'Good but not perfect', 'Does the job well, the finish could be better.'],
  [3, 'Just okay', 'It is fine for the price, nothing more.'],
  [2, 'Disappointing', 'It broke after a few uses.'],
  [1, 'Would not buy again', 'Poor quality and it did not match the photos.'],
  [5, 'Five stars from me', 'My whole family loves it.'],
  [4, 'Solid purchase', 'Sturdy and easy to use every day.'],
];

export function shopStateTasks(): WebTask[] {
  const { products } = shopEntities();
  const seeded = shopSeededMax();
  const tasks: WebTask[] = [];
  const byProduct = (template: string, pool: (p: ShopProduct) => boolean, counts: Record<EntitySplit, number>, make: (p: ShopProduct, split: Split, rng: Rng) => WebTask) => {
    const drawn = draw(template, pools(products.filter(pool), (p) => p.test), counts);
    for (const split of ['train', 'test'] as const) for (const p of drawn[split]) tasks.push(make(p, split, Rng.fromString(`web/tasks/${template}/${p.id}`)));
  };

  byProduct('place-order', (p) => p.stock >= 3, { train: 16, test: 6 }, (p, split, rng) => {
    const quantity = rng.range(1, 4);
    const method = rng.pick(Object.keys(SHIPPING_METHODS));
    const shipping = SHIPPING_METHODS[method] as { label: string; cents: number };
    return state('place-order', p.id, split,
      `Buy ${quantity} of "${p.name}" with ${method} shipping to my default address (the cart is empty to begin with).`,
      { type: 'db', check: 'order', afterOrderId: seeded.order, items: [{ productId: p.id, quantity }], shippingMethod: method },
      [...toProduct(p), { fill: { label: 'Quantity', value: String(quantity) } }, { clickButton: 'Add to Cart' }, { clickLink: 'Proceed to Checkout' },
        { check: `${shipping.label}: ${money(shipping.cents)}` }, { clickButton: 'Place Order' }]);
  });
  byProduct('write-review', () => true, { train: 16, test: 6 }, (p, split, rng) => {
    const [rating, title, body] = rng.pick(REVIEW_TEXTS);
    return state('write-review', p.id, split,
      `Write a ${rating}-star review of "${p.name}" with the summary "${title}" and the review text "${body}".`,
      { type: 'db', check: 'review', afterReviewId: seeded.review, productId: p.id, rating, title, body },
      [...toProduct(p), { select: { label: 'Your rating', option: `${rating} star${rating === 1 ? '' : 's'}` } }, { fill: { label: 'Summary', value: title } },
        { fill: { label: 'Review', value: body } }, { clickButton: 'Submit Review' }]);
  });
  byProduct('add-to-cart', (p) => p.stock >= 5, { train: 12, test: 4 }, (p, split, rng) => {
    const quantity = rng.range(2, 6);
    return state('add-to-cart', p.id, split, `Add ${quantity} units of "${p.name}" to my shopping cart, without checking out.`,
      { type: 'db', check: 'cart', productId: p.id, quantity },
      [...toProduct(p), { fill: { label: 'Quantity', value: String(quantity) } }, { clickButton: 'Add to Cart' }]);
  });
  return tasks;
}
