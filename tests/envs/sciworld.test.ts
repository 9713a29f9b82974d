/**
 * SciWorld as an env: conformance, splits (issue 4: fixed train/test splits that never overlap,
 * with AgentGym's test family mix), determinism from task id, scoring with partial credit and the
 * wrong-focus rule, and the oracle on the whole test split.
 */
import { describe, expect, it } from 'vitest';
import { EnvError, type StepResult } from '../../envs/contract.ts';
import { checkEnv } from '../../envs/check-env.ts';
import { getEnv } from '../../envs/index.ts';
import { buildTask, familyOf, sciworldDefinition, SciWorldEnv, TEST_COUNTS } from '../../envs/sciworld/index.ts';

const def = sciworldDefinition;
const firstOf = (prefix: string, split: 'test' | 'train' = 'test'): string => def.tasks(split).find((id) => id.startsWith(`${prefix}/`)) as string;

async function play(env: SciWorldEnv, actions: readonly string[]): Promise<StepResult[]> {
  const out: StepResult[] = [];
  for (const a of actions) out.push(await env.step(a));
  return out;
}

describe('sciworld env contract', () => {
  it('passes checkEnv and is registered', async () => {
    await checkEnv(def, { steps: 20 });
    await checkEnv(def, { taskIds: [firstOf('measure-melting-point-known-substance'), firstOf('chemistry-mix', 'train')], steps: 30, seed: 3 });
    expect(getEnv('sciworld')).toBe(def);
    expect(def.spec.defaultHorizon).toBe(30);
    expect(def.spec.maxReward).toBe(1);
  });

  it('shows the task description, then the room, and reports the AgentGym fields', async () => {
    const env = def.make();
    const id = firstOf('test-conductivity');
    const reset = await env.reset({ taskId: id });
    const description = reset.info['taskDescription'] as string;
    expect(description.startsWith('Your task is to determine if ')).toBe(true);
    expect(reset.observation.startsWith(`${description}\nThis room is called the `)).toBe(true);
    expect(reset.info['taskName']).toBe('test-conductivity');
    expect(reset.info['variation']).toBe(0);
    expect(reset.info.score).toBe(0);
    const task = await env.step('task');
    expect(task.observation).toBe(description);
  });

  it('rejects bad task ids and bad use with EnvErrors', async () => {
    const env = def.make();
    for (const bad of ['', 'find-plant', 'find-plant/x', 'no-such-task/1', 'find-plant/99999999']) {
      await expect(env.reset({ taskId: bad })).rejects.toMatchObject({ code: 'TASK_UNKNOWN' });
    }
    await expect(env.step('look')).rejects.toBeInstanceOf(EnvError);
    await env.reset({ taskId: firstOf('find-plant') });
    await expect(env.step(42 as unknown as string)).rejects.toMatchObject({ code: 'PROTOCOL_ERROR' });
  });
});

describe('sciworld splits', () => {
  it('has the AgentGym test family mix and a larger train split', () => {
    const test = def.tasks('test');
    expect(test.length).toBe(200);
    const counts: Record<string, number> = {};
    for (const id of test) counts[familyOf(id)] = (counts[familyOf(id)] ?? 0) + 1;
    expect(counts).toEqual(TEST_COUNTS);
    expect(TEST_COUNTS).toEqual({ measure: 53, conductivity: 83, find: 44, 'chem-mix': 5, lifespan: 15 });
    expect(def.tasks('train').length).toBeGreaterThan(4 * test.length);
  });

  it('never shares a task id or a world between train and test', () => {
    const test = def.tasks('test');
    const train = def.tasks('train');
    const testIds = new Set(test);
    expect(train.some((id) => testIds.has(id))).toBe(false);
    const testWorlds = new Set(test.map((id) => buildTask(id).signature));
    expect(testWorlds.size).toBe(test.length);
    const trainWorlds = train.map((id) => buildTask(id).signature);
    expect(new Set(trainWorlds).size).toBe(train.length);
    expect(trainWorlds.some((s) => testWorlds.has(s))).toBe(false);
  });

  it('builds the same world from the same task id, and different worlds from others', async () => {
    const [a, b] = [def.make(), def.make()];
    for (const id of def.tasks('test').filter((_, i) => i % 9 === 0)) {
      const [ra, rb] = [await a.reset({ taskId: id, seed: 1 }), await b.reset({ taskId: id, seed: 2 })];
      expect(ra).toEqual(rb);
      expect(buildTask(id).signature).toBe(buildTask(id).signature);
    }
    const first = await a.reset({ taskId: 'find-animal/0' });
    const other = await b.reset({ taskId: 'find-animal/1' });
    expect(first.observation).not.toBe(other.observation);
  });
});

