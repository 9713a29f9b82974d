import { describe, expect, it } from 'vitest';
import { createRolloutSystem } from '../../actors/rollout-system.ts';
import { Rng } from '../../envs/rng.ts';
import { craftingTree, planCrafting, textcraftDefinition, TextCraftEnv } from '../../envs/textcraft/index.ts';

describe('textcraft oracle', () => {
  it('crafts every test goal within the default horizon (rollout system, oracle agent)', async () => {
    const summary = await createRolloutSystem({ env: textcraftDefinition, agent: 'oracle', split: 'test', seed: 3 }).run();
    expect(summary.episodes).toBe(100);
    expect(summary.successRate).toBeGreaterThanOrEqual(0.98);
    expect(summary.outcomes.aborted).toBe(0);
  });

  it('plans gets first, then crafts in dependency order, each batch exactly', () => {
    expect(planCrafting(craftingTree(), new Map(), 'wooden_pickaxe')).toEqual([
      // Ingredients in the order of agentenv-textcraft's recipe (the `key` order of wooden_pickaxe.json).
      'get 2 acacia logs',
      'craft 4 acacia planks using 1 acacia logs',
      'craft 4 stick using 2 acacia planks',
      'craft 4 acacia planks using 1 acacia logs',
      'craft 1 wooden pickaxe using 2 stick, 3 acacia planks',
    ]);
    // What the inventory holds is used first: birch planks satisfy `planks`.
    expect(planCrafting(craftingTree(), new Map([['birch_planks', 5]]), 'wooden_pickaxe')).toEqual([
      'craft 4 stick using 2 birch planks',
      'craft 1 wooden pickaxe using 2 stick, 3 birch planks',
    ]);
  });

  it('recovers when other actions were taken in between (replans from the inventory)', async () => {
    const env = textcraftDefinition.make() as TextCraftEnv;
    const oracle = textcraftDefinition.oracle?.(env);
    const rng = new Rng(9);
    let solved = 0;
    for (const goal of textcraftDefinition.tasks('test').filter((_, i) => i % 5 === 0)) {
      const reset = await env.reset({ taskId: goal, seed: 1 });
      const random = reset.info.availableActions ?? [];
      for (let turn = 0; turn < 60; turn++) {
        const action = turn % 3 === 1 ? rng.pick(random) : await (oracle as NonNullable<typeof oracle>).next();
        const r = await env.step(action);
        if (r.terminated) {
          solved += 1;
          break;
        }
      }
    }
    expect(solved).toBe(20);
  });

  it('acts only through the listed actions (so its demos can be cloned by a constrained policy)', async () => {
    const env = textcraftDefinition.make() as TextCraftEnv;
    const oracle = textcraftDefinition.oracle!(env);
    const unlisted: string[] = [];
    let solved = 0;
    for (const goal of textcraftDefinition.tasks('train')) {
      let listed = (await env.reset({ taskId: goal, seed: 2 })).info.availableActions ?? [];
      for (let turn = 0; turn < 40; turn++) {
        const action = await oracle.next();
        if (!listed.includes(action)) unlisted.push(action);
        const r = await env.step(action);
        listed = r.info.availableActions ?? [];
        if (r.terminated) {
          solved += r.info.success === true ? 1 : 0;
          break;
        }
      }
    }
    expect(unlisted).toEqual([]);
    expect(solved / textcraftDefinition.tasks('train').length).toBeGreaterThanOrEqual(0.98);
  });

  it('refuses an env that is not a local TextCraftEnv', () => {
    expect(() => textcraftDefinition.oracle?.({ spec: textcraftDefinition.spec, reset: async () => ({ observation: '', info: {} }), step: async () => ({ observation: '', reward: 0, terminated: false, truncated: false, info: {} }), close: async () => {} })).toThrow(/local TextCraftEnv/);
  });
});

describe('textcraft random baseline', () => {
  it('runs the test split without aborts and succeeds less than the oracle', async () => {
    const summary = await createRolloutSystem({ env: textcraftDefinition, agent: 'random', split: 'test', seed: 3 }).run();
    expect(summary.episodes).toBe(100);
    expect(summary.outcomes.aborted).toBe(0);
    expect(summary.successRate).toBeLessThan(0.98);
  });
});
