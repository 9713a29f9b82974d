/**
 * The web sandbox through the env (issue 39): an episode's `goto` to another port of this machine
 * (a stand-in for an env server's HTTP API holding another episode's final message) is blocked
 * with a message and `invalidAction`, the episode goes on, and the env's own sites stay open.
 * The final observation says only whether the task is complete — never the expected answer,
 * which stays in `info.reason` for the trajectory and the dashboard.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getBrowserHost } from '../../../envs/web/browser/browser-host.ts';
import { closeSharedSites, leaseSites, webDefinition, webTask, WebEnv, type SiteLease } from '../../../envs/web/index.ts';
import { runBrowserTests } from './fixtures/chromium.ts';

const TASK = 'shop/info/price/197';

/** The answer the task's oracle plan stops with (a right answer). */
function oracleAnswer(taskId: string): string {
  const step = webTask(taskId).plan.find((s): s is { readonly stop: string } => 'stop' in s);
  if (!step) throw new Error(`task ${taskId} has no stop step`);
  return step.stop;
}

describe.skipIf(!runBrowserTests)('web sandbox (env)', () => {
  let env: WebEnv;
  let lease: SiteLease;
  let api: Server;
  let apiUrl: string;
  const apiHits: string[] = [];
  const SECRET = 'The episode has ended: expected 75.99 SECRET-API';

  beforeAll(async () => {
    api = createServer((req, res) => {
      apiHits.push(req.url ?? '');
      res.end(JSON.stringify({ observation: SECRET }));
    });
    await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
    apiUrl = `http://127.0.0.1:${(api.address() as AddressInfo).port}/observation?env_idx=0`;
    lease = await leaseSites();
    env = webDefinition.make() as WebEnv;
  });
  afterAll(async () => {
    await env?.close();
    lease?.release();
    await getBrowserHost().close();
    await closeSharedSites();
    api?.close();
  });

  it("blocks goto to another port with a message and invalidAction; the episode goes on; the env's sites stay open", async () => {
    const start = await env.reset({ taskId: TASK });
    const startUrl = start.info.url as string;
    const blocked = await env.step(`goto [${apiUrl}]`);
    expect(blocked).toMatchObject({ reward: 0, terminated: false, truncated: false, info: { invalidAction: true, url: startUrl } });
    const { shop, forum } = lease.server.urls;
    expect(blocked.observation).toContain(`blocked: ${apiUrl} is outside this task's sites (allowed: ${shop}, ${forum})`);
    expect(blocked.observation).not.toContain('SECRET');
    expect(apiHits).toEqual([]);

    const forumHome = await env.step(`goto [${forum}/]`);
    expect(forumHome.info).toMatchObject({ invalidAction: false, url: `${forum}/` });
    expect((await env.step('go_back')).info).toMatchObject({ invalidAction: false, url: startUrl });
  });

  it('a failed stop: the observation says not complete, without the expected answer; info.reason has it', async () => {
    await env.reset({ taskId: TASK });
    const result = await env.step('stop [$1.00]');
    expect(result).toMatchObject({ reward: 0, terminated: true, info: { success: false } });
    expect(result.observation).toBe('The episode has ended: the task is not complete.');
    expect(result.observation).not.toContain('75.99');
    expect(result.info.reason).toContain('75.99');
  });

  it('a successful stop: the observation says complete, without the expected answer; info.reason is kept', async () => {
    await env.reset({ taskId: TASK });
    const answer = oracleAnswer(TASK);
    expect(answer).toContain('75.99');
    const result = await env.step(`stop [${answer}]`);
    expect(result).toMatchObject({ reward: 1, terminated: true, info: { success: true } });
    expect(result.observation).toBe('The episode has ended: the task is complete.');
    expect(result.observation).not.toContain('75.99');
    expect(typeof result.info.reason).toBe('string');
    expect(result.info.reason).not.toBe('');
  });
});
