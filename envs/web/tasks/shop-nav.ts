/** The shop's navigation templates: reach a category, a sorted listing, a product, a search or an order. */
import type { Split } from '../../contract.ts';
import { SORTS } from '../sites/shop/queries.ts';
import { CATEGORIES } from '../sites/shop/words.ts';
import { draw, heldOut, pools } from './seeded.ts';
import { shopEntities, toProduct } from './shop-entities.ts';
import { makeTask, type UrlEvaluator, type WebPlanStep, type WebTask } from './task.ts';

const nav = (template: string, n: number, split: Split, objective: string, evaluator: UrlEvaluator, plan: WebPlanStep[]) =>
  makeTask('shop', 'nav', template, n, split, { objective, startPath: '/', evaluator, plan: [...plan, { stop: '' }] });

/** How each listing order is asked for. */
const SORT_PHRASES: Readonly<Record<string, string>> = {
  price_asc: 'sorted by price from low to high',
  price_desc: 'sorted by price from high to low',
  name: 'sorted by name',
  rating: 'sorted by rating',
};

/** Every product noun, once, in category order: the search terms. */
function searchTerms(): string[] {
  return [...new Set(CATEGORIES.flatMap((c) => c.nouns))];
}

export function shopNavTasks(): WebTask[] {
  const { products, categories, orders } = shopEntities();
  const tasks: WebTask[] = [];
  const sorts = Object.keys(SORT_PHRASES);
  for (const c of categories) {
    const split: Split = c.test ? 'test' : 'train';
    tasks.push(nav('category-page', c.id, split, `Go to the page that lists the products of the ${c.name} category.`, { type: 'url_match', path: `/category/${c.slug}`, ignoreQuery: ['sort'] }, [{ goto: '/' }, { clickLink: c.name }]));
    const sort = sorts[(c.id * 7) % sorts.length] as string;
    tasks.push(nav('sorted-category', c.id, split, `Show the products of the ${c.name} category ${SORT_PHRASES[sort]}.`, { type: 'url_match', path: `/category/${c.slug}`, query: { sort } },
      [{ goto: '/' }, { clickLink: c.name }, { select: { label: 'Sort by', option: SORTS[sort]?.label ?? sort } }, { clickButton: 'Apply' }]));
  }
  const drawn = draw('product-page', pools(products, (p) => p.test), { train: 16, test: 5 });
  for (const split of ['train', 'test'] as const) {
    for (const p of drawn[split]) tasks.push(nav('product-page', p.id, split, `Open the product page of "${p.name}".`, { type: 'url_match', path: `/product/${p.id}` }, toProduct(p)));
  }
  const terms = searchTerms().map((term, i) => ({ term, n: i + 1 }));
  const drawnTerms = draw('search', pools(terms, (t) => heldOut(`term/${t.term}`)), { train: 12, test: 4 });
  for (const split of ['train', 'test'] as const) {
    for (const { term, n } of drawnTerms[split]) {
      tasks.push(nav('search', n, split, `Search the shop for "${term.toLowerCase()}" and show the results.`, { type: 'url_match', path: '/search', query: { q: term.toLowerCase() }, ignoreQuery: ['sort'] },
        [{ goto: '/' }, { fill: { label: 'Search products', value: term.toLowerCase() } }, { clickButton: 'Search' }]));
    }
  }
  for (const o of orders) {
    tasks.push(nav('order-page', o.id, o.test ? 'test' : 'train', `Open the page of my order number ${o.number}.`, { type: 'url_match', path: `/orders/${o.number}` },
      [{ goto: '/' }, { clickLink: 'My Orders' }, { clickLink: o.number }]));
  }
  return tasks;
}
