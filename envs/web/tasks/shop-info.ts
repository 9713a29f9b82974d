/** The shop's information-seeking templates: facts read off product, category and order pages. */
import type { Split } from '../../contract.ts';
import { SORTS } from '../sites/shop/queries.ts';
import { PAGE_SIZE } from '../sites/page-sizes.ts';
import { draw, pools, type EntitySplit } from './seeded.ts';
import { price, shopEntities, toProduct, type ShopCategory, type ShopProduct } from './shop-entities.ts';
import { asking } from './answer-forms.ts';
import { makeTask, type WebPlanStep, type WebTask } from './task.ts';

const info = (template: string, n: number, split: Split, objective: string, evaluator: WebTask['evaluator'], plan: WebPlanStep[]) =>
  makeTask('shop', 'info', template, n, split, { objective, startPath: '/', evaluator, plan });

/** From the home page to a category listing in one of the whitelisted orders. */
function toSortedCategory(c: ShopCategory, sort: string): WebPlanStep[] {
  return [{ goto: '/' }, { clickLink: c.name }, { select: { label: 'Sort by', option: SORTS[sort]?.label ?? sort } }, { clickButton: 'Apply' }];
}

/** Whether the brand's products, listed by name (as SQLite's NOCASE orders ASCII names), run onto the second page. */
function lastOnPageTwo(inCategory: readonly ShopProduct[], brand: string): boolean {
  const byName = [...inCategory].sort((a, b) => (a.name.toLowerCase() < b.name.toLowerCase() ? -1 : a.name.toLowerCase() > b.name.toLowerCase() ? 1 : a.id - b.id));
  return byName.findLastIndex((p) => p.brand === brand) >= PAGE_SIZE;
}

export function shopInfoTasks(): WebTask[] {
  const { products, categories, orders } = shopEntities();
  const tasks: WebTask[] = [];
  const byProduct = (template: string, pool: (p: ShopProduct) => boolean, counts: Record<EntitySplit, number>, make: (p: ShopProduct, split: Split) => WebTask) => {
    const drawn = draw(template, pools(products.filter(pool), (p) => p.test), counts);
    for (const split of ['train', 'test'] as const) for (const p of drawn[split]) tasks.push(make(p, split));
  };

  byProduct('price', () => true, { train: 20, test: 6 }, (p, split) =>
    info('price', p.id, split, asking(`What is the price of "${p.name}" in the shop?`, 'price'), { type: 'number', expected: p.priceCents / 100, tolerance: 0.001 }, [...toProduct(p), { stop: price(p.priceCents) }]));
  byProduct('review-count', (p) => p.reviewCount > 0, { train: 18, test: 6 }, (p, split) =>
    info('review-count', p.id, split, asking(`How many customer reviews does "${p.name}" have?`, 'number'), { type: 'number', expected: p.reviewCount, tolerance: 0 }, [...toProduct(p), { stop: String(p.reviewCount) }]));
  byProduct('sku', () => true, { train: 12, test: 4 }, (p, split) =>
    info('sku', p.id, split, asking(`What is the SKU of "${p.name}"?`, 'sku'), { type: 'id', expected: p.sku }, [...toProduct(p), { stop: p.sku }]));
  byProduct('stock', (p) => p.stock > 0, { train: 12, test: 4 }, (p, split) =>
    info('stock', p.id, split, asking(`How many units of "${p.name}" are left in stock?`, 'number'), { type: 'number', expected: p.stock, tolerance: 0 }, [...toProduct(p), { stop: String(p.stock) }]));
  byProduct('average-rating', (p) => p.reviewCount >= 2, { train: 12, test: 4 }, (p, split) => {
    // The page shows the mean to one decimal; accept that rounding.
    const shown = (Math.round((p.rating ?? 0) * 10 + 1e-9) / 10).toFixed(1);
    return info('average-rating', p.id, split, asking(`What is the average customer rating of "${p.name}", out of 5?`, 'rating'), { type: 'number', expected: Number(shown), tolerance: 0.051 }, [...toProduct(p), { stop: shown }]);
  });

  for (const c of categories) {
    const split: Split = c.test ? 'test' : 'train';
    const inCategory = products.filter((p) => p.categoryId === c.id);
    const cheapest = [...inCategory].sort((a, b) => a.priceCents - b.priceCents || a.id - b.id);
    tasks.push(info('cheapest-in-category', c.id, split, asking(`What is the name of the cheapest product in the ${c.name} category?`, 'productName'), { type: 'name', expected: cheapest[0]?.name ?? '', among: 'shop/products' },
      [...toSortedCategory(c, 'price_asc'), { stop: cheapest[0]?.name ?? '' }]));
    const dearest = cheapest.at(-1) as ShopProduct;
    tasks.push(info('priciest-in-category', c.id, split, asking(`What is the name of the most expensive product in the ${c.name} category?`, 'productName'), { type: 'name', expected: dearest.name, among: 'shop/products' },
      [...toSortedCategory(c, 'price_desc'), { stop: dearest.name }]));
    const counts = new Map<string, number>();
    for (const p of inCategory) counts.set(p.brand, (counts.get(p.brand) ?? 0) + 1);
    const ranked = [...counts].sort((a, b) => b[1] - a[1]);
    // Only categories where one brand has strictly the most products have an answer.
    if (ranked[0] && ranked[1] && ranked[0][1] > ranked[1][1]) {
      tasks.push(info('top-brand-in-category', c.id, split, asking(`Which brand has the most products in the ${c.name} category?`, 'brand'), { type: 'name', expected: ranked[0][0], among: 'shop/brands' },
        [...toSortedCategory(c, 'name'), ...(lastOnPageTwo(inCategory, ranked[0][0]) ? [{ clickLink: 'Next page' }] : []), { stop: ranked[0][0] }]));
    }
  }

  for (const o of orders) {
    const split: Split = o.test ? 'test' : 'train';
    const toOrder: WebPlanStep[] = [{ goto: '/' }, { clickLink: 'My Orders' }, { clickLink: o.number }];
    tasks.push(info('order-date', o.id, split, asking(`On what date did I place my order number ${o.number}?`, 'date'), { type: 'date', expected: o.date }, [...toOrder, { stop: o.date }]));
    tasks.push(info('order-total', o.id, split, asking(`What was the grand total of my order number ${o.number}?`, 'price'), { type: 'number', expected: o.totalCents / 100, tolerance: 0.001 }, [...toOrder, { stop: price(o.totalCents) }]));
  }
  return tasks;
}
