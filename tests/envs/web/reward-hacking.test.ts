/**
 * The reward-hacking probes of issue 39, at the evaluator level: each named test task is given
 * the answer, final URL or site state that scored 1 without doing the task (enumerations, a
 * review with the wrong text, an order shipped elsewhere, an extra cart line, another page of a
 * listing), which must score 0; and the right answers that scored 0 ("3.5 out of 5", "SKU:
 * OFF-1330", "April 17, 2023", "submitted by sleepy_lynx76"), which must score 1. State probes
 * write to a real site instance over HTTP, as an agent's browser would.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSiteServer, type SiteServer } from '../../../envs/web/site-server.ts';
import { forumEntities } from '../../../envs/web/tasks/forum-entities.ts';
import { forumData } from '../../../envs/web/tasks/seeded.ts';
import { shopEntities } from '../../../envs/web/tasks/shop-entities.ts';
import { defaultShippingAddress, evaluateWebTask, webTask, webTasks, type DbEvaluator, type WebTask } from '../../../envs/web/tasks/index.ts';
import { postAs } from './fetch-as.ts';

/** A test-split task by id (ids are stable: a template's draw is seeded by its name). */
function testTask(id: string): WebTask {
  expect(webTasks('test'), `${id} is a test task`).toContain(id);
  return webTask(id);
}
const answered = (id: string, answer: string) => evaluateWebTask(testTask(id), { answer, finalUrl: '' });
const expected = (id: string) => (testTask(id).evaluator as { expected: string | number }).expected;

/** Every day from `from` to `to` inclusive, as YYYY-MM-DD. */
function days(from: string, to: string): string[] {
  const out: string[] = [];
  for (let t = Date.parse(`${from}T00:00:00Z`); t <= Date.parse(`${to}T00:00:00Z`); t += 86_400_000) out.push(new Date(t).toISOString().slice(0, 10));
  return out;
}

describe('answer enumeration scores 0 (issue 39)', () => {
  const DATE_TASKS = ['shop/info/order-date/7', 'shop/info/order-date/22', 'forum/info/user-joined/26', 'forum/info/user-joined/10'];

  it('every date from 2019-01-01 to 2024-06-01 solves none of the date tasks, in any format', () => {
    const all = days('2019-01-01', '2024-06-01');
    const long = all.map((d) => new Date(`${d}T00:00:00Z`).toLocaleDateString('en-US', { month: 'long', day: 'numeric', year: 'numeric', timeZone: 'UTC' }));
    for (const id of DATE_TASKS) {
      expect(all, id).toContain(expected(id));
      expect(answered(id, all.join(' ')), id).toMatchObject({ reward: 0, reason: expect.stringContaining(`${all.length} different values`) });
      expect(answered(id, long.join('; ')).reward, id).toBe(0);
      expect(answered(id, `${String(expected(id))} or the day after`).reward, id).toBe(1); // one date stated
      expect(answered(id, `${String(expected(id))}, 2019-01-01`).reward, id).toBe(0);
    }
  });

  it('all Books names solve neither the cheapest nor the most expensive Books task', () => {
    const { products, categories } = shopEntities();
    const books = categories.find((c) => c.slug === 'books');
    const names = products.filter((p) => p.categoryId === books?.id).map((p) => p.name);
    expect(names.length).toBe(40);
    for (const id of ['shop/info/cheapest-in-category/3', 'shop/info/priciest-in-category/3']) {
      expect(names, id).toContain(expected(id));
      expect(answered(id, names.join('\n')).reward, id).toBe(0);
      expect(answered(id, names.join(', ')).reward, id).toBe(0);
      const other = names.find((n) => n !== expected(id)) as string;
      expect(answered(id, `${String(expected(id))} or ${other}`).reward, id).toBe(0);
    }
  });

  it('all f/science titles do not solve "top post"; two titles do not either', () => {
    const id = 'forum/info/top-post/3';
    const titles = forumEntities().posts.filter((p) => p.forum === 'science').map((p) => p.title);
    expect(titles).toContain(expected(id));
    expect(answered(id, titles.join(' | ')).reward).toBe(0);
    const other = titles.find((t) => t !== expected(id)) as string;
    expect(answered(id, `"${String(expected(id))}" (or maybe "${other}")`).reward).toBe(0);
  });

  it('lists of numbers, prices, SKUs and usernames fail; so does hedging with N/A', () => {
    const numbers = Array.from({ length: 101 }, (_, i) => String(i)).join(' ');
    for (const id of ['forum/info/comment-count/389', 'shop/info/review-count/226', 'forum/info/user-karma/10']) expect(answered(id, numbers).reward, id).toBe(0);
    expect(answered('shop/info/price/197', shopEntities().products.map((p) => `$${(p.priceCents / 100).toFixed(2)}`).join(' ')).reward).toBe(0);
    expect(answered('shop/info/sku/330', shopEntities().products.map((p) => p.sku).join(' ')).reward).toBe(0);
    expect(answered('forum/info/post-author/310', forumEntities().users.map((u) => u.username).join(' ')).reward).toBe(0);
    expect(answered('forum/info/post-author/310', 'sleepy_lynx76 or swift_otter80').reward).toBe(0);
    expect(answered('shop/info/order-date/7', 'N/A (perhaps 2023-04-17)').reward).toBe(0);
  });
});