describe('sciworld scoring', () => {
  it('ends with score 0 on a wrong focus, taking back earlier partial credit', async () => {
    const env = def.make() as SciWorldEnv;
    await env.reset({ taskId: firstOf('measure-melting-point-known-substance') });
    const { task } = env.internalState();
    task.world.place(task.world.agent, task.world.room('kitchen'));
    const [focus, wrong] = await play(env, ['focus on thermometer', 'focus on stove']);
    expect(focus!.observation).toBe('You focus on the thermometer.');
    expect(focus!.info.score).toBe(10);
    expect(focus!.reward).toBeCloseTo(0.1);
    expect(wrong!.observation).toBe('You focus on the stove.');
    expect(wrong!.terminated).toBe(true);
    expect(wrong!.info.score).toBe(0);
    expect(wrong!.info.success).toBe(false);
    expect(focus!.reward + wrong!.reward).toBeCloseTo(0);
    await expect(env.step('look')).rejects.toMatchObject({ code: 'ENV_NOT_RESET' });
  });

  it('fails a conductivity task answered with the wrong box', async () => {
    const env = def.make() as SciWorldEnv;
    const reset = await env.reset({ taskId: firstOf('test-conductivity-of-unknown-substances') });
    const { task } = env.internalState();
    const world = task.world;
    world.place(world.agent, world.room('workshop'));
    const target = world.live().find((t) => t.name.startsWith('unknown substance')) as NonNullable<ReturnType<typeof world.live>[number]>;
    const description = reset.info['taskDescription'] as string;
    const yes = /place it in the (\w+) box/.exec(description)![1];
    const no = /nonconductive, place it in the (\w+) box/.exec(description)![1];
    const wrongBox = target.material!.conductive ? no : yes;
    const steps = await play(env, [`focus on ${target.name}`, `move ${target.name} to ${wrongBox} box`]);
    expect(steps[0]!.info.score).toBeGreaterThan(0);
    expect(steps[1]!.terminated).toBe(true);
    expect(steps[1]!.info.score).toBe(0);
  });

  it('gives partial credit below 100 until the task is complete, and sums rewards to score / 100', async () => {
    const env = def.make() as SciWorldEnv;
    await env.reset({ taskId: firstOf('chemistry-mix-paint-tertiary-color') });
    const oracle = def.oracle!(env);
    let total = 0;
    let last: StepResult | undefined;
    const scores: number[] = [];
    for (let t = 0; t < 30 && !last?.terminated; t++) {
      last = await env.step(await oracle.next());
      total += last.reward;
      scores.push(last.info.score as number);
    }
    expect(last!.info.success).toBe(true);
    expect(last!.info.score).toBe(100);
    expect(total).toBeCloseTo(1);
    const partial = scores.slice(0, -1);
    expect(Math.max(...partial)).toBeLessThan(100);
    expect(new Set(partial).size).toBeGreaterThan(2);
  });
});

describe('sciworld oracle', () => {
  it('completes every test task with score 100 within the default horizon', async () => {
    const env = def.make() as SciWorldEnv;
    const failed: string[] = [];
    const unlisted: string[] = [];
    for (const id of def.tasks('test')) {
      const oracle = def.oracle!(env);
      let last: StepResult | undefined;
      let listed = (await env.reset({ taskId: id })).info.availableActions ?? [];
      for (let t = 0; t < def.spec.defaultHorizon && !last?.terminated; t++) {
        const action = await oracle.next();
        // It acts in the listed grammar (a connection in the list's order), so a constrained policy can clone it.
        if (!listed.includes(action)) unlisted.push(`${id}: ${action}`);
        last = await env.step(action);
        listed = last.info.availableActions ?? [];
      }
      if (last?.info.score !== 100) failed.push(id);
    }
    expect(failed).toEqual([]);
    expect(unlisted).toEqual([]);
  });

  it('recovers when the agent has acted first (ambiguity, moved objects)', async () => {
    const env = def.make() as SciWorldEnv;
    await env.reset({ taskId: firstOf('measure-melting-point-unknown-substance') });
    const { task } = env.internalState();
    task.world.place(task.world.agent, task.world.room('kitchen'));
    await play(env, ['open cupboard', 'pick up thermometer', 'go to hallway', 'look at cup']);
    const oracle = def.oracle!(env);
    let last: StepResult | undefined;
    for (let t = 0; t < 40 && !last?.terminated; t++) last = await env.step(await oracle.next());
    expect(last?.info.score).toBe(100);
  });
});
