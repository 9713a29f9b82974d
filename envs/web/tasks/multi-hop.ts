/**
 * Multi-hop templates on one site: find an entity from another (a category's cheapest product,
 * a post's author), then read a fact off its page. Each takes four actions or more. Those marked
 * `test-templates` are never in train: they are the held-out-template split's.
 */
import type { Split } from '../../contract.ts';
import { SORTS } from '../sites/shop/queries.ts';
import { asking } from './answer-forms.ts';
import { drawForTemplate } from './breadth-common.ts';
import { forumEntities, toPost, uniquelyTitled, type ForumPost, type ForumUser } from './forum-entities.ts';
import { draw, pools } from './seeded.ts';
import { shopEntities, type ShopCategory, type ShopProduct } from './shop-entities.ts';
import { makeTask, type WebEvaluator, type WebPlanStep, type WebTask } from './task.ts';

const info = (site: 'shop' | 'forum', template: string, n: number, split: Split, objective: string, evaluator: WebEvaluator, plan: WebPlanStep[]) =>
  makeTask(site, 'info', template, n, split, { objective, startPath: '/', evaluator, plan });

const count = (expected: number): WebEvaluator => ({ type: 'number', expected, tolerance: 0 });

/** A category's products in one price order, when its first is strictly first (one right answer). */
function extreme(c: ShopCategory, products: readonly ShopProduct[], sort: 'price_asc' | 'price_desc'): ShopProduct | undefined {
  const sign = sort === 'price_asc' ? 1 : -1;
  const ranked = products.filter((p) => p.categoryId === c.id).sort((a, b) => sign * (a.priceCents - b.priceCents) || a.id - b.id);
  const [first, second] = ranked;
  return first && second && first.priceCents !== second.priceCents ? first : undefined;
}

function toExtreme(c: ShopCategory, sort: 'price_asc' | 'price_desc', product: ShopProduct): WebPlanStep[] {
  return [{ goto: '/' }, { clickLink: c.name }, { select: { label: 'Sort by', option: SORTS[sort]?.label ?? sort } }, { clickButton: 'Apply' }, { clickLink: product.name }];
}

function shopMultiHop(): WebTask[] {
  const { products, categories } = shopEntities();
  const tasks: WebTask[] = [];
  for (const c of categories) {
    const cheapest = extreme(c, products, 'price_asc');
    if (cheapest) {
      tasks.push(info('shop', 'cheapest-review-count', c.id, c.test ? 'test' : 'train', asking(`How many customer reviews does the cheapest product in the ${c.name} category have?`, 'number'),
        count(cheapest.reviewCount), [...toExtreme(c, 'price_asc', cheapest), { stop: String(cheapest.reviewCount) }]));
    }
    const priciest = extreme(c, products, 'price_desc');
    if (priciest) {
      tasks.push(info('shop', 'priciest-sku', c.id, 'test-templates', asking(`What is the SKU of the most expensive product in the ${c.name} category?`, 'sku'),
        { type: 'id', expected: priciest.sku }, [...toExtreme(c, 'price_desc', priciest), { stop: priciest.sku }]));
    }
  }
  return tasks;
}

/** Posts named by a unique title whose author is not the logged-in user (whose name is also in the page header). */
function authoredPosts(): ForumPost[] {
  return uniquelyTitled().filter((p) => p.author !== 'curious_otter');
}

/** The highest-scoring post of a sub-forum, when it is strictly highest, uniquely titled and not the logged-in user's. */
function topPosts(): { forum: { id: number; name: string; test: boolean }; post: ForumPost }[] {
  const { posts, forums } = forumEntities();
  const titled = new Set(authoredPosts().map((p) => p.id));
  return forums.flatMap((f) => {
    const [top, second] = posts.filter((p) => p.forum === f.name).sort((a, b) => b.score - a.score);
    return top && second && top.score !== second.score && titled.has(top.id) ? [{ forum: f, post: top }] : [];
  });
}

function forumMultiHop(): WebTask[] {
  const { users } = forumEntities();
  const byName = new Map<string, ForumUser>(users.map((u) => [u.username, u]));
  const user = (p: ForumPost) => byName.get(p.author) as ForumUser;
  const tasks: WebTask[] = [];
  const toAuthor = (p: ForumPost): WebPlanStep[] => [...toPost(p), { clickLink: p.author }];

  const drawn = draw('post-author-karma', pools(authoredPosts(), (p) => p.test), { train: 14, test: 5 });
  for (const split of ['train', 'test'] as const) {
    for (const p of drawn[split]) {
      tasks.push(info('forum', 'post-author-karma', p.id, split, asking(`What is the karma of the user who submitted the post "${p.title}" in f/${p.forum}?`, 'number'),
        count(user(p).karma), [...toAuthor(p), { stop: String(user(p).karma) }]));
    }
  }
  for (const p of drawForTemplate('post-author-joined', authoredPosts(), 8)) {
    tasks.push(info('forum', 'post-author-joined', p.id, 'test-templates', asking(`On what date did the user who submitted the post "${p.title}" in f/${p.forum} join the forum?`, 'date'),
      { type: 'date', expected: user(p).joined }, [...toAuthor(p), { stop: user(p).joined }]));
  }

  for (const { forum: f, post } of topPosts()) {
    const toTopAuthor: WebPlanStep[] = [{ goto: '/' }, { clickLink: `f/${f.name}` }, { clickLink: 'Top' }, { clickLink: post.title }, { clickLink: post.author }];
    const u = user(post);
    tasks.push(info('forum', 'top-post-author-posts', f.id, f.test ? 'test' : 'train', asking(`How many posts has the user who submitted the highest-scoring post in f/${f.name} submitted?`, 'number'),
      count(u.postCount), [...toTopAuthor, { stop: String(u.postCount) }]));
    tasks.push(info('forum', 'top-post-author-karma', f.id, 'test-templates', asking(`What is the karma of the user who submitted the highest-scoring post in f/${f.name}?`, 'number'),
      count(u.karma), [...toTopAuthor, { stop: String(u.karma) }]));
  }
  return tasks;
}

export function multiHopTasks(): WebTask[] {
  return [...shopMultiHop(), ...forumMultiHop()];
}
