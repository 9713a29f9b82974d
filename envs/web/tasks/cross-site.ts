/**
 * Templates across both sites (WebArena's multi-site tasks): read a fact on one site and use it
 * on the other, or combine a fact of each. The objective gives the other site's address as
 * WebArena's placeholder (`__SHOP__`, `__FORUM__`), which the env fills in; the task declares
 * both sites (`sites`), so a sandbox lets the browser reach both. Ids read `multi/kind/template/n`.
 */
import type { Split } from '../../contract.ts';
import { money } from '../sites/format.ts';
import type { SiteName } from '../site-urls.ts';
import { asking } from './answer-forms.ts';
import { drawForTemplate, onSite, SITE_PLACEHOLDERS, toPostByUrl, toProductBySearchUrl } from './breadth-common.ts';
import { forumEntities, forumSeededMax, toPost, uniquelyTitled, type ForumPost } from './forum-entities.ts';
import { draw, pools, type EntitySplit } from './seeded.ts';
import { shopEntities, toProduct, type ShopProduct } from './shop-entities.ts';
import { makeTask, type TaskDraft, type WebTask, type WebTaskKind } from './task.ts';

const OTHER: Readonly<Record<SiteName, SiteName>> = { shop: 'forum', forum: 'shop' };

/** A task that starts on `start` and needs the other site too. */
export function crossSiteTask(kind: WebTaskKind, template: string, n: number, split: Split, start: SiteName, draft: TaskDraft): WebTask {
  const task = makeTask(start, kind, template, n, split, draft);
  return { ...task, id: `multi/${kind}/${template}/${n}`, category: `multi/${kind}`, sites: [start, OTHER[start]] };
}

/** `count[split]` (product, post) pairs per split, products and posts each held out as the single-site templates hold them. */
function pairs(template: string, products: readonly ShopProduct[], posts: readonly ForumPost[], counts: Readonly<Record<EntitySplit, number>>): Record<EntitySplit, [ShopProduct, ForumPost][]> {
  const ps = draw(`${template}/products`, pools(products, (p) => p.test), counts);
  const qs = draw(`${template}/posts`, pools(posts, (p) => p.test), counts);
  return { train: ps.train.map((p, i) => [p, qs.train[i] as ForumPost]), test: ps.test.map((p, i) => [p, qs.test[i] as ForumPost]) };
}

const SHOP = SITE_PLACEHOLDERS.shop;
const FORUM = SITE_PLACEHOLDERS.forum;

function trainAndTestTemplates(): WebTask[] {
  const { products } = shopEntities();
  const { forums } = forumEntities();
  const seeded = forumSeededMax();
  const tasks: WebTask[] = [];

  // Read a price in the shop, post it to the forum (checked on the forum's database).
  const drawn = draw('post-price', pools(products, (p) => p.test), { train: 12, test: 4 });
  for (const split of ['train', 'test'] as const) {
    const inSplit = forums.filter((f) => f.test === (split === 'test'));
    for (const p of drawn[split]) {
      const f = inSplit[p.id % inSplit.length] as (typeof forums)[number];
      const title = `Price of ${p.name}`;
      const body = money(p.priceCents);
      tasks.push(crossSiteTask('state', 'post-price', p.id, split, 'forum', {
        objective: `Find the price of "${p.name}" in the shop at ${SHOP}, then create a post in f/${f.name} titled "${title}" whose body is only that price, as the shop shows it (such as $12.34).`,
        startPath: '/',
        evaluator: { type: 'db', check: 'post', afterPostId: seeded.post, forum: f.name, title, body },
        plan: [{ goto: '/', site: 'shop' }, ...toProduct(p), { goto: '/' }, { clickLink: `f/${f.name}` }, { clickLink: 'Create a post' },
          { fill: { label: 'Title', value: title } }, { fill: { label: 'Body', value: body } }, { clickButton: 'Create post' }, { stop: '' }],
      }));
    }
  }

  // A count from each site, added up.
  const both = pairs('reviews-plus-comments', products, uniquelyTitled(), { train: 12, test: 4 });
  for (const split of ['train', 'test'] as const) {
    for (const [p, q] of both[split]) {
      const total = p.reviewCount + q.commentCount;
      tasks.push(crossSiteTask('info', 'reviews-plus-comments', p.id * 1000 + q.id, split, 'shop', {
        objective: asking(`How many customer reviews does "${p.name}" have in this shop, plus the comments on the post "${q.title}" in f/${q.forum} on the forum at ${FORUM}, together?`, 'number'),
        startPath: '/',
        evaluator: { type: 'number', expected: total, tolerance: 0 },
        plan: [{ goto: '/' }, ...toProduct(p), ...onSite('forum', toPost(q)), { stop: String(total) }],
      }));
    }
  }
  return tasks;
}

/** Templates of the `test-templates` split only. */
function heldOutTemplates(): WebTask[] {
  const { products } = shopEntities();
  const { users } = forumEntities();
  const seeded = forumSeededMax();
  const tasks: WebTask[] = [];

  const posts = drawForTemplate('comment-sku/posts', uniquelyTitled(), 6);
  drawForTemplate('comment-sku', products, 6).forEach((p, i) => {
    const q = posts[i] as ForumPost;
    tasks.push(crossSiteTask('state', 'comment-sku', p.id * 1000 + q.id, 'test-templates', 'forum', {
      objective: `Find the SKU of "${p.name}" in the shop at ${SHOP}, and comment that SKU, and nothing else, on the post "${q.title}" in f/${q.forum}.`,
      startPath: '/',
      evaluator: { type: 'db', check: 'comment', afterCommentId: seeded.comment, postId: q.id, body: p.sku },
      plan: [...toProductBySearchUrl(p.name, 'shop'), ...toPostByUrl(q), { fill: { label: 'Write a comment', value: p.sku } }, { clickButton: 'Post comment' }, { stop: '' }],
    }));
  });

  const posters = drawForTemplate('stock-plus-posts/users', users.filter((u) => u.id !== 1 && u.postCount > 0), 6);
  drawForTemplate('stock-plus-posts', products.filter((p) => p.stock > 0), 6).forEach((p, i) => {
    const u = posters[i] as (typeof users)[number];
    const total = p.stock + u.postCount;
    tasks.push(crossSiteTask('info', 'stock-plus-posts', p.id * 1000 + u.id, 'test-templates', 'forum', {
      objective: asking(`How many units of "${p.name}" are left in stock in the shop at ${SHOP}, plus the number of posts the user ${u.username} has submitted on this forum, together?`, 'number'),
      startPath: '/',
      evaluator: { type: 'number', expected: total, tolerance: 0 },
      plan: [{ goto: `/user/${u.username}` }, ...toProductBySearchUrl(p.name, 'shop'), { stop: String(total) }],
    }));
  });
  return tasks;
}

export function crossSiteTasks(): WebTask[] {
  return [...trainAndTestTemplates(), ...heldOutTemplates()];
}
