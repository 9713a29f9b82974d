import { describe, expect, it } from 'vitest';
import { EnvError } from '../../envs/contract.ts';
import { checkEnv } from '../../envs/check-env.ts';
import { getEnv, listEnvs } from '../../envs/index.ts';
import { craftingTree, MAX_DISTRACTORS, TextCraftEnv, textcraftDefinition, treeRecipes } from '../../envs/textcraft/index.ts';

async function rejection(promise: Promise<unknown>): Promise<EnvError> {
  const error = await promise.then(() => undefined, (e: unknown) => e);
  expect(error).toBeInstanceOf(EnvError);
  return error as EnvError;
}

describe('textcraft env contract', () => {
  it('passes checkEnv on test and train tasks', async () => {
    const [test0, test99] = [textcraftDefinition.tasks('test')[0], textcraftDefinition.tasks('test')[99]];
    const train0 = textcraftDefinition.tasks('train')[0];
    await checkEnv(textcraftDefinition, { taskIds: [test0, test99, train0] as string[], steps: 20 });
  });

  it('is registered with AgentGym-RL\'s final TextCraft horizon and its split sizes', () => {
    expect(listEnvs().map((d) => d.spec.id)).toContain('textcraft');
    expect(getEnv('textcraft').spec).toMatchObject({ id: 'textcraft', defaultHorizon: 30, splits: { train: 374, test: 100 }, maxReward: 1 });
  });

  it('rejects bad task ids and misuse with EnvErrors, never a crash', async () => {
    const env = textcraftDefinition.make();
    expect((await rejection(env.step('inventory'))).code).toBe('ENV_NOT_RESET');
    for (const bad of ['', 'no_such_item', 'oak_log', 'planks', 'minecraft:crafting_table', 'crafting table']) {
      const error = await rejection(env.reset({ taskId: bad }));
      expect(error.code).toBe('TASK_UNKNOWN');
      expect(error.message).toContain('textcraft task');
    }
    await env.reset({ taskId: 'oak_planks' });
    await env.step('get 1 oak logs');
    const done = await env.step('craft 4 oak planks using 1 oak logs');
    expect(done).toMatchObject({ reward: 1, terminated: true, truncated: false, info: { success: true } });
    expect((await rejection(env.step('inventory'))).code).toBe('ENV_NOT_RESET');
    await env.close();
    expect((await rejection(env.reset({ taskId: 'oak_planks' }))).code).toBe('ENV_CLOSED');
  });

  it('shows the goal\'s crafting tree and at most 10 distractors, as AgentGym\'s reset does', async () => {
    const env = new TextCraftEnv(textcraftDefinition.spec);
    const tree = craftingTree();
    for (const goal of ['crafting_table', 'dark_oak_sign', 'painting', ...textcraftDefinition.tasks('test').slice(0, 30)]) {
      const { observation, info } = await env.reset({ taskId: goal, seed: 3 });
      const [head, commands, tail] = [observation.slice(0, 18), observation.split('\n').slice(1, -2), observation.split('\n').slice(-2)];
      expect(head).toBe('Crafting commands:');
      expect(tail).toEqual(['', `Goal: craft ${goal.replaceAll('_', ' ')}.`]);
      const inTree = new Set(treeRecipes(tree, goal).map((r) => r.text));
      for (const text of inTree) expect(commands).toContain(text);
      const distractors = commands.filter((c) => !inTree.has(c));
      expect(distractors.length).toBe(info['distractors']);
      expect(distractors.length).toBeLessThanOrEqual(MAX_DISTRACTORS);
      expect(new Set(commands).size).toBe(commands.length);
      for (const c of commands) expect(c).toMatch(/^craft \d+ [a-z ]+ using \d+ [a-z ]+(, \d+ [a-z ]+)*$/);
    }
  });

  it('lists the tree with generic tags and the executable actions in info', async () => {
    const env = textcraftDefinition.make();
    const { observation, info } = await env.reset({ taskId: 'crafting_table' });
    expect(observation).toContain('\ncraft 1 crafting table using 4 planks\n');
    // Tags without a craftable member are items, as in agentenv-textcraft (crafting_tree.py clean_up_recipes).
    expect(observation).toContain('\ncraft 4 oak planks using 1 oak logs\n');
    expect(observation).toContain('\ncraft 4 warped planks using 1 warped stems\n');
    expect(observation.endsWith('\n\nGoal: craft crafting table.')).toBe(true);
    const actions = info.availableActions ?? [];
    expect(actions).toContain('craft 1 crafting table using 4 oak planks');
    expect(actions).toContain('craft 1 crafting table using 4 warped planks');
    expect(actions).not.toContain('craft 1 crafting table using 4 planks');
    expect(actions).toContain('get 1 oak logs');
    expect(actions).toContain('inventory');
    // Every listed action is well-formed for the env: none is answered "Could not execute".
    for (const action of actions) {
      const fresh = textcraftDefinition.make();
      await fresh.reset({ taskId: 'crafting_table' });
      expect((await fresh.step(action)).observation).not.toMatch(/^(Could not execute|Wrong item format)/);
    }
  });
});

describe('textcraft reset list (environment.py TextCraftEnv.reset keeps a set of recipe texts)', () => {
  it('shows a recipe two files share once: sugar from sugar cane (sugar.json, sugar_from_sugar_cane.json)', async () => {
    const env = textcraftDefinition.make();
    const { observation } = await env.reset({ taskId: 'sugar' });
    expect(observation.split('\n').filter((l) => l === 'craft 1 sugar using 1 sugar cane')).toHaveLength(1);
    expect(observation).toContain('\ncraft 3 sugar using 1 honey bottle');
  });
});
