/**
 * The web tasks and evaluators without a browser: split sizes and disjointness, determinism,
 * ids and categories, and every evaluator's accepting and rejecting cases (the database checks
 * on a real site instance, written to directly).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EnvError } from '../../../envs/contract.ts';
import { startSiteServer, type SiteServer } from '../../../envs/web/site-server.ts';
import { forumInfoTasks } from '../../../envs/web/tasks/forum-info.ts';
import { shopStateTasks } from '../../../envs/web/tasks/shop-state.ts';
import {
  allWebTasks, answerNumber, defaultShippingAddress, evaluateWebTask, matchAnswer, matchUrl, normalizeAnswer, webCategoryOf, webTask, webTasks, type DbEvaluator, type WebTask,
} from '../../../envs/web/tasks/index.ts';
import { postAs } from './fetch-as.ts';

describe('web task lists', () => {
  it('has at least 150 train and 50 test tasks, no id in both, every category in both', () => {
    const train = webTasks('train');
    const test = webTasks('test');
    expect(train.length).toBeGreaterThanOrEqual(150);
    expect(test.length).toBeGreaterThanOrEqual(50);
    expect(new Set(train).size).toBe(train.length);
    expect(train.filter((id) => test.includes(id))).toEqual([]);
    const categories = (ids: readonly string[]) => new Set(ids.map(webCategoryOf));
    // The six site × kind categories, and (issue 39) tasks across both sites and infeasible ones.
    const all = ['forum/infeasible', 'forum/info', 'forum/nav', 'forum/state', 'multi/info', 'multi/state', 'shop/infeasible', 'shop/info', 'shop/nav', 'shop/state'];
    expect([...categories(train)].sort()).toEqual(all);
    expect([...categories(test)].sort()).toEqual(all);
  });

  it('holds test entities out: no train task of a template names what a test task of it does', () => {
    const entity = (t: WebTask) => `${t.template} ${t.objective.match(/"[^"]+"|f\/\w+|the [\w &]+ category|user \w+|number \d+/g)?.join(' ') ?? ''}`;
    const trainKeys = new Set(allWebTasks().filter((t) => t.split === 'train').map(entity));
    const shared = allWebTasks().filter((t) => t.split === 'test' && trainKeys.has(entity(t)));
    expect(shared.map((t) => t.id)).toEqual([]);
  });

  it('builds the same tasks every time (seeded), and each id resolves to its task', () => {
    expect(JSON.stringify(shopStateTasks())).toBe(JSON.stringify(shopStateTasks()));
    expect(JSON.stringify(forumInfoTasks())).toBe(JSON.stringify(forumInfoTasks()));
    for (const id of webTasks('test')) {
      const task = webTask(id);
      expect(task.id).toBe(id);
      expect(task.split).toBe('test');
      expect(task.category).toBe(webCategoryOf(id));
      expect(task.category).toBe(`${task.sites && task.sites.length > 1 ? 'multi' : task.site}/${task.kind}`);
      expect(task.plan.at(-1)).toHaveProperty('stop');
    }
  });

  it('refuses unknown ids with TASK_UNKNOWN, and webCategoryOf checks the id shape', () => {
    for (const bad of ['shop/info/price/999999', 'nope', '', 'shop/info/price']) {
      expect(() => webTask(bad)).toThrow(EnvError);
      try {
        webTask(bad);
      } catch (error) {
        expect((error as EnvError).code).toBe('TASK_UNKNOWN');
      }
    }
    for (const bad of ['mall/info/price/1', 'shop/buy/price/1', 'shop/info/price/x', 'shop/info/price']) {
      expect(() => webCategoryOf(bad), bad).toThrow(/unknown web task/);
    }
    expect(webCategoryOf('forum/state/upvote/12')).toBe('forum/state');
  });

  it('writes objectives that name what they ask about, without ambiguity markers left in', () => {
    for (const task of allWebTasks()) {
      expect(task.objective, task.id).toMatch(/^[A-Z].*[.?]$/);
      expect(task.objective, task.id).not.toMatch(/undefined|NaN|\{t\}/);
    }
  });
});

describe('answer evaluators', () => {
  it('normalizes case, spaces, quotes and a final period', () => {
    expect(normalizeAnswer('  "Voltix   Ultra Webcam, Red." ')).toBe('voltix ultra webcam, red');
    expect(matchAnswer({ type: 'exact_match', expected: 'SPO-1123' }, 'spo-1123.').reward).toBe(1);
    expect(matchAnswer({ type: 'exact_match', expected: 'SPO-1123' }, 'The SKU is SPO-1123').reward).toBe(0);
    expect(matchAnswer({ type: 'exact_match', expected: 'x' }, undefined)).toMatchObject({ reward: 0, reason: expect.stringContaining('no answer') });
  });

  it('must_include needs every expected string', () => {
    const spec = { type: 'must_include', expected: ['2023-04-17', 'Pending'] } as const;
    expect(matchAnswer(spec, 'It was placed on 2023-04-17 and is pending').reward).toBe(1);
    expect(matchAnswer(spec, 'placed 2023-04-17').reward).toBe(0);
  });

  it('reads one number from $12.50, 12.5, 1,249 reviews; rejects several or none', () => {
    expect(answerNumber('$12.50')).toBe(12.5);
    expect(answerNumber('12.5')).toBe(12.5);
    expect(answerNumber('It has 1,249 reviews')).toBe(1249);
    expect(answerNumber('$5.00, i.e. 5')).toBe(5);
    expect(answerNumber('between 3 and 5')).toBeUndefined();
    expect(answerNumber('none')).toBeUndefined();
    const price = { type: 'number', expected: 12.5, tolerance: 0.001 } as const;
    expect(matchAnswer(price, 'The price is $12.50.').reward).toBe(1);
    expect(matchAnswer(price, '$12.49').reward).toBe(0);
    expect(matchAnswer({ type: 'number', expected: 4.3, tolerance: 0.051 }, '4.3 out of 5').reward).toBe(1); // a scale is not a second number (issue 39)
    expect(matchAnswer({ type: 'number', expected: 4.3, tolerance: 0.051 }, '4.3 or 5').reward).toBe(0);
    expect(matchAnswer({ type: 'number', expected: 4.3, tolerance: 0.051 }, '4.3').reward).toBe(1);
  });
});

describe('URL evaluator', () => {
  const spec = { type: 'url_match', path: '/search', query: { q: 'dog bed' } } as const;
  it('ignores the host, a message parameter, page=1 and a trailing slash; compares values loosely', () => {
    expect(matchUrl(spec, 'http://127.0.0.1:4000/search?q=Dog+Bed&page=1&done=added').reward).toBe(1);
    expect(matchUrl(spec, 'http://127.0.0.1:4000/search?q=Dog+Bed&page=2').reward).toBe(0); // another page of results (issue 39)
    expect(matchUrl(spec, 'https://shop.example/search/?q=dog%20bed').reward).toBe(1);
    expect(matchUrl({ type: 'url_match', path: '/f/books', ignoreQuery: ['sort'] }, '/f/books?sort=new').reward).toBe(1);
    expect(matchUrl({ type: 'url_match', path: '/f/books' }, '/f/books?sort=new').reward).toBe(0);
  });
  it('rejects another path, a missing or different parameter, and a non-URL', () => {
    expect(matchUrl(spec, 'http://h/search?q=dog').reward).toBe(0);
    expect(matchUrl(spec, 'http://h/search').reward).toBe(0);
    expect(matchUrl(spec, 'http://h/category/pet-supplies?q=dog+bed').reward).toBe(0);
    expect(matchUrl(spec, 'http://[bad').reward).toBe(0);
  });
});

describe('database evaluators', () => {
  let server: SiteServer;
  beforeAll(async () => {
    server = await startSiteServer({ env: {} });
  });
  afterAll(() => server.close());

  const task = (site: 'shop' | 'forum', evaluator: DbEvaluator): WebTask => ({
    id: `${site}/state/test/1`, site, kind: 'state', category: `${site}/state`, template: 'test', split: 'test', objective: 'Test.', startPath: '/', evaluator, plan: [{ stop: '' }],
  });
  const judge = (t: WebTask, id: string) => evaluateWebTask(t, { finalUrl: '', db: server.database(id, t.site) }).reward;

  it('order: exactly one new order with exactly those items, that shipping method and the default address', async () => {
    const id = server.createInstance();
    const spec = webTask(webTasks('test').find((t) => t.startsWith('shop/state/place-order/')) as string).evaluator as Extract<DbEvaluator, { check: 'order' }>;
    const t = task('shop', spec);
    expect(judge(t, id)).toBe(0);
    const item = spec.items[0] as { productId: number; quantity: number };
    const other = spec.shippingMethod === 'express' ? 'standard' : 'express';
    const home = defaultShippingAddress();
    const place = async (quantity: number, method: string, address = home) => {
      await postAs(server, id, 'shop', '/cart/add', { product_id: String(item.productId), qty: String(quantity) });
      const done = await postAs(server, id, 'shop', '/checkout', { ...address, shipping_method: method });
      expect(done.status).toBe(303);
    };
    await place(item.quantity, other);
    expect(judge(t, id)).toBe(0);
    server.resetInstance(id);
    await place(item.quantity + 1, spec.shippingMethod);
    expect(judge(t, id)).toBe(0);
    server.resetInstance(id);
    await place(item.quantity, spec.shippingMethod);
    expect(judge(t, id)).toBe(1);
    expect(judge(task('shop', { ...spec, afterOrderId: 10_000 }), id)).toBe(0);
    await place(item.quantity, spec.shippingMethod); // a second order is an effect the task did not ask for
    expect(judge(t, id)).toBe(0);
  });

  it('review, cart, vote, post and comment: the right row accepts, a wrong one does not', async () => {
    const id = server.createInstance();
    const review = task('shop', { type: 'db', check: 'review', afterReviewId: 1200, productId: 7, rating: 4, title: 'Solid purchase', body: 'Fine.' });
    await postAs(server, id, 'shop', '/product/7/reviews', { rating: '3', nickname: 'Emma', title: 'Solid purchase', body: 'Fine.' });
    expect(judge(review, id)).toBe(0);
    server.resetInstance(id); // a second review is an extra effect: start again
    await postAs(server, id, 'shop', '/product/7/reviews', { rating: '4', nickname: 'Emma', title: '  solid   PURCHASE ', body: 'fine' });
    expect(judge(review, id)).toBe(1);
    server.resetInstance(id);

    const cart = webTask(webTasks('test').find((t) => t.startsWith('shop/state/add-to-cart/')) as string);
    const { productId, quantity } = cart.evaluator as { productId: number; quantity: number };
    await postAs(server, id, 'shop', '/cart/add', { product_id: String(productId), qty: String(quantity - 1) });
    expect(judge(cart, id)).toBe(0);
    await postAs(server, id, 'shop', '/cart/add', { product_id: String(productId), qty: '1' });
    expect(judge(cart, id)).toBe(1);
    server.resetInstance(id);

    const upvote = webTask(webTasks('train').find((t) => t.startsWith('forum/state/upvote/')) as string);
    const postId = (upvote.evaluator as { postId: number }).postId;
    const forum = /f\/(\w+)/.exec(upvote.objective)?.[1] as string;
    expect(judge(upvote, id)).toBe(0);
    await postAs(server, id, 'forum', `/f/${forum}/${postId}/vote`, { direction: 'down' });
    expect(judge(upvote, id)).toBe(0);
    await postAs(server, id, 'forum', `/f/${forum}/${postId}/vote`, { direction: 'up' });
    expect(judge(upvote, id)).toBe(1);
    await postAs(server, id, 'forum', `/f/${forum}/${postId}/vote`, { direction: 'up' }); // a second click takes it back
    expect(judge(upvote, id)).toBe(0);
    server.resetInstance(id);

    const post = task('forum', { type: 'db', check: 'post', afterPostId: 400, forum: 'books', title: 'Hello there', body: 'First post.' });
    await postAs(server, id, 'forum', '/f/movies/submit', { title: 'Hello there', body: 'First post.' });
    expect(judge(post, id)).toBe(0);
    server.resetInstance(id);
    await postAs(server, id, 'forum', '/f/books/submit', { title: 'Hello there', body: 'First post.' });
    expect(judge(post, id)).toBe(1);
    server.resetInstance(id);

    const comment = task('forum', { type: 'db', check: 'comment', afterCommentId: 100_000, postId, body: 'Nice.' });
    await postAs(server, id, 'forum', `/f/${forum}/${postId}/comment`, { body: 'Nice.' });
    expect(judge(comment, id)).toBe(0); // a seeded-looking id bound: nothing counts as new
    expect(judge(task('forum', { ...comment.evaluator, afterCommentId: 1781 } as DbEvaluator), id)).toBe(1);
  });

  it('needs a database for a db task', () => {
    const t = webTask(webTasks('test').find((x) => x.startsWith('forum/state/')) as string);
    expect(() => evaluateWebTask(t, { finalUrl: '' })).toThrow(/no database was given/);
  });
});
