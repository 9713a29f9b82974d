/**
 * The web env through its public contract (issue 27): checkEnv, WebArena's observation layout on
 * reset, bad actions as observations (not exceptions), the lifecycle's EnvError codes, a wrong
 * answer scored 0, and the oracle solving one test task of every category through the env.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { checkEnv } from '../../../envs/check-env.ts';
import { EnvError, type Env } from '../../../envs/contract.ts';
import { getBrowserHost } from '../../../envs/web/browser/browser-host.ts';
import { closeSharedSites, leaseSites, webDefinition, webTask, webTasks, WebEnv } from '../../../envs/web/index.ts';
import { runBrowserTests } from './fixtures/chromium.ts';

const SHOP_INFO = 'shop/info/price/197';

async function envError(call: Promise<unknown>): Promise<EnvError> {
  const error = await call.then(() => undefined, (e: unknown) => e);
  expect(error).toBeInstanceOf(EnvError);
  return error as EnvError;
}

/** Plays the env's oracle until the episode ends; returns the last step's reward and info. */
async function playOracle(taskId: string, maxTurns = 40) {
  const env = webDefinition.make();
  try {
    const oracle = webDefinition.oracle!(env);
    const first = await env.reset({ taskId });
    // A multi-site objective names the other site by its address, never by WebArena's placeholder (issue 39).
    expect(first.observation, taskId).not.toMatch(/__(SHOP|FORUM)__/);
    for (let turn = 0; turn < maxTurns; turn++) {
      const result = await env.step(await oracle.next());
      if (result.terminated) return { reward: result.reward, info: result.info, turns: turn + 1 };
    }
    return { reward: 0, info: {}, turns: maxTurns };
  } finally {
    await env.close();
  }
}

