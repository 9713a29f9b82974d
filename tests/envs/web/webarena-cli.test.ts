/** `actorgym rollout --env webarena:DIR`, run as a user would, against the fixture sites. */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN } from '../../cli/run-cli.ts';
import { runBrowserTests } from './fixtures/chromium.ts';
import { startForumSite, startShopSite, type FixtureSite } from './webarena-sites.ts';

const FIXTURES = path.resolve(import.meta.dirname, '../../fixtures/webarena');

function actorgym(args: readonly string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  const base = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('ACTORGYM_WEB')));
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { env: { ...base, ...env }, timeout: 120_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

describe('actorgym rollout --env webarena:DIR', () => {
  it('without a site variable fails with one line naming it', async () => {
    const { code, stderr } = await actorgym(['rollout', '--env', `webarena:${FIXTURES}`, '--episodes', '1'], { ACTORGYM_WEB_SHOPPING_URL: 'http://127.0.0.1:7770' });
    expect(code).toBe(1);
    expect(stderr).toMatch(/ACTORGYM_WEB_REDDIT_URL is not set: 3 task\(s\) need the reddit site/);
    expect(stderr).not.toMatch(/ACTORGYM_WEB_SHOPPING_URL is not set/);
  });

  describe.skipIf(!runBrowserTests)('with the sites up', () => {
    let shop: FixtureSite;
    let forum: FixtureSite;
    beforeAll(async () => {
      [shop, forum] = await Promise.all([startShopSite(), startForumSite()]);
    });
    afterAll(async () => {
      await Promise.all([shop?.close(), forum?.close()]);
    });

    it('runs the tasks in the browser, says which were skipped and why, and prints the summary', async () => {
      const { code, stdout, stderr } = await actorgym(
        ['rollout', '--env', `webarena:${FIXTURES}`, '--agent', 'random', '--episodes', '2', '--horizon', '2', '--json'],
        { ACTORGYM_WEB_SHOPPING_URL: shop.url, ACTORGYM_WEB_REDDIT_URL: forum.url },
      );
      expect(code, stderr).toBe(0);
      expect(stderr).toMatch(/webarena: 1 task\(s\) skipped: string_match with fuzzy_match needs an LLM judge, and none was given \(task 105\)/);
      const summary = JSON.parse(stdout);
      expect(summary).toMatchObject({ env: `webarena:${FIXTURES}`, split: 'test', episodes: 2 });
      expect(summary.outcomes.aborted).toBe(0);
    }, 90_000);
  });
});
