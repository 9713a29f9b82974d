import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkEnv } from '../../../envs/check-env.ts';
import type { Env, StepResult } from '../../../envs/contract.ts';
import { BrowserHost } from '../../../envs/web/browser/browser-host.ts';
import { createWebArenaDefinition, type WebArenaDefinition } from '../../../envs/web/webarena/index.ts';
import { runBrowserTests } from './fixtures/chromium.ts';
import { startForumSite, startShopSite, type FixtureSite } from './webarena-sites.ts';

const FIXTURES = path.resolve(import.meta.dirname, '../../fixtures/webarena');

/** The id of the first tree line matching `pattern` in an observation. */
const idOf = (observation: string, pattern: RegExp): string => {
  const line = observation.split('\n').find((l) => pattern.test(l));
  if (!line) throw new Error(`no line matches ${pattern} in:\n${observation}`);
  return /\[(\d+)\]/.exec(line)![1]!;
};

/**
 * Plays a scripted episode: each step is an action, or a function of the last observation that
 * returns one (ids change with every page), like an oracle's plan.
 */
async function play(env: Env, taskId: string, script: readonly (string | ((observation: string) => string))[]): Promise<StepResult> {
  let observation = (await env.reset({ taskId })).observation;
  let last: StepResult | undefined;
  for (const step of script) {
    last = await env.step(typeof step === 'string' ? step : step(observation));
    observation = last.observation;
    if (last.terminated) return last;
    expect(last.info.invalidAction, `${observation}`).toBe(false);
  }
  throw new Error(`the script of task ${taskId} never stopped; last observation:\n${observation}`);
}

describe.skipIf(!runBrowserTests)('webarena env on fixture sites', () => {
  let shop: FixtureSite;
  let forum: FixtureSite;
  let definition: WebArenaDefinition;
  let env: Env;
  const host = new BrowserHost({ idleCloseMs: 60_000 });
  const auth = mkdtempSync(path.join(tmpdir(), 'webarena-auth-'));

  beforeAll(async () => {
    [shop, forum] = await Promise.all([startShopSite(), startForumSite()]);
    // The storage state task 109 logs in with: a Playwright cookie file, as auto_login.py writes.
    const cookie = { name: 'session', value: 'emma', domain: '127.0.0.1', path: '/', expires: -1, httpOnly: true, secure: false, sameSite: 'Lax' };
    writeFileSync(path.join(auth, 'shopping_state.json'), JSON.stringify({ cookies: [cookie], origins: [] }));
    definition = createWebArenaDefinition({
      tasks: FIXTURES,
      env: { ACTORGYM_WEB_SHOPPING_URL: shop.url, ACTORGYM_WEB_REDDIT_URL: forum.url, ACTORGYM_WEBARENA_AUTH_DIR: auth },
      host,
      viewportOnly: false,
    });
    env = definition.make();
  });
  afterAll(async () => {
    await env?.close();
    await host.close();
    await Promise.all([shop?.close(), forum?.close()]);
    rmSync(auth, { recursive: true, force: true });
  });

  it('string_match: the right answer read off the page wins, a wrong one loses and is not shown to the agent', async () => {
    const openMug = (o: string): string => `click [${idOf(o, /link 'Blue Mug'/)}]`;
    const won = await play(env, '101', [openMug, (o) => { expect(o).toContain('$12.50'); return 'stop [$12.50]'; }]);
    expect([won.reward, won.info.success]).toEqual([1, true]);
    const lost = await play(env, '101', [openMug, 'stop [$11.00]']);
    expect(lost.reward).toBe(0);
    expect(lost.observation).toBe('The episode has ended: the task is not complete.');
    expect(lost.info.reason).toContain('FAIL exact_match "$12.50"');
    const listed = await play(env, '102', ['stop [Blue Mug, Red Mug]']);
    expect(listed.reward).toBe(1);
    expect((await play(env, '102', ['stop [Blue Mug]'])).reward).toBe(0);
  }, 60_000);

  it('url_match: stopping on the asked page wins, on another page loses', async () => {
    expect((await play(env, '103', [(o) => `click [${idOf(o, /link 'cats'/)}]`, 'stop []'])).reward).toBe(1);
    const lost = await play(env, '103', [(o) => `click [${idOf(o, /link 'dogs'/)}]`, 'stop []']);
    expect(lost.reward).toBe(0);
    expect(lost.info.reason).toMatch(/FAIL url_match .*\/f\/dogs \(host and path differ\)/);
  }, 60_000);

  it('program_html: a post made through the form is found on its page; a wrong body loses', async () => {
    const post = (title: string, body: string) => [
      (o: string) => `type [${idOf(o, /textbox 'Title'/)}] [${title}] [0]`,
      (o: string) => `type [${idOf(o, /textbox 'Body'/)}] [${body}] [0]`,
      (o: string) => `click [${idOf(o, /button 'Create post'/)}]`,
      (o: string) => {
        expect(o).toContain(`heading '${title}'`);
        return 'stop []';
      },
    ];
    const won = await play(env, '104', post('Sunny windows', 'My cat sleeps in the sun all day.'));
    expect(won.info.reason).not.toContain('FAIL');
    expect(won.reward).toBe(1);
    const lost = await play(env, '104', post('Sunny windows', 'My cat sleeps in the shade.'));
    expect(lost.reward).toBe(0);
    expect(lost.info.reason).toMatch(/pass url_match .* FAIL program_html .*must_include "all day"/);
  }, 60_000);

  it('start_url with |AND| opens one tab per site, the first current; fuzzy N/A scores an exact N/A', async () => {
    const won = await play(env, '108', [(o) => { expect(o).toMatch(/Tab 0 \(current\): Blue Mug \| Tab 1: \/f\/cats/); return 'tab_focus [1]'; }, (o) => { expect(o).toContain("heading 'Forum cats'"); return 'stop [cats; $12.50]'; }]);
    expect(won.reward).toBe(1);
    expect((await play(env, '107', ['stop [N/A]'])).reward).toBe(1);
    expect((await play(env, '107', ['stop [555-0100]'])).reward).toBe(0);
  }, 60_000);

  it('a task that requires login starts logged in from its storage state', async () => {
    const won = await play(env, '109', [(o) => { expect(o).toContain('Signed in as Emma Lopez'); return 'stop [Emma Lopez]'; }]);
    expect(won.reward).toBe(1);
  }, 60_000);

  it('passes the env conformance check (lifecycle errors, result shapes, same task and seed replay the same)', async () => {
    await checkEnv(definition, { taskIds: ['101'], steps: 3, fallbackActions: ['scroll [down]', 'stop [$12.50]', 'go_back'] });
  }, 60_000);

  it('an unknown task id is TASK_UNKNOWN before any page opens', async () => {
    await expect(env.reset({ taskId: '105' })).rejects.toMatchObject({ code: 'TASK_UNKNOWN' });
  });
});
