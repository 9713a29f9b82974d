/**
 * Infeasible templates (WebArena's convention): each asks for something the sites do not have —
 * a product, sub-forum, user, order or post that does not exist — and the right answer is `N/A`
 * exactly; any other answer fails. The names are made of the sites' own vocabulary and checked
 * against the seeded content, so they look like real ones.
 */
import type { Split } from '../../contract.ts';
import { FORUMS, NAME_LEFT, NAME_RIGHT } from '../sites/forum/words.ts';
import { orderNumber } from '../sites/shop/schema.ts';
import { ADJECTIVES, CATEGORIES, COLOURS } from '../sites/shop/words.ts';
import { asking } from './answer-forms.ts';
import { drawForTemplate, INFEASIBLE_ANSWER, INFEASIBLE_EVALUATOR, SITE_PLACEHOLDERS, toPostByUrl } from './breadth-common.ts';
import { crossSiteTask } from './cross-site.ts';
import { forumEntities, uniquelyTitled } from './forum-entities.ts';
import { draw, heldOut, pools } from './seeded.ts';
import { shopEntities } from './shop-entities.ts';
import { makeTask, type WebPlanStep, type WebTask } from './task.ts';

const stopNA: WebPlanStep = { stop: INFEASIBLE_ANSWER };

const infeasible = (site: 'shop' | 'forum', template: string, n: number, split: Split, objective: string, plan: WebPlanStep[]) =>
  makeTask(site, 'infeasible', template, n, split, { objective, startPath: '/', evaluator: INFEASIBLE_EVALUATOR, plan: [...plan, stopNA] });

/** Product names the shop does not sell: one category's brand on another category's noun. */
function missingProducts(): string[] {
  const real = new Set(shopEntities().products.map((p) => p.name));
  const names = CATEGORIES.flatMap((c, i) => {
    const other = CATEGORIES[(i + 3) % CATEGORIES.length] as (typeof CATEGORIES)[number];
    return c.brands.map((brand, j) => `${brand} ${ADJECTIVES[(i + j) % ADJECTIVES.length]} ${other.nouns[j % other.nouns.length]}, ${COLOURS[(i * 3 + j) % COLOURS.length]}`);
  });
  return names.filter((name) => !real.has(name));
}

/** Sub-forum names the forum does not have. */
const MISSING_FORUMS = ['photography', 'fitness', 'finance', 'history', 'gardening', 'politics', 'sports', 'pets', 'fashion', 'astronomy'];

/** User names in the forum's pattern that no user has. */
function missingUsers(): string[] {
  const real = new Set(forumEntities().users.map((u) => u.username));
  const names = NAME_LEFT.flatMap((left, i) => NAME_RIGHT.slice(0, 3).map((right, j) => `${left}_${right}${(i * 7 + j * 13) % 90 + 10}`));
  return names.filter((name) => !real.has(name));
}

/** Post titles in a sub-forum's own pattern that no post of it has: its title templates on another sub-forum's topics. */
function missingPosts(): { forum: string; title: string }[] {
  const real = new Set(forumEntities().posts.map((p) => `${p.forum}\n${p.title}`));
  return FORUMS.flatMap((f, i) => {
    const other = FORUMS[(i + 1) % FORUMS.length] as (typeof FORUMS)[number];
    return f.titles.map((t, j) => ({ forum: f.name, title: t.replace('{t}', other.topics[j % other.topics.length] as string) }));
  }).filter((p) => !real.has(`${p.forum}\n${p.title}`));
}

function trainAndTestTemplates(): WebTask[] {
  const tasks: WebTask[] = [];
  const products = missingProducts().map((name, i) => ({ name, n: i + 1 }));
  const drawn = draw('missing-product-price', pools(products, (p) => heldOut(`missing-product/${p.name}`)), { train: 12, test: 4 });
  for (const split of ['train', 'test'] as const) {
    for (const { name, n } of drawn[split]) {
      tasks.push(infeasible('shop', 'missing-product-price', n, split, asking(`What is the price of "${name}" in the shop?`, 'price'),
        [{ goto: '/' }, { fill: { label: 'Search products', value: name } }, { clickButton: 'Search' }]));
    }
  }
  MISSING_FORUMS.forEach((name, i) => {
    tasks.push(infeasible('forum', 'missing-forum-top-post', i + 1, i >= 8 ? 'test' : 'train', asking(`What is the title of the highest-scoring post in f/${name}?`, 'title'),
      [{ goto: '/' }]));
  });
  const users = missingUsers().map((name, i) => ({ name, n: i + 1 }));
  const drawnUsers = draw('missing-user-karma', pools(users, (u) => heldOut(`missing-user/${u.name}`)), { train: 10, test: 4 });
  for (const split of ['train', 'test'] as const) {
    for (const { name, n } of drawnUsers[split]) {
      tasks.push(infeasible('forum', 'missing-user-karma', n, split, asking(`What is the karma of the user ${name}?`, 'number'), [{ goto: '/' }]));
    }
  }
  return tasks;
}

/** Templates of the `test-templates` split only. */
function heldOutTemplates(): WebTask[] {
  const tasks: WebTask[] = [];
  const { orders } = shopEntities();
  // Numbers in the shop's format past every seeded order (and past any an episode could place).
  for (let i = 1; i <= 6; i++) {
    const number = orderNumber(900 + i * 11);
    if (orders.some((o) => o.number === number)) throw new Error(`missing-order-total: order ${number} exists`);
    tasks.push(infeasible('shop', 'missing-order-total', 900 + i * 11, 'test-templates', asking(`What was the grand total of my order number ${number}?`, 'price'),
      [{ goto: '/' }, { clickLink: 'My Orders' }]));
  }
  missingPosts().filter((_, i) => i % 5 === 0).slice(0, 6).forEach(({ forum, title }, i) => {
    tasks.push(infeasible('forum', 'missing-post-author', i + 1, 'test-templates', asking(`Who submitted the post "${title}" in f/${forum}?`, 'username'),
      [{ goto: '/' }, { clickLink: `f/${forum}` }, { clickLink: 'New' }]));
  });
  const posts = drawForTemplate('missing-product-comments/posts', uniquelyTitled(), 6);
  drawForTemplate('missing-product-comments', missingProducts(), 6).forEach((name, i) => {
    const q = posts[i] as (typeof posts)[number];
    tasks.push(crossSiteTask('infeasible', 'missing-product-comments', i + 1, 'test-templates', 'forum', {
      objective: asking(`How many customer reviews does "${name}" have in the shop at ${SITE_PLACEHOLDERS.shop}, plus the comments on the post "${q.title}" in f/${q.forum}, together?`, 'number'),
      startPath: '/',
      evaluator: INFEASIBLE_EVALUATOR,
      plan: [...toPostByUrl(q), { goto: `/search?q=${encodeURIComponent(name)}`, site: 'shop' }, stopNA],
    }));
  });
  return tasks;
}

export function infeasibleTasks(): WebTask[] {
  return [...trainAndTestTemplates(), ...heldOutTemplates()];
}
