import { describe, expect, it } from 'vitest';
import { getEnv } from '../../envs/index.ts';
import { START_CACHE_SIZE, cachedTaskStarts, clearTaskStarts } from '../../envs/babyai/start-cache.ts';
import type { StepResult } from '../../envs/contract.ts';

const babyai = getEnv('babyai');

/** Plays a task with a fixed action rule (the k-th available action at turn k), recording everything. */
async function play(taskId: string): Promise<(string | StepResult)[]> {
  const env = babyai.make();
  const first = await env.reset({ taskId, seed: 0 });
  const record: (string | StepResult)[] = [first.observation];
  let actions = first.info.availableActions ?? [];
  for (let turn = 0; turn < 12; turn++) {
    const result = await env.step(actions[(turn * 7 + 3) % actions.length] as string);
    record.push(result);
    actions = result.info.availableActions ?? [];
    if (result.terminated || result.truncated) break;
  }
  await env.close();
  return record;
}

describe('babyai task starts are generated once', () => {
  it('replays a task identically from the cache, after its level was played and changed', async () => {
    clearTaskStarts();
    const tasks = babyai.tasks('test').slice(0, 30);
    const fresh = [];
    for (const task of tasks) fresh.push(await play(task));
    expect(cachedTaskStarts()).toBe(tasks.length);
    // Played again: each reset now clones the cached start, which the first plays must not have touched.
    for (const [i, task] of tasks.entries()) expect(await play(task)).toEqual(fresh[i]);
    // And a fresh generation agrees with the cached one.
    clearTaskStarts();
    for (const [i, task] of tasks.entries()) expect(await play(task)).toEqual(fresh[i]);
  });

  it('holds at most START_CACHE_SIZE tasks', async () => {
    clearTaskStarts();
    const env = babyai.make();
    for (let seed = 0; seed < START_CACHE_SIZE + 20; seed++) await env.reset({ taskId: `GoToRedBallGrey/${seed}`, seed: 0 });
    expect(cachedTaskStarts()).toBe(START_CACHE_SIZE);
    await env.close();
  });
});
