/**
 * Isolation through the env (issue 27's acceptance): 16 WebEnv instances play state-changing
 * tasks at once on the same two sites (orders and reviews on the shop, posts, comments and votes
 * on the forum), each with the oracle in its own browser context. Each instance's database holds
 * its own change and none of the others'; a reset brings every table back to the seeded state.
 * site-server.test.ts proves the same over plain HTTP; this proves the env wires it up.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Env } from '../../../envs/contract.ts';
import { getBrowserHost } from '../../../envs/web/browser/browser-host.ts';
import { closeSharedSites, createWebDefinition, evaluateWebTask, leaseSites, webTask, WebEnv, type SiteLease, type WebTask } from '../../../envs/web/index.ts';

// Sixteen sessions on two cores shared with other test files: generous action waits, so load alone fails nothing.
const webDefinition = createWebDefinition({ actionTimeoutMs: 30_000, navigationTimeoutMs: 60_000 });
import type { SiteName, SiteQuery } from '../../../envs/web/site-server.ts';
import { runBrowserTests } from './fixtures/chromium.ts';

// Distinct products and posts, so that no task's evaluator is satisfied by another's change.
const TASKS = [
  'shop/state/place-order/378', 'shop/state/place-order/398', 'shop/state/place-order/258', 'shop/state/place-order/36',
  'shop/state/write-review/368', 'shop/state/write-review/271', 'shop/state/write-review/84', 'shop/state/write-review/231',
  'forum/state/create-post/30', 'forum/state/create-post/31', 'forum/state/create-post/80', 'forum/state/create-post/81',
  'forum/state/comment/389', 'forum/state/comment/49', 'forum/state/upvote/68', 'forum/state/downvote/64',
];

/** Rows written by an episode: ids above the seeded maximum (the evaluators' `after*`). */
const NEW_ROWS: Readonly<Record<SiteName, readonly { table: string; after: number; check: string }[]>> = {
  shop: [{ table: 'orders', after: 26, check: 'order' }, { table: 'reviews', after: 1200, check: 'review' }],
  forum: [{ table: 'posts', after: 400, check: 'post' }, { table: 'comments', after: 1781, check: 'comment' }],
};

/** Every table of a site's database as sorted JSON rows, to compare states exactly. */
function dump(db: SiteQuery): Record<string, string[]> {
  const tables = db.all("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name") as { name: string }[];
  return Object.fromEntries(tables.map(({ name }) => [name, db.all(`SELECT * FROM "${name}"`).map((row) => JSON.stringify(row)).sort()]));
}

/** Runs `work` over `items`, `limit` at a time: opening 16 pages at once can exceed the 15 s page-load limit on a busy 2-core machine. */
async function inBatches<T>(items: readonly T[], limit: number, work: (item: T, index: number) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < items.length; i += limit) await Promise.all(items.slice(i, i + limit).map((item, k) => work(item, i + k)));
}

/** Steps the oracle to the end of the episode already reset; the last reward. */
async function playOracle(env: WebEnv): Promise<number> {
  const oracle = webDefinition.oracle!(env);
  for (let turn = 0; turn < 40; turn++) {
    const result = await env.step(await oracle.next());
    if (result.terminated) return result.reward;
  }
  return 0;
}

describe.skipIf(!runBrowserTests)('web env isolation', () => {
  let lease: SiteLease;
  let fresh: string;
  const envs: WebEnv[] = [];
  const tasks: WebTask[] = TASKS.map(webTask);

  beforeAll(async () => {
    lease = await leaseSites();
    fresh = lease.server.createInstance();
    for (let i = 0; i < TASKS.length; i++) envs.push(webDefinition.make() as WebEnv);
  });
  afterAll(async () => {
    await Promise.all(envs.map((env: Env) => env.close()));
    lease?.server.dropInstance(fresh);
    lease?.release();
    await getBrowserHost().close();
    await closeSharedSites();
  });

  const db = (i: number, site: SiteName) => lease.server.database(envs[i]!.siteInstanceId!, site);

  it('16 concurrent state-changing episodes each succeed and each sees only its own change', async () => {
    expect(new Set(TASKS).size).toBe(16);
    await inBatches(envs, 4, (env, i) => env.reset({ taskId: TASKS[i]! }));
    // All 16 episodes then act at once, each in its own browser context on the same two sites.
    const rewards = await Promise.all(envs.map((env) => playOracle(env)));
    expect(rewards).toEqual(TASKS.map(() => 1));
    expect(new Set(envs.map((env) => env.siteInstanceId)).size).toBe(16);

    for (let i = 0; i < envs.length; i++) {
      // Its own change is there...
      expect(evaluateWebTask(tasks[i]!, { answer: '', finalUrl: '', db: db(i, tasks[i]!.site) }).reward, TASKS[i]).toBe(1);
      // ...and no other episode's is: every other task's evaluator fails on this instance.
      const leaked = tasks.filter((other, j) => j !== i && evaluateWebTask(other, { answer: '', finalUrl: '', db: db(i, other.site) }).reward === 1);
      expect(leaked.map((t) => t.id), `instance of ${TASKS[i]}`).toEqual([]);
      // Exactly one new row where its kind writes one, none elsewhere, on both sites.
      for (const site of ['shop', 'forum'] as const) {
        for (const { table, after, check } of NEW_ROWS[site]) {
          const { n } = db(i, site).get(`SELECT count(*) AS n FROM ${table} WHERE id > ?`, after) as { n: number };
          const evaluator = tasks[i]!.evaluator;
          expect(n, `${TASKS[i]}: new rows in ${site}.${table}`).toBe(evaluator.type === 'db' && evaluator.check === check ? 1 : 0);
        }
      }
    }
    // A fresh instance of the same server still holds the seeded state.
    for (const site of ['shop', 'forum'] as const) {
      for (const { table, after } of NEW_ROWS[site]) {
        expect((lease.server.database(fresh, site).get(`SELECT count(*) AS n FROM ${table} WHERE id > ?`, after) as { n: number }).n).toBe(0);
      }
    }
  }, 180_000);

  it('a reset restores every table of both sites to the seeded state exactly', async () => {
    const seeded = { shop: dump(lease.server.database(fresh, 'shop')), forum: dump(lease.server.database(fresh, 'forum')) };
    // Before: each changed instance differs from the seed on its task's site.
    for (let i = 0; i < envs.length; i++) expect(dump(db(i, tasks[i]!.site))).not.toEqual(seeded[tasks[i]!.site]);
    // Reset onto a navigation task, which changes nothing, so what remains is what reset left.
    await inBatches(envs, 4, (env) => env.reset({ taskId: 'forum/nav/forum-page/3' }));
    for (let i = 0; i < envs.length; i++) {
      expect(dump(db(i, 'shop')), `shop of ${TASKS[i]} after reset`).toEqual(seeded.shop);
      expect(dump(db(i, 'forum')), `forum of ${TASKS[i]} after reset`).toEqual(seeded.forum);
    }
  }, 120_000);
});