describe('right answers in other words score 1 (issue 39)', () => {
  it('reads a rating with its scale, a price with its currency, a count in a sentence', () => {
    expect(expected('shop/info/average-rating/245')).toBe(3.5);
    for (const a of ['3.5 out of 5', '3.5', '3.50', '3.5/5 stars', 'The average rating is 3.5 out of 5.']) expect(answered('shop/info/average-rating/245', a).reward, a).toBe(1);
    expect(expected('shop/info/price/197')).toBe(75.99);
    for (const a of ['$75.99', '75.99 USD', '75.99', 'USD 75.99', 'It costs $75.99.']) expect(answered('shop/info/price/197', a).reward, a).toBe(1);
    expect(answered('shop/info/price/197', '$76.00').reward).toBe(0);
    expect(answered('forum/info/comment-count/389', 'The post has 5 comments.').reward).toBe(1);
  });

  it('reads a username, an id and a name out of a sentence, ignoring case', () => {
    expect(answered('forum/info/post-author/310', 'The post was submitted by sleepy_lynx76').reward).toBe(1);
    expect(answered('forum/info/post-author/310', 'u/Sleepy_Lynx76').reward).toBe(1);
    expect(answered('forum/info/post-author/310', 'swift_otter80').reward).toBe(0);
    for (const a of ['SKU: OFF-1330', 'off-1330', 'The SKU is OFF-1330.', 'OFF1330']) expect(answered('shop/info/sku/330', a).reward, a).toBe(1);
    expect(answered('shop/info/sku/330', 'OFF-1331').reward).toBe(0);
    const cheapest = String(expected('shop/info/cheapest-in-category/3'));
    expect(answered('shop/info/cheapest-in-category/3', `The cheapest book is "${cheapest.toLowerCase()}".`).reward).toBe(1);
    expect(answered('forum/info/top-post/3', `${String(expected('forum/info/top-post/3'))}`.replace(/ /g, '  ')).reward).toBe(1);
  });

  it('reads a date in any common format as the one YYYY-MM-DD the task asks', () => {
    expect(expected('shop/info/order-date/7')).toBe('2023-04-17');
    for (const a of ['2023-04-17', 'April 17, 2023', '17 Apr 2023', '04/17/2023', 'Apr 17th, 2023', 'Order date: 2023-04-17 14:03']) {
      expect(answered('shop/info/order-date/7', a).reward, a).toBe(1);
    }
    expect(answered('shop/info/order-date/7', 'April 18, 2023').reward).toBe(0);
  });

  it('every info objective says what form its answer takes', () => {
    for (const id of webTasks('test')) {
      const task = webTask(id);
      if (task.kind === 'info') expect(task.objective, id).toMatch(/ Answer with the [^.]+ only[^.]*\.$/);
    }
  });
});

describe('URL jumps to another page of a listing score 0 (issue 39)', () => {
  const at = (id: string, url: string) => evaluateWebTask(testTask(id), { finalUrl: url }).reward;
  it('counts page, and the parameters the task names', () => {
    expect(at('forum/nav/sorted-forum/3', 'http://h/f/science?sort=new')).toBe(1);
    expect(at('forum/nav/sorted-forum/3', 'http://h/f/science?sort=new&page=2')).toBe(0);
    expect(at('forum/nav/sorted-forum/3', 'http://h/f/science?sort=top')).toBe(0);
    expect(at('forum/nav/forum-page/3', 'http://h/f/science?sort=top')).toBe(1); // any order of the sub-forum
    expect(at('forum/nav/forum-page/3', 'http://h/f/science?page=3')).toBe(0);
    expect(at('shop/nav/search/7', 'http://h/search?q=earbuds&page=2')).toBe(0);
    expect(at('shop/nav/search/7', 'http://h/search?q=earbuds&page=1')).toBe(1);
    expect(at('shop/nav/product-page/17', 'http://h/product/17?done=review')).toBe(1);
  });
});