describe.skipIf(!runBrowserTests)('web env contract', () => {
  const envs: Env[] = [];
  const make = () => {
    const env = webDefinition.make();
    envs.push(env);
    return env;
  };
  afterAll(async () => {
    await Promise.all(envs.map((env) => env.close()));
    await getBrowserHost().close();
    await closeSharedSites();
  });

  // checkEnv replays each task with the same seed on a second env and compares every text, the
  // [id]s included: they are numbered per session (session-ids.ts), not by Chromium.
  it('passes checkEnv (splits, lifecycle errors, same task and seed replay the same episode)', async () => {
    // No action list (free-form actions, as WebArena), and no ids: the scripted policy picks among these.
    await checkEnv(webDefinition, { steps: 4, fallbackActions: ['scroll [down]', 'scroll [up]', 'go_back', 'press [PageDown]'] });
  }, 120_000);

  it("shows the task's start page on reset in WebArena's layout, previous action None", async () => {
    const env = make();
    const task = webTask(SHOP_INFO);
    const { observation, info } = await env.reset({ taskId: SHOP_INFO });
    const lease = await leaseSites();
    const url = `${lease.server.urls.shop}${task.startPath}`;
    lease.release();
    expect(observation).toMatch(/^OBSERVATION:\nTab 0 \(current\): [^\n]+\n\n\[\d+\] RootWebArea '[^']+'/);
    expect(observation).toMatch(/\n\t+\[\d+\] searchbox 'Search products'\n/);
    expect(observation.endsWith(`\nURL: ${url}\nOBJECTIVE: ${task.objective}\nPREVIOUS ACTION: None`)).toBe(true);
    expect(info).toEqual({ url, site: 'shop', kind: 'info' });
  });

  it('answers a malformed action and an unknown id with a message and invalidAction, and the episode goes on', async () => {
    const env = make();
    await env.reset({ taskId: SHOP_INFO });
    const malformed = await env.step('click [abc]');
    expect(malformed).toMatchObject({ reward: 0, terminated: false, truncated: false, info: { invalidAction: true, site: 'shop' } });
    expect(malformed.observation).toMatch(/^OBSERVATION:\nInvalid action 'click \[abc\]': expected 'click \[id\]'\.\n\nTab 0/);
    expect(malformed.observation.endsWith('PREVIOUS ACTION: click [abc]')).toBe(true);

    const unknownId = await env.step('click [999999]');
    expect(unknownId).toMatchObject({ reward: 0, terminated: false, info: { invalidAction: true } });
    expect(unknownId.observation).toContain('Element [999999] is not in the current observation');

    const unknownAction = await env.step('jump [3]');
    expect(unknownAction.info.invalidAction).toBe(true);
    expect(unknownAction.observation).toContain("Unknown action 'jump'");

    const valid = await env.step('scroll [down]');
    expect(valid).toMatchObject({ reward: 0, terminated: false, info: { invalidAction: false } });
    expect(valid.observation).not.toContain('Invalid action');
  });

  it('refuses misuse with EnvError codes: before reset, unknown task, after the episode, after close, a non-string action', async () => {
    const env = make();
    expect((await envError(env.step('scroll [down]'))).code).toBe('ENV_NOT_RESET');
    const unknown = await envError(env.reset({ taskId: 'shop/info/no-such-template/1' }));
    expect(unknown.code).toBe('TASK_UNKNOWN');
    expect(unknown.message).toContain('shop/info/no-such-template/1');
    // An unknown task touches no resource: the env is still not reset.
    expect((await envError(env.step('scroll [down]'))).code).toBe('ENV_NOT_RESET');

    await env.reset({ taskId: SHOP_INFO });
    expect((await envError(env.step(42 as unknown as string))).code).toBe('PROTOCOL_ERROR');
    expect((await env.step('stop [x]')).terminated).toBe(true);
    expect((await envError(env.step('scroll [down]'))).code).toBe('ENV_NOT_RESET');

    await env.close();
    await env.close(); // idempotent
    expect((await envError(env.step('scroll [down]'))).code).toBe('ENV_CLOSED');
    expect((await envError(env.reset({ taskId: SHOP_INFO }))).code).toBe('ENV_CLOSED');
  });

  it('scores a wrong answer 0 with the reason, and the episode is terminated, not truncated', async () => {
    const env = make();
    await env.reset({ taskId: SHOP_INFO });
    const result = await env.step('stop [$1.00]');
    expect(result).toMatchObject({ reward: 0, terminated: true, truncated: false, info: { success: false, invalidAction: false, site: 'shop' } });
    expect(result.observation).toMatch(/^The episode has ended: the task is not complete\./);
    expect(result.info.reason).toBe('number: expected 75.99, got 1');
  });

  it('the oracle solves one test task of each category, acting through the env (multi-site and infeasible ones too)', async () => {
    const firstOfEach = new Map<string, string>();
    for (const id of webTasks('test')) {
      const { category } = webTask(id);
      if (!firstOfEach.has(category)) firstOfEach.set(category, id);
    }
    expect([...firstOfEach.keys()].sort()).toEqual([
      'forum/infeasible', 'forum/info', 'forum/nav', 'forum/state', 'multi/info', 'multi/state', 'shop/infeasible', 'shop/info', 'shop/nav', 'shop/state',
    ]);
    // Three at a time: the machine has two cores and one browser for all of them.
    const ids = [...firstOfEach.values()];
    const results = [];
    for (let i = 0; i < ids.length; i += 3) results.push(...(await Promise.all(ids.slice(i, i + 3).map((id) => playOracle(id)))));
    expect(results.map((r, i) => [ids[i], r.reward, r.info.success])).toEqual(ids.map((id) => [id, 1, true]));
  }, 300_000);

  it('tells a local WebEnv apart: the oracle refuses anything else', () => {
    expect(make()).toBeInstanceOf(WebEnv);
    expect(() => webDefinition.oracle!({ spec: webDefinition.spec } as Env)).toThrow(/local WebEnv/);
  });
});
