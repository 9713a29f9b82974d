/**
 * Issue 39: `--episodes N` below the split took the first N tasks (the web env's first 8 test
 * tasks are all price questions). pickTasks takes them round-robin over the task categories, and
 * `--shuffle` orders them by the seed; the whole split keeps its order. The rollout system and the
 * evaluation plan take their tasks from it.
 */
import { describe, expect, it } from 'vitest';
import type { EnvDefinition, Split } from '../../envs/contract.ts';
import { getEnv } from '../../envs/index.ts';
import { pickTasks } from '../../envs/pick-tasks.ts';
import { rolloutSettings } from '../../actors/rollout/rollout-settings.ts';
import { evalPlan } from '../../eval/eval-plan.ts';

/** Ten tasks in three categories, listed category by category as the web env lists them. */
const ids = ['a/1', 'a/2', 'a/3', 'a/4', 'a/5', 'b/1', 'b/2', 'c/1', 'c/2', 'c/3'];
const toy: Pick<EnvDefinition, 'tasks' | 'categoryOf'> = { tasks: (split: Split) => (split === 'test' ? ids : []), categoryOf: (id) => id.split('/')[0] as string };
const category = (id: string) => id.split('/')[0];

describe('pickTasks', () => {
  it('takes a count below the split round-robin over categories, each in split order', () => {
    expect(pickTasks(toy, 'test', { count: 3 })).toEqual(['a/1', 'b/1', 'c/1']);
    expect(pickTasks(toy, 'test', { count: 7 })).toEqual(['a/1', 'b/1', 'c/1', 'a/2', 'b/2', 'c/2', 'a/3']);
    // A category that runs out drops out of the turn.
    expect(pickTasks(toy, 'test', { count: 9 })).toEqual(['a/1', 'b/1', 'c/1', 'a/2', 'b/2', 'c/2', 'a/3', 'c/3', 'a/4']);
  });

  it('keeps the whole split (or a count past it) in split order; `first` keeps the first N', () => {
    expect(pickTasks(toy, 'test')).toEqual(ids);
    expect(pickTasks(toy, 'test', { count: 50 })).toEqual(ids);
    expect(pickTasks(toy, 'test', { count: 4, pick: 'first' })).toEqual(ids.slice(0, 4));
    expect(pickTasks({ tasks: toy.tasks }, 'test', { count: 4 })).toEqual(ids.slice(0, 4)); // no categories: one group
  });

  it('shuffles by the seed: the same seed the same tasks, another seed another order, still stratified', () => {
    const one = pickTasks(toy, 'test', { count: 6, shuffle: true, seed: 1 });
    expect(pickTasks(toy, 'test', { count: 6, shuffle: true, seed: 1 })).toEqual(one);
    const orders = new Set([1, 2, 3, 4, 5, 6].map((seed) => pickTasks(toy, 'test', { count: 6, shuffle: true, seed }).join()));
    expect(orders.size).toBeGreaterThan(1);
    for (const seed of [1, 2, 3]) {
      const taken = pickTasks(toy, 'test', { count: 6, shuffle: true, seed });
      expect(new Set(taken).size).toBe(6);
      expect(taken.map(category).sort()).toEqual(['a', 'a', 'b', 'b', 'c', 'c']);
    }
    const whole = pickTasks(toy, 'test', { shuffle: true, seed: 2 });
    expect([...whole].sort()).toEqual([...ids].sort());
    expect(whole).not.toEqual(ids);
  });

  it('gives the web env 8 test tasks of 8 categories, where its first 8 are all shop questions', () => {
    const web = getEnv('web');
    const taken = pickTasks(web, 'test', { count: 8 });
    expect(new Set(taken.map((id) => web.categoryOf!(id))).size).toBe(8);
    expect(web.tasks('test').slice(0, 8).map((id) => web.categoryOf!(id))).toEqual(Array(8).fill('shop/info'));
  });
});

describe('the rollout system and the evaluation plan pick through it', () => {
  const env = { ...toy, spec: { id: 'toy', description: '', defaultHorizon: 3, splits: { train: 0, test: 10 }, maxReward: 1 }, make: () => { throw new Error('not run'); } } as EnvDefinition;

  it('rolloutSettings: first N by default, stratified or shuffled when asked, cycled past the split', () => {
    const tasksOf = (options: Parameters<typeof rolloutSettings>[0]) => rolloutSettings(options).slots.map((s) => s.taskId);
    expect(tasksOf({ env, agent: 'random', episodes: 3 })).toEqual(['a/1', 'a/2', 'a/3']);
    expect(tasksOf({ env, agent: 'random', episodes: 3, pick: 'stratified' })).toEqual(['a/1', 'b/1', 'c/1']);
    expect(tasksOf({ env, agent: 'random', pick: 'stratified' })).toEqual(ids);
    const shuffled = tasksOf({ env, agent: 'random', episodes: 12, shuffle: true, seed: 4 });
    expect(shuffled.slice(10)).toEqual(shuffled.slice(0, 2));
    expect([...shuffled.slice(0, 10)].sort()).toEqual([...ids].sort());
  });

  it('evalPlan: the picked tasks keep their split index in the slot key, and the config records the order', () => {
    const base = { env, agent: 'random' as const, samples: 1, out: 'unused' };
    const plan = evalPlan({ ...base, tasks: 3, pick: 'stratified' });
    expect(plan.taskIds).toEqual(['a/1', 'b/1', 'c/1']);
    expect(plan.config).toMatchObject({ tasks: 3, order: 'stratified' });
    expect(evalPlan({ ...base, tasks: 3 }).config).not.toHaveProperty('order');
    expect(evalPlan({ ...base, pick: 'stratified' }).config).not.toHaveProperty('order');
    expect(evalPlan({ ...base, shuffle: true }).config).toMatchObject({ order: 'shuffled' });
  });
});