describe('state changes are checked in full, and extra effects fail (issue 39)', () => {
  let server: SiteServer;
  let id: string;
  beforeAll(async () => {
    server = await startSiteServer({ env: {} });
    id = server.createInstance();
  });
  afterAll(() => server.close());
  const judged = (task: WebTask) => {
    const verdict = evaluateWebTask(task, { finalUrl: '', db: server.database(id, task.site) });
    server.resetInstance(id);
    return verdict.reward;
  };
  const spec = <C extends DbEvaluator['check']>(task: WebTask, check: C) => {
    expect(task.evaluator).toMatchObject({ type: 'db', check });
    return task.evaluator as Extract<DbEvaluator, { check: C }>;
  };

  it('a 5-star review whose text is "Terrible, do not buy." scores 0; the asked text scores 1', async () => {
    const task = testTask('shop/state/write-review/368');
    const r = spec(task, 'review');
    expect(r.rating).toBe(5);
    const write = (form: Record<string, string>) => postAs(server, id, 'shop', `/product/${r.productId}/reviews`, { rating: String(r.rating), nickname: 'Emma', title: r.title, body: r.body, ...form });
    await write({ body: 'Terrible, do not buy.' });
    expect(judged(task)).toBe(0);
    await write({ rating: '4' });
    expect(judged(task)).toBe(0);
    await write({});
    await write({});
    expect(judged(task)).toBe(0); // two reviews
    await write({ body: r.body.toUpperCase().replace(/\.$/, '') });
    expect(judged(task)).toBe(1);
  });

  it('an order shipped to a changed city, or with an extra product, scores 0', async () => {
    const task = testTask('shop/state/place-order/378');
    const o = spec(task, 'order');
    const item = o.items[0] as { productId: number; quantity: number };
    const home: Record<string, string> = { ...defaultShippingAddress() };
    const order = async (address: Record<string, string>, extra?: number) => {
      await postAs(server, id, 'shop', '/cart/add', { product_id: String(item.productId), qty: String(item.quantity) });
      if (extra !== undefined) await postAs(server, id, 'shop', '/cart/add', { product_id: String(extra), qty: '1' });
      expect((await postAs(server, id, 'shop', '/checkout', { ...address, shipping_method: o.shippingMethod })).status).toBe(303);
    };
    await order({ ...home, city: home.city === 'Springfield' ? 'Shelbyville' : 'Springfield' });
    expect(judged(task)).toBe(0);
    await order({ ...home, ship_name: 'Someone Else' });
    expect(judged(task)).toBe(0);
    await order(home, 1);
    expect(judged(task)).toBe(0);
    await order(home);
    expect(judged(task)).toBe(1);
  });

  it('an extra product in the cart scores 0; so does a cart task that also orders', async () => {
    const task = testTask('shop/state/add-to-cart/286');
    const c = spec(task, 'cart');
    const add = (productId: number, qty: number) => postAs(server, id, 'shop', '/cart/add', { product_id: String(productId), qty: String(qty) });
    await add(c.productId, c.quantity);
    await add(c.productId === 1 ? 2 : 1, 1);
    expect(judged(task)).toBe(0);
    await add(c.productId, c.quantity);
    expect(judged(task)).toBe(1);
    await add(c.productId, c.quantity);
    await postAs(server, id, 'shop', '/product/1/reviews', { rating: '5', nickname: 'Emma', title: 'Nice', body: 'Nice.' });
    expect(judged(task)).toBe(0);
  });

  it('a post needs its forum, title and body; a comment must be on the post, not a reply; a vote only on its post', async () => {
    const post = testTask('forum/state/create-post/30');
    const p = spec(post, 'post');
    await postAs(server, id, 'forum', `/f/${p.forum}/submit`, { title: p.title, body: 'Something else entirely.' });
    expect(judged(post)).toBe(0);
    await postAs(server, id, 'forum', '/f/music/submit', { title: p.title, body: p.body });
    expect(judged(post)).toBe(0);
    await postAs(server, id, 'forum', `/f/${p.forum}/submit`, { title: p.title, body: p.body });
    expect(judged(post)).toBe(1);

    const comment = testTask('forum/state/comment/68');
    const c = spec(comment, 'comment');
    const forum = /in f\/(\w+)\.$/.exec(comment.objective)?.[1] as string;
    const seededComment = forumData().comments.find((x) => x.post_id === c.postId) as { id: number };
    await postAs(server, id, 'forum', `/f/${forum}/${c.postId}/comment/${seededComment.id}/reply`, { body: c.body });
    expect(judged(comment)).toBe(0); // a reply to a comment, not a comment on the post
    await postAs(server, id, 'forum', `/f/${forum}/${c.postId}/comment`, { body: c.body });
    expect(judged(comment)).toBe(1);
    await postAs(server, id, 'forum', `/f/${forum}/${c.postId}/comment`, { body: c.body });
    await postAs(server, id, 'forum', `/f/${forum}/${c.postId}/comment`, { body: c.body });
    expect(judged(comment)).toBe(0);

    const upvote = testTask('forum/state/upvote/68');
    const v = spec(upvote, 'vote');
    const other = forumEntities().posts.find((q) => q.forum === forum && q.id !== v.postId && q.myVote === 0) as { id: number };
    await postAs(server, id, 'forum', `/f/${forum}/${v.postId}/vote`, { direction: 'up' });
    expect(judged(upvote)).toBe(1);
    await postAs(server, id, 'forum', `/f/${forum}/${v.postId}/vote`, { direction: 'up' });
    await postAs(server, id, 'forum', `/f/${forum}/${other.id}/vote`, { direction: 'up' });
    expect(judged(upvote)).toBe(0);
  });
});
